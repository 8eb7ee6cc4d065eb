/* The run's clock, and the host copy of its state: read for the diagnostics, camera follow, undo
 * and saves, and kept as the checkpoint the CPU carries on from if CUDA fails. */
#include "app/app_internal.h"
#include "util/clock.h"

/* The run's time and step count: the simulation's, from the base it started on. */
double app_run_time(const App *a) { return a->run.time_base + sim_stats(a->run.sim).time; }

long long app_run_step(const App *a) { return a->run.step_base + sim_stats(a->run.sim).total_steps; }

/* Copies the simulation's state to the host; it is also the checkpoint a fall-back starts from. */
void app_read_state(App *a)
{
    if (sim_error(a->run.sim)) return;
    sim_read(a->run.sim, &a->host.bodies);
    a->host.valid = true;
    a->host.time = app_run_time(a);
    a->host.step = app_run_step(a);
    a->host.read_at = clock_seconds();
}
