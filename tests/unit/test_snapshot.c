/* HDF5 snapshots and series (scene/snapshot.h), and the SWIFT hand-off's own side of the pitfalls
 * found by hand (run/export.h): what is written reads back the same, in model units converted
 * through the file's units; bodies come back in ID order whatever order the file holds them in;
 * damaged files are refused with one line; a series sorts by time and reports progress while it
 * reads; the plan runs 2^k whole steps with dt_max just above dt and a box that holds every body;
 * a body outside the box is refused; a streamed scene is the built one; a series of TIPSY saves
 * runs at the dt and softening saved beside it, a series without them at none. */
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include "test_skip.h"

#include "run/export.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "scene/tipsy.h"

static int make_dir(void **state)
{
    const char *base = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/starburst-snapshot-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int remove_dir(void **state)
{
    char *dir = *state;
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char p[4200];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
    return 0;
}

static void collision(int n, Bodies *b, SceneInfo *info)
{
    char err[512] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n}, b, info, err, sizeof err), 0);
}

static void one_line(const char *err, const char *must_hold)
{
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    if (must_hold && !strstr(err, must_hold)) fail_msg("'%s' does not say '%s'", err, must_hold);
}

/* What is written reads back: positions (the half-box shift taken off again), speeds, masses and
 * tags, in the order written, time and box in model units. */
static void test_write_read_round_trip(void **state)
{
    Bodies b;
    SceneInfo info;
    collision(512, &b, &info);
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/ics.hdf5", (char *)*state);
    assert_int_equal(
        snapshot_write(path, &b, &(SnapshotWriteDesc){.time = 2.5, .box = 256, .shift = 128, .units = &info.units},
                       err, sizeof err),
        0);
    assert_true(snapshot_hdf5_is(path));
    Bodies r;
    SnapshotInfo si;
    uint8_t *types = malloc((size_t)b.n);
    assert_int_equal(snapshot_hdf5_read(path, &(SnapshotReadDesc){.to = &info.units, .types = types}, &r, &si, err,
                                        sizeof err),
                     0);
    assert_int_equal(r.n, b.n);
    assert_true(fabs(si.time - 2.5) < 1e-9);
    assert_true(fabs(si.box - 256) < 1e-6);
    for (int i = 0; i < b.n; i++) {
        for (int k = 0; k < 4; k++) {
            assert_true(fabsf(r.pos[4 * i + k] - b.pos[4 * i + k]) <= 1e-5f * (1 + fabsf(b.pos[4 * i + k])));
            assert_true(fabsf(r.vel[4 * i + k] - b.vel[4 * i + k]) <= 1e-6f * (1 + fabsf(b.vel[4 * i + k])));
        }
        assert_int_equal(r.tag[i], b.tag[i]);
        assert_int_equal(types[i], 1);
    }
    free(types);
    bodies_free(&r);
    bodies_free(&b);
}

/* Written in the Milky-Way units, read into units of 1 kpc and 1 km/s: every quantity scales by
 * its unit's ratio. */
static void test_units_conversion(void **state)
{
    Bodies b;
    SceneInfo info;
    collision(64, &b, &info);
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/mw.hdf5", (char *)*state);
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.time = 10, .units = &info.units}, err, sizeof err),
                     0);
    Units kpc = units_from(1.0, 1.0);
    Bodies r;
    SnapshotInfo si;
    assert_int_equal(snapshot_hdf5_read(path, &(SnapshotReadDesc){.to = &kpc}, &r, &si, err, sizeof err), 0);
    const Units *u = &info.units;
    assert_true(fabs(si.time - 10 * u->myr / kpc.myr) < 1e-6 * si.time);
    assert_true(fabs(si.units.length_cm - u->kpc * SNAPSHOT_CM_PER_KPC) < 1e-9 * si.units.length_cm);
    for (int i = 0; i < b.n; i++) {
        assert_true(fabs(r.pos[4 * i] - b.pos[4 * i] * u->kpc) <= 1e-5 * (1 + fabs(r.pos[4 * i])));
        assert_true(fabs(r.vel[4 * i + 1] - b.vel[4 * i + 1] * u->kms) <= 1e-5 * (1 + fabs(r.vel[4 * i + 1])));
        assert_true(fabs(r.pos[4 * i + 3] - b.pos[4 * i + 3] * u->msun / kpc.msun) <= 1e-5 * r.pos[4 * i + 3]);
    }
    bodies_free(&r);
    /* Without units to go to, a series keeps the file's length and speed: the model units return. */
    SnapshotSeries *s = series_open(path, err, sizeof err);
    assert_non_null(s);
    Units back = series_units(s);
    assert_true(fabs(back.kpc - u->kpc) < 1e-9 * u->kpc && fabs(back.kms - u->kms) < 1e-9 * u->kms);
    assert_true(fabs(series_time(s, 0) - 10) < 1e-6);
    series_close(s);
    bodies_free(&b);
}

