/* Undo's history: newest first back, the values and bodies as they were, bounded in entries and
 * in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "run/undo.h"

static Bodies marked(int n, float mark)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n), 0);
    for (int i = 0; i < 4 * n; i++) b.pos[i] = b.vel[i] = mark + (float)i;
    return b;
}

static void pops_newest_first_with_its_state(void **state)
{
    UndoHistory h = {0};
    char err[128];
    for (int k = 1; k <= 3; k++) {
        Bodies b = marked(100, (float)k);
        SimParams p = {.dt = 0.01f * k, .softening = 0.1f, .damping = 1};
        assert_int_equal(undo_push(&h, &p, &b, 10.0 * k, 100 * k, err, sizeof err), 0);
        b.pos[0] = -1; /* the history kept a copy */
        bodies_free(&b);
    }
    for (int k = 3; k >= 1; k--) {
        UndoEntry e;
        assert_true(undo_pop(&h, &e));
        assert_float_equal(e.params.dt, 0.01f * k, 0);
        assert_float_equal(e.time, 10.0 * k, 0);
        assert_int_equal(e.step, 100 * k);
        assert_int_equal(e.state.n, 100);
        assert_float_equal(e.state.pos[0], (float)k, 0);
        assert_float_equal(e.state.vel[399], (float)k + 399, 0);
        bodies_free(&e.state);
    }
    UndoEntry none;
    assert_false(undo_pop(&h, &none));
}

static void keeps_the_newest_entries(void **state)
{
    UndoHistory h = {0};
    char err[128];
    for (int k = 0; k < UNDO_MAX_ENTRIES + 5; k++) {
        Bodies b = marked(10, (float)k);
        SimParams p = {.dt = (float)k};
        assert_int_equal(undo_push(&h, &p, &b, k, k, err, sizeof err), 0);
        bodies_free(&b);
    }
    assert_int_equal(h.count, UNDO_MAX_ENTRIES);
    UndoEntry e;
    assert_true(undo_pop(&h, &e));
    assert_float_equal(e.params.dt, UNDO_MAX_ENTRIES + 4, 0);
    bodies_free(&e.state);
    assert_float_equal(h.entries[0].params.dt, 5, 0); /* the oldest five went */
    undo_clear(&h);
    assert_int_equal(h.count, 0);
}

static void stays_within_its_memory(void **state)
{
    UndoHistory h = {0};
    char err[128];
    /* Bodies of about a third of the budget: at most three fit. */
    const int n = (int)(UNDO_MAX_BYTES / 3 / (8 * sizeof(float) + 1)) - 16;
    for (int k = 0; k < 5; k++) {
        Bodies b;
        assert_int_equal(bodies_alloc(&b, n), 0);
        SimParams p = {.dt = (float)k};
        assert_int_equal(undo_push(&h, &p, &b, k, k, err, sizeof err), 0);
        bodies_free(&b);
        assert_true(h.count <= 3);
    }
    assert_int_equal(h.count, 3);
    assert_float_equal(h.entries[2].params.dt, 4, 0);
    undo_clear(&h);
    /* A state larger than the whole budget is refused with a reason, and nothing is lost. */
    Bodies small = marked(10, 1), huge = {.n = (int)(UNDO_MAX_BYTES / (8 * sizeof(float))) + 1};
    SimParams p = {.dt = 1};
    assert_int_equal(undo_push(&h, &p, &small, 0, 0, err, sizeof err), 0);
    assert_int_equal(undo_push(&h, &p, &huge, 0, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "more memory"));
    assert_int_equal(h.count, 1);
    bodies_free(&small);
    undo_clear(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pops_newest_first_with_its_state),
        cmocka_unit_test(keeps_the_newest_entries),
        cmocka_unit_test(stays_within_its_memory),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
