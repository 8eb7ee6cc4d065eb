/* JPEG through libjpeg-turbo's libjpeg API into memory: 4:2:0, the library's fast integer DCT.
 * The compressor is kept from frame to frame; jpeg_mem_dest grows its own buffer, copied once
 * into the frame's (which keeps room before it for the WebSocket header). */
#include "serve/frame_encoder.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

typedef struct JpegError {
    struct jpeg_error_mgr mgr;
    jmp_buf back;
    char text[JMSG_LENGTH_MAX];
} JpegError;

struct FrameEncoder {
    struct jpeg_compress_struct c;
    JpegError jerr;
    int quality;
    char name[64];
    /* jpeg_mem_dest's buffer, kept here rather than on the stack across setjmp. */
    unsigned char *mem;
    unsigned long size;
};

static void on_jpeg_error(j_common_ptr c)
{
    JpegError *e = (JpegError *)c->err;
    (*c->err->format_message)(c, e->text);
    longjmp(e->back, 1);
}

FrameEncoder *frame_encoder_jpeg(int quality, char *err, size_t errlen)
{
    if (quality < 1 || quality > 100) {
        snprintf(err, errlen, "JPEG quality %d: expected 1 to 100", quality);
        return NULL;
    }
    FrameEncoder *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->c.err = jpeg_std_error(&e->jerr.mgr);
    e->jerr.mgr.error_exit = on_jpeg_error;
    if (setjmp(e->jerr.back)) {
        snprintf(err, errlen, "JPEG: %s", e->jerr.text);
        free(e);
        return NULL;
    }
    jpeg_create_compress(&e->c);
    e->quality = quality;
    snprintf(e->name, sizeof e->name, "JPEG (libjpeg-turbo), quality %d", quality);
    return e;
}

int frame_encoder_encode(FrameEncoder *e, const FrameImage *img, FrameBytes *out, char *err, size_t errlen)
{
    e->mem = NULL;
    e->size = 0;
    if (setjmp(e->jerr.back)) {
        snprintf(err, errlen, "JPEG: %s", e->jerr.text);
        jpeg_abort_compress(&e->c);
        free(e->mem);
        e->mem = NULL;
        return -1;
    }
    jpeg_mem_dest(&e->c, &e->mem, &e->size);
    e->c.image_width = (JDIMENSION)img->width;
    e->c.image_height = (JDIMENSION)img->height;
    e->c.input_components = 3;
    e->c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&e->c);
    jpeg_set_quality(&e->c, e->quality, TRUE);
    e->c.dct_method = JDCT_IFAST;
    jpeg_start_compress(&e->c, TRUE);
    const size_t stride = (size_t)img->width * 3;
    while (e->c.next_scanline < e->c.image_height) {
        JSAMPROW row = (JSAMPROW)(img->rgb + stride * e->c.next_scanline);
        jpeg_write_scanlines(&e->c, &row, 1);
    }
    jpeg_finish_compress(&e->c);
    const size_t need = out->head + e->size;
    if (need > out->capacity) {
        uint8_t *grown = realloc(out->buf, need);
        if (!grown) {
            free(e->mem);
            e->mem = NULL;
            snprintf(err, errlen, "out of memory for a frame of %lu bytes", e->size);
            return -1;
        }
        out->buf = grown;
        out->capacity = need;
    }
    memcpy(out->buf + out->head, e->mem, e->size);
    out->len = e->size;
    free(e->mem);
    e->mem = NULL;
    return 0;
}

const char *frame_encoder_name(const FrameEncoder *e) { return e->name; }

void frame_encoder_destroy(FrameEncoder *e)
{
    if (!e) return;
    jpeg_destroy_compress(&e->c);
    free(e);
}

void frame_bytes_free(FrameBytes *b)
{
    free(b->buf);
    *b = (FrameBytes){0};
}
