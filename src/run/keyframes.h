/* The keyframes of a run's timeline: its states kept as keyframes in memory, within a budget of bytes.
 *
 * A keyframe holds the positions, velocities and stored accelerations of every body (44 bytes a
 * body: what the next step reads, so that a run resumed from it goes on bit for bit as it went)
 * with its step and time; the tags never change during a run and are kept once. Frames are taken at least
 * `spacing` steps apart. When the budget is full, every other frame goes (the first and the last
 * stay) and the spacing doubles: the whole run stays on the timeline, ever more coarsely, and
 * nothing leaves it without the spacing saying so.
 *
 * Resuming from a past frame starts a new future: keyframes_cut moves the frames after it aside,
 * where keyframes_swap puts them back (the undo), setting aside in their place the future the
 * resume had started, which the next swap brings back (the redo): no future is freed by a resume
 * or an undo. Futures set aside stack, the newest on top. When the budget is full the futures held
 * are thinned with the other frames: each stays, ever more coarsely, down to its newest state.
 *
 * What shows a timeline reads it through a FrameSource, which a series of snapshots on disk can
 * fill as well (frames loaded on demand): a count, each frame's time and step, and a load.
 * Pure C, no GL: tests/unit/test_timeline.c. */
#ifndef STARBURST_TIMELINE_H
#define STARBURST_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/bodies.h"

typedef struct Keyframes Keyframes;

/* The fewest frames a budget must hold: the first, the newest and a future's newest. */
#define KEYFRAMES_MIN 3

/* Floats a keyframe keeps of each body: position and velocity (float4 each), acceleration (3). */
#define KEYFRAMES_BODY_FLOATS 11
/* The memory one keyframe of n bodies takes, its bookkeeping included. */
size_t keyframes_frame_bytes(int n);

/* An empty timeline that keeps at most budget_bytes. */
Keyframes *keyframes_create(size_t budget_bytes);
void keyframes_destroy(Keyframes *t);

/* Starts again from first (taken as frame 0) at time and step, frames spacing steps apart (at
 * least 1). The frames before, and any future held, are freed. 0, or -1 with err: the budget
 * holds fewer than KEYFRAMES_MIN frames of these bodies, or memory ran out (the timeline is then empty). */
int keyframes_start(Keyframes *t, const Bodies *first, double time, long long step, long long spacing, char *err,
                   size_t errlen);

/* What timeline_add did besides adding. */
typedef struct KeyframesAdded {
    bool thinned;       /* every other frame went (of the future held too); the spacing doubled */
    int future_thinned; /* the frames of the future held for undo that thinning took (0 = none) */
    int future_freed;   /* the frames of a future freed whole: only where the budget is full of
                           futures of one frame each (make_room) */
} KeyframesAdded;

/* A keyframe's state apart from a timeline: what keyframes_add copies of a state, made where the
 * caller likes (the checkpoint's worker thread, off the frame loop), then handed over. */
typedef struct KeyframeState {
    int n;
    float *state; /* KEYFRAMES_BODY_FLOATS n floats */
    BodiesAccInfo acc_info;
} KeyframeState;
/* Copies b (its accelerations where it carries them, else zeros, none carried) into out's own
 * memory. 0, or -1 when memory runs out (out is then empty). */
int keyframes_state_copy(KeyframeState *out, const Bodies *b);
void keyframes_state_free(KeyframeState *s);

/* A frame is due at step: the last one is spacing steps behind or more (or ahead: the run went
 * back), and the timeline has started. */
bool keyframes_due(const Keyframes *t, long long step);
/* Appends b at time and step (its accelerations where it carries them), thinning first when the
 * budget is full. 0, or -1 with err (other bodies than the start's, or memory ran out; nothing was
 * added). added may be NULL. */
int keyframes_add(Keyframes *t, const Bodies *b, double time, long long step, KeyframesAdded *added, char *err,
                 size_t errlen);
/* As keyframes_add, with a state copied before: the timeline takes its memory (s is emptied, also
 * where it fails: other bodies than the start's). */
int keyframes_add_state(Keyframes *t, KeyframeState *s, double time, long long step, KeyframesAdded *added,
                        char *err, size_t errlen);

/* Every other frame goes, of the future held too, the ends kept; the spacing doubles. Returns how
 * many went (memory ran out elsewhere: the room is given back). */
int keyframes_thin(Keyframes *t);

int keyframes_count(const Keyframes *t);
int keyframes_capacity(const Keyframes *t); /* frames the budget holds, the future held included */
int keyframes_bodies(const Keyframes *t);   /* 0 before a start */
long long keyframes_spacing(const Keyframes *t);
size_t keyframes_budget(const Keyframes *t);
/* bytes in words, with three figures in the unit that keeps them: "256 MB", "10 kB", "1.07 GB".
 * Returns buf. */
const char *keyframes_bytes_text(double bytes, char *buf, size_t len);
size_t keyframes_bytes_used(const Keyframes *t);
double keyframes_time(const Keyframes *t, int i);
long long keyframes_step(const Keyframes *t, int i);
/* The last frame at or before step; 0 when all are after it, -1 when there are none. */
int keyframes_find(const Keyframes *t, long long step);
/* Copies frame i into out (bodies_alloc'ed with the timeline's count): bit for bit as added, the
 * accelerations too where out has room for them (bodies_alloc_acc). 0, or -1 when i or out's
 * count does not fit. */
int keyframes_load(const Keyframes *t, int i, Bodies *out);

/* Resuming from frame i: the frames after it are set aside as a future (on top of any held
 * before), for an undo. Returns how many were set aside (0: none after i). */
int keyframes_cut(Keyframes *t, int i);
/* The frames of the future on top, 0 = none; of it where an undo (not a redo) brings it back;
 * where a redo does; and of all the futures held. */
int keyframes_future_count(const Keyframes *t);
int keyframes_undo_count(const Keyframes *t);
int keyframes_redo_count(const Keyframes *t);
int keyframes_aside_frames(const Keyframes *t);
/* Undo (or redo) of the last cut: the future on top comes back after the frame it was cut after,
 * and the frames after that frame take its place on top (*set_aside of them), for the redo (or
 * the undo). Returns the frames brought back (0 = no future held; nothing changes). */
int keyframes_swap(Keyframes *t, int *set_aside);
/* Frees the frames after step (the run went back to it another way); any future held stays
 * held. Returns how many went. */
int keyframes_drop_after(Keyframes *t, long long step);

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
FrameSource keyframes_source(Keyframes *t);

#endif
