/* The parts of `starburst bench --sweep` that need no GPU: its options, where it writes, and
 * its charts through a headless context of their own (skipped where EGL cannot open one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <stb_image.h>

#include "test_skip.h"

#include "bench/bench.h"
#include "bench/bench_cli.h"
#include "bench/bench_tree.h"
#include "render/context.h"

/* Mesa's EGL driver keeps an allocation per display past its unloading, which LeakSanitizer
 * (sanitizer builds) reports from an unknown module: leak checks are off in this program,
 * AddressSanitizer's other checks stay on. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

static void paths_sit_beside_the_csv(void **state)
{
    char csv[256], png[256];
    assert_true(bench_sweep_paths("out/h100.csv", "n", csv, png, sizeof csv));
    assert_string_equal(csv, "out/h100-n.csv");
    assert_string_equal(png, "out/h100-n.png");
    assert_true(bench_sweep_paths("runs.v2/sweep", "block", csv, png, sizeof csv));
    assert_string_equal(csv, "runs.v2/sweep-block.csv");
    assert_string_equal(png, "runs.v2/sweep-block.png");
    assert_true(bench_sweep_paths(".hidden", "q", csv, png, sizeof csv));
    assert_string_equal(csv, ".hidden-q.csv");
    assert_true(bench_sweep_paths(NULL, "q", csv, png, sizeof csv));
    assert_string_equal(csv, "");
    assert_string_equal(png, "sweep-q.png");
    assert_false(bench_sweep_paths("a-rather-long-name.csv", "block", csv, png, 16));
}

static int parse(BenchCli *b, const char *line, char *err, size_t errlen)
{
    char copy[256], *argv[16];
    int argc = 0;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && argc < 16; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    return bench_parse_args(b, argc, argv, err, errlen);
}

static void sweep_option_times_kernels_only(void **state)
{
    BenchCli b;
    char err[256] = "";
    assert_int_equal(parse(&b, "bench --sweep --csv s.csv -n 1024,4096", err, sizeof err), 0);
    assert_true(b.kernels.sweep);
    assert_true(b.run_kernels);
    assert_false(b.run_loop);
    assert_int_equal(b.kernels.ns_count, 2);
    assert_int_equal(parse(&b, "bench --sweep --loop-only", err, sizeof err), -1);
    assert_non_null(strstr(err, "--loop-only"));
    assert_int_equal(parse(&b, "bench", err, sizeof err), 0);
    assert_false(b.kernels.sweep);
    assert_true(b.run_loop);
}

/* --draw: who draws in the loop's rows, a row each, as named; anything else refused in one line. */
static void draw_option_names_the_loops_drawers(void **state)
{
    BenchCli b;
    char err[256] = "";
    assert_int_equal(parse(&b, "bench --loop-only --draw gl,cuda", err, sizeof err), 0);
    assert_int_equal(b.loop.draws_count, 2);
    assert_int_equal(b.loop.draws[0], RENDER_DRAW_GL);
    assert_int_equal(b.loop.draws[1], RENDER_DRAW_CUDA);
    assert_int_equal(parse(&b, "bench --loop-only --draw cuda", err, sizeof err), 0);
    assert_int_equal(b.loop.draws_count, 1);
    assert_int_equal(b.loop.draws[0], RENDER_DRAW_CUDA);
    assert_int_equal(parse(&b, "bench --loop-only", err, sizeof err), 0);
    assert_int_equal(b.loop.draws_count, 0); /* the loop's own choice: GL, and CUDA on the CUDA backend */
    assert_int_equal(parse(&b, "bench --draw vulkan", err, sizeof err), -1);
    assert_string_equal(err, "bench: --draw: 'vulkan' is not a list of gl, cuda");
    assert_int_equal(parse(&b, "bench --draw gl,cuda,gl", err, sizeof err), -1);
    assert_non_null(strstr(err, "'gl,cuda,gl'"));
    assert_int_equal(parse(&b, "bench --draw", err, sizeof err), -1);
    assert_string_equal(err, "bench: --draw needs a value");
}

