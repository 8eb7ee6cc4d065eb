/* The bodies drawn by CUDA into an RGBA8 texture (render/splat.h). The three vertex buffers are
 * registered once, read-only; the texture is registered for surface writes, and again whenever
 * the renderer makes it anew (a resize). A frame maps all four in one call, splats the bodies into
 * level 0 of the pyramid (zeroed by the previous tonemap), builds its levels, tonemaps into the
 * texture and unmaps, which orders the work before GL's use of the texture. */
#include <GL/glew.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "render/splat.h"

enum { RES_POS, RES_SPEED, RES_TAG, RES_TEXTURE, RES_COUNT };

struct Splat {
    cudaGraphicsResource_t res[RES_COUNT];
    unsigned int position_vbo;
    unsigned int texture, target; /* the registered image (GL_TEXTURE_2D or GL_RENDERBUFFER), and its size */
    int width, height;
    SplatPyramid pyramid; /* level 0 and the glow's levels, at the texture's size */
    cudaStream_t stream;
    cudaEvent_t begin, end;     /* around the last draw, its maps included */
    cudaEvent_t k_begin, k_end; /* around its kernels alone */
    bool timed;             /* begin and end hold a draw not yet read */
    cudaSurfaceObject_t surface; /* the last draw's, destroyed once that draw has ended */
    double gpu_ms, kernel_ms;
    bool pos_written;  /* the position buffer registered for CUDA's writes (splat_take_positions) */
    double *partials;  /* device: the light's partial sums (splat_light) */
    double *partials_host; /* pinned: their copy */
    CudaStatus status;
};

static bool failed(const Splat *s) { return s->status.message[0] != '\0'; }

static int report(const Splat *s, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", s->status.message);
    return -1;
}

Splat *splat_create(unsigned int position_vbo, unsigned int speed_vbo, unsigned int tag_vbo, char *err, size_t errlen)
{
    Splat *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const unsigned int vbo[3] = {position_vbo, speed_vbo, tag_vbo};
    s->position_vbo = position_vbo;
    bool ok = CUDA_CHECK(&s->status, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) &&
              CUDA_CHECK(&s->status, cudaEventCreate(&s->begin)) && CUDA_CHECK(&s->status, cudaEventCreate(&s->end)) &&
              CUDA_CHECK(&s->status, cudaEventCreate(&s->k_begin)) && CUDA_CHECK(&s->status, cudaEventCreate(&s->k_end));
    for (int i = 0; ok && i < 3; i++)
        ok = CUDA_CHECK(&s->status,
                        cudaGraphicsGLRegisterBuffer(&s->res[i], vbo[i], cudaGraphicsRegisterFlagsReadOnly));
    if (!ok) {
        cuda_status_reason(&s->status, err, errlen); /* a person's line: "no NVIDIA driver", no file:line */
        splat_destroy(s);
        return NULL;
    }
    return s;
}

void splat_destroy(Splat *s)
{
    if (!s) return;
    if (s->stream) cudaStreamSynchronize(s->stream);
    if (s->surface) cudaDestroySurfaceObject(s->surface);
    for (int i = 0; i < RES_COUNT; i++)
        if (s->res[i]) cudaGraphicsUnregisterResource(s->res[i]);
    splat_pyramid_free(&s->pyramid);
    cudaFree(s->partials);
    cudaFreeHost(s->partials_host);
    if (s->begin) cudaEventDestroy(s->begin);
    if (s->end) cudaEventDestroy(s->end);
    if (s->k_begin) cudaEventDestroy(s->k_begin);
    if (s->k_end) cudaEventDestroy(s->k_end);
    if (s->stream) cudaStreamDestroy(s->stream);
    free(s);
}

