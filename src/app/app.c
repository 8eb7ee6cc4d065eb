/* The frame loop: input -> requests -> advance (k steps, positions end in the vertex buffer) ->
 * observe (energy, divergence, a checkpoint) -> draw -> UI -> capture -> present. Everything the
 * app owns is in App; the UI and the keys raise requests, handled in one place each frame. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "util/clock.h"
#include "app/ladder_tour.h"
#include "app/presets.h"
#include "app/readout.h"
#include "app/record.h"
#include "app/state.h"
#include "app/ui_names.h"
#include "app/undo.h"
#include "render/camera.h"
#include "render/capture.h"
#include "render/context.h"
#include "sim/diag.h"
#include "sim/force_watch.h"
#include "ui/ui.h"

#define CPU_DEFAULT_BODIES 4096
#define DEFAULT_BODIES 16384
/* A message stays this long, then fades out over a second. */
#define NOTICE_SECONDS 4.0
/* A conservative run whose energy is off by more than this is no longer to be trusted. */
#define ENERGY_ALARM 1e-2
/* The bodies are leaving the view when the half-mass radius grows this many times. */
#define SPREAD_ALARM 4.0
/* The CUDA backend's state is copied to the host at least this often, so that the CPU can carry
 * on from it if CUDA fails. */
#define CHECKPOINT_SECONDS 1.0
/* The tree overlay copies the cells of a changing tree at most this often, and at most this many
 * (a million bodies hold some 10^5 cells in 8 levels: a wall of lines, and 24 vertices each). */
#define TREE_OVERLAY_SECONDS 0.1
#define TREE_OVERLAY_MAX_BOXES 65536
/* The live force error: bodies sampled, and how often (more seldom where taking the method's
 * accelerations costs the frame loop more than a twentieth of its time). */
#define LIVE_ERROR_SAMPLES 256
#define LIVE_ERROR_SECONDS 2.0

typedef struct App {
    AppOptions opt;
    RenderContext *ctx;
    Renderer *renderer;
    int renderer_capacity;
    Sim *sim;
    SceneInfo info;
    Camera camera;
    UiModel ui;
    bool ui_attached;
    bool kernel_picked; /* a kernel named by --kernel or picked in the UI; else the default for each N */
    LadderTour tour;    /* K: every rung of the ladder timed in turn */
    SimBackend backend_wanted;
    /* The run's clock: the simulation counts from its creation (or the last sim_load); these
     * are the time and steps before that (a loaded run's, an undo's). */
    double time_base;
    long long step_base;
    /* Energy: E0 is the energy of the run's first state (the scene's, or the loaded one) with
     * the softening in force, measured now and then. */
    Bodies initial;
    double e0;
    float e0_softening;
    double half_mass0; /* half-mass radius of the first state */
    double next_energy_at, energy_cost;
    /* Rates over the last half second. */
    double rate_since;
    int rate_frames;
    long long rate_steps;
    /* Mouse. */
    bool orbiting, panning;
    double mouse_x, mouse_y;
    float speed_scale;
    char notice[256];
    double notice_at;
    char alarm[256];
    char backend_note[300]; /* why this backend runs, shown again after each reset */
    char device[160];
    char method[160];
    /* Presets, and the scene of the last reset (a new scene takes its own dt and softening). */
    PresetList presets; /* those this run can take (app_offered) */
    const char **preset_names;
    char presets_path[4096];
    /* What the presets are offered for: -1 = not yet known, 0 = the CPU backend, 1 = the CUDA
     * backend; on it, the presets whose bodies the GPU did not hold at the start. */
    int presets_cuda;
    char cuda_why[256];    /* why CUDA does not run, where it does not */
    char withheld[16][64];
    int withheld_count;
    SimForce force_cli;    /* --force: what a preset without a force key runs */
    double cycle_next;
    int last_scene, last_n;
    int opt_n; /* -n from the command line, 0 = none */
    uint64_t seed; /* of the scene running now */
    char scene_file[1024]; /* the TIPSY file or saved run of the preset applied last */
    /* Where a loaded run stood when it was saved. */
    SavedRun loaded;
    bool have_loaded;
    bool save_requested;
    /* A recording in progress (--record, or V in a window). */
    Recorder *recorder;
    bool record_toggle;
    /* A host copy of the state: diagnostics, camera follow, and the checkpoint the CPU carries
     * on from if CUDA fails. */
    Bodies state;
    bool state_valid;
    double state_time, state_read_at;
    long long state_step;
    Diagnostics diag;
    ForceCheck force_check;
    /* The live force error: the f64 half in a worker thread. */
    ForceWatch *watch;
    ForceCheck live_error;
    char live_what[64], live_what_pending[64]; /* the method measured, and the one under way */
    double watch_next;
    bool diverged_pause; /* paused because the run diverged */
    UndoHistory undo;
    SimParams params; /* what the simulation received last */
    /* Camera follow: the centre of mass sampled a few times a second, approached smoothly. */
    int follow;
    float follow_target[3];
    bool follow_valid;
    double follow_next;
    float energy_history[240];
    int energy_history_count;
    /* Lecture mode goes full screen; leaving it restores what was before. */
    bool lecture_shown, fullscreen_before_lecture;
    /* The tree overlay (T): the cells of the last tree, copied from the simulation while shown and
     * the tree has changed, at most every TREE_OVERLAY_SECONDS. */
    SimTreeBox *tree_cells;
    RenderBox *tree_boxes;
    int tree_drawn;            /* boxes handed to the renderer */
    bool tree_capped;          /* fewer levels drawn than asked: too many cells */
    const Sim *tree_sim;       /* what the boxes were copied from: the simulation, */
    long long tree_step;       /* its step count, */
    int tree_levels;           /* the levels asked for, */
    int tree_force;            /* and its method */
    double tree_next;
    char tree_note[160];
    /* P: a screenshot of the next frame, without the panel. */
    bool screenshot_requested;
    char screenshot[300];
    /* The loop. */
    int frames; /* 0 = until closed */
    int frame;
    int status;
    double start, last, last_progress;
    const char *readout; /* STARBURST_READOUT: a file of the app's state, rewritten every frame */
} App;

/* A message on screen, fading after a few seconds; longer ones are cut. */
static void notify(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notify(App *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->notice, sizeof a->notice, fmt, ap);
    va_end(ap);
    a->notice_at = clock_seconds();
}

