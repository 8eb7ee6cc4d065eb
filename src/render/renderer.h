/* Bodies as point sprites: Gaussian falloff from gl_PointCoord, additively blended into a
 * half-float target, then a tonemap pass with exposure into the final framebuffer; over that,
 * optionally, wire cubes (the cells of a tree) as faint additive lines. The renderer owns the
 * position buffer (n float4) that the simulation updates in place. */
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

/* A body's tag as the renderer and its shader read it: galaxy << 2 | component, where component 2
 * is the dark halo (drawn only with show_halo). The simulation's bodies carry tags of this layout
 * (tests/unit/test_bodies.c checks the two agree). */
#define RENDER_TAG_IS_HALO(tag) (((tag) & 3) == 2)

typedef struct RendererDesc {
    int max_bodies;          /* size of the buffers */
    const char *shader_dir;  /* NULL = the shaders embedded at build time */
} RendererDesc;

/* Who puts the bodies' light into the HDR target: GL's point sprites, or a CUDA kernel that
 * splats the same sprites (render/splat.h; a build with CUDA and a GL context on NVIDIA's driver,
 * else GL draws and renderer_draw_note says why). The tonemap is GL's either way. */
typedef enum RenderDraw {
    RENDER_DRAW_GL = 0,
    RENDER_DRAW_CUDA,
    RENDER_DRAW_COUNT
} RenderDraw;

/* Who draws by default: CUDA from RENDER_DRAW_CUDA_MIN bodies where the simulation runs on CUDA
 * (its positions are on the device; a datacenter GPU has little rasteriser), GL below
 * (docs/PERFORMANCE.md). The program's --draw auto and the library's pictures both. */
#define RENDER_DRAW_CUDA_MIN 65536
static inline RenderDraw renderer_auto_draw(int n, int on_cuda)
{
    return n >= RENDER_DRAW_CUDA_MIN && on_cuda ? RENDER_DRAW_CUDA : RENDER_DRAW_GL;
}

/* Zero fields mean "default" where a default is named. */
typedef struct RenderView {
    int n;                    /* bodies to draw */
    float view[16], proj[16]; /* column-major */
    int width, height;        /* of the target framebuffer, pixels; 0 draws nothing */
    unsigned int framebuffer; /* where the tonemapped image goes */
    /* Sprite size relative to the default (0 = 1): a body of typical mass at focus_distance is
     * about 3 px across on a 1080-line view, in proportion on others; nearer bodies are larger,
     * farther ones smaller, within 1 .. 64 px. */
    float point_size;
    float focus_distance;     /* usually the camera's distance; 0 = the eye's distance to the origin */
    float exposure;           /* 0 = 1 */
    ColorMode color_mode;
    float speed_scale;        /* speed mapped to the top of the colour ramp; 0 = 1 */
    int show_halo;            /* draw halo (dark) bodies */
    int show_boxes;           /* draw the boxes of renderer_set_boxes over the bodies */
    RenderDraw draw;          /* RENDER_DRAW_GL by default */
} RenderView;

/* A wire cube: its centre, half side and level (0 is the brightest; deeper ones fade). */
typedef struct RenderBox {
    float x, y, z, half, level;
} RenderBox;

/* The halo fields drawn with show_halo: a ring facing the eye for each, about its centre (the last
 * count of the n bodies drawn), of the radius given (model units). count 0 draws none; at most
 * RENDER_RINGS_MAX. */
#define RENDER_RINGS_MAX 4

/* NULL with one line in err: a shader that does not compile names itself and quotes the log. */
Renderer *renderer_create(const RendererDesc *desc, char *err, size_t errlen);
void renderer_destroy(Renderer *r);
/* Reads the shaders again (from shader_dir when set) and swaps them in when all compile;
 * otherwise keeps the running ones and returns -1 with err. 0 on success. */
int renderer_reload(Renderer *r, char *err, size_t errlen);
unsigned int renderer_position_vbo(const Renderer *r); /* max_bodies float4 */
unsigned int renderer_speed_vbo(const Renderer *r);    /* max_bodies float */
/* Uploads positions (4n floats) and tags (n; NULL = all galaxy A disk) and zeroes the speeds — at
 * a reset, before the simulation takes over. pos4 NULL leaves the positions as they are. n is
 * clamped to max_bodies. Sprite sizes refer to the mean mass of the non-halo bodies seen here. */
void renderer_upload(Renderer *r, const float *pos4, const uint8_t *tags, int n);
/* The light of the stars (tag components disk and bulge) of galaxies 0 and 1, summed where the
 * positions are: mass, first moments Σ m x, and Σ m |x|². */
typedef struct RenderLight {
    double mass[2], moment[2][3], r2[2];
} RenderLight;
/* As renderer_upload, with the positions (n float4) in device memory of the CUDA device that draws,
 * written (their stream synchronised): copied into the position buffer there, and their light
 * summed there into *light (the tags, n, uploaded where they differ from the last call's). The
 * speeds are left as they are. 0, or -1 where CUDA cannot reach the buffers (a build without CUDA,
 * a context not on NVIDIA's driver, n 0): then renderer_upload serves. */
int renderer_upload_device(Renderer *r, const float *device_pos4, const uint8_t *tags, int n, RenderLight *light);
/* Speeds (n floats, |v| in model units) for COLOR_BY_SPEED, where no simulation writes them. */
void renderer_set_speeds(Renderer *r, const float *speed, int n);
/* Replaces the boxes drawn while RenderView.show_boxes is set (count 0: none). */
void renderer_set_boxes(Renderer *r, const RenderBox *boxes, int count);
void renderer_set_rings(Renderer *r, const float *radius, int count);
/* Whether the current GL context draws a width x height view: within its largest texture,
 * renderbuffer and viewport, and able to make the half-float target the bodies are drawn into
 * (a driver may refuse one that large for its memory: llvmpipe's 16384 x 16384, 2 GiB). 0, or -1
 * with one line in err naming the limit; nothing is kept. */
int renderer_size_check(int width, int height, char *err, size_t errlen);
/* The largest side of a picture that --size (and a library's picture) takes. */
#define RENDER_SIZE_MAX 16384
/* Draws n bodies; per-sprite brightness goes as 1/sqrt(n) so that 4K and 16K bodies look alike.
 * Leaves v->framebuffer bound with the viewport covering it, blending off, no program or VAO. */
void renderer_draw(Renderer *r, const RenderView *v);
const char *renderer_color_mode_name(ColorMode m);
/* "gl", "cuda". */
const char *renderer_draw_name(RenderDraw d);
/* Who drew the last frame's bodies; where CUDA was asked and could not, the line that says why
 * ("" otherwise). */
RenderDraw renderer_drawn_by(const Renderer *r);
const char *renderer_draw_note(const Renderer *r);
/* The GPU time of the last CUDA drawing, ms (read a frame late), the mapping of the buffers
 * included; its kernels' alone in *kernel_ms (NULL: not wanted). 0 when GL drew. */
double renderer_splat_ms(const Renderer *r, double *kernel_ms);

#ifdef __cplusplus
}
#endif

#endif
