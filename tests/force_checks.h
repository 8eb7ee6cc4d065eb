/* Checks that every tree-based force method of the CPU backend (the tree, the fast multipole
 * method) must pass, given the method: its error against the f64 direct sum, bit-for-bit repeats
 * on any number of threads, degenerate inputs, energy over a run. test_tree.c and test_fmm.c run
 * them. Built with sanitizers (STARBURST_SANITIZED) the systems are smaller. Include after
 * <cmocka.h>. */
#ifndef STARBURST_TEST_FORCE_CHECKS_H
#define STARBURST_TEST_FORCE_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"
#include "test_rng.h"
#include "test_skip.h"

#include "scene/scene.h"
#include "scene/tipsy.h"
#include "sim/sim.h"
#include "util/params.h"

#ifdef STARBURST_SANITIZED
#define SCALE 8 /* systems are this many times smaller */
#else
#define SCALE 1
#endif

/* The accuracy targets at the default theta. */
#define MEDIAN_MAX 1e-4
#define P99_MAX 1e-3

static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline Sim *make_sim(const Bodies *b, SimForce force, int threads)
{
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = force, .threads = threads}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

/* Advances s1 and s2 by `steps` steps of p and reads their states into o1 and o2. */
static inline void advance_both(Sim *s1, Sim *s2, const SimParams *p, int steps, Bodies *o1, Bodies *o2)
{
    sim_advance(s1, p, steps);
    sim_advance(s2, p, steps);
    sim_read(s1, o1);
    sim_read(s2, o2);
}

static inline void build_scene(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 7}, b, info, err, sizeof err) != 0)
        fail_msg("scene_build: %s", err);
}

/* Sets theta for sim_accelerations: an advance of 0 steps does nothing, so one step of dt 0. */
static inline void use_theta(Sim *s, float theta, float eps)
{
    sim_advance(s, &(SimParams){.dt = 0, .softening = eps, .damping = 1, .theta = theta}, 1);
}

typedef struct Errors {
    double median, p99, worst;
} Errors;

/* Relative force errors |a - a_ref| / |a_ref| of `count` evenly spread bodies. */
static inline Errors errors_of(const Bodies *b, const float *acc, float eps, int count)
{
    const int n = b->n;
    if (count > n) count = n;
    int *targets = malloc((size_t)count * sizeof *targets);
    double *ref = malloc(3 * (size_t)count * sizeof *ref), *rel = malloc((size_t)count * sizeof *rel);
    assert_non_null(targets), assert_non_null(ref), assert_non_null(rel);
    for (int t = 0; t < count; t++) targets[t] = (int)((long long)t * n / count);
    sim_reference_subset(b->pos, n, eps, targets, count, ref);
    for (int t = 0; t < count; t++) {
        const float *a = acc + 3 * (size_t)targets[t];
        const double *r = ref + 3 * t;
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) d2 += (a[k] - r[k]) * (a[k] - r[k]), r2 += r[k] * r[k];
        const double e = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
        rel[t] = isnan(e) ? INFINITY : e;
    }
    qsort(rel, (size_t)count, sizeof *rel, compare_double);
    Errors out = {.median = rel[count / 2], .p99 = rel[(int)ceil(0.99 * count) - 1], .worst = rel[count - 1]};
    free(targets), free(ref), free(rel);
    return out;
}

/* The method's accelerations of b at theta (0 = default), and their errors. */
static inline Errors method_errors(const Bodies *b, SimForce force, float eps, float theta, const char *what)
{
    Sim *s = make_sim(b, force, 0);
    use_theta(s, theta, eps);
    float *acc = malloc(3 * (size_t)b->n * sizeof *acc);
    assert_non_null(acc);
    const double t0 = now_ms();
    sim_accelerations(s, eps, acc);
    const double ms = now_ms() - t0;
    sim_advance(s, &(SimParams){.dt = 0, .softening = eps, .damping = 1, .theta = theta}, 1);
    const double per_body = sim_stats(s).interactions_per_body;
    Errors e = errors_of(b, acc, eps, 2000 / SCALE);
    print_message("%s %-10s N %6d theta %.2f: median %.2e  p99 %.2e  worst %.2e  %.0f interactions/body  %.1f ms\n",
                  sim_force_name(force), what, b->n, params_theta(theta), e.median, e.p99, e.worst, per_body, ms);
    free(acc);
    sim_destroy(s);
    return e;
}

static inline void check_default_accuracy(const Bodies *b, SimForce force, float eps, const char *what)
{
    Errors e = method_errors(b, force, eps, 0, what);
    if (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX))
        fail_msg("%s: median %.3g (<= %.0e), p99 %.3g (<= %.0e)", what, e.median, MEDIAN_MAX, e.p99, P99_MAX);
}

