/* The force ladder against the f64 reference: every kernel in float and the fp64 mtpb, on random
 * balls and on the galaxy model, at sizes that hit every tail; the fp64 mtpb's sums in double held
 * to 1e-9; every mtpb launch shape with the fused kick; the default shapes; and the shapes a user
 * may not ask for. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"
#include "test_skip.h"

#include "gpu_common.h"
#ifdef STARBURST_HAVE_CUDA
#include "cuda_check.h"
#include "kernels.h"
#endif

#define NORM_TOL 1e-5
#define P999_TOL 1e-3
/* The fp64 kernel's sums in double, body by body: ||a - ref|| / ||ref|| for the worst body. */
#define FP64_TOL 1e-9
/* ... and stored as float, as sim_accelerations gives them: float rounding, 2^-24 per component. */
#define FP64_FLOAT_TOL 1e-7
/* From this N on, the reference covers every SUBSET_STRIDE-th body (and the last) only. */
#define SUBSET_FROM 20001
#define SUBSET_STRIDE 64

static void reference_build(Reference *r, const Bodies *b, double eps)
{
    const int n = b->n;
    reference_alloc(r, n < SUBSET_FROM ? n : (n - 1) / SUBSET_STRIDE + 2);
    for (int t = 0; t < r->count; t++)
        r->targets[t] = n < SUBSET_FROM ? t : (t < r->count - 1 ? t * SUBSET_STRIDE : n - 1);
    reference_sum(r, b, eps);
}

/* ||a - ref|| / ||ref|| over the checked bodies below norm_tol, and the 99.9th percentile of the
 * per-body relative error below p999_tol; a NaN or infinity anywhere fails. acc3 holds 3 floats
 * for every body. */
static void check_acc_within(const char *what, const float *acc3, const Reference *r, double norm_tol,
                             double p999_tol)
{
    double num = 0, den = 0;
    double *rel = reference_errors(what, acc3, 3, r, &num, &den);
    double norm = den > 0 ? sqrt(num / den) : (num == 0 ? 0 : INFINITY);
    double p999 = rel[(int)floor(0.999 * (r->count - 1))];
    free(rel);
    if (!(norm < norm_tol) || !(p999 < p999_tol))
        fail_msg("%s: norm-wise error %.3g (limit %g), 99.9th percentile per body %.3g (limit %g)", what, norm,
                 norm_tol, p999, p999_tol);
}

static void check_acc(const char *what, const float *acc3, const Reference *r)
{
    check_acc_within(what, acc3, r, NORM_TOL, P999_TOL);
}

static float *poisoned(int n)
{
    float *a = malloc(3 * (size_t)n * sizeof *a);
    assert_non_null(a);
    for (int i = 0; i < 3 * n; i++) a[i] = NAN;
    return a;
}

#ifdef STARBURST_HAVE_CUDA

/* The CUDA calls of a test report here: cuda_ok(CUDA_CHECK(&cuda, call)) fails the test with the
 * line of a failed call. */
static CudaStatus cuda;

static void cuda_ok(bool ok)
{
    if (ok) return;
    CudaStatus failed = cuda;
    cuda = (CudaStatus){0};
    fail_msg("%s", failed.message);
}

/* The fp64 mtpb's accelerations in double, as summed (before they are stored as float), against
 * the reference body by body: the worst ||a_i - ref_i|| / ||ref_i|| below FP64_TOL, at the
 * default shape for this N on an H200 and at 1 and 32 threads per body. */
