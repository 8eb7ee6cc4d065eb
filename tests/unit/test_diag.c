/* Diagnostics: momenta and virial ratio of known systems, the force check's verdicts, and the
 * percentiles it reports. */
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

static Sim *build(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 5}, b, info, err, sizeof err) != 0)
        fail_msg("scene_build: %s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

/* A disk rotating about +z: angular momentum points up, linear momentum is zero, and the energy
 * split adds up. */
static void disk_spins_about_z(void **state)
{
    Bodies b;
    SceneInfo info;
    Sim *s = build(SCENE_DISK, 2048, &b, &info);
    Diagnostics d;
    SimEnergy e = sim_energy(s, info.softening);
    diag_measure(&b, e, &d);
    double l = sqrt(d.angular_momentum[0] * d.angular_momentum[0] + d.angular_momentum[1] * d.angular_momentum[1] +
                    d.angular_momentum[2] * d.angular_momentum[2]);
    print_message("disk: L = (%.3g %.3g %.3g), P = (%.2g %.2g %.2g), 2K/|W| = %.3f\n", d.angular_momentum[0],
                  d.angular_momentum[1], d.angular_momentum[2], d.momentum[0], d.momentum[1], d.momentum[2],
                  d.virial);
    /* The halo's random motions tilt the total a little; the disk dominates. */
    assert_true(d.angular_momentum[2] > 0.9 * l);
    double p = sqrt(d.momentum[0] * d.momentum[0] + d.momentum[1] * d.momentum[1] + d.momentum[2] * d.momentum[2]);
    assert_true(p < 1e-5 * l);
    assert_float_equal(d.total, e.kinetic + e.potential, 1e-12 * fabs(d.total));
    assert_true(d.virial > 0.5 && d.virial < 1.5);
    sim_destroy(s);
    bodies_free(&b);
}

/* Two bodies worked by hand: L = sum m x cross v, P = sum m v, K and W as given. */
static void two_bodies_by_hand(void **state)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, 2), 0);
    const float pos[8] = {1, 0, 0, 2, 0, 0, 3, 1};
    const float vel[8] = {0, 1, 0, 0, 0.5f, 0, 0, 0};
    memcpy(b.pos, pos, sizeof pos);
    memcpy(b.vel, vel, sizeof vel);
    Diagnostics d;
    diag_measure(&b, (SimEnergy){.kinetic = 1.0, .potential = -4.0}, &d);
    assert_float_equal(d.momentum[0], 0.5, 1e-12);
    assert_float_equal(d.momentum[1], 2, 1e-12);
    assert_float_equal(d.momentum[2], 0, 0);
    /* (1,0,0) x 2(0,1,0) = (0,0,2); (0,0,3) x 1(0.5,0,0) = (0,1.5,0). */
    assert_float_equal(d.angular_momentum[0], 0, 1e-12);
    assert_float_equal(d.angular_momentum[1], 1.5, 1e-12);
    assert_float_equal(d.angular_momentum[2], 2, 1e-12);
    assert_float_equal(d.virial, 0.5, 1e-12);
    assert_float_equal(d.total, -3, 1e-12);
    bodies_free(&b);
}

/* The CPU kernel passes its own check; a NaN in the state fails it. */
static void force_check_passes_good_and_fails_nan(void **state)
{
    Bodies b;
    SceneInfo info;
    Sim *s = build(SCENE_PLUMMER, 3000, &b, &info);
    ForceCheck f;
    assert_int_equal(diag_force_check(s, &b, info.softening, 500, &f), 0);
    print_message("plummer N=3000, 500 samples: rms %.3g, 99.9%% %.3g, worst %.3g\n", f.rms, f.p999, f.worst);
    assert_int_equal(f.samples, 500);
    assert_true(f.rms < 1e-5);
    assert_true(f.p999 < 1e-3);
    assert_true(f.worst >= f.p999);
    assert_true(f.median <= f.p99 && f.p99 <= f.p999);
    assert_true(f.median > 0 && f.median < 1e-5);

    b.pos[4 * 7] = NAN;
    char err[128];
    assert_int_equal(sim_load(s, &b, err, sizeof err), 0);
    assert_int_equal(diag_force_check(s, &b, info.softening, 0, &f), 0);
    assert_int_equal(f.samples, 3000);
    assert_false(f.rms < 1e-5);
    assert_false(f.worst < 1e-3);
    sim_destroy(s);
    bodies_free(&b);
}

