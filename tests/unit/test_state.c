/* Saved runs: a run saved at step 500 and loaded again continues bit for bit like the run that
 * never stopped; a save that cannot be written leaves the earlier files intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "app/state.h"
#include "scene/scene.h"

static char dir[] = "/tmp/starburst-state-XXXXXX";

static Sim *cpu_sim(const Bodies *b)
{
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

static void run(Sim *s, const SimParams *p, int steps, int per_frame)
{
    for (int done = 0; done < steps; done += per_frame) sim_advance(s, p, per_frame);
}

static void reload_continues_bit_for_bit(void **state)
{
    Bodies b, saved, loaded, a_end, b_end;
    SceneInfo info;
    char err[512] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 1000, .seed = 3}, &b, &info, err, sizeof err), 0);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 0.9999f};
    const int per_frame = 4;
    Sim *s = cpu_sim(&b);
    run(s, &p, 500, per_frame);
    assert_int_equal(bodies_alloc(&saved, b.n), 0);
    sim_read(s, &saved);
    char path[256];
    snprintf(path, sizeof path, "%s/run.tipsy", dir);
    SavedRun r = {.params = p, .steps_per_frame = per_frame, .step = 500, .time = sim_stats(s).time};
    assert_int_equal(state_save(path, &saved, &r, err, sizeof err), 0);
    run(s, &p, 500, per_frame);
    assert_int_equal(bodies_alloc(&a_end, b.n), 0);
    sim_read(s, &a_end);
    sim_destroy(s);

    SavedRun back;
    if (state_load(path, &loaded, &back, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(loaded.n, b.n);
    assert_memory_equal(loaded.pos, saved.pos, 4 * (size_t)b.n * sizeof(float));
    assert_memory_equal(loaded.vel, saved.vel, 4 * (size_t)b.n * sizeof(float));
    assert_memory_equal(loaded.tag, saved.tag, (size_t)b.n);
    assert_memory_equal(&back.params, &p, sizeof p);
    assert_int_equal(back.steps_per_frame, per_frame);
    assert_int_equal(back.step, 500);
    assert_true(back.time == r.time);

    Sim *s2 = cpu_sim(&loaded);
    run(s2, &back.params, 500, back.steps_per_frame);
    assert_int_equal(bodies_alloc(&b_end, b.n), 0);
    sim_read(s2, &b_end);
    assert_memory_equal(a_end.pos, b_end.pos, 4 * (size_t)b.n * sizeof(float));
    assert_memory_equal(a_end.vel, b_end.vel, 4 * (size_t)b.n * sizeof(float));
    sim_destroy(s2);
    bodies_free(&b);
    bodies_free(&saved);
    bodies_free(&loaded);
    bodies_free(&a_end);
    bodies_free(&b_end);
}

static void failed_save_keeps_old_files(void **state)
{
    Bodies b, back;
    SceneInfo info;
    char err[512] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64}, &b, &info, err, sizeof err), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/keep.tipsy", dir);
    SavedRun r = {.params = {.dt = 0.01f, .softening = 0.05f, .damping = 1}, .steps_per_frame = 2, .step = 7};
    assert_int_equal(state_save(path, &b, &r, err, sizeof err), 0);

    /* Files may grow to 1000 bytes only: the parameters fit, the bodies do not, so the save
     * fails half way, and the old pair must still load as it was. */
    Bodies other;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64, .seed = 99}, &other, &info, err, sizeof err), 0);
    SavedRun r2 = r;
    r2.step = 8;
    struct rlimit old_limit, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    small = old_limit;
    small.rlim_cur = 1000;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = state_save(path, &other, &r2, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
    print_message("save under a 1000-byte file limit: %s\n", err);
    assert_int_equal(rc, -1);
    assert_true(strlen(err) > 0);
    SavedRun got;
    assert_int_equal(state_load(path, &back, &got, err, sizeof err), 0);
    assert_int_equal(got.step, 7);
    assert_memory_equal(back.pos, b.pos, 4 * (size_t)b.n * sizeof(float));
    /* Nothing is left behind beside them. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | grep -c keep) -eq 2", dir);
    assert_int_equal(system(cmd), 0);
    bodies_free(&b);
    bodies_free(&back);
    bodies_free(&other);
}

static void missing_and_bad_files_are_refused(void **state)
{
    Bodies b;
    SavedRun r;
    char err[512] = "";
    assert_int_equal(state_load("/nonexistent/run.tipsy", &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/run.tipsy"));

    /* A good TIPSY file with a broken sidecar: refused, naming the sidecar's line. */
    Bodies good;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 16}, &good, &info, err, sizeof err), 0);
    char path[256], ini[300];
    snprintf(path, sizeof path, "%s/bad.tipsy", dir);
    SavedRun run = {.params = {.dt = 0.01f, .damping = 1}, .steps_per_frame = 1};
    assert_int_equal(state_save(path, &good, &run, err, sizeof err), 0);
    snprintf(ini, sizeof ini, "%s.ini", path);
    FILE *f = fopen(ini, "w");
    assert_non_null(f);
    fputs("[run]\ndt = 0.01\ndamping = 7\n", f);
    fclose(f);
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, ".ini:3"));
    assert_non_null(strstr(err, "damping"));
    bodies_free(&good);
}

static int setup(void **state) { return mkdtemp(dir) ? 0 : -1; }

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reload_continues_bit_for_bit),
        cmocka_unit_test(failed_save_keeps_old_files),
        cmocka_unit_test(missing_and_bad_files_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
