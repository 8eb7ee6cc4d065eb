/* libstarburst's pictures (starburst_render) through the C API: the state drawn headless, the
 * same state drawn the same way twice, the context remade for a new size, refusals with the run
 * left drawing. That the picture is pixel for pixel the program's --screenshot is checked by the
 * Python package's tests (python/tests/test_render.py), beside the program. Skipped where no EGL
 * device offers OpenGL 3.3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starburst.h"
#include "test_skip.h"

static StarburstRun *make(void)
{
    char err[512] = "";
    StarburstRun *r = NULL;
    const StarburstDesc d = {.scene = "collision", .n = 1024, .seed = 2, .backend = "cpu"};
    if (starburst_make(&d, &r, err, sizeof err) != STARBURST_OK) fail_msg("%s", err);
    return r;
}

/* Pixels brighter than 64 (of 255) in any channel. */
static int lit(const uint8_t *rgb, int w, int h)
{
    int count = 0;
    for (int i = 0; i < w * h; i++) count += rgb[3 * i] > 64 || rgb[3 * i + 1] > 64 || rgb[3 * i + 2] > 64;
    return count;
}

/* The picture's context could not be made here: skipped, with the line. */
static bool no_gl_here(StarburstRun *r, int rc)
{
    if (rc == STARBURST_ERR_RUN && strstr(starburst_error(r), "EGL")) {
        print_message("no headless GL here: %s\n", starburst_error(r));
        return true;
    }
    return false;
}

static void the_state_is_drawn_the_same_each_time(void **state)
{
    (void)state;
    StarburstRun *r = make();
    enum { W = 96, H = 64 };
    uint8_t *a = malloc(W * H * 3), *b = malloc(W * H * 3), *big = malloc(1280 * 720 * 3);
    assert_non_null(a), assert_non_null(b), assert_non_null(big);
    const StarburstView view = {.width = W, .height = H};
    const int rc = starburst_render(r, &view, a);
    if (no_gl_here(r, rc)) {
        free(a), free(b), free(big);
        starburst_destroy(r);
        test_skip();
    }
    assert_int_equal(rc, STARBURST_OK);
    assert_true(lit(a, W, H) > 20);
    assert_int_equal(starburst_render(r, &view, b), STARBURST_OK);
    assert_memory_equal(a, b, W * H * 3);
    /* Another size (the context made again), NULL: 1280 x 720, then the first size again. */
    assert_int_equal(starburst_render(r, NULL, big), STARBURST_OK);
    assert_true(lit(big, 1280, 720) > lit(a, W, H));
    assert_int_equal(starburst_render(r, &view, b), STARBURST_OK);
    assert_memory_equal(a, b, W * H * 3);
    /* The bodies moved, the picture moves; drawing does not step the run. */
    assert_int_equal(starburst_step(r), 0);
    assert_int_equal(starburst_advance(r, 40), STARBURST_OK);
    assert_int_equal(starburst_render(r, &view, b), STARBURST_OK);
    assert_memory_not_equal(a, b, W * H * 3);
    assert_int_equal(starburst_step(r), 40);
    free(a), free(b), free(big);
    starburst_destroy(r);
}

