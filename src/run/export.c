/* `starburst export --swift DIR` (export.h). What SWIFT needs to run a Starburst encounter as
 * Starburst would, each a pitfall found by hand (shared notes on SWIFT):
 * - a fixed step: time_end - time_begin is 2^k steps of dt and dt_max is dt (1 + 1e-6), with a
 *   time-step criterion (eta) too loose to bite; otherwise SWIFT halves the step without a word;
 * - G = 1 in the model units, which become SWIFT's internal units, the initial conditions' U_t
 *   exactly U_L / U_V (else SWIFT converts every quantity); a run without a physical scale is
 *   written as 1 cm, 1 g and 1 cm/s, which the reader takes back as model units, never a scale;
 * - the step and softening also in the initial conditions' Parameters group, under SWIFT's names
 *   (params.yml's text, as SWIFT writes its parameters into its snapshots);
 * - the softening as SWIFT's Plummer-equivalent length (its kernel is Wendland C2, not Plummer:
 *   forces differ by 1.4 % at the median);
 * - the adaptive opening criterion at Starburst's accuracy (epsilon_fmm 0.001, theta_cr 0.7);
 * - a non-periodic box holding every body for the whole run, the bodies shifted by half the box:
 *   a body that leaves it wraps silently outside SWIFT's debug builds, so one found outside is
 *   refused here.
 * A folder holds one export: the initial conditions are written beside their name and renamed
 * after params.yml and README.txt are whole, so that an interruption leaves the folder as it was;
 * a previous export is replaced only whole (--force), SWIFT's old outputs with it. */
#include "run/export.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "util/atomic_file.h"
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
    const int most = 1 << (k < 12 ? k : 12);
    if (snapshots > 0 && (snapshots > most || (snapshots & (snapshots - 1)) != 0)) {
        if (snapshots & (snapshots - 1))
            snprintf(err, errlen, "export: --snapshots %d: outputs fall on whole steps of a span of 2^k steps: "
                     "give a power of two", snapshots);
        else
            snprintf(err, errlen, "export: --snapshots %d: the span is 2^%d steps of %g: at most %d snapshots "
                     "(or a longer --span)", snapshots, k, dt, most);
        return -1;
    }
    plan->snapshots = snapshots > 0 ? snapshots : EXPORT_SNAPSHOTS < most ? EXPORT_SNAPSHOTS : most;
    double reach = EXPORT_BOX_MARGIN * (rmax + vmax * ldexp(dt, k));
    plan->box = 1.0;
    while (plan->box < 2.0 * reach) plan->box *= 2.0;
    plan->units = units_physical(units) ? *units : (Units){0, 0, 0, 0};
    return 0;
}

/* The first line of params.yml: the mark of a folder that holds a Starburst export. */
#define EXPORT_MARK "# SWIFT parameters for "
#define EXPORT_MARK_END ", written by `starburst export`."

void export_write_params(FILE *f, const ExportPlan *p, const char *ics_name, const char *what)
{
    const Units *u = &p->units;
    double span = p->time_end - p->time_begin;
    fprintf(f, EXPORT_MARK "%s" EXPORT_MARK_END "\n", what);
    if (units_physical(u))
        fprintf(f,
                "# Internal units are Starburst's model units, in which G = 1.\n"
                "InternalUnitSystem:\n"
                "  UnitMass_in_cgs:     %.17g  # one model mass, %.6g Msun\n"
                "  UnitLength_in_cgs:   %.17g  # one model length, %.6g kpc\n"
                "  UnitVelocity_in_cgs: %.17g  # one model speed, %.6g km/s\n",
                u->msun * SNAPSHOT_G_PER_MSUN, u->msun, u->kpc * SNAPSHOT_CM_PER_KPC, u->kpc, u->kms * 1e5, u->kms);
    else
        fprintf(f, "# Internal units are Starburst's model units, in which G = 1. The run has no physical scale:\n"
                   "# its model units are written as 1 (cm, g, cm/s), which `starburst --open` reads back as\n"
                   "# model units.\n"
                   "InternalUnitSystem:\n"
                   "  UnitMass_in_cgs:     1  # one model mass\n"
                   "  UnitLength_in_cgs:   1  # one model length\n"
                   "  UnitVelocity_in_cgs: 1  # one model speed\n");
    fprintf(f,
            "  UnitCurrent_in_cgs:  1\n"
            "  UnitTemp_in_cgs:     1\n\n"
            "PhysicalConstants:\n"
            "  G: 1\n\n");
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
            "# Without cosmology SWIFT uses the physical softening; the comoving one is the same.\n"
            "Gravity:\n"
            "  eta:                       1e4  # no step criterion: dt_max sets the step\n"
            "  MAC:                       adaptive\n"
            "  epsilon_fmm:               0.001\n"
            "  theta_cr:                  0.7\n"
            "  comoving_DM_softening:     %.17g\n"
            "  max_physical_DM_softening: %.17g\n\n",
            p->softening, p->softening);
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

