/* The run's lifecycle: the scene built or the saved run loaded and the simulation created on it
 * (app_reset), the hand-over to the CPU when a backend stops (app_fall_back_to_cpu), the force
 * method and the ladder's rung chosen at run time, the live parameters' defaults and undo, and the
 * run saved. What runs now lives in App.run; the options stay as the user gave them. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app_internal.h"
#include "app/export.h"
#include "app/view.h"
#include "util/clock.h"
#include "util/params.h"

/* Snapshots from this many bodies say how their reading goes. */
#define SNAPSHOT_PROGRESS_BODIES (1 << 20)

/* "dt 0.0100, softening 0.0500, damping 1 (off)", and theta while the tree runs. */
void app_describe_params(const App *a, const SimParams *p, char *buf, size_t len)
{
    char damping[32], theta[32] = "";
    if (p->damping >= 1.0f) snprintf(damping, sizeof damping, "1 (off)");
    else snprintf(damping, sizeof damping, "%.6g", p->damping);
    if (sim_force(a->run.sim) == SIM_FORCE_TREE || sim_force(a->run.sim) == SIM_FORCE_FMM)
        snprintf(theta, sizeof theta, ", theta %.2f", p->theta);
    char both[96];
    snprintf(buf, len, "%s, damping %s%s", app_dt_softening(a, p->dt, p->softening, both, sizeof both), damping,
             theta);
}

SimParams app_ui_params(const App *a)
{
    return (SimParams){.dt = a->ui.dt, .softening = a->ui.softening, .damping = a->ui.damping, .theta = a->ui.theta};
}

/* The opening angle of the command line, else the default. */
float app_theta_default(const App *a) { return params_theta(a->opt.theta); }

/* The parameters the scene starts with: its own, or a loaded run's; theta from the command line
 * where the run has none. */
SimParams app_scene_defaults(const App *a)
{
    if (a->run.have_loaded && a->run.loaded.params.dt > 0) {
        SimParams p = a->run.loaded.params;
        if (!(p.damping > 0)) p.damping = 1;
        if (!(p.theta > 0)) p.theta = app_theta_default(a);
        return p;
    }
    return (SimParams){
        .dt = a->run.info.dt, .softening = a->run.info.softening, .damping = 1.0f, .theta = app_theta_default(a)};
}

/* Where nothing names them, the view and run settings the run starts with: the command line's,
 * else the scene's (a loaded run's damping, theta and steps a frame), else the table's. The start
 * and every preset take them, so that a preset looks the same whatever was shown before it. The
 * halo is shown where the bodies are all dark matter: there is nothing else to see. */
void app_default_settings(App *a)
{
    const AppOptions *o = &a->opt;
    const SimParams scene = app_scene_defaults(a);
    UiModel *u = &a->ui;
    u->damping = o->damping > 0 ? o->damping : scene.damping;
    u->theta = o->theta > 0 ? o->theta : scene.theta;
    if (o->steps_per_frame > 0) u->steps_per_frame = o->steps_per_frame;
    else if (a->run.have_loaded && a->run.loaded.steps_per_frame > 0) u->steps_per_frame = a->run.loaded.steps_per_frame;
    else if (a->ui.cuda) u->steps_per_frame = (int)params_get(PARAM_STEPS_PER_FRAME)->fallback;
    else u->steps_per_frame = 1; /* a CPU step takes many times longer */
    u->point_size = o->point_size > 0 ? o->point_size : (float)params_get(PARAM_POINT_SIZE)->fallback;
    u->exposure = o->exposure > 0 ? o->exposure : (float)params_get(PARAM_EXPOSURE)->fallback;
    u->color_mode = (int)o->color_mode;
    u->auto_rotate = o->auto_rotate;
    u->show_halo = o->show_halo || a->run.dark_only;
}

/* --kernel, --precision double and the launch shapes, asked for on --backend auto where the CPU
 * runs: said once at the start (the CPU has one kernel, in float). Refusing them would stop a
 * saved command line on a machine without a GPU. */
