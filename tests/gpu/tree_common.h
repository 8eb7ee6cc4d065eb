/* What the GPU tree tests share (test_cuda_tree.c, test_cuda_fmm.c): a CUDA check that fails the
 * test, the f64 reference on all bodies or a sample, the per-body error percentiles, one run's
 * device buffers and tree, and the scene builder. Include after <cmocka.h> and the kernels'
 * headers, in a CUDA build. */
#ifndef STARBURST_TREE_COMMON_H
#define STARBURST_TREE_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fmm.h"
#include "gpu_common.h"
#include "reference.h"
#include "scene/scene.h"

/* Above this N the reference covers `sample` bodies spread evenly over the index range. */
#define TREE_ALL_UP_TO 4096

static CudaStatus cuda;

static inline void cuda_ok(bool ok)
{
    if (ok) return;
    CudaStatus failed = cuda;
    cuda = (CudaStatus){0};
    fail_msg("%s", failed.message);
}

static inline void reference_build(Reference *r, const Bodies *b, double eps, int sample)
{
    const int n = b->n;
    reference_alloc(r, n <= TREE_ALL_UP_TO || n <= sample ? n : sample);
    for (int t = 0; t < r->count; t++)
        r->targets[t] = r->count == n ? t : (int)((long long)t * (n - 1) / (r->count - 1));
    reference_sum(r, b, eps);
}

typedef struct Errors {
    double median, p99, worst;
} Errors;

/* Per-body relative errors of acc4 (4 floats a body, every body) over the reference's targets. A
 * component that is not finite fails the test. */
static inline Errors errors_of(const char *what, const float *acc4, const Reference *r)
{
    double *rel = malloc((size_t)r->count * sizeof *rel);
    assert_non_null(rel);
    for (int t = 0; t < r->count; t++) {
        const int i = r->targets[t];
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            const double a = acc4[4 * i + k], ref = r->acc[3 * t + k];
            if (!isfinite(a)) {
                free(rel);
                fail_msg("%s: body %d component %d is %g", what, i, k, a);
            }
            d2 += (a - ref) * (a - ref);
            r2 += ref * ref;
        }
        rel[t] = r2 > 0 ? sqrt(d2 / r2) : (d2 == 0 ? 0 : INFINITY);
    }
    qsort(rel, (size_t)r->count, sizeof *rel, compare_double);
    Errors e = {rel[(r->count - 1) / 2], rel[(int)floor(0.99 * (r->count - 1))], rel[r->count - 1]};
    free(rel);
    return e;
}

/* The device side of a test: positions in, a tree, accelerations out. */
typedef struct Run {
    int n;
    float4 *pos, *acc;
    NbodyTree *tree; /* with fmm, made by nbody_fmm_create: it runs the FMM and the tree */
    float *host;     /* 4 floats a body */
} Run;

static inline void run_open(Run *r, const Bodies *b, bool fmm)
{
    char err[256] = "";
    r->n = b->n;
    cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&r->pos, (size_t)b->n * sizeof(float4))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMalloc((void **)&r->acc, (size_t)b->n * sizeof(float4))));
    cuda_ok(CUDA_CHECK(&cuda, cudaMemcpy(r->pos, b->pos, (size_t)b->n * sizeof(float4), cudaMemcpyHostToDevice)));
    r->tree = fmm ? nbody_fmm_create(b->n, err, sizeof err) : nbody_tree_create(b->n, err, sizeof err);
    if (!r->tree) fail_msg("%s", err);
    r->host = malloc((size_t)b->n * sizeof(float4));
    assert_non_null(r->host);
}

static inline void run_close(Run *r)
{
    nbody_tree_destroy(r->tree);
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(r->pos)));
    cuda_ok(CUDA_CHECK(&cuda, cudaFree(r->acc)));
    free(r->host);
}

/* Every acceleration finite; where expect_zero, exactly zero. */
static inline void check_finite(const char *what, const Run *r, bool expect_zero)
{
    for (int i = 0; i < r->n; i++)
        for (int k = 0; k < 3; k++) {
            const float a = r->host[4 * i + k];
            if (!isfinite(a) || (expect_zero && a != 0.0f))
                fail_msg("%s: body %d component %d is %g", what, i, k, (double)a);
        }
}

static inline void scene_bodies(Bodies *b, SceneKind kind, int n, float *eps)
{
    char err[256] = "";
    SceneInfo info;
    SceneDesc d = {.kind = kind, .n = n, .seed = 7};
    if (scene_build(&d, b, &info, err, sizeof err) != 0) fail_msg("scene_build: %s", err);
    *eps = info.softening;
}

/* Inputs that break naive trees, built on uniform balls: 3000 bodies all at one point (every key
 * the same, one leaf at the deepest level); 4096 bodies in coincident pairs; 4096 with one of them
 * 1e6 away (the root cube 1e6 wide, the deepest cells 0.5, so the ball's leaves hold many bodies). */
static inline void one_point_bodies(Bodies *b)
{
    gpu_random_ball(b, 3000, 3);
    for (int i = 0; i < b->n; i++) {
        b->pos[4 * i] = 0.3f;
        b->pos[4 * i + 1] = -0.2f;
        b->pos[4 * i + 2] = 0.1f;
    }
}

static inline void coincident_pairs(Bodies *b)
{
    Bodies half;
    gpu_random_ball(&half, 2048, 4);
    assert_int_equal(bodies_alloc(b, 4096), 0);
    for (int i = 0; i < 4096; i++)
        for (int k = 0; k < 4; k++) {
            b->pos[4 * i + k] = half.pos[4 * (i / 2) + k];
            b->vel[4 * i + k] = 0;
        }
    bodies_free(&half);
}

static inline void one_far_body(Bodies *b)
{
    gpu_random_ball(b, 4096, 6);
    b->pos[0] = 1e6f;
    b->pos[1] = b->pos[2] = 0.0f;
}

static inline int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

#endif
