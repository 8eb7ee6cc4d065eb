/* The run's state, shared by the files of src/run that keep it: run_state.c (the clock, the host
 * copy, the lines said), run.c (make, reset, advance, the fall-back, undo), run_timeline.c (the
 * keyframes, a past one shown, a future set aside, the series read onto them) and run_files.c
 * (save, export, the timeline's budget). Nothing outside src/run includes it. */
#ifndef STARBURST_RUN_STATE_H
#define STARBURST_RUN_STATE_H

#include <stdarg.h>

#include "run/run.h"
#include "run/undo.h"
#include "sim/force_watch.h"

/* The timeline: the keyframes, the one shown (-1: the run as it goes), the undo count when a
 * resume set a future aside (it comes back while the count is that), --open's series read onto
 * it a snapshot at a time. */
typedef struct RunTimeline {
    Keyframes *store;
    FrameSource source;
    Bodies frame; /* a keyframe being loaded */
    int view;
    int undo_depth;
    double load_ms, capture_ms;
    char note[256]; /* why there is no timeline; "" while there is one */
    int series_next, series_read;
    char reading[160];
    /* Address space held back while the keyframes grow, given up when one cannot be allocated:
     * the room the checkpoint, a save and the GL driver need then (run_timeline.c's reserve_bytes). */
    void *reserve;
} RunTimeline;

/* What is measured on the run (run_watch.c): the energy's baseline and schedule, the live force
 * error's worker, the disks' heating. */
typedef struct RunWatch {
    double e0;
    float e0_softening; /* E0 was measured with this softening; NaN: not yet */
    double half_mass0;
    double next_energy;
    RunEnergy energy;
    float history[240];
    ForceWatch *forces;
    struct RunEnergyJob *energy_job; /* the CPU backend's measurement, summed off the frame loop */
    RunLiveError live;
    char live_what[64], live_pending[64];
    double next_live;
    HeatingSeries heating;
    double heating_cost, next_heating;
} RunWatch;

/* A run a reset, a preset or a load replaced, kept whole (run_left.c): where it came from and
 * what it was built into, its present and first state, its clock, undo history and timeline, and
 * the settings it ran with. */
typedef struct RunLeft {
    RunSource source;
    RunInfo info;
    int last_scene, last_n;
    Bodies first, present;
    double time;
    long long step, first_step;
    RunSettings settings;
    UndoHistory undo;
    Keyframes *store; /* its timeline; NULL: none */
    char note[256];   /* why it had no timeline */
    int view, undo_depth;
} RunLeft;

/* Runs kept at most on each side (run_left.c): ctrl+Z goes back through the left, ctrl+Y forward
 * through the right. */
#define RUN_LEFT_MAX 16

struct Run {
    RunDesc desc;
    RunSource source;
    SnapshotSeries *series;
    int series_reads;
    SimHalos series_halos; /* a series of saves of a run with halo fields: its first ini's [halos] */
    Sim *sim;
    RunInfo info;
    int builds;          /* resets that built a simulation */
    int last_scene, last_n; /* of the last build; last_n -1: the next build is a new scene */
    unsigned position_vbo, speed_vbo;
    /* The clock: the simulation counts from its creation or its last load; these are the time and
     * step before that. */
    double time_base;
    long long step_base, computed;
    long long first_step; /* the step of the first state (the last reset's) */
    RunCopy copy;
    struct RunLanding *landing; /* the checkpoint read without holding up the frame (run_state.c) */
    Bodies first;
    UndoHistory undo;
    RunTimeline tl;
    RunWatch watch;
    RunLeft left[RUN_LEFT_MAX], right[RUN_LEFT_MAX];
    int left_count, right_count;
};

/* run_state.c: the checkpoint's worker (a run without one reads on the frame loop), and the
 * simulation destroyed once nothing reads from it. */
void run_landing_create(Run *r);
void run_landing_free(Run *r);
void run_drop_sim(Run *r);

/* A line for the app (RunDesc.log), printf-style. */
void run_say(const Run *r, int where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* run_watch.c: the baselines of a new run (each reset), and what the watch holds freed. */
/* Brings a snapshot whose velocities run lead ahead of its positions (series_lead) in step: sim
 * holds b; its first force evaluation, at softening, gives a(x), and b and sim get v - a lead.
 * 0, or -1 with err. */
int run_in_step(Sim *sim, Bodies *b, double lead, float softening, char *err, size_t errlen);
void run_watch_restart(Run *r);
/* The energy's worker, where it can be made (a run without one measures on the frame loop). */
void run_watch_create(Run *r);
void run_watch_free(Run *r);

/* run.c: the simulation's description for the run's source on backend b with kernel k. */
SimDesc run_sim_desc(const Run *r, SimBackend b, SimKernel k);

/* run_left.c: the runs left freed; ctrl+Z's and ctrl+Y's last parts (RUN_UNDID_*, or -1). */
void run_left_free(Run *r);
int run_undo_run(Run *r, RunSettings *s, double *time, char *err, size_t errlen);
int run_redo_run(Run *r, RunSettings *s, double *time, char *err, size_t errlen);

/* run_timeline.c */
void run_timeline_free(Run *r);
/* The timeline holds keyframes and takes more. */
bool run_timeline_on(const Run *r);
/* A keyframe would be taken of a state at step (the checkpoint's worker then copies one). */
bool run_keyframe_due(const Run *r, long long step);
/* The checkpoint's keyframe of the state at step, copied by its worker from `copied` on: taken
 * where one is still due, freed otherwise. */
void run_keep_landed(Run *r, KeyframeState *s, double time, long long step, double copied);
/* Before steps are run: a past keyframe shown becomes the start of a new future. */
void run_resume(Run *r);
/* ctrl+Z's first part: the future set aside, where it came last. False when not its to take. */
bool run_undo_future(Run *r);
/* ctrl+Y's part: the future an undo set aside comes back. False when there is none. */
bool run_redo_future(Run *r);

/* "1 keyframe", "4 keyframes". */
static inline const char *run_plural(long long count, const char *one, const char *many)
{
    return count == 1 ? one : many;
}

#endif