/* params.yml's text, in a new allocation (NULL when out of memory). */
static char *params_text(const ExportPlan *p, const char *what)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    export_write_params(f, p, EXPORT_ICS, what);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* A value in model units, and where the run has a scale, in physical units beside it:
 * "0.03 model times (0.252 Myr)". */
static const char *scaled(char *buf, size_t len, double v, const char *model, const Units *u, double factor,
                          const char *unit)
{
    if (units_physical(u)) snprintf(buf, len, "%.6g %s (%.4g %s)", v, model, v * factor, unit);
    else snprintf(buf, len, "%.6g %s", v, model);
    return buf;
}

static void write_readme(FILE *f, const ExportPlan *p, long long n, const char *what)
{
    const Units *u = &p->units;
    char scale[160], eps[96], dt[96], t0[96], t1[96], box[96];
    if (units_physical(u))
        snprintf(scale, sizeof scale, "one model length %.6g kpc, one model speed %.6g km/s", u->kpc, u->kms);
    else snprintf(scale, sizeof scale, "the run has no physical scale");
    fprintf(f,
            "%s: %lld bodies, exported by `starburst export --swift` for SWIFT (www.swiftsim.com).\n\n"
            "Files: %s (initial conditions; ParticleIDs carry the body's index and its galaxy and\n"
            "component tags), params.yml and this README.\n\n"
            "params.yml, in model units (G = 1; %s):\n"
            "  softening  %s, Plummer-equivalent\n"
            "  dt         %s: 2^%d steps\n"
            "  from t =   %s\n"
            "  to t =     %s\n"
            "  snapshots  %d after the first\n"
            "  box        %s a side, not periodic\n\n",
            what, n, EXPORT_ICS, scale, scaled(eps, sizeof eps, p->softening, "model lengths", u, u->kpc * 1e3, "pc"),
            scaled(dt, sizeof dt, p->dt, "model times", u, u->myr, "Myr"), p->log2_steps,
            scaled(t0, sizeof t0, p->time_begin, "model times", u, u->myr, "Myr"),
            scaled(t1, sizeof t1, p->time_end, "model times", u, u->myr, "Myr"), p->snapshots,
            scaled(box, sizeof box, p->box, "model lengths", u, u->kpc, "kpc"));
    fputs("One machine (SWIFT configured with --disable-mpi; T threads):\n"
          "    swift --self-gravity --threads=T params.yml\n\n"
          "A cluster (SWIFT built with MPI; N ranks of T threads each, one or two ranks a node):\n"
          "    mpirun -np N swift_mpi --self-gravity --threads=T params.yml\n\n"
          "Back in Starburst: starburst --open 'snapshot_*.hdf5' (or --open DIR) plays the snapshots.\n"
          "Snapshots list bodies in SWIFT's cell order (Starburst sorts them by ID). SWIFT's snapshot\n"
          "velocities are a full step ahead of its positions (v(t) + a(t) dt at t > 0, v0 + a0 dt/2\n"
          "at t = 0); starburst --open brings them back in step on reading.\n\n"
          "What the hand-off changes: SWIFT softens with a Wendland-C2 kernel at the Plummer-equivalent\n"
          "length, which is not Plummer's force. The orbit agrees until the galaxies meet; then close\n"
          "passages differ (a minor merger of 8,192 bodies, mass ratio 0.3: separation within 0.03 %\n"
          "before the encounter, 0.8 % through the pericentre, 1.5 % by t = 51; the satellite's disk\n"
          "fraction beyond 6 lengths 0.079 in SWIFT against 0.115 in Starburst).\n",
          f);
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

/* An export in the making: its folder, its plan, the initial conditions being written under a
 * temporary name, and what it found in the folder. */
struct Export {
    char dir[2048], ics[2064], ics_new[2080];
    bool made_dir, replaces;
    SnapshotWriter *w;
    ExportPlan plan;
    long long n;
    char *params;
    char what[512];
};

/* Whether name is what an export writes or what SWIFT writes beside it when run in the folder. */
static bool export_file(const char *name)
{
    static const char *const ours[] = {
        EXPORT_ICS, "params.yml", "README.txt", "snapshot_*.hdf5", "snapshot_*.xmf", "snapshot.xmf",
        "statistics.txt", "timesteps*.txt", "used_parameters.yml", "unused_parameters.yml", "*.tmp-??????",
        EXPORT_ICS ".new", EXPORT_ICS ".new.part", "dependency_graph*.csv", "task_level*.txt",
    };
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (fnmatch(ours[i], name, 0) == 0) return true;
    return false;
}

/* Whether dir/params.yml opens with the mark of an export. */
static bool has_mark(const char *dir)
{
    char path[4096], line[1024] = "";
    snprintf(path, sizeof path, "%s/params.yml", dir);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(line, sizeof line, f) && strncmp(line, EXPORT_MARK, strlen(EXPORT_MARK)) == 0 &&
              strstr(line, EXPORT_MARK_END);
    fclose(f);
    return ok;
}

/* The folder: made where missing; an empty one taken; a previous export's replaced with force,
 * else refused; one holding anything else refused. */
static int take_dir(Export *e, bool force, char *err, size_t errlen)
{
    struct stat st;
    if (stat(e->dir, &st) != 0) {
        if (mkdir(e->dir, 0777) != 0) {
            snprintf(err, errlen, "export: cannot make the folder %s: %s", e->dir, strerror(errno));
            return -1;
        }
        e->made_dir = true;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "export: %s exists and is not a folder", e->dir);
        return -1;
    }
    DIR *d = opendir(e->dir);
    if (!d) {
        snprintf(err, errlen, "export: cannot read the folder %s: %s", e->dir, strerror(errno));
        return -1;
    }
    int files = 0;
    char other[256] = "";
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        files++;
        if (!other[0] && !export_file(de->d_name)) snprintf(other, sizeof other, "%s", de->d_name);
    }
    closedir(d);
    if (files == 0) return 0;
    if (other[0] || !has_mark(e->dir)) {
        snprintf(err, errlen, "export: %s holds %s, not a Starburst export: choose a new or empty folder", e->dir,
                 other[0] ? other : "files but no params.yml of an export");
        return -1;
    }
    if (!force) {
        snprintf(err, errlen, "export: %s holds a previous export (%d files): --force replaces it", e->dir, files);
        return -1;
    }
    e->replaces = true;
    return 0;
}

