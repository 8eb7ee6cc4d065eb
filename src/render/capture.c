/* Screenshots: read the final image back and write it as PNG through a temporary file and a
 * rename, so that a reader never sees half a file. */
#include <GL/glew.h>
#include <stb_image_write.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render/capture.h"

void capture_read(unsigned int framebuffer, int width, int height, uint8_t *rgb)
{
    GLint previous_read = 0, previous_alignment = 4;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glGetIntegerv(GL_PACK_ALIGNMENT, &previous_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    /* The window's front buffer is undefined after a swap (Xvfb returns white): read the back. */
    glReadBuffer(framebuffer ? GL_COLOR_ATTACHMENT0 : GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    glPixelStorei(GL_PACK_ALIGNMENT, previous_alignment);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous_read);

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

typedef struct PngFile {
    FILE *f;
    bool failed;
} PngFile;

static void write_chunk(void *context, void *data, int size)
{
    PngFile *out = context;
    if (!out->failed && fwrite(data, 1, (size_t)size, out->f) != (size_t)size) out->failed = true;
}

/* Writes "path.tmp" and renames it; tmp has room for path plus ".tmp". */
static int write_png_via(const char *path, char *tmp, int width, int height, const uint8_t *rgb, char *err, size_t errlen)
{
    /* The folder first, for a message that names what is missing. */
    strcpy(tmp, path);
    char *slash = strrchr(tmp, '/');
    const char *dir = ".";
    if (slash) {
        slash[slash == tmp ? 1 : 0] = '\0'; /* "/name" lies in "/" */
        dir = tmp;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "capture: cannot write %s: folder %s does not exist", path, dir);
        return -1;
    }
    sprintf(tmp, "%s.tmp", path);
    PngFile out = {fopen(tmp, "wb"), false};
    if (!out.f) {
        snprintf(err, errlen, "capture: cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    int encoded = stbi_write_png_to_func(write_chunk, &out, width, height, 3, rgb, width * 3);
    int saved_errno = errno;
    if (fclose(out.f) != 0 && !out.failed) {
        out.failed = true;
        saved_errno = errno;
    }
    if (!encoded || out.failed) {
        snprintf(err, errlen, "capture: cannot write %s: %s", tmp,
                 encoded ? strerror(saved_errno) : "PNG encoding failed (out of memory?)");
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "capture: cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int capture_write_png(const char *path, int width, int height, const uint8_t *rgb, char *err, size_t errlen)
{
    if (width <= 0 || height <= 0) {
        snprintf(err, errlen, "capture: %s: nothing to write (image is %dx%d)", path, width, height);
        return -1;
    }
    char *tmp = malloc(strlen(path) + sizeof ".tmp");
    if (!tmp) {
        snprintf(err, errlen, "capture: %s: out of memory", path);
        return -1;
    }
    int rc = write_png_via(path, tmp, width, height, rgb, err, errlen);
    free(tmp);
    return rc;
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
