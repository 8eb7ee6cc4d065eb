/* Step 6 of the ladder, symmetric: Newton's third law. Each pair of bodies is evaluated once and
 * gives both bodies their terms, a_i += m_j d s and a_j -= m_i d s with d = x_j - x_i and
 * s = (|d|^2 + eps^2)^(-3/2): 16 FP32 instructions and one MUFU rsqrt per pair, 8 per
 * interaction where the other kernels need 12.
 *
 * The work. The bodies are split into K parts of B bodies (K B >= n; bodies past n read as zero
 * mass at the origin). A task is a pair of parts (k, c), k <= c: K (K - 1) / 2 full squares and
 * K diagonal ones, where only j > i counts. A block of 8 warps runs one task. Each warp holds
 * 256 bodies of part k (8 per lane) and sweeps tiles of 32 bodies of part c: a lane holds one
 * of them with its running sum, and after each step the 32 lanes pass body and sum on to the
 * next lane by shuffle, so in 32 steps every lane meets every body of the tile and the sums come
 * home. The 8 warps share part c's tiles among them, so 8 threads hold shares of a body of part
 * k (reduced in shared memory at the end of a pass) and many blocks hold shares of each body.
 *
 * Determinism. No atomics: task (k, c) writes its sums for the bodies of part c to slot k, and
 * those for part k to slot c (slot K for the diagonal's own rows), each element of each slot
 * written by one thread of one task. A second kernel adds slot 0, 1, ..., K in that order and
 * gives the kick, so a run repeats bit for bit. The slots cost (K + 1) K B float4 of memory.
 *
 * Several GPUs. The tasks can be launched in ranges (nbody_symmetric_tasks_launch), each on its
 * own device, all writing into one device's slots by peer access; the sum then runs there. Every
 * slot element is written by the same task whichever device runs it and the sum's order is the
 * slots', so the bits do not depend on how the tasks are split (docs/MULTI_GPU.md). */
#include "kernels.h"
#include "nbody_common.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

using nbody::Epilogue;
using nbody::finish;
using nbody::rsqrt_ftz;

constexpr int SYM_R = 8;                 /* bodies of part k per lane */
constexpr int SYM_WARPS = 8;             /* warps per block */
constexpr int SYM_BLOCK = 32 * SYM_WARPS;
constexpr int SYM_ROWS = 32 * SYM_R;     /* bodies of part k a warp holds in a pass */
constexpr int SYM_ALIGN = 256;           /* B is a multiple of this (SYM_ROWS, and 32 * SYM_WARPS) */
constexpr int SYM_MAX_PARTS = 64;

