/* Bodies drawn by CUDA: each body's sprite splatted into an HDR accumulation buffer, the same
 * light, colour and footprint as the point sprite of shaders/bodies.vert and bodies.frag (a
 * Gaussian across a square of gl_PointSize pixels, zero at its rim, light adding up), then the
 * buffer resolved into the renderer's RGBA16F texture, which GL tonemaps as before. Nothing here
 * includes src/: the renderer fills SplatParams from its own uniforms. */
#ifndef STARBURST_SPLAT_KERNELS_H
#define STARBURST_SPLAT_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the sprite shaders take as uniforms, with the target's size. */
typedef struct SplatParams {
    float view[16], proj[16]; /* column-major, as GL takes them */
    int width, height;        /* of the target, pixels */
    float size;               /* u_size: pixels at the focus distance for a body of mass mass_ref */
    float max_size;           /* u_max_size: the largest sprite, pixels */
    float focus, mass_ref;
    float brightness; /* peak light of one disk sprite */
    int color_mode;   /* 0 component, 1 speed */
    float speed_scale;
    int show_halo;
} SplatParams;

/* accum: width x height float4 (RGBA, row 0 at the bottom as GL's), zero on entry; each body's
 * sprite added to it. pos: n float4 (x, y, z, mass); speed: n floats; tag: n bytes (galaxy << 2 |
 * component). */
cudaError_t splat_bodies(const float *pos, const float *speed, const unsigned char *tag, int n, const SplatParams *p,
                         float *accum, cudaStream_t stream);

/* accum written into level 0 of the surface (RGBA16F) and zeroed for the next frame. */
cudaError_t splat_resolve(float *accum, int width, int height, cudaSurfaceObject_t surface, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
