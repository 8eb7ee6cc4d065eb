/* libstarburst's pictures: the render room driven as the program's headless first frame. */
#include "lib/picture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/camera.h"
#include "render/capture.h"
#include "render/context.h"
#include "render/renderer.h"
#include "sim/bodies.h"
#include "sim/sim.h"
#include "util/params.h"

struct Picture {
    RenderContext *ctx;
    Renderer *renderer;
    int width, height, capacity;
    float *pos;   /* capacity float4s: the positions read back */
    uint8_t *tag; /* capacity tags */
    float *speed; /* capacity floats: |v| for the speed colours (3 each while read) */
};

void picture_destroy(Picture *p)
{
    if (!p) return;
    renderer_destroy(p->renderer);
    render_context_destroy(p->ctx);
    free(p->pos);
    free(p->tag);
    free(p->speed);
    free(p);
}

static const char *color_name(int v) { return renderer_color_mode_name((ColorMode)v); }

/* The view's values read as the command line reads them, so that a refusal is its line. */
static int view_values(const StarburstView *v, int *width, int *height, float *exposure, float *point_size,
                       ColorMode *color, char *err, size_t errlen)
{
    char text[64];
    OptionValue got;
    const OptionSpec size = {.kind = OPTION_SIZE, .max = RENDER_SIZE_MAX};
    snprintf(text, sizeof text, "%dx%d", v->width, v->height);
    if (option_read(&size, NULL, "--size", text, &got, err, errlen) != 0) return -1;
    *width = (int)got.number, *height = (int)got.height;
    const struct {
        ParamId id;
        float given, *out;
    } numbers[] = {{PARAM_EXPOSURE, v->exposure, exposure}, {PARAM_POINT_SIZE, v->point_size, point_size}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        const Param *p = params_get(numbers[i].id);
        double x = p->fallback;
        snprintf(text, sizeof text, "%.9g", (double)numbers[i].given);
        if (numbers[i].given != 0 && params_parse(numbers[i].id, p->option ? p->option : p->key, text, &x, err,
                                                  errlen) != 0)
            return -1;
        *numbers[i].out = (float)x;
    }
    const float *t = v->target;
    if (((v->camera & STARBURST_CAMERA_YAW) && !isfinite(v->yaw)) ||
        ((v->camera & STARBURST_CAMERA_PITCH) && !isfinite(v->pitch)) ||
        ((v->camera & STARBURST_CAMERA_TARGET) && !(isfinite(t[0]) && isfinite(t[1]) && isfinite(t[2])))) {
        snprintf(err, errlen, "camera: yaw, pitch and target are finite numbers");
        return -1;
    }
    if ((v->camera & STARBURST_CAMERA_DISTANCE) && !(v->distance > 0 && isfinite(v->distance))) {
        snprintf(err, errlen, "camera: distance = %g: expected more than 0 (model lengths)", (double)v->distance);
        return -1;
    }
    const OptionSpec colors = {.kind = OPTION_CHOICE, .name_of = color_name, .first = 0, .end = COLOR_MODE_COUNT,
                               .noun = "colour mode"};
    *color = COLOR_BY_COMPONENT;
    if (v->color) {
        if (option_read(&colors, NULL, "--color", v->color, &got, err, errlen) != 0) return -1;
        *color = (ColorMode)got.number;
    }
    return 0;
}

/* The context and renderer for width x height and n bodies, made where there are none or they do
 * not fit. */
static int picture_ready(Picture **pp, int width, int height, int n, char *err, size_t errlen)
{
    Picture *p = *pp;
    if (p && (p->width != width || p->height != height || p->capacity < n)) {
        picture_destroy(p);
        *pp = p = NULL;
    }
    if (p) return STARBURST_OK;
    if (!(p = calloc(1, sizeof *p)) || !(p->pos = malloc((size_t)n * 4 * sizeof *p->pos)) ||
        !(p->tag = malloc((size_t)n)) || !(p->speed = malloc((size_t)n * 3 * sizeof *p->speed))) {
        picture_destroy(p);
        snprintf(err, errlen, "out of memory");
        return STARBURST_ERR_MEMORY;
    }
    p->width = width, p->height = height, p->capacity = n;
    char why[512];
    if (!(p->ctx = render_context_create(&(RenderContextDesc){.width = width, .height = height, .headless = true},
                                         why, sizeof why)) ||
        renderer_size_check(width, height, why, sizeof why) != 0 ||
        !(p->renderer = renderer_create(&(RendererDesc){.max_bodies = n}, why, sizeof why))) {
        picture_destroy(p);
        snprintf(err, errlen, "%s", why);
        return STARBURST_ERR_RUN;
    }
    *pp = p;
    return STARBURST_OK;
}

