/* A tour of the kernel ladder: the running simulation switches to each rung in turn, from the
 * top down, long enough to time it on the GPU's clock, and then returns to the kernel it ran.
 * The lecturer's one key (K) that fills every bar of the ladder; the simulation goes on meanwhile,
 * since every rung computes the same forces. Pure bookkeeping: the app switches the kernels. */
#ifndef STARBURST_LADDER_TOUR_H
#define STARBURST_LADDER_TOUR_H

#include <stdbool.h>

#include "sim/sim.h"

typedef struct LadderTour {
    bool active;
    SimKernel restore; /* the kernel to return to */
    SimKernel rung;    /* the rung being timed */
    int advances;      /* advances run on it so far */
    double last_rate;  /* the last rung timed, interactions/s */
    int levels;        /* rungs descended since last_rate was timed */
} LadderTour;

/* Timed advances per rung: the first after a switch warms up, the second counts. */
#define LADDER_TOUR_ADVANCES 2
/* A rung is assumed at most this many times slower than the one above it (the measured factors
 * on an H200 are 1.1 to 4.3); a rung whose advance would pass max_seconds is left out, and all
 * below it. */
#define LADDER_TOUR_STEP_FACTOR 12.0

/* Starts a tour of a simulation running `current`; returns the first rung to run (the top). */
SimKernel ladder_tour_start(LadderTour *t, SimKernel current);
/* After each advance during a tour: `running` ran it, taking `interactions` (n^2 steps) at `rate`
 * interactions/s on the GPU's clock (0 = not timed). Records rates[running] once timed and
 * returns the kernel for the next advance: the same rung, the next one down, or, with the tour
 * over (t->active false), the kernel to restore. */
SimKernel ladder_tour_after_advance(LadderTour *t, SimKernel running, double interactions, double rate,
                                    double rates[SIM_KERNEL_COUNT], double max_seconds);

#endif
