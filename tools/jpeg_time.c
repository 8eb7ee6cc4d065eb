/* What encoding a frame for the page costs with libjpeg-turbo (src/serve/frame_jpeg.c, as the
 * server encodes: strips on as many threads as the machine has cores, up to 8, quality 80, 4:2:0):
 * a binary PPM (P6) read, turned into the RGBA rows bottom first that GL reads, encoded REPEATS
 * times; the median and 90th percentile and the bytes. tools/nvjpeg_time.cu times nvJPEG on the same
 * frame.
 *
 *   cc -O2 -Isrc tools/jpeg_time.c src/serve/frame_jpeg.c src/util/clock.c -ljpeg -lpthread -lm \
 *      -o build/jpeg_time
 *   build/jpeg_time frame.ppm [REPEATS] */
#include <stdio.h>
#include <stdlib.h>

#include "serve/frame_encoder.h"
#include "util/clock.h"

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const int repeats = argc > 2 ? atoi(argv[2]) : 100;
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    int w = 0, h = 0, max = 0;
    if (!f || fscanf(f, "P6 %d %d %d", &w, &h, &max) != 3 || max != 255 || w <= 0 || h <= 0 || fgetc(f) == EOF ||
        repeats <= 0) {
        fprintf(stderr, "usage: jpeg_time FRAME.ppm [REPEATS] (a binary PPM, 8 bits a channel)\n");
        return 2;
    }
    const size_t pixels = (size_t)w * h;
    unsigned char *rgb = malloc(3 * pixels), *rgba = malloc(4 * pixels);
    double *ms = malloc((size_t)repeats * sizeof *ms);
    if (!rgb || !rgba || !ms || fread(rgb, 3, pixels, f) != pixels) {
        fprintf(stderr, "jpeg_time: %s: short or out of memory\n", argv[1]);
        return 1;
    }
    fclose(f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *s = rgb + 3 * ((size_t)(h - 1 - y) * w + x);
            unsigned char *d = rgba + 4 * ((size_t)y * w + x);
            d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = 255;
        }
    char err[256];
    FrameEncoder *e = frame_encoder_jpeg(80, 0, err, sizeof err);
    if (!e) {
        fprintf(stderr, "jpeg_time: %s\n", err);
        return 1;
    }
    FrameBytes out = {0};
    const FrameImage img = {.rgba = rgba, .width = w, .height = h, .number = 1};
    for (int k = 0; k < repeats + 5; k++) {
        const double t0 = clock_seconds();
        if (frame_encoder_encode(e, &img, &out, err, sizeof err) != 0) {
            fprintf(stderr, "jpeg_time: %s\n", err);
            return 1;
        }
        if (k >= 5) ms[k - 5] = 1e3 * (clock_seconds() - t0);
    }
    qsort(ms, (size_t)repeats, sizeof *ms, by_value);
    printf("%s, %dx%d: median %.3f ms, 90th percentile %.3f ms, %zu bytes\n", frame_encoder_name(e), w, h,
           ms[repeats / 2], ms[(int)(0.9 * (repeats - 1))], out.len);
    frame_bytes_free(&out);
    frame_encoder_destroy(e);
    free(rgb);
    free(rgba);
    free(ms);
    return 0;
}
