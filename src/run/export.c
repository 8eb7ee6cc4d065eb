/* `starburst export --swift DIR` (export.h). What SWIFT needs to run a Starburst encounter as
 * Starburst would, each a pitfall found by hand (shared notes on SWIFT):
 * - a fixed step: time_end - time_begin is 2^k steps of dt and dt_max is dt (1 + 1e-6), with a
 *   time-step criterion (eta) too loose to bite; otherwise SWIFT halves the step without a word;
 * - G = 1 in the model units, which become SWIFT's internal units;
 * - the softening as SWIFT's Plummer-equivalent length (its kernel is Wendland C2, not Plummer:
 *   forces differ by 1.4 % at the median);
 * - the adaptive opening criterion at Starburst's accuracy (epsilon_fmm 0.001, theta_cr 0.7);
 * - a non-periodic box holding every body for the whole run, the bodies shifted by half the box:
 *   a body that leaves it wraps silently outside SWIFT's debug builds, so one found outside is
 *   refused here. */
#include "run/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "util/clock.h"

#define EXPORT_MAX_LOG2_STEPS 40
/* A body's start radius and speed over the whole span bound where it can go; the box holds that
 * with this margin, rounded up to a power of two. */
#define EXPORT_BOX_MARGIN 1.25

int export_plan(double dt, double softening, double time_begin, double span, int snapshots, double rmax, double vmax,
                const Units *units, ExportPlan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    if (!(dt > 0) || !(span > 0) || !(softening >= 0) || !isfinite(rmax) || !isfinite(vmax)) {
        snprintf(err, errlen, "export: dt %g, span %g, softening %g: expected dt and span above 0", dt, span, softening);
        return -1;
    }
    double steps = ceil(span / dt * (1 - 1e-12));
    int k = 0;
    while (k < EXPORT_MAX_LOG2_STEPS && ldexp(1.0, k) < steps) k++;
    if (ldexp(1.0, k) < steps) {
        snprintf(err, errlen, "export: a span of %g is %.3g steps of %g: more than 2^%d", span, steps, dt,
                 EXPORT_MAX_LOG2_STEPS);
        return -1;
    }
    plan->dt = dt;
    plan->softening = softening;
    plan->log2_steps = k;
    plan->time_begin = time_begin;
    plan->time_end = time_begin + ldexp(dt, k);
    int s = 1;
    while (2 * s <= snapshots && 2 * s <= (1 << (k < 30 ? k : 30))) s *= 2;
    plan->snapshots = snapshots > 0 ? s : 1;
    double reach = EXPORT_BOX_MARGIN * (rmax + vmax * ldexp(dt, k));
    plan->box = 1.0;
    while (plan->box < 2.0 * reach) plan->box *= 2.0;
    plan->units = units_physical(units) ? *units : units_from(1.0, 1.0);
    return 0;
}

void export_write_params(FILE *f, const ExportPlan *p, const char *ics_name, const char *what)
{
    const Units *u = &p->units;
    double span = p->time_end - p->time_begin;
    fprintf(f,
            "# SWIFT parameters for %s, written by `starburst export`.\n"
            "# Internal units are Starburst's model units, in which G = 1.\n"
            "InternalUnitSystem:\n"
            "  UnitMass_in_cgs:     %.17g  # one model mass, %.6g Msun\n"
            "  UnitLength_in_cgs:   %.17g  # one model length, %.6g kpc\n"
            "  UnitVelocity_in_cgs: %.17g  # one model speed, %.6g km/s\n"
            "  UnitCurrent_in_cgs:  1\n"
            "  UnitTemp_in_cgs:     1\n\n"
            "PhysicalConstants:\n"
            "  G: 1\n\n",
            what, u->msun * SNAPSHOT_G_PER_MSUN, u->msun, u->kpc * SNAPSHOT_CM_PER_KPC, u->kpc, u->kms * 1e5, u->kms);
    fprintf(f,
            "# A fixed step of dt = %.17g: the span is 2^%d steps, and dt_max sits just above dt\n"
            "# (exactly dt would let SWIFT halve the step).\n"
            "TimeIntegration:\n"
            "  time_begin: %.17g\n"
            "  time_end:   %.17g\n"
            "  dt_min:     %.17g\n"
            "  dt_max:     %.17g\n\n",
            p->dt, p->log2_steps, p->time_begin, p->time_end, p->dt * 1e-6, p->dt * (1 + 1e-6));
    fprintf(f,
            "# Starburst's accuracy: the adaptive criterion gave a median force error of 3.6e-5.\n"
            "# The softening is Plummer-equivalent; SWIFT's kernel is Wendland C2 (support 3 eps), so\n"
            "# forces within a few softening lengths differ from Starburst's Plummer forces (1.4 %% median).\n"
            "Gravity:\n"
            "  eta:                       1e4  # no step criterion: dt_max sets the step\n"
            "  MAC:                       adaptive\n"
            "  epsilon_fmm:               0.001\n"
            "  theta_cr:                  0.7\n"
            "  max_physical_DM_softening: %.17g\n\n",
            p->softening);
    fprintf(f,
            "Snapshots:\n"
            "  basename:   snapshot\n"
            "  time_first: %.17g\n"
            "  delta_time: %.17g  # %d outputs after the first, every 2^%d steps\n\n"
            "Statistics:\n"
            "  delta_time: %.17g\n\n",
            p->time_begin, span / p->snapshots, p->snapshots, p->log2_steps - (int)lround(log2(p->snapshots)),
            span / p->snapshots);
    fprintf(f,
            "# Not periodic: the box (side %g) holds every body for the whole run, its positions\n"
            "# shifted by half the box; a body leaving it would wrap silently.\n"
            "InitialConditions:\n"
            "  file_name: %s\n"
            "  periodic:  0\n",
            p->box, ics_name);
}

