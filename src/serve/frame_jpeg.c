/* JPEG through libjpeg-turbo's libjpeg API into memory, from RGBX rows as GL reads them: 4:2:0, the library's fast integer DCT, the
 * standard Huffman tables, and a restart marker after every row of MCUs.
 *
 * The restart markers let a frame be encoded in strips on several threads and still be one JPEG:
 * at a restart the entropy coder flushes its bits and forgets the DC predictions, so each interval
 * is coded alone. A strip is a band of 8 MCU rows (128 pixels at 4:2:0), encoded as a JPEG of its
 * own by its own compressor; the frame is strip 0's headers (the SOF's height set to the frame's),
 * then each strip's entropy-coded data in turn, RST7 between them, and EOI. Within a strip of 8
 * rows the markers run RST0..RST6, so the one put between two strips is RST7 and the next strip's
 * RST0 follows it as the whole image's count would: the frame is, byte for byte, what one
 * compressor writes for the whole image with the same settings (tests/unit/test_frame_jpeg.c).
 * A 1080p frame is 9 strips; the caller's thread and the encoder's workers share them.
 *
 * Each compressor is kept from frame to frame; jpeg_mem_dest grows its own buffer, copied once into
 * the frame's (which keeps room before it for the WebSocket header). */
#include "serve/frame_encoder.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>

/* MCU rows a strip; 8 so that the marker between two strips is always RST7 (above). */
#define STRIP_MCU_ROWS 8
/* The most strips a frame is cut into (as tall a frame as JPEG holds), and the most threads. */
#define STRIPS_MAX (JPEG_MAX_DIMENSION / (STRIP_MCU_ROWS * 16) + 1)
#define THREADS_MAX 8

typedef struct JpegError {
    struct jpeg_error_mgr mgr;
    jmp_buf back;
    char text[JMSG_LENGTH_MAX];
} JpegError;

/* One strip's compressor and what it wrote this frame. */
typedef struct Strip {
    struct jpeg_compress_struct c;
    JpegError jerr;
    bool created;
    /* jpeg_mem_dest's buffer, kept here rather than on the stack across setjmp. */
    unsigned char *mem;
    unsigned long size;
    int rc; /* -1: jerr.text says why */
} Strip;

struct FrameEncoder {
    int quality;
    int threads; /* the caller's and the workers' */
    char name[80];
    Strip strip[STRIPS_MAX];
    /* The frame under way: its image, strips and the next strip not yet taken. */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    const FrameImage *img;
    int strips, strip_rows, next, busy;
    unsigned long generation;
    bool quit;
    pthread_t worker[THREADS_MAX];
    int workers;
};

static void on_jpeg_error(j_common_ptr c)
{
    JpegError *e = (JpegError *)c->err;
    (*c->err->format_message)(c, e->text);
    longjmp(e->back, 1);
}

/* Strip k of the image as a JPEG of its own, into s->mem. */
static void encode_strip(FrameEncoder *e, int k)
{
    Strip *s = &e->strip[k];
    const FrameImage *img = e->img;
    const int y0 = k * e->strip_rows;
    const int rows = img->height - y0 < e->strip_rows ? img->height - y0 : e->strip_rows;
    s->mem = NULL;
    s->size = 0;
    s->rc = 0;
    if (setjmp(s->jerr.back)) {
        if (s->created) jpeg_abort_compress(&s->c);
        free(s->mem);
        s->mem = NULL;
        s->rc = -1;
        return;
    }
    if (!s->created) {
        s->c.err = jpeg_std_error(&s->jerr.mgr);
        s->jerr.mgr.error_exit = on_jpeg_error;
        jpeg_create_compress(&s->c);
        s->created = true; /* (a failure to create longjmps before this line) */
    }
    jpeg_mem_dest(&s->c, &s->mem, &s->size);
    s->c.image_width = (JDIMENSION)img->width;
    s->c.image_height = (JDIMENSION)rows;
    s->c.input_components = 4;
    s->c.in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(&s->c);
    jpeg_set_quality(&s->c, e->quality, TRUE);
    s->c.dct_method = JDCT_IFAST;
    s->c.restart_in_rows = 1;
    jpeg_start_compress(&s->c, TRUE);
    if (k == 0) {
        char comment[48];
        const int n = snprintf(comment, sizeof comment, "starburst frame %lld", img->number);
        jpeg_write_marker(&s->c, JPEG_COM, (const JOCTET *)comment, (unsigned)n);
    }
    const size_t stride = (size_t)img->width * 4;
    while (s->c.next_scanline < s->c.image_height) {
        /* The image's rows run bottom up in memory; the JPEG's top down. */
        const size_t y = (size_t)y0 + s->c.next_scanline;
        JSAMPROW row = (JSAMPROW)(img->rgba + stride * ((size_t)img->height - 1 - y));
        jpeg_write_scanlines(&s->c, &row, 1);
    }
    jpeg_finish_compress(&s->c);
}

