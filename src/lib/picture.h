/* libstarburst's pictures (starburst_render): the state drawn headless by the render room as the
 * program draws a loaded run's first frame (--load SAVE --headless --paused --frames 1
 * --screenshot): an EGL context and a renderer of the run's own, made at the first picture and
 * made again when the size changes. The positions and tags are read to the host
 * (sim_read_positions) and uploaded: one path for both backends. */
#ifndef STARBURST_LIB_PICTURE_H
#define STARBURST_LIB_PICTURE_H

#include <stddef.h>
#include <stdint.h>

#include "run/run.h"
#include "starburst.h"

typedef struct Picture Picture;

/* The state now of run drawn as view says into rgb (width x height x 3, top row first); *p made
 * or remade as needed. STARBURST_OK, or a code with one line in err (the program's, for a value
 * or a size it refuses). */
int picture_draw(Picture **p, Run *run, const StarburstView *view, uint8_t *rgb, char *err, size_t errlen);
void picture_destroy(Picture *p);

#endif
