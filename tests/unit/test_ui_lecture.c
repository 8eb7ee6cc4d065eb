/* Lecture mode of the UI, drawn headless (ImGui without input, into an EGL framebuffer): larger
 * than the normal UI, the kernel ladder's active bar in its accent colour (the tree's too, the
 * last rung), and switching back gives the normal UI exactly as it was. Skips where no headless context can be had. With
 * STARBURST_TEST_OUT set, the frames stay in that folder as PNGs to be looked at. */
#include <GL/glew.h>

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/ui_names.h"
#include "render/capture.h"
#include "render/context.h"
#include "ui/ui.h"

/* Mesa's EGL driver keeps an allocation per display past its unloading, which LeakSanitizer
 * (sanitizer builds) reports from an unknown module: leak checks are off in this program,
 * AddressSanitizer's other checks stay on. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

#define W 1280
#define H 720

static RenderContext *ctx;

static int setup(void **state)
{
    char err[512];
    ctx = render_context_create(&(RenderContextDesc){.headless = true, .width = W, .height = H}, err, sizeof err);
    if (!ctx) print_message("no headless GL context (%s): lecture tests skip\n", err);
    return 0;
}

static int teardown(void **state)
{
    render_context_destroy(ctx);
    return 0;
}

/* A few frames (auto-sized windows settle in two), then the last one read back. */
static void draw(UiModel *m, uint8_t *rgb, const char *name)
{
    for (int i = 0; i < 3; i++) {
        glBindFramebuffer(GL_FRAMEBUFFER, render_context_framebuffer(ctx));
        glViewport(0, 0, W, H);
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        ui_frame(m);
    }
    capture_read(render_context_framebuffer(ctx), W, H, rgb);
    const char *dir = getenv("STARBURST_TEST_OUT");
    if (dir) {
        char path[512], err[512];
        snprintf(path, sizeof path, "%s/%s.png", dir, name);
        if (capture_write_png(path, W, H, rgb, err, sizeof err) != 0) print_message("%s\n", err);
    }
}

/* Rows of the top-left corner (where the HUD sits) holding any light: the HUD's height. */
static int hud_rows(const uint8_t *rgb)
{
    int rows = 0;
    for (int y = 0; y < H / 2; y++) {
        bool any = false;
        for (int x = 0; x < W / 4 && !any; x++) {
            const uint8_t *p = rgb + ((size_t)y * W + x) * 3;
            any = p[0] + p[1] + p[2] > 30;
        }
        rows += any;
    }
    return rows;
}

static long with_color(const uint8_t *rgb, int r, int g, int b)
{
    long n = 0;
    for (long i = 0; i < (long)W * H; i++)
        n += abs(rgb[3 * i] - r) + abs(rgb[3 * i + 1] - g) + abs(rgb[3 * i + 2] - b) < 12;
    return n;
}

static void lecture_mode_and_back(void **state)
{
    if (!ctx) test_skip();
    assert_true(ui_create(NULL, 1.0f));
    UiModel m = {
        .controls = {.dt = 0.01f, .softening = 0.05f, .damping = 1, .steps_per_frame = 4, .point_size = 1,
                     .exposure = 1, .kernel = SIM_KERNEL_MTPB, .preset = -1, .visible = true},
        .readout = {.cuda = true, .fps = 59.8, .steps_per_s = 103.6, .bodies = 131072, .backend = "cuda",
                    .device = "NVIDIA H100 80GB HBM3", .kernel_name = "mtpb", .shape_q = 4, .shape_block = 256,
                    .sim_time = 1.25, .energy_valid = true, .energy_error = 2.1e-6},
    };
    ui_names_fill(&m);
    m.readout.interactions_per_s = m.readout.steps_per_s * 131072.0 * 131072.0;
    m.readout.gflops = m.readout.interactions_per_s * 20e-9;
    m.readout.ladder_rate[SIM_KERNEL_NAIVE] = 3.6e10;
    m.readout.ladder_rate[SIM_KERNEL_REGISTERS] = 1.9e11;
    m.readout.ladder_rate[SIM_KERNEL_TILED] = 1.02e12;
    m.readout.ladder_rate[SIM_KERNEL_TILED_UNROLLED] = 1.38e12;
    m.readout.ladder_rate[SIM_KERNEL_MTPB] = 1.78e12;

    uint8_t *normal = malloc((size_t)W * H * 3), *lecture = malloc((size_t)W * H * 3),
            *again = malloc((size_t)W * H * 3);
    draw(&m, normal, "ui-normal");
    m.controls.lecture = true;
    draw(&m, lecture, "ui-lecture");
    m.controls.lecture = false;
    draw(&m, again, "ui-normal-again");

    /* Larger type: the HUD is more than twice as tall. */
    assert_true(hud_rows(lecture) > 2 * hud_rows(normal));
    /* The active kernel's bar, in the accent colour (255, 184, 64), is long: mtpb is the fastest. */
    assert_true(with_color(lecture, 255, 184, 64) > 2000);
    assert_int_equal(with_color(normal, 255, 184, 64), 0);
    /* Back to normal: the same picture as before. */
    assert_memory_equal(normal, again, (size_t)W * H * 3);
    /* Nothing the user did: no action raised. */
    assert_false(m.actions.apply_shape);
    assert_int_equal(m.controls.kernel, SIM_KERNEL_MTPB);

    free(normal);
    free(lecture);
    free(again);
    ui_destroy();
}

