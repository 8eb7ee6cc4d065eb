/* The ladder tour against a stand-in backend whose rungs (the direct kernels, then the tree) run at
 * given rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/ladder_tour.h"

typedef struct Backend {
    double rate[UI_RUNGS]; /* interactions/s of each rung (the tree's N^2-equivalent); 0 = not timed */
    bool refuses[UI_RUNGS];
    int running;
    int advances[UI_RUNGS];
    int order[64]; /* rungs in the order they first ran */
    int order_count;
} Backend;

/* The app's side: switch to what the tour asks for (where the backend takes it), advance, report. */
static int run_tour(Backend *b, LadderTour *t, int current, double interactions, double rates[], double max_seconds)
{
    b->running = current;
    int want = ladder_tour_start(t, current);
    for (int frame = 0; frame < 200 && t->active; frame++) {
        if (!b->refuses[want]) b->running = want;
        if (b->order_count == 0 || b->order[b->order_count - 1] != b->running) b->order[b->order_count++] = b->running;
        b->advances[b->running]++;
        /* An advance that takes over 2 s would freeze the window: the tour must never ask for one. */
        if (b->rate[b->running] > 0) assert_true(interactions / b->rate[b->running] < 2.0);
        want = ladder_tour_after_advance(t, b->running, interactions, b->rate[b->running], rates, max_seconds);
    }
    assert_false(t->active);
    return want;
}

/* H200 rates at 16K bodies (starburst bench); the tree's a stand-in. */
static void h200_16k(Backend *b)
{
    memset(b, 0, sizeof *b);
    b->rate[UI_RUNG_TREE] = 1.5e11;
    b->rate[SIM_KERNEL_NAIVE] = 7.8e10;
    b->rate[SIM_KERNEL_REGISTERS] = 9.5e10;
    b->rate[SIM_KERNEL_TILED] = 1.6e11;
    b->rate[SIM_KERNEL_TILED_UNROLLED] = 7.4e11;
    b->rate[SIM_KERNEL_MTPB] = 1.7e12;
    b->rate[SIM_KERNEL_SYMMETRIC] = 2.4e12;
}

static void every_rung_is_timed_top_down_and_the_kernel_restored(void **state)
{
    Backend b;
    h200_16k(&b);
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, SIM_KERNEL_MTPB, 16384.0 * 16384 * 4, rates, 1.0);
    assert_int_equal(end, SIM_KERNEL_MTPB);
    /* The tree first, then the kernels from the top. */
    assert_int_equal(b.order_count, UI_RUNGS - 1);
    assert_int_equal(b.order[0], UI_RUNG_TREE);
    for (int i = 0; i < b.order_count; i++) assert_int_equal(b.order[i], UI_RUNGS - 1 - i);
    for (int k = SIM_KERNEL_NAIVE; k < UI_RUNGS; k++) {
        assert_true(rates[k] == b.rate[k]);
        assert_int_equal(b.advances[k], LADDER_TOUR_ADVANCES);
    }
}

/* At a million bodies the slow rungs would take seconds an advance: the tour stops above them. */
static void slow_rungs_are_left_out_at_large_n(void **state)
{
    Backend b;
    h200_16k(&b);
    b.rate[SIM_KERNEL_NAIVE] = 1.7e11;
    b.rate[SIM_KERNEL_REGISTERS] = 7.9e11;
    b.rate[SIM_KERNEL_TILED] = 8.2e11;
    b.rate[SIM_KERNEL_TILED_UNROLLED] = 2.0e12;
    b.rate[SIM_KERNEL_MTPB] = 2.0e12;
    b.rate[SIM_KERNEL_SYMMETRIC] = 2.8e12;
    b.rate[UI_RUNG_TREE] = 1048576.0 * 1048576 / 21e-3;
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, SIM_KERNEL_SYMMETRIC, 1048576.0 * 1048576 * 1, rates, 1.0);
    assert_int_equal(end, SIM_KERNEL_SYMMETRIC);
    assert_true(rates[UI_RUNG_TREE] == b.rate[UI_RUNG_TREE]);
    assert_true(rates[SIM_KERNEL_SYMMETRIC] == 2.8e12);
    assert_int_equal(b.advances[SIM_KERNEL_NAIVE], 0);
    assert_int_equal(b.advances[SIM_KERNEL_REGISTERS], 0);
    assert_true(rates[SIM_KERNEL_NAIVE] == 0);
}

