/* The CPU's fast multipole method (sim/fmm_cpu.c): its error against the f64 direct sum on the
 * collision scene, a Plummer sphere, galaxy_20K and tight clumps; the error falling with theta;
 * its near field opened by estimated error;
 * bit-for-bit repeats on any number of threads; degenerate inputs; energy over a run; agreement
 * with the tree; and the force-method API (auto picks it on the CPU from SIM_FMM_MIN_BODIES_CPU,
 * its stats add up). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "force_checks.h"

static void accuracy_collision(void **state)
{
    check_scene_accuracy(SIM_FORCE_FMM, SCENE_COLLISION, 16384, "collision");
}

static void accuracy_plummer(void **state) { check_scene_accuracy(SIM_FORCE_FMM, SCENE_PLUMMER, 16384, "plummer"); }

static void accuracy_galaxy(void **state) { check_galaxy_accuracy(SIM_FORCE_FMM); }

/* A larger system: far cells at many levels act through the expansions. */
static void accuracy_collision_64k(void **state)
{
    check_scene_accuracy(SIM_FORCE_FMM, SCENE_COLLISION, 65536, "collision");
}

/* Smaller angles open more cells and expand fewer: the median error falls from theta 0.8 to 0.3. */
static void error_falls_with_theta(void **state)
{
    const float thetas[] = {0.8f, 0.5f, 0.3f};
    check_error_falls(SIM_FORCE_FMM, thetas, 3);
}

/* The near field opened by estimated error (the run's default alpha), the far angle the default
 * theta's: within the limits on the collision, a Plummer sphere, tight clumps and galaxy_20K;
 * the same bits again and on 1 or 2 threads; on the 16K collision fewer terms a body than by
 * the angle. */
static void error_opening(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 16384 / SCALE, &b, &info);
    check_rel(SIM_FORCE_FMM, &b, info.softening, true, "collision");
    bodies_free(&b);
    build_scene(SCENE_PLUMMER, 16384 / SCALE, &b, &info);
    check_rel(SIM_FORCE_FMM, &b, info.softening, false, "plummer");
    bodies_free(&b);
    clustered(&b, 16384 / SCALE);
    check_rel(SIM_FORCE_FMM, &b, 1e-4f, false, "clustered");
    bodies_free(&b);
    float eps;
    if (load_galaxy_20k(&b, &eps)) {
        check_rel(SIM_FORCE_FMM, &b, eps, false, "galaxy_20K");
        bodies_free(&b);
    }
}

static void degenerate_inputs(void **state) { check_degenerate_inputs(SIM_FORCE_FMM); }
static void bit_for_bit(void **state) { check_bit_for_bit(SIM_FORCE_FMM); }
static void energy(void **state) { check_energy(SIM_FORCE_FMM, 8192, 300, 1e-4); }

/* The fmm and the tree give nearly the same forces: both within the targets of the f64 sum, so
 * within twice that of each other. */
static void agrees_with_tree(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 8192 / SCALE, &b, &info);
    const size_t bytes = 3 * (size_t)b.n * sizeof(float);
    float *f = malloc(bytes), *t = malloc(bytes);
    assert_non_null(f), assert_non_null(t);
    accelerations(&b, SIM_FORCE_FMM, 2, info.softening, f);
    accelerations(&b, SIM_FORCE_TREE, 2, info.softening, t);
    double *rel = malloc((size_t)b.n * sizeof *rel);
    for (int i = 0; i < b.n; i++) {
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            const double d = (double)f[3 * i + k] - t[3 * i + k];
            d2 += d * d, r2 += (double)t[3 * i + k] * t[3 * i + k];
        }
        rel[i] = sqrt(d2 / r2);
    }
    qsort(rel, (size_t)b.n, sizeof *rel, compare_double);
    const double median = rel[b.n / 2], p99 = rel[(int)ceil(0.99 * b.n) - 1];
    print_message("fmm vs tree, N %d: median %.2e, p99 %.2e\n", b.n, median, p99);
    assert_true(median <= 2 * MEDIAN_MAX && p99 <= 2 * P99_MAX);
    free(rel), free(f), free(t);
    bodies_free(&b);
}

static void force_api(void **state)
{
    assert_string_equal(sim_force_name(SIM_FORCE_FMM), "fmm");
    assert_int_equal(sim_force_from_name("fmm"), SIM_FORCE_FMM);

    /* A collision large enough that far cells act through expansions (not scaled down under the
     * sanitizers: a smaller one has none). */
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 16384, &b, &info);
    Sim *s = make_sim(&b, SIM_FORCE_AUTO, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_FMM);
    SimTreeStats ts;
    const SimParams p = {.dt = 1e-3f, .softening = 0.01f, .damping = 1};
    const double per_body = check_first_step_stats(s, b.n, &p, &ts);
    /* The three kinds of terms add up to what the HUD shows; the four phases are timed. */
    print_message("fmm stats at N %d: build %.2f ms, upward %.2f ms, interactions %.2f ms, downward %.2f ms; "
                  "%.0f body + %.0f cell + %.1f expansion terms a body\n",
                  b.n, ts.build_ms, ts.upward_ms, ts.walk_ms, ts.downward_ms, ts.body_body, ts.body_cell,
                  ts.body_group);
    assert_true(ts.body_body > 0 && ts.body_group > 0);
    assert_float_equal(ts.body_body + ts.body_cell + ts.body_group, per_body, 1e-9 * per_body);
    assert_true(ts.build_ms > 0 && ts.upward_ms > 0 && ts.walk_ms > 0 && ts.downward_ms > 0);
    /* The cells of its tree, as the overlay draws them. */
    SimTreeBox boxes[16];
    int depth = -1;
    assert_true(sim_tree_boxes(s, 1, boxes, 16, &depth) > 1);
    assert_true(depth > 1 && boxes[0].bodies == b.n);
    char err[256] = "";
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    sim_advance(s, &p, 1);
    assert_false(sim_tree_stats(s, &ts));
    assert_int_equal(sim_set_force(s, SIM_FORCE_AUTO, err, sizeof err), 0);
    assert_int_equal(sim_force(s), SIM_FORCE_FMM);
    sim_destroy(s);
    bodies_free(&b);

    /* Auto switches at SIM_FMM_MIN_BODIES_CPU. */
    random_ball(&b, SIM_FMM_MIN_BODIES_CPU, 6);
    s = make_sim(&b, SIM_FORCE_AUTO, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_FMM);
    sim_destroy(s);
    bodies_free(&b);
    random_ball(&b, SIM_FMM_MIN_BODIES_CPU - 1, 6);
    s = make_sim(&b, SIM_FORCE_AUTO, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_DIRECT);
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(force_api),
        cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(accuracy_collision),
        cmocka_unit_test(accuracy_plummer),
        cmocka_unit_test(accuracy_galaxy),
        cmocka_unit_test(accuracy_collision_64k),
        cmocka_unit_test(error_falls_with_theta),
        cmocka_unit_test(error_opening),
        cmocka_unit_test(bit_for_bit),
        cmocka_unit_test(agrees_with_tree),
        cmocka_unit_test(energy),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