__device__ __forceinline__ float4 body(const float4 *__restrict__ pos, int j, int n)
{
    return j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/* One tile of 32 bodies of part c against the lane's SYM_R bodies of part k. MASK (diagonal
 * tiles that overlap the rows) keeps only pairs with j > i; jrel = first j - first i. */
template <bool MASK>
__device__ __forceinline__ void sweep(float4 &pj, float &bx, float &by, float &bz, const float (&px)[SYM_R],
                                      const float (&py)[SYM_R], const float (&pz)[SYM_R], const float (&pm)[SYM_R],
                                      float (&ax)[SYM_R], float (&ay)[SYM_R], float (&az)[SYM_R], float eps2,
                                      int lane, int jrel)
{
    const int next = (lane + 1) & 31;
#pragma unroll 4
    for (int s = 0; s < 32; s++) {
#pragma unroll
        for (int r = 0; r < SYM_R; r++) {
            float dx = pj.x - px[r], dy = pj.y - py[r], dz = pj.z - pz[r];
            float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
            float inv = rsqrt_ftz(r2);
            float inv3 = inv * inv * inv;
            float si = pj.w * inv3, sj = pm[r] * inv3;
            if (MASK) {
                /* The lane holds j = first j + (lane + s) mod 32 and i = first i + lane + 32 r. */
                bool keep = jrel + ((lane + s) & 31) - lane - 32 * r > 0;
                si = keep ? si : 0.0f;
                sj = keep ? sj : 0.0f;
            }
            ax[r] = fmaf(dx, si, ax[r]);
            ay[r] = fmaf(dy, si, ay[r]);
            az[r] = fmaf(dz, si, az[r]);
            bx = fmaf(-dx, sj, bx);
            by = fmaf(-dy, sj, by);
            bz = fmaf(-dz, sj, bz);
        }
        pj.x = __shfl_sync(0xffffffffu, pj.x, next);
        pj.y = __shfl_sync(0xffffffffu, pj.y, next);
        pj.z = __shfl_sync(0xffffffffu, pj.z, next);
        pj.w = __shfl_sync(0xffffffffu, pj.w, next);
        bx = __shfl_sync(0xffffffffu, bx, next);
        by = __shfl_sync(0xffffffffu, by, next);
        bz = __shfl_sync(0xffffffffu, bz, next);
    }
}

/* Block b runs task first_task + b: the off-diagonal squares first, in the order c = 1, 2, ... (k < c), then
 * the diagonal ones, which are half the work and fill the end. 127 registers: two blocks per SM. */
__global__ void __launch_bounds__(SYM_BLOCK, 2)
    forces6_symmetric(const float4 *__restrict__ pos, int n, float eps2, int parts, int part_size, int first_task,
                      float4 *__restrict__ sums)
{
    __shared__ float rows[3][SYM_WARPS][SYM_ROWS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int off_diagonal = parts * (parts - 1) / 2;
    const int t = first_task + (int)blockIdx.x;
    int k, c;
    if (t < off_diagonal) {
        c = (int)((1.0f + sqrtf(1.0f + 8.0f * t)) * 0.5f);
        while (c * (c - 1) / 2 > t) c--;
        while ((c + 1) * c / 2 <= t) c++;
        k = t - c * (c - 1) / 2;
    } else {
        k = c = t - off_diagonal;
    }
    const bool diagonal = k == c;
    const size_t slot = (size_t)parts * part_size;
    float4 *row_sums = sums + (diagonal ? parts : c) * slot;
    float4 *column_sums = sums + k * slot;
    const int tiles = part_size / 32;
    for (int pass = 0; pass < part_size / SYM_ROWS; pass++) {
        const int i0 = k * part_size + pass * SYM_ROWS;
        float px[SYM_R], py[SYM_R], pz[SYM_R], pm[SYM_R], ax[SYM_R], ay[SYM_R], az[SYM_R];
#pragma unroll
        for (int r = 0; r < SYM_R; r++) {
            float4 p = body(pos, i0 + lane + 32 * r, n);
            px[r] = p.x;
            py[r] = p.y;
            pz[r] = p.z;
            pm[r] = p.w;
            ax[r] = ay[r] = az[r] = 0.0f;
        }
        /* Tile j of part c always goes to warp j % SYM_WARPS, so one thread owns each column sum
         * through all passes. On the diagonal, tiles wholly below the rows have no j > i; the
         * first pass, whose rows start the part, still visits every tile and initialises its sum. */
        for (int tile = warp; tile < tiles; tile += SYM_WARPS) {
            const int j0 = c * part_size + tile * 32;
            if (diagonal && j0 + 32 <= i0) continue;
            float4 pj = body(pos, j0 + lane, n);
            float bx = 0.0f, by = 0.0f, bz = 0.0f;
            if (diagonal && j0 < i0 + SYM_ROWS)
                sweep<true>(pj, bx, by, bz, px, py, pz, pm, ax, ay, az, eps2, lane, j0 - i0);
            else
                sweep<false>(pj, bx, by, bz, px, py, pz, pm, ax, ay, az, eps2, lane, j0 - i0);
            float4 *out = column_sums + j0 + lane;
            if (pass > 0) {
                float4 before = *out;
                bx += before.x;
                by += before.y;
                bz += before.z;
            }
            *out = make_float4(bx, by, bz, 0.0f);
        }
#pragma unroll
        for (int r = 0; r < SYM_R; r++) {
            rows[0][warp][lane + 32 * r] = ax[r];
            rows[1][warp][lane + 32 * r] = ay[r];
            rows[2][warp][lane + 32 * r] = az[r];
        }
        __syncthreads();
        for (int x = threadIdx.x; x < SYM_ROWS; x += SYM_BLOCK) {
            float sx = 0.0f, sy = 0.0f, sz = 0.0f;
#pragma unroll
            for (int w = 0; w < SYM_WARPS; w++) {
                sx += rows[0][w][x];
                sy += rows[1][w][x];
                sz += rows[2][w][x];
            }
            row_sums[i0 + x] = make_float4(sx, sy, sz, 0.0f);
        }
        __syncthreads();
    }
}

/* a_i = slot 0 + slot 1 + ... + slot K, in that order; then the kick. */
template <bool KICK>
__global__ void symmetric_sum(const float4 *__restrict__ sums, int n, size_t slot, int slots, Epilogue e)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int s = 0; s < slots; s++) {
        float4 p = sums[s * slot + i];
        ax += p.x;
        ay += p.y;
        az += p.z;
    }
    finish<KICK>(i, ax, ay, az, e);
}

