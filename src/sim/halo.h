/* Halos as fields on the host: the profile's tables, the CPU backend's field step and the
 * fields' share of the energy (kernels/halo_field.h holds the formulas and the design). */
#ifndef STARBURST_SIM_HALO_H
#define STARBURST_SIM_HALO_H

#include "halo_field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef NbodyHalos SimHalos;
typedef NbodyHalo SimHalo;

/* The tapered Hernquist halo of `mass` inside `cut` (the same profile src/scene/galaxy.c samples):
 * scale a, density tapered from `taper` to 0 at `cut`. Fills h; -1 where the lengths do not go
 * together (0 < taper < cut, a > 0, mass > 0). */
int sim_halo_profile(SimHalo *h, double mass, double scale, double taper, double cut);

/* The radius inside which the halo holds half its mass (what a ring on the screen outlines). */
double sim_halo_half_mass_radius(const SimHalo *h);

/* The fields' step on the CPU: adds every halo's pull to the first n_stars accelerations (acc3, 3
 * per body, holding the stars' own forces), softened by eps, and writes the centres'
 * accelerations (bodies n_stars .. n_stars + count - 1) in full. fric (may be NULL) gets the
 * friction's force on each centre (nbody_halo_centres); with friction 0 (hs->ln_lambda 0) the
 * centres' accelerations are gravity's alone. */
void sim_halo_forces_cpu(const SimHalos *hs, const float *pos4, const float *vel4, int n_stars, float eps,
                         float *acc3, int threads, double *fric);

/* The stars' own forces within stored accelerations: from each of count sampled stars' (targets,
 * below n_stars; acc3 holds 3 floats per sample) takes out every halo's pull, softened by eps, as
 * sim_halo_forces_cpu and the GPU's fields' step add it. What is left differs from the force
 * method's sum by the rounding of the stored sum, a float's step of it. */
void sim_halo_take_out_pull(const SimHalos *hs, const float *pos4, int n_stars, float eps, const int *targets,
                            int count, float *acc3);

/* The friction's force on each centre (3 per halo, into fric) within the stored accelerations acc3
 * of the state (pos4, vel4): what they hold beyond gravity's, computed again. An advance's opening
 * half kick, which applies the last step's accelerations, counts its loss by it. */
void sim_halo_stored_friction(const SimHalos *hs, const float *pos4, const float *vel4, const float *acc3,
                              int n_stars, float eps, int threads, double *fric);

/* The energy friction has taken out of the run so far: the sum of the centres' velocity w. */
double sim_halo_friction_loss(const SimHalos *hs, const float *vel4, int n_stars);

/* The fields' potential energy with softening eps, in double: every star in every halo and the
 * halos' mutual term. */
double sim_halo_potential_energy(const SimHalos *hs, const float *pos4, int n_stars, float eps, int threads);

#ifdef __cplusplus
}
#endif

#endif
