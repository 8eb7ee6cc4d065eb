/* `starburst serve` in the frame: the served page is a second panel and keyboard. Its messages
 * (src/serve/serve_msg.h) become the requests the panel and the keys raise: a value goes through
 * the panel's typed-value path (app_take_typed: the parameter table's range, the run's units, the
 * same message), a key through the window's (app_press_key), a drag and the wheel through the
 * mouse's (app_orbit, app_pan, app_zoom). The frame goes to the server as the screenshot reads it,
 * and the readout as one JSON object a frame. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/viewer.h"
#include "render/capture.h"
#include "serve/serve.h"
#include "util/clock.h"

/* The loop's most frames a second while served (headless has no vsync to pace it). */
#define SERVE_FPS 60
/* The most messages taken in one frame: the rest wait for the next. */
#define SERVE_TAKEN_A_FRAME 64

int app_remote_start(App *a, const AppOptions *o)
{
    char err[300];
    a->remote.serve = serve_create(&(ServeDesc){.host = o->serve_host, .port = o->serve_port,
                                                .public_view = o->public_view},
                                   err, sizeof err);
    if (!a->remote.serve) {
        fprintf(stderr, "starburst: %s\n", err);
        return -1;
    }
    /* As Jupyter does: the address to open first, with its token, whatever --quiet says. */
    fprintf(stderr, "starburst: serving; drive the run at %s\n", serve_url(a->remote.serve, true));
    fprintf(stderr, "starburst: watch it at %s%s\n", serve_url(a->remote.serve, false),
            o->public_view ? " (--public-view: no token needed)" : "");
    return 0;
}

static const UiField field_of[SERVE_FIELD_COUNT] = {
    [SERVE_FIELD_DT] = UI_FIELD_DT,
    [SERVE_FIELD_SOFTENING] = UI_FIELD_SOFTENING,
    [SERVE_FIELD_DAMPING] = UI_FIELD_DAMPING,
    [SERVE_FIELD_THETA] = UI_FIELD_THETA,
    [SERVE_FIELD_ALPHA] = UI_FIELD_ALPHA,
    [SERVE_FIELD_STEPS] = UI_FIELD_STEPS_PER_FRAME,
    [SERVE_FIELD_POINT_SIZE] = UI_FIELD_POINT_SIZE,
    [SERVE_FIELD_EXPOSURE] = UI_FIELD_EXPOSURE,
};

/* The page's keys as the window's. */
static const struct {
    int key, mods;
} key_of[SERVE_KEY_COUNT] = {
    [SERVE_KEY_SPACE] = {GLFW_KEY_SPACE, 0},
    [SERVE_KEY_PERIOD] = {GLFW_KEY_PERIOD, 0},
    [SERVE_KEY_R] = {GLFW_KEY_R, 0},
    [SERVE_KEY_BACKSPACE] = {GLFW_KEY_BACKSPACE, 0},
    [SERVE_KEY_HOME] = {GLFW_KEY_HOME, 0},
    [SERVE_KEY_S] = {GLFW_KEY_S, 0},
    [SERVE_KEY_A] = {GLFW_KEY_A, 0},
    [SERVE_KEY_M] = {GLFW_KEY_M, 0},
    [SERVE_KEY_D] = {GLFW_KEY_D, 0},
    [SERVE_KEY_G] = {GLFW_KEY_G, 0},
    [SERVE_KEY_T] = {GLFW_KEY_T, 0},
    [SERVE_KEY_LEFT] = {GLFW_KEY_LEFT, 0},
    [SERVE_KEY_RIGHT] = {GLFW_KEY_RIGHT, 0},
    [SERVE_KEY_CTRL_LEFT] = {GLFW_KEY_LEFT, GLFW_MOD_CONTROL},
    [SERVE_KEY_CTRL_RIGHT] = {GLFW_KEY_RIGHT, GLFW_MOD_CONTROL},
    [SERVE_KEY_SHIFT_LEFT] = {GLFW_KEY_LEFT, GLFW_MOD_SHIFT},
    [SERVE_KEY_UNDO] = {GLFW_KEY_Z, GLFW_MOD_CONTROL},
    [SERVE_KEY_REDO] = {GLFW_KEY_Y, GLFW_MOD_CONTROL},
    [SERVE_KEY_REDO2] = {GLFW_KEY_Z, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT},
};

/* A value set from the page, as typed into the panel: the answer is the panel's notice (its
 * range, its unit), or empty where the value was taken as it is. */
static void remote_set(App *a, const ServeCommand *c)
{
    UiActions *act = &a->ui.actions;
    const double before = a->msg.notice_at;
    act->typed = field_of[c->msg.field];
    snprintf(act->typed_text, sizeof act->typed_text, "%s", c->msg.value);
    const int rc = app_take_typed(a);
    serve_reply(a->remote.serve, c->page, rc >= 0, a->msg.notice_at != before ? a->msg.notice : "");
}

static void remote_do(App *a, const ServeCommand *c)
{
    const ServeMsg *m = &c->msg;
    switch (m->verb) {
    case SERVE_SET: remote_set(a, c); break;
    case SERVE_KEY: app_press_key(a, key_of[m->key].key, key_of[m->key].mods); break;
    case SERVE_ORBIT: app_orbit(a, (float)m->x, (float)m->y); break;
    case SERVE_PAN: app_pan(a, (float)m->x, (float)m->y, 1.0f); break;
    case SERVE_ZOOM: app_zoom(a, (float)m->x); break;
    }
}

