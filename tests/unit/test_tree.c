/* The CPU tree force (Barnes-Hut with quadrupoles): its error against the f64 direct sum on
 * several systems, the error falling with theta, bit-for-bit repeats on any number of threads,
 * degenerate inputs, energy over a long run, the force-method API, and the opening test by
 * estimated error. Built with sanitizers
 * (STARBURST_SANITIZED) the systems are smaller. */
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
#include "sim/tree_cpu.h"

/* Energy run: bodies and the bound on |dE/E0| over 1000 steps. */
#define ENERGY_N 8192
#define ENERGY_BOUND 1e-4

static void accuracy_plummer(void **state) { check_scene_accuracy(SIM_FORCE_TREE, SCENE_PLUMMER, 16384, "plummer"); }

static void accuracy_collision(void **state)
{
    check_scene_accuracy(SIM_FORCE_TREE, SCENE_COLLISION, 16384, "collision");
}

static void accuracy_galaxy(void **state) { check_galaxy_accuracy(SIM_FORCE_TREE); }

static void accuracy_clustered(void **state)
{
    Bodies b;
    clustered(&b, 16384 / SCALE);
    check_default_accuracy(&b, SIM_FORCE_TREE, 1e-4f, "clustered");
    bodies_free(&b);
}

/* Smaller angles open more cells: the median error falls from theta 0.8 to 0.5 to 0.3. */
static void error_falls_with_theta(void **state)
{
    const float thetas[] = {1.0f, 0.8f, 0.5f, 0.3f};
    check_error_falls(SIM_FORCE_TREE, thetas, 4);
}

static void error_opening(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_PLUMMER, 16384 / SCALE, &b, &info);
    check_rel(SIM_FORCE_TREE, &b, info.softening, false, "plummer");
    bodies_free(&b);
    build_scene(SCENE_COLLISION, 16384 / SCALE, &b, &info);
    check_rel(SIM_FORCE_TREE, &b, info.softening, true, "collision");
    bodies_free(&b);
    clustered(&b, 16384 / SCALE);
    check_rel(SIM_FORCE_TREE, &b, 1e-4f, false, "clustered");
    bodies_free(&b);
    float eps;
    if (load_galaxy_20k(&b, &eps)) {
        check_rel(SIM_FORCE_TREE, &b, eps, false, "galaxy_20K");
        bodies_free(&b);
    }
}

/* No previous accelerations, zeros or NaN: the geometric test at the fallback angle, the same
 * bits from either, within the limits; and alpha 0 is the geometric test at theta. */
static void error_opening_fallback(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 8192 / SCALE, &b, &info);
    const size_t bytes = 3 * (size_t)b.n * sizeof(float);
    float *zero = calloc(3 * (size_t)b.n, sizeof(float)), *nan_in = malloc(bytes), *geo = malloc(bytes);
    assert_non_null(zero), assert_non_null(nan_in), assert_non_null(geo);
    for (size_t i = 0; i < 3 * (size_t)b.n; i++) nan_in[i] = NAN;
    nan_in[0] = INFINITY;
    TreeCpu *t = tree_cpu_create();
    assert_non_null(t);
    TreeCpuStats st;
    const float eps = info.softening;
    assert_int_equal(tree_cpu_forces(t, b.pos, b.n, eps, NBODY_TREE_REL_THETA, NBODY_TREE_REL_ALPHA, 2, zero, &st), 0);
    assert_int_equal(tree_cpu_forces(t, b.pos, b.n, eps, NBODY_TREE_REL_THETA, NBODY_TREE_REL_ALPHA, 2, nan_in, &st), 0);
    assert_memory_equal(zero, nan_in, bytes);
    const Errors e = errors_of(&b, zero, eps, 2000 / SCALE);
    print_message("no previous accelerations: median %.2e  p99 %.2e  worst %.2e\n", e.median, e.p99, e.worst);
    if (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX)) fail_msg("fallback: median %.3g, p99 %.3g", e.median, e.p99);
    /* alpha 0 at theta 0.4: the default geometric test's bits, whatever acc3 held. */
    assert_int_equal(tree_cpu_forces(t, b.pos, b.n, eps, 0.4f, 0, 2, zero, &st), 0);
    for (size_t i = 0; i < 3 * (size_t)b.n; i++) geo[i] = NAN;
    assert_int_equal(tree_cpu_forces(t, b.pos, b.n, eps, 0.4f, 0, 2, geo, &st), 0);
    assert_memory_equal(zero, geo, bytes);
    tree_cpu_destroy(t);
    free(zero), free(nan_in), free(geo);
    bodies_free(&b);
}

static void degenerate_inputs(void **state) { check_degenerate_inputs(SIM_FORCE_TREE); }
static void bit_for_bit(void **state) { check_bit_for_bit(SIM_FORCE_TREE); }
static void energy_over_1000_steps(void **state) { check_energy(SIM_FORCE_TREE, ENERGY_N, 1000, ENERGY_BOUND); }