/* The texture registered for surface writes and the pyramid at its size, level 0 zeroed. */
static bool ensure_texture(Splat *s, unsigned int texture, unsigned int target, int width, int height)
{
    if (s->res[RES_TEXTURE] && s->texture == texture && s->target == target && s->width == width &&
        s->height == height)
        return true;
    if (s->res[RES_TEXTURE]) cudaGraphicsUnregisterResource(s->res[RES_TEXTURE]);
    s->res[RES_TEXTURE] = NULL;
    splat_pyramid_free(&s->pyramid);
    if (!CUDA_CHECK(&s->status, cudaGraphicsGLRegisterImage(&s->res[RES_TEXTURE], texture, target,
                                                            cudaGraphicsRegisterFlagsSurfaceLoadStore)) ||
        !CUDA_CHECK(&s->status, splat_pyramid_make(&s->pyramid, width, height, s->stream)))
        return false;
    s->texture = texture;
    s->target = target;
    s->width = width;
    s->height = height;
    return true;
}

/* The device pointer of mapped buffer i, refused when it holds less than need bytes. */
static bool mapped(Splat *s, int i, size_t need, void **ptr)
{
    size_t size = 0;
    if (!CUDA_CHECK(&s->status, cudaGraphicsResourceGetMappedPointer(ptr, &size, s->res[i]))) return false;
    if (size >= need) return true;
    snprintf(s->status.message, sizeof s->status.message, "splat: a vertex buffer holds %zu bytes, %zu needed", size,
             need);
    return false;
}

static int draw_into(Splat *s, unsigned int texture, unsigned int target, int n, const SplatParams *given, char *err,
                     size_t errlen)
{
    SplatParams padded = *given;
    const SplatParams *p = &padded;
    if (failed(s)) return report(s, err, errlen);
    /* The last draw ended (GL has long since drawn its texture): its time, and its surface gone. */
    if (s->timed) {
        float ms = 0;
        if (cudaEventSynchronize(s->end) == cudaSuccess && cudaEventElapsedTime(&ms, s->begin, s->end) == cudaSuccess)
            s->gpu_ms = ms;
        if (cudaEventElapsedTime(&ms, s->k_begin, s->k_end) == cudaSuccess) s->kernel_ms = ms;
        s->timed = false;
    }
    if (s->surface) cudaDestroySurfaceObject(s->surface);
    s->surface = 0;
    if (!ensure_texture(s, texture, target, p->width, p->height)) return report(s, err, errlen);
    padded.pitch = s->pyramid.width;
    if (!CUDA_CHECK(&s->status, cudaEventRecord(s->begin, s->stream)) ||
        !CUDA_CHECK(&s->status, cudaGraphicsMapResources(RES_COUNT, s->res, s->stream)))
        return report(s, err, errlen);
    void *pos = NULL, *speed = NULL, *tag = NULL;
    cudaArray_t array = NULL;
    const size_t count = n > 0 ? (size_t)n : 0;
    bool ok = mapped(s, RES_POS, count * 4 * sizeof(float), &pos) && mapped(s, RES_SPEED, count * sizeof(float), &speed) &&
              mapped(s, RES_TAG, count, &tag) &&
              CUDA_CHECK(&s->status, cudaGraphicsSubResourceGetMappedArray(&array, s->res[RES_TEXTURE], 0, 0));
    if (ok) {
        struct cudaResourceDesc desc = {.resType = cudaResourceTypeArray, .res.array.array = array};
        ok = CUDA_CHECK(&s->status, cudaCreateSurfaceObject(&s->surface, &desc)) &&
             CUDA_CHECK(&s->status, cudaEventRecord(s->k_begin, s->stream)) &&
             CUDA_CHECK(&s->status, splat_bodies(pos, speed, tag, n, p, s->pyramid.level0, s->stream)) &&
             CUDA_CHECK(&s->status, splat_tonemap(&s->pyramid, p, s->surface, s->stream)) &&
             CUDA_CHECK(&s->status, cudaEventRecord(s->k_end, s->stream));
    }
    ok = CUDA_CHECK(&s->status, cudaGraphicsUnmapResources(RES_COUNT, s->res, s->stream)) && ok;
    if (ok && CUDA_CHECK(&s->status, cudaEventRecord(s->end, s->stream))) s->timed = true;
    return ok ? 0 : report(s, err, errlen);
}

