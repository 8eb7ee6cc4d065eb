/* The tree as the CUDA backend's force method, through the sim API: its forces against the f64
 * sum and against the CPU backend's tree on the same collision, a run that repeats bit for bit,
 * a run put back with its stored accelerations that goes on bit for bit, a live switch between
 * direct and tree, the fmm asked of the GPU running the tree, the opening
 * test by estimated error on both backends, and energy and momentum over 1000 steps of a
 * million-body collision with the tree (either test, and refitted between builds). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "scene/scene.h"
#include "tree_geometry.h"
#include "util/params.h"

#define SAMPLES 2000

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void collision(Bodies *b, SceneInfo *info, int n)
{
    char err[256];
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 3}, b, info, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static Sim *make(const Bodies *b, SimBackend backend, SimForce force)
{
    char err[256];
    Sim *s = sim_create(&(SimDesc){.backend = backend, .force = force}, b, err, sizeof err);
    if (!s) fail_msg("%s: %s", sim_backend_name(backend), err);
    assert_int_equal(sim_force(s), force);
    return s;
}

/* Median and 99th percentile of |a - ref| / |ref| over the sampled bodies (every n/SAMPLES-th). */
static void errors(const float *acc3, const double *ref, int n, double *median, double *p99)
{
    const int step = n > SAMPLES ? n / SAMPLES : 1, count = (n + step - 1) / step;
    double *e = malloc((size_t)count * sizeof *e);
    assert_non_null(e);
    for (int k = 0; k < count; k++) {
        const int i = k * step;
        double d2 = 0, r2 = 0;
        for (int c = 0; c < 3; c++) {
            const double d = acc3[3 * i + c] - ref[3 * k + c];
            d2 += d * d;
            r2 += ref[3 * k + c] * ref[3 * k + c];
        }
        e[k] = sqrt(d2 / r2);
    }
    qsort(e, (size_t)count, sizeof *e, by_value);
    *median = e[count / 2];
    *p99 = e[(int)(0.99 * (count - 1))];
    free(e);
}

/* The GPU's and the CPU's accelerations of a sample of b's bodies (every n/SAMPLES-th), each
 * against the f64 sum (median, p99), and the GPU's against the CPU's: the two trees group bodies
 * differently, so each should be within its error of the other. */
typedef struct TwoTrees {
    double gm, g99, cm, c99, xm, x99;
} TwoTrees;

static TwoTrees compare_trees(Sim *g, Sim *c, const Bodies *b, float softening)
{
    const int n = b->n, step = n > SAMPLES ? n / SAMPLES : 1, count = (n + step - 1) / step;
    int *targets = malloc((size_t)count * sizeof *targets);
    double *ref = malloc(3 * (size_t)count * sizeof *ref), *as_ref = malloc(3 * (size_t)count * sizeof *as_ref);
    float *gpu = malloc(3 * (size_t)n * sizeof *gpu), *cpu = malloc(3 * (size_t)n * sizeof *cpu);
    assert_true(targets && ref && as_ref && gpu && cpu);
    for (int k = 0; k < count; k++) targets[k] = k * step;
    sim_reference_subset(b->pos, n, softening, targets, count, ref);
    sim_accelerations(g, softening, gpu);
    sim_accelerations(c, softening, cpu);
    TwoTrees t;
    errors(gpu, ref, n, &t.gm, &t.g99);
    errors(cpu, ref, n, &t.cm, &t.c99);
    for (int k = 0; k < count; k++)
        for (int d = 0; d < 3; d++) as_ref[3 * k + d] = cpu[3 * targets[k] + d];
    errors(gpu, as_ref, n, &t.xm, &t.x99);
    free(targets), free(ref), free(as_ref), free(gpu), free(cpu);
    return t;
}

static void gpu_and_cpu_trees_meet_the_f64_sum(void **state)
{
    gpu_require_cuda();
    Bodies b;
    SceneInfo info;
    const int n = 65536;
    collision(&b, &info, n);
    Sim *g = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE), *c = make(&b, SIM_BACKEND_CPU, SIM_FORCE_TREE);
    const TwoTrees t = compare_trees(g, c, &b, info.softening);
    print_message("collision N = %d, theta %.2f: GPU tree median %.2e p99 %.2e; CPU tree median %.2e p99 %.2e\n", n,
                  params_theta(0), t.gm, t.g99, t.cm, t.c99);
    assert_true(t.gm <= 1e-4 && t.g99 <= 1e-3);
    assert_true(t.cm <= 1e-4 && t.c99 <= 1e-3);
    print_message("GPU tree against the CPU tree: median %.2e p99 %.2e\n", t.xm, t.x99);
    assert_true(t.xm <= 2e-4 && t.x99 <= 2e-3);
    sim_destroy(g);
    sim_destroy(c);
    bodies_free(&b);
}

/* The opening test by estimated error (SimParams.alpha, kernels/tree_geometry.h) through the sim
 * API on both backends, as a run takes it: a step's call from the previous step's accelerations.
 * Within the limits on either, fewer terms a body than the geometric default on the GPU, and each
 * tree within its error of the other. */
