/* Diagnostics of a running system: conserved quantities summed in double, the virial ratio, and
 * checks of the active force method against the f64 reference (one-shot here; live, in a worker
 * thread, in force_watch.h). */
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
    double median;    /* 50th percentile of the same */
    double p99;       /* 99th percentile of the same */
} ForceCheck;

void diag_measure(const Bodies *b, SimEnergy e, Diagnostics *out);
/* Compares the active kernel's accelerations with the f64 reference on up to max_samples bodies
 * spread evenly over the system. b holds the current state (sim_read). With halos as fields
 * (sim_halos) the stars alone are compared, the fields' pull taken out, against the stars' own
 * f64 sum: the force method's error. Returns 0, or -1 when memory runs out. */
int diag_force_check(Sim *s, const Bodies *b, float softening, int max_samples, ForceCheck *out);

/* The bodies a check samples: count indices spread evenly over n (t * n / count). */
void diag_sample_targets(int n, int count, int *targets);
/* Compares count accelerations (3 floats each) with their references (3 doubles each). NaN in
 * either counts as an infinite error. Returns 0, or -1 when memory runs out. */
int diag_compare(const float *acc3, const double *ref3, int count, ForceCheck *out);
/* The nearest-rank q-quantile (0 <= q <= 1) of count values sorted ascending: the smallest
 * value with at least q * count values at or below it; sorted[0] for q = 0, 0 for count 0. */
double diag_percentile(const double *sorted, int count, double q);

#ifdef __cplusplus
}
#endif

#endif
