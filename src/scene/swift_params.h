/* SWIFT's run parameters as Starburst's settings: the step and the softening of the run that wrote
 * a snapshot, read from its `Parameters` group (snapshot_hdf5.c) or from a params.yml beside it.
 *
 * The step: SWIFT's time line is the span time_end - time_begin halved until a step fits under
 * dt_max, so the step it took is span / 2^k with the least such k (`starburst export` asks for
 * 2^k steps of dt with dt_max = dt (1 + 1e-6): this gives dt back exactly). Without the span,
 * dt_max itself.
 *
 * The softening: Gravity:max_physical_DM_softening (else comoving_DM_softening, what a
 * non-cosmological file would hold) is a Plummer-equivalent length, the one Starburst's Plummer
 * softening is written as by `starburst export` (unchanged: SWIFT scales it to its Wendland-C2
 * kernel's support itself, 3 of them), so it is read back unchanged too. */
#ifndef STARBURST_SWIFT_PARAMS_H
#define STARBURST_SWIFT_PARAMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The parameters as written; 0 where absent (time_begin: has_span says). */
typedef struct SwiftParams {
    double dt_max, time_begin, time_end;
    int has_span; /* time_begin and time_end both given */
    double max_physical_softening, comoving_softening;
} SwiftParams;

/* The step SWIFT took and its Plummer-equivalent softening, in the parameters' units; 0 where
 * the parameters do not say. */
double swift_params_step(const SwiftParams *p);
double swift_params_softening(const SwiftParams *p);

/* Reads the parameters above from a SWIFT params.yml (sections TimeIntegration and Gravity).
 * 0; 1 where there is no such file; -1 with one line in err where it does not read. */
int swift_params_read_yml(const char *path, SwiftParams *p, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
