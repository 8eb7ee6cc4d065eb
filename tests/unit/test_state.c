/* Saved runs: a run saved at step 500 and loaded again continues bit for bit like the run that
 * never stopped, the fmm by error too with its stored accelerations (FILE.acc); a save that
 * cannot be written leaves the earlier files intact; a save cut off between its renames loads as
 * the new pair or the old one; settings that cannot be read, a FIFO
 * or a missing ini are refused; a save through a symbolic link writes beside its target. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include "test_skip.h"

#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/tipsy.h"

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
    /* Nothing is left behind beside them, hidden or not. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | grep -c keep) -eq 2", dir);
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
    /* A key given twice, a 5,000-character line and a header without ']': each at its own line. */
    static char long_line[6000];
    snprintf(long_line, sizeof long_line, "[run]\ndt = 0.01\n; %05000d\ndamping = 1\nwarp = 1\n", 0);
    static const struct {
        const char *text, *line, *word;
    } cases[] = {
        {"[run]\ndt = 0.01\ndamping = 1\ndt = 0.02\n", ".ini:4:", "dt is given twice, at lines 2 and 4"},
        {long_line, ".ini:3:", "longer than"},
        {"[run]\ndt = 0.01\n[units\nkpc = 2\n", ".ini:3:", "'[units' opens a section without its closing ']'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f = fopen(ini, "w");
        assert_non_null(f);
        fputs(cases[i].text, f);
        fclose(f);
        assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, cases[i].line));
        assert_non_null(strstr(err, cases[i].word));
    }
    /* Values the reader would refuse are not written: the save would not load. */
    SavedRun bad = run;
    bad.steps_per_frame = -3;
    assert_int_equal(state_save(path, &good, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "not saved, it would not load: steps_per_frame = -3 is too small"));
    bodies_free(&good);
}

/* The force method and the opening angle go into the ini and come back as they were; a save
 * without them writes neither; a method or angle out of bounds is refused with its line. */