static void the_error_based_opening_runs_on_both_backends(void **state)
{
    gpu_require_cuda();
    Bodies b;
    SceneInfo info;
    const int n = 65536;
    collision(&b, &info, n);
    const SimParams geo = {.dt = 0, .softening = info.softening, .damping = 1};
    const SimParams rel = {.dt = 0, .softening = info.softening, .damping = 1, .theta = NBODY_TREE_REL_THETA,
                           .alpha = NBODY_TREE_REL_ALPHA};
    Sim *g = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE), *c = make(&b, SIM_BACKEND_CPU, SIM_FORCE_TREE);
    sim_advance(g, &geo, 1);
    const double geo_terms = sim_stats(g).interactions_per_body;
    sim_advance(g, &rel, 2); /* the accelerations change with alpha, then a step from them */
    sim_advance(c, &rel, 2);
    assert_null(sim_error(g));
    const double gpu_terms = sim_stats(g).interactions_per_body, cpu_terms = sim_stats(c).interactions_per_body;
    const TwoTrees t = compare_trees(g, c, &b, info.softening);
    print_message("collision N = %d, theta_max %.2f alpha %.1e: GPU median %.2e p99 %.2e, %.0f terms a body "
                  "(theta %.2f: %.0f); CPU median %.2e p99 %.2e, %.0f terms; GPU against CPU median %.2e p99 %.2e\n",
                  n, (double)NBODY_TREE_REL_THETA, (double)NBODY_TREE_REL_ALPHA, t.gm, t.g99, gpu_terms,
                  (double)params_theta(0), geo_terms, t.cm, t.c99, cpu_terms, t.xm, t.x99);
    assert_true(t.gm <= 1e-4 && t.g99 <= 1e-3);
    assert_true(t.cm <= 1e-4 && t.c99 <= 1e-3);
    assert_true(gpu_terms < geo_terms);
    assert_true(t.xm <= 2e-4 && t.x99 <= 2e-3);
    sim_destroy(g);
    sim_destroy(c);
    bodies_free(&b);
}

static void a_tree_run_repeats_and_switches_live(void **state)
{
    gpu_require_cuda();
    Bodies b, x1, x2;
    SceneInfo info;
    const int n = 200000;
    collision(&b, &info, n);
    assert_int_equal(bodies_alloc(&x1, n), 0);
    assert_int_equal(bodies_alloc(&x2, n), 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1, .theta = 0.5f};
    Sim *s1 = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE), *s2 = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE);
    sim_advance(s1, &p, 5);
    sim_advance(s2, &p, 5);
    assert_null(sim_error(s1));
    sim_read(s1, &x1);
    sim_read(s2, &x2);
    assert_memory_equal(x1.pos, x2.pos, 4 * (size_t)n * sizeof(float));
    assert_memory_equal(x1.vel, x2.vel, 4 * (size_t)n * sizeof(float));
    assert_true(sim_stats(s1).interactions_per_body > 100 && sim_stats(s1).interactions_per_body < n / 10);
    print_message("N = %d: two tree runs of 5 steps equal bit for bit; %.0f interactions a body\n", n,
                  sim_stats(s1).interactions_per_body);
    /* The fmm asked of the GPU, made so or switched to, runs the tree: the same bits. */
    char err[256];
    Sim *s3 = sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA, .force = SIM_FORCE_FMM}, &b, err, sizeof err);
    if (!s3) fail_msg("%s", err);
    assert_int_equal(sim_force(s3), SIM_FORCE_TREE);
    assert_int_equal(sim_set_force(s3, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_set_force(s3, SIM_FORCE_FMM, err, sizeof err), 0);
    assert_int_equal(sim_force(s3), SIM_FORCE_TREE);
    sim_advance(s3, &p, 5);
    assert_null(sim_error(s3));
    sim_read(s3, &x2);
    assert_memory_equal(x1.pos, x2.pos, 4 * (size_t)n * sizeof(float));
    sim_destroy(s3);
    print_message("the fmm asked of the GPU runs the tree: the same bits\n");
    /* Direct and back, live: the run goes on and stays close to the one that kept the tree. */
    assert_int_equal(sim_set_force(s2, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_force(s2), SIM_FORCE_DIRECT);
    sim_advance(s2, &p, 2);
    assert_int_equal(sim_set_force(s2, SIM_FORCE_TREE, err, sizeof err), 0);
    sim_advance(s2, &p, 2);
    sim_advance(s1, &p, 4);
    sim_read(s1, &x1);
    sim_read(s2, &x2);
    double worst = 0;
    for (int i = 0; i < 4 * n; i++) worst = fmax(worst, fabs(x1.pos[i] - x2.pos[i]));
    print_message("after 4 steps, 2 of them direct: positions within %.2e of the tree's run\n", worst);
    assert_true(worst < 1e-3);
    assert_null(sim_error(s2));
    sim_destroy(s1);
    sim_destroy(s2);
    bodies_free(&b);
    bodies_free(&x1);
    bodies_free(&x2);
}

/* A run of 131,072 bodies with the tree, by the angle and by estimated error, read at step 10
 * with its stored accelerations and put back (a new simulation made from it, as a load does, and
 * the same one loaded, as a scrub does): 10 more steps a frame at a time give the bits of the run
 * never interrupted. Without the accelerations the run by error goes elsewhere (its opening test
 * has no previous |a|). */
static void a_loaded_tree_run_goes_on_bit_for_bit(void **state)
{
    gpu_require_cuda();
    Bodies b, mid = {0}, want = {0}, got = {0};
    SceneInfo info;
    const int n = 131072, steps = 10;
    collision(&b, &info, n);
    for (int by_error = 0; by_error < 2; by_error++) {
        const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1, .theta = 0.5f,
                             .alpha = by_error ? NBODY_TREE_REL_ALPHA : 0};
        const char *how = by_error ? "by error" : "by the angle";
        Sim *s = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE);
        for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
        gpu_read_all(s, &mid, n);
        assert_int_equal(mid.acc_info.backend, SIM_BACKEND_CUDA);
        for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
        gpu_read_all(s, &want, n);
        /* A scrub: the same simulation loaded with the state of step 10. */
        char err[256];
        assert_int_equal(sim_load(s, &mid, err, sizeof err), 0);
        for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
        gpu_read_all(s, &got, n);
        assert_memory_equal(got.pos, want.pos, 4 * (size_t)n * sizeof(float));
        assert_memory_equal(got.vel, want.vel, 4 * (size_t)n * sizeof(float));
        sim_destroy(s);
        /* A load: a new simulation made from it, with and without the accelerations. */
        for (int with = 1; with >= 0; with--) {
            if (!with) mid.acc_info.backend = 0; /* none carried */
            s = make(&mid, SIM_BACKEND_CUDA, SIM_FORCE_TREE);
            for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
            gpu_read_all(s, &got, n);
            sim_destroy(s);
            const int differ = gpu_bodies_differing(&got, &want);
            print_message("tree %s, loaded at step %d %s its accelerations: %d of %d bodies differ at step %d\n", how,
                          steps, with ? "with" : "without", differ, n, 2 * steps);
            if (with || !by_error) assert_int_equal(differ, 0);
            else assert_true(differ > 0);
        }
    }
    bodies_free(&b);
    bodies_free(&mid);
    bodies_free(&want);
    bodies_free(&got);
}