static void check_fp64_sums(const Bodies *b, const Reference *ref, float eps, const char *input)
{
    const int n = b->n;
    float4 *pos, *acc;
    double *acc64;
    cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&pos, (size_t)n * sizeof(float4))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&acc, (size_t)n * sizeof(float4))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&acc64, 3 * (size_t)n * sizeof(double))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(pos, b->pos, (size_t)n * sizeof(float4), cudaMemcpyHostToDevice)));
    double *got = malloc(3 * (size_t)n * sizeof *got);
    assert_non_null(got);
    const NbodyShape shapes[] = {nbody_choose_shape(n, 132, NBODY_PRECISION_DOUBLE, 0, 0), {1, 256, 1, 0},
                                 {32, 256, 1, 0}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        NbodyForces f = {.kernel = NBODY_KERNEL_MTPB,
                         .precision = NBODY_PRECISION_DOUBLE,
                         .shape = shapes[si],
                         .n = n,
                         .eps2 = (double)eps * eps,
                         .pos = pos,
                         .acc = acc,
                         .acc64 = acc64};
        /* NaN, so a body the kernel skips cannot pass. */
        cuda_ok(CUDA_CHECK(&cuda, cudaMemset(acc64, 0xff, 3 * (size_t)n * sizeof(double))));
        cuda_ok(CUDA_CHECK(&cuda, nbody_forces_launch(&f, 0)));
        cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(got, acc64, 3 * (size_t)n * sizeof(double), cudaMemcpyDeviceToHost)));
        double worst = 0, num = 0, den = 0;
        int worst_body = -1;
        for (int t = 0; t < ref->count; t++) {
            const int i = ref->targets[t];
            double d2 = 0, r2 = 0;
            for (int k = 0; k < 3; k++) {
                const double d = got[3 * i + k] - ref->acc[3 * t + k];
                d2 += d * d;
                r2 += ref->acc[3 * t + k] * ref->acc[3 * t + k];
            }
            const double rel = d2 == 0 ? 0 : (r2 > 0 ? sqrt(d2 / r2) : INFINITY);
            if (!isnan(worst) && !(rel <= worst)) { /* a NaN, once found, stays the worst */
                worst = rel;
                worst_body = i;
            }
            num += d2;
            den += r2;
        }
        const double norm = den > 0 ? sqrt(num / den) : (num == 0 ? 0 : INFINITY);
        print_message("mtpb fp64 sums, %s N = %d, q %d block %d: worst body %.3g (body %d), norm-wise %.3g\n", input,
                      n, shapes[si].q, shapes[si].block, worst, worst_body, norm);
        if (!(worst < FP64_TOL))
            fail_msg("mtpb fp64, %s N = %d, q %d block %d: body %d is %.3g from the reference (limit %g)", input, n,
                     shapes[si].q, shapes[si].block, worst_body, worst, FP64_TOL);
    }
    free(got);
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(pos)));
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(acc)));
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(acc64)));
}

#endif

typedef struct LadderCase {
    const char *input; /* "random" or "galaxy" */
    int n;
} LadderCase;

/* Every float kernel of the ladder and the fp64 mtpb on one input. */
static void test_ladder(void **state)
{
    const LadderCase *c = *state;
    gpu_require_cuda();
    Bodies b;
    float eps;
    if (strcmp(c->input, "galaxy") == 0) {
        gpu_galaxy(&b, c->n);
        eps = 0.1f;
    } else {
        gpu_random_ball(&b, c->n, 1000 + (uint64_t)c->n);
        eps = 0.01f;
    }
    Reference ref;
    reference_build(&ref, &b, eps);
    char what[128];

    Sim *s = gpu_sim(&b, SIM_KERNEL_NAIVE, SIM_PRECISION_FLOAT);
    for (int k = SIM_KERNEL_NAIVE; k < SIM_KERNEL_COUNT; k++) {
        char err[256] = "";
        if (sim_set_kernel(s, (SimKernel)k, 0, 0, err, sizeof err) != 0) fail_msg("sim_set_kernel: %s", err);
        int q, block;
        sim_launch_shape(s, &q, &block);
        snprintf(what, sizeof what, "%s, %s N = %d (q %d, block %d)", sim_kernel_name((SimKernel)k), c->input, b.n,
                 q, block);
        float *acc = poisoned(b.n);
        sim_accelerations(s, eps, acc);
        check_acc(what, acc, &ref);
        free(acc);
    }
    sim_destroy(s);

    s = gpu_sim(&b, SIM_KERNEL_MTPB, SIM_PRECISION_DOUBLE);
    snprintf(what, sizeof what, "mtpb fp64 stored as float, %s N = %d", c->input, b.n);
    float *acc = poisoned(b.n);
    sim_accelerations(s, eps, acc);
    check_acc_within(what, acc, &ref, FP64_FLOAT_TOL, FP64_FLOAT_TOL);
    free(acc);
    sim_destroy(s);
#ifdef STARBURST_HAVE_CUDA
    check_fp64_sums(&b, &ref, eps, c->input);
#endif

    reference_free(&ref);
    bodies_free(&b);
}