/* Tree and direct trajectories of the collision stay close over 20 steps. */
static void tree_follows_direct(void **state)
{
    Bodies b, t, d;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 8192 / SCALE, &b, &info);
    assert_int_equal(bodies_alloc(&t, b.n), 0);
    assert_int_equal(bodies_alloc(&d, b.n), 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    Sim *st = make_sim(&b, SIM_FORCE_TREE, 0), *sd = make_sim(&b, SIM_FORCE_DIRECT, 0);
    advance_both(st, sd, &p, 20, &t, &d);
    double worst = 0, moved = 0;
    for (int i = 0; i < b.n; i++) {
        double dd = 0, dm = 0;
        for (int k = 0; k < 3; k++) {
            dd += pow((double)t.pos[4 * i + k] - d.pos[4 * i + k], 2);
            dm += pow((double)d.pos[4 * i + k] - b.pos[4 * i + k], 2);
        }
        if (dd > worst) worst = dd;
        moved += sqrt(dm) / b.n;
    }
    worst = sqrt(worst);
    print_message("tree vs direct after 20 steps: worst position difference %.2e; bodies moved %.2e on average\n",
                  worst, moved);
    /* The difference is tiny against how far the bodies went. */
    assert_true(worst < 1e-3 * moved);
    sim_destroy(st), sim_destroy(sd);
    bodies_free(&b), bodies_free(&t), bodies_free(&d);
}

static void force_api(void **state)
{
    for (int f = 0; f < SIM_FORCE_COUNT; f++) assert_int_equal(sim_force_from_name(sim_force_name(f)), f);
    assert_int_equal(sim_force_from_name("barnes-hut"), -1);

    Bodies b;
    random_ball(&b, SIM_TREE_MIN_BODIES_CPU, 6);
    Sim *s = make_sim(&b, SIM_FORCE_TREE, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_TREE);
    SimTreeStats ts;
    const SimParams p = {.dt = 1e-3f, .softening = 0.01f, .damping = 1};
    const double per_body = check_first_step_stats(s, b.n, &p, &ts);
    /* The last force call's split and times: the two kinds of terms add up to what the HUD shows. */
    print_message("tree stats at N %d: build %.2f ms, walk %.2f ms, %.0f body + %.0f cell terms a body\n", b.n,
                  ts.build_ms, ts.walk_ms, ts.body_body, ts.body_cell);
    assert_true(ts.body_body > 0 && ts.body_cell > 0);
    assert_float_equal(ts.body_body + ts.body_cell, per_body, 1e-9 * per_body);
    assert_true(ts.build_ms > 0 && ts.walk_ms > 0);
    char err[256] = "";
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_force(s), SIM_FORCE_DIRECT);
    sim_advance(s, &p, 1);
    assert_true(sim_stats(s).interactions_per_body == 0);
    assert_false(sim_tree_stats(s, &ts));
    assert_true(ts.build_ms == 0 && ts.body_body == 0);
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    assert_int_equal(sim_force(s), SIM_FORCE_TREE);
    assert_int_equal(sim_set_force(s, SIM_FORCE_COUNT, err, sizeof err), -1);
    sim_destroy(s);
    assert_null(sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_COUNT}, &b, err, sizeof err));
    bodies_free(&b);
}

/* The crossover behind SIM_TREE_MIN_BODIES_CPU: ms per step (drift, forces, kick), direct and
 * tree, from 1K bodies to STARBURST_TREE_TIMINGS bodies (65536 when it is not a number). */
static void crossover_timings(void **state)
{
    int top = atoi(getenv("STARBURST_TREE_TIMINGS"));
    if (top < 1024) top = 65536;
    for (int n = 1024; n <= top; n *= 2) {
        Bodies b;
        SceneInfo info;
        build_scene(SCENE_PLUMMER, n, &b, &info);
        const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
        double ms[2];
        for (int m = 0; m < 2; m++) {
            Sim *s = make_sim(&b, m ? SIM_FORCE_TREE : SIM_FORCE_DIRECT, 0);
            sim_advance(s, &p, 1); /* the first step also computes the opening accelerations */
            /* The fastest of a few: other work on the machine only ever adds time. */
            const int reps = m == 0 && n > 32768 ? 1 : 5;
            ms[m] = INFINITY;
            for (int r = 0; r < reps; r++) {
                sim_advance(s, &p, 1);
                if (sim_stats(s).ms < ms[m]) ms[m] = sim_stats(s).ms;
            }
            sim_destroy(s);
        }
        print_message("N %6d: ms per step: direct %8.1f, tree %7.1f\n", n, ms[0], ms[1]);
        bodies_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(force_api),
        cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(accuracy_plummer),
        cmocka_unit_test(accuracy_collision),
        cmocka_unit_test(accuracy_galaxy),
        cmocka_unit_test(accuracy_clustered),
        cmocka_unit_test(error_falls_with_theta),
        cmocka_unit_test(error_opening),
        cmocka_unit_test(error_opening_fallback),
        cmocka_unit_test(bit_for_bit),
        cmocka_unit_test(tree_follows_direct),
        cmocka_unit_test(energy_over_1000_steps),
    };
    /* Timings are a measurement, not a check: STARBURST_TREE_TIMINGS=1 asks for them. */
    if (getenv("STARBURST_TREE_TIMINGS")) {
        const struct CMUnitTest timings[] = {cmocka_unit_test(crossover_timings)};
        return test_exit_status(cmocka_run_group_tests(timings, NULL, NULL));
    }
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
