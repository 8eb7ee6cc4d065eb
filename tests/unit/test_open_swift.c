/* `--open` of the SWIFT hand-off's files, through the run (src/run/run.h) on the CPU backend:
 *
 * - an exported ics.hdf5 runs at the dt and softening its Parameters group holds, else at those of
 *   the params.yml beside it; without either, one line says the defaults it runs at;
 * - a file's Parameters group (as SWIFT writes it: strings) gives the step SWIFT took (the span
 *   halved to fit under dt_max) and the softening, ahead of a params.yml;
 * - SWIFT's velocities, a step ahead of their positions (half one at time_begin), are read back in
 *   step: the run starts from v(t), as does a snapshot read onto the timeline, and one line says
 *   so. */
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/export.h"
#include "run/keyframes.h"
#include "run/run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "test_files.h"

static char said[8192];

static void keep_line(void *user, int where, const char *line)
{
    (void)user;
    (void)where;
    size_t used = strlen(said);
    snprintf(said + used, sizeof said - used, "%s\n", line);
}

static void assert_said(const char *text)
{
    if (!strstr(said, text)) fail_msg("the run did not say '%s'; it said:\n%s", text, said);
}

/* A run of the series at path, reset: its first state built. */
static Run *open_run_with(const char *path, double timeline_bytes)
{
    said[0] = '\0';
    RunDesc d = {.source = {.force = SIM_FORCE_DIRECT}, .open_path = path, .backend = SIM_BACKEND_CPU,
                 .timeline_bytes = timeline_bytes, .log = keep_line};
    char err[512] = "";
    Run *r = run_make(&d, err, sizeof err);
    if (!r) fail_msg("%s", err);
    if (run_reset(r, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, err, sizeof err) != 0) fail_msg("%s", err);
    return r;
}

static Run *open_run(const char *path) { return open_run_with(path, 0); }

static void put_text(hid_t loc, const char *name, const char *text)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(text));
    hid_t space = H5Screate(H5S_SCALAR);
    if (H5Aexists(loc, name) > 0) assert_true(H5Adelete(loc, name) >= 0); /* the export's own value */
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, type, text) >= 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
}

/* What SWIFT writes into a snapshot (strings in Parameters, Code in Header) for a run of 2^k
 * steps of dt from 0 at softening eps. */
static void make_swift(const char *path, double dt, int k, double eps)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT), p = H5Gopen2(f, "Parameters", H5P_DEFAULT);
    assert_true(h >= 0 && p >= 0);
    put_text(h, "Code", "SWIFT");
    char v[64];
    snprintf(v, sizeof v, "%.17g", dt * (1 + 1e-6));
    put_text(p, "TimeIntegration:dt_max", v);
    put_text(p, "TimeIntegration:time_begin", "0");
    snprintf(v, sizeof v, "%.17g", ldexp(dt, k));
    put_text(p, "TimeIntegration:time_end", v);
    snprintf(v, sizeof v, "%.17g", eps);
    put_text(p, "Gravity:max_physical_DM_softening", v);
    H5Gclose(p);
    H5Gclose(h);
    H5Fclose(f);
}

static void build(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[512] = "";
    if (scene_build(&(SceneDesc){.kind = kind, .n = n}, b, info, err, sizeof err) != 0) fail_msg("%s", err);
}

/* A 512-body collision exported into dir at dt and eps; path gets its ics.hdf5. */
static void export_into(const char *dir, double dt, double eps, char *path, size_t len)
{
    char err[512] = "";
    Bodies b;
    SceneInfo info;
    build(SCENE_COLLISION, 512, &b, &info);
    if (export_state(dir, &b, &info, dt, eps, 0, 1.0, 4, "a test", err, sizeof err) != 0) fail_msg("%s", err);
    snprintf(path, len, "%s/%s", dir, EXPORT_ICS);
    bodies_free(&b);
}

