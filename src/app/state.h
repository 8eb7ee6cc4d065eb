/* Saving and loading a whole run: the bodies as a TIPSY file (positions, velocities, masses, ids)
 * and beside it FILE.ini with the parameters, so that a loaded run continues as if it had never
 * stopped. The two are one save: both are written in full before either replaces its old file
 * (util/atomic_file.h), and the ini records the TIPSY file's size and checksum, so that a pair
 * that does not belong together (a crash between the two renames, or a file copied over by hand)
 * is refused on loading rather than run. */
#ifndef STARBURST_STATE_H
#define STARBURST_STATE_H

#include <stddef.h>

#include "sim/sim.h"

typedef struct SavedRun {
    SimParams params;  /* theta 0: not recorded (an older save) */
    SimForce force;    /* the method that ran; auto: not recorded */
    int steps_per_frame;
    long long step; /* steps run before the save */
    double time;    /* simulated time at the save */
} SavedRun;

/* Writes path (TIPSY) and path.ini. 0, or -1 with err; earlier files are intact on failure and
 * no temporary file is left. */
int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen);
/* Reads path into b (allocated here) and path.ini into run. Without path.ini, run->params.dt is
 * 0 (the caller picks defaults) and time comes from the TIPSY header. An ini that records a
 * size and checksum other than path's is refused ("run.tipsy: does not match run.tipsy.ini ...");
 * one of an older save, without them, is not checked. 0, or -1 with err. */
int state_load(const char *path, Bodies *b, SavedRun *run, char *err, size_t errlen);

#endif
