/* The run's own timeline in the viewer: keyframes taken as the run goes (timeline.h keeps them
 * within --timeline-mb), a past one shown on request (the slider, Left / Right, ctrl+Left,
 * shift+Left playing backwards), the run resumed from it as a new future, and ctrl+Z bringing the
 * future set aside back.
 *
 * A keyframe is taken from the host copy of the state (host_copy.c). On the CPU backend that copy
 * is a memcpy, taken for the keyframe when one is due; on the CUDA backend a keyframe never asks
 * for a copy of its own: it takes the checkpoint's (CHECKPOINT_SECONDS) and the other reads of
 * the run when one is due, so the frame loop never waits on the GPU for the timeline. A past
 * moment is shown by loading its keyframe into the running simulation: resuming starts from it.
 * The view reads the keyframes through a FrameSource, as it would read a series of snapshots. */
#include <stdio.h>
#include <string.h>

#include "app/app_internal.h"
#include "scene/snapshot.h"
#include "util/clock.h"

/* The default budget: a tenth of the memory available now, at most 1 GB; 256 MB where
 * /proc/meminfo does not say. */
#define TIMELINE_DEFAULT_MAX_BYTES ((size_t)1 << 30)
#define TIMELINE_FALLBACK_BYTES ((size_t)256 << 20)

static size_t default_budget(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return TIMELINE_FALLBACK_BYTES;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    if (kb == 0) return TIMELINE_FALLBACK_BYTES;
    const size_t tenth = (size_t)(kb * 1024ULL / 10);
    return tenth < TIMELINE_DEFAULT_MAX_BYTES ? tenth : TIMELINE_DEFAULT_MAX_BYTES;
}

static void show(App *a, int i);

/* --open's series on the timeline: its snapshots after the first become keyframes (thinned
 * within the budget as the run's own are), and the view stands on the first, paused. Space
 * continues live from the snapshot shown, setting the later ones aside (ctrl+Z brings them back),
 * as a resume from any keyframe does.
 *
 * In a window the snapshots are read one a frame (app_timeline_read), so the window keeps drawing
 * and answering while a long series fills the timeline, and says how far it got; headless, where
 * nothing is drawn meanwhile, they are all read in the first frame. Each is said on the
 * console as well. A snapshot that does not read ends the reading with one line naming it and
 * why (a notice, and the console); the keyframes read before it stay, and the line over the
 * timeline says the series is not all there. */
static void stop_reading(App *a)
{
    a->tl.series_next = 0;
    a->tl.reading[0] = '\0';
}

/* Snapshot i is the next to read: the window's line says so until it is read. */
static void reading(App *a, int i)
{
    const SnapshotSeries *s = a->run.series;
    const char *path = series_path(s, i), *slash = strrchr(path, '/');
    a->tl.series_next = i;
    snprintf(a->tl.reading, sizeof a->tl.reading, "Reading snapshot %d of %d: %.100s", i + 1, series_count(s),
             slash ? slash + 1 : path);
}

/* Reads the next snapshot of the series onto the timeline. False when the reading is over. */
static bool read_next(App *a)
{
    AppTimeline *tl = &a->tl;
    SnapshotSeries *s = a->run.series;
    const int count = series_count(s), i = tl->series_next;
    if (i <= 0 || i >= count) return false;
    const char *path = series_path(s, i);
    app_say(a, "starburst: snapshot %d/%d onto the timeline: %s\n", i + 1, count, path);
    Bodies b = {0};
    char err[300] = "";
    bool ok = series_load(s, i, &b, NULL, NULL, NULL, err, sizeof err) == 0;
    if (ok) a->run.series_reads++;
    if (ok && b.n != timeline_bodies(tl->store)) {
        snprintf(err, sizeof err, "%s: %lld bodies, not the first snapshot's %d", path, (long long)b.n,
                 timeline_bodies(tl->store));
        ok = false;
    }
    /* Steps counted from the first snapshot's keyframe: the view may stand anywhere meanwhile. */
    ok = ok && timeline_add(tl->store, &b, series_time(s, i), timeline_step(tl->store, 0) + series_step(s, i), NULL,
                            err, sizeof err) == 0;
    bodies_free(&b);
    if (!ok) {
        /* The line stays over the timeline (the notice fades): the series is not all there. */
        stop_reading(a);
        snprintf(tl->reading, sizeof tl->reading, "Snapshot %d of %d not read; the timeline holds the first %d", i + 1,
                 count, tl->series_read);
        app_notify(a, "Reading the series stopped at snapshot %d of %d: %s", i + 1, count, err);
        fprintf(stderr, "starburst: Reading the series stopped at snapshot %d of %d: %s; the timeline holds the first %d\n",
                i + 1, count, err, tl->series_read);
        return false;
    }
    tl->series_read = i + 1;
    if (i + 1 < count) {
        reading(a, i + 1);
        return true;
    }
    stop_reading(a);
    return false;
}

