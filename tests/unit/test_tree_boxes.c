/* The cells of the CPU tree through sim_tree_boxes, as the tree overlay draws them: disjoint at
 * every level, covering every body, the root holding them all (tests/tree_boxes_checks.h); levels
 * cut at max_level, a cap that truncates and still counts them all, and none while the direct sum
 * runs or before the first step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene/scene.h"
#include "sim/sim.h"
#include "tree_boxes_checks.h"

static const SimParams params = {.dt = 0.01f, .softening = 0.05f, .damping = 1.0f};

static Sim *make(SceneKind kind, int n, SimForce force, Bodies *b)
{
    char err[256] = "";
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 7}, b, &info, err, sizeof err) != 0)
        fail_msg("scene: %s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = force, .threads = 2}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

static void cells_cover_the_bodies(void **state)
{
    const SceneKind kinds[] = {SCENE_COLLISION, SCENE_PLUMMER, SCENE_RANDOM};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        Bodies b;
        Sim *s = make(kinds[k], 4096, SIM_FORCE_TREE, &b);
        sim_advance(s, &params, 2);
        const int depth = check_tree_boxes(s, scene_name(kinds[k]));
        assert_true(depth >= 2); /* 4096 bodies, leaves of at most 16 */
        sim_destroy(s);
        bodies_free(&b);
    }
}

static void levels_and_cap(void **state)
{
    Bodies b;
    Sim *s = make(SCENE_COLLISION, 4096, SIM_FORCE_TREE, &b);
    sim_advance(s, &params, 1);
    check_tree_box_levels_and_cap(s, 3);
    sim_destroy(s);
    bodies_free(&b);
}

static void none_without_a_tree(void **state)
{
    Bodies b;
    Sim *s = make(SCENE_PLUMMER, 2048, SIM_FORCE_TREE, &b);
    int depth = -1;
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0); /* no step yet */
    assert_int_equal(depth, 0);
    sim_advance(s, &params, 1);
    assert_true(sim_tree_boxes(s, 8, NULL, 0, &depth) > 1);
    assert_true(depth > 0);

    char err[256];
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0);
    assert_int_equal(depth, 0);
    /* Back on the tree: its cells once it has summed forces again, not the old ones before. */
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    sim_advance(s, &params, 1);
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    sim_advance(s, &params, 1);
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, NULL), 0);
    sim_advance(s, &params, 1);
    check_tree_boxes(s, "plummer, after switching back to the tree");
    sim_destroy(s);
    bodies_free(&b);

    s = make(SCENE_PLUMMER, 2048, SIM_FORCE_DIRECT, &b);
    sim_advance(s, &params, 1);
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
