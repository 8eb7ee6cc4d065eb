/* `starburst serve` in the frame: the served page is a second panel and keyboard. Its messages
 * (src/serve/serve_msg.h) become the requests the panel and the keys raise: a value goes through
 * the panel's typed-value path (app_take_typed: the parameter table's range, the run's units, the
 * same message), a key through the window's (app_press_key), a drag and the wheel through the
 * mouse's (app_orbit, app_pan, app_zoom), a choice of the panel's (force, colour, scene, N, seed,
 * halo, preset, the timeline's slider) onto the controls and actions that choice sets there. The
 * frame goes to the server as the screenshot reads it; the readout (remote_status.c) as one JSON
 * object a frame. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/viewer.h"
#include "render/capture_stream.h"
#include "serve/serve.h"
#include "util/clock.h"
#include "util/params.h"

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

_Static_assert((int)SERVE_FORCE_AUTO == (int)UI_FORCE_AUTO && (int)SERVE_FORCE_DIRECT == (int)UI_FORCE_DIRECT &&
                   (int)SERVE_FORCE_TREE == (int)UI_FORCE_TREE && (int)SERVE_FORCE_FMM == (int)UI_FORCE_FMM &&
                   (int)SERVE_FORCE_COUNT == (int)UI_FORCE_COUNT,
               "the page's force methods are numbered as the panel's");

static const UiField field_of[SERVE_FIELD_COUNT] = {
    [SERVE_FIELD_DT] = UI_FIELD_DT,
    [SERVE_FIELD_SOFTENING] = UI_FIELD_SOFTENING,
    [SERVE_FIELD_DAMPING] = UI_FIELD_DAMPING,
    [SERVE_FIELD_THETA] = UI_FIELD_THETA,
    [SERVE_FIELD_ALPHA] = UI_FIELD_ALPHA,
    [SERVE_FIELD_STEPS] = UI_FIELD_STEPS_PER_FRAME,
    [SERVE_FIELD_POINT_SIZE] = UI_FIELD_POINT_SIZE,
    [SERVE_FIELD_EXPOSURE] = UI_FIELD_EXPOSURE,
    [SERVE_FIELD_MASS_RATIO] = UI_FIELD_MASS_RATIO,
    [SERVE_FIELD_PERICENTRE] = UI_FIELD_PERICENTRE,
    [SERVE_FIELD_ECCENTRICITY] = UI_FIELD_ECCENTRICITY,
    [SERVE_FIELD_INCLINATION_A] = UI_FIELD_INCLINATION_A,
    [SERVE_FIELD_INCLINATION_B] = UI_FIELD_INCLINATION_B,
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

/* An answer to the page: ok, or a refusal that changed nothing; a line of text or none. */
static void remote_reply(App *a, const ServeCommand *c, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void remote_reply(App *a, const ServeCommand *c, bool ok, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    serve_reply(a->remote.serve, c->page, ok, text);
}

/* The one of names[count] spelt name, or -1; "a, b, c" in list for the refusal. */
static int remote_choice(const char *const *names, int count, const char *name, char *list, size_t len)
{
    size_t at = 0;
    list[0] = '\0';
    int found = -1;
    for (int k = 0; k < count; k++) {
        if (found < 0 && names[k] && strcmp(names[k], name) == 0) found = k;
        if (at < len) {
            const int n = snprintf(list + at, len - at, "%s%s", k ? ", " : "", names[k] ? names[k] : "?");
            if (n > 0) at += (size_t)n;
        }
    }
    return found;
}

/* The force combo: auto, direct, tree, and the fmm where the panel offers it (the CPU backend). */
static void remote_force(App *a, const ServeCommand *c)
{
    UiModel *u = &a->ui;
    const int f = c->msg.choice;
    if (f == UI_FORCE_FMM && u->readout.cuda) {
        remote_reply(a, c, false, "force fmm: the fast multipole method is the CPU backend's (--backend cpu); on the "
                                  "GPU the tree is faster at every accuracy measured");
        return;
    }
    if (f != u->controls.force) {
        u->actions.force_wanted = f;
        u->actions.apply_force = true;
    }
    remote_reply(a, c, true, "%s", "");
}

/* The colour combo, the scene combo and the halo box: the panel's controls set, the scene's on
 * the next reset. */
static void remote_name(App *a, const ServeCommand *c)
{
    UiModel *u = &a->ui;
    const bool color = c->msg.verb == SERVE_COLOR;
    char list[300];
    const int k = color ? remote_choice(u->names.color, u->names.color_count, c->msg.value, list, sizeof list)
                        : remote_choice(u->names.scene, u->names.scene_count, c->msg.value, list, sizeof list);
    if (k < 0) {
        remote_reply(a, c, false, "%s: '%s' is not a %s: %s", serve_verb_name(c->msg.verb), c->msg.value,
                     color ? "colour mode" : "built-in scene", list);
        return;
    }
    if (color) {
        u->controls.color_mode = k;
        remote_reply(a, c, true, "%s", "");
    } else {
        u->controls.scene = k;
        remote_reply(a, c, true, "scene %s: applied on reset (R)", c->msg.value);
    }
}

static void remote_halo(App *a, const ServeCommand *c)
{
    a->ui.controls.live_halo = c->msg.choice == SERVE_HALO_LIVE;
    remote_reply(a, c, true, "halo %s: applied on reset (R)", serve_halo_name((ServeHalo)c->msg.choice));
}

/* The Scene section's bodies and seed, read as a typed value is (option_fit) and brought into the
 * panel's ranges as its fields bring them: N in ranges.bodies (the parameter table's, as far as a
 * hand goes), the seed from 0. */
static void remote_whole(App *a, const ServeCommand *c)
{
    UiControls *ctl = &a->ui.controls;
    const bool bodies = c->msg.verb == SERVE_BODIES;
    const UiIntRange r = bodies ? a->ui.ranges.bodies : (UiIntRange){0, INT_MAX};
    const OptionSpec spec = {.kind = OPTION_NUMBER, .min = r.lo, .max = r.hi, .whole = true};
    double v;
    char note[400];
    const char *name = serve_verb_name(c->msg.verb);
    if (option_fit(&spec, NULL, name, c->msg.value, r.lo, &v, note, sizeof note) < 0) {
        remote_reply(a, c, false, "%s; %s stays %d", note, name, bodies ? ctl->n : ctl->seed);
        return;
    }
    *(bodies ? &ctl->n : &ctl->seed) = (int)v;
    if (note[0]) remote_reply(a, c, true, "%s (applied on reset: R)", note);
    else remote_reply(a, c, true, "%s %d: applied on reset (R)", name, (int)v);
}

/* The preset combo: a preset's name, or its index in the list the status gives. */
static void remote_preset(App *a, const ServeCommand *c)
{
    UiModel *u = &a->ui;
    const char *text = c->msg.value;
    const int count = u->readout.preset_count;
    int i = -1;
    for (int k = 0; k < count && i < 0; k++)
        if (strcmp(u->readout.preset_names[k], text) == 0) i = k;
    if (i < 0 && strspn(text, "0123456789") == strlen(text) && strlen(text) <= 9) {
        i = (int)strtol(text, NULL, 10);
        if (i >= count) i = -1;
    }
    if (i < 0) {
        if (count == 0) remote_reply(a, c, false, "preset '%s': this run offers no presets", text);
        else remote_reply(a, c, false, "preset '%s' is neither a preset's name nor an index from 0 to %d", text, count - 1);
        return;
    }
    u->controls.preset = i;
    u->actions.apply_preset = true;
    remote_reply(a, c, true, "%s", "");
}

/* The timeline's slider: shown where it is, at two keyframes and more. */
static void remote_timeline(App *a, const ServeCommand *c)
{
    UiModel *u = &a->ui;
    const int k = c->msg.choice, count = u->readout.timeline_count;
    if (count < 2) {
        remote_reply(a, c, false, "timeline seek %d: %s", k, count == 0 ? u->readout.timeline_text : "one keyframe kept so far");
        return;
    }
    if (k >= count) {
        remote_reply(a, c, false, "timeline seek %d: the timeline holds keyframes 0 to %d", k, count - 1);
        return;
    }
    u->actions.timeline_seek = true;
    u->actions.timeline_to = k;
    remote_reply(a, c, true, "%s", "");
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
    case SERVE_FORCE: remote_force(a, c); break;
    case SERVE_COLOR:
    case SERVE_SCENE: remote_name(a, c); break;
    case SERVE_BODIES:
    case SERVE_SEED: remote_whole(a, c); break;
    case SERVE_HALO: remote_halo(a, c); break;
    case SERVE_PRESET: remote_preset(a, c); break;
    case SERVE_TIMELINE: remote_timeline(a, c); break;
    case SERVE_VERB_END: break;
    }
}

