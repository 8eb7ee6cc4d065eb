/* The tree code (kernels/tree.h) against the f64 direct sum: per-body relative force error
 * |a - ref| / |ref|, its median below 1e-4 and its 99th percentile below 1e-3 at the default
 * opening angle, on a Plummer sphere, the collision scene, the galaxy model and a clustered set
 * (and on a uniform random ball at theta 0.35: see BALL_THETA); errors that fall with theta; the
 * same bits from two calls and two trees; and inputs that break naive trees (one body, all bodies
 * at one point, coincident pairs, one body 1e6 away, a million bodies); the error-based opening
 * test; the refit between builds. Large N is checked on a sample of the bodies.
 *
 * The default theta, 0.4, is the largest of 0.5, 0.45, 0.4 that meets both limits on the galaxy
 * inputs: at 0.45 the collision scene's and the galaxy's medians pass 1e-4 (every check prints its
 * errors at the other angles too).
 *
 * `test_cuda_tree --quick` checks 8K bodies where the others check 64K and leaves out the million (for
 * the sanitizers); `test_cuda_tree --bench [N ...]` runs only the timing: ms per call at 64K,
 * 256K, 1M, 4M and 8M bodies (or the N given) of the collision scene, the median of 10 calls
 * after 3 of warm-up, with the build and walk split; `test_cuda_tree --front [N ...]` the front of
 * time against error, the geometric test over theta and the error-based one
 * (nbody_tree_forces_rel) over its alpha and widest angle, on the collision scene (1M, or the N
 * given) and galaxy_20K. */
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

#ifdef STARBURST_HAVE_CUDA
#include "cuda_check.h"
#include "kernels.h"
#include "tree.h"
#endif
#include "tree_common.h"

#ifdef STARBURST_HAVE_CUDA

/* Theta (the default, or the uniform ball's) on b: within MEDIAN_TOL and P99_TOL of the reference. */
static void check_accuracy_at(const char *what, const Bodies *b, float eps, float theta)
{
    Reference ref;
    reference_build(&ref, b, eps, SAMPLE);
    Run r;
    run_open(&r, b);
    NbodyTreeStats s;
    /* Other angles too, for the record: what the default could be. */
    static const float others[] = {0.5f, 0.45f, 0.4f, 0.35f, 0.3f};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        if (others[k] == theta) continue;
        run_forces(&r, eps, others[k], &s);
        Errors o = errors_of(what, r.host, &ref);
        print_message("%-22s N = %7d theta %.2f: median %.2e  p99 %.2e  worst %.2e | %.0f body + %.0f cell\n",
                      what, b->n, others[k], o.median, o.p99, o.worst, s.body_body, s.body_cell);
    }
    run_forces(&r, eps, theta, &s);
    Errors e = errors_of(what, r.host, &ref);
    print_message("%-22s N = %7d theta %.2f: median %.2e  p99 %.2e  worst %.2e | %d cells, depth %d, "
                  "%.0f body + %.0f cell terms a body\n",
                  what, b->n, theta, e.median, e.p99, e.worst, s.cells, s.depth, s.body_body,
                  s.body_cell);
    run_close(&r);
    reference_free(&ref);
    check_limits(what, b->n, e);
}

static void check_accuracy(const char *what, const Bodies *b, float eps)
{
    check_accuracy_at(what, b, eps, params_theta(0));
}

/* 64 clumps, Gaussian, of radii from 1e-3 to 1e-1 (log-uniform) in the unit cube, and a fifth
 * of the bodies spread over the cube between them. */