static void write_readme(FILE *f, const ExportPlan *p, long long n, const char *what)
{
    fprintf(f,
            "%s: %lld bodies, exported by `starburst export --swift` for SWIFT (www.swiftsim.com).\n\n"
            "Files: %s (initial conditions; ParticleIDs carry the body's index and its galaxy and\n"
            "component tags), params.yml (units with G = 1, softening %g, 2^%d steps of dt = %g from\n"
            "t = %g to %g, %d snapshots after the first, a non-periodic box of side %g).\n\n"
            "One machine (SWIFT configured with --disable-mpi; T threads):\n"
            "    swift --self-gravity --threads=T params.yml\n\n"
            "A cluster (SWIFT built with MPI; N ranks of T threads each, one or two ranks a node):\n"
            "    mpirun -np N swift_mpi --self-gravity --threads=T params.yml\n\n"
            "Back in Starburst: starburst --open 'snapshot_*.hdf5' (or --open DIR) plays the snapshots.\n"
            "Snapshots list bodies in SWIFT's cell order (Starburst sorts them by ID); their velocities\n"
            "run a step ahead of their positions, and Starburst reads them back in step.\n\n"
            "What the hand-off changes: SWIFT softens with a Wendland-C2 kernel at the Plummer-equivalent\n"
            "length, which is not Plummer's force. The orbit agrees until the galaxies meet; then close\n"
            "passages differ (a minor merger of 8,192 bodies, mass ratio 0.3: separation within 0.03 %%\n"
            "before the encounter, 0.8 %% through the pericentre, 1.5 %% by t = 51; the satellite's disk\n"
            "fraction beyond 6 lengths 0.079 in SWIFT against 0.115 in Starburst).\n",
            what, n, EXPORT_ICS, p->softening, p->log2_steps, p->dt, p->time_begin, p->time_end, p->snapshots,
            p->box);
}

int export_write_text(const char *dir, const char *name, const ExportPlan *p, long long n, const char *what,
                      char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "export: cannot write %.900s: %s", path, strerror(errno));
        return -1;
    }
    if (strcmp(name, "params.yml") == 0) export_write_params(f, p, EXPORT_ICS, what);
    else write_readme(f, p, n, what);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "export: cannot write %.900s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The largest distance from the origin and speed among b's bodies. */
void export_reach(const Bodies *b, double *rmax, double *vmax)
{
    *rmax = *vmax = 0;
    for (int i = 0; i < b->n; i++) {
        const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
        double r = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
        double s = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        if (r > *rmax) *rmax = r;
        if (s > *vmax) *vmax = s;
    }
}

int export_make_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        snprintf(err, errlen, "export: %s exists and is not a folder", dir);
        return -1;
    }
    if (mkdir(dir, 0777) != 0) {
        snprintf(err, errlen, "export: cannot make the folder %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int export_state(const char *dir, const Bodies *b, const SceneInfo *info, double dt, double eps, double t0,
                 double span, int snapshots, const char *what, char *err, size_t errlen)
{
    if (!(span > 0))
        span = info->pericentre_time > 0 ? 2.0 * info->pericentre_time : info->period > 0 ? 4.0 * info->period : 1000.0 * dt;
    double rmax, vmax;
    export_reach(b, &rmax, &vmax);
    ExportPlan p;
    int rc = export_make_dir(dir, err, errlen);
    if (rc == 0) rc = export_plan(dt, eps, t0, span, snapshots, rmax, vmax, &info->units, &p, err, errlen);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, EXPORT_ICS);
    if (rc == 0)
        rc = snapshot_write(path, b, &(SnapshotWriteDesc){.time = t0, .box = p.box, .shift = 0.5 * p.box, .units = &p.units},
                            err, errlen);
    if (rc == 0) rc = export_write_text(dir, "params.yml", &p, b->n, what, err, errlen);
    if (rc == 0) rc = export_write_text(dir, "README.txt", &p, b->n, what, err, errlen);
    if (rc == 0)
        snprintf(err, errlen, "%d bodies, 2^%d steps of %g to t = %g, box %g: %s/{%s,params.yml,README.txt}", b->n,
                 p.log2_steps, p.dt, p.time_end, p.box, dir, EXPORT_ICS);
    return rc;
}

