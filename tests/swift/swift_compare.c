/* The round trip's judge (tests/swift/roundtrip.sh). Three commands:
 *   swift_compare pericentre N        the model time of the first pericentre of the default
 *                                      collision at N bodies (the span the test asks SWIFT for)
 *   swift_compare compare DIR T_CHECK  reads DIR/ics.hdf5 (what `starburst export` wrote), runs it
 *                                      in Starburst (CPU, direct sum, the dt and softening of
 *                                      DIR/params.yml) to the time of every DIR/snapshot_*.hdf5
 *                                      that SWIFT wrote, and compares the galaxies' separation
 *                                      (centres of mass) and disk fractions beyond 6 model
 *                                      lengths up to T_CHECK.
 *   swift_compare continue DIR T_CHECK each DIR/snapshot_*.hdf5 whose next is at most T_CHECK,
 *                                      opened as `starburst --open` opens it and run on to the
 *                                      next: the separation within 0.03 % of SWIFT's (the codes
 *                                      agree so before the encounter; a run from velocities a
 *                                      step ahead misses by up to 0.13 % at 4,096 bodies).
 * Tolerances of compare: separation within 2 %; a disk's count beyond within 5 % and three times
 * the counting noise of the two counts (sqrt(a + b) for a and b bodies beyond: at 4,096 bodies a
 * disk holds some 330, a dozen beyond at the pericentre, where the two runs part and SWIFT's own
 * threads move a count by one or two from run to run: sqrt k of the larger count failed the row
 * past the pericentre in three runs of four). SWIFT's softening kernel is Wendland C2, not Plummer
 * (forces differ by 1.4 % at the median), which the tolerances absorb. Exit 0 when every row up
 * to T_CHECK agrees, 1 otherwise; the table goes to stdout either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "sim/sim.h"

#define BEYOND 6.0

typedef struct Measure {
    double separation, disk[2];
    int beyond[2]; /* disk bodies beyond BEYOND */
} Measure;

/* Separation of the galaxies' centres of mass (all their bodies: the two-body orbit's separation;
 * the centre of their stars alone, some 400 bodies at 4,096, wanders by a percent at pericentre)
 * and each disk's fraction beyond BEYOND of its galaxy's centre. */
static void measure(const Bodies *b, Measure *m)
{
    double c[2][3] = {{0}};
    for (int g = 0; g < 2; g++) {
        bodies_group_centre(b, g, c[g]);
        int all = 0;
        m->beyond[g] = 0;
        for (int i = 0; i < b->n; i++) {
            if (b->tag[i] != BODY_TAG(g, BODY_DISK)) continue;
            const float *x = b->pos + 4 * (size_t)i;
            double d2 = 0;
            for (int k = 0; k < 3; k++) d2 += (x[k] - c[g][k]) * (x[k] - c[g][k]);
            all++;
            m->beyond[g] += d2 > BEYOND * BEYOND;
        }
        m->disk[g] = all ? (double)m->beyond[g] / all : 0;
    }
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (c[0][k] - c[1][k]) * (c[0][k] - c[1][k]);
    m->separation = sqrt(d2);
}

/* A number after key in a params.yml. */
static int yml_number(const char *path, const char *key, double *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        char *k = strstr(line, key);
        if (k && sscanf(k + strlen(key), " %lf", out) == 1) {
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

static int pericentre(int n)
{
    Bodies b;
    SceneInfo info;
    char err[512];
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n}, &b, &info, err, sizeof err) != 0) {
        fprintf(stderr, "swift_compare: %s\n", err);
        return 1;
    }
    bodies_free(&b);
    printf("%.6f\n", info.pericentre_time);
    return 0;
}