#ifdef STARBURST_HAVE_CUDA


/* One fused launch at a given shape: accelerations against the reference, and the kick, damping
 * and speeds against what they must be given those accelerations; the divergence flag stays down. */
static void check_launch(const Bodies *b, const Reference *ref, float eps, NbodyKernel k, NbodyPrecision p,
                         NbodyShape shape, float4 *pos, float4 *acc, float4 *vel, float *speed, int *nonfinite)
{
    const int n = b->n;
    const size_t bytes = (size_t)n * sizeof(float4);
    const float half_kick = 0.25f, next_kick = 0.125f, damping = 0.5f;
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(vel, b->vel, bytes, cudaMemcpyHostToDevice)));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemset(acc, 0xff, bytes)));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemset(speed, 0xff, (size_t)n * sizeof(float))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemset(nonfinite, 0, sizeof(int))));
    NbodyForces f = {.kernel = k,
                     .precision = p,
                     .shape = shape,
                     .n = n,
                     .eps2 = (double)eps * eps,
                     .pos = pos,
                     .acc = acc,
                     .vel = vel,
                     .half_kick = half_kick,
                     .next_kick = next_kick,
                     .damping = damping,
                     .speed = speed,
                     .nonfinite = nonfinite};
    f.pair_sums_bytes = nbody_pair_sums_bytes(k, shape, n);
    if (f.pair_sums_bytes) {
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&f.pair_sums, f.pair_sums_bytes)));
        cuda_ok(CUDA_CHECK(&cuda, cudaMemset(f.pair_sums, 0xff, f.pair_sums_bytes)));
    }
    cuda_ok(CUDA_CHECK(&cuda, nbody_forces_launch(&f, 0)));
    cuda_ok(CUDA_CHECK(&cuda, cudaDeviceSynchronize()));
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(f.pair_sums)));
    float *a4 = malloc(bytes), *v4 = malloc(bytes), *sp = malloc((size_t)n * sizeof(float)), *a3 = poisoned(n);
    assert_true(a4 && v4 && sp);
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(a4, acc, bytes, cudaMemcpyDeviceToHost)));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(v4, vel, bytes, cudaMemcpyDeviceToHost)));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(sp, speed, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost)));
    int raised = -1;
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(&raised, nonfinite, sizeof(int), cudaMemcpyDeviceToHost)));
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) a3[3 * i + c] = a4[4 * i + c];
    char what[128];
    snprintf(what, sizeof what, "%s%s N = %d, q %d block %d r %d parts %d", nbody_kernel_name(k),
             p == NBODY_PRECISION_DOUBLE ? " fp64" : "", n, shape.q, shape.block, shape.r, shape.parts);
    check_acc(what, a3, ref);
    if (raised != 0) fail_msg("%s: the divergence flag is %d after a finite kick", what, raised);
    for (int i = 0; i < n; i++) {
        double v2 = 0;
        for (int c = 0; c < 3; c++) {
            const double a = a4[4 * i + c];
            double want = ((double)b->vel[4 * i + c] + a * half_kick) * damping + a * next_kick;
            double got = v4[4 * i + c];
            /* float rounding is relative to the terms summed, which can cancel to a small v */
            const double scale = fabs((double)b->vel[4 * i + c]) + fabs(a) * (half_kick + next_kick);
            if (!(fabs(got - want) <= 1e-6 * scale + 1e-12))
                fail_msg("%s: body %d: v[%d] = %.9g after the kick, want %.9g", what, i, c, got, want);
            v2 += got * got;
        }
        if (!(fabs(sp[i] - sqrt(v2)) <= 1e-6 * sqrt(v2) + 1e-12))
            fail_msg("%s: body %d: speed %.9g, |v| = %.9g", what, i, sp[i], sqrt(v2));
    }
    free(a4);
    free(v4);
    free(sp);
    free(a3);
}

