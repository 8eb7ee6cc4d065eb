/* The viewer over the run's timeline (src/run/run.h keeps it): the slider, Left / Right, ctrl+Left
 * and ctrl+Right, shift+Left playing backwards; the line over the slider; --open's series read a
 * snapshot a frame in a window, and played a snapshot a frame headless (--open-rate), so that
 * `--headless --open DIR --record out.mp4` renders a series to a video. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/viewer.h"
#include "util/clock.h"

/* After a keyframe was shown (by the view or an undo): the run paused there, dE/E0 waiting for
 * its next measurement (measured at once, the O(N^2) sum would slow every step of a scrub), the
 * camera's follow sampled again. */
void app_shown(App *a)
{
    a->ui.controls.paused = true;
    a->msg.alarm[0] = '\0';
    a->live.diverged_pause = false;
    a->ui.readout.energy_valid = false;
    a->follow.next = 0;
    a->tl.shown_at = clock_seconds();
}

void app_show_keyframe(App *a, int i)
{
    char err[256];
    if (run_show(a->run, i, err, sizeof err) != 0) {
        app_notify(a, "Keyframe %d not shown: %s", i + 1, err);
        return;
    }
    app_shown(a);
}

/* Headless --open plays its series: frame k shows snapshot k times --open-rate, each read as it is
 * reached. In a window the snapshots are read one a frame, the view staying where the user put
 * it. */
void app_timeline_read(App *a)
{
    if (!run_series(a->run)) return;
    if (!a->set.headless) {
        run_read_next(a->run);
        return;
    }
    if (a->tl.series_done || !a->ui.controls.paused) return; /* space was pressed: the run goes on live */
    const int count = series_count(run_series(a->run));
    const double rate = a->set.open_rate;
    int target = (int)floor(a->loop.frame * rate + 1e-9);
    if (target > count - 1) target = count - 1;
    while (run_series_read(a->run) <= target && run_read_next(a->run)) {
    }
    if (target > run_series_read(a->run) - 1) { /* the reading stopped: the last read stays */
        target = run_series_read(a->run) - 1;
        a->tl.series_done = true;
    }
    if (target != run_shown(a->run)) app_show_keyframe(a, target);
    if (target == count - 1) a->tl.series_done = true;
}

/* The requests of the slider and the keys, taken once a frame (app_take_requests). */
void app_timeline_requests(App *a)
{
    UiModel *u = &a->ui;
    AppTimeline *tl = &a->tl;
    AppKeyRequests *r = &a->req;
    const bool seek = u->actions.timeline_seek, start = r->timeline_start, end = r->timeline_end;
    const bool play_back = r->timeline_play_back;
    const int step = r->timeline_step;
    u->actions.timeline_seek = r->timeline_start = r->timeline_end = r->timeline_play_back = false;
    r->timeline_step = 0;
    if (tl->playing_back && !u->controls.paused) tl->playing_back = false; /* space: the run resumes from here */
    if (!(seek || start || end || play_back || step || tl->playing_back)) return;
    const Keyframes *k = run_keyframes(a->run);
    if (!k) {
        if (seek || start || end || play_back || step) {
            const char *note = run_timeline_note(a->run);
            app_notify(a, "No timeline: %s", note[0] ? note : "nothing kept yet");
        }
        tl->playing_back = false;
        return;
    }
    if (!seek && (start || end || step || play_back)) tl->asked_at = clock_seconds();
    if (play_back) {
        tl->playing_back = !tl->playing_back;
        if (tl->playing_back) app_notify(a, "Playing backwards (shift+Left stops, space resumes from where it stands)");
        else app_notify(a, "Stopped playing backwards");
    }
    /* The slider's last keyframe, while the run went, stood for the run as it was: run_here keeps
     * that as a keyframe of its own. */
    const int slider_last = keyframes_count(k) - 1;
    const int at = run_here(a->run), last = keyframes_count(k) - 1;
    if (seek) app_show_keyframe(a, u->actions.timeline_to >= slider_last ? last : u->actions.timeline_to);
    else if (start) app_show_keyframe(a, 0);
    else if (end) app_show_keyframe(a, last);
    else if (step) {
        if (at + step < 0 || at + step > last)
            app_notify(a, "%s of the timeline", at + step < 0 ? "The start" : "The end");
        app_show_keyframe(a, at + step);
    } else if (tl->playing_back) {
        if (at > 0) app_show_keyframe(a, at - 1);
        if (at <= 1) {
            tl->playing_back = false;
            app_notify(a, "Played back to the start");
        }
    }
}

/* The HUD's line and the slider's state: "t 312 Myr of 1.20 Gyr, keyframe 37/120, every 4 steps". */
void app_timeline_show(App *a)
{
    UiModel *u = &a->ui;
    snprintf(u->readout.timeline_reading, sizeof u->readout.timeline_reading, "%s", run_series_reading(a->run));
    const Keyframes *k = run_keyframes(a->run);
    if (!k) {
        u->readout.timeline_count = 0;
        snprintf(u->readout.timeline_text, sizeof u->readout.timeline_text, "No timeline: %.100s", run_timeline_note(a->run));
        return;
    }
    const int count = keyframes_count(k), view = run_shown(a->run);
    const double last = keyframes_time(k, count - 1), now = run_time(a->run);
    const Units *un = &run_info(a->run)->scene.units;
    char t[32], of[32];
    if (units_physical(un)) {
        units_format_time(un, now, t, sizeof t);
        units_format_time(un, last > now ? last : now, of, sizeof of);
    } else {
        snprintf(t, sizeof t, "%.3f", now);
        snprintf(of, sizeof of, "%.3f", last > now ? last : now);
    }
    u->readout.timeline_count = count;
    u->readout.timeline_view = view;
    char every[48];
    run_timeline_every(a->run, every, sizeof every);
    if (view >= 0)
        snprintf(u->readout.timeline_text, sizeof u->readout.timeline_text, "t %s of %s, keyframe %d/%d, %s", t, of,
                 view + 1, count, every);
    else
        snprintf(u->readout.timeline_text, sizeof u->readout.timeline_text, "t %s (%s), %d %s, %s", t,
                 u->controls.paused ? "paused" : "running", count,
                 plural(count, "keyframe", "keyframes"), every);
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
