/* The force ladder: the steps of the classic tuning story as selectable kernels. Each computes
 * a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2) and, in its fused form, the
 * leapfrog kick that follows it in a step.
 *   1 naive           one thread per body, summing straight into the global output array
 *   2 registers       the sum kept in registers; positions still read from global memory
 *   3 tiled           shared-memory tiles of blockDim bodies (GPU Gems 3, chapter 31)
 *   4 tiled-unrolled  tiles, unrolled by 8, one MUFU rsqrt (flush-to-zero), the mass folded in
 *   5 mtpb            q threads per body split each tile and meet by warp shuffle, so a few
 *                     thousand bodies still fill the GPU; r bodies per thread reuse each load
 *   5 mtpb, fp64      the same in double arithmetic (eps^2 too), for reference runs; the sums
 *                     are stored as float like the others' (and, on request, in double)
 *   6 symmetric       each pair once, for both bodies (Newton's third law): nbody_symmetric.cu
 * Steps 1-3 take 1 / sqrtf(r2) (IEEE division and square root); 4-6 the approximate rsqrt,
 * whose 2^-22 relative error is far inside the 1e-5 the tests allow. */
#include "kernels.h"
#include "nbody_common.cuh"

#include <stdio.h>

namespace {

using nbody::Epilogue;
using nbody::finish;
using nbody::rsqrt_ftz;

/* Steps 1-3: the textbook form. */
__device__ __forceinline__ void interact_plain(float4 pj, float4 pi, float eps2, float &ax, float &ay, float &az)
{
    float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv = 1.0f / sqrtf(r2);
    float s = pj.w * (inv * inv * inv);
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
}

/* Steps 4-5: 3 FADD, 3 FFMA (softening starts the sum), 1 MUFU, 3 FMUL, 3 FFMA. */
__device__ __forceinline__ void interact_fast(float4 pj, float px, float py, float pz, float eps2, float &ax, float &ay,
                                              float &az)
{
    float dx = pj.x - px, dy = pj.y - py, dz = pj.z - pz;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float inv = rsqrt_ftz(r2);
    float s = (pj.w * inv) * (inv * inv);
    ax = fmaf(dx, s, ax);
    ay = fmaf(dy, s, ay);
    az = fmaf(dz, s, az);
}

template <bool KICK>
__global__ void forces1_naive(const float4 *pos, int n, float eps2, Epilogue e)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    /* pos and acc may alias as far as the compiler knows: every term is a read-modify-write. */
    float4 *out = &e.acc[i];
    *out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; j++) interact_plain(pos[j], pi, eps2, out->x, out->y, out->z);
    float4 a = *out;
    finish<KICK>(i, a.x, a.y, a.z, e);
}

template <bool KICK>
__global__ void forces2_registers(const float4 *pos, int n, float eps2, Epilogue e)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) interact_plain(pos[j], pi, eps2, ax, ay, az);
    finish<KICK>(i, ax, ay, az, e);
}

template <bool KICK>
__global__ void forces3_tiled(const float4 *pos, int n, float eps2, Epilogue e)
{
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 pi = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < blockDim.x; k++) interact_plain(tile[k], pi, eps2, ax, ay, az);
        __syncthreads();
    }
    if (i < n) finish<KICK>(i, ax, ay, az, e);
}

template <bool KICK>
__global__ void forces4_tiled_unrolled(const float4 *__restrict__ pos, int n, float eps2, Epilogue e)
{
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 pi = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        /* blockDim is a power of two >= 32, so whole rounds of 8. */
        for (int k = 0; k < blockDim.x; k += 8) {
#pragma unroll
            for (int u = 0; u < 8; u++) interact_fast(tile[k + u], pi.x, pi.y, pi.z, eps2, ax, ay, az);
        }
        __syncthreads();
    }
    if (i < n) finish<KICK>(i, ax, ay, az, e);
}

/* mtpb: a tile of MTPB_TILE bodies whatever the block size, so a thread's share of a tile
 * (MTPB_TILE / q bodies) stays long enough to hide the two barriers around it. */
