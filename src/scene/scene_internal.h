/* Shared by the scene sources only: the random stream and the disk-galaxy model. */
#ifndef STARBURST_SCENE_INTERNAL_H
#define STARBURST_SCENE_INTERNAL_H

#include <stdint.h>

#include "scene/scene.h"

/* M_PI is not C11. */
#define SCENE_PI 3.14159265358979323846

/* xoshiro256** seeded through splitmix64: small, fast, and the same sequence on every platform,
 * which rand() does not promise. */
typedef struct SceneRng {
    uint64_t s[4];
} SceneRng;

void scene_rng_seed(SceneRng *r, uint64_t seed);
uint64_t scene_rng_next(SceneRng *r);
/* Uniform in [0, 1). */
double scene_rng_uniform(SceneRng *r);
/* Uniform in (0, 1]: safe under log(). */
double scene_rng_uniform_pos(SceneRng *r);
double scene_rng_normal(SceneRng *r);
/* A random direction: dest[3] on the unit sphere. */
void scene_rng_direction(SceneRng *r, double dest[3]);

/* Radial tables: the spherical model on a log grid, the disk's midplane force on a linear one. */
/* Bulge and halo densities taper from this fraction of their cut to 0 at the cut. */
#define SCENE_GALAXY_TAPER 0.5
#define SCENE_GALAXY_GRID 1024
#define SCENE_GALAXY_DISK_GRID 201

/* A spherical component: a Hernquist profile of total mass hern_mass and scale a, tapered
 * smoothly to zero density between taper and cut, holding mass in all. */
typedef struct SceneSphere {
    double mass, scale, taper, cut;
    double hern_mass;
    double psi_cut;                   /* relative potential at the cut: no body has less energy */
    double inside[SCENE_GALAXY_GRID]; /* mass inside r = exp(lnr0 + k dlnr) */
    double df[SCENE_GALAXY_GRID];     /* f(E = psi[k]), unnormalised */
} SceneSphere;

/* One disk galaxy (exponential disk + tapered Hernquist bulge + tapered Hernquist halo) in its
 * own units: disk scale length 1, disk mass 1, G = 1. The collision and disk scenes scale it. */
typedef struct SceneGalaxy {
    double disk_mass, disk_height, disk_cut;
    SceneSphere bulge, halo;
    double toomre_q;  /* stability of the disk at 2.43 scale lengths */
    double softening; /* of the run, in these units: every force of the model feels it */
    double sigma_r0;  /* radial dispersion of the disk at its centre, from toomre_q */
    double lnr0, dlnr;
    double psi[SCENE_GALAXY_GRID]; /* relative potential -Phi at r = exp(lnr0 + k dlnr) */
    double disk_dr, disk_accel[SCENE_GALAXY_DISK_GRID]; /* inward, from the disk alone */
} SceneGalaxy;

/* Galaxy A's default make-up (scene.h's GalaxyModel), every field set. */
GalaxyModel scene_galaxy_defaults(void);
/* Fills the tables for shape, given in the galaxy's own units (its disk_mass and disk_scale are
 * taken as 1, the other masses and lengths relative to them), and the run's softening in those
 * units. */
void scene_galaxy_init(SceneGalaxy *g, const GalaxyModel *shape, double softening);
double scene_galaxy_total_mass(const SceneGalaxy *g);
/* Mass of the bodies inside radius r of the centre, the disk counted as spherical. */
double scene_galaxy_mass_inside(const SceneGalaxy *g, double r);
/* Circular speed squared in the disk plane at cylindrical radius R. */
double scene_galaxy_vc2(const SceneGalaxy *g, double R);
/* Radius of the disk holding half its mass. */
double scene_galaxy_disk_half_mass_radius(const SceneGalaxy *g);

/* Draws a galaxy of nd disk, nb bulge and nh halo bodies into xv (7 doubles a body: x, y, z,
 * vx, vy, vz, m), disk in the xy plane rotating counter-clockwise seen from +z, centre of
 * mass at rest at the origin. tags (n bytes) get BODY_TAG(galaxy, component). */
void scene_galaxy_sample(const SceneGalaxy *g, int nd, int nb, int nh, int galaxy, SceneRng *rng,
                         double *xv, uint8_t *tags);
/* Bodies [first, first + count) of scene_galaxy_sample's draw, uncentred, into xv and tags from
 * their start; called over consecutive ranges with one rng it draws the same bodies, so that a
 * galaxy too large to hold is drawn in pieces. */
void scene_galaxy_sample_range(const SceneGalaxy *g, int nd, int nb, int nh, int galaxy, SceneRng *rng, int first,
                               int count, double *xv, uint8_t *tags);

#endif