/* The subset reference agrees with the full reference on the bodies it covers. */
static void subset_reference_matches_full(void **state)
{
    Bodies b;
    SceneInfo info;
    Sim *s = build(SCENE_SHELL, 700, &b, &info);
    double full[3 * 700], part[3 * 3];
    const int targets[3] = {0, 350, 699};
    sim_reference_accelerations(b.pos, b.n, info.softening, full);
    sim_reference_subset(b.pos, b.n, info.softening, targets, 3, part);
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 3; k++) assert_float_equal(part[3 * t + k], full[3 * targets[t] + k], 0);
    sim_destroy(s);
    bodies_free(&b);
}

/* Nearest rank: the smallest value with at least q * count values at or below it. */
static void percentiles_by_nearest_rank(void **state)
{
    const double ten[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_float_equal(diag_percentile(ten, 10, 0.5), 5, 0);
    assert_float_equal(diag_percentile(ten, 10, 0.51), 6, 0);
    assert_float_equal(diag_percentile(ten, 10, 0.99), 10, 0);
    assert_float_equal(diag_percentile(ten, 10, 1.0), 10, 0);
    assert_float_equal(diag_percentile(ten, 10, 0.0), 1, 0);
    assert_float_equal(diag_percentile(ten, 10, 0.1), 1, 0);
    assert_float_equal(diag_percentile(ten, 1, 0.99), 1, 0);
    assert_float_equal(diag_percentile(ten, 0, 0.5), 0, 0);
    double many[1000];
    for (int i = 0; i < 1000; i++) many[i] = i + 1;
    assert_float_equal(diag_percentile(many, 1000, 0.5), 500, 0);
    assert_float_equal(diag_percentile(many, 1000, 0.99), 990, 0);
    assert_float_equal(diag_percentile(many, 1000, 0.999), 999, 0);
}

/* Accelerations off their references by known factors: body t by t * 1e-4 of its size, in
 * shuffled order; the percentiles are those of 0, 1e-4, ..., 99e-4. A NaN is the worst. */
static void compare_reports_the_errors_it_was_given(void **state)
{
    enum { COUNT = 100 };
    float acc[3 * COUNT];
    double ref[3 * COUNT];
    for (int t = 0; t < COUNT; t++) {
        const int e = (t * 37) % COUNT; /* 37 is prime to 100: every e once */
        const double r[3] = {1.0 + t, -2.0, 0.5 * t};
        for (int k = 0; k < 3; k++) {
            ref[3 * t + k] = r[k];
            acc[3 * t + k] = (float)(r[k] * (1 + e * 1e-4));
        }
    }
    ForceCheck f;
    assert_int_equal(diag_compare(acc, ref, COUNT, &f), 0);
    print_message("median %.4g, 99%% %.4g, worst %.4g, rms %.4g\n", f.median, f.p99, f.worst, f.rms);
    assert_int_equal(f.samples, COUNT);
    /* Rounding to float moves each by under 1e-7. */
    assert_float_equal(f.median, 49e-4, 1e-6);
    assert_float_equal(f.p99, 98e-4, 1e-6);
    assert_float_equal(f.p999, 99e-4, 1e-6);
    assert_float_equal(f.worst, 99e-4, 1e-6);

    acc[3 * 5 + 1] = NAN;
    assert_int_equal(diag_compare(acc, ref, COUNT, &f), 0);
    assert_true(isinf(f.worst) && isinf(f.rms));
    assert_float_equal(f.median, 49e-4, 1e-4);

    assert_int_equal(diag_compare(acc, ref, 0, &f), 0);
    assert_int_equal(f.samples, 0);
}

/* The sample spreads over the whole system, the first body included. */
static void targets_spread_evenly(void **state)
{
    int t[4];
    diag_sample_targets(10, 4, t);
    assert_int_equal(t[0], 0);
    assert_int_equal(t[1], 2);
    assert_int_equal(t[2], 5);
    assert_int_equal(t[3], 7);
    int big[3];
    diag_sample_targets(2000000000, 3, big);
    assert_int_equal(big[2], 1333333333);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_bodies_by_hand),
        cmocka_unit_test(disk_spins_about_z),
        cmocka_unit_test(force_check_passes_good_and_fails_nan),
        cmocka_unit_test(subset_reference_matches_full),
        cmocka_unit_test(percentiles_by_nearest_rank),
        cmocka_unit_test(compare_reports_the_errors_it_was_given),
        cmocka_unit_test(targets_spread_evenly),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