static void clustered(Bodies *b, int n, uint64_t seed)
{
    if (bodies_alloc(b, n) != 0) fail_msg("out of memory");
    uint64_t s = seed;
    double centre[64][4];
    for (int c = 0; c < 64; c++) {
        for (int k = 0; k < 3; k++) centre[c][k] = 2 * rng_uniform(&s) - 1;
        centre[c][3] = pow(10.0, -3.0 + 2.0 * rng_uniform(&s));
    }
    for (int i = 0; i < n; i++) {
        float *p = b->pos + 4 * i;
        if (i % 5 == 0) {
            for (int k = 0; k < 3; k++) p[k] = (float)(2 * rng_uniform(&s) - 1);
        } else {
            const double *c = centre[rng_next(&s) % 64];
            for (int k = 0; k < 3; k++) {
                /* Box-Muller */
                double u = rng_uniform(&s) + 1e-300, v = rng_uniform(&s);
                p[k] = (float)(c[k] + c[3] * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
            }
        }
        p[3] = (float)(1.0 / n);
        for (int k = 0; k < 4; k++) b->vel[4 * i + k] = 0;
    }
}

static void test_random_ball(void **state)
{
    gpu_require_cuda();
    Bodies b;
    gpu_random_ball(&b, BIG, 11);
    check_accuracy_at("random ball", &b, 0.01f, BALL_THETA);
    bodies_free(&b);
}

static void test_plummer(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_PLUMMER, BIG, &eps);
    check_accuracy("plummer", &b, eps);
    bodies_free(&b);
}

static void test_collision(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, BIG, &eps);
    check_accuracy("collision", &b, eps);
    bodies_free(&b);
}

static void test_galaxy(void **state)
{
    gpu_require_cuda();
    Bodies b;
    gpu_galaxy(&b, 20000);
    check_accuracy("galaxy_20K", &b, 0.1f);
    bodies_free(&b);
}

static void test_clustered(void **state)
{
    gpu_require_cuda();
    Bodies b;
    clustered(&b, BIG, 5);
    check_accuracy("clustered", &b, 1e-4f);
    bodies_free(&b);
}

/* The median and 99th percentile fall as theta falls, and theta 0 is the direct sum. */
static void test_theta(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, BIG, &eps);
    Reference ref;
    reference_build(&ref, &b, eps, SAMPLE);
    Run r;
    run_open(&r, &b);
    static const float thetas[] = {1.0f, 0.8f, 0.6f, 0.5f, 0.45f, 0.4f, 0.35f, 0.3f};
    Errors last = {INFINITY, INFINITY, INFINITY};
    for (size_t k = 0; k < sizeof thetas / sizeof thetas[0]; k++) {
        NbodyTreeStats s;
        run_forces(&r, eps, thetas[k], &s);
        Errors e = errors_of("theta sweep", r.host, &ref);
        print_message("collision N = %d theta %.2f: median %.2e  p99 %.2e  worst %.2e | %.0f body + %.0f cell "
                      "terms a body, build %.2f ms, walk %.2f ms\n",
                      b.n, thetas[k], e.median, e.p99, e.worst, s.body_body, s.body_cell, s.build_ms, s.walk_ms);
        if (!(e.median < last.median) || !(e.p99 < last.p99))
            fail_msg("theta %.2f: median %.3g, p99 %.3g do not fall below theta %.2f's %.3g, %.3g", thetas[k],
                     e.median, e.p99, thetas[k - 1], last.median, last.p99);
        last = e;
    }
    NbodyTreeStats s;
    run_forces(&r, eps, 0.0f, &s);
    Errors e = errors_of("theta 0", r.host, &ref);
    print_message("collision N = %d theta 0: median %.2e p99 %.2e (%.0f body + %.0f cell terms a body)\n", b.n,
                  e.median, e.p99, s.body_body, s.body_cell);
    /* The direct sum in float: its median is the floor under the tree's. Its 99th percentile
     * (bodies whose 64K terms cancel) was seen above theta 0.3's: the tree sums fewer terms. */
    assert_true(s.body_cell == 0 && s.body_body == b.n);
    assert_true(e.median < last.median);
    run_close(&r);
    reference_free(&ref);
    bodies_free(&b);
}

/* Two calls, and a second tree, give the same bits. */
static void test_repeat(void **state)
{
    gpu_require_cuda();
    Bodies b;
    clustered(&b, quick ? 10000 : 100000, 9);
    check_repeat(&b, 1e-3f);
    bodies_free(&b);
}

/* One opening test: geometric at theta (alpha 0), or error-based at alpha with theta the widest. */
typedef struct Opening {
    float theta, alpha;
} Opening;

static void opening_call(Run *r, float eps, Opening o)
{
    cuda_ok(CUDA_CHECK(&cuda, nbody_tree_forces_rel(r->tree, r->pos, r->n, eps * eps, o.theta, o.alpha, r->acc, 0)));
}

/* The median ms of TREE_TIMED calls after TREE_WARM, each starting from the last one's
 * accelerations (as a run's steps do), and the last call's stats. */