static hid_t put_dataset(hid_t g, const char *name, hid_t type, int rows, int width, const void *data)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)width};
    hid_t sp = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL);
    hid_t d = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, type == H5T_IEEE_F64LE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_ULLONG, H5S_ALL, H5S_ALL,
                         H5P_DEFAULT, data) >= 0);
    H5Sclose(sp);
    H5Dclose(d);
    return 0;
}

static void put_counts(hid_t h, const char *name, const long long *v)
{
    hsize_t six = 6;
    hid_t sp = H5Screate_simple(1, &six, NULL);
    hid_t a = H5Acreate2(h, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, v);
    H5Aclose(a);
    H5Sclose(sp);
}

/* A GADGET-style file by hand: types 1 and 4 (the stars' mass in the MassTable), IDs in a
 * scrambled order as SWIFT's cells leave them; skip names a dataset to leave out. */
static void write_scrambled(const char *path, int n1, int n4, const char *skip)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    long long counts[6] = {0, n1, 0, 0, n4, 0};
    put_counts(h, "NumPart_ThisFile", counts);
    double table[6] = {0, 0, 0, 0, 0.5, 0};
    hsize_t six = 6;
    hid_t sp = H5Screate_simple(1, &six, NULL);
    hid_t a = H5Acreate2(h, "MassTable", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, table);
    H5Aclose(a);
    H5Sclose(sp);
    H5Gclose(h);
    int counts_of[2] = {n1, n4}, types[2] = {1, 4};
    for (int t = 0; t < 2; t++) {
        int n = counts_of[t];
        char name[16];
        snprintf(name, sizeof name, "PartType%d", types[t]);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        double *x = malloc(sizeof(double) * 3 * (size_t)n), *m = malloc(sizeof(double) * (size_t)n);
        unsigned long long *id = malloc(sizeof *id * (size_t)n);
        for (int i = 0; i < n; i++) {
            /* IDs of type 1 are odd, of type 4 even, each set reversed: sorted, they interleave. */
            unsigned long long v = t == 0 ? 2ULL * (n - 1 - i) + 1 : 2ULL * (n - 1 - i) + 2;
            id[i] = v * 65599ULL + (1ULL << 40); /* several bytes differ: every pass of the sort runs */
            for (int k = 0; k < 3; k++) x[3 * i + k] = (double)v + 0.25 * k;
            m[i] = 1.0;
        }
        if (!skip || strcmp(skip, "Coordinates")) put_dataset(g, "Coordinates", H5T_IEEE_F64LE, n, 3, x);
        if (!skip || strcmp(skip, "Velocities")) put_dataset(g, "Velocities", H5T_IEEE_F64LE, n, 3, x);
        if (t == 0) put_dataset(g, "Masses", H5T_IEEE_F64LE, n, 1, m);
        if (!skip || strcmp(skip, "ParticleIDs")) put_dataset(g, "ParticleIDs", H5T_STD_U64LE, n, 1, id);
        free(x);
        free(m);
        free(id);
        H5Gclose(g);
    }
    H5Fclose(f);
}

/* Sorted by ID: the interleaved IDs come back 1, 2, 3, ... with their positions, types and tags. */
static void test_sorted_by_id(void **state)
{
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/scrambled.hdf5", (char *)*state);
    write_scrambled(path, 50, 50, NULL);
    Bodies r;
    uint8_t types[100];
    assert_int_equal(snapshot_hdf5_read(path, &(SnapshotReadDesc){.types = types, .chunk = 7}, &r, NULL, err, sizeof err),
                     0);
    assert_int_equal(r.n, 100);
    for (int i = 0; i < 100; i++) {
        assert_true(fabsf(r.pos[4 * i] - (float)(i + 1)) < 1e-6f);
        assert_true(fabsf(r.pos[4 * i + 2] - (float)(i + 1.5)) < 1e-6f);
        int type = i % 2 == 0 ? 1 : 4;
        assert_int_equal(types[i], type);
        assert_int_equal(r.tag[i], snapshot_type_tag(type));
        assert_true(fabsf(r.pos[4 * i + 3] - (type == 1 ? 1.0f : 0.5f)) < 1e-6f);
    }
    bodies_free(&r);
}

