/* Charts drawn off screen (the figures of `bench --sweep`): a headless GL context, a chart of
 * synthetic series written as PNG and read back. Skips where no headless context can be had.
 * With STARBURST_TEST_OUT set, the PNGs stay in that folder to be looked at. */
#include <GL/glew.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <stb_image.h>

#include "test_skip.h"

#include "app/ui_names.h"
#include "bench/chart.h"
#include "render/context.h"
#include "ui/ui.h"

/* Mesa's EGL driver keeps an allocation per display past its unloading, which LeakSanitizer
 * (sanitizer builds) reports from an unknown module: leak checks are off in this program,
 * AddressSanitizer's other checks stay on. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

#define W 1200
#define H 750
#define POINTS 11

static RenderContext *ctx;
static char dir[64];

static int setup(void **state)
{
    char err[512];
    ctx = render_context_create(&(RenderContextDesc){.headless = true, .width = 64, .height = 64}, err, sizeof err);
    if (!ctx) print_message("no headless GL context (%s): chart tests skip\n", err);
    const char *keep = getenv("STARBURST_TEST_OUT");
    if (keep) snprintf(dir, sizeof dir, "%s", keep);
    else if (!mkdtemp(strcpy(dir, "/tmp/starburst-chart-XXXXXX"))) return -1;
    return 0;
}

static int teardown(void **state)
{
    render_context_destroy(ctx);
    if (!getenv("STARBURST_TEST_OUT")) {
        char path[128];
        static const char *const names[] = {"chart.png", "gaps.png", "between.png"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    return 0;
}

static bool near_color(const uint8_t *p, const uint8_t c[3], int tolerance)
{
    return abs(p[0] - c[0]) + abs(p[1] - c[1]) + abs(p[2] - c[2]) <= tolerance;
}

static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Median of v[0..n) (sorts v). */
static int median(int *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

typedef struct Pixels {
    int count;
    int *x, *y;
} Pixels;

/* Every pixel of the image within `tolerance` of colour c. */
static Pixels find_color(const uint8_t *img, int w, int h, const uint8_t c[3], int tolerance)
{
    Pixels p = {0, malloc(sizeof(int) * (size_t)w * h), malloc(sizeof(int) * (size_t)w * h)};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (near_color(img + ((size_t)y * w + x) * 3, c, tolerance)) {
                p.x[p.count] = x;
                p.y[p.count++] = y;
            }
    return p;
}

static void x_extent(const Pixels *p, int *lo, int *hi)
{
    *lo = INT32_MAX;
    *hi = -1;
    for (int i = 0; i < p->count; i++) {
        *lo = p->x[i] < *lo ? p->x[i] : *lo;
        *hi = p->x[i] > *hi ? p->x[i] : *hi;
    }
}

static void free_pixels(Pixels *p)
{
    free(p->x);
    free(p->y);
}

/* A flat series and a rising one over N = 1024 .. 1M, as the sweep's first figure has them. */
static void chart_of_two_series(void **state)
{
    if (!ctx) test_skip();
    double n[POINTS], flat[POINTS], rising[POINTS];
    for (int i = 0; i < POINTS; i++) {
        n[i] = 1024.0 * (1 << i);
        flat[i] = 1e11;
        rising[i] = n[i] * 1e6;
    }
    Chart c = {
        .title = "Interactions/s against N",
        .subtitle = "synthetic data",
        .x = {"bodies (N)", CHART_LOG2},
        .y = {"interactions/s", CHART_LOG10},
        .series = {{"flat", n, flat, POINTS}, {"rising", n, rising, POINTS}},
        .series_count = 2,
        .reference = 3e12,
        .reference_label = "peak",
    };
    char path[128], err[512] = "";
    snprintf(path, sizeof path, "%s/chart.png", dir);
    GLint fbo_before = -1, fbo_after = -2;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo_before);
    int rc = chart_render_png(&c, path, W, H, err, sizeof err);
    if (rc != 0) print_message("%s\n", err);
    assert_int_equal(rc, 0);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo_after);
    assert_int_equal(fbo_before, fbo_after);

    int w, h, channels;
    uint8_t *img = stbi_load(path, &w, &h, &channels, 3);
    assert_non_null(img);
    assert_int_equal(w, W);
    assert_int_equal(h, H);

    /* White paper with a figure on it: neither blank nor flooded. */
    const uint8_t white[3] = {255, 255, 255};
    assert_true(near_color(img, white, 0));
    long inked = 0;
    for (long i = 0; i < (long)W * H; i++) inked += !near_color(img + i * 3, white, 12);
    assert_true(inked > (long)W * H / 50);
    assert_true(inked < (long)W * H / 2);

    /* A title: dark type in the top band. */
    long title = 0;
    for (int y = 0; y < H / 12; y++)
        for (int x = 0; x < W; x++) title += img[((size_t)y * W + x) * 3] < 100;
    assert_true(title > 200);

    uint8_t c0[3], c1[3];
    chart_color(0, c0);
    chart_color(1, c1);
    assert_false(near_color(c0, c1, 60));
    Pixels a = find_color(img, W, H, c0, 30), b = find_color(img, W, H, c1, 30);
    assert_true(a.count > 500);
    assert_true(b.count > 500);

    /* The flat series is one horizontal line: most of its pixels lie within a few rows of one
     * row, across most of the plot, with no break along it. */
    int *rows = malloc(sizeof(int) * (size_t)a.count);
    memcpy(rows, a.y, sizeof(int) * (size_t)a.count);
    const int row = median(rows, a.count);
    free(rows);
    int on_row = 0, x0 = W, x1 = 0;
    for (int i = 0; i < a.count; i++)
        if (abs(a.y[i] - row) <= 6) {
            on_row++;
            x0 = a.x[i] < x0 ? a.x[i] : x0;
            x1 = a.x[i] > x1 ? a.x[i] : x1;
        }
    assert_true(on_row > a.count * 6 / 10);
    assert_true(x1 - x0 > W / 2);
    int covered = 0;
    for (int x = x0; x <= x1; x++) {
        bool hit = false;
        for (int y = row - 3; y <= row + 3 && !hit; y++) {
            const uint8_t *p = img + ((size_t)y * W + x) * 3;
            hit = near_color(p, c0, 30) || near_color(p, c1, 30); /* the rising line crosses it */
        }
        covered += hit;
    }
    /* (Markers' white rings part them from the line by a pixel or two.) */
    assert_true(covered >= (x1 - x0 + 1) * 9 / 10);

    /* The rising series climbs to the right: up the image is smaller y. */
    int *left = malloc(sizeof(int) * (size_t)b.count), *right = malloc(sizeof(int) * (size_t)b.count);
    int nl = 0, nr = 0;
    for (int i = 0; i < b.count; i++) {
        if (b.x[i] < x0 + (x1 - x0) / 3) left[nl++] = b.y[i];
        if (b.x[i] > x1 - (x1 - x0) / 3) right[nr++] = b.y[i];
    }
    assert_true(nl > 50 && nr > 50);
    assert_true(median(left, nl) - median(right, nr) > H / 4);
    /* It crosses the flat line (1e11) at N = 1e5, between the middle of the plot (N = 32K) and
     * its last third (the rising line stays below 1e11 up to there). */
    int crossing = -1;
    for (int i = 0; i < b.count && crossing < 0; i++)
        if (abs(b.y[i] - row) <= 1 && b.x[i] > x0 + 20 && b.x[i] < x1 - 20) crossing = b.x[i];
    assert_true(crossing > x0 + (x1 - x0) / 2);
    assert_true(crossing < x1 - (x1 - x0) / 4);
    free(left);
    free(right);
    free_pixels(&a);
    free_pixels(&b);
    stbi_image_free(img);
}