int part_size_for(int n, int parts) { return ((n + parts - 1) / parts + SYM_ALIGN - 1) / SYM_ALIGN * SYM_ALIGN; }

size_t sums_bytes(int n, int parts)
{
    return (size_t)(parts + 1) * parts * (size_t)part_size_for(n, parts) * sizeof(float4);
}

/* The model behind the choice of K: the tasks go to the multiprocessors in order, two at a time
 * each; one task alone on a multiprocessor runs at SYM_ALONE of the pair's combined rate. A task
 * costs its pairs (a diagonal one about half) plus SYM_PASS of a pass's pairs for each pass, and
 * the final sum reads every slot. Fitted to H200 timings of K = 8..64 at 16K and 128K bodies. */
#define SYM_ALONE 0.7
#define SYM_PASS 0.1
#define SYM_BYTE 0.06 /* pair work per byte of slots read, per multiprocessor */

double makespan(int parts, int part_size, int sm_count)
{
    const int tasks = parts * (parts + 1) / 2, off_diagonal = parts * (parts - 1) / 2;
    const double overhead = 1.0 + SYM_PASS * SYM_ROWS / part_size;
    double *left = (double *)calloc((size_t)sm_count * 2, sizeof(double)); /* work left; 0 = free */
    if (!left) return INFINITY;
    double now = 0.0;
    int next = 0;
    for (;;) {
        /* Breadth first: every multiprocessor takes one task before any takes a second. */
        for (int s = 0; s < 2 * sm_count && next < tasks; s++) {
            const int at = 2 * (s % sm_count) + s / sm_count;
            if (left[at] > 0.0) continue;
            left[at] = (next < off_diagonal ? 1.0 : 0.5 + 0.5 * SYM_ROWS / part_size) * overhead;
            next++;
        }
        double step = INFINITY;
        for (int m = 0; m < sm_count; m++) {
            double *a = &left[2 * m];
            int busy = (a[0] > 0.0) + (a[1] > 0.0);
            double rate = busy == 2 ? 0.5 : SYM_ALONE;
            for (int u = 0; u < 2; u++)
                if (a[u] > 0.0) step = fmin(step, a[u] / rate);
        }
        if (step == INFINITY) break;
        now += step;
        for (int m = 0; m < sm_count; m++) {
            double *a = &left[2 * m];
            int busy = (a[0] > 0.0) + (a[1] > 0.0);
            double rate = busy == 2 ? 0.5 : SYM_ALONE;
            for (int u = 0; u < 2; u++)
                if (a[u] > 0.0) a[u] = a[u] - step * rate > 1e-9 ? a[u] - step * rate : 0.0;
        }
    }
    free(left);
    return now;
}

} // namespace

