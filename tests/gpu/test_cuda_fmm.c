/* The GPU fast multipole method (kernels/fmm.h) against the f64 direct sum: per-body relative
 * force error |a - ref| / |ref|, its median below 1e-4 and its 99th percentile below 1e-3 at the
 * default theta, on the collision scene (64K, and 1M on a sample) and the galaxy model; the tree's
 * errors and terms beside it, from the same tree memory; inputs that break naive trees (N = 1, 2,
 * 3, all bodies at one point, coincident pairs, one body 1e6 away, a size that leaves a partial
 * group); the same bits from two calls and two trees.
 *
 * `test_cuda_fmm --quick` checks 8K bodies where the others check 64K and leaves out the million
 * (for the sanitizers); `--long` adds the energy of a million-body collision over 1000 steps
 * through the sim API (|dE/E0| <= 1e-3); `--bench [N ...]` runs only the timing: ms per call of
 * the collision scene, median of 10 after 3 of warm-up, build / upward / walk / downward, terms a
 * body and the error on a sample, beside the tree's call. */
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
#include "fmm.h"
#include "kernels.h"
#endif
#include "tree_common.h"

#ifdef STARBURST_HAVE_CUDA

static void print_errors(const char *what, int n, const char *how, Errors e, const NbodyTreeStats *s)
{
    print_message("%-14s N = %7d %-22s median %.2e  p99 %.2e  worst %.2e | %5.0f body + %5.0f cell + %5.0f far "
                  "terms a body\n",
                  what, n, how, e.median, e.p99, e.worst, s->body_body, s->body_cell, s->body_group);
}

/* The FMM at the default theta on b: within MEDIAN_TOL and P99_TOL of the reference. Printed beside
 * it: the tree at the same theta, and the FMM at other angles and far ratios (what the defaults
 * could be). */
static void check_accuracy(const char *what, const Bodies *b, float eps, bool sweep)
{
    Reference ref;
    reference_build(&ref, b, eps, SAMPLE);
    Run r;
    run_open(&r, b, true);
    NbodyTreeStats s;
    char how[64];
    run_forces(&r, TREE, eps, params_theta(0), 0, &s);
    snprintf(how, sizeof how, "tree theta %.2f:", params_theta(0));
    print_errors(what, b->n, how, errors_of(what, r.host, &ref), &s);
    if (sweep && !quick) {
        static const float thetas[] = {0.5f, 0.45f, 0.4f, 0.35f};
        static const float fars[] = {0.18f, 0.2f, 0.22f, 0.24f, 0.26f, 0.28f};
        for (size_t i = 0; i < sizeof thetas / sizeof thetas[0]; i++)
            for (size_t k = 0; k < sizeof fars / sizeof fars[0]; k++) {
                run_forces(&r, FMM, eps, thetas[i], fars[k], &s);
                snprintf(how, sizeof how, "fmm %.2f, far %.2f:", thetas[i], fars[k]);
                print_errors(what, b->n, how, errors_of(what, r.host, &ref), &s);
                print_message("%48s walk %.3f ms\n", "", s.walk_ms);
            }
    }
    run_forces(&r, FMM, eps, params_theta(0), 0, &s);
    const Errors e = errors_of(what, r.host, &ref);
    snprintf(how, sizeof how, "fmm theta %.2f:", params_theta(0));
    print_errors(what, b->n, how, e, &s);
    print_message("%-14s N = %7d: %d cells, depth %d; build %.2f upward %.2f walk %.2f downward %.2f ms\n", what,
                  b->n, s.cells, s.depth, s.build_ms, s.upward_ms, s.walk_ms, s.downward_ms);
    run_close(&r);
    reference_free(&ref);
    check_limits(what, b->n, e);
}

static void test_collision(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, BIG, &eps);
    check_accuracy("collision", &b, eps, true);
    bodies_free(&b);
}

static void test_collision_million(void **state)
{
    gpu_require_cuda();
    if (quick) {
        print_message("--quick: left out\n");
        return;
    }
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, 1 << 20, &eps);
    check_accuracy("collision", &b, eps, true);
    bodies_free(&b);
}

static void test_galaxy(void **state)
{
    gpu_require_cuda();
    Bodies b;
    gpu_galaxy(&b, 20000);
    check_accuracy("galaxy_20K", &b, 0.1f, true);
    bodies_free(&b);
}

/* Two calls, and a second tree, give the same bits. */
static void test_repeat(void **state)
{
    gpu_require_cuda();
    Bodies b;
    float eps;
    scene_bodies(&b, SCENE_COLLISION, quick ? 10000 : 200000, &eps);
    check_repeat(&b, FMM, eps);
    bodies_free(&b);
}

/* A uniform ball, held to the limits at the tree's stricter angle, as test_cuda_tree holds it. */
static void check_small(const char *what, const Bodies *b, float eps)
{
    NbodyTreeStats s;
    const Errors e = small_errors(what, b, eps, FMM, &s);
    print_errors(what, b->n, "fmm:", e, &s);
    if (!within_limits(e)) fail_msg("%s N = %d: median %.3g, 99th percentile %.3g", what, b->n, e.median, e.p99);
}

