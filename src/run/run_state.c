/* The run's clock, the host copy of its state and its lines (run_state.h): what the other files
 * of the run stand on. */
#include "run/run_state.h"

#include <stdio.h>

#include "util/clock.h"

void run_say(const Run *r, int where, const char *fmt, ...)
{
    if (!r->desc.log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->desc.log(r->desc.user, where, line);
}

const char *run_when(const Run *r, double t, char *buf, size_t len)
{
    const Units *u = &r->info.scene.units;
    char when[32];
    if (units_physical(u)) snprintf(buf, len, "t = %s (%.4g)", units_format_time(u, t, when, sizeof when), t);
    else snprintf(buf, len, "t = %.4g", t);
    return buf;
}

double run_time(const Run *r) { return r->time_base + (r->sim ? sim_stats(r->sim).time : 0); }
long long run_step(const Run *r) { return r->step_base + (r->sim ? sim_stats(r->sim).total_steps : 0); }
long long run_steps_computed(const Run *r) { return r->computed; }

void run_read_state(Run *r)
{
    if (!r->sim || sim_error(r->sim)) return;
    sim_read(r->sim, &r->copy.bodies);
    r->copy.valid = true;
    r->copy.time = run_time(r);
    r->copy.step = run_step(r);
    r->copy.read_at = clock_seconds();
}

const RunCopy *run_copy(const Run *r) { return &r->copy; }