static float opening_ms(Run *r, float eps, Opening o, NbodyTreeStats *s)
{
    float t[TREE_TIMED];
    cudaEvent_t start, stop;
    cuda_ok(CUDA_CHECK(&cuda, cudaEventCreate(&start)));
    cuda_ok(CUDA_CHECK(&cuda, cudaEventCreate(&stop)));
    for (int i = 0; i < TREE_WARM + TREE_TIMED; i++) {
        cuda_ok(CUDA_CHECK(&cuda, cudaEventRecord(start, 0)));
        opening_call(r, eps, o);
        cuda_ok(CUDA_CHECK(&cuda, cudaEventRecord(stop, 0)));
        cuda_ok(CUDA_CHECK(&cuda, cudaEventSynchronize(stop)));
        if (i >= TREE_WARM) cuda_ok(CUDA_CHECK(&cuda, cudaEventElapsedTime(&t[i - TREE_WARM], start, stop)));
    }
    nbody_tree_stats(r->tree, s);
    cuda_ok(CUDA_CHECK(&cuda, cudaEventDestroy(start)));
    cuda_ok(CUDA_CHECK(&cuda, cudaEventDestroy(stop)));
    return median_of(t, TREE_TIMED);
}

/* The errors of one call at o that starts from the geometric default's accelerations. */
static Errors opening_errors(Run *r, float eps, Opening o, const Reference *ref, const char *what)
{
    run_forces(r, eps, params_theta(0), NULL);
    opening_call(r, eps, o);
    cuda_ok(CUDA_CHECK(&cuda, cudaDeviceSynchronize()));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(r->host, r->acc, (size_t)r->n * sizeof(float4), cudaMemcpyDeviceToHost)));
    return errors_of(what, r->host, ref);
}

/* The error-based opening test at the widest angle and alpha tree.h names: within the limits on
 * the Plummer sphere, the collision scene, galaxy_20K and the clustered set, starting from the
 * geometric default's accelerations as a run's step does from its last; with no previous
 * accelerations (NaN, or all zero) it falls back to the geometric test at the default angle and
 * stays within them; the same bits from the same input; and fewer terms than the geometric
 * default on the collision scene. */
static void check_rel(const char *what, const Bodies *b, float eps, bool fewer)
{
    const Opening rel = {NBODY_TREE_REL_THETA, NBODY_TREE_REL_ALPHA};
    Reference ref;
    reference_build(&ref, b, eps, SAMPLE);
    Run r;
    run_open(&r, b);
    NbodyTreeStats geo, s;
    run_forces(&r, eps, params_theta(0), &geo);
    const Errors e = opening_errors(&r, eps, rel, &ref, what);
    nbody_tree_stats(r.tree, &s);
    print_message("%-22s N = %7d theta_max %.2f alpha %.1e: median %.2e  p99 %.2e  worst %.2e | %.0f body + %.0f "
                  "cell terms a body (theta %.2f: %.0f + %.0f)\n",
                  what, b->n, (double)rel.theta, (double)rel.alpha, e.median, e.p99, e.worst, s.body_body,
                  s.body_cell, (double)params_theta(0), geo.body_body, geo.body_cell);
    check_limits(what, b->n, e);
    if (fewer && !(s.body_body + s.body_cell < geo.body_body + geo.body_cell))
        fail_msg("%s: %.0f terms a body, not fewer than theta %.2f's %.0f", what, s.body_body + s.body_cell,
                 (double)params_theta(0), geo.body_body + geo.body_cell);
    /* The same bits from the same accelerations in. */
    float *first = malloc((size_t)b->n * sizeof(float4));
    assert_non_null(first);
    memcpy(first, r.host, (size_t)b->n * sizeof(float4));
    (void)opening_errors(&r, eps, rel, &ref, what);
    assert_memory_equal(first, r.host, (size_t)b->n * sizeof(float4));
    free(first);
    /* No previous accelerations: NaN (0xff bytes), then zeros. */
    for (int fill = 0; fill < 2; fill++) {
        cuda_ok(CUDA_CHECK(&cuda, cudaMemset(r.acc, fill ? 0 : 0xff, (size_t)r.n * sizeof(float4))));
        opening_call(&r, eps, rel);
        cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(r.host, r.acc, (size_t)r.n * sizeof(float4), cudaMemcpyDeviceToHost)));
        const Errors f = errors_of(what, r.host, &ref);
        print_message("%-22s   no previous accelerations (%s): median %.2e  p99 %.2e\n", what, fill ? "zero" : "NaN",
                      f.median, f.p99);
        check_limits(what, b->n, f);
    }
    run_close(&r);
    reference_free(&ref);
}