int splat_take_positions(Splat *s, const float *device_pos4, int n, double light[SPLAT_LIGHT_SUMS], char *err,
                         size_t errlen)
{
    if (failed(s)) return report(s, err, errlen);
    const size_t count = n > 0 ? (size_t)n : 0, rows = (size_t)SPLAT_LIGHT_BLOCKS * SPLAT_LIGHT_SUMS;
    /* Registered read-only for the drawing; from the first copy on, for CUDA's writes too. */
    if (!s->pos_written) {
        if (!CUDA_CHECK(&s->status, cudaGraphicsUnregisterResource(s->res[RES_POS]))) return report(s, err, errlen);
        s->res[RES_POS] = NULL;
        if (!CUDA_CHECK(&s->status, cudaGraphicsGLRegisterBuffer(&s->res[RES_POS], s->position_vbo,
                                                                 cudaGraphicsRegisterFlagsNone)))
            return report(s, err, errlen);
        s->pos_written = true;
    }
    if ((!s->partials && !CUDA_CHECK(&s->status, cudaMalloc((void **)&s->partials, rows * sizeof(double)))) ||
        (!s->partials_host &&
         !CUDA_CHECK(&s->status, cudaMallocHost((void **)&s->partials_host, rows * sizeof(double)))))
        return report(s, err, errlen);
    cudaGraphicsResource_t res[2] = {s->res[RES_POS], s->res[RES_TAG]};
    if (!CUDA_CHECK(&s->status, cudaGraphicsMapResources(2, res, s->stream))) return report(s, err, errlen);
    void *pos = NULL, *tag = NULL;
    bool ok = mapped(s, RES_POS, count * 4 * sizeof(float), &pos) && mapped(s, RES_TAG, count, &tag) &&
              CUDA_CHECK(&s->status, cudaMemcpyAsync(pos, device_pos4, count * 4 * sizeof(float),
                                                     cudaMemcpyDeviceToDevice, s->stream)) &&
              CUDA_CHECK(&s->status, splat_light(pos, tag, n, s->partials, s->stream)) &&
              CUDA_CHECK(&s->status, cudaMemcpyAsync(s->partials_host, s->partials, rows * sizeof(double),
                                                     cudaMemcpyDeviceToHost, s->stream));
    ok = CUDA_CHECK(&s->status, cudaGraphicsUnmapResources(2, res, s->stream)) && ok;
    ok = ok && CUDA_CHECK(&s->status, cudaStreamSynchronize(s->stream));
    if (!ok) return report(s, err, errlen);
    splat_light_total(s->partials_host, light);
    return 0;
}

int splat_draw(Splat *s, unsigned int texture, int n, const SplatParams *p, char *err, size_t errlen)
{
    return draw_into(s, texture, GL_TEXTURE_2D, n, p, err, errlen);
}

int splat_draw_renderbuffer(Splat *s, unsigned int renderbuffer, int n, const SplatParams *p, char *err,
                            size_t errlen)
{
    return draw_into(s, renderbuffer, GL_RENDERBUFFER, n, p, err, errlen);
}

bool splat_can_write_renderbuffer(unsigned int renderbuffer)
{
    cudaGraphicsResource_t res = NULL;
    if (cudaGraphicsGLRegisterImage(&res, renderbuffer, GL_RENDERBUFFER, cudaGraphicsRegisterFlagsSurfaceLoadStore) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    cudaGraphicsUnregisterResource(res);
    return true;
}

double splat_gpu_ms(const Splat *s, double *kernel_ms)
{
    if (kernel_ms) *kernel_ms = s->kernel_ms;
    return s->gpu_ms;
}
