/* libstarburst: a Starburst run driven from another program (C, or Python through ctypes).
 *
 * A run is an opaque handle made from a description (a built-in scene of N bodies and a seed) or
 * from a saved run (a TIPSY file with its .ini beside it, as `starburst --load` takes). It is
 * advanced by steps on the CPU or CUDA backend, its bodies read into the caller's arrays and
 * written back, its energy measured, and it is saved as the program saves (`starburst --load FILE`
 * continues it). No window: starburst_render draws the state headless (EGL) as the program does.
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
#define STARBURST_VERSION_MINOR 3

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
/* A run that goes on from the first snapshot of what is at path, as `starburst --open` takes it: a
 * TIPSY file (of this program or another code; with its .ini, on its scale, else in model units),
 * an HDF5 snapshot (SWIFT's, GADGET's), a folder or a pattern of them; backend and force as in
 * StarburstDesc. Its dt and softening are the ones its files record, else the scene's defaults. */
int starburst_open(const char *path, const char *backend, const char *force, StarburstRun **out, char *err,
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
/* One model length unit in kpc, or 0 where the run has no physical scale. */
double starburst_kpc(const StarburstRun *r);
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

/* The structure of one galaxy as starburst-measure prints it for the same state (src/sim/
 * structure_report.h): a figure that the bodies cannot give is NaN (a component with no bodies,
 * an annulus with fewer than two disk bodies, 2K/|W| over 32768 bodies). Lengths and speeds in
 * model units, the disk's frame found from its own spin. */
typedef struct StarburstMeasure {
    int galaxy;                   /* 0 or 1 */
    int bodies[3];                /* of the disk, the bulge, the halo */
    int other;                    /* bodies of the galaxy of no component */
    double half_mass_radius[3];   /* disk: cylindrical in its plane; bulge, halo: spherical */
    double disk_rms_z;            /* the disk's rms thickness */
    double ring[2];               /* the annulus [R0, R1) of the disk plane measured */
    int ring_bodies;              /* disk bodies in it */
    double sigma_r, kappa, toomre_q; /* there: radial dispersion, epicyclic frequency, Toomre's Q */
    double fourier[7];            /* A_0..A_6 there (A_0 = 1) */
    double beyond;                /* the radius of the fractions beyond it */
    double beyond_fraction[3];    /* mass fraction of each component beyond it (the bulge's NaN) */
    double virial;                /* 2K/|W| */
    double softening;             /* the softening W was summed with: the run's */
    int field;                    /* 1 where W is the stars' in their field halo (Clausius) */
} StarburstMeasure;

/* The galaxies of the state now measured into out (room for 2), with the annulus [ring0, ring1)
 * and the radius beyond (0, 0 and 0: the tool's defaults, 2 3 and 22.5), W at the run's
 * softening; *count the galaxies that have bodies. */
int starburst_measure(StarburstRun *r, double ring0, double ring1, double beyond, StarburstMeasure out[2],
                      int *count);

/* Writes the run as the program saves it: path (TIPSY), path.acc and path.ini. */
int starburst_save(StarburstRun *r, const char *path);

/* Hands the state now to SWIFT in the folder dir (made where it does not exist), as `starburst
 * export --swift` and the window's "Run at scale..." do: the initial conditions, params.yml for
 * the run's dt and softening, README.txt. The summary line into summary (may be NULL). Halos as
 * fields are sampled into bodies at a built run's start only: a later state is refused. */
int starburst_export_swift(StarburstRun *r, const char *dir, char *summary, size_t len);

/* What starburst_render draws: a picture of width x height pixels, 1 to 16384 each (as --size
 * takes them). A 0 in the other fields takes the program's default, as the option left out does;
 * of the camera, the fields `camera` names are taken and the rest are the program's home
 * view of the state (the view a loaded run opens with: an encounter down its orbit's axis). */
enum {
    STARBURST_CAMERA_YAW = 1 << 0,
    STARBURST_CAMERA_PITCH = 1 << 1,
    STARBURST_CAMERA_DISTANCE = 1 << 2,
    STARBURST_CAMERA_TARGET = 1 << 3,
};
typedef struct StarburstView {
    int width, height;   /* pixels (--size) */
    unsigned camera;     /* STARBURST_CAMERA_* bits: which of the next four are given */
    float yaw, pitch;    /* degrees: the eye at target + distance (cos p cos y, cos p sin y, sin p), z up */
    float distance;      /* from the target, model lengths */
    float target[3];     /* the point looked at, model lengths */
    float exposure;      /* --exposure */
    float point_size;    /* --point-size */
    const char *color;   /* --color: component or speed */
    int show_halo;       /* --show-halo: the dark halo too (bodies, or a field's ring) */
} StarburstView;

/* The state now drawn headless into rgb (width x height x 3 bytes, top row first): the picture the
 * program's --screenshot takes of the same state at the same size and settings (`starburst --load
 * SAVE --headless --paused --frames 1 --screenshot`), by the same renderer. EGL: NVIDIA's on a
 * GPU, Mesa's elsewhere. The first call makes a GL context for the run (current on the calling
 * thread while it draws), kept for the next pictures until the size changes or the run is
 * destroyed. view NULL: 1280 x 720 and all defaults. */
int starburst_render(StarburstRun *r, const StarburstView *view, uint8_t *rgb);

#ifdef __cplusplus
}
#endif

#endif
