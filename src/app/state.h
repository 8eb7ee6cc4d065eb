/* Saving and loading a whole run: the bodies as a TIPSY file (positions, velocities, masses, ids)
 * and beside it FILE.ini with the parameters, so that a loaded run continues as if it had never
 * stopped. Both are written atomically. */
#ifndef STARBURST_STATE_H
#define STARBURST_STATE_H

#include <stddef.h>

#include "sim/sim.h"

typedef struct SavedRun {
    SimParams params;
    int steps_per_frame;
    long long step; /* steps run before the save */
    double time;    /* simulated time at the save */
} SavedRun;

/* Writes path (TIPSY) and path.ini. 0, or -1 with err; earlier files are intact on failure. */
int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen);
/* Reads path into b (allocated here) and path.ini into run. Without path.ini, run->params.dt is
 * 0 (the caller picks defaults) and time comes from the TIPSY header. 0, or -1 with err. */
int state_load(const char *path, Bodies *b, SavedRun *run, char *err, size_t errlen);

#endif
