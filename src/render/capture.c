/* Screenshots: read the final image back and write it as PNG atomically (util/atomic_file.h), so
 * that a reader never sees half a file. */
#include <GL/glew.h>
#include <stb_image_write.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render/capture.h"
#include "util/atomic_file.h"

void capture_read_pixels(unsigned int framebuffer, int width, int height, bool rgba, void *dst)
{
    GLint previous_read = 0, previous_alignment = 4;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glGetIntegerv(GL_PACK_ALIGNMENT, &previous_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    /* The window's front buffer is undefined after a swap (Xvfb returns white): read the back. */
    glReadBuffer(framebuffer ? GL_COLOR_ATTACHMENT0 : GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, rgba ? 4 : 1);
    glReadPixels(0, 0, width, height, rgba ? GL_RGBA : GL_RGB, GL_UNSIGNED_BYTE, dst);
    glPixelStorei(GL_PACK_ALIGNMENT, previous_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous_read);
}

void capture_read(unsigned int framebuffer, int width, int height, uint8_t *rgb)
{
    capture_read_pixels(framebuffer, width, height, false, rgb);

    /* GL rows run bottom up; PNG rows top down. */
    size_t stride = (size_t)width * 3;
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = rgb + (size_t)y * stride, *b = rgb + (size_t)(height - 1 - y) * stride;
        for (size_t i = 0; i < stride; i++) {
            uint8_t t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
}

static void write_chunk(void *context, void *data, int size)
{
    atomic_file_write(context, data, (size_t)size);
}

int capture_write_png(const char *path, int width, int height, const uint8_t *rgb, char *err, size_t errlen)
{
    if (width <= 0 || height <= 0) {
        snprintf(err, errlen, "capture: %s: nothing to write (image is %dx%d)", path, width, height);
        return -1;
    }
    /* The folder first, for a message that names what is missing. */
    char *dir = malloc(strlen(path) + 2);
    if (!dir) {
        snprintf(err, errlen, "capture: %s: out of memory", path);
        return -1;
    }
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash) strcpy(dir, ".");
    else slash[slash == dir ? 1 : 0] = '\0'; /* "/name" lies in "/" */
    struct stat st;
    bool have_dir = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    if (!have_dir) snprintf(err, errlen, "capture: cannot write %s: folder %s does not exist", path, dir);
    free(dir);
    if (!have_dir) return -1;

    AtomicFile *f = atomic_file_open(path, err, errlen);
    if (!f) return -1;
    if (!stbi_write_png_to_func(write_chunk, f, width, height, 3, rgb, width * 3)) {
        atomic_file_abort(f);
        snprintf(err, errlen, "capture: %s: PNG encoding failed (out of memory?)", path);
        return -1;
    }
    return atomic_file_commit(f, err, errlen);
}

int capture_png(const char *path, unsigned int framebuffer, int width, int height, char *err, size_t errlen)
{
    if (width <= 0 || height <= 0) {
        snprintf(err, errlen, "capture: %s: the framebuffer is %dx%d (window minimised?)", path, width, height);
        return -1;
    }
    uint8_t *rgb = malloc((size_t)width * height * 3);
    if (!rgb) {
        snprintf(err, errlen, "capture: %s: out of memory for %dx%d pixels", path, width, height);
        return -1;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
    capture_read(framebuffer, width, height, rgb);
    GLenum e = glGetError();
    int rc;
    if (e != GL_NO_ERROR) {
        snprintf(err, errlen, "capture: %s: reading framebuffer %u failed (GL error 0x%04x)", path,
                 framebuffer, (unsigned)e);
        rc = -1;
    } else {
        rc = capture_write_png(path, width, height, rgb, err, errlen);
    }
    free(rgb);
    return rc;
}