/* Takes strips of the frame under way until none is left. */
static void take_strips(FrameEncoder *e)
{
    pthread_mutex_lock(&e->lock);
    while (e->next < e->strips) {
        const int k = e->next++;
        pthread_mutex_unlock(&e->lock);
        encode_strip(e, k);
        pthread_mutex_lock(&e->lock);
        if (--e->busy == 0) pthread_cond_signal(&e->done);
    }
    pthread_mutex_unlock(&e->lock);
}

static void *worker_main(void *arg)
{
    FrameEncoder *e = arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        while (e->generation == seen && !e->quit) pthread_cond_wait(&e->go, &e->lock);
        seen = e->generation;
        const bool quit = e->quit;
        pthread_mutex_unlock(&e->lock);
        if (quit) return NULL;
        take_strips(e);
    }
}

FrameEncoder *frame_encoder_jpeg(int quality, int threads, char *err, size_t errlen)
{
    if (quality < 1 || quality > 100) {
        snprintf(err, errlen, "JPEG quality %d: expected 1 to 100", quality);
        return NULL;
    }
    if (threads <= 0) {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 0 ? (int)cpus : 1;
    }
    if (threads > THREADS_MAX) threads = THREADS_MAX;
    FrameEncoder *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->quality = quality;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->go, NULL);
    pthread_cond_init(&e->done, NULL);
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&e->worker[e->workers], NULL, worker_main, e) != 0) break;
        e->workers++;
    }
    e->threads = e->workers + 1;
    snprintf(e->name, sizeof e->name, "JPEG (libjpeg-turbo, %d thread%s), quality %d", e->threads,
             e->threads == 1 ? "" : "s", quality);
    return e;
}

/* The offset just past the SOS segment of a JPEG (where its entropy-coded data starts), and where
 * the SOF0 segment's height lies (sof); 0 where the headers do not read as libjpeg writes them. */
static size_t scan_start(const unsigned char *b, size_t len, size_t *sof)
{
    size_t at = 2;
    while (at + 4 <= len && b[at] == 0xFF) {
        const unsigned marker = b[at + 1];
        const size_t seg = (size_t)b[at + 2] << 8 | b[at + 3];
        if (marker == 0xC0) *sof = at + 5;
        if (at + 2 + seg > len) return 0;
        if (marker == 0xDA) return at + 2 + seg;
        at += 2 + seg;
    }
    return 0;
}

static int put(FrameBytes *out, const void *bytes, size_t n, char *err, size_t errlen)
{
    const size_t need = out->head + out->len + n;
    if (need > out->capacity) {
        size_t grown_to = out->capacity ? out->capacity : 65536;
        while (grown_to < need) grown_to *= 2;
        uint8_t *grown = realloc(out->buf, grown_to);
        if (!grown) {
            snprintf(err, errlen, "out of memory for a frame of %zu bytes", need);
            return -1;
        }
        out->buf = grown;
        out->capacity = grown_to;
    }
    memcpy(out->buf + out->head + out->len, bytes, n);
    out->len += n;
    return 0;
}

