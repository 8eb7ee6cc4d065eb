/* Undo for the live parameters: each change of dt, softening or damping keeps the values before
 * it and the bodies at that moment, so "watch it blow up, now undo" returns to the run as it was.
 * A short history, bounded in memory: the oldest entries go first. */
#ifndef STARBURST_UNDO_H
#define STARBURST_UNDO_H

#include <stddef.h>

#include "sim/sim.h"

#define UNDO_MAX_ENTRIES 8
#define UNDO_MAX_BYTES ((size_t)256 << 20)

typedef struct UndoEntry {
    SimParams params; /* in force before the change */
    Bodies state;     /* the bodies when the change was made */
    double time;      /* simulated time then */
    long long step;   /* steps run then */
} UndoEntry;

typedef struct UndoHistory {
    UndoEntry entries[UNDO_MAX_ENTRIES]; /* oldest first */
    int count;
} UndoHistory;

/* Keeps a copy of state with params, time and step. The oldest entry goes when the history is
 * full or would pass UNDO_MAX_BYTES; a state larger than that alone is not kept. 0, or -1 when
 * nothing could be kept (err says why). */
int undo_push(UndoHistory *h, const SimParams *params, const Bodies *state, double time, long long step, char *err,
              size_t errlen);
/* Moves the newest entry into out (the caller frees out->state with bodies_free). False when
 * the history is empty. */
bool undo_pop(UndoHistory *h, UndoEntry *out);
void undo_clear(UndoHistory *h);

#endif
