/* TIPSY binary snapshots, little-endian, the variant NVIDIA's samples read:
 * a 32-byte header (double time; int nbodies, ndim, nsph, ndark, nstar; 4 bytes padding), then
 * ndark dark particles (float mass, pos[3], vel[3], eps; int phi) and nstar star particles
 * (float mass, pos[3], vel[3], metals, tform, eps; int phi). phi carries an id. */
#ifndef STARBURST_TIPSY_H
#define STARBURST_TIPSY_H

#include <stddef.h>

#include "sim/bodies.h"

/* Reads path into out (allocated here). Dark particles get tag BODY_HALO; stars are split into
 * bulge and disk by their place in the file where it follows NVIDIA's layout, else BODY_DISK.
 * Returns 0, or -1 with one line in err naming the file and the problem. */
int tipsy_read(const char *path, Bodies *out, double *time, char *err, size_t errlen);
/* Writes b atomically (temporary file, then rename): halo-tagged bodies as dark particles, the
 * rest as stars, ids in phi. Returns 0, or -1 with err; the old file is intact on failure. */
int tipsy_write(const char *path, const Bodies *b, double time, char *err, size_t errlen);

#endif
