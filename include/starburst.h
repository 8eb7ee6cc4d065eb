/* libstarburst: a Starburst run driven from another program (C, or Python through ctypes).
 *
 * A run is an opaque handle made from a description (a built-in scene of N bodies and a seed) or
 * from a saved run (a TIPSY file with its .ini beside it, as `starburst --load` takes). It is
 * advanced by steps on the CPU or CUDA backend, its bodies read into the caller's arrays and
 * written back, its energy measured, and it is saved as the program saves (`starburst --load FILE`
 * continues it). No window and no GL: nothing is drawn.
 *
 * Every value goes through the program's own checks, so a value the command line refuses is
 * refused here with the same line ("--dt: '-1' is too small: expected more than 0, at most 10
 * (model time units)"). A call that can fail returns STARBURST_OK or an error code, and
 * starburst_error() gives the line; the run is then as it was before the call. The library never
 * prints and never exits.
 *
 * All values are in the run's model units (G = 1); a text value may carry a unit ("0.2 Myr",
 * "200 pc") on the run's physical scale, as the command line reads it.
 *
 * Not thread-safe per run: one thread drives a run at a time (the step itself uses OpenMP). */
#ifndef STARBURST_H
#define STARBURST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface's version: the major one is the shared library's soname (libstarburst.so.0). */
#define STARBURST_VERSION_MAJOR 0
#define STARBURST_VERSION_MINOR 1

/* What a call returns. */
enum {
    STARBURST_OK = 0,
    STARBURST_ERR_VALUE = 1,  /* a value refused: out of its range, not a name the program takes */
    STARBURST_ERR_FILE = 2,   /* a file that does not read or cannot be written */
    STARBURST_ERR_RUN = 3,    /* the backend stopped on an error (the run is left as it was) */
    STARBURST_ERR_MEMORY = 4, /* memory ran out */
};

typedef struct StarburstRun StarburstRun;

/* A run built from nothing. A NULL or 0 field takes the program's default, as an option left
 * out does: scene "collision", n 131072 on CUDA and 16384 on the CPU, seed 1, backend "auto"
 * (CUDA where a device is usable, else the CPU), force "auto", halo "field". */
typedef struct StarburstDesc {
    const char *scene;   /* collision, disk, plummer, shell, random (--scene) */
    int n;               /* bodies (-n) */
    uint64_t seed;       /* --seed */
    const char *backend; /* auto, cpu, cuda (--backend) */
    const char *force;   /* auto, direct, tree, fmm (--force) */
    const char *halo;    /* field, live (--halo) */
} StarburstDesc;

/* The version of the library loaded: (major << 16) | minor. */
int starburst_version(void);

/* A run of d's scene, built: *out, or NULL with the program's line in err. */
int starburst_make(const StarburstDesc *d, StarburstRun **out, char *err, size_t errlen);
/* A run that goes on from the save at path (--load), with its saved settings; backend and force
 * as in StarburstDesc (NULL: auto). */
int starburst_load(const char *path, const char *backend, const char *force, StarburstRun **out, char *err,
                   size_t errlen);
void starburst_destroy(StarburstRun *r);

/* The line of the last call of r that failed ("" where none has). */
const char *starburst_error(const StarburstRun *r);

/* Sets a parameter by its name (dt, softening, damping, theta, alpha, steps_per_frame: the keys of
 * a presets file; "--dt" as well) to text read as the command line reads it: "0.01", "0.2Myr". */
int starburst_set(StarburstRun *r, const char *name, const char *value);
/* The parameter's value now, in model units; NaN for a name it does not know. */
double starburst_get(const StarburstRun *r, const char *name);

/* Runs steps steps (0 or more) with the parameters set. */
int starburst_advance(StarburstRun *r, int steps);
/* The simulated time (model units) and the step of the run's state. */
double starburst_time(const StarburstRun *r);
long long starburst_step(const StarburstRun *r);
/* One model time unit in Myr, or 0 where the run has no physical scale. */
double starburst_myr(const StarburstRun *r);
/* text read as a time as --dt reads one ("500 Myr", "1.5 Gyr", or a plain number in model units)
 * into *model. */
int starburst_parse_time(StarburstRun *r, const char *text, double *model);

/* The bodies the run holds (the stars, and with halos as fields one centre body a galaxy last). */
int starburst_count(const StarburstRun *r);
/* The state now into the caller's arrays (any may be NULL): pos and vel 3 floats a body, mass one,
 * tag one byte (galaxy << 2 | component: 0 disk, 1 bulge, 2 halo, 3 other). */
int starburst_read(StarburstRun *r, float *pos, float *vel, float *mass, uint8_t *tag);
/* The state replaced (any of the arrays NULL: kept as it is), the time and step as they are. Each
 * body is checked as a file's bodies are (finite, no larger than 1e18, a mass above 0). */
int starburst_write(StarburstRun *r, const float *pos, const float *vel, const float *mass);

/* The energy now with the run's softening, summed in double: kinetic, potential and the work the
 * halo fields' friction took out (0 without fields); conserved is their sum. Any may be NULL. */
int starburst_energy(StarburstRun *r, double *kinetic, double *potential, double *friction);

/* Writes the run as the program saves it: path (TIPSY), path.acc and path.ini. */
int starburst_save(StarburstRun *r, const char *path);

#ifdef __cplusplus
}
#endif

#endif
