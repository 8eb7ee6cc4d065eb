/* TIPSY binary snapshots, little-endian, the variant NVIDIA's samples read (the reader also takes
 * the standard big-endian XDR variant, told apart by ndim):
 * a 32-byte header (double time; int nbodies, ndim, nsph, ndark, nstar; 4 bytes padding), then
 * ndark dark particles (float mass, pos[3], vel[3], eps; int phi) and nstar star particles
 * (float mass, pos[3], vel[3], metals, tform, eps; int phi). phi carries an id. */
#ifndef STARBURST_TIPSY_H
#define STARBURST_TIPSY_H

#include <stddef.h>

#include "sim/bodies.h"

/* Reads path into out (allocated here). Dark particles get tag BODY_HALO. Stars are split into
 * bulge and disk by the first rule the file fits: the tags Starburst wrote into it; GalactICS'
 * ids (bulge stars numbered from 1e8, as in NVIDIA's galaxy_20K.bin); two star masses, the
 * heavier being the bulge; else all BODY_DISK. Where phi holds each body's index (as Starburst
 * writes it), bodies come back in that order. time may be NULL.
 * Returns 0, or -1 with one line in err naming the file and the problem. */
int tipsy_read(const char *path, Bodies *out, double *time, char *err, size_t errlen);

/* Reads path's header alone, checked as tipsy_read checks it (its counts against each other and
 * the file's size, its time): 0 with the time and body count; -1 with err where the file is no
 * TIPSY file (no ndim of 3 in either byte order); -2 with err naming the fault of a TIPSY header
 * (the time and count then as that header gives them). */
int tipsy_read_header(const char *path, double *time, long long *n, char *err, size_t errlen);

/* What a file says beyond its bodies. */
typedef struct TipsyMeta {
    double time;
    float softening; /* smallest positive eps of its stars, else of its dark particles; 0 if none */
} TipsyMeta;

/* tipsy_read, also returning the file's metadata (meta may be NULL). */
int tipsy_read_meta(const char *path, Bodies *out, TipsyMeta *meta, char *err, size_t errlen);

/* b in the layout tipsy_write writes: halo-tagged bodies as dark particles, the rest as stars,
 * each body's index in phi, a star's tag in metals and the count of galaxy-1 dark particles
 * (written last) in the header's padding, so that tipsy_read gives back the same bodies bit for
 * bit. A new buffer of *len bytes (the caller frees it), or NULL with err ("no bodies to write"). */
unsigned char *tipsy_encode(const Bodies *b, double time, size_t *len, char *err, size_t errlen);

/* Writes tipsy_encode's bytes to path atomically (util/atomic_file.h). Returns 0, or -1 with err;
 * the old file is intact on failure. */
int tipsy_write(const char *path, const Bodies *b, double time, char *err, size_t errlen);

#endif