static void test_error_opening(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_PLUMMER, BIG, &eps);
    check_rel("plummer", &b, eps, false);
    bodies_free(&b);
    scene_bodies(&b, SCENE_COLLISION, BIG, &eps);
    check_rel("collision", &b, eps, true);
    bodies_free(&b);
    gpu_galaxy(&b, 20000);
    check_rel("galaxy_20K", &b, 0.1f, false);
    bodies_free(&b);
    clustered(&b, BIG, 5);
    check_rel("clustered", &b, 1e-4f, false);
    bodies_free(&b);
}

/* Refit (nbody_tree_set_rebuild): a tree rebuilt every REFIT_EVERY calls, over the states of a run
 * (the bodies kicked and drifted by the tree's own forces between calls), stays within the limits
 * at every call of the cycle, with the geometric default and with the error-based test; its
 * refits give other bits than a fresh build at the same places (they do refit) and the call after
 * the cycle a fresh build's bits (it does rebuild); and bodies moved far after a build (each by up
 * to 5 % of the system's size) still get forces within the limits from the refit. */
#define REFIT_EVERY 8
#define REFIT_DT 0.1f

static void copy_acc(Run *to, const Run *from)
{
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(to->acc, from->acc, (size_t)from->n * sizeof(float4), cudaMemcpyDeviceToDevice)));
}

static void upload(Run *r, const Bodies *b)
{
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(r->pos, b->pos, (size_t)b->n * sizeof(float4), cudaMemcpyHostToDevice)));
}

static Errors refit_call(Run *r, const Bodies *b, float eps, Opening o, float *host)
{
    opening_call(r, eps, o);
    cuda_ok(CUDA_CHECK(&cuda, cudaDeviceSynchronize()));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(host, r->acc, (size_t)r->n * sizeof(float4), cudaMemcpyDeviceToHost)));
    Reference ref;
    reference_build(&ref, b, eps, SAMPLE);
    const Errors e = errors_of("refit", host, &ref);
    reference_free(&ref);
    return e;
}

static void check_refit(const char *what, const Bodies *start, float eps, Opening o)
{
    const int n = start->n;
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n), 0);
    memcpy(b.pos, start->pos, 4 * (size_t)n * sizeof(float));
    memcpy(b.vel, start->vel, 4 * (size_t)n * sizeof(float));
    Run r, fresh;
    run_open(&r, &b);
    run_open(&fresh, &b);
    nbody_tree_set_rebuild(r.tree, REFIT_EVERY);
    cuda_ok(CUDA_CHECK(&cuda, cudaMemset(r.acc, 0, (size_t)n * sizeof(float4))));
    float *mine = malloc((size_t)n * sizeof(float4)), *built = malloc((size_t)n * sizeof(float4));
    assert_non_null(mine), assert_non_null(built);
    double worst_median = 0, worst_p99 = 0;
    int differ = 0;
    for (int call = 0; call <= REFIT_EVERY; call++) {
        upload(&r, &b);
        upload(&fresh, &b);
        copy_acc(&fresh, &r); /* the same previous accelerations for both */
        const Errors e = refit_call(&r, &b, eps, o, mine);
        (void)refit_call(&fresh, &b, eps, o, built);
        check_limits(what, n, e);
        worst_median = fmax(worst_median, e.median), worst_p99 = fmax(worst_p99, e.p99);
        const bool same = memcmp(mine, built, (size_t)n * sizeof(float4)) == 0;
        if (call == 0 || call == REFIT_EVERY) {
            if (!same) fail_msg("%s: call %d rebuilds, but its bits are not a fresh build's", what, call);
        } else {
            differ += !same;
        }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                b.vel[4 * i + k] += mine[4 * i + k] * REFIT_DT;
                b.pos[4 * i + k] += b.vel[4 * i + k] * REFIT_DT;
            }
    }
    if (differ == 0) fail_msg("%s: no refit gave other bits than a fresh build", what);
    /* Moved far: after the rebuild above, each body by up to 5 % of the system's size. */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], b.pos[4 * i + k]), hi[k] = fmaxf(hi[k], b.pos[4 * i + k]);
    const float size = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    uint64_t seed = 5;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) b.pos[4 * i + k] += (float)(0.05 * size * (2 * rng_uniform(&seed) - 1));
    upload(&r, &b);
    NbodyTreeStats s;
    const Errors far = refit_call(&r, &b, eps, o, mine);
    nbody_tree_stats(r.tree, &s);
    print_message("%-22s N = %7d %s: over a cycle of %d calls (dt %.2f) median <= %.2e, p99 <= %.2e; %d of %d "
                  "refits other bits than a build; moved by up to %.3g: median %.2e p99 %.2e, %.0f + %.0f terms a body\n",
                  what, n, o.alpha > 0 ? "error-based" : "geometric", REFIT_EVERY, (double)REFIT_DT, worst_median,
                  worst_p99, differ, REFIT_EVERY - 1, 0.05 * size, far.median, far.p99, s.body_body, s.body_cell);
    check_limits(what, n, far);
    free(mine), free(built);
    run_close(&r), run_close(&fresh);
    bodies_free(&b);
}