static void add_series(App *a)
{
    a->tl.series_read = 1;
    reading(a, 1);
    show(a, 0);
}

/* A frame's share of reading --open's series: one snapshot in a window; headless, all of them in
 * the first frame. */
void app_timeline_read(App *a)
{
    if (a->tl.series_next > 0 && read_next(a) && a->opt.headless)
        while (read_next(a)) {
        }
}

/* Starts the timeline on the run's first state (a reset, a preset, a load). */
void app_timeline_restart(App *a, const Bodies *first)
{
    AppTimeline *tl = &a->tl;
    tl->view = -1;
    tl->playing_back = false;
    stop_reading(a);
    tl->series_read = app_run_from_series(a) ? 1 : 0;
    if (a->opt.timeline_mb == 0) {
        snprintf(tl->note, sizeof tl->note, "no timeline (--timeline-mb 0)");
        return;
    }
    if (!tl->store) {
        tl->budget = a->opt.timeline_mb > 0 ? (size_t)(a->opt.timeline_mb * 1e6) : default_budget();
        tl->store = timeline_create(tl->budget);
        if (!tl->store) {
            snprintf(tl->note, sizeof tl->note, "no timeline: out of memory");
            return;
        }
        tl->source = timeline_source(tl->store);
    }
    char err[256];
    const long long spacing = a->ui.steps_per_frame > 0 ? a->ui.steps_per_frame : 1;
    if (timeline_start(tl->store, first, a->run.time_base, a->run.step_base, spacing, err, sizeof err) != 0) {
        snprintf(tl->note, sizeof tl->note, "no timeline: %.200s", err);
        app_say(a, "starburst: %s (--timeline-mb sets its memory)\n", tl->note);
        return;
    }
    tl->note[0] = '\0';
    if (tl->frame.n != first->n) {
        bodies_free(&tl->frame);
        if (bodies_alloc(&tl->frame, first->n) != 0) snprintf(tl->note, sizeof tl->note, "no timeline: out of memory");
    }
    if (!tl->note[0] && app_run_from_series(a) && series_count(a->run.series) > 1) add_series(a);
}

static bool timeline_on(const App *a) { return a->tl.store && timeline_count(a->tl.store) > 0 && !a->tl.note[0]; }

/* Keeps the state as it is now as a keyframe. On the CUDA backend only a host copy of this very
 * step is taken (force: one is read, for a request of the user's). */
static void keep_now(App *a, bool force)
{
    AppTimeline *tl = &a->tl;
    const long long step = app_run_step(a);
    const bool cuda = sim_backend(a->run.sim) == SIM_BACKEND_CUDA;
    const double t0 = clock_seconds();
    if (!cuda || force) {
        if (!a->host.valid || a->host.step != step) app_read_state(a);
    }
    if (!a->host.valid || a->host.step != step || a->host.bodies.n != timeline_bodies(tl->store)) return;
    TimelineAdded added;
    char err[256];
    if (timeline_add(tl->store, &a->host.bodies, a->host.time, step, &added, err, sizeof err) != 0) {
        snprintf(tl->note, sizeof tl->note, "timeline stopped: %.200s", err);
        app_notify(a, "The timeline stopped: %s", err);
        return;
    }
    tl->capture_ms = (clock_seconds() - t0) * 1e3;
    if (added.future_freed > 0)
        app_notify(a, "The %d %s set aside are gone: the timeline needed their room", added.future_freed,
                   plural(added.future_freed, "keyframe", "keyframes"));
    else if (added.thinned)
        app_notify(a, "Timeline full (%.0f MB): every other keyframe thinned out, one every %lld steps now",
                   timeline_budget(tl->store) / 1e6, timeline_spacing(tl->store));
}

/* After the advance: a keyframe where one is due, while the run goes on (not while a past one
 * is shown). */
void app_timeline_capture(App *a)
{
    if (!timeline_on(a) || a->tl.view >= 0 || sim_error(a->run.sim)) return;
    if (timeline_due(a->tl.store, app_run_step(a))) keep_now(a, false);
}

