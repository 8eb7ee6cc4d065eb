/* What the keys and the panel do to the run (src/run/run.h), and what the viewer says of it: the
 * run made from the options and reset (the panel then shows what it built), the hand-over to the
 * CPU when a backend stops, the force method and the ladder's rung chosen at run time, the live
 * parameters' defaults and undo, the run saved and exported. The options stay as the user gave
 * them; what runs now is the run's. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <GLFW/glfw3.h>

#include "app/viewer.h"
#include "app/view.h"
#include "render/context.h"
#include "util/clock.h"
#include "util/params.h"

static RunSettings app_run_settings(const App *a);
static void app_run_back(App *a, const RunSettings *s);

/* "dt 0.0100, softening 0.0500, damping 1 (off)", and the opening test while a tree runs. */
void app_describe_params(const App *a, const SimParams *p, char *buf, size_t len)
{
    char damping[32], theta[40] = "";
    if (p->damping >= 1.0f) snprintf(damping, sizeof damping, "1 (off)");
    else snprintf(damping, sizeof damping, "%.6g", p->damping);
    const SimForce f = sim_force(run_sim(a->run));
    if (f == SIM_FORCE_TREE || f == SIM_FORCE_FMM) {
        char opening[32];
        app_describe_opening(f, p, opening, sizeof opening);
        snprintf(theta, sizeof theta, ", %s", opening);
    }
    char both[96];
    snprintf(buf, len, "%s, damping %s%s", app_dt_softening(a, p->dt, p->softening, both, sizeof both), damping,
             theta);
}

/* The opening angle and test of the command line, else the defaults. */
static float app_theta_default(const App *a) { return params_theta(a->set.theta); }
static float app_alpha_default(const App *a) { return params_alpha(a->set.alpha); }

/* The parameters the scene starts with: its own, or a loaded run's; theta and alpha from the
 * command line where the run has none (run_start_params). */
SimParams app_scene_defaults(const App *a) { return run_start_params(a->run, app_theta_default(a), app_alpha_default(a)); }

/* Where nothing names them, the view and run settings the run starts with: the command line's,
 * else the scene's (a loaded run's damping, theta and steps a frame), else the table's. The start
 * and every preset take them, so that a preset looks the same whatever was shown before it. The
 * halo is shown where the bodies are all dark matter: there is nothing else to see. */
void app_default_settings(App *a)
{
    const AppSettings *o = &a->set;
    const SimParams scene = app_scene_defaults(a);
    UiModel *u = &a->ui;
    u->controls.damping = o->damping > 0 ? o->damping : scene.damping;
    u->controls.theta = o->theta > 0 ? o->theta : scene.theta;
    app_set_alpha(a, o->alpha >= 0 ? o->alpha : scene.alpha);
    if (o->steps_per_frame > 0) u->controls.steps_per_frame = o->steps_per_frame;
    else if (run_info(a->run)->loaded && run_info(a->run)->saved.steps_per_frame > 0) u->controls.steps_per_frame = run_info(a->run)->saved.steps_per_frame;
    else if (a->ui.readout.cuda) u->controls.steps_per_frame = (int)params_get(PARAM_STEPS_PER_FRAME)->fallback;
    else u->controls.steps_per_frame = 1; /* a CPU step takes many times longer */
    u->controls.point_size = o->point_size;
    u->controls.exposure = o->exposure;
    u->controls.color_mode = o->color_mode;
    u->controls.auto_rotate = o->auto_rotate;
    u->controls.show_halo = o->show_halo || run_info(a->run)->dark_only;
}

/* --kernel, --precision double and the launch shapes, asked for on --backend auto where the CPU
 * runs: said once at the start (the CPU has one kernel, in float). Refusing them would stop a
 * saved command line on a machine without a GPU. */
