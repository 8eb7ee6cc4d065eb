/* The kernels around the forces: the leapfrog drift (with the opening half kick of an advance
 * folded into its first one), the speeds the renderer colours by, and the energy in double. */
#include "cuda_check.h"
#include "kernels.h"
#include "nbody_common.cuh"

#include <stdlib.h>

namespace {

constexpr int BLOCK = 256;

template <bool HALF_KICK>
__global__ void drift(float4 *__restrict__ pos, float4 *__restrict__ vel, const float4 *__restrict__ acc, int n,
                      float dt, float half_kick, int *__restrict__ nonfinite)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i];
    if (HALF_KICK) {
        float4 a = acc[i];
        v.x = fmaf(a.x, half_kick, v.x);
        v.y = fmaf(a.y, half_kick, v.y);
        v.z = fmaf(a.z, half_kick, v.z);
        vel[i] = v;
    }
    float4 p = pos[i];
    p.x = fmaf(v.x, dt, p.x);
    p.y = fmaf(v.y, dt, p.y);
    p.z = fmaf(v.z, dt, p.z);
    pos[i] = p;
    /* A non-finite velocity makes the position non-finite too (Inf * 0 is NaN): one check. */
    nbody::flag_nonfinite(nonfinite, p.x, p.y, p.z);
}

__global__ void speed(const float4 *__restrict__ vel, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i];
    out[i] = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
}

/* The energy is summed in tiles, BLOCK rows by a span of columns (a sixteenth of the bodies at
 * most), each one pair of partial sums: a share of the tiles fits beside a frame's steps, and the
 * partials added in the tiles' order give the same sums whatever shares they were made in. */
constexpr int ENERGY_COLUMN_TILES = 16;

struct EnergyTiles {
    int rows, columns, width; /* row blocks, column tiles, and a column tile's width */
};

__host__ __device__ EnergyTiles energy_tiles(int n)
{
    const int rows = (n + BLOCK - 1) / BLOCK;
    const int columns = rows < ENERGY_COLUMN_TILES ? rows : ENERGY_COLUMN_TILES;
    const int width = columns > 0 ? (rows + columns - 1) / columns * BLOCK : BLOCK;
    return {rows, columns > 0 ? (n + width - 1) / width : 0, width};
}

/* One thread per body of the tile's rows sums its potential over the tile's columns (BLOCK at a
 * time in shared memory); the block reduces kinetic (in a row's first tile) and potential to one
 * pair of partial sums. Each pair i, j is met twice, so a body keeps half of its m_i phi_i. */
__global__ void energy(const float4 *__restrict__ pos, const float4 *__restrict__ vel, int n, double eps2, int first,
                       double *__restrict__ partials)
{
    __shared__ double tile[BLOCK][4];
    __shared__ double red[2][BLOCK];
    const EnergyTiles g = energy_tiles(n);
    const int t = first + blockIdx.x, column = t % g.columns;
    const int i = t / g.columns * BLOCK + threadIdx.x;
    const int c0 = column * g.width, c1 = min(n, c0 + g.width);
    float4 pf = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 vf = i < n && column == 0 ? vel[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    double phi = 0.0;
    for (int base = c0; base < c1; base += BLOCK) {
        int j = base + threadIdx.x;
        float4 q = j < c1 ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        tile[threadIdx.x][0] = q.x;
        tile[threadIdx.x][1] = q.y;
        tile[threadIdx.x][2] = q.z;
        tile[threadIdx.x][3] = q.w;
        __syncthreads();
        int count = min(BLOCK, c1 - base);
        for (int k = 0; k < count; k++) {
            if (base + k == i) continue;
            double dx = tile[k][0] - pf.x, dy = tile[k][1] - pf.y, dz = tile[k][2] - pf.z;
            double r2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)));
            phi += tile[k][3] * rsqrt(r2);
        }
        __syncthreads();
    }
    double m = pf.w;
    double v2 = (double)vf.x * vf.x + (double)vf.y * vf.y + (double)vf.z * vf.z;
    red[0][threadIdx.x] = i < n ? 0.5 * m * v2 : 0.0;
    red[1][threadIdx.x] = i < n ? -0.5 * m * phi : 0.0;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            red[0][threadIdx.x] += red[0][threadIdx.x + half];
            red[1][threadIdx.x] += red[1][threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[2 * (size_t)t] = red[0][0];
        partials[2 * (size_t)t + 1] = red[1][0];
    }
}

