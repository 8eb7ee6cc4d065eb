/* What the run's measurements (run.h, "observation") mean on screen after each advance: its energy
 * against the first state's and the alarms that follow (diverged, energy off, flying apart), the
 * force checks (at once, and live in the run's worker), the checkpoint the CPU carries on from,
 * and --monitor's line of memory and errors. */
#include <GL/glew.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/viewer.h"
#include "app/ui_names.h"
#include "util/clock.h"
#include "util/params.h"

/* A new run: no measurement of the run before on screen (the run keeps its baselines). */
void app_observe_restart(App *a)
{
    a->ui.readout.energy_valid = false;
    ui_show_diagnostics(&a->ui, NULL);
    ui_show_force_check(&a->ui, NULL);
    ui_show_live_error(&a->ui, NULL);
    a->ui.readout.energy_history_count = 0;
    a->msg.alarm[0] = '\0';
    app_heating_show(a);
}

/* The energy, where one is due, on screen; a run gone wrong is said large, with the keys that
 * mend it. */
static void app_measure_energy(App *a, double t)
{
    const SimParams p = app_ui_params(a);
    if (!run_measure_energy(a->run, p.softening, t)) return;
    const RunEnergy *e = run_energy(a->run);
    UiReadout *r = &a->ui.readout;
    if (!e->finite) {
        a->ui.controls.paused = true;
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "The simulation diverged (energy is not finite): paused. ctrl+Z undoes the last change, R resets.");
        r->energy_valid = false;
        return;
    }
    r->energy_error = e->error;
    r->energy_valid = true;
    ui_show_diagnostics(&a->ui, &e->diag);
    r->energy_history = e->history;
    r->energy_history_count = e->history_count;
    if (p.damping >= 1.0f && fabs(e->error) > ENERGY_ALARM)
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "Energy is off by %.3g %%: this run is no longer accurate. ctrl+Z undoes the last change, "
                 "Backspace restores the defaults, R resets.",
                 100 * fabs(e->error));
    else if (e->spread > SPREAD_ALARM)
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "The bodies are flying apart (half-mass radius x%.1f). ctrl+Z undoes the last change, Backspace "
                 "restores the defaults, R resets.",
                 e->spread);
    else if (!sim_diverged(run_sim(a->run)))
        a->msg.alarm[0] = '\0';
}

void app_check_forces(App *a)
{
    ForceCheck c;
    if (run_check_forces(a->run, app_ui_params(a).softening, &c) != 0) {
        app_notify(a, "Force check: out of memory");
        return;
    }
    ui_show_force_check(&a->ui, &c);
    const Sim *sim = run_sim(a->run);
    app_say(a, "starburst: force check of %s on %d bodies: median %.3g, 99%% %.3g, 99.9%% %.3g, worst %.3g, rms %.3g\n",
            sim_force(sim) == SIM_FORCE_TREE  ? "the tree"
            : sim_force(sim) == SIM_FORCE_FMM ? "the fmm"
                                              : sim_kernel_name(sim_kernel(sim)),
            c.samples, c.median, c.p99, c.p999, c.worst, c.rms);
}

/* The force method running now, as the live force error names it. */
void app_method_name(const App *a, char *buf, size_t len)
{
    const Sim *sim = run_sim(a->run);
    if (sim_force(sim) == SIM_FORCE_TREE || sim_force(sim) == SIM_FORCE_FMM) {
        char opening[32];
        app_describe_opening(sim_force(sim), &a->live.params, opening, sizeof opening);
        snprintf(buf, len, "%s, %s", sim_force_name(sim_force(sim)), opening);
    }
    else if (a->ui.readout.cuda)
        snprintf(buf, len, "kernel %s", sim_kernel_name(sim_kernel(sim)));
    else
        snprintf(buf, len, "direct sum");
}

/* The live force error, measured every few seconds while the Diagnostics section is open or the
 * tree runs, on screen when a result arrives. */
static void app_watch_forces(App *a, double t)
{
    const SimForce force = sim_force(run_sim(a->run));
    const bool wanted = a->ui.controls.diagnostics_open || force == SIM_FORCE_TREE || force == SIM_FORCE_FMM;
    char method[64];
    app_method_name(a, method, sizeof method);
    const RunLiveError *live = run_live_error(a->run);
    const SimParams p = app_ui_params(a);
    if (run_watch_forces(a->run, &p, t, wanted, method)) {
        ui_show_live_error(&a->ui, &live->error);
        a->ui.readout.live_error_what = live->what;
    }
    a->ui.readout.live_error_measuring = live->measuring;
}

/* After the advance: energy and the flags it raises, the live force error, and the checkpoint of
 * the CUDA backend. Headless with --frames, only the checkpoint: nothing reads the rest. */
void app_observe(App *a, double t)
{
    if (!a->set.headless || a->set.frames == 0) {
        app_measure_energy(a, t);
        app_watch_forces(a, t);
    }
    if (sim_backend(run_sim(a->run)) == SIM_BACKEND_CUDA) run_checkpoint(a->run, CHECKPOINT_SECONDS);
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
