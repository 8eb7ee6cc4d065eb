/* The run's past: keyframes taken as the run goes (run/keyframes.h keeps them within the budget),
 * a past one shown by loading it into the simulation, the run resumed from it as a new future
 * (the keyframes after it set aside), and the future brought back by an undo before any other
 * change. --open's series is read onto the same keyframes, a snapshot at a time.
 *
 * A keyframe is taken from the host copy of the state (run.c). On the CPU backend that copy is a
 * memcpy, taken for the keyframe when one is due; on the CUDA backend a keyframe never asks for a
 * copy of its own: it takes the checkpoint's and the other reads of the run when one is due, so
 * the frame loop never waits on the GPU for the timeline.
 *
 * The present stays the newest keyframe while a past one is shown: run_here keeps the run as it
 * stands as a keyframe before the view leaves it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_state.h"
#include "util/clock.h"

/* The room held back for when memory runs out: a save's buffers and a host copy of the bodies,
 * at least 16 MB. */
static size_t reserve_bytes(int n) { return (size_t)n * 128 + ((size_t)16 << 20); }

const Keyframes *run_keyframes(const Run *r) { return run_timeline_on(r) ? r->tl.store : NULL; }
const char *run_timeline_note(const Run *r) { return r->tl.note; }
int run_shown(const Run *r) { return r->tl.view; }
int run_series_read(const Run *r) { return r->tl.series_read; }
const char *run_series_reading(const Run *r) { return r->tl.reading; }

/* Keyframe i's place: its step, or its time. */
static double place(const Keyframes *k, int i, bool by_time)
{
    return by_time ? keyframes_time(k, i) : (double)keyframes_step(k, i);
}

const char *run_timeline_every(const Run *r, char *buf, size_t len)
{
    const Keyframes *k = run_keyframes(r);
    buf[0] = '\0';
    if (!k) return buf;
    const int count = keyframes_count(k);
    const bool series = r->source.from_series && r->series;
    const bool cuda = sim_backend(r->sim) == SIM_BACKEND_CUDA;
    if (count < 2) {
        const long long every = keyframes_spacing(k);
        snprintf(buf, len, "every %lld %s", every, run_plural(every, "step", "steps"));
        return buf;
    }
    if (!series && !cuda) {
        /* The gaps kept, not the spacing asked for now: after a thinning the newest are the new
         * spacing apart and the last of the old ones half that ("every 8 to 16 steps"). */
        long long least = 0, most = 0;
        for (int i = 1; i < count; i++) {
            const long long gap = keyframes_step(k, i) - keyframes_step(k, i - 1);
            if (i == 1 || gap < least) least = gap;
            if (i == 1 || gap > most) most = gap;
        }
        if (least == most) snprintf(buf, len, "every %lld %s", most, run_plural(most, "step", "steps"));
        else snprintf(buf, len, "every %lld to %lld steps", least, most);
        return buf;
    }
    const bool by_time = series && !(series_dt(r->series) > 0);
    const double mean = (place(k, count - 1, by_time) - place(k, 0, by_time)) / (count - 1);
    bool even = !cuda; /* the checkpoint's copies come when they come: always a mean */
    for (int i = 1; i < count && even; i++)
        even = fabs(place(k, i, by_time) - place(k, i - 1, by_time) - mean) <= 1e-6 * fabs(mean);
    const char *about = even ? "" : "~";
    if (by_time) {
        char t[32];
        const Units *u = &r->info.scene.units;
        units_format_time(u, mean, t, sizeof t);
        snprintf(buf, len, "every %s%s%s", about, t, units_physical(u) ? "" : " time units");
    } else {
        const long long every = mean >= 1 ? llround(mean) : 1;
        snprintf(buf, len, "every %s%lld %s", about, every, run_plural(every, "step", "steps"));
    }
    return buf;
}

void run_timeline_costs(const Run *r, double *load_ms, double *capture_ms)
{
    *load_ms = r->tl.load_ms;
    *capture_ms = r->tl.capture_ms;
}

bool run_timeline_on(const Run *r)
{
    return r->tl.store && keyframes_count(r->tl.store) > 0 && !r->tl.note[0];
}

void run_timeline_free(Run *r)
{
    keyframes_destroy(r->tl.store);
    r->tl.store = NULL;
    free(r->tl.reserve);
    r->tl.reserve = NULL;
    bodies_free(&r->tl.frame);
}