/* Damaged files: one line each, naming what is wrong. */
static void test_bad_files(void **state)
{
    const char *dir = *state;
    char path[4200], err[512];
    Bodies r;
    const char *missing[] = {"Coordinates", "Velocities", "ParticleIDs"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/missing.hdf5", dir);
        write_scrambled(path, 10, 10, missing[k]);
        err[0] = '\0';
        assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
        char want[64];
        snprintf(want, sizeof want, "has no %s", missing[k]);
        one_line(err, want);
        assert_null(r.pos);
    }
    /* Truncated: a good file cut to half its size. */
    Bodies b;
    SceneInfo info;
    collision(4096, &b, &info);
    snprintf(path, sizeof path, "%s/cut.hdf5", dir);
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.box = 0}, err, sizeof err), 0);
    bodies_free(&b);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    err[0] = '\0';
    assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
    one_line(err, "cut.hdf5");
    /* Not a snapshot at all. */
    snprintf(path, sizeof path, "%s/text.hdf5", dir);
    FILE *f = fopen(path, "w");
    fputs("not hdf5\n", f);
    fclose(f);
    err[0] = '\0';
    assert_null(series_open(path, err, sizeof err));
    one_line(err, "neither an HDF5 snapshot nor a TIPSY file");
    err[0] = '\0';
    assert_null(series_open("/nonexistent/snap_*.hdf5", err, sizeof err));
    one_line(err, "holds no HDF5 or TIPSY snapshot");
    /* An HDF5 file without a Header. */
    snprintf(path, sizeof path, "%s/empty.hdf5", dir);
    H5Fclose(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    err[0] = '\0';
    assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
    one_line(err, "no Header group");
}

typedef struct Progress {
    long long last, total;
    int calls;
    bool rising;
} Progress;

static void on_progress(void *user, long long done, long long total)
{
    Progress *p = user;
    p->rising = p->rising && done > p->last;
    p->last = done;
    p->total = total;
    p->calls++;
}

/* A folder of snapshots written out of order opens sorted by time; a glob picks its files; a load
 * reports progress, rising to the total. */
static void test_series(void **state)
{
    const char *dir = *state;
    Bodies b;
    SceneInfo info;
    collision(3000, &b, &info);
    double times[3] = {2, 0, 1};
    char path[4200], err[512] = "";
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/snap_%d.hdf5", dir, i);
        assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.time = times[i], .units = &info.units}, err,
                                        sizeof err),
                         0);
    }
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("not a snapshot\n", f);
    fclose(f);
    SnapshotSeries *s = series_open(dir, err, sizeof err);
    assert_non_null(s);
    series_set_units(s, &info.units);
    assert_int_equal(series_count(s), 3);
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(series_time(s, i) - i) < 1e-9);
        assert_int_equal(series_bodies(s, i), 3000);
    }
    assert_non_null(strstr(series_path(s, 0), "snap_1.hdf5"));
    Progress p = {.rising = true};
    Bodies r;
    uint8_t *types = NULL;
    assert_int_equal(series_load(s, 2, &r, &types, on_progress, &p, err, sizeof err), 0);
    assert_int_equal(r.n, 3000);
    assert_non_null(types);
    assert_true(p.calls >= 1 && p.rising);
    assert_int_equal(p.last, 3000);
    assert_int_equal(p.total, 3000);
    bodies_free(&r);
    assert_int_equal(series_load(s, 3, &r, NULL, NULL, NULL, err, sizeof err), -1);
    one_line(err, "no snapshot 3");
    free(types);
    series_close(s);
    snprintf(path, sizeof path, "%s/snap_[02].hdf5", dir);
    s = series_open(path, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(series_count(s), 2);
    series_close(s);
    bodies_free(&b);

    /* Chunked reads: progress once a chunk. */
    snprintf(path, sizeof path, "%s/snap_0.hdf5", dir);
    p = (Progress){.rising = true};
    assert_int_equal(snapshot_hdf5_read(path, &(SnapshotReadDesc){.progress = on_progress, .user = &p, .chunk = 1000}, &r,
                                        NULL, err, sizeof err),
                     0);
    assert_int_equal(p.calls, 3);
    assert_true(p.rising && p.last == 3000);
    bodies_free(&r);
}

/* Three saves of a run at dt 0.0123 and softening 0.0456 (not the defaults), 10 steps apart,
 * opened as a series: the settings beside the first are read back, and the steps between the
 * snapshots are counted at that dt. A TIPSY file without them has none, and says so. */
