/* What every backend of the simulation must do, as checks the CPU tests (unit) and the CUDA tests
 * (gpu) run alike: damping that does not depend on the steps per advance, and NaN or Inf in any
 * body found by the advance that made it. Include after <cmocka.h>. */
#ifndef STARBURST_TEST_SIM_CHECKS_H
#define STARBURST_TEST_SIM_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "sim/sim.h"

/* Norm-wise relative difference of the first three components of two float4 arrays. */
static inline double relative_difference(const float *a, const float *b, int n)
{
    double num = 0, den = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double d = (double)a[4 * i + k] - b[4 * i + k];
            num += d * d;
            den += (double)b[4 * i + k] * b[4 * i + k];
        }
    return den > 0 ? sqrt(num / den) : (num == 0 ? 0 : INFINITY);
}

static inline bool body_finite(const Bodies *b, int i)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(b->pos[4 * i + k]) || !isfinite(b->vel[4 * i + k])) return false;
    return true;
}

/* Damping is a live control: from the state b0 (in both simulations), 8 advances of 1 step of
 * `one` and 1 advance of 8 steps of `eight` leave the same state, to 1e-5. They do the same
 * arithmetic, so the same bits are expected. Damping after a full kick, v = (v + a dt) d, put
 * them 1e-3 of the velocities apart. */
static inline void check_damping_per_advance(Sim *one, Sim *eight, const Bodies *b0, const SimParams *p,
                                             const char *what)
{
    Bodies a, b;
    assert_int_equal(bodies_alloc(&a, b0->n), 0);
    assert_int_equal(bodies_alloc(&b, b0->n), 0);
    for (int i = 0; i < 8; i++) sim_advance(one, p, 1);
    sim_advance(eight, p, 8);
    sim_read(one, &a);
    sim_read(eight, &b);
    const size_t bytes = 4 * (size_t)b0->n * sizeof(float);
    const bool same = memcmp(a.pos, b.pos, bytes) == 0 && memcmp(a.vel, b.vel, bytes) == 0;
    const double dx = relative_difference(a.pos, b.pos, b0->n), dv = relative_difference(a.vel, b.vel, b0->n);
    const double changed = relative_difference(a.vel, b0->vel, b0->n);
    print_message("%s, damping %.2f: 8 x 1 step vs 1 x 8 steps: positions %.3g, velocities %.3g apart (%s); "
                  "velocities changed by %.3g\n",
                  what, p->damping, dx, dv, same ? "the same bits" : "not bit for bit", changed);
    if (!(dx < 1e-5) || !(dv < 1e-5))
        fail_msg("%s: damping depends on the steps per advance: dx %.3g, dv %.3g", what, dx, dv);
    assert_true(changed > 1e-2); /* the damping did act */
    bodies_free(&a);
    bodies_free(&b);
}

/* NaN or Inf in any body is found by the advance that made it, starting from the healthy state b
 * of s (run with p). In the last body: a NaN velocity (loaded), found after one step; and a
 * velocity the last kick takes past the float range (3e38 doubled by damping 2), which no force
 * has spread yet: body 0 is still finite then, so a look at body 0 alone would miss it. */
static inline void check_divergence_in_any_body(Sim *s, const Bodies *b, const SimParams *p, const char *what)
{
    Bodies bad, out;
    assert_int_equal(bodies_alloc(&bad, b->n), 0);
    assert_int_equal(bodies_alloc(&out, b->n), 0);
    const int j = b->n - 1;
    SimParams q = *p;
    char err[256];
    sim_advance(s, &q, 10);
    assert_false(sim_diverged(s));

    memcpy(bad.pos, b->pos, 4 * (size_t)b->n * sizeof(float));
    memcpy(bad.vel, b->vel, 4 * (size_t)b->n * sizeof(float));
    bad.vel[4 * j + 1] = NAN;
    assert_int_equal(sim_load(s, &bad, err, sizeof err), 0);
    assert_false(sim_diverged(s));
    sim_advance(s, &q, 1);
    assert_true(sim_diverged(s));

    bad.vel[4 * j + 1] = b->vel[4 * j + 1];
    bad.vel[4 * j] = 3e38f;
    assert_int_equal(sim_load(s, &bad, err, sizeof err), 0);
    q.damping = 2;
    sim_advance(s, &q, 1);
    sim_read(s, &out);
    print_message("%s: after the kick that overflows, body 0 is %s, body %d %s; diverged: %s\n", what,
                  body_finite(&out, 0) ? "finite" : "not finite", j, body_finite(&out, j) ? "finite" : "not finite",
                  sim_diverged(s) ? "yes" : "no");
    assert_true(body_finite(&out, 0));
    assert_false(body_finite(&out, j));
    assert_true(sim_diverged(s));

    assert_int_equal(sim_load(s, b, err, sizeof err), 0);
    assert_false(sim_diverged(s));
    sim_advance(s, p, 10);
    assert_false(sim_diverged(s));
    assert_null(sim_error(s));
    bodies_free(&bad);
    bodies_free(&out);
}

#endif