/* The lowest row of the picture (counted from the top) with a run of pixels of that colour; -1 when none. */
static int lowest_row_with_color(const uint8_t *rgb, int r, int g, int b)
{
    for (int y = H - 1; y >= 0; y--) {
        const uint8_t *row = rgb + (size_t)y * W * 3;
        int run = 0;
        for (int x = 0; x < W; x++) {
            const uint8_t *p = row + 3 * x;
            run = abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) < 12 ? run + 1 : 0;
            if (run >= 12) return y;
        }
    }
    return -1;
}

/* The tree, the ladder's last rung, running: its bar (N^2 over its step time, 19 times
 * symmetric's at a million bodies) is the longest and in the accent colour, with the line that says
 * what it evaluates under it. */
static void tree_rung_on_stage(void **state)
{
    if (!ctx) test_skip();
    assert_true(ui_create(NULL, 1.0f));
    UiModel m = {
        .controls = {.dt = 0.02f, .softening = 0.08f, .damping = 1, .steps_per_frame = 1, .point_size = 1,
                     .exposure = 1, .kernel = SIM_KERNEL_SYMMETRIC, .preset = -1, .visible = true, .lecture = true},
        .readout = {.cuda = true, .fps = 20, .steps_per_s = 20, .bodies = 1048576, .backend = "cuda",
                    .device = "NVIDIA H100 80GB HBM3", .kernel_name = "symmetric",
                    .method = "tree, theta 0.40: 3702 interactions a body (of 1048576)"},
    };
    ui_names_fill(&m);
    m.readout.interactions_per_s = m.readout.steps_per_s * 1048576.0 * 1048576.0;
    m.readout.gflops = m.readout.interactions_per_s * 20e-9;
    m.readout.ladder_rate[SIM_KERNEL_NAIVE] = 1.7e11;
    m.readout.ladder_rate[SIM_KERNEL_TILED_UNROLLED] = 1.98e12;
    m.readout.ladder_rate[SIM_KERNEL_MTPB] = 2.04e12;
    m.readout.ladder_rate[SIM_KERNEL_SYMMETRIC] = 2.76e12;
    m.readout.ladder_rate[UI_RUNG_TREE] = 1048576.0 * 1048576.0 / 20.9e-3;
    m.readout.ladder_tree_per_body = 3702;
    uint8_t *direct = malloc((size_t)W * H * 3), *tree = malloc((size_t)W * H * 3);
    draw(&m, direct, "ui-ladder-symmetric");
    m.readout.tree = true;
    draw(&m, tree, "ui-ladder-tree");
    /* The accent moves down a row, from symmetric's bar (5 % of the track) to the tree's (all of it). */
    const int was = lowest_row_with_color(direct, 255, 184, 64), now = lowest_row_with_color(tree, 255, 184, 64);
    print_message("accent pixels: symmetric running %ld down to row %d, tree running %ld down to row %d\n",
                  with_color(direct, 255, 184, 64), was, with_color(tree, 255, 184, 64), now);
    assert_true(now > was + 20);
    assert_true(with_color(tree, 255, 184, 64) > 5 * with_color(direct, 255, 184, 64));
    assert_int_equal(m.actions.ladder_force, 0);
    assert_true(m.readout.tree);
    free(direct);
    free(tree);
    ui_destroy();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lecture_mode_and_back),
        cmocka_unit_test(tree_rung_on_stage),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
