/* Watching the run after each advance: its energy against the first state's, the alarms that
 * follow (diverged, energy off, flying apart), the force checks (at once, and live in a worker),
 * the checkpoint the CPU carries on from, and --monitor's line of memory and errors. */
#include <GL/glew.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/viewer.h"
#include "app/ui_names.h"
#include "util/clock.h"
#include "util/params.h"

/* A new run's baseline: its first state (the run keeps it), whose energy and disks the run
 * is held against, and no measurement of the run before. */
void app_observe_restart(App *a, const Bodies *first)
{
    a->obs.initial = first; /* the run's: E0 is measured on it, with whatever softening is in force */
    a->obs.half_mass0 = bodies_mass_radius(first, 0.5);
    app_heating_restart(a, first);
    a->obs.e0_softening = NAN;
    a->obs.next_energy_at = 0;
    a->ui.readout.energy_valid = false;
    ui_show_diagnostics(&a->ui, NULL);
    ui_show_force_check(&a->ui, NULL);
    if (a->obs.watch) force_watch_forget(a->obs.watch);
    ui_show_live_error(&a->ui, NULL);
    a->obs.watch_next = 0;
    a->obs.energy_history_count = 0;
    a->ui.readout.energy_history_count = 0;
    a->msg.alarm[0] = '\0';
}

/* The energy of the run's first state with softening eps, on the backend that runs (a second,
 * short-lived simulation of it): E0 stays the energy at t = 0 when the softening changes. */
static bool app_initial_energy(App *a, float eps, double *e0)
{
    char err[256];
    Sim *first = sim_create(&(SimDesc){.backend = sim_backend(run_sim(a->run))}, a->obs.initial, err, sizeof err);
    if (!first) return false;
    SimEnergy e = sim_energy(first, eps);
    sim_destroy(first);
    *e0 = e.kinetic + e.potential;
    return isfinite(*e0);
}

static void app_measure_energy(App *a, double t)
{
    /* O(N^2) in double: keep it to a few per cent of the time, and skip it for huge N. */
    if (t < a->obs.next_energy_at || sim_count(run_sim(a->run)) > 262144 || sim_error(run_sim(a->run))) return;
    double t0 = clock_seconds();
    if (!(a->obs.e0_softening == app_ui_params(a).softening)) {
        if (!app_initial_energy(a, app_ui_params(a).softening, &a->obs.e0)) return;
        a->obs.e0_softening = app_ui_params(a).softening;
    }
    SimEnergy e = sim_energy(run_sim(a->run), app_ui_params(a).softening);
    double total = e.kinetic + e.potential;
    run_read_state(a->run);
    a->obs.energy_cost = clock_seconds() - t0;
    a->obs.next_energy_at = clock_seconds() + fmax(0.25, 20 * a->obs.energy_cost);
    if (!isfinite(total)) {
        a->ui.controls.paused = true;
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "The simulation diverged (energy is not finite): paused. ctrl+Z undoes the last change, R resets.");
        a->ui.readout.energy_valid = false;
        return;
    }
    a->ui.readout.energy_error = a->obs.e0 != 0 ? (total - a->obs.e0) / fabs(a->obs.e0) : 0;
    a->ui.readout.energy_valid = true;
    diag_measure(&run_copy(a->run)->bodies, e, &a->obs.diag);
    ui_show_diagnostics(&a->ui, &a->obs.diag);
    const int cap = (int)(sizeof a->obs.energy_history / sizeof a->obs.energy_history[0]);
    if (a->obs.energy_history_count == cap) {
        memmove(a->obs.energy_history, a->obs.energy_history + 1, (size_t)(cap - 1) * sizeof a->obs.energy_history[0]);
        a->obs.energy_history_count--;
    }
    a->obs.energy_history[a->obs.energy_history_count++] = (float)a->ui.readout.energy_error;
    a->ui.readout.energy_history = a->obs.energy_history;
    a->ui.readout.energy_history_count = a->obs.energy_history_count;

    /* A run gone wrong is said large, with the keys that mend it. */
    const double spread = a->obs.half_mass0 > 0 ? bodies_mass_radius(&run_copy(a->run)->bodies, 0.5) / a->obs.half_mass0 : 1;
    if (app_ui_params(a).damping >= 1.0f && fabs(a->ui.readout.energy_error) > ENERGY_ALARM)
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "Energy is off by %.3g %%: this run is no longer accurate. ctrl+Z undoes the last change, "
                 "Backspace restores the defaults, R resets.",
                 100 * fabs(a->ui.readout.energy_error));
    else if (spread > SPREAD_ALARM)
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "The bodies are flying apart (half-mass radius x%.1f). ctrl+Z undoes the last change, Backspace "
                 "restores the defaults, R resets.",
                 spread);
    else if (!sim_diverged(run_sim(a->run)))
        a->msg.alarm[0] = '\0';
}

