/* Initial conditions. A scene is reproducible from (kind, n, seed, parameters): the same
 * SceneDesc gives the same bodies bit for bit. Every scene starts with its centre of mass at the
 * origin, at rest. Units: G = 1; the galaxies' disk scale length and disk mass are 1.
 * Tags: galaxies carry BODY_TAG(galaxy, disk | bulge | halo); plummer, shell and random bodies
 * are BODY_TAG(0, BODY_OTHER). */
#ifndef STARBURST_SCENE_H
#define STARBURST_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/bodies.h"
#include "sim/halo.h"
#include "util/units.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum SceneKind {
    SCENE_COLLISION = 0, /* two disk galaxies (disk + bulge + halo) on a parabolic orbit */
    SCENE_DISK,          /* one isolated disk galaxy */
    SCENE_PLUMMER,       /* Plummer sphere, Aarseth-Henon-Wielen sampling, Henon units */
    SCENE_SHELL,         /* shell of radius 1 turning about z at half the circular speed */
    SCENE_RANDOM,        /* uniform ball of radius 1, cold */
    SCENE_TIPSY,         /* a TIPSY file as it is (recentred) */
    SCENE_TIPSY_COLLIDE, /* two copies of a TIPSY galaxy on a collision orbit */
    SCENE_COUNT
} SceneKind;

#define SCENE_MAX_BODIES (1 << 26)

enum { SCENE_SET_INCLINATION_B = 1 << 0 };

/* How a galaxy's dark halo is made: a field (the analytic potential of its profile about a moving
 * centre, kernels/halo_field.h: every body a star) or live (bodies drawn from the profile). */
typedef enum SceneHalo {
    SCENE_HALO_DEFAULT = 0, /* live for the collision and the disk; the other scenes have no halo */
    SCENE_HALO_FIELD,
    SCENE_HALO_LIVE,
    SCENE_HALO_COUNT
} SceneHalo;

/* Chandrasekhar's Coulomb logarithm of the field halos' friction, set against live halos at 1M
 * bodies on the GPU (docs/GALAXIES.md, "Halos as fields"). One value does not serve every orbit: a
 * close pass drains more of the orbit than the formula does, a wide one less (with 0.8 the Mice,
 * pericentre 2, merge 17-19 % late and the Antennae, 4.8, 29-34 % early). So it falls with the
 * encounter's pericentre q, in galaxy A's disk scale lengths: 0.8 at 3 (the default collision and
 * the minor merger), less SCENE_HALO_LN_LAMBDA_SLOPE a scale length, q held to the range it was set
 * over (SCENE_HALO_Q_NEAR..FAR); scene_halo_ln_lambda computes it. */
#define SCENE_HALO_LN_LAMBDA 0.8f
#define SCENE_HALO_LN_LAMBDA_SLOPE 0.085f
#define SCENE_HALO_Q_NEAR 2.0f
#define SCENE_HALO_Q_FAR 4.8f

/* One galaxy's make-up in model units (G = 1; galaxy A's default disk has mass 1 and scale
 * length 1). Zero fields take the defaults: galaxy A's are the Milky-Way-like model (galaxy.c);
 * galaxy B's are A's scaled by the scene's mass_ratio (masses times it, lengths times its square
 * root). Masses are those of the bodies drawn, inside the cuts. */
typedef struct GalaxyModel {
    float disk_mass, disk_scale; /* exponential disk */
    float disk_height;           /* sech^2 scale height z0, in model lengths */
    float toomre_q;              /* Toomre's Q of the disk at 2.43 scale lengths */
    float bulge_mass, bulge_scale;
    float halo_mass, halo_scale, halo_cut; /* the halo ends at halo_cut */
} GalaxyModel;

/* The isolated disk scene's disk from this many stars on (disk and bulge bodies): thin and cool
 * (scale height in disk scale lengths, Toomre's Q), where fewer stars get the defaults. */
#define SCENE_THIN_DISK_STARS 131072
#define SCENE_THIN_DISK_HEIGHT 0.1f
#define SCENE_THIN_DISK_Q 1.0f