/* Shows keyframe i (clamped to the timeline): loaded into the simulation, the run paused there. */
static void show(App *a, int i)
{
    AppTimeline *tl = &a->tl;
    FrameSource *s = &tl->source;
    const int count = s->count(s->ctx);
    if (count == 0) return;
    i = i < 0 ? 0 : i >= count ? count - 1 : i;
    char err[256];
    const double t0 = clock_seconds();
    if (s->load(s->ctx, i, &tl->frame, err, sizeof err) != 0 || sim_load(a->run.sim, &tl->frame, err, sizeof err) != 0) {
        app_notify(a, "Keyframe %d not shown: %s", i + 1, err);
        return;
    }
    tl->load_ms = (clock_seconds() - t0) * 1e3;
    a->run.time_base = s->time(s->ctx, i);
    a->run.step_base = s->step(s->ctx, i);
    a->host.valid = false;
    a->ui.paused = true;
    a->msg.alarm[0] = '\0';
    a->run.diverged_pause = false;
    /* dE/E0 waits for its next measurement, on its own schedule: measured at once, the O(N^2) sum
     * would slow every step of a scrub. */
    a->ui.energy_valid = false;
    a->follow.next = 0;
    tl->view = i;
    tl->shown_at = clock_seconds();
}

/* The keyframe the view is on: the one shown, or (the run going) the last, which the run as it
 * stands now becomes first. */
static int here(App *a)
{
    if (a->tl.view >= 0) return a->tl.view;
    keep_now(a, true);
    return timeline_count(a->tl.store) - 1;
}

/* The requests of the slider and the keys, taken once a frame (app_take_requests). */
void app_timeline_requests(App *a)
{
    UiModel *u = &a->ui;
    AppTimeline *tl = &a->tl;
    AppKeyRequests *r = &a->req;
    const bool seek = u->timeline_seek, start = r->timeline_start, end = r->timeline_end;
    const bool play_back = r->timeline_play_back;
    const int step = r->timeline_step;
    u->timeline_seek = r->timeline_start = r->timeline_end = r->timeline_play_back = false;
    r->timeline_step = 0;
    if (tl->playing_back && !u->paused) tl->playing_back = false; /* space: the run resumes from here */
    if (!(seek || start || end || play_back || step || tl->playing_back)) return;
    if (!timeline_on(a)) {
        if (seek || start || end || play_back || step)
            app_notify(a, "No timeline: %s", tl->note[0] ? tl->note : "nothing kept yet");
        tl->playing_back = false;
        return;
    }
    if (!seek && (start || end || step || play_back)) tl->asked_at = clock_seconds();
    if (play_back) {
        tl->playing_back = !tl->playing_back;
        if (tl->playing_back) app_notify(a, "Playing backwards (shift+Left stops, space resumes from where it stands)");
        else app_notify(a, "Stopped playing backwards");
    }
    /* The slider's last keyframe, while the run went, stood for the run as it was: here() keeps
     * that as a keyframe of its own. */
    const int slider_last = timeline_count(tl->store) - 1;
    const int at = here(a), last = timeline_count(tl->store) - 1;
    if (seek) show(a, u->timeline_to >= slider_last ? last : u->timeline_to);
    else if (start) show(a, 0);
    else if (end) show(a, last);
    else if (step) {
        if (at + step < 0 || at + step > last)
            app_notify(a, "%s of the timeline", at + step < 0 ? "The start" : "The end");
        show(a, at + step);
    } else if (tl->playing_back) {
        if (at > 0) show(a, at - 1);
        if (at <= 1) {
            tl->playing_back = false;
            app_notify(a, "Played back to the start");
        }
    }
}

/* Before an advance that runs steps: a past keyframe shown becomes the start of a new future;
 * the frames after it are set aside for ctrl+Z. */
