/* A tour of the kernel ladder: the running simulation switches to each rung in turn, from the
 * top down (the tree, then the direct kernels from the fastest), long enough to time it on the
 * GPU's clock, and then returns to the rung it ran. The lecturer's one key (K) that fills every
 * bar of the ladder; the simulation goes on meanwhile, since every rung computes the same forces
 * (the tree to its opening angle). Pure bookkeeping: the app switches kernels and methods. Rungs
 * are numbered as UiModel.ladder_rate is: SimKernel, then UI_RUNG_TREE. */
#ifndef STARBURST_LADDER_TOUR_H
#define STARBURST_LADDER_TOUR_H

#include <stdbool.h>

#include "sim/sim.h"
#include "ui/ui.h"

typedef struct LadderTour {
    bool active;
    int restore;       /* the rung to return to */
    int rung;          /* the rung being timed */
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
/* The tree's rate (N^2 over its step time) says nothing of the direct kernels': the first direct
 * rung is assumed no faster than this, above the fastest direct kernel measured (symmetric,
 * 2.77e12 interactions/s on an H100 and an H200), so at 8M bodies the tour stops after the tree. */
#define LADDER_TOUR_DIRECT_MAX_RATE 3e12

/* Starts a tour of a simulation running rung `current`; returns the first rung to run (the tree). */
int ladder_tour_start(LadderTour *t, int current);
/* After each advance during a tour: `running` ran it, taking `interactions` (n^2 steps) at `rate`
 * interactions/s on the GPU's clock (0 = not timed). Records rates[running] once timed and
 * returns the rung for the next advance: the same rung, the next one down, or, with the tour
 * over (t->active false), the rung to restore. */
int ladder_tour_after_advance(LadderTour *t, int running, double interactions, double rate, double rates[UI_RUNGS],
                              double max_seconds);

#endif