/* On an 8K Plummer sphere the median error falls at each of the `count` angles, largest first. */
static inline void check_error_falls(SimForce force, const float *thetas, int count)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_PLUMMER, 8192 / SCALE, &b, &info);
    double last = INFINITY;
    for (int i = 0; i < count; i++) {
        Errors e = method_errors(&b, force, info.softening, thetas[i], "plummer");
        if (!(e.median < last)) fail_msg("theta %.2f: median %.3g, not below %.3g", thetas[i], e.median, last);
        last = e.median;
    }
    bodies_free(&b);
}

/* The default accuracy on a built scene of n bodies (fewer under the sanitizers). */
static inline void check_scene_accuracy(SimForce force, SceneKind kind, int n, const char *what)
{
    Bodies b;
    SceneInfo info;
    build_scene(kind, n / SCALE, &b, &info);
    check_default_accuracy(&b, force, info.softening, what);
    bodies_free(&b);
}

static inline void accelerations(const Bodies *b, SimForce force, int threads, float eps, float *acc)
{
    Sim *s = make_sim(b, force, threads);
    use_theta(s, 0, eps);
    sim_accelerations(s, eps, acc);
    sim_destroy(s);
}

/* The method's accelerations of b are finite and match the f64 sum: the worst body to tol where
 * tol > 0, else to the default theta's targets. */
static inline void check_small(const Bodies *b, SimForce force, float eps, double tol, const char *what)
{
    float *acc = malloc(3 * (size_t)b->n * sizeof *acc);
    accelerations(b, force, 2, eps, acc);
    for (int i = 0; i < 3 * b->n; i++)
        if (!isfinite(acc[i])) fail_msg("%s: acceleration %d is %g", what, i, acc[i]);
    Errors e = errors_of(b, acc, eps, b->n);
    print_message("%-28s N %5d: median %.2e  p99 %.2e  worst %.2e\n", what, b->n, e.median, e.p99, e.worst);
    if (tol > 0 && !(e.worst <= tol)) fail_msg("%s: worst error %.3g > %.1g", what, e.worst, tol);
    if (tol == 0 && (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX)))
        fail_msg("%s: median %.3g, p99 %.3g", what, e.median, e.p99);
    free(acc);
}

static inline void random_ball(Bodies *b, int n, uint64_t seed)
{
    assert_int_equal(bodies_alloc(b, n), 0);
    for (int i = 0; i < n; i++) {
        float *p = b->pos + 4 * i;
        for (int k = 0; k < 3; k++) p[k] = (float)(2 * rng_uniform(&seed) - 1);
        p[3] = (float)((0.5 + rng_uniform(&seed)) / n);
    }
}

static inline void check_degenerate_inputs(SimForce force)
{
    Bodies b;
    /* N = 1: no force. */
    random_ball(&b, 1, 1);
    float acc[3 * 3] = {1, 1, 1};
    accelerations(&b, force, 2, 0.01f, acc);
    assert_true(acc[0] == 0 && acc[1] == 0 && acc[2] == 0);
    bodies_free(&b);
    /* N = 2 and 3, with and without softening: all pairs direct, so float accuracy. */
    for (int n = 2; n <= 3; n++) {
        random_ball(&b, n, 10 + n);
        check_small(&b, force, 0.0f, 1e-5, n == 2 ? "two bodies, eps 0" : "three bodies, eps 0");
        check_small(&b, force, 0.05f, 1e-5, n == 2 ? "two bodies, eps 0.05" : "three bodies, eps 0.05");
        bodies_free(&b);
    }
    /* All bodies at one point: one leaf at the deepest level, every force zero. */
    random_ball(&b, 3000 / SCALE, 3);
    for (int i = 0; i < b.n; i++) b.pos[4 * i] = b.pos[4 * i + 1] = b.pos[4 * i + 2] = 0.25f;
    float *all = malloc(3 * (size_t)b.n * sizeof *all);
    for (int eps = 0; eps < 2; eps++) {
        accelerations(&b, force, 2, eps ? 0.01f : 0.0f, all);
        for (int i = 0; i < 3 * b.n; i++)
            if (all[i] != 0) fail_msg("all at one point, eps %d: acceleration %d is %g", eps, i, all[i]);
    }
    free(all);
    bodies_free(&b);
    /* Coincident pairs: each body of a Plummer sphere has a twin at its position. */
    SceneInfo info;
    build_scene(SCENE_PLUMMER, 4096 / SCALE, &b, &info);
    for (int i = 1; i < b.n; i += 2)
        for (int k = 0; k < 3; k++) b.pos[4 * i + k] = b.pos[4 * (i - 1) + k];
    check_small(&b, force, 0.01f, 0, "coincident pairs, eps 0.01");
    check_small(&b, force, 0.0f, 0, "coincident pairs, eps 0");
    bodies_free(&b);
    /* One body 1e6 scale lengths away: the bounding cube is huge and the rest share few cells. */
    build_scene(SCENE_PLUMMER, 2000 / SCALE, &b, &info);
    b.pos[0] = 1e6f;
    check_small(&b, force, info.softening, 0, "one body 1e6 away");
    bodies_free(&b);
    /* N not a power of two. */
    build_scene(SCENE_PLUMMER, 4097, &b, &info);
    check_small(&b, force, info.softening, 0, "plummer, N = 4097");
    bodies_free(&b);
}