/* Every mtpb shape (q, block up to 512, bodies per thread), every block size of the other
 * kernels and splits of the symmetric one into 1 to 64 parts, in their force + kick form, at
 * sizes below, at and around a tile. */
static void test_launch_shapes(void **state)
{
    gpu_require_cuda();
    static const int ns[] = {1, 7, 1000, 4133};
    static const int blocks[] = {32, 64, 256, 1024};
    const float eps = 0.01f;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        const int n = ns[t];
        Bodies b;
        gpu_random_ball(&b, n, 7000 + (uint64_t)n);
        Reference ref;
        reference_build(&ref, &b, eps);
        float4 *pos, *acc, *vel;
        float *speed;
        int *nonfinite;
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&nonfinite, sizeof(int))));
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&pos, (size_t)n * sizeof(float4))));
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&acc, (size_t)n * sizeof(float4))));
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&vel, (size_t)n * sizeof(float4))));
        cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&speed, (size_t)n * sizeof(float))));
        cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(pos, b.pos, (size_t)n * sizeof(float4), cudaMemcpyHostToDevice)));
        for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
            const int block = blocks[bi];
            for (int k = NBODY_KERNEL_NAIVE; k < NBODY_KERNEL_MTPB; k++)
                check_launch(&b, &ref, eps, (NbodyKernel)k, NBODY_PRECISION_FLOAT, (NbodyShape){1, block, 1, 0}, pos, acc,
                             vel, speed, nonfinite);
            for (int q = 1; q <= 32 && q <= block && block <= 512; q *= 2) {
                for (int r = 1; r <= 2; r++)
                    check_launch(&b, &ref, eps, NBODY_KERNEL_MTPB, NBODY_PRECISION_FLOAT, (NbodyShape){q, block, r, 0}, pos,
                                 acc, vel, speed, nonfinite);
                if (block <= 512)
                    check_launch(&b, &ref, eps, NBODY_KERNEL_MTPB, NBODY_PRECISION_DOUBLE, (NbodyShape){q, block, 1, 0},
                                 pos, acc, vel, speed, nonfinite);
            }
        }
        static const int parts[] = {1, 2, 3, 7, 64};
        for (size_t pi = 0; pi < sizeof parts / sizeof parts[0]; pi++) {
            NbodyShape sym = nbody_symmetric_shape(n, 132, 0);
            sym.parts = parts[pi];
            check_launch(&b, &ref, eps, NBODY_KERNEL_SYMMETRIC, NBODY_PRECISION_FLOAT, sym, pos, acc, vel, speed,
                         nonfinite);
        }
        cuda_ok(CUDA_CHECK(&cuda, cudaFree(pos)));
        cuda_ok(CUDA_CHECK(&cuda, cudaFree(acc)));
        cuda_ok(CUDA_CHECK(&cuda, cudaFree(vel)));
        cuda_ok(CUDA_CHECK(&cuda, cudaFree(speed)));
        cuda_ok(CUDA_CHECK(&cuda, cudaFree(nonfinite)));
        reference_free(&ref);
        bodies_free(&b);
    }
}

/* The kernels name their ladder as the simulation does: the panel, the command line and the
 * kernels' own messages speak of one kernel by one name. Needs no device. */
static void test_kernel_names(void **state)
{
    (void)state;
    static const struct {
        SimKernel sim;
        NbodyKernel nbody;
    } pairs[] = {
        {SIM_KERNEL_DEFAULT, NBODY_KERNEL_DEFAULT},     {SIM_KERNEL_NAIVE, NBODY_KERNEL_NAIVE},
        {SIM_KERNEL_REGISTERS, NBODY_KERNEL_REGISTERS}, {SIM_KERNEL_TILED, NBODY_KERNEL_TILED},
        {SIM_KERNEL_TILED_UNROLLED, NBODY_KERNEL_TILED_UNROLLED}, {SIM_KERNEL_MTPB, NBODY_KERNEL_MTPB},
        {SIM_KERNEL_SYMMETRIC, NBODY_KERNEL_SYMMETRIC},
    };
    assert_int_equal(sizeof pairs / sizeof pairs[0], SIM_KERNEL_COUNT);
    assert_int_equal(NBODY_KERNEL_COUNT, SIM_KERNEL_COUNT);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_string_equal(nbody_kernel_name(pairs[i].nbody), sim_kernel_name(pairs[i].sim));
    assert_string_equal(nbody_kernel_name(NBODY_KERNEL_COUNT), "?");
}