/* Zero fields mean "default" (the defaults are listed beside each field). The collision fields
 * serve SCENE_COLLISION and SCENE_TIPSY_COLLIDE: the galaxies' centres start on the two-body conic
 * of the masses inside the separation, counter-clockwise about z, whose galaxy B is A scaled to mass_ratio times
 * the mass and sqrt(mass_ratio) times the size; a TIPSY galaxy's scale length is its stars'
 * cylindrical half-mass radius / 1.678, as for an exponential disk. */
typedef struct SceneDesc {
    SceneKind kind;
    int n;                  /* bodies, default 16384, at most SCENE_MAX_BODIES; TIPSY scenes take
                               theirs from the file (0 = all, fewer = a random subsample that keeps
                               each component's mass) */
    uint64_t seed;          /* 0 = 1 */
    const char *tipsy_path; /* SCENE_TIPSY, SCENE_TIPSY_COLLIDE */
    float mass_ratio;       /* collision: mass of galaxy B / galaxy A, default 1, 0.05 to 20; it
                               scales B's defaults, and galaxy[1]'s fields set over them */
    float pericentre;       /* collision: in disk scale lengths of A, default 3, up to separation */
    float separation;       /* collision: initial distance in scale lengths, 0.5 to 1000; default: the
                               halos' edges 2 scale lengths apart (26 for the default galaxies),
                               16 for tipsy-collide, or a bound orbit's apocentre where nearer */
    float inclination_a;    /* collision: tilt of disk A to the orbital plane, degrees, default 0 */
    float inclination_b;    /* collision: degrees, default 60 unless SCENE_SET_INCLINATION_B */
    float eccentricity;     /* collision: of the orbit, default 1 (a parabola), 0.05 to 20: below 1
                               bound (separation at most the apocentre), above 1 hyperbolic */
    float pericentre_angle; /* collision: direction of pericentre in the orbital (xy) plane, degrees
                               from the x axis, default 0; the pair comes in along -x turned by it */
    unsigned set;           /* SCENE_SET_* bits: fields whose 0 is meant, not "default" */
    float halo_mass_factor; /* collision, disk: halo body mass / disk body mass, default 1, 0.25 to 64
                               (live halos) */
    SceneHalo halo;         /* collision, disk: field or live halos; with fields the scene holds n
                               stars and then one centre body a galaxy (SceneInfo.halos) */
    GalaxyModel galaxy[2];  /* collision, disk: galaxy A (the disk scene's only one) and B */
} SceneDesc;

/* What a scene suggests for running and viewing it. */
typedef struct SceneInfo {
    float dt;        /* timestep */
    float softening; /* Plummer softening length */
    float extent;    /* radius that frames the system, for the camera */
    float period;    /* a characteristic time: disk rotation at the half-mass radius (galaxies),
                        crossing time (plummer), collapse time (shell, random) */
    Units units;     /* the physical scale of the model units; all 0 where the scene has none */
    float pericentre_time; /* collision: model time of the first pericentre the orbit predicts
                              (two point masses: Kepler's equation), 0 where there is none */
    SimHalos halos;        /* halos as fields (count 0: none): their centres are the last bodies */
} SceneInfo;

/* Fills out (allocated here; free with bodies_free) and info. Returns 0, or -1 with one line in
 * err ("tipsy: galaxy.bin: header says 20000 bodies, file holds 11342"). */
int scene_build(const SceneDesc *desc, Bodies *out, SceneInfo *info, char *err, size_t errlen);

/* A run of halo fields at its start, the bodies b that scene_build made of desc (a galaxy
 * scene), with each field sampled into bodies as the live build samples its halo: from the
 * galaxy's own distribution function in the whole galaxy's potential (so in the equilibrium the
 * live halo has), bodies of halo_mass_factor times a disk body's mass, centred on the field's
 * centre body and moving with it. The stars are kept as they are and the centre bodies go: out
 * (allocated here) holds b's stars, then each galaxy's halo bodies. What SWIFT and other codes
 * that run bodies alone take for the run. 0, or -1 with one line in err. */
