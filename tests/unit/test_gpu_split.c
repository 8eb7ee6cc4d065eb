/* The arithmetic of the work shared among GPUs (src/sim/gpu_split.c): every task of the symmetric
 * kernel taken once, in runs in order, the shares' pairs as equal as whole tasks allow; the
 * --gpus text; the count a run takes of those found; --gpus all's choice of the faster way. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/gpu_split.h"

/* The pairs of task t alone, counted directly from which part pair it is: off-diagonal tasks
 * come first, parts (parts - 1) / 2 of them, each a full square; the diagonal ones half. */
static double task_pairs(int parts, int t) { return t < parts * (parts - 1) / 2 ? 1.0 : 0.5; }

static void every_task_once_in_order(void **state)
{
    for (int parts = 1; parts <= 64; parts++)
        for (int gpus = 1; gpus <= GPU_SPLIT_MAX; gpus++) {
            int first[GPU_SPLIT_MAX], count[GPU_SPLIT_MAX];
            gpu_split_tasks(parts, gpus, first, count);
            const int tasks = parts * (parts + 1) / 2;
            int at = 0;
            for (int g = 0; g < gpus; g++) {
                assert_int_equal(first[g], at);
                assert_true(count[g] >= 0);
                at += count[g];
            }
            assert_int_equal(at, tasks);
        }
}

static void shares_as_equal_as_whole_tasks_allow(void **state)
{
    for (int parts = 1; parts <= 64; parts++)
        for (int gpus = 2; gpus <= GPU_SPLIT_MAX; gpus++) {
            int first[GPU_SPLIT_MAX], count[GPU_SPLIT_MAX];
            gpu_split_tasks(parts, gpus, first, count);
            double total = 0;
            for (int t = 0; t < parts * (parts + 1) / 2; t++) total += task_pairs(parts, t);
            for (int g = 0; g < gpus; g++) {
                double mine = 0;
                for (int t = first[g]; t < first[g] + count[g]; t++) mine += task_pairs(parts, t);
                assert_true(fabs(mine - gpu_split_weight(parts, first[g], count[g])) < 1e-9);
                /* Each end of a share is within half a task of its ideal place. */
                assert_true(fabs(mine - total / gpus) <= 1.0 + 1e-9);
            }
        }
}

static void more_gpus_than_tasks(void **state)
{
    int first[GPU_SPLIT_MAX], count[GPU_SPLIT_MAX];
    gpu_split_tasks(1, 4, first, count); /* one task, the diagonal of one part */
    int busy = 0;
    for (int g = 0; g < 4; g++) busy += count[g] > 0;
    assert_int_equal(busy, 1);
    assert_int_equal(count[0] + count[1] + count[2] + count[3], 1);
    gpu_split_tasks(3, 99, first, count); /* clamped to GPU_SPLIT_MAX */
    int sum = 0;
    for (int g = 0; g < GPU_SPLIT_MAX; g++) sum += count[g];
    assert_int_equal(sum, 6);
}

static void two_gpus_at_the_large_shape(void **state)
{
    /* 64 parts: 2,016 squares and 64 diagonals, 2,048 squares' pairs: 1,024 each. */
    int first[2], count[2];
    gpu_split_tasks(64, 2, first, count);
    assert_int_equal(first[0], 0);
    assert_int_equal(count[0], 1024);
    assert_int_equal(count[1], 2080 - 1024);
    assert_true(gpu_split_weight(64, first[1], count[1]) == 1024.0);
}

static void gpu_count_text(void **state)
{
    char err[200];
    int g = 0;
    assert_int_equal(gpu_count_parse("2", &g, err, sizeof err), 0);
    assert_int_equal(g, 2);
    assert_int_equal(gpu_count_parse("all", &g, err, sizeof err), 0);
    assert_int_equal(g, -1);
    const char *bad[] = {"0", "-1", "9", "2x", "", "two", "1e1", " 2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(gpu_count_parse(bad[i], &g, err, sizeof err), -1);
        assert_non_null(strstr(err, "--gpus"));
        assert_null(strchr(err, '\n'));
    }
}

static void gpu_count_of_those_found(void **state)
{
    assert_int_equal(gpu_count_resolve(-1, 2), 2);
    assert_int_equal(gpu_count_resolve(-1, 12), GPU_SPLIT_MAX);
    assert_int_equal(gpu_count_resolve(2, 1), 1);
    assert_int_equal(gpu_count_resolve(2, 4), 2);
    assert_int_equal(gpu_count_resolve(1, 0), 1);
    assert_int_equal(gpu_count_resolve(-1, 0), 1);
}

/* --gpus all's choice: the split first, then turn about; the first run of each not counted; the
 * faster median kept. */
static void the_faster_way_is_kept(void **state)
{
    for (int faster = 0; faster < 2; faster++) {
        GpuChoice c;
        gpu_choice_reset(&c);
        int runs = 0;
        while (c.decided < 0) {
            const bool split = gpu_choice_split(&c);
            assert_int_equal(split, runs % 2 == 0); /* split, alone, split, ... */
            /* The first of each is slow (it makes what it needs); then the faster way by 5 %. */
            const bool first = runs < 2;
            const double ms = first ? 100.0 : (split == (faster == 1) ? 9.5 : 10.0) + 0.01 * runs;
            const bool decided = gpu_choice_record(&c, split, ms);
            runs++;
            assert_int_equal(decided, c.decided >= 0);
            assert_true(runs <= 2 * (GPU_CHOICE_SAMPLES + 1));
        }
        assert_int_equal(runs, 2 * (GPU_CHOICE_SAMPLES + 1));
        assert_int_equal(c.decided, faster);
        assert_int_equal(gpu_choice_split(&c), faster == 1);
        const double a = gpu_choice_median(&c, false), b = gpu_choice_median(&c, true);
        assert_true(a > 9 && a < 11 && b > 9 && b < 11); /* the slow first runs left out */
        /* Decided: records change nothing. */
        assert_false(gpu_choice_record(&c, true, 1.0));
        assert_true(gpu_choice_median(&c, true) == b);
        gpu_choice_reset(&c);
        assert_int_equal(c.decided, -1);
        assert_true(gpu_choice_split(&c));
    }
}

static void a_time_that_is_not_one_is_not_counted(void **state)
{
    GpuChoice c;
    gpu_choice_reset(&c);
    assert_false(gpu_choice_record(&c, true, 0.0));
    assert_false(gpu_choice_record(&c, true, -1.0));
    assert_false(gpu_choice_record(&c, true, NAN));
    assert_true(gpu_choice_split(&c)); /* still the split's turn */
    assert_true(gpu_choice_median(&c, true) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_task_once_in_order),  cmocka_unit_test(shares_as_equal_as_whole_tasks_allow),
        cmocka_unit_test(more_gpus_than_tasks),      cmocka_unit_test(two_gpus_at_the_large_shape),
        cmocka_unit_test(gpu_count_text),            cmocka_unit_test(gpu_count_of_those_found),
        cmocka_unit_test(the_faster_way_is_kept),    cmocka_unit_test(a_time_that_is_not_one_is_not_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