/* The same input gives the same bits: twice, and on 1 and 2 threads; and after 20 steps. */
static inline void check_bit_for_bit(SimForce force)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 12000 / SCALE, &b, &info);
    const size_t bytes = 3 * (size_t)b.n * sizeof(float);
    float *a = malloc(bytes), *c = malloc(bytes), *d = malloc(bytes);
    accelerations(&b, force, 2, info.softening, a);
    accelerations(&b, force, 2, info.softening, c);
    accelerations(&b, force, 1, info.softening, d);
    assert_memory_equal(a, c, bytes);
    assert_memory_equal(a, d, bytes);

    Bodies one, two;
    assert_int_equal(bodies_alloc(&one, b.n), 0);
    assert_int_equal(bodies_alloc(&two, b.n), 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    Sim *s1 = make_sim(&b, force, 1), *s2 = make_sim(&b, force, 2);
    advance_both(s1, s2, &p, 20, &one, &two);
    assert_memory_equal(one.pos, two.pos, 4 * (size_t)b.n * sizeof(float));
    assert_memory_equal(one.vel, two.vel, 4 * (size_t)b.n * sizeof(float));
    sim_destroy(s1), sim_destroy(s2);
    bodies_free(&one), bodies_free(&two);
    free(a), free(c), free(d);
    bodies_free(&b);
}

