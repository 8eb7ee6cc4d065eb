/* The CPU tree force (Barnes-Hut with quadrupoles): its error against the f64 direct sum on
 * several systems, the error falling with theta, bit-for-bit repeats on any number of threads,
 * degenerate inputs, energy over a long run, and the force-method API. Built with sanitizers
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

#include "reference.h"
#include "test_skip.h"

#include "scene/scene.h"
#include "scene/tipsy.h"
#include "sim/sim.h"

#ifdef STARBURST_SANITIZED
#define SCALE 8 /* systems are this many times smaller */
#else
#define SCALE 1
#endif

/* Energy run: bodies and the bound on |dE/E0| over 1000 steps. */
#define ENERGY_N 8192
#define ENERGY_BOUND 1e-4

/* The accuracy targets at the default theta. */
#define MEDIAN_MAX 1e-4
#define P99_MAX 1e-3

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s) { return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static Sim *make_sim(const Bodies *b, SimForce force, int threads)
{
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = force, .threads = threads}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

static void build_scene(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 7}, b, info, err, sizeof err) != 0)
        fail_msg("scene_build: %s", err);
}

/* Sets theta for sim_accelerations: an advance of 0 steps does nothing, so one step of dt 0. */
static void use_theta(Sim *s, float theta, float eps)
{
    sim_advance(s, &(SimParams){.dt = 0, .softening = eps, .damping = 1, .theta = theta}, 1);
}

typedef struct Errors {
    double median, p99, worst;
} Errors;

/* Relative force errors |a - a_ref| / |a_ref| of `count` evenly spread bodies. */
static Errors errors_of(const Bodies *b, const float *acc, float eps, int count)
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

/* The tree's accelerations of b at theta (0 = default), and their errors. */
static Errors tree_errors(const Bodies *b, float eps, float theta, const char *what)
{
    Sim *s = make_sim(b, SIM_FORCE_TREE, 0);
    use_theta(s, theta, eps);
    float *acc = malloc(3 * (size_t)b->n * sizeof *acc);
    assert_non_null(acc);
    const double t0 = now_ms();
    sim_accelerations(s, eps, acc);
    const double ms = now_ms() - t0;
    sim_advance(s, &(SimParams){.dt = 0, .softening = eps, .damping = 1, .theta = theta}, 1);
    const double per_body = sim_stats(s).interactions_per_body;
    Errors e = errors_of(b, acc, eps, 2000 / SCALE);
    print_message("%-10s N %6d theta %.2f: median %.2e  p99 %.2e  worst %.2e  %.0f interactions/body  %.1f ms\n",
                  what, b->n, theta > 0 ? theta : SIM_THETA_DEFAULT, e.median, e.p99, e.worst, per_body, ms);
    free(acc);
    sim_destroy(s);
    return e;
}

static void check_default_accuracy(const Bodies *b, float eps, const char *what)
{
    Errors e = tree_errors(b, eps, 0, what);
    if (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX))
        fail_msg("%s: median %.3g (<= %.0e), p99 %.3g (<= %.0e)", what, e.median, MEDIAN_MAX, e.p99, P99_MAX);
}

static void accuracy_plummer(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_PLUMMER, 16384 / SCALE, &b, &info);
    check_default_accuracy(&b, info.softening, "plummer");
    bodies_free(&b);
}

static void accuracy_collision(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 16384 / SCALE, &b, &info);
    check_default_accuracy(&b, info.softening, "collision");
    bodies_free(&b);
}

static void accuracy_galaxy(void **state)
{
    const char *dir = getenv("STARBURST_DATA");
    char path[1024], err[256] = "";
    snprintf(path, sizeof path, "%s/galaxy_20K.bin", dir ? dir : STARBURST_SOURCE_DIR "/../shared/data");
    Bodies b;
    double time;
    if (tipsy_read(path, &b, &time, err, sizeof err) != 0) {
        print_message("skipped: %s\n", err);
        test_skip();
        return;
    }
    b.n /= SCALE;
    /* The softening the galaxy scenes run with. */
    SceneInfo info;
    Bodies tmp;
    build_scene(SCENE_DISK, 1024, &tmp, &info);
    bodies_free(&tmp);
    check_default_accuracy(&b, info.softening, "galaxy_20K");
    bodies_free(&b);
}

/* Eight tight Plummer clumps (radius ~0.01) in a box of side 10, a hundred times their softening
 * apart and more: deep trees and cells whose mass sits far from their centre. */