void app_say_gpu_only_options(const App *a)
{
    const AppOptions *o = &a->opt;
    if (o->backend != SIM_BACKEND_AUTO || a->run.backend != SIM_BACKEND_CPU) return;
    char given[4][48];
    int count = 0;
    if (o->kernel != SIM_KERNEL_DEFAULT)
        snprintf(given[count++], sizeof given[0], "--kernel %s", sim_kernel_name(o->kernel));
    if (o->precision == SIM_PRECISION_DOUBLE) snprintf(given[count++], sizeof given[0], "--precision double");
    if (o->threads_per_body > 0)
        snprintf(given[count++], sizeof given[0], "--threads-per-body %d", o->threads_per_body);
    if (o->block_size > 0) snprintf(given[count++], sizeof given[0], "--block-size %d", o->block_size);
    if (count == 0) return;
    char list[220] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof list; i++) {
        const char *sep = i == 0 ? "" : i == count - 1 ? " and " : ", ";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, given[i]);
    }
    app_say(a, "starburst: no CUDA device: running on the CPU; %s %s to the GPU only\n", list,
            count == 1 ? "applies" : "apply");
}

/* Reading a large snapshot: a line every few seconds, so a 10^7-body file is seen to go on. */
typedef struct ReadProgress {
    const App *a;
    const char *name;
    double started, said;
} ReadProgress;

static void say_read_progress(void *user, long long done, long long total)
{
    ReadProgress *p = user;
    double now = clock_seconds();
    if (total < SNAPSHOT_PROGRESS_BODIES || (now - p->said < 2.0 && done < total)) return;
    p->said = now;
    app_say(p->a, "starburst: reading %s: %lld of %lld bodies (%.0f%%, %.1f s)\n", p->name, done, total,
            100.0 * done / total, now - p->started);
}

/* --open's series of TIPSY files runs with the settings saved beside its first (snap.tipsy.ini,
 * as a save writes them): dt, softening and the physical scale, where it has them; without them
 * the defaults, said in one line. HDF5 snapshots carry their own (SWIFT's parameters). Once, at
 * the start. */
void app_series_settings(App *a)
{
    SnapshotSeries *s = a->run.series;
    const char *first = series_path(s, 0);
    if (snapshot_hdf5_is(first)) return;
    SavedRun saved;
    char err[512];
    const int rc = state_read_settings(first, &saved, err, sizeof err);
    if (rc == 0) {
        series_set_settings(s, saved.params.dt, saved.params.softening);
        if (units_physical(&saved.units)) series_set_units(s, &saved.units);
        app_say(a, "starburst: --open: dt %g and softening %g%s from %s.ini\n", saved.params.dt,
                saved.params.softening, units_physical(&saved.units) ? ", with the run's units," : "", first);
        return;
    }
    char why[600];
    if (rc == 1) snprintf(why, sizeof why, "%s has no settings beside it (no %s.ini)", first, first);
    else snprintf(why, sizeof why, "%s", err);
    app_say(a, "starburst: --open: %s: running at the default dt %g and softening %g\n", why,
            params_get(PARAM_DT)->fallback, params_get(PARAM_SOFTENING)->fallback);
}

/* The first snapshot of --open's series as the run's start, as a saved run is: its time, the
 * step and softening its files give (else the defaults), framed by 90 % of its mass. */
static int open_first_snapshot(App *a, Bodies *b, SceneInfo *info, char *err, size_t errlen)
{
    SnapshotSeries *s = a->run.series;
    ReadProgress p = {.a = a, .name = series_path(s, 0), .started = clock_seconds()};
    p.said = p.started;
    if (series_load(s, 0, b, NULL, say_read_progress, &p, err, errlen) != 0) return -1;
    a->run.series_reads++;
    float dt = (float)series_dt(s), eps = (float)series_softening(s);
    a->run.loaded = (SavedRun){.params = {.dt = dt > 0 ? dt : (float)params_get(PARAM_DT)->fallback,
                                          .softening = eps > 0 ? eps : (float)params_get(PARAM_SOFTENING)->fallback,
                                          .damping = 1.0f},
                               .time = series_time(s, 0),
                               .units = series_units(s)};
    a->run.have_loaded = true;
    *info = (SceneInfo){.dt = a->run.loaded.params.dt, .softening = a->run.loaded.params.softening,
                        .extent = (float)(1.2 * bodies_mass_radius(b, 0.9)), .units = a->run.loaded.units};
    return 0;
}

/* --open's series is the start until a preset names another scene. */
bool app_run_from_series(const App *a)
{
    return a->run.series && a->run.scene.kind == SCENE_TIPSY && !a->run.scene.tipsy_path && !a->run.load_path;
}

/* Builds the scene in the UI model's settings and (re)creates the simulation on it; the timeline
 * is left to the caller (app_reset restarts it; the start does once its settings are made). */
