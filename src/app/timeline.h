/* The run's timeline: its states kept as keyframes in memory, within a budget of bytes.
 *
 * A keyframe holds the positions and velocities of every body (32 bytes a body) with its step
 * and time; the tags never change during a run and are kept once. Frames are taken at least
 * `spacing` steps apart. When the budget is full, every other frame goes (the first and the last
 * stay) and the spacing doubles: the whole run stays on the timeline, ever more coarsely, and
 * nothing leaves it without the spacing saying so.
 *
 * Resuming from a past frame starts a new future: timeline_cut moves the frames after it aside,
 * where timeline_restore puts them back (the undo) until the room they take is needed.
 *
 * What shows a timeline reads it through a FrameSource, which a series of snapshots on disk can
 * fill as well (frames loaded on demand): a count, each frame's time and step, and a load.
 * Pure C, no GL: tests/unit/test_timeline.c. */
#ifndef STARBURST_TIMELINE_H
#define STARBURST_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/bodies.h"

typedef struct Timeline Timeline;

/* The memory one keyframe of n bodies takes, its bookkeeping included. */
size_t timeline_frame_bytes(int n);

/* An empty timeline that keeps at most budget_bytes. */
Timeline *timeline_create(size_t budget_bytes);
void timeline_destroy(Timeline *t);

/* Starts again from first (taken as frame 0) at time and step, frames spacing steps apart (at
 * least 1). The frames before, and any future held, are freed. 0, or -1 with err: the budget
 * holds fewer than two frames of these bodies, or memory ran out (the timeline is then empty). */
int timeline_start(Timeline *t, const Bodies *first, double time, long long step, long long spacing, char *err,
                   size_t errlen);

/* What timeline_add did besides adding. */
typedef struct TimelineAdded {
    bool thinned;      /* every other frame went; the spacing doubled */
    int future_freed;  /* the frames of the future held for undo, freed for room (0 = none) */
} TimelineAdded;

/* A frame is due at step: the last one is spacing steps behind or more (or ahead: the run went
 * back), and the timeline has started. */
bool timeline_due(const Timeline *t, long long step);
/* Appends b at time and step, thinning first when the budget is full. 0, or -1 with err (other
 * bodies than the start's, or memory ran out; nothing was added). added may be NULL. */
int timeline_add(Timeline *t, const Bodies *b, double time, long long step, TimelineAdded *added, char *err,
                 size_t errlen);

int timeline_count(const Timeline *t);
int timeline_capacity(const Timeline *t); /* frames the budget holds, the future held included */
int timeline_bodies(const Timeline *t);   /* 0 before a start */
long long timeline_spacing(const Timeline *t);
size_t timeline_budget(const Timeline *t);
size_t timeline_bytes_used(const Timeline *t);
double timeline_time(const Timeline *t, int i);
long long timeline_step(const Timeline *t, int i);
/* The last frame at or before step; 0 when all are after it, -1 when there are none. */
int timeline_find(const Timeline *t, long long step);
/* Copies frame i into out (bodies_alloc'ed with the timeline's count): bit for bit as added.
 * 0, or -1 when i or out's count does not fit. */
int timeline_load(const Timeline *t, int i, Bodies *out);

/* Resuming from frame i: the frames after it are set aside as the future (replacing one held
 * before, which is freed). Returns how many were set aside. */
int timeline_cut(Timeline *t, int i);
/* Frames held as the future, 0 = none. */
int timeline_future_count(const Timeline *t);
/* Undoes the last cut: the frames added since it go, the future comes back. Returns the frames
 * restored (0 = no future held; nothing changes). */
int timeline_restore(Timeline *t);
/* Frees the frames after step (the run went back to it another way); any future held stays
 * held. Returns how many went. */
int timeline_drop_after(Timeline *t, long long step);

/* The frames a view scrubs through: the run's own keyframes, or a series of snapshots loaded on
 * demand. load fills out (bodies_alloc'ed with the source's count of bodies); 0 or -1 with err. */
typedef struct FrameSource {
    void *ctx;
    int (*count)(const void *ctx);
    double (*time)(const void *ctx, int i);
    long long (*step)(const void *ctx, int i);
    int (*load)(void *ctx, int i, Bodies *out, char *err, size_t errlen);
} FrameSource;

/* The run's own keyframes as a FrameSource. */
FrameSource timeline_source(Timeline *t);

#endif