static void force_and_theta_round_trip(void **state)
{
    Bodies b, back;
    SceneInfo info;
    char err[512] = "", path[256], ini[300];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 32}, &b, &info, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/tree.tipsy", dir);
    snprintf(ini, sizeof ini, "%s.ini", path);
    const SavedRun tree = {.params = {.dt = 0.01f, .softening = 0.05f, .damping = 1, .theta = 0.55f, .alpha = 2e-3f},
                           .force = SIM_FORCE_TREE, .steps_per_frame = 1};
    if (state_save(path, &b, &tree, err, sizeof err) != 0) fail_msg("%s", err);
    FILE *f = fopen(ini, "r");
    assert_non_null(f);
    char text[2048];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\nforce = tree\n"));
    assert_non_null(strstr(text, "\ntheta = 0.550000012\n"));
    assert_non_null(strstr(text, "\nalpha = 0.00200000009\n"));
    SavedRun r;
    if (state_load(path, &back, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.force, SIM_FORCE_TREE);
    assert_true(r.params.theta == tree.params.theta);
    assert_true(r.params.alpha == tree.params.alpha);
    bodies_free(&back);

    /* A run by the angle saves alpha 0, and reads it back so. */
    const SavedRun by_angle = {.params = {.dt = 0.01f, .softening = 0.05f, .damping = 1, .theta = 0.5f},
                               .force = SIM_FORCE_TREE, .steps_per_frame = 1};
    if (state_save(path, &b, &by_angle, err, sizeof err) != 0) fail_msg("%s", err);
    if (state_load(path, &back, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(r.params.alpha == 0 && r.params.theta == 0.5f);
    bodies_free(&back);

    /* Without either (an older save, or alpha < 0 handed in): neither recorded. */
    const SavedRun plain = {.params = {.dt = 0.01f, .softening = 0.05f, .damping = 1, .alpha = -1},
                            .steps_per_frame = 1};
    if (state_save(path, &b, &plain, err, sizeof err) != 0) fail_msg("%s", err);
    if (state_load(path, &back, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.force, SIM_FORCE_AUTO);
    assert_true(r.params.theta == 0);
    assert_true(r.params.alpha < 0);
    bodies_free(&back);

    static const char *const bad[] = {"[run]\ndt = 0.01\nforce = fast\n", "[run]\ndt = 0.01\ntheta = 2\n",
                                      "[run]\ndt = 0.01\ntheta = 0.01\n", "[run]\ndt = 0.01\nalpha = 0.5\n",
                                      "[run]\ndt = 0.01\nalpha = -1\n"};
    static const char *const word[] = {"force", "theta", "theta", "alpha", "alpha"};
    for (int i = 0; i < 5; i++) {
        f = fopen(ini, "w");
        assert_non_null(f);
        fputs(bad[i], f);
        fclose(f);
        assert_int_equal(state_load(path, &back, &r, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, ".ini:3"));
        assert_non_null(strstr(err, word[i]));
    }
    bodies_free(&b);
}

static void spit(const char *path, const char *data, long size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, (size_t)size, f), (size_t)size);
    assert_int_equal(fclose(f), 0);
}

/* A new folder under dir holding a save of a Plummer sphere made with seed at name. */
static const char *save_in(const char *sub, const char *name, uint64_t seed, long long step)
{
    static char path[512];
    char folder[400], err[512] = "";
    snprintf(folder, sizeof folder, "%s/%s", dir, sub);
    mkdir(folder, 0777);
    snprintf(path, sizeof path, "%s/%s", folder, name);
    Bodies b;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64, .seed = seed}, &b, &info, err, sizeof err), 0);
    SavedRun r = {.params = {.dt = 0.01f, .softening = 0.05f, .damping = 1}, .steps_per_frame = 2, .step = step};
    if (state_save(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    bodies_free(&b);
    return path;
}

/* The fmm by error, saved with its stored accelerations (run.tipsy.acc) after 20 steps: loaded,
 * it goes on bit for bit as the run never saved, where the same bodies without the accelerations
 * do not (the error-based test would have no previous |a|). An .acc that belongs to another
 * TIPSY file, or is cut short, is passed over without a word: the load computes them again. */
static void accelerations_load_beside_their_tipsy_alone(void **state)
{
    (void)state;
    Bodies b, saved, loaded, want, got;
    SceneInfo info;
    char err[512] = "", path[256], other[256], acc[300];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 2048, .seed = 5}, &b, &info, err, sizeof err), 0);
    const SimParams p = {.dt = 0.01f, .softening = 0.05f, .damping = 1, .alpha = 5e-4f};
    const SimDesc d = {.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_FMM};
    Sim *s = sim_create(&d, &b, err, sizeof err);
    assert_non_null(s);
    run(s, &p, 20, 1);
    assert_int_equal(bodies_alloc(&saved, b.n), 0);
    assert_int_equal(bodies_alloc_acc(&saved), 0);
    sim_read(s, &saved);
    assert_int_equal(saved.acc_info.backend, SIM_BACKEND_CPU);
    assert_int_equal(saved.acc_info.force, SIM_FORCE_FMM);
    assert_true(saved.acc_info.softening == p.softening && saved.acc_info.alpha == p.alpha);
    snprintf(path, sizeof path, "%s/acc.tipsy", dir);
    SavedRun r = {.params = p, .force = SIM_FORCE_FMM, .steps_per_frame = 1, .step = 20};
    assert_int_equal(state_save(path, &saved, &r, err, sizeof err), 0);
    run(s, &p, 10, 1);
    assert_int_equal(bodies_alloc(&want, b.n), 0);
    sim_read(s, &want);
    sim_destroy(s);

    SavedRun back;
    assert_int_equal(state_load(path, &loaded, &back, err, sizeof err), 0);
    assert_non_null(loaded.acc);
    assert_memory_equal(loaded.acc, saved.acc, 3 * (size_t)b.n * sizeof(float));
    assert_memory_equal(&loaded.acc_info, &saved.acc_info, sizeof saved.acc_info);
    assert_int_equal(bodies_alloc(&got, b.n), 0);
    for (int with = 1; with >= 0; with--) {
        if (!with) {
            free(loaded.acc);
            loaded.acc = NULL;
        }
        s = sim_create(&d, &loaded, err, sizeof err);
        assert_non_null(s);
        run(s, &p, 10, 1);
        sim_read(s, &got);
        sim_destroy(s);
        const bool same = memcmp(got.pos, want.pos, 4 * (size_t)b.n * sizeof(float)) == 0 &&
                          memcmp(got.vel, want.vel, 4 * (size_t)b.n * sizeof(float)) == 0;
        print_message("loaded %s its accelerations: %s the run never saved\n", with ? "with" : "without",
                      same ? "bit for bit" : "not");
        assert_true(same == (with == 1));
    }
    bodies_free(&loaded);

    /* Another save's .acc in its place, then one cut short: loads, without them. */
    snprintf(other, sizeof other, "%s/other.tipsy", dir);
    saved.pos[0] += 1.0f;
    assert_int_equal(state_save(other, &saved, &r, err, sizeof err), 0);
    snprintf(acc, sizeof acc, "%s.acc", other);
    long size;
    char *bytes = read_file(acc, &size);
    assert_non_null(bytes);
    snprintf(acc, sizeof acc, "%s.acc", path);
    for (int cut = 0; cut < 2; cut++) {
        spit(acc, bytes, cut ? size - 4 : size);
        if (cut) { /* this save's own, cut short */
            free(bytes);
            assert_int_equal(state_save(path, &saved, &r, err, sizeof err), 0);
            bytes = read_file(acc, &size);
            spit(acc, bytes, size - 4);
        }
        err[0] = '\0';
        assert_int_equal(state_load(path, &loaded, &back, err, sizeof err), 0);
        assert_null(loaded.acc);
        assert_string_equal(err, "");
        bodies_free(&loaded);
    }
    free(bytes);
    bodies_free(&b);
    bodies_free(&saved);
    bodies_free(&want);
    bodies_free(&got);
}

