/* `starburst bench --force tree`: its options, the crossover it reads off the table, the body
 * counts it tries, and a whole run on the CPU backend at small N (its table and CSV). */
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

#include "bench_tree_rows.h"
#include "test_files.h"
#include "test_skip.h"

#include "bench/bench_cli.h"
#include "util/params.h"
#include "bench/bench_tree.h"

static int parse(BenchCli *b, const char *line, char *err, size_t errlen)
{
    char copy[512];
    char *argv[32];
    int argc = 0;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    static char storage[512]; /* the options keep pointers into argv */
    memcpy(storage, copy, sizeof storage);
    for (int i = 0; i < argc; i++) argv[i] = storage + (argv[i] - copy);
    err[0] = '\0';
    return bench_parse_args(b, argc, argv, err, errlen);
}

static void default_run_has_the_tree_between_kernels_and_loop(void **state)
{
    BenchCli b;
    char err[256];
    assert_int_equal(parse(&b, "bench", err, sizeof err), 0);
    assert_true(b.run_kernels && b.run_tree && b.run_loop);
    assert_null(b.tree.ns);
    assert_true(b.tree.theta == 0 && b.tree.samples == 0 && b.tree.backend == SIM_BACKEND_AUTO);

    assert_int_equal(parse(&b, "bench --force direct", err, sizeof err), 0);
    assert_true(b.run_kernels && !b.run_tree && b.run_loop);
    /* Kernels named, or the kernel table alone, or the loop alone: no tree. */
    assert_int_equal(parse(&b, "bench --kernel mtpb,symmetric", err, sizeof err), 0);
    assert_true(b.run_kernels && !b.run_tree && b.run_loop);
    assert_int_equal(parse(&b, "bench --kernels-only", err, sizeof err), 0);
    assert_true(b.run_kernels && !b.run_tree && !b.run_loop);
    assert_int_equal(parse(&b, "bench --loop-only", err, sizeof err), 0);
    assert_true(!b.run_kernels && !b.run_tree && b.run_loop);
    assert_int_equal(parse(&b, "bench --sweep", err, sizeof err), 0);
    assert_true(b.run_kernels && !b.run_tree && !b.run_loop);
}

/* The tree opens as the program opens it: by estimated error at its default alpha, by the angle
 * where --theta names one; both named is refused in one line. The loop takes the same. */
static void the_tree_opens_as_the_program_does(void **state)
{
    (void)state;
    BenchCli b;
    char err[256];
    assert_int_equal(parse(&b, "bench", err, sizeof err), 0);
    assert_true(b.tree.alpha == params_alpha(-1) && b.tree.alpha > 0 && b.loop.alpha == b.tree.alpha);
    assert_int_equal(parse(&b, "bench --force tree --theta 0.4,0.5,0.6", err, sizeof err), 0);
    assert_true(b.tree.alpha == 0 && b.loop.alpha == 0);
    assert_int_equal(parse(&b, "bench --force tree --alpha 0.001", err, sizeof err), 0);
    assert_true(b.tree.alpha == 0.001f);
    assert_int_equal(parse(&b, "bench --force tree --theta 0.5 --alpha 0", err, sizeof err), 0);
    assert_true(b.tree.alpha == 0 && b.tree.theta == 0.5f);
    assert_int_equal(parse(&b, "bench --force tree --theta 0.5 --alpha 0.001", err, sizeof err), -1);
    assert_non_null(strstr(err, "--theta"));
    assert_non_null(strstr(err, "--alpha"));
    assert_null(strchr(err, '\n'));
    /* The fmm takes both: theta its far angle, alpha its near cells. */
    assert_int_equal(parse(&b, "bench --force fmm --theta 0.5 --alpha 0.001", err, sizeof err), 0);
    assert_true(b.tree.alpha == 0.001f && b.tree.theta == 0.5f && b.tree.force == SIM_FORCE_FMM);
}

