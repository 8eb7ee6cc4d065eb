/* The run: one owner of what is computed now (the simulation, its clock and the host copy of its
 * state), what was kept of its past (the keyframes of its timeline, a future set aside by a
 * resume, the undo history), what it was made from (a scene, a saved run, a snapshot series) and
 * what is written of it (saves, the export for SWIFT).
 *
 * The present is the run's newest state: the simulation's while the run goes on, the newest
 * keyframe while a past one is shown (showing loads that keyframe into the simulation, so that a
 * resume runs on from it). A save and an export write the present, whatever is shown.
 *
 * No GL and no UI: the vertex buffers come in through RunDesc.buffers, and the run's lines go out
 * through RunDesc.log; the app prints them. tests/unit/test_run.c drives a Run on the CPU backend. */
#ifndef STARBURST_RUN_H
#define STARBURST_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/keyframes.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "sim/diag.h"
#include "sim/heating.h"
#include "sim/sim.h"

typedef struct Run Run;

/* Where a line of the run's is meant to be read: on screen (a notice), on the console (unless
 * quiet), or on stderr whatever the app was asked. A line may go to several. */
enum { RUN_SAY_SCREEN = 1, RUN_SAY_CONSOLE = 2, RUN_SAY_ERROR = 4 };
typedef void (*RunLogFn)(void *user, int where, const char *line);

/* The vertex buffers a run of first's bodies writes its positions and speeds into: the app sizes
 * its renderer for them and uploads what never changes (the tags). 0, or -1 with err. */
typedef int (*RunBuffersFn)(void *user, const Bodies *first, unsigned *position_vbo, unsigned *speed_vbo, char *err,
                            size_t errlen);

/* What a reset builds: a scene (kind, N, seed; a TIPSY file's path in file), or the saved run in
 * file, or the snapshot series the run was made with. */
typedef struct RunSource {
    SceneDesc scene;
    char file[1024];   /* the TIPSY file of a TIPSY scene, or the saved run (from_save) */
    bool from_save;
    bool from_series;  /* the series of RunDesc.open_path */
    SimForce force;    /* the method asked for */
} RunSource;

typedef struct RunDesc {
    RunSource source;
    const char *open_path; /* a snapshot series (scene/snapshot.h), opened by run_make */
    SnapshotSeries *series; /* open_path's series already opened (run_open_series), or NULL: run_make
                               takes it over, whether it makes the run or not */
    Units open_units;      /* the scale a series with units of its own (HDF5) is converted onto; a
                              TIPSY series has the scale its first file's .ini gives, else none */
    SimBackend backend;    /* CPU or CUDA, as the app found them */
    SimKernel kernel;      /* the kernel on the CUDA backend; DEFAULT: the default for each N */
    SimPrecision precision;
    int threads_per_body, block_size;
    int gpus;              /* CUDA: GPUs a step is split across (SimDesc.gpus; 0 = one) */
    float theta;           /* the opening angle where a saved run has none */
    /* The timeline's memory: 0 = none. run_desc_defaults turns a negative value into the default
     * (a tenth of the memory available, at most 1 GB) and clamps one larger than the memory
     * available and the address-space limit allow, saying so in note. */
    double timeline_bytes;
    char timeline_note[200];
    RunBuffersFn buffers;  /* NULL: no vertex buffers (the CPU backend, tests) */
    RunLogFn log;          /* NULL: the lines go nowhere */
    void *user;
} RunDesc;

/* Fills what d leaves to the defaults, once: the timeline's budget (above). */
void run_desc_defaults(RunDesc *d);

/* The series at path opened, and the physical scale it runs on as run_make opens it (open_units as
 * RunDesc's) into *scale (all 0: none), before anything is built; NULL with err where it does not
 * open. Hand it to run_make as RunDesc.series (its files are listed once), or series_close it. */
SnapshotSeries *run_open_series(const char *path, const Units *open_units, Units *scale, char *err, size_t errlen);
/* A run made from d (the series opened, nothing built yet: run_reset builds). NULL with err. */
Run *run_make(const RunDesc *d, char *err, size_t errlen);
void run_destroy(Run *r);

/* The backend of the next reset: the app learns whether CUDA can draw only once its context is
 * open. */