/* Energy and momentum over 1000 steps of a million-body collision, the tree opened either way on
 * the same start: its forces are not mutual, so momentum drifts by what their errors leave
 * unbalanced. */
static void a_million_body_collision_keeps_its_energy(void **state)
{
    gpu_require_cuda();
    Bodies b, now;
    SceneInfo info;
    const int n = 1 << 20;
    collision(&b, &info, n);
    assert_int_equal(bodies_alloc(&now, n), 0);
    double p0[3], scale;
    gpu_momentum(&b, p0, &scale);
    /* The tree by the angle, opened by estimated error, and that refitted between builds every 4
     * steps. */
    const char *names[] = {"tree", "tree, opened by estimated error",
                           "tree, opened by estimated error, rebuilt every 4 steps"};
    for (int m = 0; m < 3; m++) {
        Sim *s = make(&b, SIM_BACKEND_CUDA, SIM_FORCE_TREE);
        const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1,
                             .theta = m >= 1 ? NBODY_TREE_REL_THETA : 0, .alpha = m >= 1 ? NBODY_TREE_REL_ALPHA : 0,
                             .rebuild_every = m == 2 ? 4 : 0};
        SimEnergy e0 = sim_energy(s, info.softening);
        const double E0 = e0.kinetic + e0.potential;
        double worst = 0, drift = 0;
        for (int k = 0; k < 10; k++) {
            sim_advance(s, &p, 100);
            assert_null(sim_error(s));
            SimEnergy e = sim_energy(s, info.softening);
            worst = fmax(worst, fabs((e.kinetic + e.potential - E0) / E0));
            double pk[3], unused;
            sim_read(s, &now);
            gpu_momentum(&now, pk, &unused);
            drift = fmax(drift, sqrt((pk[0] - p0[0]) * (pk[0] - p0[0]) + (pk[1] - p0[1]) * (pk[1] - p0[1]) +
                                     (pk[2] - p0[2]) * (pk[2] - p0[2])) / scale);
        }
        const SimStats st = sim_stats(s);
        print_message("N = %d, %s, 1000 steps of dt %.3g: worst |dE/E0| %.2e, worst |P - P0| / sum m|v| %.2e; "
                      "the last 100 steps %.2f ms each on the GPU\n",
                      n, names[m], info.dt, worst, drift, st.gpu_ms / 100);
        assert_true(worst <= 1e-3);
        assert_true(drift <= 1e-3);
        sim_destroy(s);
    }
    bodies_free(&now);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_and_cpu_trees_meet_the_f64_sum),
        cmocka_unit_test(the_error_based_opening_runs_on_both_backends),
        cmocka_unit_test(a_tree_run_repeats_and_switches_live),
        cmocka_unit_test(a_loaded_tree_run_goes_on_bit_for_bit),
        cmocka_unit_test(a_million_body_collision_keeps_its_energy),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