static void test_degenerate(void **state)
{
    gpu_require_cuda();
    check_few_bodies(FMM, check_small);
    NbodyTreeStats s;
    check_one_point(FMM, &s);
    check_broken_balls(check_small);
    Bodies b;
    gpu_random_ball(&b, quick ? 10007 : 100003, 9);
    check_small("random ball", &b, 0.01f);
    bodies_free(&b);
}

/* --long: the FMM as the CUDA backend's force method, 1000 steps of the million-body collision. */
static void test_energy(void **state)
{
    gpu_require_cuda();
    if (!long_run) {
        print_message("without --long: left out\n");
        return;
    }
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    const int n = 1 << 20;
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 3}, &b, &info, err, sizeof err) != 0)
        fail_msg("%s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA, .force = SIM_FORCE_FMM}, &b, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(sim_force(s), SIM_FORCE_FMM);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    const SimEnergy e0 = sim_energy(s, info.softening);
    const double E0 = e0.kinetic + e0.potential;
    double worst = 0;
    for (int k = 0; k < 10; k++) {
        sim_advance(s, &p, 100);
        assert_null(sim_error(s));
        const SimEnergy e = sim_energy(s, info.softening);
        worst = fmax(worst, fabs((e.kinetic + e.potential - E0) / E0));
    }
    const SimStats st = sim_stats(s);
    SimTreeStats ts;
    assert_true(sim_tree_stats(s, &ts));
    print_message("fmm N = %d, 1000 steps of dt %.3g: worst |dE/E0| %.2e; the last 100 steps %.2f ms each on the "
                  "GPU; %.0f terms a body\n",
                  n, info.dt, worst, st.gpu_ms / 100, ts.body_body + ts.body_cell + ts.body_group);
    assert_true(worst <= 1e-3);
    sim_destroy(s);
    bodies_free(&b);
}

/* ms per call of the collision scene (the whole call between events on the stream, the host's
 * waits included) and its parts, FMM and tree, with the error on a sample of 500 bodies. */
static void test_bench(void **state)
{
    gpu_require_cuda();
    char name[256] = "";
    int sms = 0;
    const size_t free_bytes = device_free(name, sizeof name, &sms);
    print_message("%s, %d SMs, %.2f GiB free: the largest FMM that fits takes N = %d; 1M bodies take %.1f MiB\n",
                  name, sms, free_bytes / 1073741824.0, nbody_fmm_max_n(free_bytes),
                  nbody_fmm_bytes(1 << 20) / 1048576.0);
    static const int defaults[] = {1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 23, 1 << 24};
    const int *ns = bench_count ? bench_ns : defaults;
    const int sizes = bench_count ? bench_count : (int)(sizeof defaults / sizeof defaults[0]);
    print_message("%9s %6s %8s %7s %7s %7s %8s %6s %6s %6s %6s %9s %9s\n", "N", "method", "call_ms", "build", "upward",
                  "walk", "downward", "body/b", "cell/b", "far/b", "terms", "err_med", "err_p99");
    for (int k = 0; k < sizes; k++) {
        Bodies b;
        float eps;
        scene_bodies(&b, SCENE_COLLISION, ns[k], &eps);
        if ((size_t)b.n > (size_t)nbody_fmm_max_n(free_bytes / 10 * 8)) {
            print_message("%9d: does not fit\n", b.n);
            bodies_free(&b);
            continue;
        }
        Reference ref;
        reference_build(&ref, &b, eps, 500);
        Run r;
        run_open(&r, &b, true);
        for (int m = FMM; m <= TREE; m++) {
            NbodyTreeStats s;
            const Timing t = time_calls(&r, (Method)m, eps, &s);
            cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(r.host, r.acc, (size_t)r.n * sizeof(float4),
                                                 cudaMemcpyDeviceToHost)));
            const Errors e = errors_of("bench", r.host, &ref);
            print_message("%9d %6s %8.3f %7.3f %7.3f %7.3f %8.3f %6.0f %6.0f %6.0f %6.0f %9.2e %9.2e\n", b.n,
                          m == FMM ? "fmm" : "tree", t.call, t.build, t.upward, t.walk, t.downward, s.body_body,
                          s.body_cell, s.body_group, s.body_body + s.body_cell + s.body_group, e.median, e.p99);
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
        cmocka_unit_test(test_collision), cmocka_unit_test(test_galaxy),     cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_degenerate), cmocka_unit_test(test_collision_million), cmocka_unit_test(test_energy),
    };
    const struct CMUnitTest timing[] = {cmocka_unit_test(test_bench)};
    if (bench) return test_exit_status(cmocka_run_group_tests_name("fmm_bench", timing, NULL, NULL));
    return test_exit_status(cmocka_run_group_tests_name("fmm", checks, NULL, NULL));
#else
    print_message("skipped: built without CUDA\n");
    return TEST_SKIPPED;
#endif
}