static void say(const App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const App *a, const char *fmt, ...)
{
    if (a->opt.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* "1 step", "4 steps". */
static const char *plural(long long count, const char *one, const char *many) { return count == 1 ? one : many; }

/* "dt 0.0100, softening 0.0500, damping 1 (off)", and theta while the tree runs. */
static void describe_params(const App *a, const SimParams *p, char *buf, size_t len)
{
    char damping[32], theta[32] = "";
    if (p->damping >= 1.0f) snprintf(damping, sizeof damping, "1 (off)");
    else snprintf(damping, sizeof damping, "%.6g", p->damping);
    if (sim_force(a->sim) == SIM_FORCE_TREE) snprintf(theta, sizeof theta, ", theta %.2f", p->theta);
    snprintf(buf, len, "dt %.3g, softening %.3g, damping %s%s", p->dt, p->softening, damping, theta);
}

static SimParams ui_params(const App *a)
{
    return (SimParams){.dt = a->ui.dt, .softening = a->ui.softening, .damping = a->ui.damping, .theta = a->ui.theta};
}

static double run_time(const App *a) { return a->time_base + sim_stats(a->sim).time; }
static long long run_step(const App *a) { return a->step_base + sim_stats(a->sim).total_steps; }

/* Copies the simulation's state to the host; it is also the checkpoint a fall-back starts from. */
static void app_read_state(App *a)
{
    if (sim_error(a->sim)) return;
    sim_read(a->sim, &a->state);
    a->state_valid = true;
    a->state_time = run_time(a);
    a->state_step = run_step(a);
    a->state_read_at = clock_seconds();
}

/* The opening angle of the command line, else the default. */
static float opt_theta(const App *a) { return a->opt.theta > 0 ? a->opt.theta : SIM_THETA_DEFAULT; }

/* The parameters the scene starts with: its own, or a loaded run's; theta from the command line
 * where the run has none. */
static SimParams scene_defaults(const App *a)
{
    if (a->have_loaded && a->loaded.params.dt > 0) {
        SimParams p = a->loaded.params;
        if (!(p.damping > 0)) p.damping = 1;
        if (!(p.theta > 0)) p.theta = opt_theta(a);
        return p;
    }
    return (SimParams){.dt = a->info.dt, .softening = a->info.softening, .damping = 1.0f, .theta = opt_theta(a)};
}

/* Builds the scene in the UI model's settings and (re)creates the simulation on it. */
static int app_reset(App *a, char *err, size_t errlen)
{
    /* A reset ends a tour of the ladder: the new simulation runs the rung the tour left (the
     * force method it left is a->opt.force's, which a tour does not change). */
    if (a->tour.active) {
        a->tour.active = false;
        if (a->tour.restore != UI_RUNG_TREE) a->ui.kernel = a->tour.restore;
    }
    SceneDesc d = a->opt.scene;
    if (d.kind < SCENE_TIPSY) {
        d.kind = (SceneKind)a->ui.scene;
        d.n = a->ui.n;
    }
    d.seed = (uint64_t)a->ui.seed;
    Bodies b;
    SceneInfo info;
    if (a->opt.load_path) {
        if (state_load(a->opt.load_path, &b, &a->loaded, err, errlen) != 0) return -1;
        a->have_loaded = true;
        /* Framed by the radius of 90 % of the mass; dt and softening as saved. */
        info = (SceneInfo){.dt = a->loaded.params.dt > 0 ? a->loaded.params.dt : 0.01f,
                           .softening = a->loaded.params.softening,
                           .extent = (float)(1.2 * bodies_mass_radius(&b, 0.9))};
        d.kind = SCENE_TIPSY;
    } else if (scene_build(&d, &b, &info, err, errlen) != 0) {
        return -1;
    }
    a->info = info;
    a->ui.bodies = b.n;
    /* A loaded run goes on with the method it ran, unless the command line names one. */
    if (a->have_loaded && a->last_n == 0 && a->force_cli == SIM_FORCE_AUTO && a->loaded.force != SIM_FORCE_AUTO)
        a->opt.force = a->loaded.force;

    sim_destroy(a->sim);
    a->sim = NULL;
    if (b.n > a->renderer_capacity) {
        renderer_destroy(a->renderer);
        a->renderer = renderer_create(&(RendererDesc){.max_bodies = b.n, .shader_dir = a->opt.shader_dir}, err, errlen);
        if (!a->renderer) {
            bodies_free(&b);
            return -1;
        }
        a->renderer_capacity = b.n;
    }
    renderer_upload(a->renderer, b.pos, b.tag, b.n);

    SimDesc sd = {
        .backend = a->backend_wanted,
        .kernel = a->kernel_picked ? (SimKernel)a->ui.kernel : SIM_KERNEL_DEFAULT,
        .precision = a->opt.precision,
        .threads_per_body = a->opt.threads_per_body,
        .block_size = a->opt.block_size,
        .force = a->opt.force,
        .position_vbo = renderer_position_vbo(a->renderer),
        .speed_vbo = renderer_speed_vbo(a->renderer),
    };
    a->sim = sim_create(&sd, &b, err, errlen);
    if (!a->sim) {
        bodies_free(&b);
        return -1;
    }
    a->ui.kernel = (int)sim_kernel(a->sim);
    a->ui.force = (int)a->opt.force;
    a->ui.tree = sim_force(a->sim) == SIM_FORCE_TREE;
    a->ui.cuda = sim_backend(a->sim) == SIM_BACKEND_CUDA;
    a->ui.backend = sim_backend_name(sim_backend(a->sim));
    snprintf(a->device, sizeof a->device, "%s", sim_device_name(a->sim));
    a->ui.device = a->device;

    /* Speeds map onto the colour ramp up to about twice the initial rms speed. */
    double v2 = 0;
    for (int i = 0; i < b.n; i++) {
        const float *v = b.vel + 4 * i;
        v2 += (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
    }
    a->speed_scale = (float)(2 * sqrt(v2 / b.n));
    if (!(a->speed_scale > 0)) a->speed_scale = 1;
    /* A new scene, or a new body count, starts from the scene's suggested dt and softening;
     * a plain reset keeps what the user set. */
    if (d.kind != (SceneKind)a->last_scene || b.n != a->last_n) {
        a->ui.dt = a->opt.dt > 0 && a->last_n == 0 ? a->opt.dt : info.dt;
        a->ui.softening = a->opt.softening >= 0 && a->last_n == 0 ? a->opt.softening : info.softening;
    }
    if (b.n != a->last_n) memset(a->ui.ladder_rate, 0, sizeof a->ui.ladder_rate);
    a->last_scene = (int)d.kind;
    a->last_n = b.n;
    a->seed = d.seed;
    a->time_base = a->have_loaded ? a->loaded.time : 0;
    a->step_base = a->have_loaded ? a->loaded.step : 0;
    bodies_free(&a->initial);
    a->initial = b; /* E0 is measured on it, with whatever softening is in force */
    a->half_mass0 = bodies_mass_radius(&b, 0.5);
    a->e0_softening = NAN;
    a->next_energy_at = 0;
    a->ui.energy_valid = false;
    ui_show_diagnostics(&a->ui, NULL);
    ui_show_force_check(&a->ui, NULL);
    if (a->watch) force_watch_forget(a->watch);
    ui_show_live_error(&a->ui, NULL);
    a->watch_next = 0;
    a->energy_history_count = 0;
    a->ui.energy_history_count = 0;
    a->alarm[0] = '\0';
    if (a->diverged_pause) a->ui.paused = a->diverged_pause = false;
    a->state_valid = false;
    undo_clear(&a->undo);
    if (a->state.n != sim_count(a->sim)) {
        bodies_free(&a->state);
        if (bodies_alloc(&a->state, sim_count(a->sim)) != 0) {
            snprintf(err, errlen, "out of memory for diagnostics of %d bodies", sim_count(a->sim));
            return -1;
        }
    }
    return 0;
}

/* The energy of the run's first state with softening eps, on the backend that runs (a second,
 * short-lived simulation of it): E0 stays the energy at t = 0 when the softening changes. */
static bool app_initial_energy(App *a, float eps, double *e0)
{
    char err[256];
    Sim *first = sim_create(&(SimDesc){.backend = sim_backend(a->sim)}, &a->initial, err, sizeof err);
    if (!first) return false;
    SimEnergy e = sim_energy(first, eps);
    sim_destroy(first);
    *e0 = e.kinetic + e.potential;
    return isfinite(*e0);
}

static void app_measure_energy(App *a, double t)
{
    /* O(N^2) in double: keep it to a few per cent of the time, and skip it for huge N. */
    if (t < a->next_energy_at || sim_count(a->sim) > 262144 || sim_error(a->sim)) return;
    double t0 = clock_seconds();
    if (!(a->e0_softening == a->ui.softening)) {
        if (!app_initial_energy(a, a->ui.softening, &a->e0)) return;
        a->e0_softening = a->ui.softening;
    }
    SimEnergy e = sim_energy(a->sim, a->ui.softening);
    double total = e.kinetic + e.potential;
    app_read_state(a);
    a->energy_cost = clock_seconds() - t0;
    a->next_energy_at = clock_seconds() + fmax(0.25, 20 * a->energy_cost);
    if (!isfinite(total)) {
        a->ui.paused = true;
        snprintf(a->alarm, sizeof a->alarm,
                 "The simulation diverged (energy is not finite): paused. ctrl+Z undoes the last change, R resets.");
        a->ui.energy_valid = false;
        return;
    }
    a->ui.energy_error = a->e0 != 0 ? (total - a->e0) / fabs(a->e0) : 0;
    a->ui.energy_valid = true;
    diag_measure(&a->state, e, &a->diag);
    ui_show_diagnostics(&a->ui, &a->diag);
    const int cap = (int)(sizeof a->energy_history / sizeof a->energy_history[0]);
    if (a->energy_history_count == cap) {
        memmove(a->energy_history, a->energy_history + 1, (size_t)(cap - 1) * sizeof a->energy_history[0]);
        a->energy_history_count--;
    }
    a->energy_history[a->energy_history_count++] = (float)a->ui.energy_error;
    a->ui.energy_history = a->energy_history;
    a->ui.energy_history_count = a->energy_history_count;

    /* A run gone wrong is said large, with the keys that mend it. */
    const double spread = a->half_mass0 > 0 ? bodies_mass_radius(&a->state, 0.5) / a->half_mass0 : 1;
    if (a->ui.damping >= 1.0f && fabs(a->ui.energy_error) > ENERGY_ALARM)
        snprintf(a->alarm, sizeof a->alarm,
                 "Energy is off by %.3g %%: this run is no longer accurate. ctrl+Z undoes the last change, "
                 "Backspace restores the defaults, R resets.",
                 100 * fabs(a->ui.energy_error));
    else if (spread > SPREAD_ALARM)
        snprintf(a->alarm, sizeof a->alarm,
                 "The bodies are flying apart (half-mass radius x%.1f). ctrl+Z undoes the last change, Backspace "
                 "restores the defaults, R resets.",
                 spread);
    else if (!sim_diverged(a->sim))
        a->alarm[0] = '\0';
}

static void app_check_forces(App *a)
{
    app_read_state(a);
    if (diag_force_check(a->sim, &a->state, a->ui.softening, 2048, &a->force_check) != 0) {
        notify(a, "Force check: out of memory");
        return;
    }
    ui_show_force_check(&a->ui, &a->force_check);
    say(a, "starburst: force check of %s on %d bodies: median %.3g, 99%% %.3g, 99.9%% %.3g, worst %.3g, rms %.3g\n",
        sim_force(a->sim) == SIM_FORCE_TREE ? "the tree" : sim_kernel_name(sim_kernel(a->sim)),
        a->force_check.samples, a->force_check.median, a->force_check.p99,
        a->force_check.p999, a->force_check.worst, a->force_check.rms);
}

/* The force method running now, as the live force error names it. */
static void app_method_name(const App *a, char *buf, size_t len)
{
    if (sim_force(a->sim) == SIM_FORCE_TREE)
        snprintf(buf, len, "tree, theta %.2f", a->params.theta > 0 ? a->params.theta : SIM_THETA_DEFAULT);
    else if (a->ui.cuda)
        snprintf(buf, len, "kernel %s", sim_kernel_name(sim_kernel(a->sim)));
    else
        snprintf(buf, len, "direct sum");
}

/* The live force error: a result taken when it has arrived, and a new measurement every few
 * seconds while the Diagnostics section is open or the tree runs. */
static void app_watch_forces(App *a, double t)
{
    if (!a->watch) return;
    if (force_watch_take(a->watch, &a->live_error)) {
        snprintf(a->live_what, sizeof a->live_what, "%s", a->live_what_pending);
        ui_show_live_error(&a->ui, &a->live_error);
        a->ui.live_error_what = a->live_what;
    }
    a->ui.live_error_measuring = force_watch_busy(a->watch);
    const bool wanted = a->ui.diagnostics_open || sim_force(a->sim) == SIM_FORCE_TREE;
    if (!wanted || a->ui.live_error_measuring || t < a->watch_next || sim_error(a->sim)) return;
    const double t0 = clock_seconds();
    app_read_state(a);
    if (force_watch_start(a->watch, a->sim, &a->state, a->ui.softening, LIVE_ERROR_SAMPLES) != 0) {
        notify(a, "Live force error: out of memory");
        a->watch_next = t + 60;
        return;
    }
    app_method_name(a, a->live_what_pending, sizeof a->live_what_pending);
    a->ui.live_error_measuring = true;
    a->watch_next = clock_seconds() + fmax(LIVE_ERROR_SECONDS, 20 * (clock_seconds() - t0));
}

static int app_offer_presets_for(App *a, bool cuda, const char *why, char *err, size_t errlen);

/* A backend that stopped on an error hands over to the CPU backend, from the last state read
 * (at most CHECKPOINT_SECONDS old), or from the scene's start when there is none. The run's
 * step and time counters go on from that state's. */
static int app_fall_back_to_cpu(App *a)
{
    char what[300], err[512];
    snprintf(what, sizeof what, "%s", sim_error(a->sim));
    sim_destroy(a->sim);
    a->sim = NULL;
    a->backend_wanted = SIM_BACKEND_CPU;
    if (a->state_valid) {
        SimDesc sd = {.backend = SIM_BACKEND_CPU,
                      .force = a->opt.force,
                      .position_vbo = renderer_position_vbo(a->renderer),
                      .speed_vbo = renderer_speed_vbo(a->renderer)};
        a->sim = sim_create(&sd, &a->state, err, sizeof err);
        a->time_base = a->state_time;
        a->step_base = a->state_step;
    }
    if (!a->sim && app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s; the CPU backend failed too: %s\n", what, err);
        return -1;
    }
    a->ui.cuda = false;
    a->ui.backend = sim_backend_name(SIM_BACKEND_CPU);
    snprintf(a->device, sizeof a->device, "%s", sim_device_name(a->sim));
    app_offer_presets_for(a, false, "CUDA stopped", err, sizeof err);
    snprintf(a->backend_note, sizeof a->backend_note, "CUDA stopped (%.150s): CPU backend from t = %.4g.", what,
             a->time_base);
    notify(a, "%s", a->backend_note);
    say(a, "starburst: %s\n", a->notice);
    return 0;
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
static void app_monitor(App *a, int frame)
{
    size_t free_b = 0, total_b = 0;
    char gpu[64] = "n/a";
    if (sim_device_memory(a->sim, &free_b, &total_b))
        snprintf(gpu, sizeof gpu, "%.1f MiB", (double)(total_b - free_b) / (1024.0 * 1024.0));
    GLenum gl = glGetError(), first = gl;
    int gl_errors = 0;
    while (gl != GL_NO_ERROR && gl_errors < 16) {
        gl_errors++;
        gl = glGetError();
    }
    const char *sim_err = sim_error(a->sim);
    char gl_text[48] = "";
    if (gl_errors) snprintf(gl_text, sizeof gl_text, " (first 0x%04x)", first);
    fprintf(stderr, "starburst: monitor frame %d: host %.1f MiB, GPU %s, GL errors %d%s, sim %s%s\n", frame,
            resident_mib(), gpu, gl_errors, gl_text, sim_err ? "error: " : "ok", sim_err ? sim_err : "");
}

/* ---- presets ---- */

static const char *find_presets_file(char *buf, size_t len)
{
    /* Beside the program (build/../assets), else the source tree it was built from. */
    char exe[4096];
    ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (got > 0) {
        exe[got] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (snprintf(buf, len, "%s/../assets/presets.ini", exe) < (int)len && access(buf, R_OK) == 0)
                return buf;
        }
    }
    snprintf(buf, len, "%s/assets/presets.ini", STARBURST_SOURCE_DIR);
    return buf;
}

/* Whether this run can take preset p: one that asks for the CUDA backend needs it; on the CUDA
 * backend, the GPU must hold its bodies with its force method (checked while nothing else takes
 * GPU memory: at the start, when check_memory is true; later, the names withheld then stay out).
 * False with the reason in why. */
static bool app_offered(const App *a, const Preset *p, bool check_memory, char *why, size_t len)
{
    if (a->presets_cuda < 0) return true;
    if ((p->set & PRESET_CUDA) && !a->presets_cuda) {
        snprintf(why, len, "it needs the CUDA backend, and this run is on the CPU (%s)",
                 a->cuda_why[0] ? a->cuda_why : "--backend cpu");
        return false;
    }
    for (int i = 0; i < a->withheld_count; i++)
        if (strcmp(a->withheld[i], p->name) == 0) {
            snprintf(why, len, "the GPU did not hold its bodies at the start");
            return false;
        }
    const int n = a->opt_n ? a->opt_n : p->scene.n;
    if (!a->presets_cuda || !check_memory || n <= 0 || p->source != PRESET_SOURCE_SCENE) return true;
    const SimDesc d = {.backend = SIM_BACKEND_CUDA,
                       .kernel = a->opt.kernel,
                       .precision = a->opt.precision,
                       .force = p->set & PRESET_FORCE ? p->force : a->force_cli,
                       .position_vbo = 1};
    return sim_check(&d, n, why, len) == 0;
}

/* Takes the presets this run cannot take out of the list; with tell, says which and why. */
static void app_offer_presets(App *a, bool check_memory, bool tell)
{
    int kept = 0;
    for (int i = 0; i < a->presets.count; i++) {
        const Preset *p = &a->presets.items[i];
        char why[400];
        if (app_offered(a, p, check_memory, why, sizeof why)) {
            a->presets.items[kept++] = *p;
            continue;
        }
        if (tell) say(a, "starburst: preset '%s' is not offered: %s\n", p->name, why);
        if (check_memory && a->presets_cuda > 0 && a->withheld_count < 16)
            snprintf(a->withheld[a->withheld_count++], sizeof a->withheld[0], "%s", p->name);
    }
    a->presets.count = kept;
    for (int i = 0; i < kept; i++) a->preset_names[i] = a->presets.items[i].name;
    a->ui.preset_count = kept;
}

static int app_load_presets(App *a, char *err, size_t errlen)
{
    presets_free(&a->presets);
    free(a->preset_names);
    a->preset_names = NULL;
    a->ui.preset_names = NULL;
    a->ui.preset_count = 0;
    if (a->opt.presets_path) snprintf(a->presets_path, sizeof a->presets_path, "%s", a->opt.presets_path);
    else find_presets_file(a->presets_path, sizeof a->presets_path);
    if (presets_load(a->presets_path, &a->presets, err, errlen) != 0) return -1;
    a->preset_names = calloc((size_t)a->presets.count + 1, sizeof *a->preset_names);
    if (!a->preset_names) return -1;
    for (int i = 0; i < a->presets.count; i++) a->preset_names[i] = a->presets.items[i].name;
    a->ui.preset_names = a->preset_names;
    a->ui.preset_count = a->presets.count;
    app_offer_presets(a, false, false);
    return 0;
}

/* The presets for the backend now known (at the start, or after a hand-over to the CPU): those it
 * cannot take leave the list. A --preset that names one is refused: 0, or -1 with err. */
static int app_offer_presets_for(App *a, bool cuda, const char *why, char *err, size_t errlen)
{
    const bool start = !a->sim;
    a->presets_cuda = cuda;
    snprintf(a->cuda_why, sizeof a->cuda_why, "%s", cuda ? "" : why);
    if (!a->preset_names) return 0; /* no presets file */
    char name[64] = "";
    if (a->ui.preset >= 0 && a->ui.preset < a->presets.count)
        snprintf(name, sizeof name, "%s", a->presets.items[a->ui.preset].name);
    const Preset *asked = start && a->opt.preset ? presets_find(&a->presets, a->opt.preset) : NULL;
    char reason[400];
    if (asked && !app_offered(a, asked, true, reason, sizeof reason)) {
        snprintf(err, errlen, "--preset: '%s' is not offered here: %s", asked->name, reason);
        return -1;
    }
    app_offer_presets(a, start && cuda, start);
    const Preset *still = name[0] ? presets_find(&a->presets, name) : NULL;
    a->ui.preset = still ? (int)(still - a->presets.items) : -1;
    return 0;
}

/* Resets into preset i; the camera glides to the preset's view over `glide` seconds. */
static int app_apply_preset(App *a, int i, float glide, char *err, size_t errlen)
{
    const Preset *p = &a->presets.items[i];
    /* The preset list is read again after a save: the app keeps its own copy of a file name. */
    snprintf(a->scene_file, sizeof a->scene_file, "%s", p->file);
    a->opt.scene = p->scene;
    a->opt.load_path = p->source == PRESET_SOURCE_LOAD ? a->scene_file : NULL;
    a->have_loaded = false;
    if (p->source == PRESET_SOURCE_TIPSY || p->source == PRESET_SOURCE_TIPSY_COLLIDE)
        a->opt.scene.tipsy_path = a->scene_file;
    if (p->scene.kind < SCENE_TIPSY) a->ui.scene = (int)p->scene.kind;
    if (a->opt_n) a->ui.n = a->opt_n; /* -n on the command line wins */
    else a->ui.n = p->scene.n ? p->scene.n : (a->ui.cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES);
    a->ui.seed = (int)(p->scene.seed ? p->scene.seed : 1);
    a->opt.force = p->set & PRESET_FORCE ? p->force : a->force_cli;
    a->last_n = -1; /* a preset starts from its scene's suggestions */
    if (app_reset(a, err, errlen) != 0) return -1;
    a->ui.preset = i;
    if (p->set & PRESET_DT) a->ui.dt = p->dt;
    if (p->set & PRESET_SOFTENING) a->ui.softening = p->softening;
    a->ui.damping = p->set & PRESET_DAMPING ? p->damping : 1.0f;
    a->ui.theta = p->set & PRESET_THETA ? p->theta : opt_theta(a);
    if (p->set & PRESET_STEPS) a->ui.steps_per_frame = p->steps_per_frame;
    if (p->set & PRESET_EXPOSURE) a->ui.exposure = p->exposure;
    if (p->set & PRESET_POINT_SIZE) a->ui.point_size = p->point_size;
    if (p->set & PRESET_COLOR) a->ui.color_mode = p->color_mode;
    if (p->set & PRESET_AUTO_ROTATE) a->ui.auto_rotate = p->auto_rotate;
    Camera home;
    camera_init(&home, a->info.extent);
    const float origin[3] = {0, 0, 0};
    float yaw = p->set & PRESET_CAMERA ? p->camera_yaw * (float)M_PI / 180 : home.yaw;
    float pitch = p->set & PRESET_CAMERA ? p->camera_pitch * (float)M_PI / 180 : home.pitch;
    float distance = p->set & PRESET_CAMERA && p->camera_distance > 0 ? p->camera_distance * home.distance
                                                                       : home.distance;
    camera_glide(&a->camera, origin, yaw, pitch, distance, glide);
    notify(a, "Preset: %s (%d bodies)", p->name, sim_count(a->sim));
    return 0;
}

static void app_step_preset(App *a, int delta)
{
    if (a->presets.count == 0) {
        notify(a, "No presets (%s)", a->presets_path);
        return;
    }
    int i = a->ui.preset < 0 ? (delta > 0 ? 0 : a->presets.count - 1)
                             : ((a->ui.preset + delta) % a->presets.count + a->presets.count) % a->presets.count;
    char err[512];
    if (app_apply_preset(a, i, 1.5f, err, sizeof err) != 0) notify(a, "%s", err);
}

/* What runs now, as a preset named in the UI, appended to the presets file: the scene as it was
 * built (kind, body count, seed), or the file it came from, with the live parameters and view. */
static void app_save_preset(App *a)
{
    Preset p = {.scene = a->opt.scene};
    snprintf(p.name, sizeof p.name, "%s", a->ui.preset_name);
    p.scene.tipsy_path = NULL;
    if (a->opt.load_path) {
        p.source = PRESET_SOURCE_LOAD;
        snprintf(p.file, sizeof p.file, "%s", a->opt.load_path);
    } else if (a->opt.scene.kind >= SCENE_TIPSY) {
        p.source = a->opt.scene.kind == SCENE_TIPSY ? PRESET_SOURCE_TIPSY : PRESET_SOURCE_TIPSY_COLLIDE;
        snprintf(p.file, sizeof p.file, "%s", a->opt.scene.tipsy_path);
    } else {
        p.scene.kind = (SceneKind)a->last_scene;
        p.scene.n = sim_count(a->sim);
        p.scene.seed = a->seed;
    }
    p.dt = a->ui.dt;
    p.softening = a->ui.softening;
    p.damping = a->ui.damping;
    p.theta = a->ui.theta;
    p.steps_per_frame = a->ui.steps_per_frame;
    p.exposure = a->ui.exposure;
    p.point_size = a->ui.point_size;
    p.color_mode = a->ui.color_mode;
    p.auto_rotate = a->ui.auto_rotate;
    Camera home;
    camera_init(&home, a->info.extent);
    p.camera_yaw = a->camera.yaw * 180 / (float)M_PI;
    p.camera_pitch = a->camera.pitch * 180 / (float)M_PI;
    p.camera_distance = a->camera.distance / home.distance;
    p.set = PRESET_DT | PRESET_SOFTENING | PRESET_DAMPING | PRESET_THETA | PRESET_STEPS | PRESET_EXPOSURE |
            PRESET_POINT_SIZE | PRESET_COLOR | PRESET_CAMERA | PRESET_AUTO_ROTATE;
    if (a->opt.force != SIM_FORCE_AUTO) {
        p.force = a->opt.force;
        p.set |= PRESET_FORCE;
    }
    char err[512];
    if (presets_append(a->presets_path, &p, err, sizeof err) != 0) {
        notify(a, "Not saved: %s", err);
        return;
    }
    int keep = a->ui.preset;
    if (app_load_presets(a, err, sizeof err) != 0) notify(a, "%s", err);
    else notify(a, "Saved preset '%s' to %s", p.name, a->presets_path);
    say(a, "starburst: %s\n", a->notice);
    a->ui.preset = keep < a->presets.count ? keep : -1;
}

/* Writes the run to path, or to opt.save_path, or to a new name with the date. */
static int app_save_run(App *a, const char *path)
{
    char name[64];
    if (!path) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(name, sizeof name, "starburst-%Y%m%d-%H%M%S.tipsy", &tm);
        path = name;
    }
    SavedRun r = {
        .params = ui_params(a),
        .force = sim_force(a->sim),
        .steps_per_frame = a->ui.steps_per_frame,
        .step = run_step(a),
        .time = run_time(a),
    };
    app_read_state(a);
    char err[512];
    if (state_save(path, &a->state, &r, err, sizeof err) != 0) {
        notify(a, "Not saved: %s", err);
        fprintf(stderr, "starburst: %s\n", a->notice);
        return -1;
    }
    notify(a, "Saved the run at step %lld to %s", r.step, path);
    say(a, "starburst: %s\n", a->notice);
    return 0;
}

/* ---- live parameters: defaults and undo ---- */

/* Keeps the parameters before a change, and the bodies as they are, for ctrl+Z. */
static void app_remember(App *a, const SimParams *before)
{
    if (sim_error(a->sim)) return;
    app_read_state(a);
    char err[256];
    if (undo_push(&a->undo, before, &a->state, a->state_time, a->state_step, err, sizeof err) != 0)
        notify(a, "Undo unavailable: %s", err);
}

static void app_set_params(App *a, const SimParams *p)
{
    a->ui.dt = p->dt;
    a->ui.softening = p->softening;
    a->ui.damping = p->damping;
    if (p->theta > 0) a->ui.theta = p->theta;
}

/* Backspace or the Defaults button: the scene's dt, softening and damping, and theta. */
static void app_restore_defaults(App *a)
{
    const SimParams now = ui_params(a), d = scene_defaults(a);
    char text[160];
    describe_params(a, &d, text, sizeof text);
    if (now.dt == d.dt && now.softening == d.softening && now.damping == d.damping && now.theta == d.theta) {
        notify(a, "Already the defaults: %s", text);
        return;
    }
    app_remember(a, &now);
    app_set_params(a, &d);
    notify(a, "Defaults: %s (ctrl+Z undoes)", text);
}

/* ctrl+Z or the Undo button: the parameters before the last change, and the run as it was. */
static void app_undo(App *a)
{
    UndoEntry e;
    if (!undo_pop(&a->undo, &e)) {
        notify(a, "Nothing to undo");
        return;
    }
    char err[256];
    if (sim_load(a->sim, &e.state, err, sizeof err) != 0) {
        notify(a, "Undo failed: %s", err);
        bodies_free(&e.state);
        return;
    }
    a->time_base = e.time;
    a->step_base = e.step;
    a->state_valid = false;
    app_set_params(a, &e.params);
    bodies_free(&e.state);
    a->alarm[0] = '\0';
    /* A run paused because it diverged goes on from the state before the change. */
    if (a->diverged_pause) a->ui.paused = a->diverged_pause = false;
    a->next_energy_at = 0;
    char text[160];
    describe_params(a, &e.params, text, sizeof text);
    notify(a, "Undone: back to t = %.4g with %s", e.time, text);
}

static const char *const follow_names[] = {"nothing", "galaxy A", "galaxy B", "the whole system"};

/* Samples the centre of mass being followed (a host copy of the bodies a few times a second,
 * never every frame) and moves the camera's target towards it. */
static void app_follow(App *a, double t, float seconds)
{
    if (a->follow == 0) return;
    if (t >= a->follow_next) {
        a->follow_next = t + 0.1;
        app_read_state(a);
        double c[3];
        a->follow_valid = bodies_group_centre(&a->state, a->follow == 3 ? -1 : a->follow - 1, c) > 0;
        for (int k = 0; k < 3 && a->follow_valid; k++) a->follow_target[k] = (float)c[k];
    }
    if (!a->follow_valid) return;
    /* About a third of a second to close most of the gap: smooth, yet it keeps up. */
    float blend = 1.0f - expf(-seconds / 0.3f);
    for (int k = 0; k < 3; k++) a->camera.target[k] += (a->follow_target[k] - a->camera.target[k]) * blend;
}

static void app_cycle_follow(App *a)
{
    a->follow = (a->follow + 1) % 4;
    a->follow_next = 0;
    a->follow_valid = false;
    notify(a, "Camera follows %s", follow_names[a->follow]);
}

/* Starts a recording to path (a video file or a folder of PNGs), or to a new dated name. */
static void app_start_recording(App *a, const char *path)
{
    char name[256], err[512];
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (!path) {
        if (recorder_new_path(name, sizeof name) != 0) {
            notify(a, "Recording: no free name in this folder");
            return;
        }
        path = name;
    }
    a->recorder = recorder_open(&(RecorderDesc){.path = path, .width = w, .height = h}, err, sizeof err);
    if (!a->recorder) {
        notify(a, "%s", err);
        fprintf(stderr, "starburst: %s\n", err);
        return;
    }
    notify(a, "Recording to %s (V stops)", path);
    say(a, "starburst: %s\n", a->notice);
}

/* Finalises the recording: the file appears complete, or not at all. */
static int app_stop_recording(App *a)
{
    char msg[600];
    int rc = recorder_close(a->recorder, msg, sizeof msg);
    a->recorder = NULL;
    notify(a, "%s", msg);
    if (rc != 0) fprintf(stderr, "starburst: %s\n", msg);
    else say(a, "starburst: %s\n", msg);
    return rc;
}

/* ---- the force method and the tree overlay ---- */

/* The force combo: the method changes at once; a refusal (no room on the GPU for the tree) keeps
 * the one that runs and says why. */
static void app_set_force(App *a, SimForce f)
{
    char err[256];
    if (sim_set_force(a->sim, f, err, sizeof err) != 0) {
        notify(a, "Force %s refused: %s", sim_force_name(f), err);
        say(a, "starburst: %s\n", a->notice);
        return;
    }
    a->opt.force = f; /* kept for resets, as the ladder's pick is */
    a->ui.force = (int)f;
    a->ui.tree = sim_force(a->sim) == SIM_FORCE_TREE;
    char method[64];
    if (sim_force(a->sim) == SIM_FORCE_TREE)
        snprintf(method, sizeof method, "the tree (Barnes-Hut, theta %.2f)", a->ui.theta);
    else
        snprintf(method, sizeof method, "the direct sum (all N^2 pairs)");
    if (f == SIM_FORCE_AUTO)
        notify(a, "Force auto: %s for %d bodies on the %s", method, sim_count(a->sim), a->ui.backend);
    else
        notify(a, "Forces by %s", method);
}

/* T: says what the overlay shows, or why it shows nothing. */
static void app_say_tree(App *a)
{
    if (!a->ui.show_tree)
        notify(a, "Tree cells hidden (T shows them)");
    else if (sim_force(a->sim) != SIM_FORCE_TREE)
        notify(a, "The tree overlay shows the tree method's cells: choose tree (force, in the Simulation section)");
    else
        notify(a, "Tree cells shown to level %d (tree levels, in the View section; T hides them)", a->ui.tree_levels);
}

/* The cells the overlay draws, copied again when the tree has changed (at most every
 * TREE_OVERLAY_SECONDS) or other levels are asked for; nothing is copied while it is off. A cap
 * leaves out whole levels, never part of one. */
static void app_tree_overlay(App *a, double t)
{
    UiModel *u = &a->ui;
    if (!u->show_tree) {
        u->tree_note = NULL;
        a->tree_sim = NULL; /* shown again, it copies at once */
        return;
    }
    u->tree_note = a->tree_note;
    const SimForce force = sim_force(a->sim);
    const long long step = sim_stats(a->sim).total_steps;
    const bool asked = a->tree_sim != a->sim || a->tree_levels != u->tree_levels || a->tree_force != (int)force;
    if (!asked && (step == a->tree_step || t < a->tree_next)) return;
    a->tree_sim = a->sim;
    a->tree_step = step;
    a->tree_levels = u->tree_levels;
    a->tree_force = (int)force;
    a->tree_next = t + TREE_OVERLAY_SECONDS;
    a->tree_drawn = 0;
    a->tree_capped = false;
    renderer_set_boxes(a->renderer, NULL, 0);
    if (force != SIM_FORCE_TREE) {
        snprintf(a->tree_note, sizeof a->tree_note,
                 "The direct sum runs: there is no tree to show. Choose tree under force (Simulation).");
        return;
    }
    if (!a->tree_cells) {
        a->tree_cells = malloc(TREE_OVERLAY_MAX_BOXES * sizeof *a->tree_cells);
        a->tree_boxes = malloc(TREE_OVERLAY_MAX_BOXES * sizeof *a->tree_boxes);
    }
    if (!a->tree_cells || !a->tree_boxes) {
        snprintf(a->tree_note, sizeof a->tree_note, "No memory for the tree's cells.");
        return;
    }
    int depth = 0;
    const int total = sim_tree_boxes(a->sim, u->tree_levels, a->tree_cells, TREE_OVERLAY_MAX_BOXES, &depth);
    int count = total;
    if (total > TREE_OVERLAY_MAX_BOXES) {
        const int cut = a->tree_cells[TREE_OVERLAY_MAX_BOXES - 1].level;
        count = TREE_OVERLAY_MAX_BOXES;
        while (count > 0 && a->tree_cells[count - 1].level == cut) count--;
        a->tree_capped = true;
    }
    for (int i = 0; i < count; i++) {
        const SimTreeBox *c = &a->tree_cells[i];
        a->tree_boxes[i] = (RenderBox){.x = c->x, .y = c->y, .z = c->z, .half = c->half, .level = (float)c->level};
    }
    renderer_set_boxes(a->renderer, a->tree_boxes, count);
    a->tree_drawn = count;
    const int deepest = count > 0 ? a->tree_cells[count - 1].level : 0;
    if (total == 0)
        snprintf(a->tree_note, sizeof a->tree_note, "No tree yet: the next step builds it.");
    else if (a->tree_capped)
        snprintf(a->tree_note, sizeof a->tree_note,
                 "%d cells in levels 0-%d: with level %d they would pass %d, the most drawn.", count, deepest,
                 deepest + 1, TREE_OVERLAY_MAX_BOXES);
    else
        snprintf(a->tree_note, sizeof a->tree_note, "%d cells in levels 0-%d; the tree has %d levels below the root.",
                 count, deepest, depth);
}

/* P: the frame as drawn (the panel only with --capture-ui) to a new dated PNG. */
static void app_screenshot(App *a)
{
    char name[256], err[512];
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (recorder_new_name(name, sizeof name, ".png") != 0) {
        notify(a, "Screenshot: no free name in this folder");
        return;
    }
    if (capture_png(name, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
        notify(a, "Screenshot not written: %s", err);
        return;
    }
    snprintf(a->screenshot, sizeof a->screenshot, "%s", name);
    notify(a, "Screenshot: %s", name);
    say(a, "starburst: %s\n", a->notice);
}

/* ---- input ---- */

/* L: lecture mode goes full screen; leaving it gives back the window it came from. */
static void app_set_lecture(App *a, bool on)
{
    a->ui.lecture = on;
    a->lecture_shown = on;
    if (on) {
        a->fullscreen_before_lecture = render_context_fullscreen(a->ctx);
        render_context_set_fullscreen(a->ctx, true);
    } else {
        render_context_set_fullscreen(a->ctx, a->fullscreen_before_lecture);
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    App *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS || (a->ui_attached && ui_wants_keyboard())) return;
    UiModel *u = &a->ui;
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_SPACE:
        u->paused = !u->paused;
        notify(a, u->paused ? "Paused (space resumes)" : "Running");
        break;
    case GLFW_KEY_PERIOD: u->step_once = true; break;
    case GLFW_KEY_R: u->reset = true; break;
    case GLFW_KEY_BACKSPACE: u->defaults = true; break;
    case GLFW_KEY_Z:
        if (mods & GLFW_MOD_CONTROL) u->undo = true;
        break;
    case GLFW_KEY_H: u->visible = !u->visible; break;
    case GLFW_KEY_F:
        render_context_set_fullscreen(a->ctx, !render_context_fullscreen(a->ctx));
        notify(a, render_context_fullscreen(a->ctx) ? "Full screen (F leaves)" : "Window");
        break;
    case GLFW_KEY_A:
        u->auto_rotate = !u->auto_rotate;
        notify(a, u->auto_rotate ? "Auto-rotation on" : "Auto-rotation off");
        break;
    case GLFW_KEY_G: app_cycle_follow(a); break;
    case GLFW_KEY_L: u->lecture = !u->lecture; break;
    case GLFW_KEY_D:
        u->show_halo = !u->show_halo;
        notify(a, u->show_halo ? "Dark-matter halo shown" : "Dark-matter halo hidden");
        break;
    case GLFW_KEY_M:
        u->color_mode = (u->color_mode + 1) % COLOR_MODE_COUNT;
        notify(a, "Colour by %s", renderer_color_mode_name((ColorMode)u->color_mode));
        break;
    case GLFW_KEY_K: u->measure_ladder = true; break;
    case GLFW_KEY_T:
        u->show_tree = !u->show_tree;
        app_say_tree(a);
        break;
    case GLFW_KEY_P: a->screenshot_requested = true; break;
    case GLFW_KEY_HOME:
        u->reset_camera = true;
        notify(a, "Camera reset");
        break;
    case GLFW_KEY_S: a->save_requested = true; break;
    case GLFW_KEY_V: a->record_toggle = true; break;
    case GLFW_KEY_LEFT_BRACKET: app_step_preset(a, -1); break;
    case GLFW_KEY_RIGHT_BRACKET: app_step_preset(a, +1); break;
    case GLFW_KEY_C:
        u->cycling = !u->cycling;
        a->cycle_next = clock_seconds() + u->cycle_seconds;
        if (u->cycling) notify(a, "Cycling through the presets every %.0f s (C stops)", u->cycle_seconds);
        else notify(a, "Preset cycling off");
        break;
    default: break;
    }
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods)
{
    App *a = glfwGetWindowUserPointer(w);
    if (action == GLFW_RELEASE) {
        a->orbiting = a->panning = false;
        return;
    }
    if (a->ui_attached && ui_wants_mouse()) return;
    glfwGetCursorPos(w, &a->mouse_x, &a->mouse_y);
    bool pan = button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE ||
               (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT));
    a->panning = pan;
    a->orbiting = !pan && button == GLFW_MOUSE_BUTTON_LEFT;
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    App *a = glfwGetWindowUserPointer(w);
    float dx = (float)(x - a->mouse_x), dy = (float)(y - a->mouse_y);
    a->mouse_x = x;
    a->mouse_y = y;
    int width, height;
    glfwGetWindowSize(w, &width, &height);
    if (a->orbiting) camera_orbit(&a->camera, dx, dy);
    if (a->panning) camera_pan(&a->camera, dx, dy, height);
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    App *a = glfwGetWindowUserPointer(w);
    if (a->ui_attached && ui_wants_mouse()) return;
    camera_zoom(&a->camera, (float)dy);
}

/* ---- the loop ---- */

/* The ladder's rung running now: the tree, or the direct kernel. */
static int app_rung(const App *a)
{
    return sim_force(a->sim) == SIM_FORCE_TREE ? UI_RUNG_TREE : (int)sim_kernel(a->sim);
}

/* The rate of the rung that ran, for its bar; the tree's with the interactions a body it took. */
static void app_note_rung_rate(App *a)
{
    const SimStats st = sim_stats(a->sim);
    const int r = app_rung(a);
    a->ui.ladder_rate[r] = st.kernel_interactions_per_s;
    if (r == UI_RUNG_TREE) a->ui.ladder_tree_per_body = st.interactions_per_body;
}

static void app_update_rates(App *a, double t, int steps)
{
    a->rate_frames++;
    a->rate_steps += steps;
    double span = t - a->rate_since;
    if (span >= 0.5) {
        a->ui.fps = a->rate_frames / span;
        a->ui.steps_per_s = a->rate_steps / span;
        a->ui.interactions_per_s = a->ui.steps_per_s * (double)sim_count(a->sim) * sim_count(a->sim);
        a->ui.gflops = a->ui.interactions_per_s * 20e-9;
        /* The ladder shows what each rung computes, not what vsync lets the frame rate show. */
        if (a->ui.cuda && steps > 0) app_note_rung_rate(a);
        a->rate_since = t;
        a->rate_frames = 0;
        a->rate_steps = 0;
    }
}

static int app_capture(App *a, const char *path)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (w <= 0 || h <= 0) return 0;
    char err[512];
    if (capture_png(path, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return -1;
    }
    return 0;
}

/* The longest advance the ladder's tour may ask of a rung: the window stays responsive. */
#define LADDER_TOUR_MAX_S 1.0

/* Runs rung r next, as the ladder asks (the user, or its tour): the tree, or direct kernel r at
 * its default shape on a tour, at the panel's shape otherwise. False, with a notice unless on a
 * tour, when the backend refuses. */
static bool app_run_rung(App *a, int r)
{
    char err[256] = "";
    bool ok = true;
    if (r == UI_RUNG_TREE) {
        ok = sim_force(a->sim) == SIM_FORCE_TREE || sim_set_force(a->sim, SIM_FORCE_TREE, err, sizeof err) == 0;
    } else {
        if (sim_force(a->sim) == SIM_FORCE_TREE) ok = sim_set_force(a->sim, SIM_FORCE_DIRECT, err, sizeof err) == 0;
        if (ok && r != (int)sim_kernel(a->sim)) {
            int q = a->tour.active ? 0 : a->ui.threads_per_body, block = a->tour.active ? 0 : a->ui.block_size;
            ok = sim_set_kernel(a->sim, (SimKernel)r, q, block, err, sizeof err) == 0;
        }
    }
    if (!ok && !a->tour.active) notify(a, "%s", err);
    a->ui.kernel = (int)sim_kernel(a->sim);
    a->ui.tree = sim_force(a->sim) == SIM_FORCE_TREE;
    return ok;
}

static void app_apply_controls(App *a)
{
    /* The ladder's pick of the tree, or of a direct kernel while the tree runs: kept for resets. */
    const int force = a->ui.ladder_force;
    a->ui.ladder_force = 0;
    if (a->ui.cuda && force == SIM_FORCE_TREE && app_run_rung(a, UI_RUNG_TREE)) a->opt.force = SIM_FORCE_TREE;
    if (a->ui.cuda && force == SIM_FORCE_DIRECT && app_run_rung(a, a->ui.kernel)) {
        a->opt.force = SIM_FORCE_DIRECT;
        a->kernel_picked = true;
    }
    a->ui.tree = sim_force(a->sim) == SIM_FORCE_TREE;
    if ((a->ui.kernel != (int)sim_kernel(a->sim) || a->ui.apply_shape) && a->ui.cuda) {
        char err[256];
        if (a->ui.kernel != (int)sim_kernel(a->sim)) a->kernel_picked = true;
        if (sim_set_kernel(a->sim, (SimKernel)a->ui.kernel, a->ui.threads_per_body, a->ui.block_size, err,
                           sizeof err) != 0) {
            notify(a, "%s", err);
            a->ui.kernel = (int)sim_kernel(a->sim);
        }
    }
    a->ui.apply_shape = false;
    sim_launch_shape(a->sim, &a->ui.shape_q, &a->ui.shape_block);
    a->ui.kernel_name = sim_kernel_name(sim_kernel(a->sim));
    a->ui.force = (int)a->opt.force;
    /* The HUD's interactions/s count N^2 a step, as the direct sum does; the tree says what it
     * really evaluates. */
    a->ui.method = NULL;
    if (sim_force(a->sim) == SIM_FORCE_TREE) {
        char name[64];
        app_method_name(a, name, sizeof name);
        const int len = snprintf(a->method, sizeof a->method, "%s: %.0f interactions a body (of %d)", name,
                                 sim_stats(a->sim).interactions_per_body, sim_count(a->sim));
        /* The live force error, where it was measured on this method. */
        if (a->ui.live_error_valid && strcmp(a->live_what, name) == 0 && len > 0 && len < (int)sizeof a->method)
            snprintf(a->method + len, sizeof a->method - (size_t)len, "; force error p99 %.1e", a->live_error.p99);
        a->ui.method = a->method;
    }
    a->camera.auto_rotate = a->ui.auto_rotate ? 0.1f : 0.0f;
    if (a->ui.reset_camera) {
        camera_reset(&a->camera);
        a->ui.reset_camera = false;
    }
    if (a->ui.lecture != a->lecture_shown) app_set_lecture(a, a->ui.lecture);
}

static void app_draw(App *a)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (w <= 0 || h <= 0) return; /* minimised */
    RenderView v = {
        .n = sim_count(a->sim),
        .width = w,
        .height = h,
        .framebuffer = render_context_framebuffer(a->ctx),
        .point_size = a->ui.point_size,
        .exposure = a->ui.exposure,
        .color_mode = (ColorMode)a->ui.color_mode,
        .speed_scale = a->speed_scale,
        .show_halo = a->ui.show_halo,
        .show_boxes = a->ui.show_tree,
    };
    v.focus_distance = a->camera.distance;
    camera_matrices(&a->camera, (float)w / (float)h, v.view, v.proj);
    renderer_draw(a->renderer, &v);
}

