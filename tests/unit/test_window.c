/* A real window through the things users do to it: shrink it to one pixel, minimise it, switch
 * full screen on and off. Each draw leaves no GL error, a minimised window draws and records
 * nothing, and the next normal frame still shows the bodies. Skips without a display; run it
 * under xvfb-run. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/recorder.h"
#include "render/camera.h"
#include "render/capture.h"
#include "render/context.h"
#include "render/renderer.h"
#include "scene/scene.h"

enum { WIDTH = 320, HEIGHT = 180 };

typedef struct Window {
    RenderContext *ctx;
    Renderer *renderer;
    Camera camera;
    int n;
} Window;

static Window win;
static char skip_reason[512];

static int setup(void **state)
{
    const char *display = getenv("DISPLAY");
    if (!display || !*display) {
        snprintf(skip_reason, sizeof skip_reason, "no display (DISPLAY unset): run under xvfb-run");
        return 0;
    }
    char err[512] = "";
    win.ctx = render_context_create(&(RenderContextDesc){.width = WIDTH, .height = HEIGHT, .title = "test_window"},
                                    err, sizeof err);
    if (!win.ctx) {
        snprintf(skip_reason, sizeof skip_reason, "no window: %s", err);
        return 0;
    }
    Bodies b;
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 2000, .seed = 1}, &b, &info, err, sizeof err) != 0 ||
        !(win.renderer = renderer_create(&(RendererDesc){.max_bodies = b.n}, err, sizeof err))) {
        fprintf(stderr, "test_window: %s\n", err);
        return -1;
    }
    renderer_upload(win.renderer, b.pos, b.tag, b.n);
    win.n = b.n;
    camera_init(&win.camera, info.extent);
    bodies_free(&b);
    return 0;
}

static int teardown(void **state)
{
    renderer_destroy(win.renderer);
    render_context_destroy(win.ctx);
    return 0;
}

static GLFWwindow *window_or_skip(void)
{
    if (!win.ctx) {
        print_message("test_window: skipped: %s\n", skip_reason);
        test_skip();
    }
    return render_context_window(win.ctx);
}

/* Gives the X server time to apply a change: polls until the framebuffer is w x h (any size
 * when w < 0) or half a second has passed. */
static void settle(int w, int h)
{
    for (int i = 0; i < 50; i++) {
        render_context_poll(win.ctx);
        int cw, ch;
        render_context_size(win.ctx, &cw, &ch);
        if (w < 0 ? i >= 5 : cw == w && ch == h) return;
        usleep(10000);
    }
}

static void draw_at(int w, int h)
{
    RenderView v = {
        .n = win.n,
        .width = w,
        .height = h,
        .framebuffer = render_context_framebuffer(win.ctx),
        .point_size = 3,
    };
    v.focus_distance = win.camera.distance;
    camera_matrices(&win.camera, w > 0 && h > 0 ? (float)w / (float)h : 1.0f, v.view, v.proj);
    renderer_draw(win.renderer, &v);
}

/* Draws at the framebuffer's size as the app does (nothing while it is 0 x 0). */
static void draw(void)
{
    int w, h;
    render_context_size(win.ctx, &w, &h);
    draw_at(w, h);
}

static void assert_no_gl_error(const char *after)
{
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) fail_msg("GL error 0x%04x after %s", (unsigned)e, after);
}

/* Draws a frame, reads it back before the swap and checks that bodies show. */
static void assert_frame_shows_bodies(const char *after)
{
    int w, h;
    render_context_size(win.ctx, &w, &h);
    if (w <= 0 || h <= 0) fail_msg("framebuffer is %dx%d after %s", w, h, after);
    draw();
    uint8_t *rgb = malloc((size_t)w * h * 3);
    assert_non_null(rgb);
    capture_read(render_context_framebuffer(win.ctx), w, h, rgb);
    assert_no_gl_error(after);
    long lit = 0;
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (rgb[3 * i] > 24 || rgb[3 * i + 1] > 24 || rgb[3 * i + 2] > 24) lit++;
    free(rgb);
    if (lit < 20) fail_msg("a %dx%d frame after %s is black (%ld lit pixels)", w, h, after, lit);
    render_context_swap(win.ctx);
}

static void one_pixel_window(void **state)
{
    GLFWwindow *w = window_or_skip();
    assert_frame_shows_bodies("opening");
    glfwSetWindowSize(w, 1, 1);
    settle(1, 1);
    draw();
    assert_no_gl_error("drawing into a 1x1 window");
    render_context_swap(win.ctx);
    glfwSetWindowSize(w, WIDTH, HEIGHT);
    settle(WIDTH, HEIGHT);
    assert_frame_shows_bodies("growing back from 1x1");
}

static void minimised_window(void **state)
{
    GLFWwindow *w = window_or_skip();
    char dir[] = "/tmp/starburst-window-XXXXXX", err[512] = "";
    assert_non_null(mkdtemp(dir));
    char frames[64];
    snprintf(frames, sizeof frames, "%s/frames", dir);
    Recorder *rec = recorder_open(&(RecorderDesc){.path = frames, .width = WIDTH, .height = HEIGHT}, err, sizeof err);
    if (!rec) fail_msg("%s", err);

    glfwIconifyWindow(w);
    settle(-1, -1);
    draw();
    assert_no_gl_error("drawing while minimised");
    /* Without a window manager the window may keep its size: the 0 x 0 case is drawn anyway. */
    draw_at(0, 0);
    assert_no_gl_error("drawing at 0x0");
    assert_int_equal(capture_png(frames, render_context_framebuffer(win.ctx), 0, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "minimised"));
    assert_int_equal(recorder_capture(rec, render_context_framebuffer(win.ctx), 0, 0, err, sizeof err), 0);
    assert_int_equal(recorder_frames(rec), 0);
    render_context_swap(win.ctx);

    glfwRestoreWindow(w);
    settle(WIDTH, HEIGHT);
    assert_frame_shows_bodies("restoring");
    int fw, fh;
    render_context_size(win.ctx, &fw, &fh);
    draw();
    if (recorder_capture(rec, render_context_framebuffer(win.ctx), fw, fh, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(recorder_frames(rec), 1);
    render_context_swap(win.ctx);
    if (recorder_close(rec, err, sizeof err) != 0) fail_msg("%s", err);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void fullscreen_toggles(void **state)
{
    window_or_skip();
    GLFWmonitor *monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
    for (int i = 0; i < 10; i++) {
        char what[64];
        render_context_set_fullscreen(win.ctx, true);
        if (mode) {
            assert_true(render_context_fullscreen(win.ctx));
            settle(mode->width, mode->height);
            int w, h;
            render_context_size(win.ctx, &w, &h);
            assert_int_equal(w, mode->width);
            assert_int_equal(h, mode->height);
        }
        snprintf(what, sizeof what, "full screen on (%d)", i + 1);
        assert_frame_shows_bodies(what);
        render_context_set_fullscreen(win.ctx, false);
        assert_false(render_context_fullscreen(win.ctx));
        settle(WIDTH, HEIGHT);
        snprintf(what, sizeof what, "full screen off (%d)", i + 1);
        assert_frame_shows_bodies(what);
    }
    int w, h;
    render_context_size(win.ctx, &w, &h);
    assert_int_equal(w, WIDTH);
    assert_int_equal(h, HEIGHT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_pixel_window),
        cmocka_unit_test(minimised_window),
        cmocka_unit_test(fullscreen_toggles),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
