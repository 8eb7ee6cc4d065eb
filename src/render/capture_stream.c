/* Two pixel buffers: while one is mapped and lent, frames are read into the other; a frame read
 * and not lent by the next frame's read is read over. Each read is followed by a fence: a frame
 * the GPU has not finished is not mapped (mapping it would wait for the GPU, and the loop with
 * it), once; a second time running it is mapped all the same, so that a GPU always a frame behind
 * still delivers every other frame. */
#include <GL/glew.h>

#include <stdlib.h>

#include "render/capture.h"
#include "render/capture_stream.h"

typedef struct Slot {
    GLuint buffer;
    size_t capacity;
    CaptureFrame frame;
    GLsync done; /* the read's fence, or 0 */
} Slot;

struct CaptureStream {
    Slot slot[2];
    int pending, lent; /* a slot, or -1 */
    bool waited;       /* the last lend found its frame unfinished and lent nothing */
};

CaptureStream *capture_stream_create(void)
{
    CaptureStream *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    for (int k = 0; k < 2; k++) glGenBuffers(1, &c->slot[k].buffer);
    c->pending = c->lent = -1;
    return c;
}

void capture_stream_destroy(CaptureStream *c)
{
    if (!c) return;
    capture_stream_give_back(c);
    for (int k = 0; k < 2; k++) {
        if (c->slot[k].done) glDeleteSync(c->slot[k].done);
        glDeleteBuffers(1, &c->slot[k].buffer);
    }
    free(c);
}

void capture_stream_read(CaptureStream *c, unsigned int framebuffer, int width, int height, long long number)
{
    const int k = c->lent >= 0 ? 1 - c->lent : c->pending >= 0 ? c->pending : 0;
    Slot *s = &c->slot[k];
    const size_t size = (size_t)width * (size_t)height * 4;
    c->pending = -1;
    if (width <= 0 || height <= 0) return;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s->buffer);
    if (size > s->capacity) {
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)size, NULL, GL_STREAM_READ);
        s->capacity = glGetError() == GL_NO_ERROR ? size : 0;
    }
    if (s->capacity >= size) {
        capture_read_pixels(framebuffer, width, height, true, (void *)0);
        if (s->done) glDeleteSync(s->done);
        s->done = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        c->pending = k;
        s->frame = (CaptureFrame){.width = width, .height = height, .number = number};
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

bool capture_stream_pending(const CaptureStream *c, CaptureFrame *out)
{
    if (c->pending >= 0) *out = c->slot[c->pending].frame;
    return c->pending >= 0;
}

const uint8_t *capture_stream_lend(CaptureStream *c, CaptureFrame *out)
{
    if (c->pending < 0 || c->lent >= 0) return NULL;
    Slot *s = &c->slot[c->pending];
    if (s->done) {
        const GLenum state = glClientWaitSync(s->done, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
        if (state == GL_TIMEOUT_EXPIRED && !c->waited) {
            c->waited = true;
            return NULL;
        }
        glDeleteSync(s->done);
        s->done = 0;
    }
    c->waited = false;
    const size_t size = (size_t)s->frame.width * (size_t)s->frame.height * 4;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s->buffer);
    const void *pixels = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)size, GL_MAP_READ_BIT);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (pixels) {
        c->lent = c->pending;
        *out = s->frame;
    }
    c->pending = -1;
    return pixels;
}

bool capture_stream_lent(const CaptureStream *c) { return c->lent >= 0; }

void capture_stream_give_back(CaptureStream *c)
{
    if (c->lent < 0) return;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, c->slot[c->lent].buffer);
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    c->lent = -1;
}
