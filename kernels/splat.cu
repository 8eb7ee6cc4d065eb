// Bodies splatted by CUDA into an HDR buffer (splat_kernels.h): one thread a body computes what
// shaders/bodies.vert computes for its point (the clip-space position, the sprite's size and
// light, the colour of its tag or speed) and adds the Gaussian of shaders/bodies.frag to every
// pixel whose centre lies inside the sprite's square, as GL's point rasterisation covers it.
// Light adds up, so the order of the bodies does not matter and nothing is sorted.
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
            add_light(accum, py * p.pitch + px, c.x * g, c.y * g, c.z * g);
        }
    }
}

// A level from the one above: each texel the mean of the texels above it, weighted by how much of
// each its footprint covers (aw / w texels wide, 2 for an even size): the light of an odd size's
// last row and column is kept, as a box filter over the footprint keeps it.
__device__ void footprint(int x, int above, int below, int *first, int *last, float *w_first, float *w_last,
                          float *inv)
{
    const float s = float(above) / float(below);
    const float a = float(x) * s, b = float(x + 1) * s;
    *first = int(floorf(a));
    *last = min(int(ceilf(b)) - 1, above - 1);
    *w_first = fminf(float(*first + 1), b) - a;
    *w_last = *last > *first ? b - float(*last) : 0.0f;
    *inv = 1.0f / s;
}

__global__ void halve_kernel(const float4 *__restrict__ above, int aw, int ah, float4 *below, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int x0, x1, y0, y1;
    float wx0, wx1, wy0, wy1, ix, iy;
    footprint(x, aw, w, &x0, &x1, &wx0, &wx1, &ix);
    footprint(y, ah, h, &y0, &y1, &wy0, &wy1, &iy);
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = y0; j <= y1; j++) {
        const float wy = j == y0 ? wy0 : j == y1 ? wy1 : 1.0f;
        for (int i = x0; i <= x1; i++) {
            const float wt = wy * (i == x0 ? wx0 : i == x1 ? wx1 : 1.0f);
            const float4 t = above[j * aw + i];
            sum.x += wt * t.x;
            sum.y += wt * t.y;
            sum.z += wt * t.z;
        }
    }
    const float k = ix * iy;
    below[y * w + x] = make_float4(k * sum.x, k * sum.y, k * sum.z, 0.0f);
}

__device__ float3 texel(const float4 *level, int w, int h, int x, int y)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    const float4 t = level[y * w + x];
    return make_float3(t.x, t.y, t.z);
}

__device__ float3 lerp3(float3 a, float3 b, float f)
{
    return make_float3(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f);
}

// textureLod(level, uv) with GL_LINEAR and GL_CLAMP_TO_EDGE.
__device__ float3 bilinear(const float4 *level, int w, int h, float u, float v)
{
    const float px = u * float(w) - 0.5f, py = v * float(h) - 0.5f;
    const float fx = floorf(px), fy = floorf(py);
    const int x = int(fx), y = int(fy);
    const float ax = px - fx, ay = py - fy;
    return lerp3(lerp3(texel(level, w, h, x, y), texel(level, w, h, x + 1, y), ax),
                 lerp3(texel(level, w, h, x, y + 1), texel(level, w, h, x + 1, y + 1), ax), ay);
}

// smooth_lod of tonemap.frag: a cubic B-spline from four bilinear taps.
__device__ float3 smooth_level(const float4 *level, int w, int h, float u, float v)
{
    const float sx = float(w), sy = float(h);
    const float px = u * sx - 0.5f, py = v * sy - 0.5f;
    const float ix = floorf(px), iy = floorf(py), fx = px - ix, fy = py - iy;
    const float fx2 = fx * fx, fx3 = fx2 * fx, fy2 = fy * fy, fy3 = fy2 * fy;
    const float w0x = (1 - 3 * fx + 3 * fx2 - fx3) / 6, w1x = (4 - 6 * fx2 + 3 * fx3) / 6;
    const float w2x = (1 + 3 * fx + 3 * fx2 - 3 * fx3) / 6, w3x = fx3 / 6;
    const float w0y = (1 - 3 * fy + 3 * fy2 - fy3) / 6, w1y = (4 - 6 * fy2 + 3 * fy3) / 6;
    const float w2y = (1 + 3 * fy + 3 * fy2 - 3 * fy3) / 6, w3y = fy3 / 6;
    const float g0x = w0x + w1x, g1x = w2x + w3x, g0y = w0y + w1y, g1y = w2y + w3y;
    const float t0x = (ix - 0.5f + w1x / g0x) / sx, t1x = (ix + 1.5f + w3x / g1x) / sx;
    const float t0y = (iy - 0.5f + w1y / g0y) / sy, t1y = (iy + 1.5f + w3y / g1y) / sy;
    const float3 a = bilinear(level, w, h, t0x, t0y), b = bilinear(level, w, h, t1x, t0y);
    const float3 c = bilinear(level, w, h, t0x, t1y), d = bilinear(level, w, h, t1x, t1y);
    return make_float3(g0y * (g0x * a.x + g1x * b.x) + g1y * (g0x * c.x + g1x * d.x),
                       g0y * (g0x * a.y + g1x * b.y) + g1y * (g0x * c.y + g1x * d.y),
                       g0y * (g0x * a.z + g1x * b.z) + g1y * (g0x * c.z + g1x * d.z));
}