static void saved_files_follow_the_umask(void **state)
{
    mode_t old = umask(022);
    char path[512], ini[600];
    snprintf(path, sizeof path, "%s", save_in("umask", "run.tipsy", 1, 0));
    umask(old);
    snprintf(ini, sizeof ini, "%s.ini", path);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    long long tipsy_size = (long long)st.st_size;
    assert_int_equal(stat(ini, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);

    /* The ini names the TIPSY file's size. */
    long size;
    char *text = read_file(ini, &size), line[64];
    assert_non_null(text);
    snprintf(line, sizeof line, "\ntipsy_bytes = %lld\n", tipsy_size);
    assert_non_null(strstr(text, line));
    assert_non_null(strstr(text, "\ntipsy_checksum = 0x"));
    free(text);
}

/* A TIPSY file changed after the save (one bit of one position: still a valid file) is refused. */
static void changed_tipsy_is_refused(void **state)
{
    const char *path = save_in("changed", "run.tipsy", 1, 0);
    long size;
    char *data = read_file(path, &size);
    assert_non_null(data);
    data[32 + 4] ^= 1; /* the lowest bit of the first particle's x */
    spit(path, data, size);
    free(data);
    Bodies b;
    SavedRun r;
    char err[1024] = "";
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "run.tipsy: does not match "));
    assert_non_null(strstr(err, "run.tipsy.ini (saved separately or interrupted)"));
    char sizes[64];
    snprintf(sizes, sizeof sizes, ": %ld bytes, checksum 0x", size);
    assert_non_null(strstr(err, sizes));
    snprintf(sizes, sizeof sizes, "the ini says %ld bytes, checksum 0x", size);
    assert_non_null(strstr(err, sizes));
}

/* Another save's TIPSY file in place beside the ini, and nothing left beside them by a save that
 * would make a pair: refused; with that save's ini in place, it loads. */
static void interrupted_save_is_refused(void **state)
{
    char path[512], newer[512];
    snprintf(path, sizeof path, "%s", save_in("interrupted", "run.tipsy", 1, 10));
    snprintf(newer, sizeof newer, "%s", save_in("interrupted", "newer.tipsy", 2, 20));
    assert_int_equal(rename(newer, path), 0);
    Bodies b;
    SavedRun r;
    char err[1024] = "";
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not match"));
    assert_non_null(strstr(err, "interrupted"));

    /* The ini of the newer save is the one that matches it. */
    char ini[600], newer_ini[600];
    snprintf(ini, sizeof ini, "%s.ini", path);
    snprintf(newer_ini, sizeof newer_ini, "%s.ini", newer);
    assert_int_equal(rename(newer_ini, ini), 0);
    if (state_load(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.step, 20);
    bodies_free(&b);
}

/* An ini written before the check existed has no size or checksum: the pair loads. A checksum
 * without a size is not what Starburst writes: refused. */
static void older_ini_loads(void **state)
{
    const char *path = save_in("older", "run.tipsy", 1, 5);
    char ini[600];
    snprintf(ini, sizeof ini, "%s.ini", path);
    long size;
    char *text = read_file(ini, &size);
    assert_non_null(text);
    char *cut = strstr(text, "; the TIPSY file");
    assert_non_null(cut);
    spit(ini, text, cut - text);
    Bodies b;
    SavedRun r;
    char err[1024] = "";
    if (state_load(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.step, 5);
    assert_int_equal(b.n, 64);
    bodies_free(&b);

    char *sum = strstr(text + (cut - text), "tipsy_checksum");
    assert_non_null(sum);
    spit(ini, text, cut - text);
    FILE *f = fopen(ini, "a");
    assert_non_null(f);
    fputs(sum, f);
    fclose(f);
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "tipsy_checksum without tipsy_bytes"));
    free(text);
}