void app_timeline_resume(App *a)
{
    AppTimeline *tl = &a->tl;
    tl->playing_back = false;
    if (tl->view < 0 || !timeline_on(a)) {
        tl->view = -1;
        return;
    }
    /* The live run owns the timeline from here: the series' snapshots not yet read stay unread. */
    char unread[96] = "";
    if (tl->series_next > 0) {
        const int count = series_count(a->run.series);
        snprintf(unread, sizeof unread, "; the series' last %d of %d snapshots left unread", count - tl->series_read,
                 count);
        stop_reading(a);
    }
    const int cut = timeline_cut(tl->store, tl->view);
    tl->view = -1;
    if (cut == 0 && !unread[0]) return;
    tl->undo_depth = a->run.undo.count;
    char when[64], aside[96] = "";
    if (cut > 0)
        snprintf(aside, sizeof aside, "; the %d %s after it set aside (ctrl+Z brings them back)", cut,
                 plural(cut, "keyframe", "keyframes"));
    app_notify(a, "Resumed from %s: a new future%s%s", app_when(a, app_run_time(a), when, sizeof when), aside, unread);
    if (unread[0]) app_say(a, "starburst: %s\n", a->msg.notice);
}

/* ctrl+Z: brings back the future set aside by the last resume, where no change of the
 * parameters came after it; the view goes to its end, paused. False when it is not ctrl+Z's to
 * take. */
bool app_timeline_undo(App *a)
{
    AppTimeline *tl = &a->tl;
    if (!timeline_on(a) || timeline_future_count(tl->store) == 0 || a->run.undo.count != tl->undo_depth) return false;
    const int restored = timeline_restore(tl->store);
    show(a, timeline_count(tl->store) - 1);
    char when[64];
    app_notify(a, "Brought back the %d %s set aside: the run as it stood at %s (space runs on)", restored,
               plural(restored, "keyframe", "keyframes"), app_when(a, app_run_time(a), when, sizeof when));
    return true;
}

/* The run went back another way (an undo of the parameters): it runs on from there. */
void app_timeline_went_back(App *a)
{
    a->tl.view = -1;
    a->tl.playing_back = false;
}

/* Does the undo count include the future held? (the panel's Undo button) */
bool app_timeline_can_undo(const App *a)
{
    return timeline_on(a) && timeline_future_count(a->tl.store) > 0 && a->run.undo.count == a->tl.undo_depth;
}

/* The HUD's line and the slider's state: "t 312 Myr of 1.20 Gyr, keyframe 37/120, every 4 steps". */
void app_timeline_show(App *a)
{
    UiModel *u = &a->ui;
    AppTimeline *tl = &a->tl;
    snprintf(u->timeline_reading, sizeof u->timeline_reading, "%s", tl->reading);
    if (!timeline_on(a)) {
        u->timeline_count = 0;
        snprintf(u->timeline_text, sizeof u->timeline_text, "%.120s", tl->note);
        return;
    }
    const int count = timeline_count(tl->store);
    const double last = timeline_time(tl->store, count - 1), now = app_run_time(a);
    const Units *un = &a->run.info.units;
    char t[32], of[32];
    if (units_physical(un)) {
        units_format_time(un, now, t, sizeof t);
        units_format_time(un, last > now ? last : now, of, sizeof of);
    } else {
        snprintf(t, sizeof t, "%.3f", now);
        snprintf(of, sizeof of, "%.3f", last > now ? last : now);
    }
    u->timeline_count = count;
    u->timeline_view = tl->view;
    /* On the CUDA backend keyframes come with the checkpoint's copies, further apart than the
     * spacing asks: the line gives the mean gap. */
    long long every = timeline_spacing(tl->store);
    const bool sparse = sim_backend(a->run.sim) == SIM_BACKEND_CUDA && count > 1;
    if (sparse) every = (timeline_step(tl->store, count - 1) - timeline_step(tl->store, 0)) / (count - 1);
    if (every < 1) every = 1;
    const char *about = sparse ? "~" : "";
    if (tl->view >= 0)
        snprintf(u->timeline_text, sizeof u->timeline_text, "t %s of %s, keyframe %d/%d, every %s%lld %s", t, of,
                 tl->view + 1, count, about, every, plural(every, "step", "steps"));
    else
        snprintf(u->timeline_text, sizeof u->timeline_text, "t %s (running), %d %s, every %s%lld %s", t, count,
                 plural(count, "keyframe", "keyframes"), about, every, plural(every, "step", "steps"));
}

/* After the frame that shows a keyframe asked for is drawn: the time from the request to it. */
void app_timeline_shown(App *a)
{
    AppTimeline *tl = &a->tl;
    if (tl->asked_at > 0 && tl->shown_at >= tl->asked_at) {
        tl->scrub_ms = (clock_seconds() - tl->asked_at) * 1e3;
        tl->asked_at = 0;
    }
}

void app_timeline_free(App *a)
{
    timeline_destroy(a->tl.store);
    a->tl.store = NULL;
    bodies_free(&a->tl.frame);
}