int app_build_run(App *a, char *err, size_t errlen)
{
    /* A reset ends a tour of the ladder: the new simulation runs the rung the tour left (the
     * force method it left is a->run.force's, which a tour does not change). */
    if (a->tour.active) {
        a->tour.active = false;
        if (a->tour.restore != UI_RUNG_TREE) a->ui.kernel = a->tour.restore;
    }
    SceneDesc d = a->run.scene;
    if (d.kind < SCENE_TIPSY) {
        d.kind = (SceneKind)a->ui.scene;
        d.n = a->ui.n;
    }
    if (d.kind != a->run.scene.kind) a->ui.caption = a->ui.caption_source = NULL; /* another scene */
    d.seed = (uint64_t)a->ui.seed;
    Bodies b;
    SceneInfo info;
    if (app_run_from_series(a)) {
        if (open_first_snapshot(a, &b, &info, err, errlen) != 0) return -1;
        d.kind = SCENE_TIPSY;
    } else if (a->run.load_path) {
        if (state_load(a->run.load_path, &b, &a->run.loaded, err, errlen) != 0) return -1;
        if (a->run.loaded.recovered[0]) {
            app_notify(a, "%s", a->run.loaded.recovered);
            fprintf(stderr, "starburst: %s\n", a->msg.notice);
        }
        a->run.have_loaded = true;
        /* Framed by the radius of 90 % of the mass; dt and softening as saved. */
        info = (SceneInfo){.dt = a->run.loaded.params.dt > 0 ? a->run.loaded.params.dt : 0.01f,
                           .softening = a->run.loaded.params.softening,
                           .extent = (float)(1.2 * bodies_mass_radius(&b, 0.9)),
                           .period = a->run.loaded.period,
                           .units = a->run.loaded.units};
        d.kind = SCENE_TIPSY;
    } else if (scene_build(&d, &b, &info, err, errlen) != 0) {
        return -1;
    }
    a->run.info = info;
    a->ui.bodies = b.n;
    /* A loaded run goes on with the method it ran, unless the command line names one. */
    if (a->run.have_loaded && a->run.last_n == 0 && a->opt.force == SIM_FORCE_AUTO &&
        a->run.loaded.force != SIM_FORCE_AUTO)
        a->run.force = a->run.loaded.force;

    sim_destroy(a->run.sim);
    a->run.sim = NULL;
    if (b.n > a->renderer_capacity) {
        renderer_destroy(a->renderer);
        a->renderer = renderer_create(&(RendererDesc){.max_bodies = b.n, .shader_dir = a->opt.shader_dir}, err, errlen);
        if (!a->renderer) {
            a->renderer_capacity = 0;
            bodies_free(&b);
            return -1;
        }
        a->renderer_capacity = b.n;
    }
    renderer_upload(a->renderer, b.pos, b.tag, b.n);

    SimDesc sd = {
        .backend = a->run.backend,
        .kernel = a->run.kernel_picked ? (SimKernel)a->ui.kernel : SIM_KERNEL_DEFAULT,
        .precision = a->opt.precision,
        .threads_per_body = a->opt.threads_per_body,
        .block_size = a->opt.block_size,
        .force = a->run.force,
        .position_vbo = renderer_position_vbo(a->renderer),
        .speed_vbo = renderer_speed_vbo(a->renderer),
    };
    a->run.sim = sim_create(&sd, &b, err, errlen);
    if (!a->run.sim) {
        bodies_free(&b);
        return -1;
    }
    a->ui.kernel = (int)sim_kernel(a->run.sim);
    a->ui.force = (int)a->run.force;
    a->ui.tree = sim_force(a->run.sim) == SIM_FORCE_TREE || sim_force(a->run.sim) == SIM_FORCE_FMM;
    a->ui.fmm = sim_force(a->run.sim) == SIM_FORCE_FMM;
    a->ui.cuda = sim_backend(a->run.sim) == SIM_BACKEND_CUDA;
    a->ui.backend = sim_backend_name(sim_backend(a->run.sim));
    snprintf(a->run.device, sizeof a->run.device, "%s", sim_device_name(a->run.sim));
    a->ui.device = a->run.device;

    /* Speeds map onto the colour ramp up to about twice the initial rms speed. */
    double v2 = 0;
    for (int i = 0; i < b.n; i++) {
        const float *v = b.vel + 4 * i;
        v2 += (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
    }
    a->run.speed_scale = (float)(2 * sqrt(v2 / b.n));
    if (!(a->run.speed_scale > 0)) a->run.speed_scale = 1;
    /* A new scene, or a new body count, starts from the scene's suggested dt and softening;
     * a plain reset keeps what the user set. */
    if (d.kind != (SceneKind)a->run.last_scene || b.n != a->run.last_n) {
        a->ui.dt = a->opt.dt > 0 && a->run.last_n == 0 ? a->opt.dt : info.dt;
        a->ui.softening = a->opt.softening >= 0 && a->run.last_n == 0 ? a->opt.softening : info.softening;
    }
    /* Bodies that are all dark matter (a halo-only file) would leave the screen black: a new
     * scene of them shows the halo and says so. */
    bool stars = !b.tag;
    for (int i = 0; i < b.n && !stars; i++) stars = BODY_TAG_COMPONENT(b.tag[i]) != BODY_HALO;
    a->run.dark_only = b.n > 0 && !stars;
    if (a->run.dark_only && (d.kind != (SceneKind)a->run.last_scene || b.n != a->run.last_n)) {
        a->ui.show_halo = true;
        app_notify(a, "All bodies are dark matter: shown; D hides them");
        app_say(a, "starburst: %s\n", a->msg.notice);
    }
    if (b.n != a->run.last_n) memset(a->ui.ladder_rate, 0, sizeof a->ui.ladder_rate);
    a->run.last_scene = (int)d.kind;
    a->run.last_n = b.n;
    a->run.seed = d.seed;
    a->run.time_base = a->run.have_loaded ? a->run.loaded.time : 0;
    a->run.step_base = a->run.have_loaded ? a->run.loaded.step : 0;
    app_observe_restart(a, &b);
    if (a->run.diverged_pause) a->ui.paused = a->run.diverged_pause = false;
    a->host.valid = false;
    undo_clear(&a->run.undo);
    if (a->host.bodies.n != sim_count(a->run.sim)) {
        bodies_free(&a->host.bodies);
        if (bodies_alloc(&a->host.bodies, sim_count(a->run.sim)) != 0) {
            snprintf(err, errlen, "out of memory for diagnostics of %d bodies", sim_count(a->run.sim));
            return -1;
        }
    }
    return 0;
}

/* The run built again and its timeline started again on its first state. */
int app_reset(App *a, char *err, size_t errlen)
{
    if (app_build_run(a, err, errlen) != 0) return -1;
    app_timeline_restart(a, &a->obs.initial);
    return 0;
}

/* A backend that stopped on an error hands over to the CPU backend, from the last state read
 * (at most CHECKPOINT_SECONDS old), or from the scene's start when there is none. The run's
 * step and time counters go on from that state's. */
int app_fall_back_to_cpu(App *a)
{
    char what[300], err[512];
    snprintf(what, sizeof what, "%s", sim_error(a->run.sim));
    sim_destroy(a->run.sim);
    a->run.sim = NULL;
    a->run.backend = SIM_BACKEND_CPU;
    if (a->host.valid) {
        SimDesc sd = {.backend = SIM_BACKEND_CPU,
                      .force = a->run.force,
                      .position_vbo = renderer_position_vbo(a->renderer),
                      .speed_vbo = renderer_speed_vbo(a->renderer)};
        a->run.sim = sim_create(&sd, &a->host.bodies, err, sizeof err);
        a->run.time_base = a->host.time;
        a->run.step_base = a->host.step;
    }
    if (!a->run.sim && app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s; the CPU backend failed too: %s\n", what, err);
        return -1;
    }
    a->ui.cuda = false;
    a->ui.backend = sim_backend_name(SIM_BACKEND_CPU);
    snprintf(a->run.device, sizeof a->run.device, "%s", sim_device_name(a->run.sim));
    char when[64];
    snprintf(a->run.backend_note, sizeof a->run.backend_note, "CUDA stopped (%.150s): CPU backend from %s.", what,
             app_when(a, a->run.time_base, when, sizeof when));
    app_notify(a, "%s", a->run.backend_note);
    app_say(a, "starburst: %s\n", a->msg.notice);
    return 0;
}

/* R or the Reset button: the scene again, keeping the parameters the user set. */
void app_handle_reset(App *a)
{
    char err[512];
    const SimParams kept = app_ui_params(a);
    const int scene = a->run.last_scene, n = a->run.last_n;
    if (app_reset(a, err, sizeof err) != 0) {
        app_notify(a, "Reset failed: %s", err);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return;
    }
    app_camera_home(a, &a->camera);
    char text[160];
    if (a->run.last_scene != scene || a->run.last_n != n) {
        const SimParams p = app_ui_params(a);
        app_describe_params(a, &p, text, sizeof text);
        app_notify(a, "Reset: %s, %d bodies on the %s, with its own %s", scene_name((SceneKind)a->run.last_scene),
                   sim_count(a->run.sim), a->ui.backend, text);
    } else {
        app_describe_params(a, &kept, text, sizeof text);
        app_notify(a, "Reset: %d bodies on the %s; kept %s (Backspace: the scene's defaults)", sim_count(a->run.sim),
                   a->ui.backend, text);
    }
}

/* The force combo: the method changes at once; a refusal (no room on the GPU for the tree) keeps
 * the one that runs and says why. */
void app_set_force(App *a, SimForce f)
{
    char err[256];
    if (sim_set_force(a->run.sim, f, err, sizeof err) != 0) {
        app_notify(a, "Force %s refused: %s", sim_force_name(f), err);
        app_say(a, "starburst: %s\n", a->msg.notice);
        return;
    }
    a->run.force = f; /* kept for resets, as the ladder's pick is */
    a->ui.force = (int)f;
    a->ui.tree = sim_force(a->run.sim) == SIM_FORCE_TREE || sim_force(a->run.sim) == SIM_FORCE_FMM;
    a->ui.fmm = sim_force(a->run.sim) == SIM_FORCE_FMM;
    char method[64];
    if (sim_force(a->run.sim) == SIM_FORCE_TREE)
        snprintf(method, sizeof method, "the tree (Barnes-Hut, theta %.2f)", a->ui.theta);
    else if (sim_force(a->run.sim) == SIM_FORCE_FMM)
        snprintf(method, sizeof method, "the fast multipole method (theta %.2f)", a->ui.theta);
    else
        snprintf(method, sizeof method, "the direct sum (all N^2 pairs)");
    if (f == SIM_FORCE_AUTO)
        app_notify(a, "Force auto: %s for %d bodies on the %s", method, sim_count(a->run.sim), a->ui.backend);
    else
        app_notify(a, "Forces by %s", method);
}

/* The ladder's rung running now: the tree, or the direct kernel. */
int app_rung(const App *a)
{
    return sim_force(a->run.sim) == SIM_FORCE_TREE ? UI_RUNG_TREE : (int)sim_kernel(a->run.sim);
}

/* Runs rung r next, as the ladder asks (the user, or its tour): the tree, or direct kernel r at
 * its default shape on a tour, at the panel's shape otherwise. False, with a notice unless on a
 * tour, when the backend refuses. */
bool app_run_rung(App *a, int r)
{
    char err[256] = "";
    bool ok = true;
    if (r == UI_RUNG_TREE) {
        ok = sim_force(a->run.sim) == SIM_FORCE_TREE || sim_set_force(a->run.sim, SIM_FORCE_TREE, err, sizeof err) == 0;
    } else {
        if (sim_force(a->run.sim) == SIM_FORCE_TREE)
            ok = sim_set_force(a->run.sim, SIM_FORCE_DIRECT, err, sizeof err) == 0;
        if (ok && r != (int)sim_kernel(a->run.sim)) {
            int q = a->tour.active ? 0 : a->ui.threads_per_body, block = a->tour.active ? 0 : a->ui.block_size;
            ok = sim_set_kernel(a->run.sim, (SimKernel)r, q, block, err, sizeof err) == 0;
        }
    }
    if (!ok && !a->tour.active) app_notify(a, "%s", err);
    a->ui.kernel = (int)sim_kernel(a->run.sim);
    a->ui.tree = sim_force(a->run.sim) == SIM_FORCE_TREE || sim_force(a->run.sim) == SIM_FORCE_FMM;
    a->ui.fmm = sim_force(a->run.sim) == SIM_FORCE_FMM;
    return ok;
}

/* Writes the run to path, or to opt.save_path, or to a new name with the date. */
int app_save_run(App *a, const char *path)
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
        .params = app_ui_params(a),
        .force = sim_force(a->run.sim),
        .steps_per_frame = a->ui.steps_per_frame,
        .step = app_run_step(a),
        .time = app_run_time(a),
        .units = a->run.info.units,
        .period = a->run.info.period,
    };
    app_read_state(a);
    char err[512];
    if (state_save(path, &a->host.bodies, &r, err, sizeof err) != 0) {
        app_notify(a, "Not saved: %s", err);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return -1;
    }
    app_notify(a, "Saved the run at step %lld to %s", r.step, path);
    app_say(a, "starburst: %s\n", a->msg.notice);
    return 0;
}

