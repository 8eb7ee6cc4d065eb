/* Bodies as point sprites: Gaussian falloff from gl_PointCoord, additively blended into a
 * half-float target, then a tonemap pass with exposure into the final framebuffer. The
 * renderer owns the position buffer (n float4) that the simulation updates in place. */
#ifndef STARBURST_RENDERER_H
#define STARBURST_RENDERER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Renderer Renderer;

typedef enum ColorMode {
    COLOR_BY_COMPONENT = 0, /* galaxy A / B x disk, bulge, halo */
    COLOR_BY_SPEED,
    COLOR_MODE_COUNT
} ColorMode;

typedef struct RendererDesc {
    int max_bodies;          /* size of the buffers */
    const char *shader_dir;  /* NULL = the shaders embedded at build time */
} RendererDesc;

typedef struct RenderView {
    int n;                    /* bodies to draw */
    float view[16], proj[16]; /* column-major */
    int width, height;        /* of the target framebuffer, pixels */
    unsigned int framebuffer; /* where the tonemapped image goes */
    float point_size;         /* sprite size in pixels at distance 1, scaled by the projection */
    float exposure;
    ColorMode color_mode;
    float speed_scale;        /* speed mapped to the top of the colour ramp */
    int show_halo;            /* draw halo (dark) bodies */
} RenderView;

Renderer *renderer_create(const RendererDesc *desc, char *err, size_t errlen);
void renderer_destroy(Renderer *r);
unsigned int renderer_position_vbo(const Renderer *r); /* max_bodies float4 */
unsigned int renderer_speed_vbo(const Renderer *r);    /* max_bodies float */
/* Uploads positions (4n floats) and tags (n) — at a reset, before the simulation takes over. */
void renderer_upload(Renderer *r, const float *pos4, const uint8_t *tags, int n);
void renderer_draw(Renderer *r, const RenderView *v);
const char *renderer_color_mode_name(ColorMode m);

#ifdef __cplusplus
}
#endif

#endif