/* The second rename of a save fails (a folder stands where the ini goes): the TIPSY file that was
 * there comes back, and nothing is left beside it. */
static void failed_second_rename_puts_back_the_tipsy(void **state)
{
    char folder[400], path[512], ini[600], err[1024] = "";
    snprintf(folder, sizeof folder, "%s/second", dir);
    assert_int_equal(mkdir(folder, 0777), 0);
    snprintf(path, sizeof path, "%s/run.tipsy", folder);
    snprintf(ini, sizeof ini, "%s.ini", path);
    Bodies old, other, back;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64, .seed = 1}, &old, &info, err, sizeof err), 0);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 80, .seed = 2}, &other, &info, err, sizeof err), 0);
    assert_int_equal(tipsy_write(path, &old, 1.5, err, sizeof err), 0);
    assert_int_equal(mkdir(ini, 0777), 0);

    SavedRun r = {.params = {.dt = 0.01f, .damping = 1}, .steps_per_frame = 1, .step = 3};
    assert_int_equal(state_save(path, &other, &r, err, sizeof err), -1);
    print_message("save with a folder in the ini's place: %s\n", err);
    assert_non_null(strstr(err, "run.tipsy.ini: cannot replace: Is a directory"));
    double t = 0;
    assert_int_equal(tipsy_read(path, &back, &t, err, sizeof err), 0);
    assert_int_equal(back.n, 64);
    assert_memory_equal(back.pos, old.pos, 4 * (size_t)old.n * sizeof(float));
    assert_true(t == 1.5);
    assert_int_equal(count_entries(folder), 2);
    bodies_free(&old);
    bodies_free(&other);
    bodies_free(&back);
}

/* A save onto a folder fails before anything is replaced: the folder stays, no ini appears. */
static void save_onto_a_folder_changes_nothing(void **state)
{
    const char *path = save_in("onto-folder", "run.tipsy", 1, 0);
    char folder[600], err[1024] = "";
    snprintf(folder, sizeof folder, "%s/%s", dir, "onto-folder/taken.tipsy");
    assert_int_equal(mkdir(folder, 0777), 0);
    Bodies b;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64}, &b, &info, err, sizeof err), 0);
    SavedRun r = {.params = {.dt = 0.01f, .damping = 1}, .steps_per_frame = 1};
    assert_int_equal(state_save(folder, &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "taken.tipsy: cannot replace: Is a directory"));
    char where[400];
    snprintf(where, sizeof where, "%s/onto-folder", dir);
    assert_int_equal(count_entries(where), 3); /* run.tipsy, run.tipsy.ini and the folder */
    assert_int_equal(count_entries(folder), 0);
    SavedRun got;
    Bodies back;
    if (state_load(path, &back, &got, err, sizeof err) != 0) fail_msg("%s", err);
    bodies_free(&back);
    bodies_free(&b);
}

/* The middle of a save, made by hand: the new TIPSY file in place beside the old ini, the old
 * TIPSY file kept as run.tipsy.old-XXXXXX and, where with_ini, the new ini complete under its
 * temporary name. Returns the folder's run.tipsy. */
static const char *half_saved(const char *sub, bool with_ini)
{
    static char path[512];
    char newer[512], keep[600], tmp_ini[600], newer_ini[600];
    snprintf(path, sizeof path, "%s", save_in(sub, "run.tipsy", 1, 10));
    snprintf(newer, sizeof newer, "%s", save_in(sub, "newer.tipsy", 2, 20));
    snprintf(keep, sizeof keep, "%s.old-abc123", path);
    snprintf(tmp_ini, sizeof tmp_ini, "%s.ini.tmp-def456", path);
    snprintf(newer_ini, sizeof newer_ini, "%s.ini", newer);
    assert_int_equal(link(path, keep), 0);
    if (with_ini) assert_int_equal(rename(newer_ini, tmp_ini), 0);
    else assert_int_equal(unlink(newer_ini), 0);
    assert_int_equal(rename(newer, path), 0);
    return path;
}