/* "Run at scale...": the run as it stands, handed to SWIFT (export.h) in a new folder named
 * with the date. */
int app_export_swift(App *a)
{
    char dir[96], stamp[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "starburst-swift-%Y%m%d-%H%M%S", &tm);
    snprintf(dir, sizeof dir, "%s", stamp);
    for (int k = 2; access(dir, F_OK) == 0 && k < 100; k++) snprintf(dir, sizeof dir, "%s-%d", stamp, k);
    app_read_state(a);
    const SimParams p = app_ui_params(a);
    char what[128], msg[1200];
    snprintf(what, sizeof what, "a Starburst run at step %lld", app_run_step(a));
    if (!a->host.valid ||
        export_state(dir, &a->host.bodies, &a->run.info, p.dt, p.softening, app_run_time(a), 0, 0, what, msg, sizeof msg) != 0) {
        app_notify(a, "Not exported: %s", a->host.valid ? msg : "the state could not be read");
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return -1;
    }
    app_notify(a, "For SWIFT: %s (its README.txt says how to run it)", dir);
    app_say(a, "starburst: exported for SWIFT: %s\n", msg);
    return 0;
}

/* Keeps the parameters before a change, and the bodies as they are, for ctrl+Z. */
void app_remember(App *a, const SimParams *before)
{
    if (sim_error(a->run.sim)) return;
    app_read_state(a);
    char err[256];
    if (undo_push(&a->run.undo, before, &a->host.bodies, a->host.time, a->host.step, err, sizeof err) != 0)
        app_notify(a, "Undo unavailable: %s", err);
}

