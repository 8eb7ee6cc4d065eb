/* Reading the final image back and writing it as PNG. */
#ifndef STARBURST_CAPTURE_H
#define STARBURST_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

/* Reads width x height RGB pixels of `framebuffer` (0 = the window's back buffer) into rgb,
 * top row first. Call before swapping buffers: after a swap the back buffer is undefined. */
void capture_read(unsigned int framebuffer, int width, int height, uint8_t *rgb);
/* Writes rgb as PNG atomically (util/atomic_file.h). 0, or -1 with err
 * ("capture: cannot write out/a.png: folder out does not exist"). */
int capture_write_png(const char *path, int width, int height, const uint8_t *rgb, char *err, size_t errlen);
/* Reads and writes in one call; 0, or -1 with err. */
int capture_png(const char *path, unsigned int framebuffer, int width, int height, char *err, size_t errlen);

#endif