static void test_refit(void **state)
{
    gpu_require_cuda();
    const Opening geo = {params_theta(0), 0}, rel = {NBODY_TREE_REL_THETA, NBODY_TREE_REL_ALPHA};
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, BIG, &eps);
    check_refit("collision", &b, eps, geo);
    check_refit("collision", &b, eps, rel);
    bodies_free(&b);
    scene_bodies(&b, SCENE_PLUMMER, BIG, &eps);
    check_refit("plummer", &b, eps, rel);
    bodies_free(&b);
}

static void check_small(const char *what, const Bodies *b, float eps)
{
    NbodyTreeStats s;
    const Errors e = small_errors(what, b, eps, &s);
    print_message("%-22s N = %7d: median %.2e  p99 %.2e  worst %.2e | %d cells, depth %d\n", what, b->n, e.median,
                  e.p99, e.worst, s.cells, s.depth);
    if (!within_limits(e)) fail_msg("%s N = %d: median %.3g, 99th percentile %.3g", what, b->n, e.median, e.p99);
}

static void test_degenerate(void **state)
{
    gpu_require_cuda();
    check_few_bodies(check_small);
    NbodyTreeStats s;
    const int n = check_one_point(&s);
    print_message("all at one point, N = %d: %d cells, depth %d\n", n, s.cells, s.depth);
    check_broken_balls(check_small);
}

static void test_million(void **state)
{
    gpu_require_cuda();
    if (quick) {
        print_message("--quick: left out\n");
        return;
    }
    Bodies b;
    gpu_random_ball(&b, 1 << 20, 12);
    check_accuracy_at("random ball", &b, 0.01f, BALL_THETA);
    bodies_free(&b);
}

/* ms per call of the collision scene: the whole call between events on the stream (the tree's
 * host waits included), and its build and walk parts. */
static void test_bench(void **state)
{
    gpu_require_cuda();
    char name[256] = "";
    int sms = 0;
    const size_t free_bytes = device_free(name, sizeof name, &sms);
    print_message("%s, %d SMs, %.2f GiB free: the largest tree that fits takes N = %d (%zu bytes); "
                  "1M bodies take %.1f MiB, 8M %.1f MiB\n",
                  name, sms, free_bytes / 1073741824.0, nbody_tree_max_n(free_bytes),
                  nbody_tree_bytes(nbody_tree_max_n(free_bytes)), nbody_tree_bytes(1 << 20) / 1048576.0,
                  nbody_tree_bytes(1 << 23) / 1048576.0);
    static const int defaults[] = {1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 23};
    const int *ns = bench_count ? bench_ns : defaults;
    const size_t sizes = bench_count ? (size_t)bench_count : sizeof defaults / sizeof defaults[0];
    print_message("%9s %8s %8s %8s %7s %6s %8s %8s\n", "N", "call_ms", "build_ms", "walk_ms", "cells", "depth",
                  "body/b", "cell/b");
    for (size_t k = 0; k < sizes; k++) {
        Bodies b;
        float eps;
        scene_bodies(&b, SCENE_COLLISION, ns[k], &eps);
        Run r;
        run_open(&r, &b);
        NbodyTreeStats s;
        const Timing t = time_calls(&r, eps, &s);
        print_message("%9d %8.3f %8.3f %8.3f %7d %6d %8.0f %8.0f\n", b.n, t.call, t.build, t.walk, s.cells, s.depth,
                      s.body_body, s.body_cell);
        run_close(&r);
        bodies_free(&b);
    }
}