static void test_tipsy_series_settings(void **state)
{
    const char *dir = *state;
    char path[4200], err[512] = "";
    Bodies b;
    SceneInfo info;
    collision(256, &b, &info);
    const float dt = 0.0123f, softening = 0.0456f;
    for (int k = 0; k < 3; k++) {
        const SavedRun run = {.params = {.dt = dt, .softening = softening, .damping = 1, .theta = 0.4f},
                              .steps_per_frame = 1,
                              .step = 10 * k,
                              .time = 10 * k * (double)dt,
                              .units = units_from(1.5, 200)};
        snprintf(path, sizeof path, "%s/run-%d.tipsy", dir, k);
        assert_int_equal(state_save(path, &b, &run, err, sizeof err), 0);
    }
    snprintf(path, sizeof path, "%s/run-*.tipsy", dir);
    SnapshotSeries *s = series_open(path, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(series_count(s), 3);
    assert_true(series_dt(s) == 0 && series_softening(s) == 0); /* the TIPSY headers give neither */
    assert_int_equal(series_step(s, 2), 2);

    SavedRun saved;
    if (state_read_settings(series_path(s, 0), &saved, err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(saved.params.dt, dt, 0);
    assert_float_equal(saved.params.softening, softening, 0);
    assert_float_equal(saved.units.kpc, 1.5, 1e-12);
    assert_float_equal(saved.units.kms, 200, 1e-12);
    series_set_settings(s, saved.params.dt, saved.params.softening);
    assert_float_equal(series_dt(s), dt, 0);
    assert_float_equal(series_softening(s), softening, 0);
    for (int k = 0; k < 3; k++) assert_int_equal(series_step(s, k), 10 * k);
    series_close(s);

    /* A TIPSY file alone: no settings (1), nothing made up. */
    snprintf(path, sizeof path, "%s/alone.tipsy", dir);
    assert_int_equal(tipsy_write(path, &b, 0.5, err, sizeof err), 0);
    saved.params.dt = 1;
    assert_int_equal(state_read_settings(path, &saved, err, sizeof err), 1);
    assert_true(saved.params.dt == 0 && saved.params.softening == 0);
    s = series_open(path, err, sizeof err);
    assert_non_null(s);
    assert_true(series_dt(s) == 0 && series_softening(s) == 0);
    series_close(s);

    /* An ini that does not read: -1 with one line naming it. */
    snprintf(path, sizeof path, "%s/alone.tipsy.ini", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[run]\ndt = fast\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/alone.tipsy", dir);
    assert_int_equal(state_read_settings(path, &saved, err, sizeof err), -1);
    one_line(err, "alone.tipsy.ini");
    bodies_free(&b);
}

/* SWIFT halves the step unless the span is 2^k steps and dt_max sits just above dt; the box
 * must hold every body for the whole run. */
static void test_plan_pitfalls(void **state)
{
    (void)state;
    ExportPlan p;
    char err[256];
    Units mw = scene_units(SCENE_COLLISION);
    double dt = 0.03f;
    assert_int_equal(export_plan(dt, 0.08, 1.5, 30.1, 16, 28.0, 2.5, &mw, &p, err, sizeof err), 0);
    double steps = (p.time_end - p.time_begin) / p.dt;
    assert_true(fabs(steps - ldexp(1.0, p.log2_steps)) < 1e-6);
    assert_true(steps >= 30.1 / dt && steps < 2 * 30.1 / dt);
    assert_true(p.box >= 2 * (28.0 + 2.5 * (p.time_end - p.time_begin)));
    assert_int_equal(p.snapshots, 16);
    FILE *f = tmpfile();
    export_write_params(f, &p, "ics.hdf5", "a test");
    char *text = written_to(f);
    fclose(f);
    double dt_max = 0, t0 = -1, t1 = 0, delta = 0, eps = 0, g = 0;
    int periodic = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        sscanf(line, " dt_max: %lf", &dt_max);
        sscanf(line, " time_begin: %lf", &t0);
        sscanf(line, " time_end: %lf", &t1);
        sscanf(line, " delta_time: %lf", &delta);
        sscanf(line, " max_physical_DM_softening: %lf", &eps);
        sscanf(line, " G: %lf", &g);
        sscanf(line, " periodic: %d", &periodic);
    }
    free(text);
    assert_true(dt_max > dt && dt_max <= dt * (1 + 2e-6));
    assert_true(t0 == 1.5 && fabs((t1 - t0) / dt - ldexp(1.0, p.log2_steps)) < 1e-9);
    double per = delta / dt;
    assert_true(fabs(per - round(per)) < 1e-9); /* outputs fall on whole steps */
    assert_true(eps == 0.08 && g == 1 && periodic == 0);
    /* Snapshots never outnumber the steps: the default count is cut to them, a count asked for
     * beyond them or not a power of two is refused, never changed; bad input is refused. */
    assert_int_equal(export_plan(1.0, 0.1, 0, 3.0, 0, 1, 1, NULL, &p, err, sizeof err), 0);
    assert_int_equal(p.log2_steps, 2);
    assert_int_equal(p.snapshots, 4);
    assert_int_equal(export_plan(1.0, 0.1, 0, 3.0, 64, 1, 1, NULL, &p, err, sizeof err), -1);
    one_line(err, "--snapshots 64: the span is 2^2 steps");
    assert_int_equal(export_plan(1.0, 0.1, 0, 3000.0, 3, 1, 1, NULL, &p, err, sizeof err), -1);
    one_line(err, "power of two");
    assert_int_equal(export_plan(1.0, 0.1, 0, 3000.0, 8, 1, 1, NULL, &p, err, sizeof err), 0);
    assert_int_equal(p.snapshots, 8);
    assert_int_equal(export_plan(0, 0.1, 0, 3.0, 4, 1, 1, NULL, &p, err, sizeof err), -1);
    one_line(err, "dt");
}

/* A body the box does not hold is refused, not wrapped. */
static void test_body_outside_box_refused(void **state)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, 3), 0);
    b.pos[4 * 2 + 0] = 70.0f;
    for (int i = 0; i < 3; i++) b.pos[4 * i + 3] = 1.0f;
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/outside.hdf5", (char *)*state);
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.box = 128, .shift = 64}, err, sizeof err), -1);
    one_line(err, "outside the box");
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(count_entries(*state), 0); /* no partial file left */
    b.pos[4 * 2 + 0] = 63.0f;
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.box = 128, .shift = 64}, err, sizeof err), 0);
    bodies_free(&b);
}