/* The default shape: valid for any N and SM count, keeps what the caller fixed, and fills the
 * GPU (16K bodies with one thread each would leave half an H100 idle). Needs no device. */
static void test_default_shape(void **state)
{
    static const int sms[] = {1, 8, 114, 132, 144};
    static const int ns[] = {1, 2, 7, 31, 1000, 4096, 16383, 16384, 65537, 131072, 1048576, 5000000};
    char err[256];
    for (size_t si = 0; si < sizeof sms / sizeof sms[0]; si++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (int p = NBODY_PRECISION_FLOAT; p <= NBODY_PRECISION_DOUBLE; p++) {
                NbodyShape s = nbody_choose_shape(ns[ni], sms[si], (NbodyPrecision)p, 0, 0);
                if (nbody_shape_check(NBODY_KERNEL_MTPB, (NbodyPrecision)p, s, err, sizeof err) != 0)
                    fail_msg("N = %d on %d SMs: %s", ns[ni], sms[si], err);
                NbodyShape fixed = nbody_choose_shape(ns[ni], sms[si], (NbodyPrecision)p, 4, 128);
                assert_int_equal(fixed.q, 4);
                assert_int_equal(fixed.block, 128);
            }
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        NbodyShape s = nbody_choose_shape(ns[ni], 132, NBODY_PRECISION_FLOAT, 0, 0);
        print_message("N = %7d on 132 SMs: q %2d block %d r %d\n", ns[ni], s.q, s.block, s.r);
    }
    /* The symmetric kernel: a valid split that covers every body, within the memory it is given,
     * and, from 16K bodies, at least a task for every SM. */
    for (size_t si = 0; si < sizeof sms / sizeof sms[0]; si++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
            const int n = ns[ni];
            NbodyShape s = nbody_symmetric_shape(n, sms[si], 0);
            if (nbody_shape_check(NBODY_KERNEL_SYMMETRIC, NBODY_PRECISION_FLOAT, s, err, sizeof err) != 0)
                fail_msg("symmetric, N = %d on %d SMs: %s", n, sms[si], err);
            const size_t bytes = nbody_pair_sums_bytes(NBODY_KERNEL_SYMMETRIC, s, n);
            /* (parts + 1) parts B float4 with parts B >= n */
            assert_true(bytes / sizeof(float) / 4 >= (size_t)(s.parts + 1) * (size_t)n);
            if (n >= 16384 && sms[si] <= 132) assert_true(s.parts * (s.parts + 1) / 2 >= sms[si]);
            NbodyShape tight = nbody_symmetric_shape(n, sms[si], bytes / 2);
            if (tight.parts > 1) assert_true(nbody_pair_sums_bytes(NBODY_KERNEL_SYMMETRIC, tight, n) <= bytes / 2);
            assert_int_equal(nbody_symmetric_shape(n, sms[si], 1).parts, 1);
        }
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        NbodyShape s = nbody_symmetric_shape(ns[ni], 132, 0);
        print_message("N = %7d on 132 SMs: symmetric in %d parts, %.1f MiB of pair sums\n", ns[ni], s.parts,
                      nbody_pair_sums_bytes(NBODY_KERNEL_SYMMETRIC, s, ns[ni]) / 1048576.0);
    }
    NbodyShape s16k = nbody_choose_shape(16384, 132, NBODY_PRECISION_FLOAT, 0, 0);
    assert_true((long long)16384 * s16k.q / s16k.r >= 132 * 512);
    assert_int_equal(nbody_choose_shape(1048576, 132, NBODY_PRECISION_FLOAT, 0, 0).q, 1);
    assert_int_equal(nbody_choose_shape(16384, 132, NBODY_PRECISION_DOUBLE, 0, 0).r, 1);
}

