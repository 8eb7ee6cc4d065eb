// Bodies splatted by CUDA into an HDR buffer (splat_kernels.h): one thread a body computes what
// shaders/bodies.vert computes for its point (the clip-space position, the sprite's size and
// light, the colour of its tag or speed) and adds the Gaussian of shaders/bodies.frag to every
// pixel whose centre lies inside the sprite's square, as GL's point rasterisation covers it.
// Light adds up, so the order of the bodies does not matter and nothing is sorted.
#include "splat_kernels.h"

#include <cuda_fp16.h>

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

// Level 2 of the pyramid from level 0: each texel the mean of the 4 x 4 texels above it, as two of
// GL's 2 x 2 boxes (the padding makes every size the glow reads even); each level below from the
// one above, as GL's 2 x 2 boxes. Level 0 is plain memory; the glow's levels are arrays of half
// floats, as GL's HDR texture is (a filtered fetch of 8 bytes a texel, not 16, through the texture
// units the tonemap is bound by), behind surfaces.
__device__ float4 add3(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, 0.0f); }

__device__ void write_half4(cudaSurfaceObject_t s, int x, int y, float4 v)
{
    const ushort4 h = make_ushort4(__half_as_ushort(__float2half_rn(v.x)), __half_as_ushort(__float2half_rn(v.y)),
                                   __half_as_ushort(__float2half_rn(v.z)), 0);
    surf2Dwrite(h, s, x * (int)sizeof(ushort4), y);
}

__device__ float4 read_half4(cudaSurfaceObject_t s, int x, int y)
{
    const ushort4 h = surf2Dread<ushort4>(s, x * (int)sizeof(ushort4), y);
    return make_float4(__half2float(__ushort_as_half(h.x)), __half2float(__ushort_as_half(h.y)),
                       __half2float(__ushort_as_half(h.z)), 0.0f);
}

__global__ void quarter_from_memory(const float4 *__restrict__ above, int aw, cudaSurfaceObject_t below, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < 4; j++) {
        const float4 *row = above + (size_t)(4 * y + j) * aw + 4 * x;
        for (int i = 0; i < 4; i++) sum = add3(sum, row[i]);
    }
    const float k = 1.0f / 16.0f;
    write_half4(below, x, y, make_float4(k * sum.x, k * sum.y, k * sum.z, 0.0f));
}

__global__ void half_from_surface(cudaSurfaceObject_t above, cudaSurfaceObject_t below, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            sum = add3(sum, read_half4(above, 2 * x + i, 2 * y + j));
    const float k = 1.0f / 4.0f;
    write_half4(below, x, y, make_float4(k * sum.x, k * sum.y, k * sum.z, 0.0f));
}

// One of glow.h's Gaussians, as a kernel argument.
struct GlowBlur {
    int radius;
    float weight[GLOW_TAPS];
};

// One pass of shaders/glow.frag: src blurred along (dx, dy) into dst, the texels beyond the edge
// those of the edge, in the shader's order of sums.
__global__ void blur_kernel(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h, int dx, int dy, GlowBlur g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float4 c = read_half4(src, x, y);
    float4 sum = make_float4(g.weight[0] * c.x, g.weight[0] * c.y, g.weight[0] * c.z, 0.0f);
    for (int j = 1; j <= g.radius; j++) {
        const float4 a = read_half4(src, min(max(x - j * dx, 0), w - 1), min(max(y - j * dy, 0), h - 1));
        const float4 b = read_half4(src, min(max(x + j * dx, 0), w - 1), min(max(y + j * dy, 0), h - 1));
        sum.x += g.weight[j] * (a.x + b.x);
        sum.y += g.weight[j] * (a.y + b.y);
        sum.z += g.weight[j] * (a.z + b.z);
    }
    write_half4(dst, x, y, sum);
}

// textureLod(level, uv) with GL_LINEAR and GL_CLAMP_TO_EDGE: one filtered fetch.
__device__ float3 bilinear(cudaTextureObject_t level, float u, float v)
{
    const float4 t = tex2D<float4>(level, u, v);
    return make_float3(t.x, t.y, t.z);
}