static void stop_reading(Run *r)
{
    r->tl.series_next = 0;
    r->tl.reading[0] = '\0';
}

/* Snapshot i is the next to read: the line says so until it is read. */
static void reading(Run *r, int i)
{
    const char *path = series_path(r->series, i), *slash = strrchr(path, '/');
    r->tl.series_next = i;
    snprintf(r->tl.reading, sizeof r->tl.reading, "Reading snapshot %d of %d: %.100s", i + 1, series_count(r->series),
             slash ? slash + 1 : path);
}

int run_show(Run *r, int i, char *err, size_t errlen)
{
    RunTimeline *tl = &r->tl;
    FrameSource *s = &tl->source;
    if (!run_timeline_on(r)) {
        snprintf(err, errlen, "%s", tl->note[0] ? tl->note : "nothing kept yet");
        return -1;
    }
    const int count = s->count(s->ctx);
    i = i < 0 ? 0 : i >= count ? count - 1 : i;
    const double t0 = clock_seconds();
    if (s->load(s->ctx, i, &tl->frame, err, errlen) != 0 || sim_load(r->sim, &tl->frame, err, errlen) != 0) return -1;
    tl->load_ms = (clock_seconds() - t0) * 1e3;
    r->time_base = s->time(s->ctx, i);
    r->step_base = s->step(s->ctx, i);
    r->copy.valid = false;
    tl->view = i;
    return 0;
}

int run_start_timeline(Run *r, long long spacing)
{
    RunTimeline *tl = &r->tl;
    tl->view = -1;
    stop_reading(r);
    tl->series_read = r->source.from_series ? 1 : 0;
    if (!(r->desc.timeline_bytes > 0)) {
        snprintf(tl->note, sizeof tl->note, "--timeline-mb 0");
        return -1;
    }
    if (!tl->store) {
        tl->store = keyframes_create((size_t)r->desc.timeline_bytes);
        if (!tl->store) {
            snprintf(tl->note, sizeof tl->note, "out of memory");
            return -1;
        }
        tl->source = keyframes_source(tl->store);
    }
    char err[256];
    if (keyframes_start(tl->store, &r->first, r->time_base, r->step_base, spacing > 0 ? spacing : 1, err,
                        sizeof err) != 0) {
        snprintf(tl->note, sizeof tl->note, "%.200s", err);
        run_say(r, RUN_SAY_CONSOLE, "no timeline: %s (--timeline-mb sets its memory)", tl->note);
        return -1;
    }
    tl->note[0] = '\0';
    free(tl->reserve);
    tl->reserve = malloc(reserve_bytes(r->first.n)); /* untouched: address space, not memory */
    if (tl->frame.n != r->first.n) {
        bodies_free(&tl->frame);
        if (bodies_alloc(&tl->frame, r->first.n) != 0 || bodies_alloc_acc(&tl->frame) != 0) {
            snprintf(tl->note, sizeof tl->note, "out of memory");
            return -1;
        }
    }
    /* --open's series: its snapshots after the first become keyframes as they are read, and the
     * view stands on the first, paused. */
    if (r->source.from_series && series_count(r->series) > 1) {
        tl->series_read = 1;
        reading(r, 1);
        char ignored[128];
        run_show(r, 0, ignored, sizeof ignored);
    }
    return 0;
}