Export *export_begin(const ExportDesc *d, char *err, size_t errlen)
{
    Export *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "export: out of memory");
        return NULL;
    }
    snprintf(e->dir, sizeof e->dir, "%.2000s", d->dir);
    snprintf(e->ics, sizeof e->ics, "%s/" EXPORT_ICS, e->dir);
    snprintf(e->ics_new, sizeof e->ics_new, "%s.new", e->ics);
    snprintf(e->what, sizeof e->what, "%s", d->what);
    e->n = d->n;
    if (export_plan(d->dt, d->softening, d->time_begin, d->span, d->snapshots, d->rmax, d->vmax, d->units, &e->plan,
                    err, errlen) != 0 ||
        take_dir(e, d->force, err, errlen) != 0) {
        free(e);
        return NULL;
    }
    e->params = params_text(&e->plan, e->what);
    const ExportPlan *p = &e->plan;
    if (e->params)
        e->w = snapshot_writer_create(e->ics_new, d->n,
                                      &(SnapshotWriteDesc){.time = p->time_begin, .box = p->box, .shift = 0.5 * p->box,
                                                           .units = &p->units, .parameters = e->params},
                                      err, errlen);
    else snprintf(err, errlen, "export: out of memory");
    if (!e->w) {
        char ignored[64];
        export_cancel(e, ignored, sizeof ignored);
        return NULL;
    }
    return e;
}

const ExportPlan *export_plan_of(const Export *e) { return &e->plan; }

int export_append(Export *e, const Bodies *chunk, char *err, size_t errlen)
{
    return snapshot_writer_append(e->w, chunk, err, errlen);
}