static void app_draw_ui(App *a)
{
    a->ui.diagnostics_open = false; /* raised again below while the section is drawn open */
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (!a->ui_attached || w <= 0 || h <= 0) return;
    const double age = clock_seconds() - a->notice_at;
    a->ui.notice = a->notice[0] ? a->notice : NULL;
    a->ui.notice_alpha = age < NOTICE_SECONDS ? 1.0f : (float)fmax(0.0, 1.0 - (age - NOTICE_SECONDS));
    a->ui.alarm = a->alarm[0] ? a->alarm : NULL;
    a->ui.undo_depth = a->undo.count;
    ui_frame(&a->ui);
}

static void app_init_ui_model(App *a)
{
    const AppOptions *o = &a->opt;
    UiModel *u = &a->ui;
    u->scene = o->scene.kind < SCENE_TIPSY ? (int)o->scene.kind : (int)SCENE_COLLISION;
    u->n = o->scene.n;
    u->seed = (int)(o->scene.seed ? o->scene.seed : 1);
    u->kernel = (int)o->kernel;
    u->measure_ladder = o->measure_ladder;
    u->ladder_touring = SIM_KERNEL_DEFAULT;
    a->kernel_picked = o->kernel != SIM_KERNEL_DEFAULT;
    u->point_size = o->point_size > 0 ? o->point_size : 1.0f;
    u->exposure = o->exposure > 0 ? o->exposure : 1.0f;
    u->color_mode = (int)o->color_mode;
    u->auto_rotate = o->auto_rotate;
    u->show_halo = o->show_halo;
    u->force = (int)o->force;
    u->theta = o->theta > 0 ? o->theta : SIM_THETA_DEFAULT;
    u->tree_levels = 4;
    u->lecture = o->lecture;
    a->lecture_shown = o->lecture; /* --lecture opens full screen already */
    u->threads_per_body = o->threads_per_body;
    u->block_size = o->block_size;
    u->visible = !o->no_ui;
    u->preset = -1;
    u->cycle_seconds = o->cycle_seconds > 0 ? o->cycle_seconds : 30;
    u->cycling = o->cycle_seconds > 0;
    ui_names_fill(u);
}