void run_set_backend(Run *r, SimBackend b);
/* How the next reset builds a galaxy's halo (scene.h), where its scene has one. */
void run_choose_halo(Run *r, SceneHalo h);
/* The encounter the next reset builds, where its scene is a collision of two galaxies. */
void run_choose_encounter(Run *r, const SceneEncounter *e);
/* What the next reset builds (run_reset_to also goes back to the source before it on failure). */
void run_choose(Run *r, const RunSource *s);
const RunSource *run_source(const Run *r);
/* Whether the run was built from an encounter's scene (the collision, or two TIPSY galaxies set on
 * an orbit), not from a save: the view of it looks down the orbit's axis (camera_home). */
bool run_is_encounter(const Run *r);

/* Builds the source (kind, N and seed of a built-in scene from the arguments, kernel for the CUDA
 * backend), creates the simulation on it and starts the clock, the checkpoint, the undo history
 * and the observation again on its first state; the timeline waits for run_start_timeline (its
 * spacing is the app's steps a frame). 0, or -1 with err. */
int run_reset(Run *r, SceneKind kind, int n, uint64_t seed, SimKernel kernel, char *err, size_t errlen);
/* As run_reset on s; where it fails, the source before it is built again and err says both. */
int run_reset_to(Run *r, const RunSource *s, SceneKind kind, int n, uint64_t seed, SimKernel kernel, char *err,
                 size_t errlen);

/* What the last reset built. */
typedef struct RunInfo {
    SceneInfo scene;
    SceneKind kind;     /* SCENE_TIPSY for a saved run or a series */
    int n;
    uint64_t seed;
    bool fresh;         /* another scene or N than before: its own dt and softening */
    bool dark_only;     /* the bodies are all dark matter */
    bool loaded;        /* from a saved run or a series: saved holds its settings */
    int id;             /* which build of the run this is (1, 2, ...): a run left keeps its own */
    SavedRun saved;
    float speed_scale;  /* about twice the first state's rms speed */
    char device[160];
    char backend_note[300]; /* why the CPU runs after a fall-back; "" otherwise */
    int gpus;               /* the GPUs the last step ran on (sim_gpus) */
    char gpus_note[320];    /* why fewer GPUs run than asked (sim_gpus_note), said once a change */
} RunInfo;
const RunInfo *run_info(const Run *r);
/* The parameters the last build starts with: a loaded run's saved ones (damping off, and theta
 * and alpha as given, where it saved none; a run that saved its theta alone ran the tree by the
 * angle), else its scene's dt and softening, damping off, theta and alpha as given. */
SimParams run_start_params(const Run *r, float theta, float alpha);
/* The simulation, for what is measured on it and the kernel's shape; what changes the run goes
 * through the functions here. */
Sim *run_sim(const Run *r);

/* Runs steps steps of p. A past keyframe shown becomes the start of a new future first (the
 * keyframes after it are set aside for run_undo_future). 0, or -1 when the backend stopped on an
 * error (run_fall_back_to_cpu). */
int run_advance(Run *r, const SimParams *p, int steps);
/* After an advance: a keyframe where one is due. */
void run_keep(Run *r);
/* A backend that stopped hands over to the CPU from the checkpoint (or the source's start). */
int run_fall_back_to_cpu(Run *r, char *err, size_t errlen);

/* The run's clock: the simulated time and step of the state in the simulation, and the steps
 * computed since the run was made (a shown keyframe or an undo changes the first two, not this). */
double run_time(const Run *r);
long long run_step(const Run *r);
long long run_steps_computed(const Run *r);

/* "t = 120 Myr (10.8)", or "t = 10.8" where the run has no physical scale. */
const char *run_when(const Run *r, double t, char *buf, size_t len);

/* The host copy of the simulation's state: diagnostics, the camera, undo and the checkpoint a
 * fall-back starts from. run_read_state reads it now (on the CPU a copy; on CUDA a download). */
typedef struct RunCopy {
    Bodies bodies;
    bool valid;
    double time, read_at;
    long long step;
} RunCopy;
const RunCopy *run_copy(const Run *r);
void run_read_state(Run *r);
/* The copy kept no more than about `seconds` old without holding up the caller: where the backend
 * reads without waiting (the CUDA backend's), a read is started once the copy is that old and put
 * in its place a few frames later, when it has landed and a worker has copied it (the copy then
 * names the step it was started at); elsewhere run_read_state. Called once a frame. */
