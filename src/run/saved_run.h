/* Saving and loading a whole run: the bodies as a TIPSY file (positions, velocities, masses, ids),
 * beside it FILE.acc with the accelerations the next step reads (where the bodies carry them,
 * sim/bodies.h) and FILE.ini with the parameters, so that a loaded run continues bit for bit as if
 * it had never stopped. The three are one save: all are written in full before any replaces its
 * old file (util/atomic_file.h); the ini records the TIPSY file's size and checksum, and so does
 * FILE.acc, which a load takes only where it records the TIPSY file read (else the run computes
 * the accelerations again, as for a save without them). A save cut off at
 * any point loads as the old save or the new one, each with its own settings (state.c says how);
 * a pair that does not belong together otherwise (a file copied over by hand) is refused rather
 * than run, and so is a TIPSY file without its ini. A path that is a symbolic link is followed:
 * the pair lies beside the file the link ends at. */
#ifndef STARBURST_STATE_H
#define STARBURST_STATE_H

#include <stddef.h>

#include "sim/sim.h"
#include "util/units.h"

typedef struct SavedRun {
    SimParams params;  /* theta 0, alpha < 0: not recorded (an older save) */
    SimForce force;    /* the method that ran; auto: not recorded */
    int steps_per_frame;
    long long step; /* steps run before the save */
    double time;    /* simulated time at the save */
    Units units;    /* the physical scale of the run's model units; all 0: none (or an older save) */
    float period;   /* the scene's rotation period in model time; 0: not recorded */
    /* Halos as fields (count 0: none): their profiles, and the centre bodies are the file's last
     * count bodies (dark), whose velocities' w (the loss friction took out, sim/bodies.h) the ini
     * holds as [halos] loss0, loss1 since a TIPSY file has no room for it. */
    SimHalos halos;
    float halo_loss[NBODY_HALO_MAX];
    /* Filled by state_load: empty, or one line saying which files it loaded after a save that
     * was interrupted ("recovered from an interrupted save: ..."). */
    char recovered[640];
} SavedRun;

/* Writes path (TIPSY), path.acc where b carries accelerations, and path.ini. 0, or -1 with err;
 * earlier files are intact on failure and no temporary file is left. A save that succeeds removes what interrupted saves to path left. */
int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen);
/* Reads path into b (allocated here, with the accelerations of path.acc where it records path)
 * and path.ini into run. Without path.ini, refused ("...: no
 * settings beside it"); an ini that records a size and checksum other than path's is refused
 * ("run.tipsy: does not match run.tipsy.ini ..."), unless an interrupted save left the other half
 * of a pair beside them (run->recovered then says which); an ini of an older save, without them,
 * is not checked. 0, or -1 with err. */
int state_load(const char *path, Bodies *b, SavedRun *run, char *err, size_t errlen);
/* The settings saved beside path (path.ini) into run, without reading path itself or checking
 * that the two belong together: what a series of saves opened as snapshots (--open) runs with.
 * 0; 1 where path has no ini beside it; -1 with err (an ini that does not read). */
int state_read_settings(const char *path, SavedRun *run, char *err, size_t errlen);
/* A TIPSY file to be read as bodies alone (--tipsy, --open): refused where its .ini says its last
 * bodies are field halos' centres, whose pull as bodies would be a point's (a wrong run). 0 where
 * it has no such ini, or -1 with err naming --load, which continues the run. */
int state_check_bodies_alone(const char *path, char *err, size_t errlen);
/* What can be known of a save before anything opens, without reading it: path and its ini are
 * readable regular files, or the ini is missing and an interrupted save left one. 0, or -1 with
 * err ("cannot read run.tipsy.ini: Permission denied"). */
int state_check(const char *path, char *err, size_t errlen);

#endif