static void app_destroy(App *a)
{
    if (a->recorder) app_stop_recording(a);
    presets_free(&a->presets);
    free(a->preset_names);
    bodies_free(&a->state);
    bodies_free(&a->initial);
    free(a->tree_cells);
    free(a->tree_boxes);
    undo_clear(&a->undo);
    force_watch_destroy(a->watch);
    sim_destroy(a->sim);
    if (a->ui_attached) ui_destroy();
    renderer_destroy(a->renderer);
    render_context_destroy(a->ctx);
}

/* ---- one frame ---- */

/* R or the Reset button: the scene again, keeping the parameters the user set. */
static void app_handle_reset(App *a)
{
    char err[512];
    const SimParams kept = ui_params(a);
    const int scene = a->last_scene, n = a->last_n;
    if (app_reset(a, err, sizeof err) != 0) {
        notify(a, "Reset failed: %s", err);
        fprintf(stderr, "starburst: %s\n", a->notice);
        return;
    }
    camera_init(&a->camera, a->info.extent);
    char text[160];
    if (a->last_scene != scene || a->last_n != n) {
        const SimParams p = ui_params(a);
        describe_params(a, &p, text, sizeof text);
        notify(a, "Reset: %s, %d bodies on the %s, with its own %s", scene_name((SceneKind)a->last_scene),
               sim_count(a->sim), a->ui.backend, text);
    } else {
        describe_params(a, &kept, text, sizeof text);
        notify(a, "Reset: %d bodies on the %s; kept %s (Backspace: the scene's defaults)", sim_count(a->sim),
               a->ui.backend, text);
    }
}