typedef struct Collect {
    Bodies all;
    int filled, largest;
} Collect;

static int collect(void *user, const Bodies *chunk, char *err, size_t errlen)
{
    Collect *c = user;
    assert_true(c->filled + chunk->n <= c->all.n);
    memcpy(c->all.pos + 4 * (size_t)c->filled, chunk->pos, 16 * (size_t)chunk->n);
    memcpy(c->all.vel + 4 * (size_t)c->filled, chunk->vel, 16 * (size_t)chunk->n);
    memcpy(c->all.tag + c->filled, chunk->tag, (size_t)chunk->n);
    c->filled += chunk->n;
    if (chunk->n > c->largest) c->largest = chunk->n;
    return 0;
}

/* Built in pieces, the encounter is the one built whole (up to the last recentring). */
static void test_stream_is_build(void **state)
{
    (void)state;
    const int n = 5000;
    Bodies b;
    SceneInfo info, sinfo;
    SceneDesc d = {.kind = SCENE_COLLISION, .n = n, .seed = 7};
    char err[256];
    assert_int_equal(scene_build(&d, &b, &info, err, sizeof err), 0);
    Collect c = {0};
    assert_int_equal(bodies_alloc(&c.all, n), 0);
    assert_int_equal(scene_stream(&d, n, 700, collect, &c, &sinfo, err, sizeof err), 0);
    assert_int_equal(c.filled, n);
    assert_true(c.largest <= 700);
    assert_true(sinfo.dt == info.dt && sinfo.pericentre_time == info.pericentre_time);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++) {
            worst = fmax(worst, fabs(c.all.pos[4 * i + k] - b.pos[4 * i + k]));
            worst = fmax(worst, fabs(c.all.vel[4 * i + k] - b.vel[4 * i + k]));
        }
        assert_int_equal(c.all.tag[i], b.tag[i]);
    }
    assert_true(worst < 1e-4);
    bodies_free(&c.all);
    bodies_free(&b);
    d.kind = SCENE_PLUMMER;
    assert_int_equal(scene_stream(&d, n, 700, collect, &c, &sinfo, err, sizeof err), -1);
    one_line(err, "plummer");
}

/* Stops a stream at its first call, counting the bodies it was handed. */
static int stop_at_once(void *user, const Bodies *chunk, char *err, size_t errlen)
{
    *(long long *)user += chunk->n;
    snprintf(err, errlen, "interrupted");
    return -1;
}

/* A stream can be stopped while a galaxy is measured, before the first of its bodies is handed:
 * a signal during an export of 20 million bodies was heeded only after that pass, 18 s. */
static void test_stream_stops_while_measuring(void **state)
{
    (void)state;
    long long handed = 0;
    SceneInfo info;
    char err[256] = "";
    assert_int_equal(scene_stream(&(SceneDesc){.kind = SCENE_COLLISION, .seed = 3}, 50000, 1000, stop_at_once, &handed,
                                  &info, err, sizeof err),
                     -1);
    assert_string_equal(err, "interrupted");
    if (handed != 0) fail_msg("%lld bodies were handed before the stream could be stopped", handed);
}

/* A string attribute of SWIFT's parameters as a number; NAN where it is missing. */
static double parameter(hid_t f, const char *name)
{
    hid_t g = H5Gopen2(f, "Parameters", H5P_DEFAULT);
    assert_true(g >= 0);
    double v = NAN;
    if (H5Aexists(g, name) > 0) {
        hid_t a = H5Aopen(g, name, H5P_DEFAULT), type = H5Aget_type(a);
        assert_int_equal(H5Tget_class(type), H5T_STRING);
        char text[128] = "";
        assert_true(H5Tget_size(type) < sizeof text);
        assert_true(H5Aread(a, type, text) >= 0);
        v = strtod(text, NULL);
        H5Tclose(type);
        H5Aclose(a);
    }
    H5Gclose(g);
    return v;
}

/* A value of params.yml ("  key: value"), NAN where it is missing. */
static double yml_value(const char *dir, const char *key)
{
    char path[4200], line[512], want[128];
    snprintf(path, sizeof path, "%s/params.yml", dir);
    snprintf(want, sizeof want, "%s:", key);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    double v = NAN;
    while (fgets(line, sizeof line, f)) {
        char *k = line + strspn(line, " ");
        if (strncmp(k, want, strlen(want)) == 0) v = strtod(k + strlen(want), NULL);
    }
    fclose(f);
    return v;
}

static double unit_attr(hid_t f, const char *name)
{
    hid_t g = H5Gopen2(f, "Units", H5P_DEFAULT), a = H5Aopen(g, name, H5P_DEFAULT);
    double v = 0;
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
    H5Aclose(a);
    H5Gclose(g);
    return v;
}

