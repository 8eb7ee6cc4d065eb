/* The bodies drawn and tonemapped by CUDA (kernels/splat_kernels.h) into an RGBA8 texture of the
 * renderer's, through CUDA-GL interop: the renderer's position, speed and tag buffers and the
 * texture registered once (the texture again when it is made anew), mapped for each frame. Built
 * only with CUDA. */
#ifndef STARBURST_SPLAT_H
#define STARBURST_SPLAT_H

#include <stdbool.h>
#include <stddef.h>

#include "splat_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Splat Splat;

/* NULL with one line in err where CUDA cannot reach the buffers (no device, a GL context that is
 * not on NVIDIA's driver). */
Splat *splat_create(unsigned int position_vbo, unsigned int speed_vbo, unsigned int tag_vbo, char *err, size_t errlen);
void splat_destroy(Splat *s);
/* Draws n bodies, tonemapped, into level 0 of texture (RGBA8, p's width x height; registered anew
 * when the texture, or its size, is not the last one's), replacing what it held. 0, or -1 with err
 * (the first failure, kept: later draws fail the same way). */
int splat_draw(Splat *s, unsigned int texture, int n, const SplatParams *p, char *err, size_t errlen);
/* The same into a renderbuffer (RGBA8, the view's size): a headless framebuffer's, drawn into
 * without a copy. */
int splat_draw_renderbuffer(Splat *s, unsigned int renderbuffer, int n, const SplatParams *p, char *err,
                            size_t errlen);
/* n positions (float4: x, y, z, mass) from device memory of this device copied into the position
 * buffer without leaving the device, then the light of them and the tag buffer's tags summed
 * (splat_light's sums, into light). Waits for the copy; the positions must be written (their
 * stream synchronised) before. 0, or -1 with err (kept, as splat_draw's). */
int splat_take_positions(Splat *s, const float *device_pos4, int n, double light[SPLAT_LIGHT_SUMS], char *err,
                         size_t errlen);
/* Whether CUDA can write into renderbuffer (registered and let go at once; nothing is kept). */
bool splat_can_write_renderbuffer(unsigned int renderbuffer);
/* The last draw's GPU time, ms (CUDA events, read at the next draw; 0 before), the mapping of the
 * buffers included; its kernels' alone in *kernel_ms (NULL: not wanted). */
double splat_gpu_ms(const Splat *s, double *kernel_ms);

#ifdef __cplusplus
}
#endif

#endif
