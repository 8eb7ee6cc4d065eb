/* Where two galaxies are on their orbit, from their bodies: the stellar (disk and bulge) centres
 * of mass of galaxies 0 and 1, and a two-body Kepler orbit through them with the mass each galaxy
 * holds within the separation. It gives the time to the next pericentre while they approach, to
 * apocentre while a bound pair recedes, and says when they have merged (closer than a few disk
 * scale lengths for a while). An estimate: live halos brake the orbit (dynamical friction), so
 * the next pericentre comes sooner than a point-mass orbit says. */
#ifndef STARBURST_PERICENTRE_H
#define STARBURST_PERICENTRE_H

#include <stdbool.h>

#include "sim/bodies.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum OrbitPhase {
    ORBIT_NONE = 0,   /* not two galaxies with stars */
    ORBIT_APPROACHING,
    ORBIT_RECEDING,   /* time_to_apocentre < 0: the mass within the separation does not bind them */
    ORBIT_MERGED,
} OrbitPhase;

typedef struct OrbitEstimate {
    OrbitPhase phase;
    double separation;        /* of the stellar centres, model lengths */
    double radial_speed;      /* d separation / dt: < 0 while approaching */
    double mass;              /* the two galaxies' masses within the separation */
    double time_to_pericentre; /* approaching: model time to the next pericentre */
    double time_to_apocentre; /* receding and bound: model time to apocentre; -1 unbound */
} OrbitEstimate;

/* The estimate from the bodies as they are (never ORBIT_MERGED: that takes a history). 0, or -1
 * where b does not hold two galaxies with stars. */
int orbit_estimate(const Bodies *b, OrbitEstimate *out);

/* The estimate kept over a run: measured again when the bodies are newer, merged once the
 * separation stays below merge_radius for merge_time. */
typedef struct OrbitWatch {
    bool measured, close; /* all zero: nothing measured yet */
    double measured_at;   /* model time of the bodies last measured */
    double close_since;   /* model time the separation fell below the merge radius, while close */
    OrbitEstimate est;
} OrbitWatch;

void orbit_watch_reset(OrbitWatch *w);
/* Takes b, the bodies at model time t, where t differs from the last taken (a reset that went
 * back in time starts the watch again). */
void orbit_watch_take(OrbitWatch *w, const Bodies *b, double t, double merge_radius, double merge_time);

#ifdef __cplusplus
}
#endif

#endif