static void an_exported_ics_opens_at_its_settings(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-open-swift-XXXXXX", path[300];
    assert_int_equal(folder_make(dir), 0);
    const double dt = 0.0123, eps = 0.0456;
    export_into(dir, dt, eps, path, sizeof path);
    Run *r = open_run(path);
    const SavedRun *s = &run_info(r)->saved;
    assert_float_equal(s->params.dt, dt, 1e-6 * dt);
    assert_float_equal(s->params.softening, eps, 1e-6 * eps);
    assert_float_equal(run_info(r)->scene.softening, eps, 1e-6 * eps);
    assert_said("Parameters"); /* the export writes its settings into the file, as SWIFT does */
    /* Nor theta nor alpha in the file: the run takes the defaults, as a save without them loads
     * (alpha 0 would say "by the angle", and the tree opened by error before would not be). */
    if (!(s->params.alpha < 0) || s->params.theta != 0)
        fail_msg("an opened ics.hdf5 gives alpha %g and theta %g: not the defaults a load takes",
                 (double)s->params.alpha, (double)s->params.theta);
    run_destroy(r);

    /* Without its Parameters group: the params.yml beside it gives the same. */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Ldelete(f, "Parameters", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    r = open_run(path);
    assert_float_equal(run_info(r)->saved.params.dt, dt, 1e-6 * dt);
    assert_float_equal(run_info(r)->saved.params.softening, eps, 1e-6 * eps);
    assert_said("params.yml");
    run_destroy(r);

    /* Without params.yml: the defaults, and one line naming what is missing. */
    snprintf(path, sizeof path, "%s/params.yml", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/%s", dir, EXPORT_ICS);
    r = open_run(path);
    assert_float_equal(run_info(r)->saved.params.softening, 0, 0);
    assert_said("no params.yml beside it");
    assert_said("the default softening");
    run_destroy(r);
    folder_remove(dir);
}

/* The file's Parameters win over a params.yml beside it, and give the step SWIFT took. */
static void swift_parameters_give_the_step_and_softening(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-open-swift-XXXXXX", path[300];
    assert_int_equal(folder_make(dir), 0);
    export_into(dir, 0.0123, 0.0456, path, sizeof path);
    const double dt = 0.0217, eps = 0.0731;
    make_swift(path, dt, 6, eps);
    Run *r = open_run(path);
    assert_float_equal(run_info(r)->saved.params.dt, dt, 1e-7 * dt); /* dt, not dt_max */
    assert_float_equal(run_info(r)->saved.params.softening, eps, 1e-7 * eps);
    assert_said("Parameters");
    run_destroy(r);
    folder_remove(dir);
}

/* v(t) + lead a(t), written as SWIFT would at time t, comes back as v(t). */
static void check_in_step(const char *dir, double t, double lead_steps)
{
    Bodies b;
    SceneInfo info;
    build(SCENE_PLUMMER, 256, &b, &info);
    const double dt = 0.01, eps = 0.05;
    char err[512] = "", path[300];
    Sim *sim = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT}, &b, err, sizeof err);
    assert_non_null(sim);
    float *a = malloc(sizeof(float) * 3 * (size_t)b.n);
    assert_non_null(a);
    sim_accelerations(sim, (float)eps, a);
    sim_destroy(sim);
    Bodies ahead;
    assert_int_equal(bodies_alloc(&ahead, b.n), 0);
    memcpy(ahead.pos, b.pos, sizeof(float) * 4 * (size_t)b.n);
    memcpy(ahead.tag, b.tag, (size_t)b.n);
    double off = 0;
    for (int i = 0; i < b.n; i++)
        for (int k = 0; k < 4; k++) {
            ahead.vel[4 * i + k] = b.vel[4 * i + k] + (k < 3 ? (float)(lead_steps * dt * a[3 * i + k]) : 0);
            off = fmax(off, fabs(ahead.vel[4 * i + k] - b.vel[4 * i + k]));
        }
    snprintf(path, sizeof path, "%s/snapshot_%04d.hdf5", dir, (int)lround(t / dt));
    if (snapshot_write(path, &ahead, &(SnapshotWriteDesc){.time = t}, err, sizeof err) != 0) fail_msg("%s", err);
    make_swift(path, dt, 10, eps);

    Run *r = open_run(path);
    Bodies got;
    assert_int_equal(bodies_alloc(&got, b.n), 0);
    sim_read(run_sim(r), &got);
    double worst = 0;
    for (int i = 0; i < b.n; i++)
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(got.vel[4 * i + k] - b.vel[4 * i + k]));
    if (!(worst < 1e-3 * off)) fail_msg("t %g: velocities %g from v(t) (written %g ahead)", t, worst, off);
    assert_said("a step ahead");
    /* The run's first state (its timeline's first keyframe, a save's start) is in step too. */
    worst = 0;
    for (int i = 0; i < b.n; i++)
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(run_first_state(r)->vel[4 * i + k] - b.vel[4 * i + k]));
    assert_true(worst < 1e-3 * off);
    run_destroy(r);
    bodies_free(&got);
    bodies_free(&ahead);
    bodies_free(&b);
    free(a);
}

/* The largest difference of the velocities of a and b. */
static double velocity_gap(const Bodies *a, const Bodies *b)
{
    double worst = 0;
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(a->vel[4 * i + k] - b->vel[4 * i + k]));
    return worst;
}

static void swift_velocities_are_read_back_in_step(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-open-swift-XXXXXX";
    assert_int_equal(folder_make(dir), 0);
    check_in_step(dir, 0.05, 1.0); /* a step ahead after the start */
    check_in_step(dir, 0.0, 0.5);  /* half a step at time_begin */

    /* The folder as a series: the snapshot read onto the timeline after the first is in step too,
     * and the run still stands on the first. */
    Run *r = open_run_with(dir, 64e6);
    assert_int_equal(run_start_timeline(r, 1), 0);
    while (run_read_next(r)) {
    }
    const Keyframes *k = run_keyframes(r);
    assert_non_null(k);
    assert_int_equal(keyframes_count(k), 2);
    Bodies want, got;
    SceneInfo info;
    build(SCENE_PLUMMER, 256, &want, &info);
    assert_int_equal(bodies_alloc(&got, want.n), 0);
    assert_int_equal(keyframes_load(k, 1, &got), 0);
    double off = velocity_gap(&got, &want);
    if (!(off < 1e-5)) fail_msg("the second snapshot's keyframe is %g from v(t)", off);
    sim_read(run_sim(r), &got);
    off = velocity_gap(&got, &want);
    if (!(off < 1e-5)) fail_msg("after reading the series the run is %g from the first snapshot's v(t)", off);
    run_destroy(r);
    bodies_free(&got);
    bodies_free(&want);
    folder_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_exported_ics_opens_at_its_settings),
        cmocka_unit_test(swift_parameters_give_the_step_and_softening),
        cmocka_unit_test(swift_velocities_are_read_back_in_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
