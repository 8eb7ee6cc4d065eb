/* Initial conditions. A scene is reproducible from (kind, n, seed, parameters): the same
 * SceneDesc gives the same bodies bit for bit. Units: G = 1. */
#ifndef STARBURST_SCENE_H
#define STARBURST_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/bodies.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum SceneKind {
    SCENE_COLLISION = 0, /* two disk galaxies (disk + bulge + halo) on a near-parabolic orbit */
    SCENE_DISK,          /* one isolated disk galaxy */
    SCENE_PLUMMER,       /* Plummer sphere, Aarseth-Henon-Wielen sampling, Henon units */
    SCENE_SHELL,         /* rotating spherical shell */
    SCENE_RANDOM,        /* uniform ball, cold */
    SCENE_TIPSY,         /* a TIPSY file as it is */
    SCENE_TIPSY_COLLIDE, /* two copies of a TIPSY galaxy on a collision orbit */
    SCENE_COUNT
} SceneKind;

/* Zero fields mean "default" (the defaults are listed beside each field). */
typedef struct SceneDesc {
    SceneKind kind;
    int n;                  /* bodies; TIPSY scenes take theirs from the file (0 = all) */
    uint64_t seed;          /* 0 = 1 */
    const char *tipsy_path; /* SCENE_TIPSY, SCENE_TIPSY_COLLIDE */
    float mass_ratio;       /* collision: mass of galaxy B / galaxy A, default 1 */
    float pericentre;       /* collision: in disk scale lengths of A, default 3 */
    float separation;       /* collision: initial distance in scale lengths, default 16 */
    float inclination_a;    /* collision: tilt of disk A to the orbital plane, degrees, default 0 */
    float inclination_b;    /* collision: degrees, default 60 */
    float halo_mass_factor; /* halo body mass / disk body mass, default 4 */
} SceneDesc;

/* What a scene suggests for running and viewing it. */
typedef struct SceneInfo {
    float dt;        /* timestep */
    float softening; /* Plummer softening length */
    float extent;    /* radius that frames the system, for the camera */
    float period;    /* a characteristic time: disk rotation at the half-mass radius, or crossing */
} SceneInfo;

/* Fills out (allocated here; free with bodies_free) and info. Returns 0, or -1 with one line in
 * err ("tipsy: galaxy.bin: header says 20000 bodies, file holds 11342"). */
int scene_build(const SceneDesc *desc, Bodies *out, SceneInfo *info, char *err, size_t errlen);

const char *scene_name(SceneKind kind);
/* "collision", "disk", "plummer", "shell", "random"; -1 when unknown. */
int scene_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