void app_say_gpu_only_options(const App *a, const AppOptions *o)
{
    if (o->backend != SIM_BACKEND_AUTO || sim_backend(run_sim(a->run)) != SIM_BACKEND_CPU) return;
    char given[5][48];
    int count = 0;
    if (o->gpus == APP_GPUS_ALL) snprintf(given[count++], sizeof given[0], "--gpus all");
    else if (o->gpus > 1) snprintf(given[count++], sizeof given[0], "--gpus %d", o->gpus);
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

/* A built-in scene of n bodies on the CPU whose step is estimated at a second or more
 * (SIM_CPU_SLOW_STEP_S): one line says about how long a step takes, before the bodies are built
 * (16,777,216 of them take minutes to build, then about 90 s a step on 2 threads); the run starts
 * all the same. */
void app_say_cpu_step(const App *a, const AppOptions *o, int n)
{
    int threads;
    SimForce force;
    const double s = sim_cpu_step_estimate(o->force, n, 0, &threads, &force);
    if (s < SIM_CPU_SLOW_STEP_S) return;
    char when[32];
    if (s < 10) snprintf(when, sizeof when, "%.1f s", s);
    else if (s < 120) snprintf(when, sizeof when, "%.0f s", s);
    else if (s < 2 * 3600) snprintf(when, sizeof when, "%.0f min", s / 60);
    else snprintf(when, sizeof when, "%.0f h", s / 3600);
    app_say(a, "starburst: %d bodies on the CPU will be slow: about %s a step by the %s (steps timed on 2 threads, "
               "scaled as %s and to the %d %s here); a CUDA GPU, or fewer bodies (-n), run faster\n",
            n, when, force == SIM_FORCE_DIRECT ? "direct sum" : sim_force_name(force), force == SIM_FORCE_DIRECT ? "N^2" : "N log N", threads,
            threads == 1 ? "thread" : "threads");
}

/* The options' defaults resolved once: what the viewer reads of them after the start. */
void app_resolve_settings(const AppOptions *o, AppSettings *s)
{
    *s = (AppSettings){
        .headless = o->headless,
        .quiet = o->quiet,
        .capture_ui = o->capture_ui,
        .frames = o->frames,
        .monitor = o->monitor,
        .save_path = o->save_path,
        .screenshot = o->screenshot,
        .record_dir = o->record_dir,
        .shader_dir = o->shader_dir,
        .preset = o->preset,
        .presets_path = o->presets_path,
        .open_rate = o->open_rate > 0 ? o->open_rate : 1,
        .scene_n = o->scene.n,
        .force = o->force,
        .kernel = o->kernel,
        .precision = o->precision,
        .dt = o->dt,
        .softening = o->softening,
        .damping = o->damping,
        .theta = o->theta,
        .alpha = params_alpha_given(o->alpha, o->theta),
        .steps_per_frame = o->steps_per_frame,
        .point_size = o->point_size > 0 ? o->point_size : (float)params_get(PARAM_POINT_SIZE)->fallback,
        .exposure = o->exposure > 0 ? o->exposure : (float)params_get(PARAM_EXPOSURE)->fallback,
        .color_mode = (int)o->color_mode,
        .draw = o->draw,
        .auto_rotate = o->auto_rotate,
        .show_halo = o->show_halo,
    };
}

/* The run's lines: a notice on screen, a line on the console unless --quiet, or stderr. */
void app_run_said(void *user, int where, const char *line)
{
    App *a = user;
    if (where & RUN_SAY_SCREEN) app_notify(a, "%s", line);
    if (where & RUN_SAY_ERROR) fprintf(stderr, "starburst: %s\n", line);
    else if (where & RUN_SAY_CONSOLE) app_say(a, "starburst: %s\n", line);
}

/* The renderer sized for first's bodies (made again where it holds fewer), its tags uploaded:
 * the vertex buffers the run writes into. */
static int app_buffers(void *user, const Bodies *first, unsigned *position_vbo, unsigned *speed_vbo, char *err,
                       size_t errlen)
{
    App *a = user;
    if (first->n > a->renderer_capacity) {
        renderer_destroy(a->renderer);
        a->renderer = renderer_create(&(RendererDesc){.max_bodies = first->n, .shader_dir = a->set.shader_dir}, err, errlen);
        if (!a->renderer) {
            a->renderer_capacity = 0;
            return -1;
        }
        a->renderer_capacity = first->n;
    }
    renderer_upload(a->renderer, first->pos, first->tag, first->n);
    *position_vbo = renderer_position_vbo(a->renderer);
    *speed_vbo = renderer_speed_vbo(a->renderer);
    return 0;
}

/* The run as the options ask (a scene, --load or --open's series), on the backend found. */
int app_make_run(App *a, AppOptions *o, bool cuda, char *err, size_t errlen)
{
    RunDesc d = {
        .source = {.scene = o->scene, .force = o->force},
        .open_path = o->open_path,
        .series = o->series, /* opened once, by app_parse_args: the run takes it */
        .open_units = {0, 0, 0, 0}, /* a TIPSY file without its .ini: model units, as cli.c reads it */
        .backend = cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU,
        .kernel = o->kernel,
        .precision = o->precision,
        .threads_per_body = o->threads_per_body,
        .block_size = o->block_size,
        .gpus = o->gpus == APP_GPUS_ALL ? -1 : o->gpus,
        .timeline_bytes = o->timeline_mb < 0 ? -1.0 : o->timeline_mb * 1e6,
        .buffers = app_buffers,
        .log = app_run_said,
        .user = a,
    };
    if (o->load_path) {
        d.source.from_save = true;
        snprintf(d.source.file, sizeof d.source.file, "%s", o->load_path);
    }
    o->series = NULL;
    run_desc_defaults(&d);
    if (d.timeline_note[0]) app_say(a, "starburst: %s\n", d.timeline_note);
    a->run = run_make(&d, err, errlen);
    return a->run ? 0 : -1;
}

/* After a reset: the panel shows what the run built; a new scene or N takes its own dt and
 * softening (the command line's at the first). Bodies that are all dark matter would leave the
 * screen black: a new scene of them shows the halo and says so. */
/* The force method the panel shows: the one asked for, or the tree where the fmm was asked of the
 * GPU, which runs the tree there (faster at every accuracy measured: docs/FMM.md). */
int app_force_shown(const App *a)
{
    const SimForce asked = run_source(a->run)->force;
    return asked == SIM_FORCE_FMM && sim_force(run_sim(a->run)) != SIM_FORCE_FMM ? SIM_FORCE_TREE : (int)asked;
}

/* Says so where the fmm was asked of the GPU and the tree runs; false where it was not. */
static bool say_fmm_runs_as_tree(App *a)
{
    if (run_source(a->run)->force != SIM_FORCE_FMM || sim_force(run_sim(a->run)) == SIM_FORCE_FMM) return false;
    app_notify(a, "The fast multipole method is the CPU backend's (--backend cpu): on the GPU the tree runs, "
                  "faster there");
    app_say(a, "starburst: %s\n", a->msg.notice);
    return true;
}

void app_run_built(App *a)
{
    const RunInfo *info = run_info(a->run);
    Sim *sim = run_sim(a->run);
    const bool first = a->ui.readout.bodies == 0;
    a->ui.readout.field_halos = sim_halos(sim)->count;
    a->ui.readout.bodies = info->n - a->ui.readout.field_halos; /* stars, with field halos */
    float rings[RENDER_RINGS_MAX];
    const int fields = sim_halos(sim)->count < RENDER_RINGS_MAX ? sim_halos(sim)->count : RENDER_RINGS_MAX;
    for (int h = 0; h < fields; h++) rings[h] = (float)sim_halo_half_mass_radius(&sim_halos(sim)->halo[h]);
    renderer_set_rings(a->renderer, rings, fields);
    a->ui.controls.kernel = (int)sim_kernel(sim);
    a->ui.controls.force = app_force_shown(a);
    say_fmm_runs_as_tree(a);
    a->ui.readout.tree = sim_force(sim) == SIM_FORCE_TREE || sim_force(sim) == SIM_FORCE_FMM;
    a->ui.readout.fmm = sim_force(sim) == SIM_FORCE_FMM;
    a->ui.readout.cuda = sim_backend(sim) == SIM_BACKEND_CUDA;
    a->ui.readout.backend = sim_backend_name(sim_backend(sim));
    a->ui.readout.device = info->device;
    if (info->fresh) {
        a->ui.controls.dt = a->set.dt > 0 && first ? a->set.dt : info->scene.dt;
        a->ui.controls.softening = a->set.softening >= 0 && first ? a->set.softening : info->scene.softening;
        memset(a->ui.readout.ladder_rate, 0, sizeof a->ui.readout.ladder_rate);
        if (info->dark_only) {
            a->ui.controls.show_halo = true;
            app_notify(a, "All bodies are dark matter: shown; D hides them");
            app_say(a, "starburst: %s\n", a->msg.notice);
        }
    }
    app_show_encounter(a); /* what was built, a preset's included */
    app_observe_restart(a);
    if (a->live.diverged_pause) a->ui.controls.paused = a->live.diverged_pause = false;
}

/* The panel's encounter handed to the next reset, where it builds two galaxies (the collision, or
 * two copies of a TIPSY galaxy): checked first as the scene checks it, so that a pair the scene
 * refuses ("the separation lies beyond the apocentre") leaves the source as it was. 0, or -1 with
 * err. */
static int app_choose_encounter(App *a, char *err, size_t errlen)
{
    const RunSource *src = run_source(a->run);
    const UiControls *c = &a->ui.controls;
    const SceneKind kind = src->scene.kind >= SCENE_TIPSY ? src->scene.kind : (SceneKind)c->scene;
    if (src->from_save || src->from_series || (kind != SCENE_COLLISION && kind != SCENE_TIPSY_COLLIDE)) return 0;
    const UiEncounter *u = &c->encounter;
    const SceneEncounter e = {.mass_ratio = u->mass_ratio, .pericentre = u->pericentre, .eccentricity = u->eccentricity,
                              .inclination_a = u->inclination_a, .inclination_b = u->inclination_b};
    SceneDesc d = src->scene;
    d.kind = kind;
    scene_set_encounter(&d, &e);
    if (scene_check(&d, err, errlen) != 0) return -1;
    run_choose_encounter(a->run, &e);
    return 0;
}

/* A scene of this many bodies takes seconds to build (1M about 3 s and 2M about 6 s on this
 * project's 2-core machine; a 16M start took about a minute before its first frame on the GPU
 * machines), and the window stands still meanwhile: the build is said first, on the console and
 * in the window's title, and its time after. */
#define BUILD_SAY_BODIES (1 << 20)

/* Builds the run's source in the panel's scene, N and seed, and (re)creates the simulation on it;
 * the timeline is left to the caller (app_reset starts it; the start does once its settings are
 * made). A reset ends a tour of the ladder. */
int app_build_run(App *a, char *err, size_t errlen)
{
    if (a->tour.active) {
        a->tour.active = false;
        if (a->tour.restore != UI_RUNG_TREE) a->ui.controls.kernel = a->tour.restore;
    }
    const SimKernel kernel = a->live.kernel_picked ? (SimKernel)a->ui.controls.kernel : SIM_KERNEL_DEFAULT;
    const int n = a->ui.controls.n;
    const bool say = n >= BUILD_SAY_BODIES && a->ui.controls.scene < SCENE_TIPSY;
    GLFWwindow *win = a->ctx ? render_context_window(a->ctx) : NULL;
    const double t0 = clock_seconds();
    if (say) {
        app_say(a, "starburst: building %d bodies...\n", n);
        if (win) {
            char title[80];
            snprintf(title, sizeof title, "Starburst: building %d bodies...", n);
            glfwSetWindowTitle(win, title);
        }
    }
    run_choose_halo(a->run, a->ui.controls.live_halo ? SCENE_HALO_LIVE : SCENE_HALO_FIELD);
    const int rc = app_choose_encounter(a, err, errlen) != 0 ? -1 : run_reset(a->run, (SceneKind)a->ui.controls.scene, n, (uint64_t)a->ui.controls.seed, kernel, err,
                             errlen);
    if (say) {
        if (win) glfwSetWindowTitle(win, "Starburst");
        if (rc == 0) app_say(a, "starburst: %d bodies built in %.1f s\n", n, clock_seconds() - t0);
    }
    if (rc != 0) return -1;
    app_run_built(a);
    return 0;
}

/* The timeline started on the run's first state, keyframes a frame's steps apart. */
void app_start_timeline(App *a)
{
    run_start_timeline(a->run, a->ui.controls.steps_per_frame > 0 ? a->ui.controls.steps_per_frame : 1);
    if (run_shown(a->run) >= 0) a->ui.controls.paused = true; /* a series: on its first snapshot */
}

/* The run built again and its timeline started again on its first state. */
int app_reset(App *a, char *err, size_t errlen)
{
    if (app_build_run(a, err, errlen) != 0) return -1;
    app_start_timeline(a);
    return 0;
}

/* A backend that stopped on an error hands over to the CPU backend, from the last checkpoint
 * (at most CHECKPOINT_SECONDS old), or from the scene's start when there is none. */
int app_fall_back_to_cpu(App *a)
{
    char err[800];
    if (run_fall_back_to_cpu(a->run, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return -1;
    }
    a->ui.readout.cuda = false;
    a->ui.readout.backend = sim_backend_name(SIM_BACKEND_CPU);
    a->ui.readout.device = run_info(a->run)->device;
    snprintf(a->live.backend_note, sizeof a->live.backend_note, "%s", run_info(a->run)->backend_note);
    app_notify(a, "%s", a->live.backend_note);
    app_say(a, "starburst: %s\n", a->msg.notice);
    return 0;
}

/* "; ctrl+Z brings back the run you left" where a run was left since there were `before`. */
const char *app_left_note(const App *a, int before)
{
    return run_left_count(a->run) > before ? "; ctrl+Z brings back the run you left" : "";
}

/* A reset that failed after app_leave_run (with `before` runs left then): the run left back. */
void app_take_back(App *a, int before)
{
    if (run_left_count(a->run) <= before) return;
    RunSettings s;
    char err[512];
    if (run_take_back(a->run, &s, err, sizeof err) != 0) {
        app_say(a, "starburst: the run before the reset could not be brought back: %s\n", err);
        return;
    }
    app_run_back(a, &s);
}

/* After a reset that built another encounter than before: what it is, on the console and on
 * screen (in place of the reset's line: the encounter is what the student changed). */
static void app_say_encounter(App *a, const SceneEncounter *was, int left)
{
    const RunSource *src = run_source(a->run);
    const SceneEncounter now = scene_encounter(&src->scene);
    const SceneKind kind = run_info(a->run)->kind;
    if (src->from_save || src->from_series || (kind != SCENE_COLLISION && src->scene.kind != SCENE_TIPSY_COLLIDE) ||
        memcmp(&now, was, sizeof now) == 0)
        return;
    const Units u = app_encounter_units(a);
    char peri[48] = "";
    if (units_physical(&u)) {
        char kpc[32];
        snprintf(peri, sizeof peri, " (%s)", units_format_length(&u, now.pericentre, kpc, sizeof kpc));
    }
    char line[300];
    snprintf(line, sizeof line, "the encounter: mass ratio %.3g, pericentre %.3g%s, eccentricity %.3g, disks tilted "
             "%.0f and %.0f deg", (double)now.mass_ratio, (double)now.pericentre, peri, (double)now.eccentricity,
             (double)now.inclination_a, (double)now.inclination_b);
    app_notify(a, "Reset: %s%s", line, app_left_note(a, left));
    app_say(a, "starburst: %s\n", a->msg.notice);
}

/* R or the Reset button: the scene again, keeping the parameters the user set; the run it
 * replaces kept for ctrl+Z. */
void app_handle_reset(App *a)
{
    char err[512];
    const SimParams kept = app_ui_params(a);
    const int scene = (int)run_info(a->run)->kind, n = run_info(a->run)->n;
    const int left = run_left_count(a->run);
    const SceneEncounter was = scene_encounter(&run_source(a->run)->scene);
    const UiEncounter asked = a->ui.controls.encounter;
    app_leave_run(a);
    if (app_reset(a, err, sizeof err) != 0) {
        app_take_back(a, left);
        a->ui.controls.encounter = asked; /* to mend, not to type again */
        app_notify(a, "Reset failed: %s", err);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return;
    }
    app_camera_home(a, &a->camera);
    app_follow_pair_start(a);
    char text[160];
    if ((int)run_info(a->run)->kind != scene || run_info(a->run)->n != n) {
        const SimParams p = app_ui_params(a);
        app_describe_params(a, &p, text, sizeof text);
        app_notify(a, "Reset: %s, %d %s on the %s, with its own %s%s",
                   scene_name((SceneKind)(int)run_info(a->run)->kind), app_bodies_shown(a),
                   app_bodies_word(a, app_bodies_shown(a)), a->ui.readout.backend, text,
                   app_left_note(a, left));
    } else {
        app_describe_params(a, &kept, text, sizeof text);
        app_notify(a, "Reset: %d %s on the %s; kept %s (Backspace: the scene's defaults)%s", app_bodies_shown(a),
                   app_bodies_word(a, app_bodies_shown(a)), a->ui.readout.backend, text,
                   app_left_note(a, left));
    }
    app_say_encounter(a, &was, left);
}

/* The force combo: the method changes at once; a refusal (no room on the GPU for the tree) keeps
 * the one that runs and says why. */
void app_set_force(App *a, SimForce f)
{
    char err[256];
    if (run_set_force(a->run, f, err, sizeof err) != 0) {
        app_notify(a, "Force %s refused: %s", sim_force_name(f), err);
        app_say(a, "starburst: %s\n", a->msg.notice);
        return;
    }
    a->ui.controls.force = app_force_shown(a);
    a->ui.readout.tree = sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    a->ui.readout.fmm = sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    char method[64], opening[32];
    const SimParams now = app_ui_params(a);
    app_describe_opening(sim_force(run_sim(a->run)), &now, opening, sizeof opening);
    if (sim_force(run_sim(a->run)) == SIM_FORCE_TREE)
        snprintf(method, sizeof method, "the tree (Barnes-Hut, %s)", opening);
    else if (sim_force(run_sim(a->run)) == SIM_FORCE_FMM)
        snprintf(method, sizeof method, "the fast multipole method (%s)", opening);
    else
        snprintf(method, sizeof method, "the direct sum (all N^2 pairs)");
    if (say_fmm_runs_as_tree(a)) return;
    if (f == SIM_FORCE_AUTO)
        app_notify(a, "Force auto: %s for %d %s on the %s", method, app_bodies_shown(a),
                   app_bodies_word(a, app_bodies_shown(a)), a->ui.readout.backend);
    else
        app_notify(a, "Forces by %s", method);
}

/* The ladder's rung running now: the tree, or the direct kernel. */
int app_rung(const App *a)
{
    return sim_force(run_sim(a->run)) == SIM_FORCE_TREE ? UI_RUNG_TREE : (int)sim_kernel(run_sim(a->run));
}

/* Runs rung r next, as the ladder asks (the user, or its tour): the tree, or direct kernel r at
 * its default shape on a tour, at the panel's shape otherwise. False, with a notice unless on a
 * tour, when the backend refuses. */
bool app_run_rung(App *a, int r)
{
    char err[256] = "";
    bool ok = true;
    if (r == UI_RUNG_TREE) {
        ok = sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_set_force(run_sim(a->run), SIM_FORCE_TREE, err, sizeof err) == 0;
    } else {
        if (sim_force(run_sim(a->run)) == SIM_FORCE_TREE)
            ok = sim_set_force(run_sim(a->run), SIM_FORCE_DIRECT, err, sizeof err) == 0;
        if (ok && r != (int)sim_kernel(run_sim(a->run))) {
            int q = a->tour.active ? 0 : a->ui.controls.threads_per_body, block = a->tour.active ? 0 : a->ui.controls.block_size;
            ok = sim_set_kernel(run_sim(a->run), (SimKernel)r, q, block, err, sizeof err) == 0;
        }
    }
    if (!ok && !a->tour.active) app_notify(a, "%s", err);
    a->ui.controls.kernel = (int)sim_kernel(run_sim(a->run));
    a->ui.readout.tree = sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    a->ui.readout.fmm = sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    return ok;
}

/* Writes the run's present to path, or to opt.save_path, or to a new name with the date: the
 * newest state, whatever keyframe is shown, and one line saying which step that was. */
int app_save_run(App *a, const char *path)
{
    char name[256];
    if (!path) {
        /* A dated name, with a suffix where one is taken: two saves in a second are two files. */
        if (recorder_new_name(name, sizeof name, ".tipsy") != 0) {
            app_notify(a, "Not saved: no free dated name in this folder");
            fprintf(stderr, "starburst: %s\n", a->msg.notice);
            return -1;
        }
        path = name;
    }
    const RunSettings s = app_run_settings(a);
    long long step;
    bool other;
    char err[512];
    if (run_save(a->run, path, &s, &step, &other, err, sizeof err) != 0) {
        app_notify(a, "Not saved: %s", err);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return -1;
    }
    if (a->set.save_path && !strcmp(path, a->set.save_path)) a->live.save_holder = run_info(a->run)->id;
    if (other)
        app_notify(a, "Saved the run at step %lld (its newest state; not the keyframe shown, step %lld) to %s", step,
                   run_step(a->run), path);
    else
        app_notify(a, "Saved the run at step %lld to %s", step, path);
    app_say(a, "starburst: %s\n", a->msg.notice);
    return 0;
}

/* path with "-2" (or the first free number) before its extension: "keep.tipsy" -> "keep-2.tipsy".
 * 0, or -1 where none of 2 .. 999 is free. */
static int free_sibling(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    const int stem = dot && (!slash || dot > slash + 1) ? (int)(dot - path) : (int)strlen(path);
    for (int k = 2; k < 1000; k++) {
        const int n = snprintf(buf, len, "%.*s-%d%s", stem, path, k, path + stem);
        if (n < 0 || (size_t)n >= len) return -1;
        if (access(buf, F_OK) != 0) return 0;
    }
    return -1;
}

bool app_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int app_save_at_exit(App *a)
{
    const char *path = a->set.save_path;
    char beside[sizeof a->live.saved_at_exit];
    const int holder = a->live.save_holder;
    if (holder != 0 && holder != run_info(a->run)->id && access(path, F_OK) == 0) {
        if (free_sibling(path, beside, sizeof beside) != 0) {
            fprintf(stderr, "starburst: not saved: %s holds the run you left, and no free name beside it\n", path);
            return -1;
        }
        app_say(a, "starburst: %s holds the run this one replaced: kept; this run goes to %s\n", path, beside);
        path = beside;
    }
    snprintf(a->live.saved_at_exit, sizeof a->live.saved_at_exit, "%s", path);
    return app_save_run(a, path);
}

/* "Run at scale...": the run's present, handed to SWIFT (run/export.h) in a new folder named
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
    const SimParams p = app_ui_params(a);
    char msg[1200];
    if (run_export(a->run, dir, &p, msg, sizeof msg) != 0) {
        app_notify(a, "Not exported: %s", msg);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return -1;
    }
    app_notify(a, "For SWIFT: %s (its README.txt says how to run it)", dir);
    app_say(a, "starburst: exported for SWIFT: %s\n", msg);
    return 0;
}

/* Keeps the parameters before a change, and the bodies as they are, for ctrl+Z. */
void app_remember(App *a, const SimParams *before) { run_remember(a->run, before); }


/* Backspace or the Defaults button: the scene's dt, softening and damping, and theta. */
void app_restore_defaults(App *a)
{
    const SimParams now = app_ui_params(a), d = app_scene_defaults(a);
    char text[160];
    app_describe_params(a, &d, text, sizeof text);
    if (now.dt == d.dt && now.softening == d.softening && now.damping == d.damping && now.theta == d.theta &&
        now.alpha == d.alpha) {
        app_notify(a, "Already the defaults: %s", text);
        return;
    }
    app_remember(a, &now);
    app_set_params(a, &d);
    app_notify(a, "Defaults: %s (ctrl+Z undoes)", text);
}

/* The settings the run runs with now: what a run left keeps, and a save records. */
static RunSettings app_run_settings(const App *a)
{
    return (RunSettings){.params = app_ui_params(a), .steps_per_frame = a->ui.controls.steps_per_frame};
}

void app_leave_run(App *a)
{
    const RunSettings s = app_run_settings(a);
    run_leave(a->run, &s);
}

/* The run an undo or a redo brought back: its settings, the panel's scene and the view home. */
static void app_run_back(App *a, const RunSettings *s)
{
    const RunInfo *info = run_info(a->run);
    if (info->kind < SCENE_TIPSY) {
        a->ui.controls.scene = (int)info->kind;
        a->ui.controls.n = info->n - sim_halos(run_sim(a->run))->count;
        a->ui.controls.seed = (int)info->seed;
    }
    app_run_built(a);
    app_set_params(a, &s->params);
    if (s->steps_per_frame > 0) a->ui.controls.steps_per_frame = s->steps_per_frame;
    a->ui.readout.caption_title = a->ui.readout.caption = a->ui.readout.caption_source = NULL;
    app_camera_home(a, &a->camera);
    app_follow_pair_start(a);
    if (run_shown(a->run) >= 0) app_shown(a);
}

/* What an undo or a redo did, said; rc as run_undo's. */
static void app_undone(App *a, int rc, const RunSettings *s, double t, const char *err, bool redo)
{
    const char *what = redo ? "Redo" : "Undo";
    if (rc == RUN_UNDID_NOTHING) {
        app_notify(a, "Nothing to %s", redo ? "redo" : "undo");
        return;
    }
    if (rc < 0) {
        app_notify(a, "%s failed: %s", what, err);
        fprintf(stderr, "starburst: %s\n", a->msg.notice);
        return;
    }
    a->msg.alarm[0] = '\0';
    a->live.diverged_pause = false;
    if (rc == RUN_UNDID_FUTURE) {
        app_shown(a);
        return;
    }
    a->tl.playing_back = false;
    char when[64], text[160];
    if (rc == RUN_UNDID_RUN) {
        app_run_back(a, s);
        app_describe_params(a, &s->params, text, sizeof text);
        app_notify(a, "Back to the run you %s: %d %s at %s with %s (%s brings back the other)",
                   redo ? "undid" : "left", app_bodies_shown(a), app_bodies_word(a, app_bodies_shown(a)), app_when(a, t, when, sizeof when), text,
                   redo ? "ctrl+Z" : "ctrl+Y");
        app_say(a, "starburst: %s\n", a->msg.notice);
        return;
    }
    app_set_params(a, &s->params);
    /* A run paused because it diverged goes on from the state before the change. */
    if (a->live.diverged_pause) a->ui.controls.paused = a->live.diverged_pause = false;
    run_measure_soon(a->run);
    app_describe_params(a, &s->params, text, sizeof text);
    app_notify(a, "Undone: back to %s with %s", app_when(a, t, when, sizeof when), text);
}

/* ctrl+Z or the Undo button: the future a resume set aside, where it came last (the view on its
 * last keyframe, paused); else the parameters before the last change, and the run as it was; else
 * the run a reset or a preset replaced, whole. */
void app_undo(App *a)
{
    RunSettings s = app_run_settings(a);
    double t = 0;
    char err[512] = "";
    const int rc = run_undo(a->run, &s, &t, err, sizeof err);
    app_undone(a, rc, &s, t, err, false);
}

/* ctrl+Y, ctrl+shift+Z or the Redo button: the future or the run the last undos set aside. */
void app_redo(App *a)
{
    RunSettings s = app_run_settings(a);
    double t = 0;
    char err[512] = "";
    const int rc = run_redo(a->run, &s, &t, err, sizeof err);
    app_undone(a, rc, &s, t, err, true);
}

/* The device holds the run and its kernel can launch as asked, checked before anything opens:
 * one line naming the problem, exit status 2. The options themselves were checked with the
 * command line. */
int app_check_device(const AppOptions *o, int n, char *err, size_t errlen)
{
    if (o->scene.kind >= SCENE_TIPSY || o->load_path || o->open_path) return 0; /* N is known once the file is read */
    SimDesc d = {.backend = SIM_BACKEND_CUDA,
                 .kernel = o->kernel,
                 .precision = o->precision,
                 .threads_per_body = o->threads_per_body,
                 .block_size = o->block_size,
                 .force = o->force,
                 .position_vbo = 1}; /* sized as the app runs: positions in the GL buffer */
    return sim_check(&d, n, err, errlen);
}