/* Energy over `steps` steps of a Plummer sphere of n bodies: |dE/E0| stays within bound. */
static inline void check_energy(SimForce force, int n, int steps, double bound)
{
    Bodies b;
    SceneInfo info;
    n /= SCALE, steps /= SCALE;
    build_scene(SCENE_PLUMMER, n, &b, &info);
    Sim *s = make_sim(&b, force, 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    SimEnergy e = sim_energy(s, info.softening);
    const double e0 = e.kinetic + e.potential;
    double worst = 0;
    const double t0 = now_ms();
    for (int i = 0; i < steps; i += 100) {
        sim_advance(s, &p, 100);
        e = sim_energy(s, info.softening);
        const double de = fabs((e.kinetic + e.potential - e0) / e0);
        if (de > worst) worst = de;
    }
    print_message("%s energy: N %d, %d steps of dt %g: worst |dE/E0| %.2e (bound %.0e), %.1f s\n", sim_force_name(force), n, steps, info.dt,
                  worst, bound, (now_ms() - t0) * 1e-3);
    assert_false(sim_diverged(s));
    if (!(worst <= bound)) fail_msg("|dE/E0| %.3g > %.0e", worst, bound);
    sim_destroy(s);
    bodies_free(&b);
}

/* galaxy_20K.bin (STARBURST_DATA, else beside the source tree) and the galaxy scenes' softening;
 * false, with the test skipped, where the file is missing. */
/* A first step at p of s, a sim of n bodies on a tree-based method: no tree stats before it,
 * stats after it (into ts), and the terms a body it returns between 0 and n. */
static inline double check_first_step_stats(Sim *s, int n, const SimParams *p, SimTreeStats *ts)
{
    assert_false(sim_tree_stats(s, ts)); /* no force call yet */
    sim_advance(s, p, 1);
    const double per_body = sim_stats(s).interactions_per_body;
    assert_true(per_body > 0 && per_body < n);
    assert_true(sim_tree_stats(s, ts));
    return per_body;
}

static inline bool load_galaxy_20k(Bodies *b, float *eps)
{
    const char *dir = getenv("STARBURST_DATA");
    char path[1024], err[256] = "";
    snprintf(path, sizeof path, "%s/galaxy_20K.bin", dir ? dir : STARBURST_SOURCE_DIR "/../shared/data");
    double time;
    if (tipsy_read(path, b, &time, err, sizeof err) != 0) {
        print_message("skipped: %s\n", err);
        test_skip();
        return false;
    }
    b->n /= SCALE;
    SceneInfo info;
    Bodies tmp;
    build_scene(SCENE_DISK, 1024, &tmp, &info);
    bodies_free(&tmp);
    *eps = info.softening;
    return true;
}

/* The method's accuracy at the default theta on galaxy_20K (skipped where the file is not). */
static inline void check_galaxy_accuracy(SimForce force)
{
    Bodies b;
    float eps;
    if (!load_galaxy_20k(&b, &eps)) return;
    check_default_accuracy(&b, force, eps, "galaxy_20K");
    bodies_free(&b);
}

/* Eight tight Plummer clumps (radius ~0.01) in a box of side 10, a hundred times their softening
 * apart and more: deep trees and cells whose mass sits far from their centre. */
static inline void clustered(Bodies *b, int n)
{
    Bodies clump;
    SceneInfo info;
    const int per = n / 8;
    build_scene(SCENE_PLUMMER, per, &clump, &info);
    assert_int_equal(bodies_alloc(b, 8 * per), 0);
    uint64_t seed = 99;
    for (int c = 0; c < 8; c++) {
        const double at[3] = {10 * rng_uniform(&seed), 10 * rng_uniform(&seed), 10 * rng_uniform(&seed)};
        const double scale = 0.01 * (1 + c);
        for (int i = 0; i < per; i++) {
            float *p = b->pos + 4 * (size_t)(c * per + i);
            for (int k = 0; k < 3; k++) p[k] = (float)(at[k] + scale * clump.pos[4 * i + k]);
            p[3] = clump.pos[4 * i + 3] / 8;
        }
    }
    bodies_free(&clump);
}

/* The error-based opening test (kernels/tree_geometry.h) at the default alpha (the tree's, or the
 * fmm's near field's, within the widest angle; the fmm's far angle from the default theta),
 * through the sim API as a run takes it: a first step from no previous accelerations (the
 * geometric fallback), then the accelerations from that step's. Within the limits; the same bits
 * again and on 1 or 2 threads; with fewer, fewer terms a body than the geometric default. */
static inline Errors rel_errors(SimForce force, const Bodies *b, float eps, int threads, float *acc, double *terms)
{
    Sim *s = make_sim(b, force, threads);
    const SimParams p = {.dt = 0, .softening = eps, .damping = 1, .alpha = NBODY_TREE_REL_ALPHA};
    sim_advance(s, &p, 1); /* the fallback's accelerations, then a call from them */
    sim_advance(s, &p, 1);
    *terms = sim_stats(s).interactions_per_body;
    sim_accelerations(s, eps, acc);
    sim_destroy(s);
    return errors_of(b, acc, eps, 2000 / SCALE);
}

static inline void check_rel(SimForce force, const Bodies *b, float eps, bool fewer, const char *what)
{
    const size_t bytes = 3 * (size_t)b->n * sizeof(float);
    float *acc = malloc(bytes), *again = malloc(bytes), *one = malloc(bytes);
    assert_non_null(acc), assert_non_null(again), assert_non_null(one);
    double terms, terms_again;
    const Errors e = rel_errors(force, b, eps, 2, acc, &terms);
    Sim *g = make_sim(b, force, 2);
    sim_advance(g, &(SimParams){.dt = 0, .softening = eps, .damping = 1}, 1);
    const double geo = sim_stats(g).interactions_per_body;
    sim_destroy(g);
    print_message("%s %-10s N %6d theta_max %.2f alpha %.1e: median %.2e  p99 %.2e  worst %.2e  %.0f terms a body "
                  "(theta %.2f: %.0f)\n",
                  sim_force_name(force), what, b->n, (double)NBODY_TREE_REL_THETA, (double)NBODY_TREE_REL_ALPHA, e.median, e.p99, e.worst,
                  terms, (double)params_theta(0), geo);
    if (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX))
        fail_msg("%s: median %.3g (<= %.0e), p99 %.3g (<= %.0e)", what, e.median, MEDIAN_MAX, e.p99, P99_MAX);
    /* Cheaper where there is a far field to take: at 16,384 bodies, not at the sanitizers' 2,048
     * (941 terms against 884 on the collision). */
    if (fewer && b->n >= 16384 && !(terms < geo))
        fail_msg("%s: %.0f terms a body, not fewer than theta 0.4's %.0f", what, terms, geo);
    (void)rel_errors(force, b, eps, 2, again, &terms_again);
    (void)rel_errors(force, b, eps, 1, one, &terms_again);
    assert_memory_equal(acc, again, bytes);
    assert_memory_equal(acc, one, bytes);
    free(acc), free(again), free(one);
}


#endif