static void a_view_that_cannot_be_is_refused_and_the_run_draws_on(void **state)
{
    (void)state;
    StarburstRun *r = make();
    uint8_t rgb[32 * 32 * 3];
    const StarburstView good = {.width = 32, .height = 32};
    const int rc = starburst_render(r, &good, rgb);
    if (no_gl_here(r, rc)) {
        starburst_destroy(r);
        test_skip();
    }
    assert_int_equal(rc, STARBURST_OK);
    const struct {
        StarburstView view;
        const char *line;
    } bad[] = {
        {{.width = 0, .height = 32}, "--size: '0x32' is not a size like 1920x1080 (1 to 16384 each)"},
        {{.width = 32, .height = 20000}, "--size: '32x20000' is not a size like 1920x1080 (1 to 16384 each)"},
        {{.width = 32, .height = 32, .color = "plaid"}, "--color: 'plaid' is not a colour mode: component, speed"},
        {{.width = 32, .height = 32, .exposure = -1}, "--exposure: '-1' is too small"},
        {{.width = 32, .height = 32, .camera = STARBURST_CAMERA_DISTANCE, .distance = -2}, "camera: distance = -2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(starburst_render(r, &bad[i].view, rgb), STARBURST_ERR_VALUE);
        if (strncmp(starburst_error(r), bad[i].line, strlen(bad[i].line)) != 0)
            fail_msg("view %zu: '%s', not '%s...'", i, starburst_error(r), bad[i].line);
    }
    assert_int_equal(starburst_render(r, &good, NULL), STARBURST_ERR_VALUE);
    assert_int_equal(starburst_render(r, &good, rgb), STARBURST_OK);
    assert_string_equal(starburst_error(r), "");
    starburst_destroy(r);
}

/* How far the light reaches from the centre of a size x size picture, at least level t (of 255) in
 * a channel: the farthest such pixel within 10 degrees of the axes (axis) and of the diagonals
 * (diagonal), pixels. */
static void reach(const uint8_t *rgb, int size, int t, double *axis, double *diagonal)
{
    const double c = (size - 1) / 2.0, pi = acos(-1.0);
    *axis = *diagonal = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            const uint8_t *p = rgb + 3 * (y * size + x);
            if (p[0] < t && p[1] < t && p[2] < t) continue;
            const double dx = x - c, dy = y - c, r = hypot(dx, dy);
            /* The angle to the nearest axis, 0 to 45 degrees. */
            double a = fmod(atan2(fabs(dy), fabs(dx)), pi / 2);
            if (a > pi / 4) a = pi / 2 - a;
            if (a < pi / 18 && r > *axis) *axis = r;
            if (a > pi / 4 - pi / 18 && r > *diagonal) *diagonal = r;
        }
}

/* A star cluster far smaller than a pixel, drawn at the picture's centre: its glow is a disk, as a
 * telescope's or an eye's would be, the same reach along the picture's axes as along its
 * diagonals at every level down to the faintest the picture shows. A glow of square cells (cubic
 * B-splines of mip levels) reached 4 to 20 % farther along the diagonals here, the most at the
 * faintest levels: a square on the screen around the bright core of a dense galaxy. */
static void a_point_of_light_glows_round(void **state)
{
    (void)state;
    StarburstRun *r = make();
    const int n = starburst_count(r);
    float *pos = malloc((size_t)n * 3 * sizeof *pos);
    assert_non_null(pos);
    for (int i = 0; i < n; i++) {
        /* A ball of 1e-4 lengths (a pixel is about 0.03 here): every star on the centre pixel. */
        pos[3 * i + 0] = 1e-4f * (float)cos(i * 2.4);
        pos[3 * i + 1] = 1e-4f * (float)sin(i * 2.4);
        pos[3 * i + 2] = 1e-4f * (float)cos(i * 0.7);
    }
    assert_int_equal(starburst_write(r, pos, NULL, NULL), STARBURST_OK);
    /* The centre on a corner of every level's cells (512 / 2 a multiple of 16): the glow centred on it. */
    enum { SIZE = 512 };
    uint8_t *rgb = malloc(SIZE * SIZE * 3);
    assert_non_null(rgb);
    const StarburstView view = {.width = SIZE,
                                .height = SIZE,
                                .camera = STARBURST_CAMERA_YAW | STARBURST_CAMERA_PITCH | STARBURST_CAMERA_DISTANCE |
                                          STARBURST_CAMERA_TARGET,
                                .pitch = 90,
                                .distance = 20};
    const int rc = starburst_render(r, &view, rgb);
    if (no_gl_here(r, rc)) {
        free(pos), free(rgb);
        starburst_destroy(r);
        test_skip();
    }
    assert_int_equal(rc, STARBURST_OK);
    const int levels[] = {128, 64, 32, 16, 8, 4, 2};
    int out_of_round = 0;
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        double axis, diagonal;
        reach(rgb, SIZE, levels[k], &axis, &diagonal);
        print_message("level %3d: %.1f px along the axes, %.1f along the diagonals (%.3f)\n", levels[k], axis,
                      diagonal, diagonal / axis);
        assert_true(axis > 2);
        /* Inside the picture, so that its edge does not cut the reach. */
        assert_true(diagonal < SIZE / 2 - 4);
        /* Within a pixel and a half, or 4 %. */
        out_of_round += fabs(diagonal - axis) > fmax(1.5, 0.04 * axis);
    }
    if (out_of_round) fail_msg("%d of the levels reach farther one way than the other", out_of_round);
    free(pos), free(rgb);
    starburst_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_state_is_drawn_the_same_each_time),
        cmocka_unit_test(a_view_that_cannot_be_is_refused_and_the_run_draws_on),
        cmocka_unit_test(a_point_of_light_glows_round),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
