/* The structure of a galaxy in a saved or live state, measured from its bodies alone: the sizes
 * of its components, the thickness and warmth of its disk, its stability (Toomre's Q), its
 * non-axisymmetric patterns (Fourier amplitudes), the mass it has lost beyond a radius, and its
 * virial ratio. Everything is summed in double about the centre of mass of the galaxy's stars
 * (disk and bulge; of all its bodies where it has none), at rest, in the frame of its disk: z
 * along the disk's angular momentum (found, not assumed), R and phi in the plane. G = 1. */
#ifndef STARBURST_STRUCTURE_H
#define STARBURST_STRUCTURE_H

#include "sim/bodies.h"
#include "sim/halo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fourier amplitudes A_m for m = 0 .. STRUCTURE_MAX_M. */
#define STRUCTURE_MAX_M 6
/* W is summed pair by pair up to this many bodies of the galaxy unless the desc says otherwise. */
#define STRUCTURE_VIRIAL_MAX_N 32768

/* Zero fields mean "default", but for galaxy (0 is the first galaxy; a NULL desc measures every
 * body with the defaults). */
typedef struct StructureDesc {
    int galaxy;           /* BODY_TAG_GALAXY 0 or 1; -1 = every body */
    double softening;     /* Plummer softening of the run, for W */
    double ring[2];       /* annulus [R_in, R_out) of the disk plane for Q and A_m; default 2 to 3 */
    double beyond;        /* radius for the mass fractions beyond it; default 18, 1.5 times the
                             built-in halo's cut (scene/galaxy.c) */
    int virial_max_n;     /* W by pairs when the galaxy has at most this many bodies; 0 = default,
                             negative = never (potential and virial are then 0) */
    /* The galaxy's halo as a field (a save's [halos]), centred on the galaxy's one dark body, or
     * NULL. With it the enclosed mass for kappa is the stars' and the profile's, and the virial
     * ratio is Clausius': W = sum m x.a of the stars, their pairs' pulls and the field's (a
     * field's potential is deep but nearly flat across the disk: its energy would swamp a 2K/|W|
     * that it barely pulls). */
    const SimHalo *field;
} StructureDesc;

/* One annulus of the disk plane, from the disk bodies inside it. */
typedef struct StructureRing {
    double r_in, r_out;
    int count;             /* disk bodies in it */
    double mass;
    double surface_density;  /* disk mass / area */
    double mean_vr, sigma_r; /* radial velocity: mean and dispersion, mass-weighted */
    double mean_vphi;        /* mean rotation, positive along the disk's spin */
    double sigma_z, rms_z;   /* vertical dispersion and thickness */
    double kappa;            /* epicyclic frequency from the enclosed mass (see structure.c) */
    double toomre_q;         /* sigma_R kappa / (3.36 G Sigma); 0 when Sigma or kappa is 0 */
    double fourier[STRUCTURE_MAX_M + 1]; /* A_m = |sum m_j e^(i m phi_j)| / sum m_j; A_0 = 1 */
} StructureRing;

typedef struct StructureMeasure {
    int count[3];                 /* bodies of BODY_DISK, BODY_BULGE, BODY_HALO in the galaxy */
    double mass[3];
    double centre[3], centre_velocity[3]; /* of the galaxy's stars (see above) */
    double axis[3];               /* unit spin axis of the disk (of all bodies when it has none) */
    double half_mass_radius[3];   /* disk: cylindrical in its plane; bulge, halo: spherical */
    double disk_rms_z;            /* sqrt(mass-weighted mean z^2) of the disk */
    double beyond_fraction[3];    /* mass fraction of each component beyond desc.beyond (spherical) */
    StructureRing ring;           /* the annulus desc.ring */
    double kinetic;               /* in the frame of the galaxy's centre of mass, all bodies */
    double potential;             /* W of the galaxy's bodies among themselves (with a field: the
                                     stars' Clausius virial, see StructureDesc); 0 when not summed */
    double virial;                /* 2K / |W|; 0 when W was not summed */
} StructureMeasure;

/* Measures the galaxy desc->galaxy (NULL desc = all bodies, defaults). Returns 0, or -1 when
 * memory runs out or the galaxy holds no body (out is then zeroed). */
int structure_measure(const Bodies *b, const StructureDesc *desc, StructureMeasure *out);

/* The disk in count annuli with edges edges[0 .. count] (ascending), in the frame
 * structure_measure finds; rings gets count entries. Returns 0, or -1 as above. */
int structure_rings(const Bodies *b, const StructureDesc *desc, const double *edges, int count, StructureRing *rings);

#ifdef __cplusplus
}
#endif

#endif