/* Missing points leave gaps; a series of none draws no line. */
static void gaps_and_empty_series(void **state)
{
    if (!ctx) test_skip();
    double q[POINTS], y[POINTS], none[POINTS];
    for (int i = 0; i < POINTS; i++) {
        q[i] = 1 << i;
        y[i] = i >= 4 && i <= 6 ? NAN : 100.0 + i;
        none[i] = NAN;
    }
    Chart c = {
        .title = "gaps",
        .x = {"q", CHART_LOG2},
        .y = {"rate", CHART_LINEAR},
        .series = {{"gappy", q, y, POINTS}, {"empty", q, none, POINTS}},
        .series_count = 2,
    };
    char path[128], err[512] = "";
    snprintf(path, sizeof path, "%s/gaps.png", dir);
    assert_int_equal(chart_render_png(&c, path, 640, 400, err, sizeof err), 0);
    int w, h, n;
    uint8_t *img = stbi_load(path, &w, &h, &n, 3);
    assert_non_null(img);
    uint8_t c0[3], c1[3];
    chart_color(0, c0);
    chart_color(1, c1);
    Pixels a = find_color(img, w, h, c0, 30), b = find_color(img, w, h, c1, 30);
    /* The "empty" series shows in the legend only: a short sample, nothing across the plot. */
    int bx0, bx1, ax0, ax1;
    x_extent(&b, &bx0, &bx1);
    assert_true(b.count > 0);
    assert_true(bx1 - bx0 < w / 8);
    /* The gappy series: along its row (y = 100 .. 110, near the top of the linear axis) there
     * is a run of columns without it, wider than a marker. */
    x_extent(&a, &ax0, &ax1);
    bool *column = calloc((size_t)w, 1);
    for (int i = 0; i < a.count; i++)
        if (a.x[i] < bx0 - 4 || a.x[i] > bx1 + 4) column[a.x[i]] = true; /* not the legend */
    int longest = 0, run = 0;
    for (int x = ax0; x <= ax1; x++) {
        run = column[x] ? 0 : run + 1;
        longest = run > longest ? run : longest;
    }
    assert_true(longest > (ax1 - ax0) / 6);
    free(column);
    free_pixels(&a);
    free_pixels(&b);
    stbi_image_free(img);
}