static void expect_step(const char *path, long long step, const char *recovered)
{
    Bodies b;
    SavedRun r;
    char err[1024] = "";
    if (state_load(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    print_message("%s\n", r.recovered[0] ? r.recovered : "(nothing recovered)");
    assert_int_equal(r.step, step);
    assert_int_equal(b.n, 64);
    if (recovered) assert_non_null(strstr(r.recovered, recovered));
    else assert_string_equal(r.recovered, "");
    bodies_free(&b);
}

/* Killed between its two renames, a save loads as the new pair: its ini is complete under its
 * temporary name. A following save removes what was left. */
static void interrupted_save_rolls_forward(void **state)
{
    const char *path = half_saved("forward", true);
    expect_step(path, 20, "recovered from an interrupted save: ");
    expect_step(path, 20, "with its settings from ");
    char folder[400];
    snprintf(folder, sizeof folder, "%s/forward", dir);
    assert_int_equal(count_entries(folder), 4); /* the pair and the two left over */

    Bodies b;
    SavedRun r;
    char err[1024] = "";
    if (state_load(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    r.step = 30;
    if (state_save(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    bodies_free(&b);
    assert_int_equal(count_entries(folder), 2);
    expect_step(path, 30, NULL);
}

/* Where the new ini is gone, the old pair loads: the old TIPSY file that the ini in place
 * records, from its link. */
static void interrupted_save_rolls_back(void **state)
{
    const char *path = half_saved("back", false);
    expect_step(path, 10, "the previous save, ");
    Bodies b, first;
    SavedRun r;
    SceneInfo info;
    char err[1024] = "";
    if (state_load(path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64, .seed = 1}, &first, &info, err, sizeof err), 0);
    assert_memory_equal(b.pos, first.pos, 4 * (size_t)b.n * sizeof(float));
    bodies_free(&b);
    bodies_free(&first);
}

/* Leftovers of several interrupted saves that fit: the newest wins. One that does not fit (a
 * half-written ini) is passed over. */
static void newest_leftover_wins(void **state)
{
    const char *path = half_saved("newest", true);
    char tmp_ini[600], other[600], partial[600];
    snprintf(tmp_ini, sizeof tmp_ini, "%s.ini.tmp-def456", path);
    snprintf(other, sizeof other, "%s.ini.tmp-zzz999", path);
    snprintf(partial, sizeof partial, "%s.ini.tmp-partly", path);
    long size;
    char *text = read_file(tmp_ini, &size);
    assert_non_null(text);
    char *step = strstr(text, "\nstep = 20\n");
    assert_non_null(step);
    step[9] = '1'; /* step = 21 */
    spit(other, text, size);
    spit(partial, text, strstr(text, "tipsy_checksum") - text + 20);
    free(text);
    /* The first is older by a minute, the half-written one the newest of all. */
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = time(NULL) - 60}};
    assert_int_equal(utimensat(AT_FDCWD, tmp_ini, times, 0), 0);
    expect_step(path, 21, "ini.tmp-zzz999");
    times[1].tv_sec = time(NULL) + 60;
    assert_int_equal(utimensat(AT_FDCWD, tmp_ini, times, 0), 0);
    expect_step(path, 20, "ini.tmp-def456");
}

/* A TIPSY file without its settings is refused by --load's check and by the load; with the ini
 * that an interrupted first save left under its temporary name, it loads. */
static void tipsy_without_ini_is_refused(void **state)
{
    char folder[400], path[512], tmp_ini[600], err[1024] = "";
    snprintf(folder, sizeof folder, "%s/alone", dir);
    assert_int_equal(mkdir(folder, 0777), 0);
    snprintf(path, sizeof path, "%s/run.tipsy", folder);
    Bodies b, back;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64, .seed = 5}, &b, &info, err, sizeof err), 0);
    assert_int_equal(tipsy_write(path, &b, 0, err, sizeof err), 0);
    SavedRun r;
    assert_int_equal(state_check(path, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "run.tipsy: no settings beside it (" ));
    assert_non_null(strstr(err, "run.tipsy.ini is missing"));
    assert_int_equal(state_load(path, &back, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no settings beside it"));

    /* The first save of this name, killed between its renames. */
    const char *other = save_in("alone-other", "run.tipsy", 5, 40);
    char other_ini[600];
    snprintf(other_ini, sizeof other_ini, "%s.ini", other);
    snprintf(tmp_ini, sizeof tmp_ini, "%s.ini.tmp-ab12cd", path);
    assert_int_equal(rename(other_ini, tmp_ini), 0);
    assert_int_equal(state_check(path, err, sizeof err), 0);
    expect_step(path, 40, "recovered from an interrupted save");
    bodies_free(&b);
}

/* An ini that cannot be read is an error that says why, never a run with other settings. */
static void unreadable_ini_is_refused(void **state)
{
    const char *path = save_in("unreadable", "run.tipsy", 1, 0);
    char ini[600], err[1024] = "";
    snprintf(ini, sizeof ini, "%s.ini", path);
    Bodies b;
    SavedRun r;
    if (geteuid() != 0) {
        assert_int_equal(chmod(ini, 0), 0);
        assert_int_equal(state_check(path, err, sizeof err), -1);
        assert_non_null(strstr(err, "cannot read "));
        assert_non_null(strstr(err, "run.tipsy.ini: Permission denied"));
        assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "run.tipsy.ini: Permission denied"));
    }
    assert_int_equal(unlink(ini), 0);
    assert_int_equal(mkdir(ini, 0777), 0);
    assert_int_equal(state_check(path, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "run.tipsy.ini: not a regular file: a folder"));
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read "));
    assert_non_null(strstr(err, "run.tipsy.ini: not a regular file: a folder"));
}

