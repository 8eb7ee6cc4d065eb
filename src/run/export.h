/* `starburst export --swift DIR`: a Starburst encounter handed to SWIFT, the cluster N-body code.
 * DIR gets ics.hdf5 (SWIFT's initial conditions, IDs carrying each body's galaxy and component),
 * params.yml (the run's units with G = 1, its softening, Starburst's accuracy, 2^k steps of its
 * dt, output times, a non-periodic box large enough) and README.txt (the commands for one machine
 * and for a cluster). With -n N the encounter is built at N bodies from the scene's parameters
 * and streamed to the file, a piece at a time. */
#ifndef STARBURST_EXPORT_H
#define STARBURST_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scene/scene.h"
#include "sim/bodies.h"
#include "util/units.h"

/* What params.yml says of the run, worked out from the scene (export_plan). */
/* The initial conditions' file in an export's folder, and the snapshots SWIFT writes by default. */
#define EXPORT_ICS "ics.hdf5"
#define EXPORT_SNAPSHOTS 16

typedef struct ExportPlan {
    double dt, softening;
    double time_begin, time_end;
    int log2_steps;       /* the span is 2^log2_steps steps of dt */
    int snapshots;        /* outputs after the first, evenly spaced, on whole steps */
    double box;           /* side of the cubic, non-periodic box; bodies are shifted by box / 2 */
    Units units;          /* the run's scale; all 0 for a run in model units only */
} ExportPlan;

/* The plan for a run of dt from time_begin that lasts at least span, with snapshots outputs (a
 * power of two, at most the steps and 4096, else refused; 0: EXPORT_SNAPSHOTS, or the steps where
 * fewer), and a box that holds bodies starting
 * within radius rmax and moving at most vmax for the whole span. 0, or -1 with one line in err. */
int export_plan(double dt, double softening, double time_begin, double span, int snapshots, double rmax, double vmax,
                const Units *units, ExportPlan *plan, char *err, size_t errlen);

/* params.yml for plan, its initial conditions in ics_name. */
void export_write_params(FILE *f, const ExportPlan *plan, const char *ics_name, const char *what);

/* Writes b (at time t0, dt and softening eps, in info's units) as SWIFT's initial conditions,
 * params.yml and README.txt into dir (made when missing; refused where it holds anything: see
 * export_begin). span 0: two of the scene's pericentre times, else four periods, else 1000 steps;
 * snapshots 0: the default count. what names the state in the files. 0 with a one-line summary in
 * msg, or -1 with one line naming the problem. */
int export_state(const char *dir, const Bodies *b, const SceneInfo *info, double dt, double eps, double t0,
                 double span, int snapshots, const char *what, char *msg, size_t msglen);

/* The largest distance from the origin and speed among b's bodies. */
void export_reach(const Bodies *b, double *rmax, double *vmax);

/* An export a chunk of bodies at a time, so that a writer that streams its bodies holds no more
 * than a chunk (app/export_cli.c): begin, append the n bodies in order, then finish, or cancel.
 * Nothing takes its name in the folder before finish, and then every file is whole (written beside
 * its name, flushed, renamed: util/atomic_file.h), params.yml and README.txt before ics.hdf5. */
typedef struct ExportDesc {
    const char *dir;
    bool force; /* a folder holding a previous export is replaced, its old snapshots removed */
    double dt, softening, time_begin, span;
    int snapshots;
    double rmax, vmax; /* the bodies' reach (export_reach) */
    const Units *units;
    long long n;
    const char *what; /* names the state in the files */
} ExportDesc;
typedef struct Export Export;

/* Plans the export and takes its folder: made where missing; an empty one used; one holding a
 * previous export (its params.yml's first line says so, and all else in it is what SWIFT writes)
 * refused unless force; one holding anything else refused. NULL with one line in err. */
Export *export_begin(const ExportDesc *d, char *err, size_t errlen);
const ExportPlan *export_plan_of(const Export *e);
int export_append(Export *e, const Bodies *chunk, char *err, size_t errlen);
/* Puts the files in place (and, replacing a previous export, removes the rest of it) and frees e:
 * 0 with a one-line summary in msg, or -1 with one line that also says what was removed. */
int export_finish(Export *e, char *msg, size_t msglen);
/* Removes what e wrote (the folder too, where e made it) and frees e; msg says what was removed. */
void export_cancel(Export *e, char *msg, size_t msglen);

#endif
