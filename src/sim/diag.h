/* Diagnostics of a running system: conserved quantities summed in double, the virial ratio, and
 * a one-shot check of the active force kernel against the f64 reference. */
#ifndef STARBURST_DIAG_H
#define STARBURST_DIAG_H

#include "sim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Diagnostics {
    double kinetic, potential, total;
    double momentum[3];         /* sum m v */
    double angular_momentum[3]; /* sum m x cross v, about the origin */
    double virial;              /* 2K / |W| */
} Diagnostics;

typedef struct ForceCheck {
    int samples;      /* bodies compared */
    double rms;       /* sqrt(mean |a - a_ref|^2 / mean |a_ref|^2) */
    double p999;      /* 99.9th percentile of |a - a_ref| / |a_ref| per body */
    double worst;     /* largest of those */
} ForceCheck;

void diag_measure(const Bodies *b, SimEnergy e, Diagnostics *out);
/* Compares the active kernel's accelerations with the f64 reference on up to max_samples bodies
 * spread evenly over the system. b holds the current state (sim_read). Returns 0, or -1 when
 * memory runs out. */
int diag_force_check(Sim *s, const Bodies *b, float softening, int max_samples, ForceCheck *out);

#ifdef __cplusplus
}
#endif

#endif