/* An export opens back as the bodies it wrote, in the units it wrote: a scene without a physical
 * scale in model units, a scaled one in its own scale. The file's time unit is U_L / U_V exactly,
 * as SWIFT derives it from params.yml; its Parameters carry params.yml's step and softening under
 * SWIFT's names, and the series reads them back. */
static void export_opens_back(const char *dir, SceneKind kind)
{
    Bodies b, r;
    SceneInfo info;
    char err[1200] = "", path[4200];
    assert_int_equal(scene_build(&(SceneDesc){.kind = kind, .n = 300, .seed = 3}, &b, &info, err, sizeof err), 0);
    if (export_state(dir, &b, &info, info.dt, info.softening, 0, 0, 0, "a test", err, sizeof err) != 0)
        fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/ics.hdf5", dir);
    SnapshotSeries *s = series_open(path, err, sizeof err);
    assert_non_null(s);
    Units u = series_units(s);
    assert_int_equal(units_physical(&u), units_physical(&info.units));
    if (units_physical(&u)) {
        assert_true(fabs(u.kpc / info.units.kpc - 1) < 1e-12 && fabs(u.kms / info.units.kms - 1) < 1e-12);
    }
    assert_int_equal(series_load(s, 0, &r, NULL, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(r.n, b.n);
    double m_in = 0, m_out = 0;
    for (int i = 0; i < b.n; i++) {
        for (int k = 0; k < 3; k++) {
            assert_true(fabsf(r.pos[4 * i + k] - b.pos[4 * i + k]) <= 1e-5f * (1 + fabsf(b.pos[4 * i + k])));
            assert_true(fabsf(r.vel[4 * i + k] - b.vel[4 * i + k]) <= 1e-6f * (1 + fabsf(b.vel[4 * i + k])));
        }
        m_in += b.pos[4 * i + 3];
        m_out += r.pos[4 * i + 3];
    }
    assert_true(fabs(m_out / m_in - 1) < 1e-6);
    assert_true(fabs(series_softening(s) / info.softening - 1) < 1e-6);
    assert_true(fabs(series_dt(s) / info.dt - 1) < 2e-6);
    series_close(s);
    bodies_free(&r);
    bodies_free(&b);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    if (units_physical(&info.units)) {
        double l = unit_attr(f, "Unit length in cgs (U_L)"), t = unit_attr(f, "Unit time in cgs (U_t)");
        assert_true(l == yml_value(dir, "UnitLength_in_cgs"));
        assert_true(t == l / yml_value(dir, "UnitVelocity_in_cgs"));
    }
    const char *keys[][2] = {{"Gravity:comoving_DM_softening", "comoving_DM_softening"},
                             {"Gravity:max_physical_DM_softening", "max_physical_DM_softening"},
                             {"TimeIntegration:dt_max", "dt_max"},
                             {"TimeIntegration:dt_min", "dt_min"},
                             {"PhysicalConstants:G", "G"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        double in_file = parameter(f, keys[k][0]), in_yml = yml_value(dir, keys[k][1]);
        if (!(in_file == in_yml)) fail_msg("%s: %g in the file, %g in params.yml", keys[k][0], in_file, in_yml);
    }
    H5Fclose(f);
}

static void test_export_opens_back_unitless(void **state)
{
    export_opens_back(*state, SCENE_PLUMMER);
}

static void test_export_opens_back_scaled(void **state)
{
    export_opens_back(*state, SCENE_COLLISION);
}

/* Removes dir's files and dir itself. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        char p[4400];
        snprintf(p, sizeof p, "%.4100s/%.255s", dir, e->d_name);
        if (e->d_name[0] != '.') assert_int_equal(remove(p), 0);
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
}

/* A series whose files give different steps and softenings runs at the first's in time, the file
 * the run starts from and its line names, whichever order the glob lists them in: here the file
 * named first is the later one. */
static void test_series_settings_of_the_first(void **state)
{
    const char *dir = *state;
    Bodies b;
    SceneInfo info;
    char err[1200] = "", path[4200], to[4200];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 200, .seed = 3}, &b, &info, err, sizeof err),
                     0);
    const struct {
        const char *name;
        double t0, dt, eps;
    } files[] = {{"a_late", 5, 0.02, 0.1}, {"b_early", 0, 0.01, 0.05}};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
        if (export_state(path, &b, &info, files[k].dt, files[k].eps, files[k].t0, 1, 0, "a test", err, sizeof err) != 0)
            fail_msg("%s", err);
        snprintf(path, sizeof path, "%s/%s/ics.hdf5", dir, files[k].name);
        snprintf(to, sizeof to, "%s/%s.hdf5", dir, files[k].name);
        assert_int_equal(rename(path, to), 0);
        snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
        remove_folder(path);
    }
    snprintf(path, sizeof path, "%s/*.hdf5", dir);
    SnapshotSeries *s = series_open(path, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(series_count(s), 2);
    assert_non_null(strstr(series_path(s, 0), "b_early.hdf5"));
    if (!(fabs(series_dt(s) / 0.01 - 1) < 1e-6) || !(fabs(series_softening(s) / 0.05 - 1) < 1e-6))
        fail_msg("the series runs at dt %g and softening %g, not its first file's 0.01 and 0.05", series_dt(s),
                 series_softening(s));
    assert_int_equal(series_step(s, 1), 500); /* 5 model times at the first's dt */
    series_close(s);
    bodies_free(&b);
}

