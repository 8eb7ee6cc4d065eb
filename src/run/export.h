/* `starburst export --swift DIR`: a Starburst encounter handed to SWIFT, the cluster N-body code.
 * DIR gets ics.hdf5 (SWIFT's initial conditions, IDs carrying each body's galaxy and component),
 * params.yml (the run's units with G = 1, its softening, Starburst's accuracy, 2^k steps of its
 * dt, output times, a non-periodic box large enough) and README.txt (the commands for one machine
 * and for a cluster). With -n N the encounter is built at N bodies from the scene's parameters
 * and streamed to the file, a piece at a time. */
#ifndef STARBURST_EXPORT_H
#define STARBURST_EXPORT_H

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
    Units units;          /* physical; a scene without a scale gets 1 kpc and 1 km/s */
} ExportPlan;

/* The plan for a run of dt from time_begin that lasts at least span, with snapshots outputs
 * (rounded down to a power of two of at most the steps), and a box that holds bodies starting
 * within radius rmax and moving at most vmax for the whole span. 0, or -1 with one line in err. */
int export_plan(double dt, double softening, double time_begin, double span, int snapshots, double rmax, double vmax,
                const Units *units, ExportPlan *plan, char *err, size_t errlen);

/* params.yml for plan, its initial conditions in ics_name. */
void export_write_params(FILE *f, const ExportPlan *plan, const char *ics_name, const char *what);

/* Writes b (at time t0, dt and softening eps, in info's units) as SWIFT's initial conditions,
 * params.yml and README.txt into dir (made when missing). span 0: two of the scene's pericentre
 * times, else four periods, else 1000 steps; snapshots 0: the default count. what names the state
 * in the files. 0 with a one-line summary in msg, or -1 with one line naming the problem. */
int export_state(const char *dir, const Bodies *b, const SceneInfo *info, double dt, double eps, double t0,
                 double span, int snapshots, const char *what, char *msg, size_t msglen);

/* The parts export_state is made of, for a writer that streams its bodies (app/export_cli.c):
 * the largest distance from the origin and speed among b's bodies; dir made where missing;
 * params.yml or README.txt of plan for n bodies. 0, or -1 with one line in err. */
void export_reach(const Bodies *b, double *rmax, double *vmax);
int export_make_dir(const char *dir, char *err, size_t errlen);
int export_write_text(const char *dir, const char *name, const ExportPlan *p, long long n, const char *what, char *err,
                      size_t errlen);

#endif