/* Lowers a one-frame request flag; true when it was raised. */
static bool take(bool *flag)
{
    const bool raised = *flag;
    *flag = false;
    return raised;
}

/* The requests of the UI and the keys, each handled here, once, before the frame advances. */
static void app_handle_requests(App *a, double t)
{
    UiModel *u = &a->ui;
    char err[512];
    if (take(&u->reset)) {
        app_handle_reset(a);
        if (!a->sim) return;
    }
    if (u->apply_preset || (u->cycling && t >= a->cycle_next && a->presets.count > 0)) {
        if (!take(&u->apply_preset)) app_step_preset(a, +1);
        else if (app_apply_preset(a, u->preset, 1.5f, err, sizeof err) != 0)
            notify(a, "%s", err);
        a->cycle_next = t + u->cycle_seconds;
        if (!a->sim) return;
    }
    if (take(&u->apply_force)) app_set_force(a, (SimForce)u->force_wanted);
    if (take(&u->edit_began))
        app_remember(a, &(SimParams){.dt = u->before.dt, .softening = u->before.softening,
                                     .damping = u->before.damping, .theta = u->before.theta});
    if (take(&u->defaults)) app_restore_defaults(a);
    if (take(&u->undo)) app_undo(a);
    if (take(&a->record_toggle)) {
        if (a->recorder) app_stop_recording(a);
        else app_start_recording(a, NULL);
    }
    if (take(&a->save_requested)) app_save_run(a, a->opt.save_path);
    if (take(&u->check_forces)) app_check_forces(a);
    if (take(&u->save_preset)) app_save_preset(a);
    if (take(&u->measure_ladder)) {
        if (!u->cuda)
            notify(a, "The kernel ladder is the CUDA backend's; this run is on the %s.", u->backend);
        else if (!a->tour.active)
            app_run_rung(a, ladder_tour_start(&a->tour, app_rung(a)));
    }
    app_apply_controls(a);
}

