/* `starburst serve`'s readout: the app's state as one JSON object a frame, for every page. It holds
 * what the page shows (the HUD's lines) and what its controls need: each control's value and the
 * choices it offers, as the window's panel has them (the UiModel), and what runs now beside what
 * was asked (the force method, the scene the next reset builds).
 *
 * Every string goes through serve_json_text, cut to its buffer, so every part before the preset
 * names has a bound well inside STATUS_MAX; the names (a presets file may hold any number) come
 * last, each only where it fits with room to close the object, and "presets_cut" says when some
 * were left out. The object is always whole. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/viewer.h"
#include "serve/serve.h"

#define STATUS_MAX 16384
/* Room kept for what closes the object after the preset names. */
#define STATUS_TAIL 64

typedef struct JsonOut {
    char buf[STATUS_MAX];
    size_t at;
    size_t end; /* what the next piece may fill up to: STATUS_MAX less the room kept for the tail */
    bool cut;   /* a piece did not fit and was left out */
} JsonOut;

/* Appends a piece where it fits whole before j->end; otherwise leaves it out and says so. */
static bool json_add(JsonOut *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool json_add(JsonOut *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(j->buf + j->at, j->end - j->at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= j->end - j->at) {
        j->buf[j->at] = '\0';
        j->cut = true;
        return false;
    }
    j->at += (size_t)n;
    return true;
}

/* ,"key":"text" */
static void json_text(JsonOut *j, const char *key, const char *text)
{
    char quoted[600];
    json_add(j, ",\"%s\":%s", key, serve_json_text(text ? text : "", quoted, sizeof quoted));
}

/* ,"key":[lo,hi] */
static void json_range(JsonOut *j, const char *key, double lo, double hi)
{
    json_add(j, ",\"%s\":[%.9g,%.9g]", key, lo, hi);
}

/* ,"key":["a","b"]: as many of the names as fit; false where some were left out. */
static bool json_names(JsonOut *j, const char *key, const char *const *names, int count)
{
    if (!json_add(j, ",\"%s\":[", key)) return false;
    bool whole = true;
    for (int k = 0; k < count && whole; k++) {
        char quoted[200];
        whole = json_add(j, "%s%s", k ? "," : "", serve_json_text(names[k] ? names[k] : "", quoted, sizeof quoted));
    }
    /* The bracket into the room kept for it. */
    const size_t end = j->end;
    j->end = STATUS_MAX;
    json_add(j, "]");
    j->end = end;
    return whole;
}

static const char *name_or(const char *const *names, int count, int i)
{
    return i >= 0 && i < count && names[i] ? names[i] : "?";
}

/* The values a person reads off the HUD, and the run's own. */
static void status_run(App *a, JsonOut *j)
{
    const UiReadout *r = &a->ui.readout;
    const double myr = run_info(a->run)->scene.units.myr;
    char method[200];
    app_method_name(a, method, sizeof method);
    json_add(j, "{\"type\":\"status\",\"frame\":%d,\"step\":%lld,\"time\":%.9g,\"myr\":%.9g", a->loop.frame,
             run_step(a->run), run_time(a->run), myr > 0 ? run_time(a->run) * myr : 0);
    json_text(j, "time_text", r->time_text);
    json_add(j, ",\"energy_valid\":%s,\"energy\":%.6g,\"bodies\":%d,\"halos\":%d,\"fps\":%.4g,\"steps_per_s\":%.4g",
             r->energy_valid ? "true" : "false", r->energy_valid && isfinite(r->energy_error) ? r->energy_error : 0,
             r->bodies, r->field_halos, r->fps, r->steps_per_s);
    json_text(j, "method", method);
    /* The live force error, where its last result measured the method running now (the HUD's). */
    const RunLiveError *live = run_live_error(a->run);
    if (live->valid && strcmp(live->what, method) == 0)
        json_add(j, ",\"force_error\":{\"median\":%.3g,\"p99\":%.3g,\"worst\":%.3g,\"samples\":%d}",
                 live->error.median, live->error.p99, live->error.worst, live->error.samples);
    json_text(j, "backend", r->backend);
    json_add(j, ",\"cuda\":%s,\"tree\":%s,\"fmm\":%s", r->cuda ? "true" : "false", r->tree ? "true" : "false",
             r->fmm ? "true" : "false");
    json_add(j, ",\"undo\":%d,\"redo\":%d,\"notice_id\":%d", r->undo_depth, r->redo_depth, a->remote.notice_id);
    json_text(j, "notice", a->msg.notice);
    json_text(j, "alarm", a->msg.alarm);
}

/* The panel's controls: values, ranges and the names each choice offers. */
static void status_controls(App *a, JsonOut *j)
{
    const UiModel *u = &a->ui;
    const UiControls *c = &u->controls;
    const UiRanges *g = &u->ranges;
    const UiNames *n = &u->names;
    json_add(j, ",\"paused\":%s,\"dt\":%.9g,\"softening\":%.9g,\"damping\":%.9g,\"theta\":%.9g,\"alpha\":%.9g,"
                "\"alpha_kept\":%.9g,\"steps\":%d,\"point_size\":%.9g,\"exposure\":%.9g",
             c->paused ? "true" : "false", (double)c->dt, (double)c->softening, (double)c->damping, (double)c->theta,
             (double)c->alpha, (double)c->alpha_kept, c->steps_per_frame, (double)c->point_size, (double)c->exposure);
    json_add(j, ",\"ranges\":{\"dt\":[%.9g,%.9g]", g->dt.lo, g->dt.hi);
    json_range(j, "softening", g->softening.lo, g->softening.hi);
    json_range(j, "damping", g->damping.lo, g->damping.hi);
    json_range(j, "theta", g->theta.lo, g->theta.hi);
    json_range(j, "alpha", g->alpha.lo, g->alpha.hi);
    json_range(j, "steps", g->steps_per_frame.lo, g->steps_per_frame.hi);
    json_range(j, "point_size", g->point_size.lo, g->point_size.hi);
    json_range(j, "exposure", g->exposure.lo, g->exposure.hi);
    json_range(j, "bodies", g->bodies.lo, g->bodies.hi);
    json_range(j, "mass_ratio", g->mass_ratio.lo, g->mass_ratio.hi);
    json_range(j, "pericentre", g->pericentre.lo, g->pericentre.hi);
    json_range(j, "eccentricity", g->eccentricity.lo, g->eccentricity.hi);
    json_range(j, "inclination_a", g->inclination.lo, g->inclination.hi);
    json_range(j, "inclination_b", g->inclination.lo, g->inclination.hi);
    json_add(j, "}");
    /* The collision's encounter (applied on reset), the pericentre in kpc beside it. */
    const UiEncounter *e = &c->encounter;
    json_add(j, ",\"mass_ratio\":%.9g,\"pericentre\":%.9g,\"eccentricity\":%.9g,\"inclination_a\":%.9g,"
                "\"inclination_b\":%.9g",
             (double)e->mass_ratio, (double)e->pericentre, (double)e->eccentricity, (double)e->inclination_a,
             (double)e->inclination_b);
    json_text(j, "pericentre_note", u->readout.pericentre_note);
    json_text(j, "encounter_scene", name_or(n->scene, n->scene_count, n->scene_encounter));
    /* The force asked for (the panel's combo) and the one that runs (auto's pick, a fall-back). */
    json_text(j, "force", name_or(n->force, UI_FORCE_COUNT, c->force));
    json_text(j, "force_running", sim_force_name(sim_force(run_sim(a->run))));
    json_names(j, "forces", n->force, UI_FORCE_COUNT);
    json_text(j, "color", name_or(n->color, n->color_count, c->color_mode));
    json_names(j, "colors", n->color, n->color_count);
    /* The Scene section (applied on reset), and what runs now. */
    json_add(j, ",\"next\":{\"bodies\":%d,\"seed\":%d", c->n, c->seed);
    json_text(j, "scene", name_or(n->scene, n->scene_count, c->scene));
    json_text(j, "halo", c->live_halo ? "live" : "field");
    json_add(j, "}");
    json_add(j, ",\"running\":{\"seed\":%llu", (unsigned long long)run_info(a->run)->seed);
    json_text(j, "scene", scene_name(run_info(a->run)->kind));
    json_add(j, "}");
    json_names(j, "scenes", n->scene, n->scene_count);
    /* The timeline's slider: keyframes kept, the one shown (-1: the run as it goes), its line. */
    json_add(j, ",\"timeline\":{\"count\":%d,\"shown\":%d", u->readout.timeline_count, u->readout.timeline_view);
    json_text(j, "text", u->readout.timeline_text);
    json_add(j, "}");
}

void app_remote_status(App *a)
{
    if (!a->remote.serve) return;
    if (a->msg.notice_at != a->remote.notice_at) {
        a->remote.notice_at = a->msg.notice_at;
        a->remote.notice_id++;
    }
    static JsonOut j; /* the frame loop's one thread */
    j.at = 0;
    j.end = STATUS_MAX - STATUS_TAIL;
    j.cut = false;
    j.buf[0] = '\0';
    status_run(a, &j);
    status_controls(a, &j);
    const ServeStats st = serve_stats(a->remote.serve);
    json_text(&j, "encoder", st.encoder);
    json_add(&j, ",\"encode_ms\":%.4g,\"frame_bytes\":%.0f,\"pages\":%d", st.encode_ms, st.bytes, st.pages);
    /* What cannot be cut short before this point: the object is left out rather than sent broken. */
    if (j.cut) return;
    const UiReadout *r = &a->ui.readout;
    json_add(&j, ",\"preset\":%d", a->ui.controls.preset);
    const bool whole = json_names(&j, "presets", r->preset_names, r->preset_count);
    j.end = STATUS_MAX;
    json_add(&j, ",\"presets_cut\":%s}", whole ? "false" : "true");
    serve_status(a->remote.serve, j.buf);
}