static void chart_through_its_own_context(void **state)
{
    char err[512];
    RenderContext *probe = render_context_create(&(RenderContextDesc){.headless = true}, err, sizeof err);
    if (!probe) {
        print_message("no headless GL context (%s): skipped\n", err);
        test_skip();
    }
    render_context_destroy(probe);

    char dir[] = "/tmp/starburst-sweep-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/sweep-block.png", dir);
    double block[6] = {32, 64, 128, 256, 512, 1024}, rate[6] = {4e11, 7e11, 9e11, 9.5e11, 9.2e11, 8e11};
    Chart c = {.title = "Threads per block",
               .x = {"threads per block", CHART_LOG2},
               .y = {"interactions/s", CHART_LINEAR},
               .series = {{"tiled", block, rate, 6}},
               .series_count = 1,
               .reference = 2e12,
               .reference_label = "peak"};
    int rc = bench_chart_png(&c, path, err, sizeof err);
    if (rc != 0) print_message("%s\n", err);
    assert_int_equal(rc, 0);
    int w, h, n;
    unsigned char *img = stbi_load(path, &w, &h, &n, 3);
    assert_non_null(img);
    assert_int_equal(w, BENCH_CHART_WIDTH);
    assert_int_equal(h, BENCH_CHART_HEIGHT);
    stbi_image_free(img);
    unlink(path);
    rmdir(dir);
}

/* bench --theta A,B --csv F: the front charted as F-front.png, each N a line of its angles' median
 * errors against their step times (here one N on the CPU tree). */
static void front_charted(void **state)
{
    char why[512];
    RenderContext *probe = render_context_create(&(RenderContextDesc){.headless = true}, why, sizeof why);
    if (!probe) {
        print_message("no headless GL context (%s): skipped\n", why);
        test_skip();
    }
    render_context_destroy(probe);
    char dir[] = "/tmp/starburst-front-XXXXXX", png[64];
    assert_non_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/front.png", dir);
    const int ns[] = {2048};
    const float thetas[] = {0.3f, 0.9f};
    FILE *out = tmpfile(), *progress = tmpfile();
    assert_non_null(out);
    assert_non_null(progress);
    const BenchTreeOptions o = {.ns = ns, .ns_count = 1, .backend = SIM_BACKEND_CPU, .samples = 100, .repeats = 3,
                                .thetas = thetas, .thetas_count = 2, .front_png = png, .out = out,
                                .progress = progress};
    assert_int_equal(bench_tree_run(&o), 0);
    int w, h, comp;
    unsigned char *img = stbi_load(png, &w, &h, &comp, 3);
    assert_non_null(img);
    assert_int_equal(w, BENCH_CHART_WIDTH);
    assert_int_equal(h, BENCH_CHART_HEIGHT);
    /* Its one line drawn in the first series' colour, and the goal's label. */
    uint8_t rgb[3];
    chart_color(0, rgb);
    long drawn = 0;
    for (long i = 0; i < (long)w * h; i++)
        drawn += abs(img[3 * i] - rgb[0]) + abs(img[3 * i + 1] - rgb[1]) + abs(img[3 * i + 2] - rgb[2]) < 30;
    print_message("the front charted in %s: %ld pixels of the series' colour\n", png, drawn);
    assert_true(drawn > 50);
    stbi_image_free(img);
    fseek(out, 0, SEEK_SET);
    char line[512];
    bool said = false;
    while (fgets(line, sizeof line, out)) said = said || strstr(line, "The front charted: ") != NULL;
    assert_true(said);
    fclose(out);
    fclose(progress);
    unlink(png);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_sit_beside_the_csv),
        cmocka_unit_test(sweep_option_times_kernels_only),
        cmocka_unit_test(draw_option_names_the_loops_drawers),
        cmocka_unit_test(chart_through_its_own_context),
        cmocka_unit_test(front_charted),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
