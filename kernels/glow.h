/* The glow around bright light, as both drawings make it: GL's (shaders/glow.frag and
 * tonemap.frag, src/render/renderer.c) and CUDA's (kernels/splat.cu). Written once, so the two
 * draw the same picture.
 *
 * The glow is the HDR image's level 2 (a quarter of its size: a faint haze a few pixels wide) and
 * two wide terms: levels 3 and 4, each blurred by a Gaussian of GLOW_SIGMA texels in two passes,
 * across and then up. A Gaussian is the one blur that is both separable and round, so the glow
 * around a bright core is a disk. A filter made of square cells (a cubic B-spline of a mip level,
 * as the glow was before) reaches a quarter farther along the diagonals than along the axes, and
 * the gamma makes those faint reaches visible: a square around every dense galaxy core. Each
 * Gaussian is cut at GLOW_CUT of its width, where it has fallen to 3e-7 of its peak, too faint for
 * 8-bit output even under a core thousands of times brighter than white. */
#ifndef STARBURST_GLOW_H
#define STARBURST_GLOW_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The blurred levels: GLOW_FIRST_LEVEL and the next. */
#define GLOW_BLURS 2
#define GLOW_FIRST_LEVEL 3
/* A blur's weights: the centre's, then one side's out to its radius (both sides alike). */
#define GLOW_TAPS 16
#define GLOW_CUT 5.5f

/* Each blur's Gaussian, in texels of its level: 8 and 40 pixels, the widths of the terms they
 * replaced (their second moments, with the level's box and the tonemap's B-spline read). */
static const float GLOW_SIGMA[GLOW_BLURS] = {1.0f, 2.5f};

/* The image's sides are padded to a multiple of this, so that every level down to the coarsest
 * the glow reads halves evenly (GL's glGenerateMipmap and CUDA's boxes are then the same 2 x 2
 * means). */
#define GLOW_PAD (1 << (GLOW_FIRST_LEVEL + GLOW_BLURS - 1))

/* Blur b's weights into w[0 .. radius] (summing to 1 over both sides), the rest of w zeroed; its
 * radius. */
static inline int glow_weights(int b, float w[GLOW_TAPS])
{
    const double sigma = GLOW_SIGMA[b];
    int radius = (int)ceil(GLOW_CUT * sigma);
    if (radius > GLOW_TAPS - 1) radius = GLOW_TAPS - 1;
    double sum = 0, g[GLOW_TAPS] = {0};
    for (int j = 0; j <= radius; j++) {
        g[j] = exp(-0.5 * j * j / (sigma * sigma));
        sum += j ? 2 * g[j] : g[j];
    }
    for (int j = 0; j < GLOW_TAPS; j++) w[j] = (float)(g[j] / sum);
    return radius;
}

#ifdef __cplusplus
}
#endif

#endif
