/* Bodies drawn by CUDA: each body's sprite splatted into an HDR accumulation buffer, the same
 * light, colour and footprint as the point sprite of shaders/bodies.vert and bodies.frag (a
 * Gaussian across a square of gl_PointSize pixels, zero at its rim, light adding up); then the
 * buffer's levels the glow reads (boxes, as glGenerateMipmap's 2x2 ones), the glow's Gaussians
 * (glow.h, as shaders/glow.frag) and the tonemap of shaders/tonemap.frag (exposure, the glow,
 * Reinhard on luminance, gamma, dither), written as
 * RGBA8 into a texture that GL copies to the screen: none of the drawing goes through GL's
 * rasteriser, of which datacenter GPUs have little. Nothing here includes src/: the renderer fills
 * SplatParams from its own uniforms. */
#ifndef STARBURST_SPLAT_KERNELS_H
#define STARBURST_SPLAT_KERNELS_H

#include <cuda_runtime_api.h>

#include "glow.h"

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
    int pitch;            /* texels a row of the accumulation buffer: its padded width (GLOW_PAD) */
} SplatParams;

/* The levels below the full size that the glow reads: 2 (as it is), then 3 and 4 (blurred). */
#define SPLAT_LEVELS (GLOW_FIRST_LEVEL + GLOW_BLURS - 2)

/* A CUDA array of half-float RGBA texels (as GL's RGBA16F), written and read through a surface,
 * and read filtered through a texture as GL's GL_LINEAR with GL_CLAMP_TO_EDGE (the same texture
 * units, one fetch a bilinear tap). */
typedef struct SplatImage {
    int width, height;
    cudaArray_t array;
    cudaSurfaceObject_t write;
    cudaTextureObject_t read;
} SplatImage;

/* The accumulation buffer (level 0: the view padded to GLOW_PAD, the view at its bottom left), the
 * glow's levels 2, 3 and 4 (each level k the mean of the 2^k x 2^k texels above it, as GL's mip
 * chain), and each Gaussian's two passes (blur[b][0] across level GLOW_FIRST_LEVEL + b, blur[b][1]
 * then up, which the tonemap reads). Level 0 is plain device memory, which the splat adds to with
 * atomics. */
typedef struct SplatPyramid {
    float *level0;
    int width, height; /* of level 0 */
    int view_width, view_height;
    SplatImage level[SPLAT_LEVELS];
    SplatImage blur[GLOW_BLURS][2];
} SplatPyramid;

/* The pyramid for a view of width x height pixels, level 0 zeroed on stream; on failure nothing is
 * left allocated. */
cudaError_t splat_pyramid_make(SplatPyramid *q, int view_width, int view_height, cudaStream_t stream);

/* Frees what splat_pyramid_make made (a zeroed pyramid: nothing) and zeroes it. */
void splat_pyramid_free(SplatPyramid *q);

/* accum: width x height float4 (RGBA, row 0 at the bottom as GL's), zero on entry; each body's
 * sprite added to it. pos: n float4 (x, y, z, mass); speed: n floats; tag: n bytes (galaxy << 2 |
 * component). */
cudaError_t splat_bodies(const float *pos, const float *speed, const unsigned char *tag, int n, const SplatParams *p,
                         float *accum, cudaStream_t stream);

/* The glow's levels from level 0, then the tonemapped view into the surface (RGBA8, the view's
 * size), level 0 zeroed for the next frame. */
cudaError_t splat_tonemap(const SplatPyramid *pyramid, const SplatParams *p, cudaSurfaceObject_t surface,
                          cudaStream_t stream);

/* The light of the bodies, what the camera frames and a sprite's size refers to, summed where the
 * positions are: [0..4] galaxy 0's stars (disk and bulge: tag components 0 and 1) Σm, Σm x, Σm y,
 * Σm z, Σm |x|², [5..9] galaxy 1's the same, [10..11] Σm and the count of the bodies not of a halo,
 * [12] Σm of all. Each of SPLAT_LIGHT_BLOCKS blocks sums its share in double into its row of
 * partials (device memory, SPLAT_LIGHT_BLOCKS x SPLAT_LIGHT_SUMS doubles); splat_light_total adds
 * the rows in their order, so the same bodies give the same sums at every call. */
#define SPLAT_LIGHT_SUMS 13
#define SPLAT_LIGHT_BLOCKS 132
cudaError_t splat_light(const float *pos, const unsigned char *tag, int n, double *partials, cudaStream_t stream);
void splat_light_total(const double *partials, double sums[SPLAT_LIGHT_SUMS]);

#ifdef __cplusplus
}
#endif

#endif
