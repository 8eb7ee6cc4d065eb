/* The served frames' JPEG encoder (src/serve/frame_jpeg.c), which takes a frame as GL reads it back
 * (RGBA, bottom row first), cuts it into strips encoded on several threads and joins them with
 * restart markers: the joined frame against one compressor writing the whole image, top row first
 * in RGB, with the same settings, made here with libjpeg's own calls (byte for
 * byte, at sizes that end a strip exactly, part way, and below one strip); the same bytes from one
 * thread and from eight; the frame decoded back to its size and near its pixels; the frame number
 * in its comment; a frame too large refused with one line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jpeglib.h>

#include "serve/frame_encoder.h"

#define QUALITY 80

/* A view's likeness: a dark sky, a bright blob with a gradient, and pixel noise, so that every
 * interval has something to code. */
static uint8_t *picture(int w, int h, unsigned seed)
{
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    assert_non_null(rgb);
    unsigned x = seed * 2654435761u + 1;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const double dx = (i - 0.4 * w) / (0.2 * w + 1), dy = (j - 0.55 * h) / (0.2 * h + 1);
            const double glow = 230.0 * exp(-(dx * dx + dy * dy));
            x = x * 1664525u + 1013904223u;
            const int noise = (int)(x >> 28) - 8;
            uint8_t *p = rgb + 3 * ((size_t)j * (size_t)w + (size_t)i);
            p[0] = (uint8_t)fmin(255, fmax(0, glow + noise));
            p[1] = (uint8_t)fmin(255, fmax(0, 0.8 * glow + 0.3 * i * 255.0 / w + noise));
            p[2] = (uint8_t)fmin(255, fmax(0, 0.6 * glow + 40.0 * j / h));
        }
    return rgb;
}

/* The whole image by one compressor, as frame_jpeg.c sets each strip's. */
static unsigned char *reference(const uint8_t *rgb, int w, int h, long long number, unsigned long *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    unsigned char *mem = NULL;
    *size = 0;
    jpeg_mem_dest(&c, &mem, size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, QUALITY, TRUE);
    c.dct_method = JDCT_IFAST;
    c.restart_in_rows = 1;
    jpeg_start_compress(&c, TRUE);
    char comment[48];
    const int n = snprintf(comment, sizeof comment, "starburst frame %lld", number);
    jpeg_write_marker(&c, JPEG_COM, (const JOCTET *)comment, (unsigned)n);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)w * 3 * c.next_scanline);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return mem;
}

/* The frame decoded: its size, and the mean absolute difference from rgb over every channel. */
static double decoded_difference(const FrameBytes *f, const uint8_t *rgb, int w, int h)
{
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr jerr;
    d.err = jpeg_std_error(&jerr);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, f->buf + f->head, (unsigned long)f->len);
    assert_int_equal(jpeg_read_header(&d, TRUE), JPEG_HEADER_OK);
    jpeg_start_decompress(&d);
    assert_int_equal((int)d.output_width, w);
    assert_int_equal((int)d.output_height, h);
    assert_int_equal(d.output_components, 3);
    uint8_t *row = malloc((size_t)w * 3);
    double sum = 0;
    while (d.output_scanline < d.output_height) {
        const size_t j = d.output_scanline;
        jpeg_read_scanlines(&d, &row, 1);
        for (size_t k = 0; k < (size_t)w * 3; k++) sum += fabs((double)row[k] - rgb[j * (size_t)w * 3 + k]);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(row);
    return sum / ((double)w * h * 3);
}

/* rgb (top row first) as GL reads it back: RGBA, bottom row first, the A a junk byte. */
static uint8_t *as_read_back(const uint8_t *rgb, int w, int h)
{
    uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
    assert_non_null(rgba);
    for (size_t j = 0; j < (size_t)h; j++)
        for (size_t i = 0; i < (size_t)w; i++) {
            const uint8_t *p = rgb + 3 * (j * (size_t)w + i);
            uint8_t *q = rgba + 4 * (((size_t)h - 1 - j) * (size_t)w + i);
            memcpy(q, p, 3);
            q[3] = (uint8_t)(i * 37 + j);
        }
    return rgba;
}

/* Encodes rgb (top row first), handed over as GL reads it back. */
static void encode(FrameEncoder *e, const uint8_t *rgb, int w, int h, long long number, FrameBytes *out)
{
    char err[256] = "";
    uint8_t *rgba = as_read_back(rgb, w, h);
    const FrameImage img = {.rgba = rgba, .width = w, .height = h, .number = number};
    const int rc = frame_encoder_encode(e, &img, out, err, sizeof err);
    free(rgba);
    if (rc != 0) fail_msg("%d x %d: %s", w, h, err);
}