/* --gpus: a row a GPU count, the direct sum (or the tree) alone, with -n and --repeats. */
static void gpus_give_their_own_table(void **state)
{
    BenchCli b;
    char err[256];
    assert_int_equal(parse(&b, "bench --gpus 1,2", err, sizeof err), 0);
    assert_true(b.run_gpus && !b.run_kernels && !b.run_tree && !b.run_loop);
    assert_int_equal(b.gpus.counts_count, 2);
    assert_int_equal(b.gpus.counts[0], 1);
    assert_int_equal(b.gpus.counts[1], 2);
    assert_int_equal(b.gpus.force, SIM_FORCE_DIRECT);
    assert_null(b.gpus.ns);
    assert_int_equal(parse(&b, "bench --gpus 1,all --force tree -n 1048576 --repeats 3", err, sizeof err), 0);
    assert_int_equal(b.gpus.force, SIM_FORCE_TREE);
    assert_int_equal(b.gpus.counts[1], -1);
    assert_int_equal(b.gpus.ns_count, 1);
    assert_int_equal(b.gpus.ns[0], 1048576);
    assert_int_equal(b.gpus.repeats, 3);
    static const char *const bad[] = {"bench --gpus", "bench --gpus 0", "bench --gpus 9", "bench --gpus 1,x",
                                      "bench --gpus ,", "bench --gpus 1,2,3,4,5", "bench --gpus 1,2 --force fmm",
                                      "bench --gpus 1,2 --sweep", "bench --gpus 1,2 --loop-only"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&b, bad[i], err, sizeof err), -1);
        print_message("%-30s -> %s\n", bad[i], err);
        assert_true(err[0] != '\0' && strchr(err, '\n') == NULL);
    }
}

static void force_tree_runs_the_tree_alone(void **state)
{
    BenchCli b;
    char err[256];
    assert_int_equal(parse(&b, "bench --force tree", err, sizeof err), 0);
    assert_true(!b.run_kernels && b.run_tree && !b.run_loop);
    assert_null(b.tree.ns);

    assert_int_equal(parse(&b, "bench --force tree -n 65536,1048576 --theta 0.5 --samples 300 --repeats 4 "
                               "--backend cpu --csv out.csv",
                           err, sizeof err),
                     0);
    assert_true(!b.run_kernels && b.run_tree && !b.run_loop);
    assert_int_equal(b.tree.ns_count, 2);
    assert_int_equal(b.tree.ns[0], 65536);
    assert_int_equal(b.tree.ns[1], 1048576);
    assert_true(b.tree.theta == 0.5f);
    assert_int_equal(b.tree.samples, 300);
    assert_int_equal(b.tree.repeats, 4);
    assert_int_equal(b.tree.backend, SIM_BACKEND_CPU);
    assert_string_equal(b.csv_path, "out.csv");

    /* -n names the body counts of every table that runs. */
    assert_int_equal(parse(&b, "bench -n 4096,8192", err, sizeof err), 0);
    assert_int_equal(b.kernels.ns_count, 2);
    assert_int_equal(b.tree.ns_count, 2);
    assert_int_equal(b.tree.ns[1], 8192);
}

static void bad_tree_options_are_refused_in_one_line(void **state)
{
    static const char *const bad[] = {
        "bench --force quadtree",  "bench --force",           "bench --theta 0",
        "bench --theta 2",         "bench --theta x",         "bench --theta 0.4x",
        "bench --samples 0",       "bench --samples many",    "bench --force tree --sweep",
        "bench --theta 0.4,0.5,2", "bench --theta 0.3,0.4,0.5,0.6,0.7", "bench --theta ,",
        "bench --force tree --kernel mtpb", "bench --kernels-only --force tree",
        "bench --backend cuda --force fmm", "bench --force fmm --backend cuda --loop-only",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        BenchCli b;
        char err[256];
        assert_int_equal(parse(&b, bad[i], err, sizeof err), -1);
        print_message("%-36s -> %s\n", bad[i], err);
        assert_true(err[0] != '\0' && strchr(err, '\n') == NULL);
    }
}

/* --loop-only with --force: the whole loop alone, with that method and theta, in either order. */
static void loop_only_takes_the_force(void **state)
{
    static const char *const lines[] = {"bench --loop-only --force fmm --theta 0.5",
                                        "bench --theta 0.5 --force fmm --loop-only"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        BenchCli b;
        char err[256] = "";
        assert_int_equal(parse(&b, lines[i], err, sizeof err), 0);
        assert_true(b.run_loop && !b.run_tree && !b.run_kernels);
        assert_int_equal(b.loop.force, SIM_FORCE_FMM);
        assert_true(b.loop.theta == 0.5f);
        /* The fmm is the CPU backend's alone: asked for, the CPU runs it. */
        assert_int_equal(b.loop.backend, SIM_BACKEND_CPU);
    }
    BenchCli b;
    char err[256] = "";
    assert_int_equal(parse(&b, "bench --loop-only --force tree", err, sizeof err), 0);
    assert_int_equal(b.loop.force, SIM_FORCE_TREE);
    assert_int_equal(parse(&b, "bench --loop-only", err, sizeof err), 0);
    assert_int_equal(b.loop.force, SIM_FORCE_AUTO);
}