bool run_read_next(Run *r)
{
    RunTimeline *tl = &r->tl;
    SnapshotSeries *s = r->series;
    const int i = tl->series_next, count = s ? series_count(s) : 0;
    if (i <= 0 || i >= count || !run_timeline_on(r)) return false;
    const char *path = series_path(s, i);
    run_say(r, RUN_SAY_CONSOLE, "snapshot %d/%d onto the timeline: %s", i + 1, count, path);
    Bodies b = {0};
    char err[300] = "";
    bool ok = series_load(s, i, &b, NULL, NULL, NULL, err, sizeof err) == 0;
    if (ok) r->series_reads++;
    if (ok && b.n != keyframes_bodies(tl->store)) {
        snprintf(err, sizeof err, "%s: %lld bodies, not the first snapshot's %d", path, (long long)b.n,
                 keyframes_bodies(tl->store));
        ok = false;
    }
    /* Read back in step as the first was (run_in_step): the simulation lends its force evaluation
     * and goes back to the keyframe on view. */
    const double lead = series_lead(s, i);
    if (ok && lead > 0) {
        ok = sim_load(r->sim, &b, err, sizeof err) == 0 &&
             run_in_step(r->sim, &b, lead, r->info.saved.params.softening, err, sizeof err) == 0;
        char ignored[128];
        if (tl->view >= 0) run_show(r, tl->view, ignored, sizeof ignored);
    }
    /* Steps counted from the first snapshot's keyframe: the view may stand anywhere meanwhile. */
    ok = ok && keyframes_add(tl->store, &b, series_time(s, i), keyframes_step(tl->store, 0) + series_step(s, i), NULL,
                             err, sizeof err) == 0;
    bodies_free(&b);
    if (!ok) {
        /* The line stays over the timeline: the series is not all there. */
        stop_reading(r);
        snprintf(tl->reading, sizeof tl->reading, "Snapshot %d of %d not read; the timeline holds the first %d", i + 1,
                 count, tl->series_read);
        run_say(r, RUN_SAY_SCREEN, "Reading the series stopped at snapshot %d of %d: %s", i + 1, count, err);
        run_say(r, RUN_SAY_ERROR, "Reading the series stopped at snapshot %d of %d: %s; the timeline holds the first %d",
                i + 1, count, err, tl->series_read);
        return false;
    }
    tl->series_read = i + 1;
    if (i + 1 < count) {
        reading(r, i + 1);
        return true;
    }
    stop_reading(r);
    return false;
}

/* Hands s to the timeline as the keyframe of step. A keyframe that cannot be kept (memory ran out)
 * stops the timeline's growth, said once; the run goes on. t0: when its copy began. */
static void keep_state(Run *r, KeyframeState *s, double time, long long step, double t0)
{
    RunTimeline *tl = &r->tl;
    KeyframesAdded added;
    char err[256];
    if (!s->state) snprintf(err, sizeof err, "out of memory for a keyframe of %d bodies", s->n);
    if (!s->state || keyframes_add_state(tl->store, s, time, step, &added, err, sizeof err) != 0) {
        /* Memory ran out: the timeline stops growing and gives half its room back, so that the
         * run, its checkpoint and its save have what they need. */
        free(tl->reserve);
        tl->reserve = NULL;
        const int freed = keyframes_thin(tl->store);
        snprintf(tl->note, sizeof tl->note, "stopped: %.200s", err);
        run_say(r, RUN_SAY_SCREEN | RUN_SAY_CONSOLE,
                "The timeline stopped: %s; %d %s freed to leave the run room; the run goes on", err, freed,
                run_plural(freed, "keyframe", "keyframes"));
        return;
    }
    tl->capture_ms = (clock_seconds() - t0) * 1e3;
    char budget[32];
    keyframes_bytes_text((double)keyframes_budget(tl->store), budget, sizeof budget);
    if (added.future_freed > 0)
        run_say(r, RUN_SAY_SCREEN | RUN_SAY_CONSOLE,
                "Timeline full (%s): the oldest future set aside (%d %s) is gone; a larger --timeline-mb keeps more",
                budget, added.future_freed, run_plural(added.future_freed, "keyframe", "keyframes"));
    else if (added.future_thinned > 0)
        run_say(r, RUN_SAY_SCREEN,
                "Timeline full (%s): every other keyframe thinned out, the %d set aside too (ctrl+Z still brings "
                "back %d), one every %lld steps now",
                budget, added.future_thinned, keyframes_future_count(tl->store), keyframes_spacing(tl->store));
    else if (added.thinned)
        run_say(r, RUN_SAY_SCREEN, "Timeline full (%s): every other keyframe thinned out, one every %lld steps now",
                budget, keyframes_spacing(tl->store));
}

/* Keeps the state as it is now as a keyframe. On the CUDA backend the checkpoint's worker copies
 * the keyframes that fall due (run_keep_landed); here only a host copy of this very step is taken
 * (force: one is read, for a request of the user's). */