static void clustered(Bodies *b, int n)
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

static void accuracy_clustered(void **state)
{
    Bodies b;
    clustered(&b, 16384 / SCALE);
    check_default_accuracy(&b, 1e-4f, "clustered");
    bodies_free(&b);
}

/* Smaller angles open more cells: the median error falls from theta 0.8 to 0.5 to 0.3. */
static void error_falls_with_theta(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_PLUMMER, 8192 / SCALE, &b, &info);
    const float thetas[] = {1.0f, 0.8f, 0.5f, 0.3f};
    double last = INFINITY;
    for (int i = 0; i < 4; i++) {
        Errors e = tree_errors(&b, info.softening, thetas[i], "plummer");
        if (!(e.median < last)) fail_msg("theta %.2f: median %.3g, not below %.3g", thetas[i], e.median, last);
        last = e.median;
    }
    bodies_free(&b);
}

static void accelerations(const Bodies *b, SimForce force, int threads, float eps, float *acc)
{
    Sim *s = make_sim(b, force, threads);
    use_theta(s, 0, eps);
    sim_accelerations(s, eps, acc);
    sim_destroy(s);
}

/* The same input gives the same bits: twice, and on 1 and 2 threads; and after 20 steps. */
static void bit_for_bit(void **state)
{
    Bodies b;
    SceneInfo info;
    build_scene(SCENE_COLLISION, 12000 / SCALE, &b, &info);
    const size_t bytes = 3 * (size_t)b.n * sizeof(float);
    float *a = malloc(bytes), *c = malloc(bytes), *d = malloc(bytes);
    accelerations(&b, SIM_FORCE_TREE, 2, info.softening, a);
    accelerations(&b, SIM_FORCE_TREE, 2, info.softening, c);
    accelerations(&b, SIM_FORCE_TREE, 1, info.softening, d);
    assert_memory_equal(a, c, bytes);
    assert_memory_equal(a, d, bytes);

    Bodies one, two;
    assert_int_equal(bodies_alloc(&one, b.n), 0);
    assert_int_equal(bodies_alloc(&two, b.n), 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    Sim *s1 = make_sim(&b, SIM_FORCE_TREE, 1), *s2 = make_sim(&b, SIM_FORCE_TREE, 2);
    sim_advance(s1, &p, 20);
    sim_advance(s2, &p, 20);
    sim_read(s1, &one);
    sim_read(s2, &two);
    assert_memory_equal(one.pos, two.pos, 4 * (size_t)b.n * sizeof(float));
    assert_memory_equal(one.vel, two.vel, 4 * (size_t)b.n * sizeof(float));
    sim_destroy(s1), sim_destroy(s2);
    bodies_free(&one), bodies_free(&two);
    free(a), free(c), free(d);
    bodies_free(&b);
}

/* The tree's accelerations of b are finite and match the f64 sum: the worst body to tol where
 * tol > 0, else to the default theta's targets. */
static void check_small(const Bodies *b, float eps, double tol, const char *what)
{
    float *acc = malloc(3 * (size_t)b->n * sizeof *acc);
    accelerations(b, SIM_FORCE_TREE, 2, eps, acc);
    for (int i = 0; i < 3 * b->n; i++)
        if (!isfinite(acc[i])) fail_msg("%s: acceleration %d is %g", what, i, acc[i]);
    Errors e = errors_of(b, acc, eps, b->n);
    print_message("%-28s N %5d: median %.2e  p99 %.2e  worst %.2e\n", what, b->n, e.median, e.p99, e.worst);
    if (tol > 0 && !(e.worst <= tol)) fail_msg("%s: worst error %.3g > %.1g", what, e.worst, tol);
    if (tol == 0 && (!(e.median <= MEDIAN_MAX) || !(e.p99 <= P99_MAX)))
        fail_msg("%s: median %.3g, p99 %.3g", what, e.median, e.p99);
    free(acc);
}

static void random_ball(Bodies *b, int n, uint64_t seed)
{
    assert_int_equal(bodies_alloc(b, n), 0);
    for (int i = 0; i < n; i++) {
        float *p = b->pos + 4 * i;
        for (int k = 0; k < 3; k++) p[k] = (float)(2 * rng_uniform(&seed) - 1);
        p[3] = (float)((0.5 + rng_uniform(&seed)) / n);
    }
}

static void degenerate_inputs(void **state)
{
    Bodies b;
    /* N = 1: no force. */
    random_ball(&b, 1, 1);
    float acc[3 * 3] = {1, 1, 1};
    accelerations(&b, SIM_FORCE_TREE, 2, 0.01f, acc);
    assert_true(acc[0] == 0 && acc[1] == 0 && acc[2] == 0);
    bodies_free(&b);
    /* N = 2 and 3, with and without softening: all pairs direct, so float accuracy. */
    for (int n = 2; n <= 3; n++) {
        random_ball(&b, n, 10 + n);
        check_small(&b, 0.0f, 1e-5, n == 2 ? "two bodies, eps 0" : "three bodies, eps 0");
        check_small(&b, 0.05f, 1e-5, n == 2 ? "two bodies, eps 0.05" : "three bodies, eps 0.05");
        bodies_free(&b);
    }
    /* All bodies at one point: one leaf at the deepest level, every force zero. */
    random_ball(&b, 3000 / SCALE, 3);
    for (int i = 0; i < b.n; i++) b.pos[4 * i] = b.pos[4 * i + 1] = b.pos[4 * i + 2] = 0.25f;
    float *all = malloc(3 * (size_t)b.n * sizeof *all);
    for (int eps = 0; eps < 2; eps++) {
        accelerations(&b, SIM_FORCE_TREE, 2, eps ? 0.01f : 0.0f, all);
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
    check_small(&b, 0.01f, 0, "coincident pairs, eps 0.01");
    check_small(&b, 0.0f, 0, "coincident pairs, eps 0");
    bodies_free(&b);
    /* One body 1e6 scale lengths away: the bounding cube is huge and the rest share few cells. */
    build_scene(SCENE_PLUMMER, 2000 / SCALE, &b, &info);
    b.pos[0] = 1e6f;
    check_small(&b, info.softening, 0, "one body 1e6 away");
    bodies_free(&b);
    /* N not a power of two. */
    build_scene(SCENE_PLUMMER, 4097, &b, &info);
    check_small(&b, info.softening, 0, "plummer, N = 4097");
    bodies_free(&b);
}

/* Energy over 1000 steps of the tree. */
static void energy_over_1000_steps(void **state)
{
    Bodies b;
    SceneInfo info;
    const int n = ENERGY_N / SCALE, steps = 1000 / SCALE;
    build_scene(SCENE_PLUMMER, n, &b, &info);
    Sim *s = make_sim(&b, SIM_FORCE_TREE, 0);
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
    print_message("energy: N %d, %d steps of dt %g: worst |dE/E0| %.2e (bound %.0e), %.1f s\n", n, steps, info.dt,
                  worst, ENERGY_BOUND, (now_ms() - t0) * 1e-3);
    assert_false(sim_diverged(s));
    if (!(worst <= ENERGY_BOUND)) fail_msg("|dE/E0| %.3g > %.0e", worst, ENERGY_BOUND);
    sim_destroy(s);
    bodies_free(&b);
}

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
    sim_advance(st, &p, 20);
    sim_advance(sd, &p, 20);
    sim_read(st, &t);
    sim_read(sd, &d);
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
    Sim *s = make_sim(&b, SIM_FORCE_AUTO, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_TREE);
    SimTreeStats ts;
    assert_false(sim_tree_stats(s, &ts)); /* no force call yet */
    const SimParams p = {.dt = 1e-3f, .softening = 0.01f, .damping = 1};
    sim_advance(s, &p, 1);
    const double per_body = sim_stats(s).interactions_per_body;
    assert_true(per_body > 0 && per_body < b.n);
    /* The last force call's split and times: the two kinds of terms add up to what the HUD shows. */
    assert_true(sim_tree_stats(s, &ts));
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
    assert_int_equal(sim_set_force(s, SIM_FORCE_AUTO, err, sizeof err), 0);
    assert_int_equal(sim_force(s), SIM_FORCE_TREE);
    assert_int_equal(sim_set_force(s, SIM_FORCE_COUNT, err, sizeof err), -1);
    sim_destroy(s);
    bodies_free(&b);

    random_ball(&b, SIM_TREE_MIN_BODIES_CPU - 1, 6);
    s = make_sim(&b, SIM_FORCE_AUTO, 0);
    assert_int_equal(sim_force(s), SIM_FORCE_DIRECT);
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