#endif

/* Shapes a user may not ask for are refused with a message; valid ones are taken. */
static void test_shape_errors(void **state)
{
    gpu_require_cuda();
    Bodies b;
    gpu_random_ball(&b, 1000, 42);
    Sim *s = gpu_sim(&b, SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT);
    char err[256];
    static const struct {
        SimKernel k;
        int q, block;
        const char *says;
    } bad[] = {
        {SIM_KERNEL_MTPB, 3, 0, "threads per body"},    {SIM_KERNEL_MTPB, 64, 0, "threads per body"},
        {SIM_KERNEL_MTPB, 0, 100, "block size"},        {SIM_KERNEL_MTPB, 0, 2048, "block size"},
        {SIM_KERNEL_MTPB, 64, 32, "threads per body"},  {SIM_KERNEL_TILED, 4, 0, "threads per body"},
        {SIM_KERNEL_NAIVE, 0, 16, "block size"},        {SIM_KERNEL_MTPB, -1, 0, "negative"},
        {SIM_KERNEL_MTPB, 0, 1024, "block size"},     {SIM_KERNEL_SYMMETRIC, 4, 0, "threads per body"},
        {SIM_KERNEL_SYMMETRIC, 0, 512, "block size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (sim_set_kernel(s, bad[i].k, bad[i].q, bad[i].block, err, sizeof err) == 0)
            fail_msg("%s q %d block %d was accepted", sim_kernel_name(bad[i].k), bad[i].q, bad[i].block);
        if (!strstr(err, bad[i].says)) fail_msg("%s q %d block %d: \"%s\" does not say \"%s\"",
                                                sim_kernel_name(bad[i].k), bad[i].q, bad[i].block, err, bad[i].says);
        assert_int_equal(sim_kernel(s), SIM_KERNEL_MTPB);
    }
    int q, block;
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_MTPB, 32, 32, err, sizeof err), 0);
    sim_launch_shape(s, &q, &block);
    assert_int_equal(q, 32);
    assert_int_equal(block, 32);
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_TILED, 0, 1024, err, sizeof err), 0);
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_TILED, 0, 64, err, sizeof err), 0);
    sim_launch_shape(s, &q, &block);
    assert_int_equal(q, 1);
    assert_int_equal(block, 64);
    assert_int_equal(sim_kernel(s), SIM_KERNEL_TILED);
    sim_destroy(s);

    s = gpu_sim(&b, SIM_KERNEL_MTPB, SIM_PRECISION_DOUBLE);
    assert_int_not_equal(sim_set_kernel(s, SIM_KERNEL_TILED, 0, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "double"));
    assert_int_not_equal(sim_set_kernel(s, SIM_KERNEL_SYMMETRIC, 0, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "double"));
    /* The default kernel is symmetric in float and mtpb in double precision. */
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_DEFAULT, 0, 0, err, sizeof err), 0);
    assert_int_equal(sim_kernel(s), SIM_KERNEL_MTPB);
    sim_destroy(s);
    SimDesc d = {.backend = SIM_BACKEND_CUDA, .kernel = SIM_KERNEL_NAIVE, .precision = SIM_PRECISION_DOUBLE};
    assert_null(sim_create(&d, &b, err, sizeof err));
    assert_non_null(strstr(err, "double"));
    bodies_free(&b);

    /* The default: mtpb for a few bodies per SM, symmetric for many, and mtpb whenever threads
     * per body or a block size are given (they are its knobs). */
    gpu_random_ball(&b, 200 * 144, 43);
    d = (SimDesc){.backend = SIM_BACKEND_CUDA};
    s = sim_create(&d, &b, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_kernel(s), SIM_KERNEL_SYMMETRIC);
    sim_destroy(s);
    d.threads_per_body = 4;
    s = sim_create(&d, &b, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_kernel(s), SIM_KERNEL_MTPB);
    sim_launch_shape(s, &q, &block);
    assert_int_equal(q, 4);
    sim_destroy(s);
    bodies_free(&b);
    gpu_random_ball(&b, 100, 44);
    d.threads_per_body = 0;
    s = sim_create(&d, &b, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_kernel(s), SIM_KERNEL_MTPB);
    sim_destroy(s);
    bodies_free(&b);
}