/* Writes value (a double) into row and column of dataset name of PartType1, or the Header's Time. */
static void damage(const char *path, const char *name, int row, int col, double value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    if (strcmp(name, "Time") == 0) {
        hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT), a = H5Aopen(h, "Time", H5P_DEFAULT);
        assert_true(H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0);
        H5Aclose(a);
        H5Gclose(h);
    } else {
        hid_t g = H5Gopen2(f, "PartType1", H5P_DEFAULT), d = H5Dopen2(g, name, H5P_DEFAULT);
        hid_t fs = H5Dget_space(d);
        int rank = H5Sget_simple_extent_ndims(fs);
        hsize_t start[2] = {(hsize_t)row, (hsize_t)col}, one[2] = {1, 1};
        assert_true(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL) >= 0);
        hid_t ms = H5Screate_simple(rank, one, NULL);
        assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &value) >= 0);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        H5Gclose(g);
    }
    H5Fclose(f);
}

/* Bodies no simulation can hold are refused as the TIPSY reader refuses them, with the file and
 * the body's index: a position or speed that is not finite, a mass not above 0, a time that is
 * not finite, and random bytes over a good file's data. */
static void test_bad_bodies_refused(void **state)
{
    const char *dir = *state;
    Bodies b, r;
    SceneInfo info;
    collision(64, &b, &info);
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/bad.hdf5", dir);
    struct {
        const char *name;
        int row, col;
        double value;
        const char *says;
    } cases[] = {
        {"Coordinates", 5, 1, NAN, "body 5 (PartType1 row 5) has a position that is not finite"},
        {"Coordinates", 63, 2, INFINITY, "body 63 (PartType1 row 63) has a position that is not finite"},
        {"Velocities", 0, 0, -INFINITY, "body 0 (PartType1 row 0) has a velocity that is not finite"},
        {"Masses", 7, 0, -1.0, "body 7 (PartType1 row 7) has a negative mass"},
        {"Masses", 8, 0, 0.0, "body 8 (PartType1 row 8) has a mass of 0"},
        {"Coordinates", 9, 0, 1e30, "body 9 (PartType1 row 9) has a position beyond 1e18"},
        {"Time", 0, 0, NAN, "its time is not a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.time = 1, .units = &info.units}, err, sizeof err),
                         0);
        damage(path, cases[i].name, cases[i].row, cases[i].col, cases[i].value);
        err[0] = '\0';
        assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
        one_line(err, cases[i].says);
        one_line(err, "bad.hdf5");
        assert_null(r.pos);
        if (strcmp(cases[i].name, "Time") == 0) {
            /* Named, or in a folder beside a good snapshot: refused, not passed over. */
            assert_null(series_open(path, err, sizeof err));
            char good[4200];
            snprintf(good, sizeof good, "%s/good.hdf5", dir);
            assert_int_equal(snapshot_write(good, &b, &(SnapshotWriteDesc){.time = 1}, err, sizeof err), 0);
            err[0] = '\0';
            assert_null(series_open(dir, err, sizeof err));
            one_line(err, "bad.hdf5: its time is not a finite number");
            remove(good);
        }
    }
    /* 4000 random bytes (a fixed seed) over the positions' data, where HDF5 keeps it. */
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.time = 1, .units = &info.units}, err, sizeof err), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "PartType1/Coordinates", H5P_DEFAULT);
    haddr_t at = H5Dget_offset(d);
    H5Dclose(d);
    H5Fclose(f);
    assert_true(at != HADDR_UNDEF);
    unsigned char noise[4000];
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof noise; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        noise[i] = (unsigned char)(x >> 56);
    }
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)at, SEEK_SET), 0);
    assert_int_equal(fwrite(noise, 1, sizeof noise, fp), sizeof noise);
    fclose(fp);
    err[0] = '\0';
    assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
    one_line(err, "bad.hdf5: body ");
    bodies_free(&b);
}

