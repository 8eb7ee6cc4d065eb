/* The cells of the CPU tree through sim_tree_boxes, as the tree overlay draws them: disjoint at
 * every level, covering every body, the root holding them all (tests/tree_boxes_checks.h); levels
 * cut at max_level, a cap that truncates and still counts them all, and none while the direct sum
 * runs or before the first step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tree_boxes_checks.h"

static void cells_cover_the_bodies(void **state)
{
    check_tree_boxes_on_scenes(SIM_BACKEND_CPU, 4096, 2); /* leaves of at most 16 bodies */
}

static void levels_and_cap(void **state)
{
    Bodies b;
    Sim *s = tree_boxes_sim(SIM_BACKEND_CPU, SCENE_COLLISION, 4096, SIM_FORCE_TREE, &b);
    sim_advance(s, &tree_boxes_params, 1);
    check_tree_box_levels_and_cap(s, 3);
    sim_destroy(s);
    bodies_free(&b);
}

static void none_without_a_tree(void **state)
{
    Bodies b;
    Sim *s = tree_boxes_sim(SIM_BACKEND_CPU, SCENE_PLUMMER, 2048, SIM_FORCE_TREE, &b);
    int depth = -1;
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0); /* no step yet */
    assert_int_equal(depth, 0);
    sim_advance(s, &tree_boxes_params, 1);
    assert_true(sim_tree_boxes(s, 8, NULL, 0, &depth) > 1);
    assert_true(depth > 0);

    char err[256];
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0);
    assert_int_equal(depth, 0);
    /* Back on the tree: its cells once it has summed forces again, not the old ones before. */
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    sim_advance(s, &tree_boxes_params, 1);
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    sim_advance(s, &tree_boxes_params, 1);
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, NULL), 0);
    sim_advance(s, &tree_boxes_params, 1);
    check_tree_boxes(s, "plummer, after switching back to the tree");
    sim_destroy(s);
    bodies_free(&b);

    s = tree_boxes_sim(SIM_BACKEND_CPU, SCENE_PLUMMER, 2048, SIM_FORCE_DIRECT, &b);
    sim_advance(s, &tree_boxes_params, 1);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, NULL), 0);
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cells_cover_the_bodies),
        cmocka_unit_test(levels_and_cap),
        cmocka_unit_test(none_without_a_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
