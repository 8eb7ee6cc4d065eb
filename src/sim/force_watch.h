/* The running force method's error against the f64 direct sum, measured while the simulation
 * runs. What is measured are the accelerations the run stepped with, stored with a copy of its
 * state (Bodies.acc, sim_read): no force is computed for it, so neither the frame nor the device
 * does any work for it beyond the copy. The f64 reference of a sample of stars, O(N x samples) in
 * double, is summed in a worker thread on a copy of the positions, so the frame loop never waits
 * for it. With halos as fields, the stored accelerations hold the fields' pull too: the worker
 * takes it out, and the reference sums the stars alone, which is what the force method sums. One
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

/* Measures the accelerations b carries (b->acc at b's positions, with the softening its acc_info
 * names) on up to `samples` stars spread over the system (diag_sample_targets over the stars:
 * with halos as fields, halos, their centres are the last halos->count bodies; NULL or count 0:
 * none). 0 when started; 1 when a measurement is under way or b carries no accelerations computed
 * at its positions (nothing is done); -1 when memory runs out. */
int force_watch_start(ForceWatch *w, const Bodies *b, const SimHalos *halos, int samples);
bool force_watch_busy(ForceWatch *w);
/* True, with the result in *out, when a measurement finished since the last take. */
bool force_watch_take(ForceWatch *w, ForceCheck *out);
/* Waits until no measurement is under way, then takes as force_watch_take does. */
bool force_watch_wait(ForceWatch *w, ForceCheck *out);
/* The state measured is gone (a reset): the measurement under way, or one not yet taken, gives
 * no result. */
void force_watch_forget(ForceWatch *w);

#endif