/* The strips joined are the one compressor's bytes. Heights: one strip part full (7, 100), one
 * exactly (128), a strip and a part (129), 720p (5 strips and 5 MCU rows) and 1080p (8 and 4½). */
static void test_strips_join_as_one_compressor_writes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {17, 7}, {33, 100}, {64, 128}, {65, 129}, {1280, 720}, {1920, 1080}, {1923, 1081}};
    char err[256];
    FrameEncoder *e = frame_encoder_jpeg(QUALITY, 4, err, sizeof err);
    assert_non_null(e);
    FrameBytes out = {.head = 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        uint8_t *rgb = picture(w, h, (unsigned)s + 1);
        encode(e, rgb, w, h, 1000 + (long long)s, &out);
        unsigned long size;
        unsigned char *want = reference(rgb, w, h, 1000 + (long long)s, &size);
        if (out.len != size || memcmp(out.buf + out.head, want, size) != 0) {
            size_t at = 0;
            while (at < out.len && at < size && out.buf[out.head + at] == want[at]) at++;
            fail_msg("%d x %d: %zu bytes joined, %lu from one compressor; they differ from byte %zu", w, h, out.len, size, at);
        }
        free(want);
        free(rgb);
    }
    frame_bytes_free(&out);
    frame_encoder_destroy(e);
}

/* One thread or eight, the same frame; and the encoder kept from frame to frame gives it again. */
static void test_threads_give_the_same_frame(void **state)
{
    (void)state;
    char err[256];
    FrameEncoder *one = frame_encoder_jpeg(QUALITY, 1, err, sizeof err), *eight = frame_encoder_jpeg(QUALITY, 8, err, sizeof err);
    assert_non_null(one);
    assert_non_null(eight);
    assert_non_null(strstr(frame_encoder_name(one), "1 thread)"));
    FrameBytes a = {.head = 0}, b = {.head = 8};
    uint8_t *rgb = picture(1920, 1080, 7);
    encode(one, rgb, 1920, 1080, 3, &a);
    for (int k = 0; k < 3; k++) {
        encode(eight, rgb, 1920, 1080, 3, &b);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.buf + a.head, b.buf + b.head, a.len);
    }
    free(rgb);
    frame_bytes_free(&a);
    frame_bytes_free(&b);
    frame_encoder_destroy(one);
    frame_encoder_destroy(eight);
}

/* Decoded, the frame has its size and its pixels within a JPEG's error at quality 80; it names its
 * frame number where a client reads it, within the first bytes. */
static void test_the_frame_decodes_and_names_its_number(void **state)
{
    (void)state;
    char err[256];
    FrameEncoder *e = frame_encoder_jpeg(QUALITY, 0, err, sizeof err);
    assert_non_null(e);
    FrameBytes out = {.head = 4};
    uint8_t *rgb = picture(1280, 720, 11);
    encode(e, rgb, 1280, 720, 123456789012LL, &out);
    const double diff = decoded_difference(&out, rgb, 1280, 720);
    print_message("1280 x 720: %zu bytes, mean |difference| %.2f of 255\n", out.len, diff);
    assert_true(diff > 0 && diff < 6);
    const char *name = "starburst frame 123456789012";
    bool named = false;
    for (size_t at = 0; at + strlen(name) <= 256 && at + strlen(name) <= out.len; at++)
        named = named || memcmp(out.buf + out.head + at, name, strlen(name)) == 0;
    assert_true(named);
    free(rgb);
    frame_bytes_free(&out);
    frame_encoder_destroy(e);
}

static void test_bad_frames_are_refused(void **state)
{
    (void)state;
    char err[256] = "";
    assert_null(frame_encoder_jpeg(0, 1, err, sizeof err));
    assert_non_null(strstr(err, "quality 0"));
    FrameEncoder *e = frame_encoder_jpeg(QUALITY, 2, err, sizeof err);
    assert_non_null(e);
    FrameBytes out = {0};
    uint8_t pixel[4] = {0};
    const FrameImage none = {.rgba = pixel, .width = 0, .height = 1}, wide = {.rgba = pixel, .width = 70000, .height = 1};
    assert_int_equal(frame_encoder_encode(e, &none, &out, err, sizeof err), -1);
    assert_non_null(strstr(err, "0 x 1 pixels"));
    assert_int_equal(frame_encoder_encode(e, &wide, &out, err, sizeof err), -1);
    assert_non_null(strstr(err, "70000 x 1 pixels"));
    frame_bytes_free(&out);
    frame_encoder_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strips_join_as_one_compressor_writes),
        cmocka_unit_test(test_threads_give_the_same_frame),
        cmocka_unit_test(test_the_frame_decodes_and_names_its_number),
        cmocka_unit_test(test_bad_frames_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