static void keep_now(Run *r, bool force)
{
    const long long step = run_step(r);
    const bool cuda = sim_backend(r->sim) == SIM_BACKEND_CUDA;
    const double t0 = clock_seconds();
    if ((!cuda || force) && (!r->copy.valid || r->copy.step != step)) run_read_state(r);
    if (!r->copy.valid || r->copy.step != step || r->copy.bodies.n != keyframes_bodies(r->tl.store)) return;
    KeyframeState s;
    keyframes_state_copy(&s, &r->copy.bodies); /* s.state NULL: memory ran out, said */
    keep_state(r, &s, r->copy.time, step, t0);
}

void run_keep(Run *r)
{
    if (!run_timeline_on(r) || r->tl.view >= 0 || sim_error(r->sim)) return;
    if (keyframes_due(r->tl.store, run_step(r))) keep_now(r, false);
}

bool run_keyframe_due(const Run *r, long long step)
{
    return run_timeline_on(r) && r->tl.view < 0 && keyframes_due(r->tl.store, step);
}

void run_keep_landed(Run *r, KeyframeState *s, double time, long long step, double copied)
{
    if (run_keyframe_due(r, step) && !sim_error(r->sim) && s->n == keyframes_bodies(r->tl.store))
        keep_state(r, s, time, step, copied);
    keyframes_state_free(s); /* not due since, or taken */
}

int run_here(Run *r)
{
    if (!run_timeline_on(r)) return -1;
    if (r->tl.view >= 0) return r->tl.view;
    keep_now(r, true);
    return keyframes_count(r->tl.store) - 1;
}

void run_resume(Run *r)
{
    RunTimeline *tl = &r->tl;
    if (tl->view < 0 || !run_timeline_on(r)) {
        tl->view = -1;
        return;
    }
    /* The live run owns the timeline from here: the series' snapshots not yet read stay unread. */
    char unread[96] = "";
    if (tl->series_next > 0) {
        const int count = series_count(r->series);
        snprintf(unread, sizeof unread, "; the series' last %d of %d snapshots left unread", count - tl->series_read,
                 count);
        stop_reading(r);
    }
    const int cut = keyframes_cut(tl->store, tl->view);
    tl->view = -1;
    if (cut == 0 && !unread[0]) return;
    tl->undo_depth = r->undo.count;
    char when[64], aside[96] = "";
    if (cut > 0)
        snprintf(aside, sizeof aside, "; the %d %s after it set aside (ctrl+Z brings them back)", cut,
                 run_plural(cut, "keyframe", "keyframes"));
    run_say(r, RUN_SAY_SCREEN | (unread[0] ? RUN_SAY_CONSOLE : 0), "Resumed from %s: a new future%s%s",
            run_when(r, run_time(r), when, sizeof when), aside, unread);
}

bool run_can_undo_future(const Run *r)
{
    return run_timeline_on(r) && keyframes_undo_count(r->tl.store) > 0 && r->undo.count == r->tl.undo_depth;
}

bool run_can_redo_future(const Run *r) { return run_timeline_on(r) && keyframes_redo_count(r->tl.store) > 0; }

/* The future on top of those set aside comes back, the view on its last keyframe; the one it
 * replaces (the present kept first as a keyframe) is set aside in its place, for the swap back. */
static bool swap_future(Run *r, bool redo)
{
    if (!(redo ? run_can_redo_future(r) : run_can_undo_future(r))) return false;
    if (r->tl.view < 0) keep_now(r, true);
    int aside;
    const int restored = keyframes_swap(r->tl.store, &aside);
    char err[256], when[64], back[96] = "";
    if (run_show(r, keyframes_count(r->tl.store) - 1, err, sizeof err) != 0) {
        run_say(r, RUN_SAY_SCREEN, "Keyframe not shown: %s", err);
        return true;
    }
    if (aside > 0)
        snprintf(back, sizeof back, "; the %d %s you left set aside (%s brings them back)", aside,
                 run_plural(aside, "keyframe", "keyframes"), redo ? "ctrl+Z" : "ctrl+Y");
    run_say(r, RUN_SAY_SCREEN, "Brought back the %d %s set aside: the run as it stood at %s (space runs on)%s", restored,
            run_plural(restored, "keyframe", "keyframes"), run_when(r, run_time(r), when, sizeof when), back);
    if (redo) r->tl.undo_depth = r->undo.count;
    return true;
}

bool run_undo_future(Run *r) { return swap_future(r, false); }
bool run_redo_future(Run *r) { return swap_future(r, true); }

void run_went_back(Run *r) { r->tl.view = -1; }