static int state_unread(const Sim *sim, char *err, size_t errlen)
{
    snprintf(err, errlen, "the state could not be read: %s", sim_error(sim) ? sim_error(sim) : "out of memory");
    return STARBURST_ERR_RUN;
}

int picture_draw(Picture **pp, Run *run, const StarburstView *view, uint8_t *rgb, char *err, size_t errlen)
{
    const StarburstView fallback = {.width = 1280, .height = 720};
    if (!view) view = &fallback;
    int width, height;
    float exposure, point_size;
    ColorMode color;
    if (view_values(view, &width, &height, &exposure, &point_size, &color, err, errlen) != 0)
        return STARBURST_ERR_VALUE;
    if (!rgb) {
        snprintf(err, errlen, "render: no buffer for the picture");
        return STARBURST_ERR_VALUE;
    }
    Sim *sim = run_sim(run);
    const int n = sim_count(sim);
    const int rc = picture_ready(pp, width, height, n, err, errlen);
    if (rc != STARBURST_OK) return rc;
    Picture *p = *pp;
    /* Where the simulation's positions are on the GPU that draws, they go from there into the
     * vertex buffer and their light is summed there: nothing but the tags crosses to the host.
     * Else the positions and tags alone, not the whole state (at a million bodies a third of the
     * bytes from the device), uploaded. The velocities only for the speed colours. */
    const RenderDraw draw = renderer_auto_draw(n, sim_backend(sim) == SIM_BACKEND_CUDA);
    const float *device_pos = NULL;
    RenderLight on_device;
    BodiesLight light;
    if (draw == RENDER_DRAW_CUDA && sim_device_positions(sim, &device_pos, p->tag) == 0 &&
        renderer_upload_device(p->renderer, device_pos, p->tag, n, &on_device) == 0) {
        memcpy(light.mass, on_device.mass, sizeof light.mass);
        memcpy(light.moment, on_device.moment, sizeof light.moment);
        memcpy(light.r2, on_device.r2, sizeof light.r2);
    } else {
        if (sim_read_positions(sim, p->pos, p->tag) != 0) return state_unread(sim, err, errlen);
        const Bodies b = {.n = n, .pos = p->pos, .tag = p->tag};
        renderer_upload(p->renderer, b.pos, b.tag, n);
        bodies_light(&b, &light);
    }
    if (color == COLOR_BY_SPEED) {
        if (sim_read_xyz(sim, true, p->speed) != 0) return state_unread(sim, err, errlen);
        for (int i = 0; i < n; i++) {
            const float *v = p->speed + 3 * (size_t)i;
            p->speed[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
        renderer_set_speeds(p->renderer, p->speed, n);
    }
    const SimHalos *halos = sim_halos(run_sim(run));
    float rings[RENDER_RINGS_MAX];
    const int fields = halos->count < RENDER_RINGS_MAX ? halos->count : RENDER_RINGS_MAX;
    for (int h = 0; h < fields; h++) rings[h] = (float)sim_halo_half_mass_radius(&halos->halo[h]);
    renderer_set_rings(p->renderer, rings, fields);

    /* The program's home view of this state, then what the caller gives of the camera. */
    Camera cam;
    const bool encounter = run_is_encounter(run);
    CameraPair pair;
    const bool paired = encounter && bodies_light_pair(&light, pair.centre, pair.radius);
    camera_home(&cam, run_info(run)->scene.extent, encounter, paired ? &pair : NULL);
    const float deg = (float)(M_PI / 180.0);
    camera_place(&cam, view->camera & STARBURST_CAMERA_YAW ? view->yaw * deg : cam.yaw,
                 view->camera & STARBURST_CAMERA_PITCH ? view->pitch * deg : cam.pitch,
                 view->camera & STARBURST_CAMERA_DISTANCE ? view->distance : 0);
    if (view->camera & STARBURST_CAMERA_TARGET) memcpy(cam.target, view->target, sizeof cam.target);

    RenderView v = {
        .n = n,
        .draw = draw,
        .width = width,
        .height = height,
        .framebuffer = render_context_framebuffer(p->ctx),
        .point_size = point_size,
        .exposure = exposure,
        .color_mode = color,
        .speed_scale = run_info(run)->speed_scale,
        .show_halo = view->show_halo != 0,
        .focus_distance = cam.distance,
    };
    camera_matrices_in(&cam, width, height, NULL, v.view, v.proj);
    renderer_draw(p->renderer, &v);
    capture_read(v.framebuffer, width, height, rgb);
    return STARBURST_OK;
}