// smooth_lod of tonemap.frag: a cubic B-spline from four bilinear taps. Its divisions are the
// fast ones, as a fragment shader's are (the weights feed 8-bit output).
__device__ float3 smooth_level(cudaTextureObject_t level, int w, int h, float u, float v)
{
    const float sx = float(w), sy = float(h), rx = __frcp_rn(sx), ry = __frcp_rn(sy), sixth = 1.0f / 6.0f;
    const float px = u * sx - 0.5f, py = v * sy - 0.5f;
    const float ix = floorf(px), iy = floorf(py), fx = px - ix, fy = py - iy;
    const float fx2 = fx * fx, fx3 = fx2 * fx, fy2 = fy * fy, fy3 = fy2 * fy;
    const float w0x = (1 - 3 * fx + 3 * fx2 - fx3) * sixth, w1x = (4 - 6 * fx2 + 3 * fx3) * sixth;
    const float w2x = (1 + 3 * fx + 3 * fx2 - 3 * fx3) * sixth, w3x = fx3 * sixth;
    const float w0y = (1 - 3 * fy + 3 * fy2 - fy3) * sixth, w1y = (4 - 6 * fy2 + 3 * fy3) * sixth;
    const float w2y = (1 + 3 * fy + 3 * fy2 - 3 * fy3) * sixth, w3y = fy3 * sixth;
    const float g0x = w0x + w1x, g1x = w2x + w3x, g0y = w0y + w1y, g1y = w2y + w3y;
    const float t0x = (ix - 0.5f + __fdividef(w1x, g0x)) * rx, t1x = (ix + 1.5f + __fdividef(w3x, g1x)) * rx;
    const float t0y = (iy - 0.5f + __fdividef(w1y, g0y)) * ry, t1y = (iy + 1.5f + __fdividef(w3y, g1y)) * ry;
    const float3 a = bilinear(level, t0x, t0y), b = bilinear(level, t1x, t0y);
    const float3 c = bilinear(level, t0x, t1y), d = bilinear(level, t1x, t1y);
    return make_float3(g0y * (g0x * a.x + g1x * b.x) + g1y * (g0x * c.x + g1x * d.x),
                       g0y * (g0x * a.y + g1x * b.y) + g1y * (g0x * c.y + g1x * d.y),
                       g0y * (g0x * a.z + g1x * b.z) + g1y * (g0x * c.z + g1x * d.z));
}

__device__ unsigned char unorm8(float c) { return (unsigned char)__float2int_rn(fminf(fmaxf(c, 0.0f), 1.0f) * 255.0f); }