/* The symmetric kernel adds its partial sums in a fixed order: the same input gives the same bits,
 * for one evaluation and after 200 steps of two simulations run side by side. */
static void test_symmetric_repeats(void **state)
{
    gpu_require_cuda();
    Bodies b;
    gpu_galaxy(&b, 20000);
    Sim *s1 = gpu_sim(&b, SIM_KERNEL_SYMMETRIC, SIM_PRECISION_FLOAT);
    Sim *s2 = gpu_sim(&b, SIM_KERNEL_SYMMETRIC, SIM_PRECISION_FLOAT);
    float *a1 = poisoned(b.n), *a2 = poisoned(b.n);
    sim_accelerations(s1, 0.1f, a1);
    sim_accelerations(s1, 0.1f, a2);
    assert_memory_equal(a1, a2, (size_t)b.n * 3 * sizeof(float));
    SimParams p = {.dt = 0.01f, .softening = 0.1f, .damping = 1.0f};
    for (int i = 0; i < 20; i++) {
        sim_advance(s1, &p, 10);
        sim_advance(s2, &p, 10);
    }
    Bodies r1, r2;
    assert_int_equal(bodies_alloc(&r1, b.n), 0);
    assert_int_equal(bodies_alloc(&r2, b.n), 0);
    sim_read(s1, &r1);
    sim_read(s2, &r2);
    assert_memory_equal(r1.pos, r2.pos, (size_t)b.n * 4 * sizeof(float));
    assert_memory_equal(r1.vel, r2.vel, (size_t)b.n * 4 * sizeof(float));
    /* ... and the bodies did move. */
    double moved = 0;
    for (int i = 0; i < 4 * b.n; i++) moved = fmax(moved, fabs((double)r1.pos[i] - b.pos[i]));
    assert_true(moved > 1e-3);
    bodies_free(&r1);
    bodies_free(&r2);
    free(a1);
    free(a2);
    sim_destroy(s1);
    sim_destroy(s2);
    bodies_free(&b);
}

int main(void)
{
    static const int random_ns[] = {1, 7, 1000, 4096, 16383, 16384, 65537};
    static const int galaxy_ns[] = {1, 7, 1000, 4096, 16383, 16384, 20000};
    enum { CASES = 14 };
    static LadderCase cases[CASES];
    static char names[CASES][48];
    struct CMUnitTest tests[CASES + 5];
    int t = 0;
    for (int i = 0; i < 7; i++) {
        cases[i] = (LadderCase){"random", random_ns[i]};
        cases[7 + i] = (LadderCase){"galaxy", galaxy_ns[i]};
    }
    for (int i = 0; i < CASES; i++) {
        snprintf(names[i], sizeof names[i], "ladder_%s_%d", cases[i].input, cases[i].n);
        tests[t++] = (struct CMUnitTest){.name = names[i], .test_func = test_ladder, .initial_state = &cases[i]};
    }
    tests[t++] = (struct CMUnitTest){.name = "shape_errors", .test_func = test_shape_errors};
    tests[t++] = (struct CMUnitTest){.name = "symmetric_repeats", .test_func = test_symmetric_repeats};
#ifdef STARBURST_HAVE_CUDA
    tests[t++] = (struct CMUnitTest){.name = "launch_shapes", .test_func = test_launch_shapes};
    tests[t++] = (struct CMUnitTest){.name = "default_shape", .test_func = test_default_shape};
    tests[t++] = (struct CMUnitTest){.name = "kernel_names", .test_func = test_kernel_names};
#endif
    return test_exit_status(_cmocka_run_group_tests("cuda_forces", tests, (size_t)t, NULL, NULL));
}
