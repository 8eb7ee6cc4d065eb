/* Bodies: the host-side copy of a system of point masses.
 * Positions and velocities are float4 so they match the GL vertex buffer and CUDA's float4
 * loads: pos = (x, y, z, mass), vel = (vx, vy, vz, 0). tag says which galaxy and component a
 * body belongs to; it drives colouring and never changes during a run. A run with halos as fields
 * (sim/halo.h) ends with one body a halo, its centre, whose velocity's w holds the energy that
 * friction has taken out of the run so far (kernels/halo_field.h). */
#ifndef STARBURST_BODIES_H
#define STARBURST_BODIES_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BODY_DISK = 0,
    BODY_BULGE = 1,
    BODY_HALO = 2,
    BODY_OTHER = 3,
};
#define BODY_TAG(galaxy, component) ((uint8_t)(((galaxy) & 1) << 2 | ((component) & 3)))
#define BODY_TAG_GALAXY(tag) (((tag) >> 2) & 1)
#define BODY_TAG_COMPONENT(tag) ((tag) & 3)

/* What computed the accelerations a simulation stored at some positions (Bodies.acc). */
typedef struct BodiesAccInfo {
    int backend;        /* the SimBackend whose they are; 0: none carried */
    int force;          /* the SimForce that computed them */
    float softening;    /* NaN: none computed at these positions yet (the next step computes them,
                           reading the array as the previous ones) */
    float theta, alpha; /* the SimParams they were computed with */
} BodiesAccInfo;

typedef struct Bodies {
    int n;
    float *pos;   /* 4n floats: x, y, z, mass */
    float *vel;   /* 4n floats: vx, vy, vz, 0 */
    uint8_t *tag; /* n: BODY_TAG(galaxy, component) */
    /* Optional (NULL: none; bodies_alloc_acc): 3n floats, the accelerations a simulation stored at
     * these positions, which its next step reads (the opening half kick, and the error-based
     * opening test each body's previous |a|). sim_read fills them where allocated and sim_load
     * takes them back, so that a run kept and put back goes on bit for bit (sim/sim.h). */
    float *acc;
    BodiesAccInfo acc_info;
} Bodies;

/* Returns 0, or -1 when memory runs out (b is then left empty). Arrays are zeroed. */
int bodies_alloc(Bodies *b, int n);
void bodies_free(Bodies *b);
/* Gives b (allocated) room for the accelerations, zeroed, none carried. 0, or -1 (b unchanged). */
int bodies_alloc_acc(Bodies *b);
/* Deep copy, the accelerations too where src has them; returns 0 or -1. */
int bodies_copy(Bodies *dst, const Bodies *src);
double bodies_total_mass(const Bodies *b);
/* Centre of mass (dest[3]) and its velocity (vdest[3], may be NULL), summed in double. */
void bodies_centre_of_mass(const Bodies *b, double dest[3], double vdest[3]);
/* Centre of mass of galaxy 0 or 1 (by tag), or of all bodies for galaxy < 0, into dest[3].
 * Returns that group's mass (0 when it is empty; dest is then left alone). */
double bodies_group_centre(const Bodies *b, int galaxy, double dest[3]);
/* The light of galaxies 0 and 1, each one's stars (disk and bulge): the centre of their mass into
 * centre[g], and the radius their light reaches into radius[g] (1.6 times their rms radius: an
 * exponential disk's light reaches about 4 scale lengths, 1.6 times its rms radius of 2.45). False
 * unless both have stars. */
bool bodies_pair_light(const Bodies *b, float centre[2][3], float radius[2]);
/* What bodies_pair_light is made of, summed over the stars of galaxies 0 and 1: their mass, its
 * first moments Σ m x, and Σ m |x|² (a reader of positions elsewhere, on a GPU, sums the same). */
typedef struct BodiesLight {
    double mass[2], moment[2][3], r2[2];
} BodiesLight;
void bodies_light(const Bodies *b, BodiesLight *out);
/* bodies_pair_light from the sums. */
bool bodies_light_pair(const BodiesLight *l, float centre[2][3], float radius[2]);
/* x, y, z of n float4s (pos or vel) into n x 3 floats: the columns a script reads. */
void bodies_xyz(const float *four, int n, float *xyz);
/* Moves the system so its centre of mass sits at the origin at rest. */
void bodies_recentre(Bodies *b);
/* A body's distance from some centre or axis, and its mass. */
typedef struct BodyRadius {
    double r, m;
} BodyRadius;
/* Sorts rm by r, nearest first. */
void bodies_sort_radii(BodyRadius *rm, int n);
/* The radius within which fraction f of the mass of rm lies (rm is sorted by r here). */
double bodies_radius_holding(BodyRadius *rm, int n, double f);
/* Radius of the sphere around the centre of mass holding fraction f of the mass. */
double bodies_mass_radius(const Bodies *b, double f);

#ifdef __cplusplus
}
#endif

#endif