namespace nbody {

cudaError_t launch_symmetric_tasks(const NbodyForces *f, float eps2, int first, int count, cudaStream_t stream)
{
    const int parts = f->shape.parts, size = part_size_for(f->n, parts), tasks = parts * (parts + 1) / 2;
    if (!f->pair_sums || f->pair_sums_bytes < sums_bytes(f->n, parts)) return cudaErrorInvalidValue;
    if (first < 0 || count < 0 || first + count > tasks) return cudaErrorInvalidValue;
    if (count > 0)
        forces6_symmetric<<<count, SYM_BLOCK, 0, stream>>>(f->pos, f->n, eps2, parts, size, first, f->pair_sums);
    return launch_error();
}

cudaError_t launch_symmetric_finish(const NbodyForces *f, cudaStream_t stream)
{
    const int parts = f->shape.parts, size = part_size_for(f->n, parts);
    if (!f->pair_sums || f->pair_sums_bytes < sums_bytes(f->n, parts)) return cudaErrorInvalidValue;
    Epilogue e = {f->acc, f->vel, f->speed, f->half_kick, f->next_kick, f->damping, f->nonfinite};
    const size_t slot = (size_t)parts * size;
    const int blocks = (f->n + 255) / 256;
    if (f->vel)
        symmetric_sum<true><<<blocks, 256, 0, stream>>>(f->pair_sums, f->n, slot, parts + 1, e);
    else
        symmetric_sum<false><<<blocks, 256, 0, stream>>>(f->pair_sums, f->n, slot, parts + 1, e);
    return launch_error();
}

cudaError_t launch_symmetric(const NbodyForces *f, float eps2, cudaStream_t stream)
{
    const cudaError_t e = launch_symmetric_tasks(f, eps2, 0, f->shape.parts * (f->shape.parts + 1) / 2, stream);
    return e != cudaSuccess ? e : launch_symmetric_finish(f, stream);
}

int symmetric_check(NbodyShape shape, char *err, size_t errlen)
{
    if (shape.q != 1 || shape.r != SYM_R) {
        snprintf(err, errlen, "%d threads per body: the symmetric kernel shares bodies its own way (q 1, r %d)",
                 shape.q, SYM_R);
        return -1;
    }
    if (shape.block != SYM_BLOCK) {
        snprintf(err, errlen, "block size %d: the symmetric kernel runs blocks of %d", shape.block, SYM_BLOCK);
        return -1;
    }
    if (shape.parts < 1 || shape.parts > SYM_MAX_PARTS) {
        snprintf(err, errlen, "%d parts: the symmetric kernel splits the bodies into 1 to %d", shape.parts,
                 SYM_MAX_PARTS);
        return -1;
    }
    return 0;
}

} // namespace nbody

extern "C" NbodyShape nbody_symmetric_shape(int n, int sm_count, size_t max_bytes)
{
    NbodyShape best = {1, SYM_BLOCK, SYM_R, 1};
    if (n < 1) n = 1;
    if (sm_count < 1) sm_count = 1;
    double best_cost = INFINITY;
    for (int parts = 1; parts <= SYM_MAX_PARTS; parts++) {
        if (parts > 1 && max_bytes > 0 && sums_bytes(n, parts) > max_bytes) continue;
        const int size = part_size_for(n, parts);
        if ((parts - 1) * size >= n && parts > 1) continue; /* a part of padding alone */
        double cost = makespan(parts, size, sm_count) * size * size +
                      SYM_BYTE * (double)sums_bytes(n, parts) / sizeof(float4);
        if (cost < best_cost * 0.999) {
            best_cost = cost;
            best.parts = parts;
        }
    }
    return best;
}

extern "C" size_t nbody_pair_sums_bytes(NbodyKernel kernel, NbodyShape shape, int n)
{
    if (kernel != NBODY_KERNEL_SYMMETRIC || shape.parts < 1) return 0;
    return sums_bytes(n < 1 ? 1 : n, shape.parts);
}
