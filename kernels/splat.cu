// Bodies splatted by CUDA into an HDR buffer (splat_kernels.h): one thread a body computes what
// shaders/bodies.vert computes for its point (the clip-space position, the sprite's size and
// light, the colour of its tag or speed) and adds the Gaussian of shaders/bodies.frag to every
// pixel whose centre lies inside the sprite's square, as GL's point rasterisation covers it.
// Light adds up, so the order of the bodies does not matter and nothing is sorted.
#include <cuda_fp16.h>

#include "splat_kernels.h"

namespace {

// As bodies.vert: [galaxy][component] in linear light; the component's gain; the speed ramp.
__constant__ float3 c_palette[8] = {
    {0.50f, 0.68f, 1.00f}, {1.00f, 0.80f, 0.50f}, {0.30f, 0.38f, 0.80f}, {0.82f, 0.87f, 1.00f},
    {1.00f, 0.45f, 0.30f}, {1.00f, 0.72f, 0.35f}, {0.75f, 0.32f, 0.30f}, {1.00f, 0.80f, 0.68f}};
__constant__ float c_gain[4] = {1.0f, 1.3f, 0.05f, 1.0f};
__constant__ float3 c_ramp[5] = {
    {0.10f, 0.18f, 0.95f}, {0.05f, 0.65f, 1.00f}, {0.45f, 1.00f, 0.45f}, {1.00f, 0.62f, 0.10f}, {1.00f, 0.12f, 0.08f}};

constexpr unsigned HALO = 2u; // the component of dark bodies, as in render/renderer.h

__device__ float3 speed_ramp(float t)
{
    const float x = fminf(fmaxf(t, 0.0f), 1.0f) * 4.0f;
    const int i = min(int(x), 3);
    const float f = x - float(i);
    const float3 a = c_ramp[i], b = c_ramp[i + 1];
    return make_float3(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f);
}

__device__ void add_light(float *accum, int k, float r, float g, float b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(reinterpret_cast<float4 *>(accum) + k, make_float4(r, g, b, 0.0f));
#else
    atomicAdd(accum + 4 * k, r);
    atomicAdd(accum + 4 * k + 1, g);
    atomicAdd(accum + 4 * k + 2, b);
#endif
}

__global__ void splat_kernel(const float4 *__restrict__ pos, const float *__restrict__ speed,
                             const unsigned char *__restrict__ tag, int n, SplatParams p, float *accum)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned t = tag[i], component = t & 3u;
    if (component == HALO && !p.show_halo) return;
    const float4 x = pos[i];
    const float *v = p.view, *q = p.proj;
    const float ex = v[0] * x.x + v[4] * x.y + v[8] * x.z + v[12];
    const float ey = v[1] * x.x + v[5] * x.y + v[9] * x.z + v[13];
    const float ez = v[2] * x.x + v[6] * x.y + v[10] * x.z + v[14];
    const float ew = v[3] * x.x + v[7] * x.y + v[11] * x.z + v[15];
    const float cx = q[0] * ex + q[4] * ey + q[8] * ez + q[12] * ew;
    const float cy = q[1] * ex + q[5] * ey + q[9] * ez + q[13] * ew;
    const float cz = q[2] * ex + q[6] * ey + q[10] * ez + q[14] * ew;
    const float cw = q[3] * ex + q[7] * ey + q[11] * ez + q[15] * ew;
    // A point is drawn only where its vertex lies inside the clip volume.
    if (!(cw > 0.0f) || fabsf(cx) > cw || fabsf(cy) > cw || fabsf(cz) > cw) return;

    const float depth = fmaxf(-ez, 1e-6f * p.focus);
    const float mass = fminf(fmaxf(x.w / p.mass_ref, 0.125f), 27.0f);
    const float size = p.size * (p.focus / depth) * cbrtf(mass);
    const float energy = size < 1.0f ? size * size : 1.0f;
    const float side = fminf(fmaxf(size, 1.0f), p.max_size);
    const float3 c = p.color_mode == 1 ? speed_ramp(speed[i] / p.speed_scale) : c_palette[min(t, 7u)];
    const float light = p.brightness * c_gain[component] * energy;

    // The sprite's centre in window coordinates and the pixels whose centres its square holds.
    const float wx = (cx / cw * 0.5f + 0.5f) * float(p.width), wy = (cy / cw * 0.5f + 0.5f) * float(p.height);
    const float half = 0.5f * side;
    const int x0 = max(int(ceilf(wx - half - 0.5f)), 0), x1 = min(int(ceilf(wx + half - 0.5f)) - 1, p.width - 1);
    const int y0 = max(int(ceilf(wy - half - 0.5f)), 0), y1 = min(int(ceilf(wy + half - 0.5f)) - 1, p.height - 1);
    const float rim = __expf(-4.0f), to_unit = 2.0f / side;
    for (int py = y0; py <= y1; py++) {
        const float dy = (float(py) + 0.5f - wy) * to_unit;
        for (int px = x0; px <= x1; px++) {
            const float dx = (float(px) + 0.5f - wx) * to_unit;
            const float r2 = dx * dx + dy * dy;
            if (r2 > 1.0f) continue;
            const float g = light * (__expf(-4.0f * r2) - rim) / (1.0f - rim);
            add_light(accum, py * p.width + px, c.x * g, c.y * g, c.z * g);
        }
    }
}

__global__ void resolve_kernel(float4 *accum, int width, int height, cudaSurfaceObject_t surface)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int k = y * width + x;
    const float4 a = accum[k];
    accum[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const ushort4 h = make_ushort4(__half_as_ushort(__float2half_rn(a.x)), __half_as_ushort(__float2half_rn(a.y)),
                                   __half_as_ushort(__float2half_rn(a.z)), __half_as_ushort(__float2half_rn(1.0f)));
    surf2Dwrite(h, surface, x * (int)sizeof(ushort4), y);
}

} // namespace

extern "C" cudaError_t splat_bodies(const float *pos, const float *speed, const unsigned char *tag, int n,
                                    const SplatParams *p, float *accum, cudaStream_t stream)
{
    if (n <= 0 || p->width <= 0 || p->height <= 0) return cudaSuccess;
    const int block = 256;
    splat_kernel<<<(n + block - 1) / block, block, 0, stream>>>(reinterpret_cast<const float4 *>(pos), speed, tag, n,
                                                               *p, accum);
    return cudaGetLastError();
}

extern "C" cudaError_t splat_resolve(float *accum, int width, int height, cudaSurfaceObject_t surface,
                                     cudaStream_t stream)
{
    if (width <= 0 || height <= 0) return cudaSuccess;
    const dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    resolve_kernel<<<grid, block, 0, stream>>>(reinterpret_cast<float4 *>(accum), width, height, surface);
    return cudaGetLastError();
}
