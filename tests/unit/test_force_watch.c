/* The live force check: the accelerations a run stepped with (its state's copy) against the f64
 * reference, summed in a worker thread. Its verdicts on the CPU backend's direct sum and tree, with
 * live halos and with halos as fields (whose pull the stored accelerations hold and the check
 * takes out), and its hand-over: each result is waited for on the worker's condition, never with a
 * sleep. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "scene/scene.h"
#include "sim/diag.h"
#include "sim/force_watch.h"

#ifdef STARBURST_SANITIZED
#define TREE_BODIES 16384
#else
#define TREE_BODIES 65536
#endif

static Sim *build_with(int n, SimForce force, SceneHalo halo, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 3, .halo = halo}, b, info, err,
                    sizeof err) != 0)
        fail_msg("scene_build: %s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = force, .halos = &info->halos}, b, err,
                        sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    if (bodies_alloc_acc(b) != 0) fail_msg("out of memory");
    return s;
}

static Sim *build(int n, SimForce force, Bodies *b, SceneInfo *info)
{
    return build_with(n, force, SCENE_HALO_LIVE, b, info);
}

/* A few steps in, so that the state is the simulation's own, then one measurement, waited for. */
static ForceCheck measure(ForceWatch *w, Sim *s, Bodies *b, const SceneInfo *info, float theta, int samples)
{
    const SimParams p = {.dt = info->dt, .softening = info->softening, .damping = 1, .theta = theta};
    sim_advance(s, &p, 2);
    sim_read(s, b);
    assert_int_equal(force_watch_start(w, b, sim_halos(s), samples), 0);
    ForceCheck f, again;
    assert_true(force_watch_wait(w, &f));
    assert_false(force_watch_busy(w));
    assert_false(force_watch_take(w, &again)); /* taken once: nothing left */
    return f;
}

static void direct_sum_errors_are_tiny(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build(4096, SIM_FORCE_DIRECT, &b, &info);
    const ForceCheck f = measure(w, s, &b, &info, 0, 256);
    print_message("direct, N 4096, 256 bodies: median %.3g, 99%% %.3g, max %.3g\n", f.median, f.p99, f.worst);
    assert_int_equal(f.samples, 256);
    assert_true(f.median < 1e-6);
    assert_true(f.p99 < 1e-5);
    assert_true(f.worst < 1e-5);
    sim_destroy(s);
    bodies_free(&b);
    force_watch_destroy(w);
}

static void tree_errors_stay_under_1e3_at_theta_04(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build(TREE_BODIES, SIM_FORCE_TREE, &b, &info);
    const ForceCheck f = measure(w, s, &b, &info, 0.4f, 256);
    print_message("tree, theta 0.4, N %d, 256 bodies: median %.3g, 99%% %.3g, max %.3g\n", TREE_BODIES, f.median,
                  f.p99, f.worst);
    assert_int_equal(f.samples, 256);
    assert_true(f.median > 1e-6); /* the tree's, not the direct sum's */
    assert_true(f.p99 < 1e-3);
    sim_destroy(s);
    bodies_free(&b);
    force_watch_destroy(w);
}

/* Halos as fields: the stored accelerations hold the fields' pull, which the check takes out, and
 * the reference sums the stars alone (the centres' masses are the halos'). The direct sum's
 * error is float's, as without fields; the centres are never sampled. And the one-shot check
 * (diag_force_check) compares the stars alone too. */
static void fields_are_taken_out_of_the_stored_accelerations(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build_with(4096, SIM_FORCE_DIRECT, SCENE_HALO_FIELD, &b, &info);
    assert_int_equal(sim_halos(s)->count, 2);
    assert_int_equal(b.n, 4098);
    const ForceCheck f = measure(w, s, &b, &info, 0, 256);
    print_message("direct with field halos, 4096 stars, 256 stars: median %.3g, 99%% %.3g, max %.3g\n", f.median,
                  f.p99, f.worst);
    assert_int_equal(f.samples, 256);
    assert_true(f.median < 1e-6);
    assert_true(f.p99 < 1e-5);
    /* Every star, the centres left out. */
    assert_int_equal(force_watch_start(w, &b, sim_halos(s), 100000), 0);
    ForceCheck all;
    assert_true(force_watch_wait(w, &all));
    assert_int_equal(all.samples, 4096);
    assert_true(all.worst < 1e-4);
    /* Without the fields named, their pull stays in and the centres count as stars: an error of order one. */
    assert_int_equal(force_watch_start(w, &b, NULL, 256), 0);
    ForceCheck kept;
    assert_true(force_watch_wait(w, &kept));
    print_message("the same with the fields' pull left in: median %.3g\n", kept.median);
    assert_true(kept.median > 0.1);
    ForceCheck once;
    assert_int_equal(diag_force_check(s, &b, info.softening, 512, &once), 0);
    assert_int_equal(once.samples, 512);
    assert_true(once.median < 1e-6 && once.p99 < 1e-5);
    sim_destroy(s);
    bodies_free(&b);
    force_watch_destroy(w);
}

