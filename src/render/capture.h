/* Reading the final image back and writing it as PNG. */
#ifndef STARBURST_CAPTURE_H
#define STARBURST_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads width x height RGB pixels of `framebuffer` (0 = the window's back buffer) into rgb,
 * top row first. Call before swapping buffers: after a swap the back buffer is undefined. */
void capture_read(unsigned int framebuffer, int width, int height, uint8_t *rgb);
/* Reads width x height pixels of `framebuffer` (0 = the window's back buffer), bottom row first, as
 * RGBA (rows of 4-byte pixels) or RGB (packed rows) into dst: memory, or an offset into the
 * GL_PIXEL_PACK_BUFFER bound. The read framebuffer and pack alignment are left as they were. */
void capture_read_pixels(unsigned int framebuffer, int width, int height, bool rgba, void *dst);
/* Writes rgb as PNG atomically (util/atomic_file.h). 0, or -1 with err
 * ("capture: cannot write out/a.png: folder out does not exist"). */
int capture_write_png(const char *path, int width, int height, const uint8_t *rgb, char *err, size_t errlen);
/* Reads and writes in one call; 0, or -1 with err. */
int capture_png(const char *path, unsigned int framebuffer, int width, int height, char *err, size_t errlen);

#endif