void run_checkpoint(Run *r, double seconds);
/* The copy read now, unless the backend's is kept by run_checkpoint (the GPU's) and is at most
 * `seconds` old: a measurement of a recent state that costs the frame no read of its own. */
void run_read_recent(Run *r, double seconds);
/* The first state of the last reset. */
const Bodies *run_first_state(const Run *r);
/* The simulation's state replaced by b (as many bodies, checked by the caller), its time and step
 * kept: what a script writes back. Accelerations b carries are the next step's (sim_load); without
 * them it computes them first. 0, or -1 with err (the state as it was). */
int run_set_bodies(Run *r, const Bodies *b, char *err, size_t errlen);

/* The force method and the ladder's kernel, changed at run time. 0, or -1 with err. */
int run_set_force(Run *r, SimForce f, char *err, size_t errlen);
/* The method the next reset starts with (the ladder's pick), the simulation left as it is. */
void run_choose_force(Run *r, SimForce f);
int run_set_kernel(Run *r, SimKernel k, int threads_per_body, int block_size, char *err, size_t errlen);

/* ---- the past: the timeline ---- */

/* Starts the timeline on the first state of the last reset, keyframes at least spacing steps
 * apart (the steps a frame), and --open's series on it (the view on its first snapshot). 0, or -1
 * where there is none (run_timeline_note says why). */
int run_start_timeline(Run *r, long long spacing);
/* The keyframes (NULL: no timeline; run_timeline_note says why). */
const Keyframes *run_keyframes(const Run *r);
const char *run_timeline_note(const Run *r);
/* The keyframe shown, -1 while the run goes on. */
int run_shown(const Run *r);
/* The keyframe the view stands on: the one shown, or (the run going) the newest, which the run as
 * it stands becomes first. -1 without a timeline. */
int run_here(Run *r);
/* Shows keyframe i (clamped): loaded into the simulation; the present stays the newest. 0, or -1
 * with err. */
int run_show(Run *r, int i, char *err, size_t errlen);
/* The view goes back to the run as it goes (an undo of the parameters went back another way). */
void run_went_back(Run *r);
/* Whether run_undo would bring back a future set aside. */
bool run_can_undo_future(const Run *r);
/* Whether run_redo would bring back the future an undo set aside. */
bool run_can_redo_future(const Run *r);
/* How far apart the keyframes stand, for the line over the slider: "every 4 steps" (the spacing);
 * the mean gap where they stand where something else put them: "every ~220 steps" (the CUDA
 * backend's checkpoint copies), "every 384 steps" (--open's series, "~" where uneven), "every
 * 12.5 Myr" (a series whose files give no step: its steps only count the snapshots). Returns buf,
 * "" without a timeline. */
const char *run_timeline_every(const Run *r, char *buf, size_t len);
/* Timing of the last keyframe shown and the last taken, in ms. */
void run_timeline_costs(const Run *r, double *load_ms, double *capture_ms);

/* --open's series: read onto the timeline a snapshot at a time. */
const SnapshotSeries *run_series(const Run *r);
int run_series_reads(const Run *r);  /* snapshots read from disk */
int run_series_read(const Run *r);   /* of them on the timeline, the first included */
/* The line on the reading: "Reading snapshot 3 of 8: snap_0002.hdf5", or where it stopped. */
const char *run_series_reading(const Run *r);
/* Reads the next snapshot onto the timeline. False when there is none left to read. */
bool run_read_next(Run *r);

/* ---- observation: what is measured on the run ---- */

/* The energy against the first state's, measured now and then. */
typedef struct RunEnergy {
    bool valid;          /* measured since the last reset, and finite */
    bool finite;         /* false: the last measurement was not (the run diverged) */
    double error;        /* (E - E0) / |E0| */
    double spread;       /* the half-mass radius over the first state's */
    Diagnostics diag;    /* energies, momenta, virial ratio */
    const float *history; /* dE/E0 of the measurements, oldest first */
    int history_count;
} RunEnergy;
/* Measures the energy with softening eps where one is due by the wall clock now (a few per cent
 * of the time at most; not above 262,144 bodies). True when a measurement was published. On the
 * CPU backend the sums run in a worker on a copy of the state (with E0 where eps is new): a call
 * starts one, a later call publishes it, and the frame never waits for it. */