static int compare(const char *dir, double t_check)
{
    char path[4096], err[1024];
    double dt_max, eps;
    snprintf(path, sizeof path, "%s/params.yml", dir);
    if (yml_number(path, "dt_max:", &dt_max) != 0 || yml_number(path, "max_physical_DM_softening:", &eps) != 0) {
        fprintf(stderr, "swift_compare: %s: no dt_max or softening\n", path);
        return 1;
    }
    float dt = (float)(dt_max / (1 + 1e-6));
    snprintf(path, sizeof path, "%s/ics.hdf5", dir);
    SnapshotSeries *ics = series_open(path, err, sizeof err);
    snprintf(path, sizeof path, "%s/snapshot_*.hdf5", dir);
    SnapshotSeries *snaps = ics ? series_open(path, err, sizeof err) : NULL;
    if (!snaps) {
        fprintf(stderr, "swift_compare: %s\n", err);
        series_close(ics);
        return 1;
    }
    Units u = series_units(ics);
    series_set_units(snaps, &u);
    Bodies b;
    if (series_load(ics, 0, &b, NULL, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "swift_compare: %s\n", err);
        return 1;
    }
    Sim *sim = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT}, &b, err, sizeof err);
    if (!sim) {
        fprintf(stderr, "swift_compare: %s\n", err);
        return 1;
    }
    SimParams p = {.dt = dt, .softening = (float)eps, .damping = 1.0f};
    printf("%d bodies, dt %g, softening %g (SWIFT: Wendland C2, Plummer-equivalent)\n", b.n, dt, eps);
    printf("%8s %9s %9s %7s | %7s %7s %7s | %7s %7s %7s\n", "t", "sep SWIFT", "sep SB", "diff", "diskA S", "diskA SB",
           "diff", "diskB S", "diskB SB", "diff");
    long long step = 0;
    double t0 = series_time(ics, 0);
    int bad = 0, rows = 0;
    for (int i = 0; i < series_count(snaps); i++) {
        double t = series_time(snaps, i);
        long long target = llround((t - t0) / dt);
        if (target > step) sim_advance(sim, &p, (int)(target - step));
        step = target > step ? target : step;
        Bodies s, own;
        if (series_load(snaps, i, &s, NULL, NULL, NULL, err, sizeof err) != 0 || bodies_alloc(&own, b.n) != 0) {
            fprintf(stderr, "swift_compare: %s\n", err);
            return 1;
        }
        sim_read(sim, &own);
        Measure ms, mo;
        if (s.n != b.n) {
            fprintf(stderr, "swift_compare: %s: %d bodies, not %d\n", series_path(snaps, i), s.n, b.n);
            return 1;
        }
        measure(&s, &ms);
        measure(&own, &mo);
        double ds = fabs(ms.separation - mo.separation) / mo.separation, dd[2];
        bool ok = ds <= 0.02;
        for (int g = 0; g < 2; g++) {
            /* 5 % of the count, and three times the noise of the difference of two counts. */
            int k = ms.beyond[g] > mo.beyond[g] ? ms.beyond[g] : mo.beyond[g];
            dd[g] = fabs(ms.disk[g] - mo.disk[g]);
            ok = ok && abs(ms.beyond[g] - mo.beyond[g]) <= 0.05 * k + 3.0 * sqrt((double)(ms.beyond[g] + mo.beyond[g]));
        }
        bool checked = t <= t_check * (1 + 1e-9);
        printf("%8.3f %9.4f %9.4f %6.2f%% | %7.4f %7.4f %7.4f | %7.4f %7.4f %7.4f %s\n", t, ms.separation,
               mo.separation, 100 * ds, ms.disk[0], mo.disk[0], dd[0], ms.disk[1], mo.disk[1], dd[1],
               !checked ? "(not checked)" : ok ? "ok" : "DIFFERS");
        if (checked) {
            rows++;
            bad += !ok;
        }
        bodies_free(&s);
        bodies_free(&own);
    }
    sim_destroy(sim);
    bodies_free(&b);
    series_close(ics);
    series_close(snaps);
    if (rows < 4) {
        fprintf(stderr, "swift_compare: only %d snapshots up to t = %g\n", rows, t_check);
        return 1;
    }
    printf("%d of %d rows up to t = %g agree\n", rows - bad, rows, t_check);
    return bad ? 1 : 0;
}


/* The galaxies' separation after a continuation of `from` (dt, softening) by steps steps, on a
 * CPU direct sum. */
