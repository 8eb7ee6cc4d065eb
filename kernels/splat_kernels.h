/* Bodies drawn by CUDA: each body's sprite splatted into an HDR accumulation buffer, the same
 * light, colour and footprint as the point sprite of shaders/bodies.vert and bodies.frag (a
 * Gaussian across a square of gl_PointSize pixels, zero at its rim, light adding up); then the
 * buffer's mip levels (2x2 boxes, as glGenerateMipmap) and the tonemap of shaders/tonemap.frag
 * (exposure, the glow of levels 2, 4 and 6, Reinhard on luminance, gamma, dither), written as
 * RGBA8 into a texture that GL copies to the screen: none of the drawing goes through GL's
 * rasteriser, of which datacenter GPUs have little. Nothing here includes src/: the renderer fills
 * SplatParams from its own uniforms. */
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
    float exposure, glow; /* the tonemap's u_exposure and u_glow */
    int pitch;            /* texels a row of the accumulation buffer: its padded width (SPLAT_PAD) */
} SplatParams;

/* The buffer and its levels are padded to a multiple of this in each direction, so that every level
 * the tonemap reads halves evenly (a 2 x 2 box, in GL's glGenerateMipmap as here). */
#define SPLAT_PAD 64

/* The mip levels the tonemap reads: 1 to SPLAT_LEVELS - 1 below the full size. */
#define SPLAT_LEVELS 7

/* The accumulation buffer and its mip levels: level 0 is the view padded to SPLAT_PAD, level k
 * half the one above; the view (view_width x view_height) lies at level 0's bottom left. */
typedef struct SplatPyramid {
    float *level[SPLAT_LEVELS];
    int width[SPLAT_LEVELS], height[SPLAT_LEVELS];
    int view_width, view_height;
} SplatPyramid;

/* accum: width x height float4 (RGBA, row 0 at the bottom as GL's), zero on entry; each body's
 * sprite added to it. pos: n float4 (x, y, z, mass); speed: n floats; tag: n bytes (galaxy << 2 |
 * component). */
cudaError_t splat_bodies(const float *pos, const float *speed, const unsigned char *tag, int n, const SplatParams *p,
                         float *accum, cudaStream_t stream);

/* The pyramid's levels from its level 0, then the tonemapped view into the surface (RGBA8, the
 * view's size), level 0 zeroed for the next frame. */
cudaError_t splat_tonemap(const SplatPyramid *pyramid, const SplatParams *p, cudaSurfaceObject_t surface,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
