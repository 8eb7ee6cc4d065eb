/* What leaves the frame as files: a recording (V, --record), a screenshot (P), and the last
 * frame's PNG (--screenshot). record.c writes the video or the numbered PNGs. */
#include <stdio.h>

#include "app/viewer.h"
#include "render/capture.h"

/* Starts a recording to path (a video file or a folder of PNGs), or to a new dated name. */
void app_start_recording(App *a, const char *path)
{
    char name[256], err[512];
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (!path) {
        if (recorder_new_path(name, sizeof name) != 0) {
            app_notify(a, "Recording: no free name in this folder");
            return;
        }
        path = name;
    }
    a->rec.recorder = recorder_open(&(RecorderDesc){.path = path, .width = w, .height = h}, err, sizeof err);
    if (!a->rec.recorder) {
        app_notify(a, "%s", err);
        fprintf(stderr, "starburst: %s\n", err);
        return;
    }
    app_notify(a, "Recording to %s (V stops)", path);
    app_say(a, "starburst: %s\n", a->msg.notice);
}

/* Finalises the recording: the file appears complete, or not at all. */
int app_stop_recording(App *a)
{
    char msg[600];
    int rc = recorder_close(a->rec.recorder, msg, sizeof msg);
    a->rec.recorder = NULL;
    app_notify(a, "%s", msg);
    if (rc != 0) fprintf(stderr, "starburst: %s\n", msg);
    else app_say(a, "starburst: %s\n", msg);
    return rc;
}

/* P: the frame as drawn (the panel only with --capture-ui) to a new dated PNG. */
static void app_screenshot(App *a)
{
    char name[256], err[512];
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (recorder_new_name(name, sizeof name, ".png") != 0) {
        app_notify(a, "Screenshot: no free name in this folder");
        return;
    }
    if (capture_png(name, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
        app_notify(a, "Screenshot not written: %s", err);
        return;
    }
    snprintf(a->rec.screenshot, sizeof a->rec.screenshot, "%s", name);
    app_notify(a, "Screenshot: %s", name);
    app_say(a, "starburst: %s\n", a->msg.notice);
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

/* The screenshot asked for, the recording's frame and, on the last frame, --screenshot. False
 * on a failure that ends the run. */
bool app_capture_frame(App *a, const FramePlan *f)
{
    char err[512];
    if (f->screenshot) app_screenshot(a);
    if (a->rec.recorder) {
        int w, h, rw, rh;
        render_context_size(a->ctx, &w, &h);
        recorder_size(a->rec.recorder, &rw, &rh);
        /* A window resized while it records: its frames are centred on the recording's size, said
         * once for each new size (a video keeps one size). */
        if ((w & ~1) != (rw & ~1) || (h & ~1) != (rh & ~1)) {
            if (w != a->rec.said_w || h != a->rec.said_h) {
                app_notify(a, "Recording stays %dx%d: the window's %dx%d frames are cropped or padded to it (V twice "
                              "starts a recording at the new size)",
                           rw, rh, w, h);
                app_say(a, "starburst: %s\n", a->msg.notice);
                a->rec.said_w = w;
                a->rec.said_h = h;
            }
        } else {
            a->rec.said_w = a->rec.said_h = 0;
        }
        /* The failure is said once, by app_stop_recording: here for V, at the finish for --record,
         * which ends the run. */
        if (recorder_capture(a->rec.recorder, render_context_framebuffer(a->ctx), w, h, err, sizeof err) != 0) {
            if (a->set.record_dir) return false;
            app_stop_recording(a);
        }
    }
    return !(a->set.screenshot && f->last_frame && app_capture(a, a->set.screenshot) != 0);
}