__global__ void kick(nbody::Epilogue e, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = e.acc[i];
    nbody::finish<true>(i, a.x, a.y, a.z, e);
}

int blocks(int n) { return (n + BLOCK - 1) / BLOCK; }

} // namespace

extern "C" cudaError_t nbody_drift_launch(float4 *pos, float4 *vel, const float4 *acc, int n, float dt,
                                          float half_kick, int *nonfinite, cudaStream_t stream)
{
    if (half_kick != 0.0f)
        drift<true><<<blocks(n), BLOCK, 0, stream>>>(pos, vel, acc, n, dt, half_kick, nonfinite);
    else
        drift<false><<<blocks(n), BLOCK, 0, stream>>>(pos, vel, acc, n, dt, 0.0f, nonfinite);
    return nbody::launch_error();
}

__global__ void pack_xyz(const float4 *__restrict__ v, float *__restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = v[i];
    out[3 * (size_t)i] = a.x;
    out[3 * (size_t)i + 1] = a.y;
    out[3 * (size_t)i + 2] = a.z;
}

extern "C" cudaError_t nbody_pack_xyz_launch(const float4 *v, float *out, int n, cudaStream_t stream)
{
    pack_xyz<<<blocks(n), BLOCK, 0, stream>>>(v, out, n);
    return nbody::launch_error();
}

extern "C" cudaError_t nbody_speed_launch(const float4 *vel, float *out, int n, cudaStream_t stream)
{
    speed<<<blocks(n), BLOCK, 0, stream>>>(vel, out, n);
    return nbody::launch_error();
}

extern "C" cudaError_t nbody_kick_launch(const NbodyForces *f, cudaStream_t stream)
{
    const nbody::Epilogue e = {f->acc, f->vel, f->speed, f->half_kick, f->next_kick, f->damping, f->nonfinite};
    kick<<<blocks(f->n), BLOCK, 0, stream>>>(e, f->n);
    return nbody::launch_error();
}

extern "C" int nbody_energy_tiles(int n)
{
    const EnergyTiles g = energy_tiles(n);
    return g.rows * g.columns;
}

extern "C" cudaError_t nbody_energy_part(const float4 *pos, const float4 *vel, int n, double eps2, int first, int count,
                                         double *partials, cudaStream_t stream)
{
    if (count <= 0) return cudaSuccess;
    energy<<<count, BLOCK, 0, stream>>>(pos, vel, n, eps2, first, partials);
    return nbody::launch_error();
}

extern "C" void nbody_energy_total(const double *partials, int n, double *kinetic, double *potential)
{
    double k = 0.0, p = 0.0;
    for (int t = 0, tiles = nbody_energy_tiles(n); t < tiles; t++) {
        k += partials[2 * (size_t)t];
        p += partials[2 * (size_t)t + 1];
    }
    *kinetic = k;
    *potential = p;
}

extern "C" cudaError_t nbody_energy(const float4 *pos, const float4 *vel, int n, double eps2, double *partials,
                                    cudaStream_t stream, double *kinetic, double *potential)
{
    const int tiles = nbody_energy_tiles(n);
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, nbody_energy_part(pos, vel, n, eps2, 0, tiles, partials, stream))) return st.error;
    double *host = (double *)malloc(2 * (size_t)tiles * sizeof(double));
    if (!host) return cudaErrorMemoryAllocation;
    if (CUDA_CHECK(&st, cudaMemcpyAsync(host, partials, 2 * (size_t)tiles * sizeof(double), cudaMemcpyDeviceToHost,
                                        stream)) &&
        CUDA_CHECK(&st, cudaStreamSynchronize(stream)))
        nbody_energy_total(host, n, kinetic, potential);
    free(host);
    return st.error;
}