constexpr int MTPB_TILE = 1024;
constexpr int MTPB_UNROLL = 16;
constexpr int MTPB_MAX_BLOCK = 512;

/* Thread t of a block serves bodies first + g, first + g + B/q, ... (g = t / q, r of them) and
 * takes tile entries lane, lane + q, lane + 2q, ... (lane = t % q): at each step the q lanes read
 * q consecutive float4, which the threads of the other bodies in the warp share by broadcast.
 * The launch bounds cap registers at 64 and let ptxas use them (55-60): left to itself it often
 * settled on 32 and scheduled the loop 10% slower on an H200. */
template <int Q, int R, bool KICK>
__global__ void __launch_bounds__(MTPB_MAX_BLOCK, 2) forces5_mtpb(const float4 *__restrict__ pos, int n, float eps2, Epilogue e)
{
    __shared__ float4 tile[MTPB_TILE];
    const int lane = threadIdx.x & (Q - 1);
    const int groups = blockDim.x / Q;
    const int first = blockIdx.x * groups * R + threadIdx.x / Q;
    float px[R], py[R], pz[R], ax[R], ay[R], az[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
        int i = first + k * groups;
        float4 p = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        px[k] = p.x;
        py[k] = p.y;
        pz[k] = p.z;
        ax[k] = ay[k] = az[k] = 0.0f;
    }
    for (int base = 0; base < n; base += MTPB_TILE) {
        for (int t = threadIdx.x; t < MTPB_TILE; t += blockDim.x) {
            int j = base + t;
            tile[t] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
        __syncthreads();
        /* Only as many rounds as hold real bodies; the rest of a round reads zero-mass padding. */
        int rounds = (min(MTPB_TILE, n - base) + Q * MTPB_UNROLL - 1) / (Q * MTPB_UNROLL);
        const float4 *src = tile + lane;
        for (int s = 0; s < rounds; s++, src += Q * MTPB_UNROLL) {
#pragma unroll
            for (int u = 0; u < MTPB_UNROLL; u++) {
                float4 pj = src[u * Q];
#pragma unroll
                for (int k = 0; k < R; k++) interact_fast(pj, px[k], py[k], pz[k], eps2, ax[k], ay[k], az[k]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < R; k++) {
#pragma unroll
        for (int off = Q / 2; off > 0; off /= 2) {
            ax[k] += __shfl_xor_sync(0xffffffffu, ax[k], off);
            ay[k] += __shfl_xor_sync(0xffffffffu, ay[k], off);
            az[k] += __shfl_xor_sync(0xffffffffu, az[k], off);
        }
        int i = first + k * groups;
        if (lane == 0 && i < n) finish<KICK>(i, ax[k], ay[k], az[k], e);
    }
}

struct __align__(16) Body64 {
    double x, y, z, m;
};

/* fp64 mtpb: half the tile so the shared memory stays at 16 KB, four-fold unroll. */
constexpr int MTPB64_TILE = 512;
constexpr int MTPB64_UNROLL = 4;

template <int Q, bool KICK>
__global__ void __launch_bounds__(MTPB_MAX_BLOCK)
    forces5_mtpb_f64(const float4 *__restrict__ pos, int n, double eps2, double *__restrict__ acc64, Epilogue e)
{
    __shared__ Body64 tile[MTPB64_TILE];
    const int lane = threadIdx.x & (Q - 1);
    const int i = blockIdx.x * (blockDim.x / Q) + threadIdx.x / Q;
    float4 pf = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    double px = pf.x, py = pf.y, pz = pf.z, ax = 0.0, ay = 0.0, az = 0.0;
    for (int base = 0; base < n; base += MTPB64_TILE) {
        for (int t = threadIdx.x; t < MTPB64_TILE; t += blockDim.x) {
            int j = base + t;
            float4 p = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            tile[t] = Body64{p.x, p.y, p.z, p.w};
        }
        __syncthreads();
        int rounds = (min(MTPB64_TILE, n - base) + Q * MTPB64_UNROLL - 1) / (Q * MTPB64_UNROLL);
        const Body64 *src = tile + lane;
        for (int s = 0; s < rounds; s++, src += Q * MTPB64_UNROLL) {
#pragma unroll
            for (int u = 0; u < MTPB64_UNROLL; u++) {
                Body64 pj = src[u * Q];
                double dx = pj.x - px, dy = pj.y - py, dz = pj.z - pz;
                double r2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)));
                double inv = rsqrt(r2);
                double s3 = (pj.m * inv) * (inv * inv);
                ax = fma(dx, s3, ax);
                ay = fma(dy, s3, ay);
                az = fma(dz, s3, az);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int off = Q / 2; off > 0; off /= 2) {
        ax += __shfl_xor_sync(0xffffffffu, ax, off);
        ay += __shfl_xor_sync(0xffffffffu, ay, off);
        az += __shfl_xor_sync(0xffffffffu, az, off);
    }
    if (lane == 0 && i < n) {
        if (acc64) {
            acc64[3 * i] = ax;
            acc64[3 * i + 1] = ay;
            acc64[3 * i + 2] = az;
        }
        finish<KICK>(i, (float)ax, (float)ay, (float)az, e);
    }
}

int blocks_for(int n, int bodies_per_block) { return (n + bodies_per_block - 1) / bodies_per_block; }

template <int Q, int R, bool KICK>
void launch_mtpb(const NbodyForces *f, float eps2, Epilogue e, cudaStream_t s)
{
    int bodies = f->shape.block / Q * R;
    forces5_mtpb<Q, R, KICK><<<blocks_for(f->n, bodies), f->shape.block, 0, s>>>(f->pos, f->n, eps2, e);
}

template <int Q, bool KICK>
void launch_mtpb_q(const NbodyForces *f, float eps2, Epilogue e, cudaStream_t s)
{
    if (f->precision == NBODY_PRECISION_DOUBLE) {
        const double eps2d = f->eps2 > 1e-24 ? f->eps2 : 1e-24;
        forces5_mtpb_f64<Q, KICK>
            <<<blocks_for(f->n, f->shape.block / Q), f->shape.block, 0, s>>>(f->pos, f->n, eps2d, f->acc64, e);
    } else if (f->shape.r == 2) {
        launch_mtpb<Q, 2, KICK>(f, eps2, e, s);
    } else {
        launch_mtpb<Q, 1, KICK>(f, eps2, e, s);
    }
}

/* eps^2 of the float kernels, raised to NBODY_MIN_EPS2. */
float float_eps2(const NbodyForces *f)
{
    const float eps2 = (float)f->eps2;
    return eps2 > NBODY_MIN_EPS2 ? eps2 : NBODY_MIN_EPS2;
}

template <bool KICK>
void launch(const NbodyForces *f, Epilogue e, cudaStream_t s)
{
    const int n = f->n, block = f->shape.block;
    const float eps2 = float_eps2(f);
    const size_t tile_bytes = (size_t)block * sizeof(float4);
    switch (f->kernel) {
    case NBODY_KERNEL_NAIVE:
        forces1_naive<KICK><<<blocks_for(n, block), block, 0, s>>>(f->pos, n, eps2, e);
        break;
    case NBODY_KERNEL_REGISTERS:
        forces2_registers<KICK><<<blocks_for(n, block), block, 0, s>>>(f->pos, n, eps2, e);
        break;
    case NBODY_KERNEL_TILED:
        forces3_tiled<KICK><<<blocks_for(n, block), block, tile_bytes, s>>>(f->pos, n, eps2, e);
        break;
    case NBODY_KERNEL_TILED_UNROLLED:
        forces4_tiled_unrolled<KICK><<<blocks_for(n, block), block, tile_bytes, s>>>(f->pos, n, eps2, e);
        break;
    default:
        switch (f->shape.q) {
        case 1: launch_mtpb_q<1, KICK>(f, eps2, e, s); break;
        case 2: launch_mtpb_q<2, KICK>(f, eps2, e, s); break;
        case 4: launch_mtpb_q<4, KICK>(f, eps2, e, s); break;
        case 8: launch_mtpb_q<8, KICK>(f, eps2, e, s); break;
        case 16: launch_mtpb_q<16, KICK>(f, eps2, e, s); break;
        default: launch_mtpb_q<32, KICK>(f, eps2, e, s); break;
        }
    }
}

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

} // namespace

extern "C" const char *nbody_kernel_name(NbodyKernel k)
{
    static const char *const names[NBODY_KERNEL_COUNT] = {"default", "naive", "registers", "tiled",
                                                          "tiled-unrolled", "mtpb", "symmetric"};
    return k >= 0 && k < NBODY_KERNEL_COUNT ? names[k] : "?";
}

extern "C" cudaError_t nbody_forces_launch(const NbodyForces *f, cudaStream_t stream)
{
    char why[160];
    NbodyKernel k = f->kernel == NBODY_KERNEL_DEFAULT ? NBODY_KERNEL_MTPB : f->kernel;
    if (f->n < 1 || nbody_shape_check(k, f->precision, f->shape, why, sizeof why) != 0) return cudaErrorInvalidValue;
    if (f->acc64 && f->precision != NBODY_PRECISION_DOUBLE) return cudaErrorInvalidValue;
    NbodyForces g = *f;
    g.kernel = k;
    if (k == NBODY_KERNEL_SYMMETRIC) return nbody::launch_symmetric(&g, float_eps2(f), stream);
    Epilogue e = {f->acc, f->vel, f->speed, f->half_kick, f->next_kick, f->damping, f->nonfinite};
    if (f->vel)
        launch<true>(&g, e, stream);
    else
        launch<false>(&g, e, stream);
    return nbody::launch_error();
}

/* The checks of nbody_forces_launch for the symmetric kernel's split launches. */
static bool symmetric_ok(const NbodyForces *f)
{
    char why[160];
    return f->n >= 1 && f->kernel == NBODY_KERNEL_SYMMETRIC &&
           nbody_shape_check(f->kernel, f->precision, f->shape, why, sizeof why) == 0;
}

extern "C" int nbody_symmetric_tasks(NbodyShape shape) { return shape.parts * (shape.parts + 1) / 2; }

extern "C" cudaError_t nbody_symmetric_tasks_launch(const NbodyForces *f, int first, int count, cudaStream_t stream)
{
    if (!symmetric_ok(f)) return cudaErrorInvalidValue;
    return nbody::launch_symmetric_tasks(f, float_eps2(f), first, count, stream);
}

extern "C" cudaError_t nbody_symmetric_finish_launch(const NbodyForces *f, cudaStream_t stream)
{
    if (!symmetric_ok(f)) return cudaErrorInvalidValue;
    return nbody::launch_symmetric_finish(f, stream);
}

extern "C" int nbody_shape_check(NbodyKernel kernel, NbodyPrecision precision, NbodyShape shape, char *err,
                                 size_t errlen)
{
    if (!power_of_two(shape.block) || shape.block < 32 || shape.block > 1024) {
        snprintf(err, errlen, "block size %d: a power of two from 32 to 1024 is needed", shape.block);
        return -1;
    }
    if (precision == NBODY_PRECISION_DOUBLE && kernel != NBODY_KERNEL_MTPB && kernel != NBODY_KERNEL_DEFAULT) {
        snprintf(err, errlen, "double precision runs the mtpb kernel only, not %s", nbody_kernel_name(kernel));
        return -1;
    }
    if (kernel == NBODY_KERNEL_SYMMETRIC) return nbody::symmetric_check(shape, err, errlen);
    if (kernel != NBODY_KERNEL_MTPB && kernel != NBODY_KERNEL_DEFAULT) {
        if (shape.q != 1 || shape.r != 1 || shape.parts != 0) {
            snprintf(err, errlen, "%d threads per body: only the mtpb kernel splits a body across threads",
                     shape.q);
            return -1;
        }
        return 0;
    }
    if (!power_of_two(shape.q) || shape.q > 32) {
        snprintf(err, errlen, "%d threads per body: mtpb takes 1, 2, 4, 8, 16 or 32", shape.q);
        return -1;
    }
    if (shape.q > shape.block) {
        snprintf(err, errlen, "%d threads per body do not fit a block of %d threads", shape.q, shape.block);
        return -1;
    }
    if (shape.r != 1 && (shape.r != 2 || precision == NBODY_PRECISION_DOUBLE)) {
        snprintf(err, errlen, "%d bodies per thread: mtpb takes 1 or 2 (1 in double precision)", shape.r);
        return -1;
    }
    if (shape.block > MTPB_MAX_BLOCK) {
        snprintf(err, errlen, "block size %d: the mtpb kernel takes at most %d", shape.block, MTPB_MAX_BLOCK);
        return -1;
    }
    return 0;
}

extern "C" NbodyShape nbody_plain_shape(int block)
{
    NbodyShape s = {1, block > 0 ? block : 256, 1, 0};
    return s;
}

/* The model behind the default shape. A multiprocessor holds NBODY_RESIDENT threads of mtpb
 * (64 registers each) and runs at full rate once it holds NBODY_SATURATE (8 warps per scheduler:
 * enough independent FFMA and MUFU work to cover their latency), proportionally below; the
 * busiest multiprocessor, with ceil(blocks / SMs) blocks, sets the time. On top: each block
 * loads every body into shared memory once (a share q / (block r) of the work), each doubling
 * of q adds barriers per interaction and a shuffle step, and two bodies per thread halve the
 * shared-memory loads. Constants fitted to H200 timings of every shape at 16K and 128K bodies. */
#define NBODY_SATURATE 1024
#define NBODY_RESIDENT 1024

static double shape_cost(int n, int sm_count, int q, int block, int r)
{
    int bodies = block / q * r;
    long long blocks = (n + bodies - 1) / bodies;
    long long busiest = (blocks + sm_count - 1) / sm_count;
    long long per_sm = NBODY_RESIDENT / block > 0 ? NBODY_RESIDENT / block : 1;
    long long resident = (busiest < per_sm ? busiest : per_sm) * block;
    double rate = resident >= NBODY_SATURATE ? 1.0 : (double)resident / NBODY_SATURATE;
    int log2q = 0;
    while ((1 << log2q) < q) log2q++;
    double overhead = 1.0 + 0.02 * log2q + 2.0 * q / ((double)block * r) - (r == 2 ? 0.03 : 0.0);
    return (double)busiest * bodies / rate * overhead;
}

extern "C" NbodyShape nbody_choose_shape(int n, int sm_count, NbodyPrecision precision, int q, int block)
{
    static const int blocks[] = {256, 512};
    NbodyShape best = {q > 0 ? q : 1, block > 0 ? block : 256, 1, 0};
    if (sm_count < 1) sm_count = 1;
    if (n < 1) n = 1;
    double best_cost = 0;
    bool found = false;
    for (int bi = 0; bi < 2; bi++) {
        int b = block > 0 ? block : blocks[bi];
        for (int r = 1; r <= (precision == NBODY_PRECISION_DOUBLE ? 1 : 2); r++) {
            for (int qq = 1; qq <= 32 && qq <= b; qq *= 2) {
                if (q > 0 && qq != q) continue;
                double c = shape_cost(n, sm_count, qq, b, r);
                if (!found || c < best_cost * 0.999) {
                    best_cost = c;
                    best = (NbodyShape){qq, b, r, 0};
                    found = true;
                }
            }
        }
        if (block > 0) break;
    }
    return best;
}

extern "C" cudaError_t nbody_kernels_check(void)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, forces5_mtpb<1, 1, true>);
}