void app_check_forces(App *a)
{
    run_read_state(a->run);
    if (diag_force_check(run_sim(a->run), &run_copy(a->run)->bodies, app_ui_params(a).softening, 2048, &a->obs.force_check) != 0) {
        app_notify(a, "Force check: out of memory");
        return;
    }
    ui_show_force_check(&a->ui, &a->obs.force_check);
    app_say(a, "starburst: force check of %s on %d bodies: median %.3g, 99%% %.3g, 99.9%% %.3g, worst %.3g, rms %.3g\n",
            sim_force(run_sim(a->run)) == SIM_FORCE_TREE  ? "the tree"
            : sim_force(run_sim(a->run)) == SIM_FORCE_FMM ? "the fmm"
                                                     : sim_kernel_name(sim_kernel(run_sim(a->run))),
            a->obs.force_check.samples, a->obs.force_check.median, a->obs.force_check.p99,
            a->obs.force_check.p999, a->obs.force_check.worst, a->obs.force_check.rms);
}

/* The force method running now, as the live force error names it. */
void app_method_name(const App *a, char *buf, size_t len)
{
    if (sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_force(run_sim(a->run)) == SIM_FORCE_FMM)
        snprintf(buf, len, "%s, theta %.2f", sim_force_name(sim_force(run_sim(a->run))), params_theta(a->live.params.theta));
    else if (a->ui.readout.cuda)
        snprintf(buf, len, "kernel %s", sim_kernel_name(sim_kernel(run_sim(a->run))));
    else
        snprintf(buf, len, "direct sum");
}

/* The live force error: a result taken when it has arrived, and a new measurement every few
 * seconds while the Diagnostics section is open or the tree runs. */
static void app_watch_forces(App *a, double t)
{
    if (!a->obs.watch) return;
    if (force_watch_take(a->obs.watch, &a->obs.live_error)) {
        snprintf(a->obs.live_what, sizeof a->obs.live_what, "%s", a->obs.live_what_pending);
        ui_show_live_error(&a->ui, &a->obs.live_error);
        a->ui.readout.live_error_what = a->obs.live_what;
    }
    a->ui.readout.live_error_measuring = force_watch_busy(a->obs.watch);
    const SimForce force = sim_force(run_sim(a->run));
    const bool wanted = a->ui.controls.diagnostics_open || force == SIM_FORCE_TREE || force == SIM_FORCE_FMM;
    if (!wanted || a->ui.readout.live_error_measuring || t < a->obs.watch_next || sim_error(run_sim(a->run))) return;
    const double t0 = clock_seconds();
    run_read_state(a->run);
    if (force_watch_start(a->obs.watch, run_sim(a->run), &run_copy(a->run)->bodies, app_ui_params(a).softening, LIVE_ERROR_SAMPLES) != 0) {
        app_notify(a, "Live force error: out of memory");
        a->obs.watch_next = t + 60;
        return;
    }
    app_method_name(a, a->obs.live_what_pending, sizeof a->obs.live_what_pending);
    a->ui.readout.live_error_measuring = true;
    a->obs.watch_next = clock_seconds() + fmax(LIVE_ERROR_SECONDS, 20 * (clock_seconds() - t0));
}

/* After the advance: energy and the flags it raises, and the checkpoint of the CUDA backend. */
void app_observe(App *a, double t)
{
    if (!a->set.headless || a->set.frames == 0) {
        app_measure_energy(a, t);
        app_watch_forces(a, t);
    }
    if (sim_backend(run_sim(a->run)) == SIM_BACKEND_CUDA && t - run_copy(a->run)->read_at >= CHECKPOINT_SECONDS) run_read_state(a->run);
}

/* Resident memory of this process in MiB, from /proc (0 where it cannot be read). */
static double resident_mib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* One line for long runs: memory in use and errors, so growth or trouble shows in a log. */
void app_monitor(App *a, int frame)
{
    size_t free_b = 0, total_b = 0;
    char gpu[64] = "n/a";
    if (sim_device_memory(run_sim(a->run), &free_b, &total_b))
        snprintf(gpu, sizeof gpu, "%.1f MiB", (double)(total_b - free_b) / (1024.0 * 1024.0));
    GLenum gl = glGetError(), first = gl;
    int gl_errors = 0;
    while (gl != GL_NO_ERROR && gl_errors < 16) {
        gl_errors++;
        gl = glGetError();
    }
    const char *sim_err = sim_error(run_sim(a->run));
    char gl_text[48] = "";
    if (gl_errors) snprintf(gl_text, sizeof gl_text, " (first 0x%04x)", first);
    fprintf(stderr, "starburst: monitor frame %d: host %.1f MiB, GPU %s, GL errors %d%s, sim %s%s\n", frame,
            resident_mib(), gpu, gl_errors, gl_text, sim_err ? "error: " : "ok", sim_err ? sim_err : "");
}