static void bad_requests_say_why(void **state)
{
    if (!ctx) test_skip();
    double x[1] = {1}, y[1] = {1};
    Chart c = {.series = {{"one", x, y, 1}}, .series_count = 1};
    char err[512] = "";
    assert_int_equal(chart_render_png(&c, "/tmp/never.png", 10, 10, err, sizeof err), -1);
    assert_non_null(strstr(err, "10 x 10"));
    c.series[0].y = NULL;
    assert_int_equal(chart_render_png(&c, "/tmp/never.png", 640, 400, err, sizeof err), -1);
    assert_non_null(strstr(err, "one"));
    c.series[0].y = y;
    assert_int_equal(chart_render_png(&c, "/nonexistent-folder/chart.png", 640, 400, err, sizeof err), -1);
    assert_non_null(strstr(err, "nonexistent-folder"));
}

/* The app's own ImGui context (ui_create) is untouched by a chart drawn in between. */
static void app_ui_survives_a_chart(void **state)
{
    if (!ctx) test_skip();
    assert_true(ui_create(NULL, 1.0f));
    UiModel m = {.controls = {.visible = true, .dt = 0.01f, .softening = 0.05f, .damping = 1, .steps_per_frame = 1,
                              .point_size = 1, .exposure = 1, .preset = -1},
                 .readout = {.backend = "cpu", .bodies = 1024}};
    ui_names_fill(&m);
    glBindFramebuffer(GL_FRAMEBUFFER, render_context_framebuffer(ctx));
    glViewport(0, 0, 64, 64);
    ui_frame(&m);
    double x[2] = {1, 2}, y[2] = {1, 2};
    Chart c = {.title = "between frames", .series = {{"s", x, y, 2}}, .series_count = 1};
    char path[128], err[512] = "";
    snprintf(path, sizeof path, "%s/between.png", dir);
    assert_int_equal(chart_render_png(&c, path, 320, 200, err, sizeof err), 0);
    ui_frame(&m);
    ui_frame(&m);
    ui_destroy();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chart_of_two_series),
        cmocka_unit_test(gaps_and_empty_series),
        cmocka_unit_test(bad_requests_say_why),
        cmocka_unit_test(app_ui_survives_a_chart),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
