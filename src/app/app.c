/* The frame loop: input -> camera and controls -> sim_advance (k steps, positions end in the
 * vertex buffer) -> draw -> UI -> capture -> present. Everything the app owns is in App. */
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
#include "app/ladder_tour.h"
#include "app/presets.h"
#include "app/record.h"
#include "app/state.h"
#include "render/camera.h"
#include "render/capture.h"
#include "sim/diag.h"
#include "render/context.h"
#include "ui/ui.h"

#define CPU_DEFAULT_BODIES 4096
#define DEFAULT_BODIES 16384

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
    /* Energy bookkeeping: E0 at reset (or when softening changes), measured now and then. */
    double e0;
    float e0_softening;
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
    char backend_note[240]; /* why this backend runs, shown again after each reset */
    char device[160];
    /* Presets, and the scene of the last reset (a new scene takes its own dt and softening). */
    PresetList presets;
    const char **preset_names;
    char presets_path[4096];
    double cycle_next;
    int last_scene, last_n;
    int opt_n; /* -n from the command line, 0 = none */
    /* Where a loaded run stood when it was saved. */
    SavedRun loaded;
    bool have_loaded;
    bool save_requested;
    /* A recording in progress (--record, or V in a window). */
    Recorder *recorder;
    bool record_toggle;
    /* Diagnostics: a host copy of the state, read when measuring (never every frame). */
    Bodies state;
    Diagnostics diag;
    ForceCheck force_check;
    /* Camera follow: the centre of mass sampled a few times a second, approached smoothly. */
    int follow;
    float follow_target[3];
    bool follow_valid;
    double follow_next;
    float energy_history[240];
    int energy_history_count;
} App;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A line shown on screen until the next reset; longer ones are cut. */
static void notify(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notify(App *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->notice, sizeof a->notice, fmt, ap);
    va_end(ap);
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

/* Builds the scene in the UI model's settings and (re)creates the simulation on it. */
static int app_reset(App *a, char *err, size_t errlen)
{
    /* A reset ends a tour of the ladder: the new simulation runs the kernel the tour left. */
    if (a->tour.active) {
        a->tour.active = false;
        a->ui.kernel = (int)a->tour.restore;
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
        .position_vbo = renderer_position_vbo(a->renderer),
        .speed_vbo = renderer_speed_vbo(a->renderer),
    };
    a->sim = sim_create(&sd, &b, err, errlen);
    if (!a->sim) {
        bodies_free(&b);
        return -1;
    }
    a->ui.kernel = (int)sim_kernel(a->sim);
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
    bodies_free(&b);
    a->e0_softening = -1; /* measured at the next frame */
    a->next_energy_at = 0;
    a->ui.energy_valid = false;
    a->ui.diag = NULL;
    a->ui.force_check = NULL;
    a->energy_history_count = 0;
    a->ui.energy_history_count = 0;
    if (a->state.n != sim_count(a->sim)) {
        bodies_free(&a->state);
        if (bodies_alloc(&a->state, sim_count(a->sim)) != 0) {
            snprintf(err, errlen, "out of memory for diagnostics of %d bodies", sim_count(a->sim));
            return -1;
        }
    }
    return 0;
}

static void app_measure_energy(App *a, double t)
{
    /* O(N^2) in double: keep it to a few per cent of the time, and skip it for huge N. */
    if (t < a->next_energy_at || sim_count(a->sim) > 262144) return;
    double t0 = now_s();
    SimEnergy e = sim_energy(a->sim, a->ui.softening);
    double total = e.kinetic + e.potential;
    a->energy_cost = now_s() - t0;
    a->next_energy_at = now_s() + fmax(0.25, 20 * a->energy_cost);
    if (!isfinite(total)) {
        a->ui.paused = true;
        snprintf(a->notice, sizeof a->notice,
                 "The simulation diverged (energy is not finite): paused. Press R to reset, or raise "
                 "softening / lower dt.");
        a->ui.energy_valid = false;
        return;
    }
    if (a->e0_softening != a->ui.softening) {
        a->e0 = total;
        a->e0_softening = a->ui.softening;
    }
    a->ui.energy_error = a->e0 != 0 ? (total - a->e0) / fabs(a->e0) : 0;
    a->ui.energy_valid = true;
    sim_read(a->sim, &a->state);
    diag_measure(&a->state, e, &a->diag);
    a->ui.diag = &a->diag;
    const int cap = (int)(sizeof a->energy_history / sizeof a->energy_history[0]);
    if (a->energy_history_count == cap) {
        memmove(a->energy_history, a->energy_history + 1, (size_t)(cap - 1) * sizeof a->energy_history[0]);
        a->energy_history_count--;
    }
    a->energy_history[a->energy_history_count++] = (float)a->ui.energy_error;
    a->ui.energy_history = a->energy_history;
    a->ui.energy_history_count = a->energy_history_count;
}

static void app_check_forces(App *a)
{
    sim_read(a->sim, &a->state);
    if (diag_force_check(a->sim, &a->state, a->ui.softening, 2048, &a->force_check) != 0) {
        notify(a, "Force check: out of memory");
        return;
    }
    a->ui.force_check = &a->force_check;
    say(a, "starburst: force check of %s on %d bodies: rms %.3g, 99.9%% %.3g, worst %.3g\n",
        sim_kernel_name(sim_kernel(a->sim)), a->force_check.samples, a->force_check.rms, a->force_check.p999,
        a->force_check.worst);
}

/* A backend that stopped on an error hands over to the CPU backend, from the last state the
 * diagnostics read (or the scene's start when there is none yet). */
static int app_fall_back_to_cpu(App *a)
{
    char what[300], err[512];
    snprintf(what, sizeof what, "%s", sim_error(a->sim));
    bool have_state = a->ui.diag != NULL;
    sim_destroy(a->sim);
    a->sim = NULL;
    a->backend_wanted = SIM_BACKEND_CPU;
    if (have_state) {
        SimDesc sd = {.backend = SIM_BACKEND_CPU,
                      .position_vbo = renderer_position_vbo(a->renderer),
                      .speed_vbo = renderer_speed_vbo(a->renderer)};
        a->sim = sim_create(&sd, &a->state, err, sizeof err);
    }
    if (!a->sim && app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s; the CPU backend failed too: %s\n", what, err);
        return -1;
    }
    a->ui.cuda = false;
    a->ui.backend = sim_backend_name(SIM_BACKEND_CPU);
    snprintf(a->device, sizeof a->device, "%s", sim_device_name(a->sim));
    snprintf(a->backend_note, sizeof a->backend_note, "CUDA stopped (%.150s): CPU backend from here.", what);
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

static int app_load_presets(App *a, char *err, size_t errlen)
{
    presets_free(&a->presets);
    free(a->preset_names);
    bodies_free(&a->state);
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
    return 0;
}

/* Resets into preset i; the camera glides to the preset's view over `glide` seconds. */
static int app_apply_preset(App *a, int i, float glide, char *err, size_t errlen)
{
    const Preset *p = &a->presets.items[i];
    a->opt.scene = p->scene;
    a->ui.scene = (int)p->scene.kind;
    if (a->opt_n) a->ui.n = a->opt_n; /* -n on the command line wins */
    else a->ui.n = p->scene.n ? p->scene.n : (a->ui.cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES);
    a->ui.seed = (int)(p->scene.seed ? p->scene.seed : 1);
    a->last_n = -1; /* a preset starts from its scene's suggestions */
    if (app_reset(a, err, errlen) != 0) return -1;
    a->ui.preset = i;
    if (p->set & PRESET_DT) a->ui.dt = p->dt;
    if (p->set & PRESET_SOFTENING) a->ui.softening = p->softening;
    a->ui.damping = p->set & PRESET_DAMPING ? p->damping : 1.0f;
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
    notify(a, "Preset: %s", p->name);
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

/* The running state as a preset named in the UI, appended to the presets file. */
static void app_save_preset(App *a)
{
    Preset p = {.scene = a->opt.scene};
    snprintf(p.name, sizeof p.name, "%s", a->ui.preset_name);
    if (p.scene.kind >= SCENE_TIPSY) {
        notify(a, "A TIPSY scene cannot be a preset");
        return;
    }
    p.scene.kind = (SceneKind)a->ui.scene;
    p.scene.n = a->ui.n;
    p.scene.seed = (uint64_t)a->ui.seed;
    p.scene.tipsy_path = NULL;
    p.dt = a->ui.dt;
    p.softening = a->ui.softening;
    p.damping = a->ui.damping;
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
    p.set = PRESET_DT | PRESET_SOFTENING | PRESET_DAMPING | PRESET_STEPS | PRESET_EXPOSURE | PRESET_POINT_SIZE |
            PRESET_COLOR | PRESET_CAMERA | PRESET_AUTO_ROTATE;
    char err[512];
    if (presets_append(a->presets_path, &p, err, sizeof err) != 0) {
        notify(a, "Not saved: %s", err);
        return;
    }
    int keep = a->ui.preset;
    if (app_load_presets(a, err, sizeof err) != 0) notify(a, "%s", err);
    else notify(a, "Saved preset '%s' to %s", p.name, a->presets_path);
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
    SimStats st = sim_stats(a->sim);
    SavedRun r = {
        .params = {.dt = a->ui.dt, .softening = a->ui.softening, .damping = a->ui.damping},
        .steps_per_frame = a->ui.steps_per_frame,
        .step = st.total_steps + (a->have_loaded ? a->loaded.step : 0),
        .time = st.time + (a->have_loaded ? a->loaded.time : 0),
    };
    sim_read(a->sim, &a->state);
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

static const char *const follow_names[] = {"nothing", "galaxy A", "galaxy B", "the whole system"};

/* Samples the centre of mass being followed (a host copy of the bodies a few times a second,
 * never every frame) and moves the camera's target towards it. */
static void app_follow(App *a, double t, float seconds)
{
    if (a->follow == 0) return;
    if (t >= a->follow_next) {
        a->follow_next = t + 0.1;
        sim_read(a->sim, &a->state);
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

/* ---- input ---- */

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    App *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS || (a->ui_attached && ui_wants_keyboard())) return;
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_SPACE: a->ui.paused = !a->ui.paused; break;
    case GLFW_KEY_PERIOD: a->ui.step_once = true; break;
    case GLFW_KEY_R: a->ui.reset = true; break;
    case GLFW_KEY_H: a->ui.visible = !a->ui.visible; break;
    case GLFW_KEY_F: render_context_set_fullscreen(a->ctx, !render_context_fullscreen(a->ctx)); break;
    case GLFW_KEY_A: a->ui.auto_rotate = !a->ui.auto_rotate; break;
    case GLFW_KEY_G: app_cycle_follow(a); break;
    case GLFW_KEY_L: a->ui.lecture = !a->ui.lecture; break;
    case GLFW_KEY_D: a->ui.show_halo = !a->ui.show_halo; break;
    case GLFW_KEY_M: a->ui.color_mode = (a->ui.color_mode + 1) % COLOR_MODE_COUNT; break;
    case GLFW_KEY_K: a->ui.measure_ladder = true; break;
    case GLFW_KEY_HOME: a->ui.reset_camera = true; break;
    case GLFW_KEY_S: a->save_requested = true; break;
    case GLFW_KEY_V: a->record_toggle = true; break;
    case GLFW_KEY_LEFT_BRACKET: app_step_preset(a, -1); break;
    case GLFW_KEY_RIGHT_BRACKET: app_step_preset(a, +1); break;
    case GLFW_KEY_C:
        a->ui.cycling = !a->ui.cycling;
        a->cycle_next = now_s() + a->ui.cycle_seconds;
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
        /* The ladder shows what each kernel computes, not what vsync lets the frame rate show. */
        if (a->ui.cuda && steps > 0)
            a->ui.ladder_rate[sim_kernel(a->sim)] = sim_stats(a->sim).kernel_interactions_per_s;
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

/* Runs kernel k next, as the ladder's tour asks: its default shape on a rung, the panel's shape
 * on the kernel the tour returns to. */
static void app_tour_switch(App *a, SimKernel k)
{
    if (k != sim_kernel(a->sim)) {
        char err[256];
        int q = a->tour.active ? 0 : a->ui.threads_per_body, block = a->tour.active ? 0 : a->ui.block_size;
        if (sim_set_kernel(a->sim, k, q, block, err, sizeof err) != 0 && !a->tour.active)
            notify(a, "%s", err);
    }
    a->ui.kernel = (int)sim_kernel(a->sim);
}

static void app_apply_controls(App *a)
{
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
    a->camera.auto_rotate = a->ui.auto_rotate ? 0.1f : 0.0f;
    if (a->ui.reset_camera) {
        camera_reset(&a->camera);
        a->ui.reset_camera = false;
    }
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
    };
    v.focus_distance = a->camera.distance;
    camera_matrices(&a->camera, (float)w / (float)h, v.view, v.proj);
    renderer_draw(a->renderer, &v);
}

static void app_draw_ui(App *a)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (!a->ui_attached || w <= 0 || h <= 0) return;
    a->ui.notice = a->notice[0] ? a->notice : NULL;
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
    u->lecture = o->lecture;
    u->threads_per_body = o->threads_per_body;
    u->block_size = o->block_size;
    u->visible = !o->no_ui;
    u->preset = -1;
    u->cycle_seconds = o->cycle_seconds > 0 ? o->cycle_seconds : 30;
    u->cycling = o->cycle_seconds > 0;
}

static void app_destroy(App *a)
{
    if (a->recorder) app_stop_recording(a);
    presets_free(&a->presets);
    free(a->preset_names);
    bodies_free(&a->state);
    sim_destroy(a->sim);
    if (a->ui_attached) ui_destroy();
    renderer_destroy(a->renderer);
    render_context_destroy(a->ctx);
}

int app_run(const AppOptions *opt)
{
    App app = {.opt = *opt, .opt_n = opt->scene.n, .follow = opt->follow};
    App *a = &app;
    char err[512] = "";
    a->backend_wanted = opt->backend;
    app_init_ui_model(a);

    /* Presets are checked before anything opens, so a bad name or file ends with one line. */
    int preset = -1;
    if (app_load_presets(a, err, sizeof err) != 0 && (opt->preset || opt->presets_path || opt->cycle_seconds > 0)) {
        fprintf(stderr, "starburst: %s\n", err);
        app_destroy(a);
        return 2;
    }
    if (opt->preset) {
        const Preset *p = presets_find(&a->presets, opt->preset);
        if (!p) {
            fprintf(stderr, "starburst: --preset: no preset named '%s' in %s\n", opt->preset, a->presets_path);
            app_destroy(a);
            return 2;
        }
        preset = (int)(p - a->presets.items);
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
        app_destroy(a);
        return 1;
    }
    say(a, "starburst: OpenGL on %s (%s)%s\n", render_context_renderer(a->ctx), render_context_vendor(a->ctx),
        opt->headless ? ", headless" : "");
    if (opt->record_dir) {
        app_start_recording(a, opt->record_dir);
        if (!a->recorder) {
            app_destroy(a);
            return 2;
        }
    }

    /* Without a CUDA device the CPU backend runs, with fewer bodies unless asked. */
    char why[256] = "";
    bool cuda = opt->backend != SIM_BACKEND_CPU && sim_cuda_available(why, sizeof why);
    if (opt->backend == SIM_BACKEND_CUDA && !cuda) {
        fprintf(stderr, "starburst: --backend cuda: %s\n", why);
        app_destroy(a);
        return 1;
    }
    if (a->ui.n == 0 && opt->scene.kind < SCENE_TIPSY) a->ui.n = cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES;
    if (!cuda && opt->backend == SIM_BACKEND_AUTO) {
        snprintf(a->backend_note, sizeof a->backend_note, "CUDA unavailable (%.160s): CPU backend, %d bodies.", why,
                 a->ui.n);
    } else if (!cuda && opt->scene.n == 0) {
        snprintf(a->backend_note, sizeof a->backend_note, "CPU backend: %d bodies (-n for more).", a->ui.n);
    }
    if (a->backend_note[0]) {
        notify(a, "%s", a->backend_note);
        say(a, "starburst: %s\n", a->notice);
    }

    if (app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        app_destroy(a);
        return 1;
    }
    if (opt->backend == SIM_BACKEND_AUTO && cuda && sim_backend(a->sim) == SIM_BACKEND_CPU) {
        notify(a, "CUDA-GL interop unavailable: CPU backend.");
        say(a, "starburst: %s\n", a->notice);
    }
    a->ui.damping = opt->damping > 0 ? opt->damping : (a->have_loaded ? a->loaded.params.damping : 1.0f);
    a->ui.steps_per_frame = opt->steps_per_frame > 0                         ? opt->steps_per_frame
                            : a->have_loaded && a->loaded.steps_per_frame > 0 ? a->loaded.steps_per_frame
                            : a->ui.cuda                                      ? 4
                                                                              : 1;
    camera_init(&a->camera, a->info.extent);
    if (preset >= 0 && app_apply_preset(a, preset, 0, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        app_destroy(a);
        return 1;
    }
    a->cycle_next = now_s() + a->ui.cycle_seconds;
    /* The CPU backend has one kernel (OpenMP, all pairs): the ladder's names are the GPU's. */
    char kernel[48] = "";
    if (a->ui.cuda) snprintf(kernel, sizeof kernel, ", kernel %s", sim_kernel_name(sim_kernel(a->sim)));
    say(a, "starburst: %d bodies on %s (%s)%s, dt %g, softening %g, %d steps a frame\n", a->ui.bodies, a->ui.backend,
        a->device, kernel, a->ui.dt, a->ui.softening, a->ui.steps_per_frame);

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

    int frames = opt->frames;
    if (opt->headless && frames == 0) {
        frames = 300;
        say(a, "starburst: headless without --frames: rendering %d frames\n", frames);
    }

    int status = 0;
    double start = now_s(), last = start, last_progress = start;
    a->rate_since = start;
    for (int frame = 0; frames == 0 || frame < frames; frame++) {
        render_context_poll(a->ctx);
        /* A closing window still draws this frame, so a screenshot asked for has something. */
        bool closing = render_context_should_close(a->ctx);
        double t = now_s();
        float seconds = (float)(t - last);
        last = t;

        if (a->ui.reset) {
            a->ui.reset = false;
            notify(a, "%s", a->backend_note);
            if (app_reset(a, err, sizeof err) != 0) {
                notify(a, "Reset failed: %s", err);
                fprintf(stderr, "starburst: %s\n", a->notice);
            } else {
                camera_init(&a->camera, a->info.extent);
            }
            if (!a->sim) {
                status = 1;
                break;
            }
        }
        if (a->ui.apply_preset || (a->ui.cycling && t >= a->cycle_next && a->presets.count > 0)) {
            int next = a->ui.apply_preset ? a->ui.preset : -2;
            a->ui.apply_preset = false;
            if (next == -2) app_step_preset(a, +1);
            else if (app_apply_preset(a, next, 1.5f, err, sizeof err) != 0)
                notify(a, "%s", err);
            a->cycle_next = t + a->ui.cycle_seconds;
            if (!a->sim) {
                status = 1;
                break;
            }
        }
        if (a->record_toggle) {
            a->record_toggle = false;
            if (a->recorder) app_stop_recording(a);
            else app_start_recording(a, NULL);
        }
        if (a->save_requested) {
            a->save_requested = false;
            app_save_run(a, a->opt.save_path);
        }
        if (a->ui.check_forces) {
            a->ui.check_forces = false;
            app_check_forces(a);
        }
        if (a->ui.save_preset) {
            a->ui.save_preset = false;
            app_save_preset(a);
        }
        if (a->ui.measure_ladder) {
            a->ui.measure_ladder = false;
            if (!a->ui.cuda)
                notify(a, "The kernel ladder is the CUDA backend's; this run is on the %s.", a->ui.backend);
            else if (!a->tour.active)
                app_tour_switch(a, ladder_tour_start(&a->tour, sim_kernel(a->sim)));
        }
        app_apply_controls(a);

        int steps = 0;
        if (!a->ui.paused) steps = a->ui.steps_per_frame;
        else if (a->ui.step_once) steps = 1;
        a->ui.step_once = false;
        SimParams p = {.dt = a->ui.dt, .softening = a->ui.softening, .damping = a->ui.damping};
        sim_advance(a->sim, &p, steps);
        if (sim_error(a->sim) && app_fall_back_to_cpu(a) != 0) {
            status = 1;
            break;
        }
        if (steps > 0 && sim_diverged(a->sim) && !a->ui.paused) {
            a->ui.paused = true;
            notify(a, "The simulation diverged (NaN or Inf) at t = %.4g: paused. Press R to reset; raise the "
                      "softening or lower dt.",
                   sim_stats(a->sim).time);
            say(a, "starburst: %s\n", a->notice);
        }
        if (a->tour.active && steps > 0 && !sim_error(a->sim)) {
            double n = sim_count(a->sim);
            app_tour_switch(a, ladder_tour_after_advance(&a->tour, sim_kernel(a->sim), n * n * steps,
                                                         sim_stats(a->sim).kernel_interactions_per_s,
                                                         a->ui.ladder_rate, LADDER_TOUR_MAX_S));
        }
        a->ui.ladder_touring = a->tour.active ? (int)a->tour.rung : SIM_KERNEL_DEFAULT;
        a->ui.sim_time = sim_stats(a->sim).time + (a->have_loaded ? a->loaded.time : 0);
        if (!opt->headless || opt->frames == 0) app_measure_energy(a, t);

        camera_update(&a->camera, seconds);
        app_follow(a, t, seconds);
        app_draw(a);
        app_update_rates(a, t, steps);
        /* Screenshots and recordings show the scene; the panel is drawn after them unless asked. */
        if (opt->capture_ui) app_draw_ui(a);

        if (a->recorder) {
            int w, h;
            render_context_size(a->ctx, &w, &h);
            if (recorder_capture(a->recorder, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
                if (opt->record_dir) {
                    fprintf(stderr, "starburst: %s\n", err);
                    status = 1;
                    break;
                }
                app_stop_recording(a);
            }
        }
        if (opt->monitor > 0 && (frame + 1) % opt->monitor == 0) app_monitor(a, frame + 1);
        bool last_frame = closing || (frames > 0 && frame + 1 == frames);
        if (opt->screenshot && last_frame && app_capture(a, opt->screenshot) != 0) {
            status = 1;
            break;
        }
        if (closing) break;
        if (!opt->capture_ui) app_draw_ui(a);
        render_context_swap(a->ctx);
        if (frames > 0 && t - last_progress >= 1.0) {
            last_progress = t;
            say(a, "starburst: frame %d/%d, %.0f fps, %.0f steps/s\r", frame + 1, frames, a->ui.fps, a->ui.steps_per_s);
        }
    }
    if (frames > 0) say(a, "\n");
    if (a->recorder && app_stop_recording(a) != 0) status = 1;
    if (opt->save_path && a->sim && app_save_run(a, opt->save_path) != 0) status = 1;
    double elapsed = now_s() - start;
    SimStats st = sim_stats(a->sim);
    say(a, "starburst: %lld steps in %.2f s (%.0f steps/s)\n", st.total_steps, elapsed,
        elapsed > 0 ? st.total_steps / elapsed : 0);
    app_destroy(a);
    return status;
}