/* A rung the backend refuses is passed over; the rest are still timed. */
static void a_refused_rung_is_passed_over(void **state)
{
    Backend b;
    h200_16k(&b);
    b.refuses[SIM_KERNEL_TILED] = true;
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, SIM_KERNEL_SYMMETRIC, 16384.0 * 16384 * 4, rates, 1.0);
    assert_int_equal(end, SIM_KERNEL_SYMMETRIC);
    assert_true(rates[SIM_KERNEL_TILED] == 0);
    assert_true(rates[SIM_KERNEL_REGISTERS] == b.rate[SIM_KERNEL_REGISTERS]);
    assert_true(rates[SIM_KERNEL_NAIVE] == b.rate[SIM_KERNEL_NAIVE]);
}

/* Without the GPU's clock nothing is timed, and the tour still ends. */
static void without_a_clock_the_tour_ends(void **state)
{
    Backend b;
    memset(&b, 0, sizeof b);
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, SIM_KERNEL_TILED, 1e6, rates, 1.0);
    assert_int_equal(end, SIM_KERNEL_TILED);
    for (int k = 0; k < UI_RUNGS; k++) assert_true(rates[k] == 0);
}

/* The tree's rate (N^2 over its step) says nothing of the direct kernels': at 2M bodies it would
 * promise symmetric a quarter second, where it takes 1.6 s. The tour times the tree, leaves every
 * direct rung out, and goes back to the tree it came from. */
static void the_tree_does_not_vouch_for_the_direct_kernels(void **state)
{
    Backend b;
    h200_16k(&b);
    b.rate[SIM_KERNEL_SYMMETRIC] = 2.8e12;
    const double n = 2097152.0;
    b.rate[UI_RUNG_TREE] = n * n / 45e-3;
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, UI_RUNG_TREE, n * n, rates, 1.0);
    assert_int_equal(end, UI_RUNG_TREE);
    assert_true(rates[UI_RUNG_TREE] == b.rate[UI_RUNG_TREE]);
    for (int k = SIM_KERNEL_NAIVE; k < UI_RUNG_TREE; k++) assert_int_equal(b.advances[k], 0);
    /* At 8M likewise; at 1M symmetric is timed (0.4 s), from the tree's rung. */
    memset(rates, 0, sizeof rates);
    h200_16k(&b);
    b.rate[SIM_KERNEL_SYMMETRIC] = 2.8e12;
    b.rate[UI_RUNG_TREE] = 8388608.0 * 8388608 / 0.13;
    end = run_tour(&b, &t, UI_RUNG_TREE, 8388608.0 * 8388608, rates, 1.0);
    assert_int_equal(b.advances[SIM_KERNEL_SYMMETRIC], 0);
    h200_16k(&b);
    b.rate[SIM_KERNEL_SYMMETRIC] = 2.8e12;
    b.rate[UI_RUNG_TREE] = 1048576.0 * 1048576 / 21e-3;
    end = run_tour(&b, &t, UI_RUNG_TREE, 1048576.0 * 1048576, rates, 1.0);
    assert_int_equal(end, UI_RUNG_TREE);
    assert_true(rates[SIM_KERNEL_SYMMETRIC] == 2.8e12);
}

/* A backend without the tree (or without the memory for it): the tour starts at the kernels. */
static void a_refused_tree_is_passed_over(void **state)
{
    Backend b;
    h200_16k(&b);
    b.refuses[UI_RUNG_TREE] = true;
    LadderTour t;
    double rates[UI_RUNGS] = {0};
    int end = run_tour(&b, &t, SIM_KERNEL_SYMMETRIC, 16384.0 * 16384 * 4, rates, 1.0);
    assert_int_equal(end, SIM_KERNEL_SYMMETRIC);
    assert_true(rates[UI_RUNG_TREE] == 0);
    assert_int_equal(b.advances[UI_RUNG_TREE], 0);
    assert_true(rates[SIM_KERNEL_NAIVE] == b.rate[SIM_KERNEL_NAIVE]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rung_is_timed_top_down_and_the_kernel_restored),
        cmocka_unit_test(slow_rungs_are_left_out_at_large_n),
        cmocka_unit_test(a_refused_rung_is_passed_over),
        cmocka_unit_test(without_a_clock_the_tour_ends),
        cmocka_unit_test(the_tree_does_not_vouch_for_the_direct_kernels),
        cmocka_unit_test(a_refused_tree_is_passed_over),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