/* The strips as one JPEG into out (above). */
static int stitch(FrameEncoder *e, FrameBytes *out, char *err, size_t errlen)
{
    out->len = 0;
    const Strip *first = &e->strip[0];
    if (e->strips == 1) return put(out, first->mem, first->size, err, errlen);
    size_t sof = 0;
    const size_t head = scan_start(first->mem, first->size, &sof);
    if (head == 0 || sof == 0 || first->size < head + 2) {
        snprintf(err, errlen, "JPEG: a strip's headers were not as expected");
        return -1;
    }
    if (put(out, first->mem, head, err, errlen) != 0) return -1;
    out->buf[out->head + sof] = (uint8_t)(e->img->height >> 8);
    out->buf[out->head + sof + 1] = (uint8_t)(e->img->height & 0xFF);
    static const unsigned char rst7[2] = {0xFF, 0xD7}, eoi[2] = {0xFF, 0xD9};
    for (int k = 0; k < e->strips; k++) {
        const Strip *s = &e->strip[k];
        size_t ignored = 0;
        const size_t start = k == 0 ? head : scan_start(s->mem, s->size, &ignored);
        /* Each strip ends with its EOI, which the frame keeps only at its very end. */
        if (start == 0 || s->size < start + 2 || s->mem[s->size - 2] != 0xFF || s->mem[s->size - 1] != 0xD9) {
            snprintf(err, errlen, "JPEG: strip %d was not as expected", k);
            return -1;
        }
        if (put(out, s->mem + start, s->size - 2 - start, err, errlen) != 0) return -1;
        if (put(out, k + 1 < e->strips ? rst7 : eoi, 2, err, errlen) != 0) return -1;
    }
    return 0;
}

int frame_encoder_encode(FrameEncoder *e, const FrameImage *img, FrameBytes *out, char *err, size_t errlen)
{
    if (img->width <= 0 || img->height <= 0 || img->width > JPEG_MAX_DIMENSION || img->height > JPEG_MAX_DIMENSION) {
        snprintf(err, errlen, "JPEG: a frame of %d x %d pixels cannot be encoded", img->width, img->height);
        return -1;
    }
    /* 4:2:0: an MCU is 16 rows. */
    const int strip_rows = STRIP_MCU_ROWS * 16;
    const int strips = (img->height + strip_rows - 1) / strip_rows;
    pthread_mutex_lock(&e->lock);
    e->img = img;
    e->strips = strips;
    e->strip_rows = strip_rows;
    e->next = 0;
    e->busy = strips;
    e->generation++;
    pthread_cond_broadcast(&e->go);
    pthread_mutex_unlock(&e->lock);
    take_strips(e);
    pthread_mutex_lock(&e->lock);
    while (e->busy > 0) pthread_cond_wait(&e->done, &e->lock);
    pthread_mutex_unlock(&e->lock);

    int rc = 0;
    for (int k = 0; k < strips && rc == 0; k++)
        if (e->strip[k].rc != 0) {
            snprintf(err, errlen, "JPEG: %s", e->strip[k].jerr.text);
            rc = -1;
        }
    if (rc == 0) rc = stitch(e, out, err, errlen);
    for (int k = 0; k < strips; k++) {
        free(e->strip[k].mem);
        e->strip[k].mem = NULL;
    }
    e->img = NULL;
    return rc;
}

const char *frame_encoder_name(const FrameEncoder *e) { return e->name; }

void frame_encoder_destroy(FrameEncoder *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->lock);
    e->quit = true;
    pthread_cond_broadcast(&e->go);
    pthread_mutex_unlock(&e->lock);
    for (int t = 0; t < e->workers; t++) pthread_join(e->worker[t], NULL);
    for (int k = 0; k < STRIPS_MAX; k++)
        if (e->strip[k].created) jpeg_destroy_compress(&e->strip[k].c);
    pthread_cond_destroy(&e->go);
    pthread_cond_destroy(&e->done);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

void frame_bytes_free(FrameBytes *b)
{
    free(b->buf);
    *b = (FrameBytes){0};
}
