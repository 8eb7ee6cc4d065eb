/* Frames read back without waiting for them, and lent to a reader without a copy. Each frame's
 * pixels are read into a pixel buffer (GL_PIXEL_PACK_BUFFER) that the GPU fills while the loop goes
 * on; a frame later, when the read has long finished, the buffer is mapped and its pixels lent as
 * they lie (to the served page's encoder, on threads of its own) until given back, while the next
 * frames are read into the other buffer. A glReadPixels into client memory instead waits for the
 * GPU to finish everything queued before it (the run's steps and the drawing) and leaves it idle
 * while the CPU then readies the next frame. The pixels stay as GL reads them fastest: RGBA, bottom
 * row first. Call from the thread that owns the GL context (the reader of a lent frame only reads
 * its memory). */
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
/* Gives back a lent frame too: its reader must be done with it. */
void capture_stream_destroy(CaptureStream *c);
/* Starts reading width x height pixels of `framebuffer` (0: the window's back buffer; before the
 * swap), tagged with number, into the buffer not lent; returns at once. A frame read before and
 * not lent is dropped. */
void capture_stream_read(CaptureStream *c, unsigned int framebuffer, int width, int height, long long number);
/* The frame whose read was started last and not yet lent: true with *out. */
bool capture_stream_pending(const CaptureStream *c, CaptureFrame *out);
/* Lends that frame: its width x height x 4 bytes, valid until capture_stream_give_back; NULL where
 * none is pending, one is lent already, or the buffer cannot be mapped (the frame is then dropped).
 * NULL too, the frame kept pending, where the GPU has not finished reading it, the first time in a
 * row: the next call maps it (or the frame read over it) whether finished or not. */
const uint8_t *capture_stream_lend(CaptureStream *c, CaptureFrame *out);
bool capture_stream_lent(const CaptureStream *c);
void capture_stream_give_back(CaptureStream *c);

#endif
