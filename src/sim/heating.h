/* Heating of galaxy disks over a run, against its start: the disk's rms thickness, its radial
 * velocity dispersion sigma_R and Toomre's Q in an annulus (sim/structure.h), sampled now and then,
 * each galaxy's drift flagged. An energy error of 1e-6 says the integration is clean; it says
 * nothing of two-body relaxation, which heavy bodies drive and which thickens and warms a disk at
 * constant energy. This is the measure of that.
 *
 * The annulus is fixed at the start, in units of the disk's half-mass radius then: 2 to 3 scale
 * lengths of an exponential disk (R_half = 1.678 R_d), so sigma_R and Q are compared in the same
 * place. Above max_bodies bodies, every k-th body is measured with k times its mass: the figures
 * are means over thousands of disk bodies, and the cost stays bounded at a million.
 *
 * A drift is the larger rise of rms z over the start and of sigma_R over the settled disk (a cooler
 * disk is no alarm): a model's disk settles in its first rotation, its sigma_R rising 10 to 20 %
 * at 16K bodies and at 131K alike (not two-body heating: docs/HEATING.md), its thickness not, so
 * sigma_R is held against the first sample desc.settle after the start and not judged before it.
 * While the other galaxy's tide on a disk is small, a rise above HEATING_WARM_DRIFT is numerical
 * heating; once the tide passes HEATING_TIDAL_LIMIT (or the predicted pericentre has come), the
 * encounter heats the disk itself (tides, the bridge and tails), so the drift is shown but never
 * flagged again (docs/HEATING.md says why the limit). */
#ifndef STARBURST_HEATING_H
#define STARBURST_HEATING_H

#include <stdbool.h>

#include "sim/bodies.h"
#include "sim/halo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Drift of thickness or sigma_R above which a disk is flagged warm (amber) and hot (red): the
 * isolated galaxy's targets allow 25 % thickening over a Gyr. */
#define HEATING_WARM_DRIFT 0.10
#define HEATING_HOT_DRIFT 0.25
/* The other galaxy's tide (heating_tidal) beyond which a disk's growth is the encounter's. */
#define HEATING_TIDAL_LIMIT 0.05
/* The annulus for sigma_R and Q, in disk half-mass radii at the start: 2 to 3 R_d. */
#define HEATING_RING_IN (2.0 / 1.678)
#define HEATING_RING_OUT (3.0 / 1.678)
/* Samples kept; when full, every other one is dropped and the interval doubles. */
#define HEATING_MAX_SAMPLES 240
/* Bodies measured at most, unless the desc says otherwise. */
#define HEATING_MAX_BODIES 32768
/* Disk bodies a galaxy needs to be watched. */
#define HEATING_MIN_DISK 32

typedef enum HeatingState {
    HEATING_NONE = 0, /* no disk to watch */
    HEATING_STEADY,   /* every drift below HEATING_WARM_DRIFT */
    HEATING_WARM,     /* a drift above HEATING_WARM_DRIFT, before the encounter */
    HEATING_HOT,      /* a drift above HEATING_HOT_DRIFT, before the encounter */
    HEATING_TIDAL,    /* the encounter heats the disk (its tide, or past the pericentre); not flagged */
} HeatingState;

typedef struct HeatingPoint {
    double time;
    double rms_z;    /* of the whole disk */
    double sigma_r;  /* in the annulus */
    double toomre_q; /* in the annulus; 0 where it has no disk body */
    double tidal;    /* the other galaxy's tide at the annulus' outer radius (heating_tidal) */
} HeatingPoint;

typedef struct HeatingGalaxy {
    int galaxy;     /* BODY_TAG_GALAXY */
    double ring[2]; /* the annulus, fixed at the start */
    HeatingPoint history[HEATING_MAX_SAMPLES]; /* oldest first; history[0] is the start */
    int count;
    double thickness_drift, sigma_drift; /* the last sample's over the start's and the base's, less 1 */
    double drift;                        /* the last sample's judged: thickness, and sigma_R once settled */
    double peak_drift;                   /* the largest drift before the encounter */
    double encounter_time;               /* model time of the first sample the encounter heats; -1 none yet */
    /* What sigma_R is held against: the first sample at least desc.settle after the start (the
     * start itself where settle is 0); until it is taken the start, and sigma_R not judged. */
    HeatingPoint base;
    bool settled;
    HeatingState state;
} HeatingGalaxy;

/* Zero fields mean "default". */
typedef struct HeatingDesc {
    double interval;        /* model time between samples; 0 = whenever asked */
    double pericentre_time; /* model time of the first pericentre the orbit predicts; 0 = none
                               (an isolated galaxy, a loaded run: the tide alone decides) */
    double settle;          /* model time the disk settles in after the start; 0 = none (a loaded
                               run is held against its loaded state) */
    int max_bodies;         /* bodies measured at most; 0 = HEATING_MAX_BODIES */
    /* The run's halos as fields (count 0: none): their centres, the last bodies, are measured as
     * the profiles they stand for (StructureDesc.field), and always kept in a sample. */
    SimHalos fields;
} HeatingDesc;

typedef struct HeatingSeries {
    HeatingDesc desc;
    int galaxies; /* galaxies watched: 0 (no disk), 1 or 2 */
    HeatingGalaxy galaxy[2];
    double interval;    /* between samples now: desc.interval, doubled each time the history is thinned */
    HeatingState state; /* the most telling of the galaxies': hot, warm, tidal, steady, none */
    Bodies sample;      /* every k-th body, where there are more than max_bodies */
} HeatingSeries;

/* The start: each galaxy with a disk measured in b at time, its annulus fixed. Returns 0, or -1
 * when memory runs out (s then watches nothing). s is zeroed first: heating_free before a new start. */
int heating_start(HeatingSeries *s, const Bodies *b, double time, const HeatingDesc *desc);
/* Whether a sample is due at time: the interval has passed since the last, or the run went back. */
bool heating_due(const HeatingSeries *s, double time);
/* A sample of b at time; samples after time (a run gone back, as by an undo) are dropped first.
 * Returns 0, or -1 when memory runs out. */
int heating_sample(HeatingSeries *s, const Bodies *b, double time);
void heating_free(HeatingSeries *s);

/* One galaxy's point as heating takes it: structure_measure of galaxy with the annulus ring (its
 * halo the field fields holds for it, where fields is not NULL and has one). */
int heating_measure(const Bodies *b, int galaxy, const double ring[2], const SimHalos *fields, HeatingPoint *out);
/* The other galaxy's tidal acceleration across galaxy's disk at radius from its centre, over the
 * disk's own pull there: 2 M_other(<d) radius^3 / (M_own(<radius) d^3), d the distance of the
 * two galaxies' stellar centres and each mass that of the galaxy's bodies within that distance of
 * its centre (a halo field of fields, NULL: none, by its profile). 0 where there is no other galaxy;
 * infinite once the other's centre lies within radius. */
double heating_tidal(const Bodies *b, int galaxy, double radius, const SimHalos *fields);
/* "none", "steady", "warm", "hot", "tidal". */
const char *heating_state_name(HeatingState state);

#ifdef __cplusplus
}
#endif

#endif