void app_remote_take(App *a)
{
    if (!a->remote.serve) return;
    ServeCommand c;
    for (int taken = 0; taken < SERVE_TAKEN_A_FRAME && serve_take(a->remote.serve, &c); taken++) remote_do(a, &c);
}

/* The frame read back a frame ago is lent to the encoder, where it is free (and given back when
 * it is done); this frame's read is started, for a later frame to lend (render/capture_stream.h).
 * The time this takes the loop is kept for the closing line. */
void app_remote_frame(App *a)
{
    Serve *serve = a->remote.serve;
    if (!serve) return;
    if (!a->remote.frames && !(a->remote.frames = capture_stream_create())) return;
    const double t0 = clock_seconds();
    CaptureStream *frames = a->remote.frames;
    const ServeFrameState state = serve_frame_state(serve);
    if (capture_stream_lent(frames) && !state.busy) capture_stream_give_back(frames);
    CaptureFrame last;
    if (state.watched && !state.busy && !capture_stream_lent(frames) && capture_stream_pending(frames, &last)) {
        const uint8_t *rgba = capture_stream_lend(frames, &last);
        if (rgba && !serve_frame_lend(serve, rgba, last.width, last.height, last.number))
            capture_stream_give_back(frames);
    }
    if (state.watched) {
        int w, h;
        render_context_size(a->ctx, &w, &h);
        capture_stream_read(frames, render_context_framebuffer(a->ctx), w, h, a->loop.frame);
    }
    a->remote.hand_seconds += clock_seconds() - t0;
    a->remote.hand_frames++;
}

