/* The running force method's error against the f64 direct sum, measured while the simulation
 * runs. A measurement has two halves: the method's accelerations, taken on the caller's thread
 * (a simulation is not to be shared between threads, and on the GPU they are one more force call
 * of the frame), and the f64 reference of a sample of bodies, O(N x samples) in double, summed
 * in a worker thread on a copy of the positions, so the frame loop never waits for it. One
 * measurement is under way at a time; the caller takes the result when it has arrived. */
#ifndef STARBURST_FORCE_WATCH_H
#define STARBURST_FORCE_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/diag.h"

typedef struct ForceWatch ForceWatch;

/* Starts the worker thread; NULL with one line in err when it cannot. */
ForceWatch *force_watch_create(char *err, size_t errlen);
/* Waits for a measurement under way, then stops the worker. NULL is a no-op. */
void force_watch_destroy(ForceWatch *w);

/* Measures s, whose current state b holds (sim_read), on up to `samples` bodies spread over the
 * system (diag_sample_targets): its accelerations now, the reference in the worker. 0 when
 * started; 1 when a measurement is under way (nothing is done); -1 when memory runs out. */
int force_watch_start(ForceWatch *w, Sim *s, const Bodies *b, float softening, int samples);
bool force_watch_busy(ForceWatch *w);
/* True, with the result in *out, when a measurement finished since the last take. */
bool force_watch_take(ForceWatch *w, ForceCheck *out);
/* Waits until no measurement is under way, then takes as force_watch_take does. */
bool force_watch_wait(ForceWatch *w, ForceCheck *out);
/* The state measured is gone (a reset): the measurement under way, or one not yet taken, gives
 * no result. */
void force_watch_forget(ForceWatch *w);

#endif