static double continued(Sim *sim, const SimParams *p, int steps, Bodies *own)
{
    sim_advance(sim, p, steps);
    sim_read(sim, own);
    Measure m;
    measure(own, &m);
    return m.separation;
}

static int fail(const char *err)
{
    fprintf(stderr, "swift_compare: %s\n", err);
    return 1;
}

/* Each snapshot k of SWIFT's up to T_CHECK opened as `starburst --open` opens it (the run's dt
 * and softening from the file, its velocities read back in step), run on to the time of
 * snapshot k+1 and compared with it; beside it, the same from the velocities as SWIFT wrote
 * them. The separation must agree within CONTINUE_TOLERANCE. */
#define CONTINUE_TOLERANCE 3e-4
static int continuation(const char *dir, double t_check)
{
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/snapshot_*.hdf5", dir);
    SnapshotSeries *snaps = series_open(path, err, sizeof err);
    if (!snaps) return fail(err);
    printf("%8s %8s %9s | %9s %7s | %9s %7s\n", "from t", "to t", "sep SWIFT", "in step", "diff", "as read", "diff");
    int bad = 0, rows = 0;
    for (int i = 0; i + 1 < series_count(snaps) && series_time(snaps, i + 1) <= t_check * (1 + 1e-9); i++) {
        RunDesc d = {.source = {.force = SIM_FORCE_DIRECT}, .open_path = series_path(snaps, i),
                     .backend = SIM_BACKEND_CPU};
        Run *r = run_make(&d, err, sizeof err);
        if (!r || run_reset(r, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, err, sizeof err) != 0) return fail(err);
        const SimParams p = {.dt = run_info(r)->saved.params.dt, .softening = run_info(r)->saved.params.softening,
                             .damping = 1.0f};
        const int steps = (int)llround((series_time(snaps, i + 1) - series_time(snaps, i)) / p.dt);
        Bodies next, own, raw;
        if (series_load(snaps, i + 1, &next, NULL, NULL, NULL, err, sizeof err) != 0 ||
            series_load(snaps, i, &raw, NULL, NULL, NULL, err, sizeof err) != 0 || bodies_alloc(&own, next.n) != 0)
            return fail(err);
        Measure mn;
        measure(&next, &mn);
        if (run_advance(r, &p, steps) != 0) return fail("the run stopped");
        sim_read(run_sim(r), &own);
        Measure mo;
        measure(&own, &mo);
        Sim *sim = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT}, &raw, err, sizeof err);
        if (!sim) return fail(err);
        const double as_read = continued(sim, &p, steps, &own);
        const double e = fabs(mo.separation - mn.separation) / mn.separation,
                     e_raw = fabs(as_read - mn.separation) / mn.separation;
        rows++;
        bad += !(e <= CONTINUE_TOLERANCE);
        printf("%8.3f %8.3f %9.4f | %9.4f %6.3f%% | %9.4f %6.3f%% %s\n", series_time(snaps, i),
               series_time(snaps, i + 1), mn.separation, mo.separation, 100 * e, as_read, 100 * e_raw,
               e <= CONTINUE_TOLERANCE ? "ok" : "DIFFERS");
        sim_destroy(sim);
        run_destroy(r);
        bodies_free(&next);
        bodies_free(&own);
        bodies_free(&raw);
    }
    series_close(snaps);
    if (rows < 4) {
        fprintf(stderr, "swift_compare: only %d continuations up to t = %g\n", rows, t_check);
        return 1;
    }
    printf("%d of %d continuations up to t = %g reach SWIFT's next snapshot within %g%% in separation\n", rows - bad,
           rows, t_check, 100 * CONTINUE_TOLERANCE);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a row as it comes: SWIFT's comparison takes minutes */
    if (argc == 3 && strcmp(argv[1], "pericentre") == 0) return pericentre(atoi(argv[2]));
    if (argc == 4 && strcmp(argv[1], "compare") == 0) return compare(argv[2], atof(argv[3]));
    if (argc == 4 && strcmp(argv[1], "continue") == 0) return continuation(argv[2], atof(argv[3]));
    fprintf(stderr, "usage: swift_compare pericentre N | compare DIR T_CHECK | continue DIR T_CHECK\n");
    return 2;
}
