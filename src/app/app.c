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

#include "app/app.h"
#include "render/camera.h"
#include "render/capture.h"
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
    char device[160];
} App;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
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
    SceneDesc d = a->opt.scene;
    if (d.kind < SCENE_TIPSY) {
        d.kind = (SceneKind)a->ui.scene;
        d.n = a->ui.n;
    }
    d.seed = (uint64_t)a->ui.seed;
    Bodies b;
    SceneInfo info;
    if (scene_build(&d, &b, &info, err, errlen) != 0) return -1;
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
        .kernel = (SimKernel)a->ui.kernel,
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
    bodies_free(&b);

    a->e0_softening = -1; /* measured at the next frame */
    a->next_energy_at = 0;
    a->ui.energy_valid = false;
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
    case GLFW_KEY_M: a->ui.color_mode = (a->ui.color_mode + 1) % COLOR_MODE_COUNT; break;
    case GLFW_KEY_HOME: a->ui.reset_camera = true; break;
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

static int ensure_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    }
    return -1;
}

static void app_apply_controls(App *a)
{
    if (a->ui.kernel != (int)sim_kernel(a->sim) && a->ui.cuda) {
        char err[256];
        if (sim_set_kernel(a->sim, (SimKernel)a->ui.kernel, a->opt.threads_per_body, a->opt.block_size, err,
                           sizeof err) != 0) {
            snprintf(a->notice, sizeof a->notice, "%s", err);
            a->ui.kernel = (int)sim_kernel(a->sim);
        }
    }
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
    camera_matrices(&a->camera, (float)w / (float)h, v.view, v.proj);
    renderer_draw(a->renderer, &v);
    if (a->ui_attached) {
        glBindFramebuffer(GL_FRAMEBUFFER, render_context_framebuffer(a->ctx));
        glViewport(0, 0, w, h);
        a->ui.notice = a->notice[0] ? a->notice : NULL;
        ui_frame(&a->ui);
    }
}

static void app_init_ui_model(App *a)
{
    const AppOptions *o = &a->opt;
    UiModel *u = &a->ui;
    u->scene = o->scene.kind < SCENE_TIPSY ? (int)o->scene.kind : (int)SCENE_COLLISION;
    u->n = o->scene.n;
    u->seed = (int)(o->scene.seed ? o->scene.seed : 1);
    u->kernel = (int)o->kernel;
    u->point_size = o->point_size > 0 ? o->point_size : 1.0f;
    u->exposure = o->exposure > 0 ? o->exposure : 1.0f;
    u->color_mode = (int)o->color_mode;
    u->auto_rotate = o->auto_rotate;
    u->show_halo = true;
    u->visible = !o->no_ui;
}

static void app_destroy(App *a)
{
    sim_destroy(a->sim);
    if (a->ui_attached) ui_destroy();
    renderer_destroy(a->renderer);
    render_context_destroy(a->ctx);
}

int app_run(const AppOptions *opt)
{
    App app = {.opt = *opt};
    App *a = &app;
    char err[512] = "";
    a->backend_wanted = opt->backend;
    app_init_ui_model(a);

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
        snprintf(a->notice, sizeof a->notice, "No CUDA device (%s): CPU backend, %d bodies.", why, a->ui.n);
        say(a, "starburst: %s\n", a->notice);
    }

    if (app_reset(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        app_destroy(a);
        return 1;
    }
    if (opt->backend == SIM_BACKEND_AUTO && cuda && sim_backend(a->sim) == SIM_BACKEND_CPU) {
        snprintf(a->notice, sizeof a->notice, "CUDA-GL interop unavailable: CPU backend.");
        say(a, "starburst: %s\n", a->notice);
    }
    a->ui.dt = opt->dt > 0 ? opt->dt : a->info.dt;
    a->ui.softening = opt->softening >= 0 ? opt->softening : a->info.softening;
    a->ui.damping = opt->damping > 0 ? opt->damping : 1.0f;
    a->ui.steps_per_frame = opt->steps_per_frame > 0 ? opt->steps_per_frame : (a->ui.cuda ? 4 : 1);
    camera_init(&a->camera, a->info.extent);
    say(a, "starburst: %d bodies on %s (%s), kernel %s, dt %g, softening %g, %d steps a frame\n", a->ui.bodies,
        a->ui.backend, a->device, sim_kernel_name(sim_kernel(a->sim)), a->ui.dt, a->ui.softening,
        a->ui.steps_per_frame);

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
    }

    int frames = opt->frames;
    if (opt->headless && frames == 0) {
        frames = 300;
        say(a, "starburst: headless without --frames: rendering %d frames\n", frames);
    }
    if (opt->record_dir && ensure_dir(opt->record_dir) != 0) {
        fprintf(stderr, "starburst: --record: cannot create folder '%s'\n", opt->record_dir);
        app_destroy(a);
        return 1;
    }

    int status = 0;
    double start = now_s(), last = start, last_progress = start;
    a->rate_since = start;
    for (int frame = 0; frames == 0 || frame < frames; frame++) {
        if (render_context_should_close(a->ctx)) break;
        render_context_poll(a->ctx);
        double t = now_s();
        float seconds = (float)(t - last);
        last = t;

        if (a->ui.reset) {
            a->ui.reset = false;
            a->notice[0] = '\0';
            if (app_reset(a, err, sizeof err) != 0) {
                snprintf(a->notice, sizeof a->notice, "Reset failed: %s", err);
                fprintf(stderr, "starburst: %s\n", a->notice);
            } else {
                camera_init(&a->camera, a->info.extent);
            }
            if (!a->sim) {
                status = 1;
                break;
            }
        }
        app_apply_controls(a);

        int steps = 0;
        if (!a->ui.paused) steps = a->ui.steps_per_frame;
        else if (a->ui.step_once) steps = 1;
        a->ui.step_once = false;
        SimParams p = {.dt = a->ui.dt, .softening = a->ui.softening, .damping = a->ui.damping};
        sim_advance(a->sim, &p, steps);
        a->ui.sim_time = sim_stats(a->sim).time;
        if (!opt->headless || opt->frames == 0) app_measure_energy(a, t);

        camera_update(&a->camera, seconds);
        app_draw(a);
        app_update_rates(a, t, steps);

        if (opt->record_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/frame_%06d.png", opt->record_dir, frame + 1);
            if (app_capture(a, path) != 0) {
                status = 1;
                break;
            }
        }
        bool last_frame = frames > 0 && frame + 1 == frames;
        if (opt->screenshot && last_frame && app_capture(a, opt->screenshot) != 0) {
            status = 1;
            break;
        }
        render_context_swap(a->ctx);
        if (frames > 0 && t - last_progress >= 1.0) {
            last_progress = t;
            say(a, "starburst: frame %d/%d, %.0f fps, %.0f steps/s\r", frame + 1, frames, a->ui.fps, a->ui.steps_per_s);
        }
    }
    if (frames > 0) say(a, "\n");
    if (opt->screenshot && frames == 0 && status == 0) status = app_capture(a, opt->screenshot) != 0;
    double elapsed = now_s() - start;
    SimStats st = sim_stats(a->sim);
    say(a, "starburst: %lld steps in %.2f s (%.0f steps/s)\n", st.total_steps, elapsed,
        elapsed > 0 ? st.total_steps / elapsed : 0);
    app_destroy(a);
    return status;
}