/* Sets the unit attribute name of group to value. */
static void set_unit(const char *path, const char *group, const char *name, double value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    assert_true(g >= 0);
    if (H5Aexists(g, name) > 0) assert_true(H5Adelete(g, name) >= 0);
    hid_t space = H5Screate(H5S_SCALAR), a = H5Acreate2(g, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Gclose(g);
    H5Fclose(f);
}

/* A unit that is none (U_L = -1, U_M = 0, a GADGET length of 0) is refused with one line naming it,
 * even in a folder: it was taken for a file without units, read in model units. Two bodies with
 * one ParticleID are refused too: a body is its ID. */
static void test_bad_units_and_ids_refused(void **state)
{
    const char *dir = *state;
    char path[4200], err[512];
    Bodies b, r;
    SceneInfo info;
    collision(300, &b, &info);
    snprintf(path, sizeof path, "%s/units.hdf5", dir);
    const struct {
        const char *group, *name;
        double value;
    } bad[] = {{"Units", "Unit length in cgs (U_L)", -1}, {"Units", "Unit mass in cgs (U_M)", 0},
               {"Units", "Unit time in cgs (U_t)", NAN}, {"Header", "UnitLength_in_cm", 0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const bool gadget = strcmp(bad[k].group, "Header") == 0;
        assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.units = gadget ? NULL : &info.units}, err,
                                        sizeof err),
                         0);
        if (gadget) {
            set_unit(path, "Header", "UnitMass_in_g", 1.989e43);
            set_unit(path, "Header", "UnitVelocity_in_cm_per_s", 1e5);
        }
        set_unit(path, bad[k].group, bad[k].name, bad[k].value);
        err[0] = '\0';
        assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
        char want[160];
        snprintf(want, sizeof want, "units.hdf5: %s says %s = ", bad[k].group, bad[k].name);
        one_line(err, want);
        one_line(err, "a unit is a positive number");
        SnapshotSeries *s = series_open(dir, err, sizeof err); /* in a folder too */
        if (s) {
            series_close(s);
            fail_msg("a folder holding a file with %s = %g opened", bad[k].name, bad[k].value);
        }
    }
    assert_int_equal(remove(path), 0);

    snprintf(path, sizeof path, "%s/ids.hdf5", dir);
    assert_int_equal(snapshot_write(path, &b, &(SnapshotWriteDesc){.units = &info.units}, err, sizeof err), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "PartType1/ParticleIDs", H5P_DEFAULT);
    uint64_t *ids = malloc(sizeof *ids * (size_t)b.n);
    assert_true(d >= 0 && ids && H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids) >= 0);
    ids[200] = ids[7];
    assert_true(H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids) >= 0);
    H5Dclose(d);
    H5Fclose(f);
    char want[96];
    snprintf(want, sizeof want, "ids.hdf5: ParticleIDs holds %llu twice", (unsigned long long)ids[7]);
    free(ids);
    err[0] = '\0';
    assert_int_equal(snapshot_hdf5_read(path, NULL, &r, NULL, err, sizeof err), -1);
    one_line(err, want);
    bodies_free(&b);
}

/* What an interrupted save leaves beside a TIPSY file (its old content kept, its new one not yet
 * renamed) is never a snapshot of the series: a folder of one save opens as that save alone, the
 * settings beside it found. */
static void test_leftovers_are_not_snapshots(void **state)
{
    const char *dir = *state;
    char path[4200], err[512] = "";
    Bodies b;
    SceneInfo info;
    collision(128, &b, &info);
    const SavedRun run = {.params = {.dt = 0.0123f, .softening = 0.0456f, .damping = 1, .theta = 0.4f},
                          .steps_per_frame = 1, .step = 10, .time = 5};
    snprintf(path, sizeof path, "%s/a.tipsy", dir);
    assert_int_equal(state_save(path, &b, &run, err, sizeof err), 0);
    const char *left[] = {"a.tipsy.old-Ab3dE9", "a.tipsy.tmp-x0Y1z2", "a.tipsy.ini.tmp-QwErTy"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, left[k]);
        assert_int_equal(tipsy_write(path, &b, 0.5 * k, err, sizeof err), 0);
    }
    SnapshotSeries *s = series_open(dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(series_count(s), 1);
    const char *first = series_path(s, 0);
    assert_string_equal(first + strlen(first) - strlen("/a.tipsy"), "/a.tipsy");
    SavedRun saved;
    assert_int_equal(state_read_settings(first, &saved, err, sizeof err), 0);
    assert_float_equal(saved.params.dt, 0.0123f, 0);
    series_close(s);
    snprintf(path, sizeof path, "%s/a.tipsy*", dir);
    s = series_open(path, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(series_count(s), 1);
    series_close(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_read_round_trip, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_units_conversion, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_sorted_by_id, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_bad_files, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_series, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_series_settings_of_the_first, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_tipsy_series_settings, make_dir, remove_dir),
        cmocka_unit_test(test_plan_pitfalls),
        cmocka_unit_test_setup_teardown(test_body_outside_box_refused, make_dir, remove_dir),
        cmocka_unit_test(test_stream_is_build),
        cmocka_unit_test(test_stream_stops_while_measuring),
        cmocka_unit_test_setup_teardown(test_export_opens_back_unitless, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_export_opens_back_scaled, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_bad_bodies_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_bad_units_and_ids_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_leftovers_are_not_snapshots, make_dir, remove_dir),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