__device__ unsigned char unorm8(float c) { return (unsigned char)__float2int_rn(fminf(fmaxf(c, 0.0f), 1.0f) * 255.0f); }

// tonemap.frag's main for the pixel (x, y), rows from the bottom as GL's.
__global__ void tonemap_kernel(SplatPyramid q, float exposure, float glow_gain, cudaSurfaceObject_t surface)
{
    const int w = q.width[0], h = q.height[0];
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= q.view_width || y >= q.view_height) return;
    const float u = (float(x) + 0.5f) / float(w), v = (float(y) + 0.5f) / float(h);
    float4 *level0 = reinterpret_cast<float4 *>(q.level[0]);
    const float4 hdr = level0[y * w + x];
    level0[y * w + x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f); // black for the next frame's splat
    const float3 l2 = bilinear(reinterpret_cast<const float4 *>(q.level[2]), q.width[2], q.height[2], u, v);
    const float3 l4 = smooth_level(reinterpret_cast<const float4 *>(q.level[4]), q.width[4], q.height[4], u, v);
    const float3 l6 = smooth_level(reinterpret_cast<const float4 *>(q.level[6]), q.width[6], q.height[6], u, v);
    float c[3];
    const float gl[3] = {0.5f * l2.x + 0.3f * l4.x + 0.2f * l6.x, 0.5f * l2.y + 0.3f * l4.y + 0.2f * l6.y,
                         0.5f * l2.z + 0.3f * l4.z + 0.2f * l6.z};
    const float hd[3] = {hdr.x, hdr.y, hdr.z};
    for (int k = 0; k < 3; k++) c[k] = exposure * (hd[k] + glow_gain * gl[k]);
    const float WHITE = 20.0f; // as tonemap.frag
    const float l = 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
    const float scale = (1.0f + l / (WHITE * WHITE)) / (1.0f + l);
    for (int k = 0; k < 3; k++) c[k] *= scale;
    const float over = fmaxf(fmaxf(c[0], fmaxf(c[1], c[2])) - 1.0f, 0.0f);
    // gl_FragCoord is the pixel's centre.
    const float fx = float(x) + 0.5f, fy = float(y) + 0.5f;
    const float inner = 0.06711056f * fx + 0.00583715f * fy;
    const float noise = 52.9829189f * (inner - floorf(inner));
    const float dither = ((noise - floorf(noise)) - 0.5f) / 255.0f;
    unsigned char out[3];
    for (int k = 0; k < 3; k++) out[k] = unorm8(powf(fminf(c[k] + 0.5f * over, 1.0f), 1.0f / 2.2f) + dither);
    surf2Dwrite(make_uchar4(out[0], out[1], out[2], 255), surface, x * (int)sizeof(uchar4), y);
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

extern "C" cudaError_t splat_tonemap(const SplatPyramid *q, const SplatParams *p, cudaSurfaceObject_t surface,
                                     cudaStream_t stream)
{
    if (q->width[0] <= 0 || q->height[0] <= 0) return cudaSuccess;
    const dim3 block(32, 8);
    for (int k = 1; k < SPLAT_LEVELS; k++) {
        const dim3 grid((q->width[k] + 31) / 32, (q->height[k] + 7) / 8);
        halve_kernel<<<grid, block, 0, stream>>>(reinterpret_cast<const float4 *>(q->level[k - 1]), q->width[k - 1],
                                                 q->height[k - 1], reinterpret_cast<float4 *>(q->level[k]), q->width[k],
                                                 q->height[k]);
    }
    const dim3 grid((q->view_width + 31) / 32, (q->view_height + 7) / 8);
    tonemap_kernel<<<grid, block, 0, stream>>>(*q, p->exposure, p->glow, surface);
    return cudaGetLastError();
}