// tonemap.frag's main for the pixel (x, y), rows from the bottom as GL's.
__global__ void tonemap_kernel(SplatPyramid q, float exposure, float glow_gain, cudaSurfaceObject_t surface)
{
    const int w = q.width, h = q.height;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= q.view_width || y >= q.view_height) return;
    const float u = (float(x) + 0.5f) * __frcp_rn(float(w)), v = (float(y) + 0.5f) * __frcp_rn(float(h));
    float4 *level0 = reinterpret_cast<float4 *>(q.level0);
    const float4 hdr = level0[y * w + x];
    level0[y * w + x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f); // black for the next frame's splat
    const float3 l2 = bilinear(q.level[0].read, u, v);
    const SplatImage &b3 = q.blur[0][1], &b4 = q.blur[1][1];
    const float3 l3 = smooth_level(b3.read, b3.width, b3.height, u, v);
    const float3 l4 = smooth_level(b4.read, b4.width, b4.height, u, v);
    float c[3];
    const float gl[3] = {0.5f * l2.x + 0.3f * l3.x + 0.2f * l4.x, 0.5f * l2.y + 0.3f * l3.y + 0.2f * l4.y,
                         0.5f * l2.z + 0.3f * l3.z + 0.2f * l4.z};
    const float hd[3] = {hdr.x, hdr.y, hdr.z};
    for (int k = 0; k < 3; k++) c[k] = exposure * (hd[k] + glow_gain * gl[k]);
    const float WHITE = 20.0f; // as tonemap.frag
    const float l = 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
    const float scale = __fdividef(1.0f + l * (1.0f / (WHITE * WHITE)), 1.0f + l);
    for (int k = 0; k < 3; k++) c[k] *= scale;
    const float over = fmaxf(fmaxf(c[0], fmaxf(c[1], c[2])) - 1.0f, 0.0f);
    // gl_FragCoord is the pixel's centre.
    const float fx = float(x) + 0.5f, fy = float(y) + 0.5f;
    const float inner = 0.06711056f * fx + 0.00583715f * fy;
    const float noise = 52.9829189f * (inner - floorf(inner));
    const float dither = ((noise - floorf(noise)) - 0.5f) / 255.0f;
    unsigned char out[3];
    for (int k = 0; k < 3; k++) out[k] = unorm8(__powf(fminf(c[k] + 0.5f * over, 1.0f), 1.0f / 2.2f) + dither);
    surf2Dwrite(make_uchar4(out[0], out[1], out[2], 255), surface, x * (int)sizeof(uchar4), y);
}

// One row of the light's sums a block: a thread's bodies, then the block's threads added pairwise
// in shared memory, in the same order at every call.
constexpr int LIGHT_THREADS = 256;

__global__ void light_kernel(const float4 *__restrict__ pos, const unsigned char *__restrict__ tag, int n,
                             double *partials)
{
    __shared__ double sums[SPLAT_LIGHT_SUMS][LIGHT_THREADS];
    double s[SPLAT_LIGHT_SUMS] = {};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 x = pos[i];
        const unsigned t = tag[i], component = t & 3u;
        const double m = x.w;
        s[12] += m;
        if (component == HALO) continue;
        s[10] += m;
        s[11] += 1.0;
        if (component > 1u) continue; // a star is of a disk or a bulge
        double *g = s + 5 * ((t >> 2) & 1u);
        const double px = x.x, py = x.y, pz = x.z;
        g[0] += m;
        g[1] += m * px;
        g[2] += m * py;
        g[3] += m * pz;
        g[4] += m * (px * px + py * py + pz * pz);
    }
    for (int k = 0; k < SPLAT_LIGHT_SUMS; k++) sums[k][threadIdx.x] = s[k];
    __syncthreads();
    for (int half = LIGHT_THREADS / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half)
            for (int k = 0; k < SPLAT_LIGHT_SUMS; k++) sums[k][threadIdx.x] += sums[k][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < SPLAT_LIGHT_SUMS) partials[blockIdx.x * SPLAT_LIGHT_SUMS + threadIdx.x] = sums[threadIdx.x][0];
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
    if (q->width <= 0 || q->height <= 0) return cudaSuccess;
    const dim3 block(32, 8);
    const auto grid_of = [&](const SplatImage &m) { return dim3((m.width + 31) / 32, (m.height + 7) / 8); };
    for (int k = 0; k < SPLAT_LEVELS; k++) {
        const SplatImage &m = q->level[k];
        if (k == 0)
            quarter_from_memory<<<grid_of(m), block, 0, stream>>>(reinterpret_cast<const float4 *>(q->level0),
                                                                  q->width, m.write, m.width, m.height);
        else
            half_from_surface<<<grid_of(m), block, 0, stream>>>(q->level[k - 1].write, m.write, m.width, m.height);
    }
    for (int b = 0; b < GLOW_BLURS; b++) {
        GlowBlur g;
        g.radius = glow_weights(b, g.weight);
        const SplatImage &src = q->level[GLOW_FIRST_LEVEL - 2 + b], &across = q->blur[b][0], &up = q->blur[b][1];
        blur_kernel<<<grid_of(src), block, 0, stream>>>(src.write, across.write, src.width, src.height, 1, 0, g);
        blur_kernel<<<grid_of(src), block, 0, stream>>>(across.write, up.write, src.width, src.height, 0, 1, g);
    }
    const dim3 grid((q->view_width + 31) / 32, (q->view_height + 7) / 8);
    tonemap_kernel<<<grid, block, 0, stream>>>(*q, p->exposure, p->glow, surface);
    return cudaGetLastError();
}