/* Runs this frame's steps; a CUDA failure hands over to the CPU. False when nothing can run. */
static bool app_advance(App *a, int *steps_run)
{
    UiModel *u = &a->ui;
    int steps = 0;
    if (!u->paused) steps = u->steps_per_frame;
    else if (u->step_once) steps = 1;
    u->step_once = false;
    a->params = ui_params(a);
    sim_advance(a->sim, &a->params, steps);
    *steps_run = steps;
    if (sim_error(a->sim) && app_fall_back_to_cpu(a) != 0) return false;
    if (steps > 0 && sim_diverged(a->sim) && !u->paused) {
        u->paused = true;
        a->diverged_pause = true;
        snprintf(a->alarm, sizeof a->alarm,
                 "The simulation diverged (NaN or Inf) at t = %.4g: paused. ctrl+Z undoes the last change, R resets; "
                 "or raise the softening, lower dt.",
                 run_time(a));
        say(a, "starburst: %s\n", a->alarm);
    }
    if (a->tour.active && steps > 0 && !sim_error(a->sim)) {
        double n = sim_count(a->sim);
        const int ran = app_rung(a);
        if (ran == UI_RUNG_TREE) u->ladder_tree_per_body = sim_stats(a->sim).interactions_per_body;
        app_run_rung(a, ladder_tour_after_advance(&a->tour, ran, n * n * steps,
                                                  sim_stats(a->sim).kernel_interactions_per_s, u->ladder_rate,
                                                  LADDER_TOUR_MAX_S));
    }
    u->ladder_touring = a->tour.active ? (int)a->tour.rung : SIM_KERNEL_DEFAULT;
    u->sim_time = run_time(a);
    return true;
}

