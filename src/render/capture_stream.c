/* One pixel buffer: a frame's read is queued into it, and taken (mapped and copied) at the next
 * frame, before that frame's own read is queued into the same buffer; by then the GPU has done the
 * read, so the map does not wait for the run or the drawing queued after it. */
#include <GL/glew.h>

#include <stdlib.h>
#include <string.h>

#include "render/capture_stream.h"

struct CaptureStream {
    GLuint buffer;
    size_t capacity;
    bool pending;
    CaptureFrame frame;
};

CaptureStream *capture_stream_create(void)
{
    CaptureStream *c = calloc(1, sizeof *c);
    if (c) glGenBuffers(1, &c->buffer);
    return c;
}

void capture_stream_destroy(CaptureStream *c)
{
    if (!c) return;
    glDeleteBuffers(1, &c->buffer);
    free(c);
}

void capture_stream_read(CaptureStream *c, unsigned int framebuffer, int width, int height, long long number)
{
    const size_t size = (size_t)width * (size_t)height * 4;
    c->pending = false;
    if (width <= 0 || height <= 0) return;
    GLint previous_read = 0, previous_alignment = 4;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glGetIntegerv(GL_PACK_ALIGNMENT, &previous_alignment);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, c->buffer);
    if (size > c->capacity) {
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)size, NULL, GL_STREAM_READ);
        c->capacity = glGetError() == GL_NO_ERROR ? size : 0;
    }
    if (c->capacity >= size) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
        /* The window's front buffer is undefined after a swap (Xvfb returns white): read the back. */
        glReadBuffer(framebuffer ? GL_COLOR_ATTACHMENT0 : GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, (void *)0);
        glPixelStorei(GL_PACK_ALIGNMENT, previous_alignment);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous_read);
        c->pending = true;
        c->frame = (CaptureFrame){.width = width, .height = height, .number = number};
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

bool capture_stream_pending(const CaptureStream *c, CaptureFrame *out)
{
    if (c->pending) *out = c->frame;
    return c->pending;
}

bool capture_stream_take(CaptureStream *c, uint8_t *dest)
{
    if (!c->pending) return false;
    c->pending = false;
    if (!dest) return false;
    const size_t size = (size_t)c->frame.width * (size_t)c->frame.height * 4;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, c->buffer);
    const void *pixels = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)size, GL_MAP_READ_BIT);
    if (pixels) {
        memcpy(dest, pixels, size);
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return pixels != NULL;
}