/* A save and its ini in a FIFO's place: refused at once, not waited on. */
static void fifo_is_refused(void **state)
{
    char folder[400], path[512], err[1024] = "";
    snprintf(folder, sizeof folder, "%s/fifo", dir);
    assert_int_equal(mkdir(folder, 0777), 0);
    snprintf(path, sizeof path, "%s/run.tipsy", folder);
    assert_int_equal(mkfifo(path, 0666), 0);
    alarm(20); /* a read that waits ends the test */
    Bodies b;
    SavedRun r;
    assert_int_equal(state_check(path, err, sizeof err), -1);
    assert_non_null(strstr(err, "run.tipsy: not a regular file: a FIFO"));
    assert_int_equal(state_load(path, &b, &r, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "run.tipsy: not a regular file: a FIFO"));
    alarm(0);
}

/* A save to a symbolic link writes the pair beside the file the link ends at; the link stays and
 * loads. */
static void save_writes_through_a_link(void **state)
{
    char folder[400], real[512], link_path[512], err[1024] = "";
    snprintf(folder, sizeof folder, "%s/link", dir);
    assert_int_equal(mkdir(folder, 0777), 0);
    snprintf(real, sizeof real, "%s/runs", folder);
    assert_int_equal(mkdir(real, 0777), 0);
    snprintf(link_path, sizeof link_path, "%s/latest.tipsy", folder);
    assert_int_equal(symlink("runs/real.tipsy", link_path), 0);
    Bodies b;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 64}, &b, &info, err, sizeof err), 0);
    SavedRun r = {.params = {.dt = 0.01f, .damping = 1}, .steps_per_frame = 1, .step = 9};
    for (int twice = 0; twice < 2; twice++)
        if (state_save(link_path, &b, &r, err, sizeof err) != 0) fail_msg("%s", err);
    struct stat st;
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(count_entries(folder), 2); /* the link and runs/ */
    assert_int_equal(count_entries(real), 2);   /* real.tipsy and real.tipsy.ini */
    expect_step(link_path, 9, NULL);
    bodies_free(&b);
}

static int setup(void **state) { return folder_make(dir); }

static int teardown(void **state) { return folder_remove(dir); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reload_continues_bit_for_bit),
        cmocka_unit_test(accelerations_load_beside_their_tipsy_alone),
        cmocka_unit_test(failed_save_keeps_old_files),
        cmocka_unit_test(missing_and_bad_files_are_refused),
        cmocka_unit_test(force_and_theta_round_trip),
        cmocka_unit_test(saved_files_follow_the_umask),
        cmocka_unit_test(changed_tipsy_is_refused),
        cmocka_unit_test(interrupted_save_is_refused),
        cmocka_unit_test(older_ini_loads),
        cmocka_unit_test(failed_second_rename_puts_back_the_tipsy),
        cmocka_unit_test(save_onto_a_folder_changes_nothing),
        cmocka_unit_test(interrupted_save_rolls_forward),
        cmocka_unit_test(interrupted_save_rolls_back),
        cmocka_unit_test(newest_leftover_wins),
        cmocka_unit_test(tipsy_without_ini_is_refused),
        cmocka_unit_test(unreadable_ini_is_refused),
        cmocka_unit_test(fifo_is_refused),
        cmocka_unit_test(save_writes_through_a_link),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