static void image_free(SplatImage *m)
{
    if (m->read) cudaDestroyTextureObject(m->read);
    if (m->write) cudaDestroySurfaceObject(m->write);
    if (m->array) cudaFreeArray(m->array);
    *m = SplatImage{};
}

// An image of width x height half-float texels, with its surface and its filtered texture.
static cudaError_t image_make(SplatImage *m, int width, int height)
{
    *m = SplatImage{};
    m->width = width;
    m->height = height;
    const cudaChannelFormatDesc texel = cudaCreateChannelDescHalf4();
    cudaError_t e = cudaMallocArray(&m->array, &texel, width, height, cudaArraySurfaceLoadStore);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = m->array;
    cudaTextureDesc tex = {};
    tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 1;
    if (e == cudaSuccess) e = cudaCreateSurfaceObject(&m->write, &res);
    if (e == cudaSuccess) e = cudaCreateTextureObject(&m->read, &res, &tex, nullptr);
    return e;
}

extern "C" void splat_pyramid_free(SplatPyramid *q)
{
    for (int k = 0; k < SPLAT_LEVELS; k++) image_free(&q->level[k]);
    for (int b = 0; b < GLOW_BLURS; b++)
        for (int i = 0; i < 2; i++) image_free(&q->blur[b][i]);
    cudaFree(q->level0);
    *q = SplatPyramid{};
}

extern "C" cudaError_t splat_pyramid_make(SplatPyramid *q, int view_width, int view_height, cudaStream_t stream)
{
    *q = SplatPyramid{};
    q->view_width = view_width;
    q->view_height = view_height;
    q->width = (view_width + GLOW_PAD - 1) / GLOW_PAD * GLOW_PAD;
    q->height = (view_height + GLOW_PAD - 1) / GLOW_PAD * GLOW_PAD;
    const size_t bytes = (size_t)q->width * (size_t)q->height * sizeof(float4);
    cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&q->level0), bytes);
    if (e == cudaSuccess) e = cudaMemsetAsync(q->level0, 0, bytes, stream);
    for (int k = 0; k < SPLAT_LEVELS && e == cudaSuccess; k++)
        e = image_make(&q->level[k], q->width >> (k + 2), q->height >> (k + 2));
    for (int b = 0; b < GLOW_BLURS && e == cudaSuccess; b++)
        for (int i = 0; i < 2 && e == cudaSuccess; i++)
            e = image_make(&q->blur[b][i], q->width >> (GLOW_FIRST_LEVEL + b), q->height >> (GLOW_FIRST_LEVEL + b));
    if (e != cudaSuccess) {
        cudaGetLastError();
        splat_pyramid_free(q);
    }
    return e;
}

extern "C" cudaError_t splat_light(const float *pos, const unsigned char *tag, int n, double *partials,
                                   cudaStream_t stream)
{
    light_kernel<<<SPLAT_LIGHT_BLOCKS, LIGHT_THREADS, 0, stream>>>(reinterpret_cast<const float4 *>(pos), tag,
                                                                   n > 0 ? n : 0, partials);
    return cudaGetLastError();
}

extern "C" void splat_light_total(const double *partials, double sums[SPLAT_LIGHT_SUMS])
{
    for (int k = 0; k < SPLAT_LIGHT_SUMS; k++) sums[k] = 0;
    for (int b = 0; b < SPLAT_LIGHT_BLOCKS; b++)
        for (int k = 0; k < SPLAT_LIGHT_SUMS; k++) sums[k] += partials[b * SPLAT_LIGHT_SUMS + k];
}