static void tree_with_fields_errors_are_the_trees(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build_with(TREE_BODIES, SIM_FORCE_TREE, SCENE_HALO_FIELD, &b, &info);
    const ForceCheck f = measure(w, s, &b, &info, 0.4f, 256);
    print_message("tree with field halos, theta 0.4, %d stars: median %.3g, 99%% %.3g\n", TREE_BODIES, f.median, f.p99);
    assert_true(f.median > 1e-6 && f.p99 < 1e-3);
    sim_destroy(s);
    bodies_free(&b);
    force_watch_destroy(w);
}

/* A state without accelerations computed at its positions is not measured. */
static void nothing_to_measure_without_accelerations(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build(1024, SIM_FORCE_DIRECT, &b, &info);
    Bodies bare;
    assert_int_equal(bodies_alloc(&bare, b.n), 0);
    assert_int_equal(force_watch_start(w, &bare, NULL, 256), 1); /* no accelerations at all */
    assert_int_equal(bodies_alloc_acc(&bare), 0);
    assert_int_equal(force_watch_start(w, &bare, NULL, 256), 1); /* none carried */
    bare.acc_info = (BodiesAccInfo){.backend = SIM_BACKEND_CPU, .softening = NAN};
    assert_int_equal(force_watch_start(w, &bare, NULL, 256), 1); /* none computed at these positions */
    ForceCheck f;
    assert_false(force_watch_wait(w, &f));
    bodies_free(&bare);
    sim_destroy(s);
    bodies_free(&b);
    force_watch_destroy(w);
}

/* One measurement at a time; a forgotten one gives nothing; a result stays until taken; the
 * watch can be destroyed with a measurement under way. */
static void one_at_a_time_and_forgotten_on_reset(void **state)
{
    char err[256];
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    Bodies b;
    SceneInfo info;
    Sim *s = build(8192, SIM_FORCE_DIRECT, &b, &info);
    sim_advance(s, &(SimParams){.dt = info.dt, .softening = info.softening, .damping = 1}, 1);
    sim_read(s, &b); /* with the accelerations the step computed */
    ForceCheck f;
    assert_false(force_watch_take(w, &f));
    assert_false(force_watch_wait(w, &f)); /* nothing under way: returns at once */

    assert_int_equal(force_watch_start(w, &b, NULL, 2000), 0);
    /* Either still under way, and a second start is refused, or done. */
    const int again = force_watch_start(w, &b, NULL, 2000);
    assert_true(again == 1 || again == 0);
    assert_true(force_watch_wait(w, &f));
    assert_int_equal(f.samples, 2000);

    assert_int_equal(force_watch_start(w, &b, NULL, 2000), 0);
    force_watch_forget(w);
    assert_false(force_watch_wait(w, &f));

    /* More samples than bodies: every body, once. */
    assert_int_equal(force_watch_start(w, &b, NULL, 100000), 0);
    assert_true(force_watch_wait(w, &f));
    assert_int_equal(f.samples, 8192);

    assert_int_equal(force_watch_start(w, &b, NULL, 4000), 0);
    force_watch_destroy(w); /* waits for it */
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(direct_sum_errors_are_tiny),
        cmocka_unit_test(tree_errors_stay_under_1e3_at_theta_04),
        cmocka_unit_test(fields_are_taken_out_of_the_stored_accelerations),
        cmocka_unit_test(tree_with_fields_errors_are_the_trees),
        cmocka_unit_test(nothing_to_measure_without_accelerations),
        cmocka_unit_test(one_at_a_time_and_forgotten_on_reset),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