/* After the advance: energy and the flags it raises, and the checkpoint of the CUDA backend. */
static void app_observe(App *a, double t)
{
    if (!a->opt.headless || a->opt.frames == 0) {
        app_measure_energy(a, t);
        app_watch_forces(a, t);
    }
    if (sim_backend(a->sim) == SIM_BACKEND_CUDA && t - a->state_read_at >= CHECKPOINT_SECONDS) app_read_state(a);
}

/* The recording's frame and, on the last frame, the screenshot. False on a failure that ends
 * the run. */
static bool app_capture_frame(App *a, bool last_frame)
{
    char err[512];
    if (take(&a->screenshot_requested)) app_screenshot(a);
    if (a->recorder) {
        int w, h;
        render_context_size(a->ctx, &w, &h);
        if (recorder_capture(a->recorder, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
            if (a->opt.record_dir) {
                fprintf(stderr, "starburst: %s\n", err);
                return false;
            }
            app_stop_recording(a);
        }
    }
    return !(a->opt.screenshot && last_frame && app_capture(a, a->opt.screenshot) != 0);
}

static void app_write_readout(App *a)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    ReadoutState r = {
        .frame = a->frame,
        .time = run_time(a),
        .step = run_step(a),
        .params = a->params,
        .bodies = sim_count(a->sim),
        .backend = a->ui.backend,
        .width = w,
        .height = h,
        .fullscreen = render_context_fullscreen(a->ctx),
        .follow = a->follow,
        .recording = a->recorder != NULL,
        .camera_distance = a->camera.distance,
        .camera_yaw = a->camera.yaw,
        .alarm = a->alarm,
        .notice = a->notice,
        .force = sim_force(a->sim),
        .tree_boxes = a->ui.show_tree ? a->tree_drawn : 0,
        .tree_capped = a->ui.show_tree && a->tree_capped,
        .screenshot = a->screenshot[0] ? a->screenshot : NULL,
        .ui = &a->ui,
    };
    char err[256];
    if (readout_write(a->readout, &r, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        a->readout = NULL;
    }
}

/* One frame; false when the loop ends (a->status says how). */
static bool app_frame(App *a)
{
    const AppOptions *opt = &a->opt;
    render_context_poll(a->ctx);
    /* A closing window still draws this frame, so a screenshot asked for has something. */
    const bool closing = render_context_should_close(a->ctx);
    const double t = clock_seconds();
    const float seconds = (float)(t - a->last);
    a->last = t;

    app_handle_requests(a, t);
    if (!a->sim) {
        a->status = 1;
        return false;
    }
    int steps = 0;
    if (!app_advance(a, &steps)) {
        a->status = 1;
        return false;
    }
    app_observe(a, t);
    app_tree_overlay(a, t);

    camera_update(&a->camera, seconds);
    app_follow(a, t, seconds);
    app_draw(a);
    app_update_rates(a, t, steps);
    /* Screenshots and recordings show the scene; the panel is drawn after them unless asked. */
    if (opt->capture_ui) app_draw_ui(a);
    const bool last_frame = closing || (a->frames > 0 && a->frame + 1 == a->frames);
    if (!app_capture_frame(a, last_frame)) {
        a->status = 1;
        return false;
    }
    if (opt->monitor > 0 && (a->frame + 1) % opt->monitor == 0) app_monitor(a, a->frame + 1);
    if (closing) return false;
    if (!opt->capture_ui) app_draw_ui(a);
    if (a->readout) app_write_readout(a);
    render_context_swap(a->ctx);
    if (a->frames > 0 && t - a->last_progress >= 1.0) {
        a->last_progress = t;
        say(a, "starburst: frame %d/%d, %.0f fps, %.0f %s\r", a->frame + 1, a->frames, a->ui.fps, a->ui.steps_per_s,
            plural(lround(a->ui.steps_per_s), "step/s", "steps/s"));
    }
    a->frame++;
    return a->frames == 0 || a->frame < a->frames;
}

/* ---- start and end ---- */

/* The device holds the run and its kernel can launch as asked, checked before anything opens:
 * one line naming the problem, exit status 2. The options themselves were checked with the
 * command line. */
static int app_check_device(const App *a, char *err, size_t errlen)
{
    const AppOptions *o = &a->opt;
    if (o->scene.kind >= SCENE_TIPSY || o->load_path) return 0; /* N is known once the file is read */
    SimDesc d = {.backend = SIM_BACKEND_CUDA,
                 .kernel = o->kernel,
                 .precision = o->precision,
                 .threads_per_body = o->threads_per_body,
                 .block_size = o->block_size,
                 .force = o->force,
                 .position_vbo = 1}; /* sized as the app runs: positions in the GL buffer */
    return sim_check(&d, a->ui.n, err, errlen);
}

/* Everything before the first frame; 0, or the exit status. */
static int app_start(App *a)
{
    const AppOptions *opt = &a->opt;
    char err[512] = "";
    a->backend_wanted = opt->backend;
    a->force_cli = opt->force;
    a->presets_cuda = -1;
    app_init_ui_model(a);

    /* Presets are checked before anything opens, so a bad name or file ends with one line. */
    int preset = -1;
    if (app_load_presets(a, err, sizeof err) != 0 && (opt->preset || opt->presets_path || opt->cycle_seconds > 0)) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    if (opt->preset && !presets_find(&a->presets, opt->preset)) {
        fprintf(stderr, "starburst: --preset: no preset named '%s' in %s\n", opt->preset, a->presets_path);
        return 2;
    }

    /* The backend: CUDA where a device is usable, else the CPU with fewer bodies unless asked. */
    char why[256] = "";
    bool cuda = opt->backend != SIM_BACKEND_CPU && sim_cuda_available(why, sizeof why);
    if (opt->backend == SIM_BACKEND_CUDA && !cuda) {
        fprintf(stderr, "starburst: --backend cuda: %s\n", why);
        return 1;
    }
    /* The presets this backend can take, before anything opens. */
    if (app_offer_presets_for(a, cuda, why, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    if (a->ui.n == 0 && opt->scene.kind < SCENE_TIPSY) a->ui.n = cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES;
    if (cuda && app_check_device(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }

    a->ctx = render_context_create(&(RenderContextDesc){.width = opt->width,
                                                         .height = opt->height,
                                                         .headless = opt->headless,
                                                         .fullscreen = opt->fullscreen,
                                                         .vsync = opt->vsync,
                                                         .title = "Starburst"},
                                   err, sizeof err);
    if (!a->ctx) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    say(a, "starburst: OpenGL on %s (%s)%s\n", render_context_renderer(a->ctx), render_context_vendor(a->ctx),
        opt->headless ? ", headless" : "");
    /* CUDA updates the vertex buffer in place only where the GL context runs on its device. */
    if (cuda && !sim_cuda_gl_usable(why, sizeof why)) {
        if (opt->backend == SIM_BACKEND_CUDA) {
            fprintf(stderr, "starburst: --backend cuda: %s\n", why);
            return 1;
        }
        cuda = false;
        if (opt->scene.n == 0 && opt->scene.kind < SCENE_TIPSY) a->ui.n = CPU_DEFAULT_BODIES;
        if (app_offer_presets_for(a, false, why, err, sizeof err) != 0) {
            fprintf(stderr, "starburst: %s\n", err);
            return 2;
        }
    }
    if (opt->preset) preset = (int)(presets_find(&a->presets, opt->preset) - a->presets.items);
    if (!cuda) a->backend_wanted = SIM_BACKEND_CPU;
    /* A built-in scene on the CPU gets fewer bodies; a file brings its own. */
    const bool scene_n = !opt->load_path && opt->scene.kind < SCENE_TIPSY;
    char bodies[64] = "";
    if (scene_n) snprintf(bodies, sizeof bodies, ", %d bodies%s", a->ui.n, opt->scene.n ? "" : " (-n for more)");
    if (!cuda && opt->backend == SIM_BACKEND_AUTO)
        snprintf(a->backend_note, sizeof a->backend_note, "CUDA unavailable (%.200s): CPU backend%s.", why, bodies);
    else if (!cuda && scene_n && opt->scene.n == 0)
        snprintf(a->backend_note, sizeof a->backend_note, "CPU backend%s.", bodies);
    if (a->backend_note[0]) {
        notify(a, "%s", a->backend_note);
        say(a, "starburst: %s\n", a->notice);
    }
    if (opt->record_dir) {
        app_start_recording(a, opt->record_dir);
        if (!a->recorder) return 2;
    }

    if (app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    a->watch = force_watch_create(err, sizeof err);
    if (!a->watch) say(a, "starburst: no live force error: %s\n", err);
    a->ui.damping = opt->damping > 0 ? opt->damping : (a->have_loaded ? scene_defaults(a).damping : 1.0f);
    a->ui.theta = opt->theta > 0 ? opt->theta : scene_defaults(a).theta;
    a->ui.steps_per_frame = opt->steps_per_frame > 0                         ? opt->steps_per_frame
                            : a->have_loaded && a->loaded.steps_per_frame > 0 ? a->loaded.steps_per_frame
                            : a->ui.cuda                                      ? 4
                                                                              : 1;
    camera_init(&a->camera, a->info.extent);
    if (preset >= 0 && app_apply_preset(a, preset, 0, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    a->cycle_next = clock_seconds() + a->ui.cycle_seconds;
    /* The CPU backend has one kernel (OpenMP, all pairs): the ladder's names are the GPU's. A
     * tree run names the tree. */
    char kernel[48] = "";
    if (sim_force(a->sim) == SIM_FORCE_TREE)
        snprintf(kernel, sizeof kernel, ", tree, theta %.2f", a->ui.theta);
    else if (a->ui.cuda)
        snprintf(kernel, sizeof kernel, ", kernel %s", sim_kernel_name(sim_kernel(a->sim)));
    say(a, "starburst: %d bodies on %s (%s)%s, dt %g, softening %g, %d %s a frame\n", a->ui.bodies, a->ui.backend,
        a->device, kernel, a->ui.dt, a->ui.softening, a->ui.steps_per_frame,
        plural(a->ui.steps_per_frame, "step", "steps"));

    GLFWwindow *win = render_context_window(a->ctx);
    if (win) {
        /* Ours first: ImGui's GLFW backend chains to the callbacks installed before it. */
        glfwSetWindowUserPointer(win, a);
        glfwSetKeyCallback(win, on_key);
        glfwSetMouseButtonCallback(win, on_mouse_button);
        glfwSetCursorPosCallback(win, on_cursor);
        glfwSetScrollCallback(win, on_scroll);
        float sx = 1, sy = 1;
        glfwGetWindowContentScale(win, &sx, &sy);
        a->ui_attached = ui_create(win, sx);
    } else if (opt->capture_ui) {
        /* Headless, the panel and HUD are drawn only to appear in screenshots and recordings. */
        a->ui_attached = ui_create(NULL, 1);
    }

    a->frames = opt->frames;
    if (opt->headless && a->frames == 0) {
        a->frames = 300;
        say(a, "starburst: headless without --frames: rendering %d frames\n", a->frames);
    }
    const char *readout = getenv("STARBURST_READOUT");
    a->readout = readout && *readout ? readout : NULL;
    a->start = a->last = a->last_progress = a->rate_since = clock_seconds();
    return 0;
}

/* After the last frame: the recording finalised, the run saved where asked. */
static int app_finish(App *a, int status)
{
    if (a->frames > 0) say(a, "\n");
    if (a->recorder && app_stop_recording(a) != 0) status = 1;
    if (a->opt.save_path && a->sim && app_save_run(a, a->opt.save_path) != 0) status = 1;
    const double elapsed = clock_seconds() - a->start;
    if (a->sim) {
        const long long steps = sim_stats(a->sim).total_steps;
        say(a, "starburst: %lld %s in %.2f s (%.0f %s)\n", steps, plural(steps, "step", "steps"), elapsed,
            elapsed > 0 ? steps / elapsed : 0, plural(elapsed > 0 ? llround(steps / elapsed) : 0, "step/s", "steps/s"));
    }
    return status;
}

int app_run(const AppOptions *opt)
{
    App app = {.opt = *opt, .opt_n = opt->scene.n, .follow = opt->follow};
    App *a = &app;
    int status = app_start(a);
    if (status == 0) {
        while (app_frame(a)) {
        }
        status = app_finish(a, a->status);
    }
    app_destroy(a);
    return status;
}