/* Headless frames come as fast as the run steps: served, no faster than a screen shows them. The
 * frames start on a schedule of 1 / SERVE_FPS, not that long after the last one's start, so that a
 * sleep's late waking is not added to every frame (60 a second, not 59.6); a loop that falls more
 * than a frame behind starts the schedule again from now rather than racing to catch up. */
void app_remote_pace(App *a)
{
    if (!a->remote.serve) return;
    const double period = 1.0 / SERVE_FPS, now = clock_seconds();
    double *next = &a->remote.next_frame;
    *next += period;
    if (*next < now - period || *next > now + period) *next = now;
    if (*next <= now) return;
    const double at = *next;
    struct timespec ts = {.tv_sec = (time_t)at, .tv_nsec = (long)((at - (double)(time_t)at) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

/* The time since the last lap, counted to `part` of the frame; a frame whose parts but the wait
 * took longer than the pace's period is counted late. */
void app_remote_lap(App *a, AppLap part)
{
    AppRemote *r = &a->remote;
    if (!r->serve) return;
    const double now = clock_seconds();
    if (r->lap_at > 0) {
        const double d = now - r->lap_at;
        r->lap_seconds[part] += d;
        r->lap_longest[part] = fmax(r->lap_longest[part], d);
        if (part == APP_LAP_WAIT) {
            r->laps++;
            if (r->frame_work > 1.0 / SERVE_FPS) r->late++;
            r->frame_work = 0;
        } else {
            r->frame_work += d;
        }
    }
    r->lap_at = now;
}

/* What was served, said at the end; the server closed. */
void app_remote_finish(App *a)
{
    if (!a->remote.serve) return;
    const ServeStats st = serve_stats(a->remote.serve);
    app_say(a,
            "starburst: served %lld frames (%lld sent to pages): %s, %.2f ms to encode and %.0f bytes a frame; "
            "%.2f ms a frame in the loop to hand them over\n",
            st.frames, st.sent, st.encoder, st.encode_ms, st.bytes,
            a->remote.hand_frames ? 1e3 * a->remote.hand_seconds / (double)a->remote.hand_frames : 0.0);
    const AppRemote *r = &a->remote;
    if (r->laps > 0) {
        static const char *const part[APP_LAP_COUNT] = {"waiting", "stepping", "measuring", "drawing", "the rest"};
        char line[400];
        size_t at = 0;
        for (int k = 0; k < APP_LAP_COUNT && at < sizeof line; k++)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %.2f ms (longest %.1f)", k ? ", " : "", part[k],
                                   1e3 * r->lap_seconds[k] / (double)r->laps, 1e3 * r->lap_longest[k]);
        app_say(a, "starburst: the loop's frame, of %lld: %s; %lld frames took longer than 1/%d s\n", r->laps, line,
                r->late, SERVE_FPS);
    }
    serve_destroy(a->remote.serve);
    a->remote.serve = NULL;
    capture_stream_destroy(a->remote.frames);
    a->remote.frames = NULL;
}
