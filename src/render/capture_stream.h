/* Frames read back without waiting for them: each frame's pixels are read into a pixel buffer
 * (GL_PIXEL_PACK_BUFFER) that the GPU fills while the loop goes on, and handed over a frame later,
 * when the read has long finished. A glReadPixels into client memory instead waits for the GPU to
 * finish everything queued before it (the run's steps and the drawing) and leaves it idle while the
 * CPU then readies the next frame: on an H100 that cost a served 131K collision a third of its
 * frames. The pixels stay as GL reads them fastest: RGBA, bottom row first (the encoder takes them
 * so). Call from the thread that owns the GL context. */
#ifndef STARBURST_CAPTURE_STREAM_H
#define STARBURST_CAPTURE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct CaptureStream CaptureStream;

/* A frame read: its size and the number it was read with. */
typedef struct CaptureFrame {
    int width, height;
    long long number;
} CaptureFrame;

/* NULL where it cannot be made (out of memory). */
CaptureStream *capture_stream_create(void);
void capture_stream_destroy(CaptureStream *c);
/* Starts reading width x height pixels of `framebuffer` (0: the window's back buffer; before the
 * swap), tagged with number; returns at once. A frame read before and not taken is dropped. */
void capture_stream_read(CaptureStream *c, unsigned int framebuffer, int width, int height, long long number);
/* The oldest frame whose read was started and not yet taken: true with *out. */
bool capture_stream_pending(const CaptureStream *c, CaptureFrame *out);
/* That frame's width x height x 4 bytes into dest (NULL: dropped); true where they were read. */
bool capture_stream_take(CaptureStream *c, uint8_t *dest);

#endif