/* Several angles: a table each, the direct sum timed once and shown in each, then the front: at
 * each N every angle's step and errors, and the fastest angle that meets the goal. The errors grow
 * with the angle. */
static void angles_give_a_table_each_and_the_front(void **state)
{
    BenchCli cli;
    char err[256] = "";
    assert_int_equal(parse(&cli, "bench --force tree --theta 0.3,0.9 -n 2048", err, sizeof err), 0);
    assert_int_equal(cli.tree.thetas_count, 2);
    assert_true(cli.tree.thetas[0] == 0.3f && cli.tree.thetas[1] == 0.9f);
    assert_int_equal(parse(&cli, "bench --force tree --theta 0.5", err, sizeof err), 0);
    assert_int_equal(cli.tree.thetas_count, 0);
    assert_true(cli.tree.theta == 0.5f);

    const int ns[] = {2048};
    const float thetas[] = {0.3f, 0.9f};
    FILE *out = tmpfile(), *progress = tmpfile();
    assert_non_null(out);
    assert_non_null(progress);
    const BenchTreeOptions o = {.ns = ns, .ns_count = 1, .backend = SIM_BACKEND_CPU, .samples = 100, .repeats = 3,
                                .thetas = thetas, .thetas_count = 2, .out = out, .progress = progress};
    assert_int_equal(bench_tree_run(&o), 0);
    char *table = written_to(out), *lines = written_to(progress);
    print_message("%s", table);
    const char *first = strstr(table, "theta 0.30)"), *second = strstr(table, "theta 0.90)");
    assert_true(first && second && first < second);
    const char *front = strstr(table, "Accuracy front");
    assert_true(front && front > second);
    double ms[2], med[2], p99[2];
    const char *at = strstr(front, "theta 0.30: ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "theta 0.30: %lf ms, %le / %le", &ms[0], &med[0], &p99[0]), 3);
    at = strstr(front, "theta 0.90: ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "theta 0.90: %lf ms, %le / %le", &ms[1], &med[1], &p99[1]), 3);
    assert_true(med[0] < med[1] && p99[0] < p99[1]);
    assert_true(ms[0] > 0 && ms[1] > 0);
    /* The verdict follows the figures printed. */
    const bool meets0 = med[0] <= BENCH_TREE_GOAL_MEDIAN && p99[0] <= BENCH_TREE_GOAL_P99;
    const bool meets1 = med[1] <= BENCH_TREE_GOAL_MEDIAN && p99[1] <= BENCH_TREE_GOAL_P99;
    const char *want = meets1 && (!meets0 || ms[1] < ms[0]) ? "fastest that meets: theta 0.90"
                       : meets0                            ? "fastest that meets: theta 0.30"
                                                           : "none meets";
    assert_non_null(strstr(front, want));
    /* The direct sum once: five cells (two trees, two checks, one direct). */
    assert_non_null(strstr(lines, "/5 "));
    assert_null(strstr(lines, "/6 "));
    free(table);
    free(lines);
    fclose(out);
    fclose(progress);
}

static BenchTreeRow row(int n, double tree_ms, double direct_ms)
{
    return (BenchTreeRow){.n = n, .step_ms = tree_ms, .direct_ms = direct_ms};
}

static void crossover_is_where_the_tree_stays_faster(void **state)
{
    const BenchTreeRow plain[] = {row(16384, 2.0, 0.2), row(32768, 2.5, 0.7), row(65536, 3.0, 1.6),
                                  row(131072, 4.0, 6.3), row(262144, 6.0, 25.0)};
    assert_int_equal(bench_tree_crossover(plain, 5), 131072);
    /* A tie goes to the direct sum, the exact one. */
    const BenchTreeRow tie[] = {row(65536, 1.6, 1.6), row(131072, 4.0, 6.3)};
    assert_int_equal(bench_tree_crossover(tie, 2), 131072);
    /* A win below a loss does not count: the tree must stay the faster above the crossover. */
    const BenchTreeRow noisy[] = {row(16384, 0.1, 0.2), row(32768, 0.9, 0.7), row(65536, 1.0, 1.6),
                                  row(131072, 4.0, 6.3)};
    assert_int_equal(bench_tree_crossover(noisy, 4), 65536);
    /* Rows without both times are passed over. */
    const BenchTreeRow gaps[] = {row(32768, 0.9, 0.7), row(65536, 1.0, 1.6), row(1048576, 21.0, 0),
                                 row(8388608, 0, 0)};
    assert_int_equal(bench_tree_crossover(gaps, 4), 65536);
    /* The tree faster from the first N: the crossover is the first N, and it lies lower. */
    assert_int_equal(bench_tree_crossover(plain + 3, 2), 131072);
    /* The direct sum faster at the largest N timed, or nothing timed: none. */
    assert_int_equal(bench_tree_crossover(plain, 2), 0);
    assert_int_equal(bench_tree_crossover(gaps + 2, 2), 0);
    assert_int_equal(bench_tree_crossover(plain, 0), 0);
}

static void default_counts_per_backend(void **state)
{
    int ns[BENCH_TREE_MAX_NS];
    const int cpu[] = {16384, 32768, 65536, 131072, 262144};
    assert_int_equal(bench_tree_default_ns(SIM_BACKEND_CPU, ns), 5);
    assert_memory_equal(ns, cpu, sizeof cpu);
    const int gpu[] = {16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 8388608};
    assert_int_equal(bench_tree_default_ns(SIM_BACKEND_CUDA, ns), 8);
    assert_memory_equal(ns, gpu, sizeof gpu);
}

/* A whole run on the CPU backend at small N, the counts out of order and one twice: a row per N,
 * smallest first, the tree's error small, and a CSV that says the same. */
static void cpu_run_prints_a_row_per_n(void **state)
{
    const int ns[] = {4096, 2048, 4096};
    char dir[] = "/tmp/bench-tree-XXXXXX", csv[64];
    assert_non_null(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/tree.csv", dir);
    FILE *out = tmpfile(), *progress = tmpfile();
    assert_non_null(out);
    assert_non_null(progress);
    const BenchTreeOptions o = {.ns = ns, .ns_count = 3, .backend = SIM_BACKEND_CPU, .samples = 100, .repeats = 3,
                                .csv_path = csv, .out = out, .progress = progress};
    assert_int_equal(bench_tree_run(&o), 0);
    char *table = written_to(out), *lines = written_to(progress);
    print_message("%s", table);
    assert_non_null(strstr(table, "theta 0.40"));
    const char *a = strstr(table, "\n    2,048 "), *b = strstr(table, "\n    4,096 ");
    assert_true(a && b && a < b);
    assert_null(strstr(b + 1, "\n    4,096 "));
    assert_non_null(strstr(table, "Crossover: "));
    assert_non_null(strstr(table, "SIM_TREE_MIN_BODIES_CPU (src/sim/sim.h) is 16,384."));
    assert_non_null(strstr(lines, "bench: 6/6  direct N=4096"));

    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(strncmp(line, "n,build_ms,walk_ms,step_ms,", 27), 0);
    for (int i = 0; i < 2; i++) {
        const TreeRow r = next_tree_row(f);
        assert_int_equal(r.n, i == 0 ? 2048 : 4096);
        assert_true(r.build > 0 && r.walk > 0 && r.step >= r.walk && r.bb > 0 && r.bc >= 0 && r.bb + r.bc < r.n);
        assert_true(r.direct > 0 && fabs(r.speedup - r.direct / r.step) < 1e-3 * r.speedup + 1e-4);
        assert_int_equal(r.samples, 100);
        assert_true(r.med > 0 && r.med <= r.p99 && r.p99 <= r.worst && r.p99 < 1e-3);
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    free(table);
    free(lines);
    fclose(out);
    fclose(progress);
    unlink(csv);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_run_has_the_tree_between_kernels_and_loop),
        cmocka_unit_test(force_tree_runs_the_tree_alone),
        cmocka_unit_test(the_tree_opens_as_the_program_does),
        cmocka_unit_test(gpus_give_their_own_table),
        cmocka_unit_test(bad_tree_options_are_refused_in_one_line),
        cmocka_unit_test(loop_only_takes_the_force),
        cmocka_unit_test(crossover_is_where_the_tree_stays_faster),
        cmocka_unit_test(default_counts_per_backend),
        cmocka_unit_test(cpu_run_prints_a_row_per_n),
        cmocka_unit_test(angles_give_a_table_each_and_the_front),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