void export_cancel(Export *e, char *msg, size_t msglen)
{
    if (!e) return;
    bool had_part = e->w != NULL;
    if (e->w) snapshot_writer_abort(e->w);
    unlink(e->ics_new);
    if (e->made_dir && rmdir(e->dir) == 0)
        snprintf(msg, msglen, "removed the folder %s it had made", e->dir);
    else if (had_part) snprintf(msg, msglen, "removed %s.part; %s is as it was", e->ics_new, e->dir);
    else snprintf(msg, msglen, "removed %s; %s is as it was", e->ics_new, e->dir);
    free(e->params);
    free(e);
}

/* A text file of the export, written beside its name to be committed with the rest. */
static AtomicFile *text_file(const Export *e, const char *name, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", e->dir, name);
    AtomicFile *f = atomic_file_open(path, err, errlen);
    if (!f) return NULL;
    if (strcmp(name, "params.yml") == 0) {
        atomic_file_write(f, e->params, strlen(e->params));
    } else {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (m) {
            write_readme(m, &e->plan, e->n, e->what);
            if (fclose(m) != 0) {
                free(text);
                text = NULL;
            }
        }
        if (!text) {
            atomic_file_abort(f);
            snprintf(err, errlen, "export: out of memory for %.1000s", path);
            return NULL;
        }
        atomic_file_write(f, text, len);
        free(text);
    }
    return f;
}

/* Removes what SWIFT left of the export replaced: every file but the three just written. */
static void remove_old(const Export *e)
{
    DIR *d = opendir(e->dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (!export_file(n) || strcmp(n, EXPORT_ICS) == 0 || strcmp(n, "params.yml") == 0 ||
            strcmp(n, "README.txt") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", e->dir, n);
        unlink(path);
    }
    closedir(d);
}

int export_finish(Export *e, char *msg, size_t msglen)
{
    char err[1200];
    int rc = snapshot_writer_close(e->w, err, sizeof err);
    e->w = NULL;
    AtomicFile *files[2] = {NULL, NULL};
    if (rc == 0 && !(files[0] = text_file(e, "params.yml", err, sizeof err))) rc = -1;
    if (rc == 0 && !(files[1] = text_file(e, "README.txt", err, sizeof err))) rc = -1;
    /* The texts are whole on disk before the initial conditions take their name: a full disk
     * stops the export with the folder as it was. */
    if (rc == 0) {
        rc = atomic_file_commit_all(files, 2, err, sizeof err);
        files[0] = files[1] = NULL;
    }
    if (rc == 0) rc = atomic_file_replace(e->ics_new, e->ics, err, sizeof err);
    if (rc != 0) {
        atomic_file_abort(files[0]);
        atomic_file_abort(files[1]);
        char removed[2300];
        export_cancel(e, removed, sizeof removed);
        snprintf(msg, msglen, "%.1100s (%.1100s)", err, removed);
        return -1;
    }
    if (e->replaces) remove_old(e);
    const ExportPlan *p = &e->plan;
    snprintf(msg, msglen, "%lld bodies, 2^%d steps of %g to t = %g, box %g: %s/{%s,params.yml,README.txt}%s", e->n,
             p->log2_steps, p->dt, p->time_end, p->box, e->dir, EXPORT_ICS,
             e->replaces ? ", the previous export replaced" : "");
    free(e->params);
    free(e);
    return 0;
}

int export_state(const char *dir, const Bodies *b, const SceneInfo *info, double dt, double eps, double t0,
                 double span, int snapshots, const char *what, char *msg, size_t msglen)
{
    if (!(span > 0))
        span = info->pericentre_time > 0 ? 2.0 * info->pericentre_time : info->period > 0 ? 4.0 * info->period : 1000.0 * dt;
    ExportDesc d = {.dir = dir, .dt = dt, .softening = eps, .time_begin = t0, .span = span, .snapshots = snapshots,
                    .units = &info->units, .n = b->n, .what = what};
    export_reach(b, &d.rmax, &d.vmax);
    Export *e = export_begin(&d, msg, msglen);
    if (!e) return -1;
    if (export_append(e, b, msg, msglen) != 0) {
        char removed[2300], why[1024];
        snprintf(why, sizeof why, "%s", msg);
        export_cancel(e, removed, sizeof removed);
        snprintf(msg, msglen, "%.1000s (%.1200s)", why, removed);
        return -1;
    }
    return export_finish(e, msg, msglen);
}
