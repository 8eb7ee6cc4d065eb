/* Bodies drawn by CUDA: each body's sprite splatted into an HDR accumulation buffer, the same
 * light, colour and footprint as the point sprite of shaders/bodies.vert and bodies.frag (a
 * Gaussian across a square of gl_PointSize pixels, zero at its rim, light adding up); then the
 * buffer's mip levels the glow reads (boxes, as glGenerateMipmap's 2x2 ones) and the tonemap of shaders/tonemap.frag
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

/* The buffer is padded to a multiple of this in each direction, so that every level the tonemap
 * reads halves evenly (a 2 x 2 box, in GL's glGenerateMipmap as here). */
#define SPLAT_PAD 64

/* The levels below the full size that the tonemap's glow reads: 2, 4 and 6, as tonemap.frag's. */
#define SPLAT_GLOWS 3

/* The accumulation buffer (level 0: the view padded to SPLAT_PAD, the view at its bottom left) and
 * the glow's levels 2, 4 and 6 (each level k the mean of the 2^k x 2^k texels above it, as GL's
 * mip chain). Level 0 is plain device memory, which the splat adds to with atomics; the glow's are
 * CUDA arrays of half floats (as GL's HDR texture), written through surfaces and read through
 * textures that filter as GL's GL_LINEAR with GL_CLAMP_TO_EDGE (the same texture units, one fetch
 * a bilinear tap). */
typedef struct SplatPyramid {
    float *level0;
    int width, height; /* of level 0 */
    int view_width, view_height;
    int glow_width[SPLAT_GLOWS], glow_height[SPLAT_GLOWS];
    cudaArray_t glow[SPLAT_GLOWS];
    cudaSurfaceObject_t glow_write[SPLAT_GLOWS];
    cudaTextureObject_t glow_read[SPLAT_GLOWS];
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