bool run_measure_energy(Run *r, float eps, double now);
/* Waits for a measurement under way (the next run_measure_energy publishes it). */
void run_wait_energy(Run *r);
const RunEnergy *run_energy(const Run *r);
/* The next measurement at once (the state changed: an undo). */
void run_measure_soon(Run *r);
/* The method's force error against the f64 sum on up to 2,048 bodies, now. 0, or -1 (memory). */
int run_check_forces(Run *r, float eps, ForceCheck *out);
/* The live force error: a worker thread measures the running method on a sample every few
 * seconds while wanted; method names it. It measures the accelerations the run stepped with, in
 * the state's copy (on the GPU the checkpoint's, run_checkpoint), where they were computed with
 * p's softening and opening (theta, alpha: the tree's and the fmm's) and the force method now;
 * until such a copy is there (the first steps after a change, or while paused after one) it waits.
 * True when a result arrived this call. */
typedef struct RunLiveError {
    bool valid, measuring;
    ForceCheck error;
    const char *what; /* the method the last result measured */
} RunLiveError;
bool run_watch_forces(Run *r, const SimParams *p, double now, bool wanted, const char *method);
const RunLiveError *run_live_error(const Run *r);
/* The disks' heating against the start: a sample where one is due by model time (every half
 * rotation period) and by the wall clock. True when it sampled. */
bool run_watch_heating(Run *r, double now);
const HeatingSeries *run_heating(const Run *r);
double run_heating_cost(const Run *r); /* seconds the last sample took */

/* ---- undo ---- */

/* What a save records besides the bodies, and what a run left runs with again. */
typedef struct RunSettings {
    SimParams params;
    int steps_per_frame;
} RunSettings;

/* Keeps p (the parameters before a change) and the state as it is, for run_undo. */
void run_remember(Run *r, const SimParams *before);
/* Counts for the Undo and Redo buttons: changes kept, one more for a future set aside, and the
 * runs left (run_leave); futures and runs a redo brings back. */
int run_undo_depth(const Run *r);
int run_redo_depth(const Run *r);
/* What run_undo and run_redo did. */
enum { RUN_UNDID_NOTHING = 0, RUN_UNDID_PARAMS = 1, RUN_UNDID_FUTURE = 2, RUN_UNDID_RUN = 3 };
/* Undoes the last change: a future a resume set aside where it came last (the view on its last
 * keyframe; the future it replaces set aside for run_redo), else the parameters and state before
 * the last change (into s->params), else the run a reset replaced (run_leave), whole, with the
 * settings it ran with (into *s; s holds the settings of the run it replaces on the way in,
 * which run_redo brings back). RUN_UNDID_*, or -1 with err. *time: the time gone back to. */
int run_undo(Run *r, RunSettings *s, double *time, char *err, size_t errlen);
/* Redoes what the last undos set aside: a future, or a run (into *s, as run_undo). RUN_UNDID_*,
 * or -1 with err. */
int run_redo(Run *r, RunSettings *s, double *time, char *err, size_t errlen);

/* Keeps the run as it stands, whole (its present, first state, clock, undo history, timeline and
 * the settings s it runs with), before a reset, a preset or a load replaces it: run_undo brings it
 * back. The runs a redo would have brought back are kept too, behind it. Does nothing before the
 * first build, or where nothing was computed since it (no step, no keyframe, nothing to undo). */
void run_leave(Run *r, const RunSettings *s);
/* A reset that failed after run_leave: the run left comes back at once, as it was. 0, or -1. */
int run_take_back(Run *r, RunSettings *s, char *err, size_t errlen);
/* Runs kept for ctrl+Z. */
int run_left_count(const Run *r);

/* ---- files ---- */
/* Writes the present to path: bodies, step and time, with s. *step gets the step written, *shown
 * whether that was not the state shown. 0, or -1 with err. */
int run_save(Run *r, const char *path, const RunSettings *s, long long *step, bool *other_than_shown, char *err,
             size_t errlen);
/* The present handed to SWIFT in dir (run/export.h). 0 with a summary in msg, or -1 with msg. */
int run_export(Run *r, const char *dir, const SimParams *p, char *msg, size_t msglen);

#endif
