/* A frame of the view encoded for the page. One encoder today, libjpeg-turbo over RGBA in host
 * memory (the frame read back from GL), in strips on several threads; the seam is here for one that encodes on the
 * GPU the frame already there (CUDA's nvJPEG), handed a FrameImage that names GPU memory. */
#ifndef STARBURST_FRAME_ENCODER_H
#define STARBURST_FRAME_ENCODER_H

#include <stddef.h>
#include <stdint.h>

typedef struct FrameEncoder FrameEncoder;

/* A frame: width x height RGBA bytes (A unused), bottom row first, as GL reads a framebuffer
 * fastest; the frame loop's number of the frame it shows,
 * which the encoded frame names in a comment ("starburst frame N": a client that measures what it
 * is served can tell which frame it got; a browser ignores it). */
typedef struct FrameImage {
    const uint8_t *rgba;
    int width, height;
    long long number;
} FrameImage;

/* An encoded frame, written after `head` bytes left free at the start of buf (the WebSocket
 * library writes its header there). */
typedef struct FrameBytes {
    uint8_t *buf;
    size_t head, len, capacity;
} FrameBytes;

/* quality 1 .. 100; threads: how many encode a frame together, the caller's among them (0: as
 * many as the machine has cores, up to 8). NULL with err where it cannot start. */
FrameEncoder *frame_encoder_jpeg(int quality, int threads, char *err, size_t errlen);
/* Encodes img into out (grown as needed): 0, or -1 with err. */
int frame_encoder_encode(FrameEncoder *e, const FrameImage *img, FrameBytes *out, char *err, size_t errlen);
/* "JPEG (libjpeg-turbo, 8 threads), quality 80". */
const char *frame_encoder_name(const FrameEncoder *e);
void frame_encoder_destroy(FrameEncoder *e);
void frame_bytes_free(FrameBytes *b);

#endif
