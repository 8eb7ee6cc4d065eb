/* The cells of the GPU tree through sim_tree_boxes (kernels/nbody_tree.cu's nbody_tree_boxes), as
 * the tree overlay draws them: the same checks as the CPU tree's (tests/tree_boxes_checks.h), the
 * levels cut at max_level, a cap, and none while the direct sum runs or before the first step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "tree_boxes_checks.h"

static void gpu_cells_cover_the_bodies(void **state)
{
    gpu_require_cuda();
    check_tree_boxes_on_scenes(SIM_BACKEND_CUDA, 16384, 3);
}

static void gpu_levels_cap_and_switches(void **state)
{
    gpu_require_cuda();
    Bodies b;
    Sim *s = tree_boxes_sim(SIM_BACKEND_CUDA, SCENE_COLLISION, 65536, SIM_FORCE_TREE, &b);
    int depth = -1;
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0); /* no step yet */
    assert_int_equal(depth, 0);
    sim_advance(s, &tree_boxes_params, 1);
    check_tree_box_levels_and_cap(s, 4);

    char err[256];
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, &depth), 0);
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    assert_int_equal(sim_tree_boxes(s, 8, NULL, 0, NULL), 0);
    sim_advance(s, &tree_boxes_params, 1);
    check_tree_boxes(s, "collision, 65,536 bodies, after switching back to the tree");
    assert_null(sim_error(s));
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_cells_cover_the_bodies),
        cmocka_unit_test(gpu_levels_cap_and_switches),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
