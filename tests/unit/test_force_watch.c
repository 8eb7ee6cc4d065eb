/* The live force check: the f64 reference in a worker thread, the running method's accelerations
 * on the caller's. Its verdicts on the CPU backend's direct sum and tree, and its hand-over: each
 * result is waited for on the worker's condition, never with a sleep. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "scene/scene.h"
#include "sim/force_watch.h"

#ifdef STARBURST_SANITIZED
#define TREE_BODIES 16384
#else
#define TREE_BODIES 65536
#endif

static Sim *build(int n, SimForce force, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 3}, b, info, err, sizeof err) != 0)
        fail_msg("scene_build: %s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = force}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

/* A few steps in, so that the state is the simulation's own, then one measurement, waited for. */
static ForceCheck measure(ForceWatch *w, Sim *s, Bodies *b, const SceneInfo *info, float theta, int samples)
{
    const SimParams p = {.dt = info->dt, .softening = info->softening, .damping = 1, .theta = theta};
    sim_advance(s, &p, 2);
    sim_read(s, b);
    assert_int_equal(force_watch_start(w, s, b, info->softening, samples), 0);
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
    ForceCheck f;
    assert_false(force_watch_take(w, &f));
    assert_false(force_watch_wait(w, &f)); /* nothing under way: returns at once */

    assert_int_equal(force_watch_start(w, s, &b, info.softening, 2000), 0);
    /* Either still under way, and a second start is refused, or done. */
    const int again = force_watch_start(w, s, &b, info.softening, 2000);
    assert_true(again == 1 || again == 0);
    assert_true(force_watch_wait(w, &f));
    assert_int_equal(f.samples, 2000);

    assert_int_equal(force_watch_start(w, s, &b, info.softening, 2000), 0);
    force_watch_forget(w);
    assert_false(force_watch_wait(w, &f));

    /* More samples than bodies: every body, once. */
    assert_int_equal(force_watch_start(w, s, &b, info.softening, 100000), 0);
    assert_true(force_watch_wait(w, &f));
    assert_int_equal(f.samples, 8192);

    assert_int_equal(force_watch_start(w, s, &b, info.softening, 4000), 0);
    force_watch_destroy(w); /* waits for it */
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(direct_sum_errors_are_tiny),
        cmocka_unit_test(tree_errors_stay_under_1e3_at_theta_04),
        cmocka_unit_test(one_at_a_time_and_forgotten_on_reset),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