static void app_set_params(App *a, const SimParams *p)
{
    a->ui.dt = p->dt;
    a->ui.softening = p->softening;
    a->ui.damping = p->damping;
    if (p->theta > 0) a->ui.theta = p->theta;
}

/* Backspace or the Defaults button: the scene's dt, softening and damping, and theta. */
void app_restore_defaults(App *a)
{
    const SimParams now = app_ui_params(a), d = app_scene_defaults(a);
    char text[160];
    app_describe_params(a, &d, text, sizeof text);
    if (now.dt == d.dt && now.softening == d.softening && now.damping == d.damping && now.theta == d.theta) {
        app_notify(a, "Already the defaults: %s", text);
        return;
    }
    app_remember(a, &now);
    app_set_params(a, &d);
    app_notify(a, "Defaults: %s (ctrl+Z undoes)", text);
}

/* ctrl+Z or the Undo button: the parameters before the last change, and the run as it was. */
void app_undo(App *a)
{
    UndoEntry e;
    if (app_timeline_undo(a)) return; /* the future a resume set aside, when it came last */
    if (!undo_pop(&a->run.undo, &e)) {
        app_notify(a, "Nothing to undo");
        return;
    }
    char err[256];
    if (sim_load(a->run.sim, &e.state, err, sizeof err) != 0) {
        app_notify(a, "Undo failed: %s", err);
        bodies_free(&e.state);
        return;
    }
    a->run.time_base = e.time;
    a->run.step_base = e.step;
    a->host.valid = false;
    app_timeline_went_back(a);
    app_set_params(a, &e.params);
    bodies_free(&e.state);
    a->msg.alarm[0] = '\0';
    /* A run paused because it diverged goes on from the state before the change. */
    if (a->run.diverged_pause) a->ui.paused = a->run.diverged_pause = false;
    a->obs.next_energy_at = 0;
    char text[160];
    app_describe_params(a, &e.params, text, sizeof text);
    char when[64];
    app_notify(a, "Undone: back to %s with %s", app_when(a, e.time, when, sizeof when), text);
}

/* The device holds the run and its kernel can launch as asked, checked before anything opens:
 * one line naming the problem, exit status 2. The options themselves were checked with the
 * command line. */
int app_check_device(const App *a, char *err, size_t errlen)
{
    const AppOptions *o = &a->opt;
    if (o->scene.kind >= SCENE_TIPSY || o->load_path || o->open_path) return 0; /* N is known once the file is read */
    SimDesc d = {.backend = SIM_BACKEND_CUDA,
                 .kernel = o->kernel,
                 .precision = o->precision,
                 .threads_per_body = o->threads_per_body,
                 .block_size = o->block_size,
                 .force = o->force,
                 .position_vbo = 1}; /* sized as the app runs: positions in the GL buffer */
    return sim_check(&d, a->ui.n, err, errlen);
}