void app_remote_take(App *a)
{
    if (!a->remote.serve) return;
    ServeCommand c;
    for (int taken = 0; taken < SERVE_TAKEN_A_FRAME && serve_take(a->remote.serve, &c); taken++) remote_do(a, &c);
}

void app_remote_frame(App *a)
{
    if (!a->remote.serve) return;
    int w, h;
    render_context_size(a->ctx, &w, &h);
    uint8_t *rgb = serve_frame_begin(a->remote.serve, w, h);
    if (!rgb) return;
    capture_read(render_context_framebuffer(a->ctx), w, h, rgb);
    serve_frame_submit(a->remote.serve);
}

/* "name":[lo,hi] */
static int range_json(char *buf, size_t len, const char *name, double lo, double hi)
{
    return snprintf(buf, len, "\"%s\":[%.9g,%.9g]", name, lo, hi);
}

void app_remote_status(App *a)
{
    if (!a->remote.serve) return;
    if (a->msg.notice_at != a->remote.notice_at) {
        a->remote.notice_at = a->msg.notice_at;
        a->remote.notice_id++;
    }
    const UiModel *u = &a->ui;
    const UiReadout *r = &u->readout;
    const UiControls *c = &u->controls;
    const UiRanges *g = &u->ranges;
    const ServeStats st = serve_stats(a->remote.serve);
    char method[200], method_json[220], time_text[100], notice[300], alarm[300], encoder[100], backend[64], ranges[400];
    app_method_name(a, method, sizeof method);
    int at = 0;
    at += range_json(ranges + at, sizeof ranges - (size_t)at, "dt", g->dt.lo, g->dt.hi);
    ranges[at++] = ',';
    at += range_json(ranges + at, sizeof ranges - (size_t)at, "softening", g->softening.lo, g->softening.hi);
    ranges[at++] = ',';
    at += range_json(ranges + at, sizeof ranges - (size_t)at, "damping", g->damping.lo, g->damping.hi);
    ranges[at++] = ',';
    range_json(ranges + at, sizeof ranges - (size_t)at, "steps", g->steps_per_frame.lo, g->steps_per_frame.hi);
    const double myr = run_info(a->run)->scene.units.myr;
    char json[4096];
    snprintf(json, sizeof json,
             "{\"type\":\"status\",\"frame\":%d,\"step\":%lld,\"time\":%.9g,\"myr\":%.9g,\"time_text\":%s,"
             "\"energy_valid\":%s,\"energy\":%.6g,\"bodies\":%d,\"halos\":%d,\"fps\":%.4g,\"steps_per_s\":%.4g,"
             "\"method\":%s,\"backend\":%s,\"paused\":%s,\"dt\":%.9g,\"softening\":%.9g,\"damping\":%.9g,"
             "\"theta\":%.9g,\"steps\":%d,\"ranges\":{%s},\"undo\":%d,\"redo\":%d,\"notice_id\":%d,\"notice\":%s,"
             "\"alarm\":%s,\"encoder\":%s,\"encode_ms\":%.4g,\"frame_bytes\":%.0f,\"pages\":%d}",
             a->loop.frame, run_step(a->run), run_time(a->run), myr > 0 ? run_time(a->run) * myr : 0,
             serve_json_text(r->time_text, time_text, sizeof time_text), r->energy_valid ? "true" : "false",
             r->energy_valid && isfinite(r->energy_error) ? r->energy_error : 0, r->bodies, r->field_halos, r->fps,
             r->steps_per_s, serve_json_text(method, method_json, sizeof method_json),
             serve_json_text(r->backend ? r->backend : "", backend, sizeof backend), c->paused ? "true" : "false",
             (double)c->dt, (double)c->softening, (double)c->damping, (double)c->theta, c->steps_per_frame, ranges,
             r->undo_depth, r->redo_depth, a->remote.notice_id, serve_json_text(a->msg.notice, notice, sizeof notice),
             serve_json_text(a->msg.alarm, alarm, sizeof alarm), serve_json_text(st.encoder, encoder, sizeof encoder),
             st.encode_ms, st.bytes, st.pages);
    serve_status(a->remote.serve, json);
}

/* Headless frames come as fast as the run steps: served, no faster than a screen shows them. */
void app_remote_pace(App *a, double frame_start)
{
    if (!a->remote.serve) return;
    const double wait = frame_start + 1.0 / SERVE_FPS - clock_seconds();
    if (wait <= 0) return;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(wait * 1e9)};
    nanosleep(&ts, NULL);
}

/* What was served, said at the end; the server closed. */
void app_remote_finish(App *a)
{
    if (!a->remote.serve) return;
    const ServeStats st = serve_stats(a->remote.serve);
    app_say(a, "starburst: served %lld frames (%lld sent to pages): %s, %.2f ms to encode and %.0f bytes a frame\n",
            st.frames, st.sent, st.encoder, st.encode_ms, st.bytes);
    serve_destroy(a->remote.serve);
    a->remote.serve = NULL;
}