/* The front, time against error: the geometric test over theta, and the error-based one over
 * alpha at three widest angles, on the collision scene at each N (default 1M) and on galaxy_20K. */
static void test_front(void **state)
{
    gpu_require_cuda();
    static const int defaults[] = {1 << 20};
    const int *ns = bench_count ? bench_ns : defaults;
    const int sizes = bench_count ? bench_count : 1;
    static const Opening geometric[] = {{0.35f, 0}, {0.4f, 0}, {0.45f, 0}, {0.5f, 0}, {0.55f, 0}, {0.6f, 0}};
    static const float widest[] = {0.6f, 0.75f, 1.0f};
    static const float alphas[] = {1e-4f, 2e-4f, 3e-4f, 5e-4f, 7e-4f, 1e-3f};
    print_message("%-12s %9s %6s %8s %8s %9s %9s %8s %8s\n", "input", "N", "theta", "alpha", "call_ms", "median",
                  "p99", "body/b", "cell/b");
    for (int k = 0; k <= sizes; k++) {
        Bodies b;
        float eps;
        const char *what = k < sizes ? "collision" : "galaxy_20K";
        if (k < sizes) {
            scene_bodies(&b, SCENE_COLLISION, ns[k], &eps);
        } else {
            gpu_galaxy(&b, 20000);
            eps = 0.1f;
        }
        Reference ref;
        reference_build(&ref, &b, eps, SAMPLE);
        Run r;
        run_open(&r, &b);
        const int rows = (int)(sizeof geometric / sizeof geometric[0] + sizeof widest / sizeof widest[0] *
                                                                             (sizeof alphas / sizeof alphas[0]));
        for (int row = 0; row < rows; row++) {
            const int g = (int)(sizeof geometric / sizeof geometric[0]);
            const int na = (int)(sizeof alphas / sizeof alphas[0]);
            const Opening o = row < g ? geometric[row] : (Opening){widest[(row - g) / na], alphas[(row - g) % na]};
            const Errors e = opening_errors(&r, eps, o, &ref, what);
            NbodyTreeStats s;
            const float ms = opening_ms(&r, eps, o, &s);
            print_message("%-12s %9d %6.2f %8.1e %8.3f %9.2e %9.2e %8.0f %8.0f%s\n", what, b.n, (double)o.theta,
                          (double)o.alpha, (double)ms, e.median, e.p99, s.body_body, s.body_cell,
                          within_limits(e) ? "" : "  (misses)");
        }
        run_close(&r);
        reference_free(&ref);
        bodies_free(&b);
    }
}

#endif

int main(int argc, char **argv)
{
    tree_options(argc, argv);
#ifdef STARBURST_HAVE_CUDA
    const struct CMUnitTest checks[] = {
        cmocka_unit_test(test_random_ball), cmocka_unit_test(test_plummer),   cmocka_unit_test(test_collision),
        cmocka_unit_test(test_galaxy),      cmocka_unit_test(test_clustered), cmocka_unit_test(test_theta),
        cmocka_unit_test(test_repeat),      cmocka_unit_test(test_degenerate), cmocka_unit_test(test_million),
        cmocka_unit_test(test_error_opening),
        cmocka_unit_test(test_refit),
    };
    const struct CMUnitTest timing[] = {cmocka_unit_test(test_bench)};
    const struct CMUnitTest fronts[] = {cmocka_unit_test(test_front)};
    if (front) return test_exit_status(cmocka_run_group_tests_name("tree_front", fronts, NULL, NULL));
    if (bench) return test_exit_status(cmocka_run_group_tests_name("tree_bench", timing, NULL, NULL));
    return test_exit_status(cmocka_run_group_tests_name("tree", checks, NULL, NULL));
#else
    print_message("skipped: built without CUDA\n");
    return TEST_SKIPPED;
#endif
}