int scene_sample_halos(const SceneDesc *desc, const Bodies *b, const SimHalos *halos, Bodies *out, char *err,
                       size_t errlen);

/* A collision's encounter as the panel sets it: the orbit (B's mass over A's, pericentre in A's disk
 * scale lengths, eccentricity) and each disk's tilt to the orbital plane in degrees. */
typedef struct SceneEncounter {
    float mass_ratio, pericentre, eccentricity;
    float inclination_a, inclination_b;
} SceneEncounter;

/* d's encounter, its zero fields as a collision fills them (the parameter table's defaults). */
SceneEncounter scene_encounter(const SceneDesc *d);
/* Sets d's encounter to e (an inclination of 0 is meant); the rest of d is kept. */
void scene_set_encounter(SceneDesc *d, const SceneEncounter *e);

/* Whether scene_build takes desc, without building it: its ranges (util/params.c's table) and how
 * its orbit's lengths go together. 0, or -1 with scene_build's line in err. */
int scene_check(const SceneDesc *desc, char *err, size_t errlen);

/* Receives a piece of a scene built by scene_stream; returns 0, or -1 with err to stop. A piece of
 * no bodies (chunk->n 0) comes while a galaxy is measured before its bodies are handed: a chance
 * to stop, nothing to take. */
typedef int (*SceneChunkFn)(void *user, const Bodies *chunk, char *err, size_t errlen);

/* The collision or disk of desc at n bodies (desc->n is not read; n may pass SCENE_MAX_BODIES,
 * up to 2^31 - 1), handed to fn in order in pieces of at most chunk bodies (0: 2^20), so that no
 * more than a piece is held. The bodies are scene_build's at the same n, but for the last
 * recentring (their centre of mass is at the origin to rounding). Fills info as scene_build does.
 * Returns 0, or -1 with one line in err. */
int scene_stream(const SceneDesc *desc, long long n, int chunk, SceneChunkFn fn, void *user, SceneInfo *info,
                 char *err, size_t errlen);

/* The physical scale a scene of kind is built on (the Milky Way's for the galaxy scenes, collision
 * and disk); all 0 for the others. */
Units scene_units(SceneKind kind);

/* The orbit of a collision given by today's state: the pair at d's separation (its default where 0),
 * closing at -v_radial and moving across at v_tangential (model speeds), as the two point masses of
 * the scene's orbit (the masses inside the separation). Fills the conic's eccentricity and its
 * pericentre (in A's disk scale lengths), for d's fields. Returns 0, or -1 with one line in err
 * (the pair must approach and move across). */
int scene_orbit_from_velocity(const SceneDesc *d, double v_radial, double v_tangential, float *eccentricity,
                              float *pericentre, char *err, size_t errlen);

const char *scene_name(SceneKind kind);
/* "field", "live" ("default" for SCENE_HALO_DEFAULT); scene_halo_from_name gives -1 when unknown. */
const char *scene_halo_name(SceneHalo h);
/* The field halos' Coulomb logarithm for an encounter of pericentre q (galaxy A's disk scale
 * lengths); SCENE_HALO_LN_LAMBDA where there is no pair (q 0). */
float scene_halo_ln_lambda(float pericentre);
int scene_halo_from_name(const char *name);
/* Whether scenes of kind have halos to make either way (the collision and the disk). */
int scene_has_halos(SceneKind kind);
/* "collision", "disk", "plummer", "shell", "random", "tipsy", "tipsy-collide"; -1 when unknown. */
int scene_from_name(const char *name);
/* The fewest bodies a scene of kind is built with: a collision 6, a disk 3, two TIPSY copies 2. */
int scene_min_bodies(SceneKind kind);
/* 0 where n bodies (given as -n) build a scene of kind, else -1 with "-n 4: the collision scene
 * needs at least 6 bodies" in err. */
int scene_check_bodies(SceneKind kind, int n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
