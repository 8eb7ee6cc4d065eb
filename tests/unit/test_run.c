/* The run without a window (src/run/run.h), on the CPU backend: made, reset, advanced, a past
 * keyframe shown, resumed, undone, saved and loaded, each compared bit for bit with a run that
 * never did the detour.
 *
 * - A save while a past keyframe is shown writes the run's present: it loads as the state of a
 *   run never scrubbed, at its step.
 * - Every force method (direct, tree, fmm; by the angle and by estimated error) goes on bit for
 *   bit after a save and load, a scrub and resume, Left / Right / space, and an undo.
 * - A future set aside by a resume survives a timeline that needs its room (thinned, not
 *   dropped), and ctrl+Z's run_undo brings it back.
 * - The timeline's budget is held to what the process may still take (setrlimit in a child), and
 *   a keyframe that cannot be allocated stops the timeline, not the run: its save is written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/keyframes.h"
#include "run/run.h"
#include "run/saved_run.h"
#include "scene/tipsy.h"
#include "test_files.h"

#define BODIES 256
#define STEPS 300

static const SimParams params = {.dt = 0.01f, .softening = 0.05f, .damping = 1.0f, .theta = 0.5f};

/* Lines the run said, for the checks that read them. */
static char said[4096];

static void keep_line(void *user, int where, const char *line)
{
    (void)user;
    (void)where;
    size_t used = strlen(said);
    snprintf(said + used, sizeof said - used, "%s\n", line);
}

static Run *make(double timeline_bytes)
{
    RunDesc d = {.source = {.scene = {.kind = SCENE_PLUMMER}, .force = SIM_FORCE_DIRECT},
                 .backend = SIM_BACKEND_CPU,
                 .timeline_bytes = timeline_bytes,
                 .log = keep_line};
    char err[256];
    Run *r = run_make(&d, err, sizeof err);
    assert_non_null(r);
    assert_int_equal(run_reset(r, SCENE_PLUMMER, BODIES, 7, SIM_KERNEL_DEFAULT, err, sizeof err), 0);
    run_start_timeline(r, 1);
    return r;
}

/* k steps, a keyframe kept after each where one is due, as the frame loop does. */
static void advance(Run *r, int k)
{
    for (int i = 0; i < k; i++) {
        assert_int_equal(run_advance(r, &params, 1), 0);
        run_keep(r);
    }
}

static void save(Run *r, const char *path, long long *step, bool *other)
{
    char err[512];
    const RunSettings s = {.params = params, .steps_per_frame = 1};
    assert_int_equal(run_save(r, path, &s, step, other, err, sizeof err), 0);
}

static void assert_same_bodies(const Bodies *a, const Bodies *b)
{
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->pos, b->pos, (size_t)a->n * 4 * sizeof(float));
    assert_memory_equal(a->vel, b->vel, (size_t)a->n * 4 * sizeof(float));
}

static void load(const char *path, Bodies *b, SavedRun *saved)
{
    char err[512];
    assert_int_equal(state_load(path, b, saved, err, sizeof err), 0);
}

static void a_save_after_scrubbing_writes_the_present(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-run-XXXXXX", scrubbed[256], straight[256];
    assert_int_equal(folder_make(dir), 0);
    snprintf(scrubbed, sizeof scrubbed, "%s/scrubbed.tipsy", dir);
    snprintf(straight, sizeof straight, "%s/straight.tipsy", dir);

    Run *a = make(64e6);
    advance(a, STEPS);
    /* ctrl+Left, Right, Right: the start of the timeline, then two keyframes on. */
    const int here = run_here(a);
    assert_true(here > 2);
    char err[256];
    assert_int_equal(run_show(a, 0, err, sizeof err), 0);
    assert_int_equal(run_show(a, 2, err, sizeof err), 0);
    assert_int_equal(run_step(a), 2);
    long long step;
    bool other;
    save(a, scrubbed, &step, &other);
    assert_int_equal(step, STEPS);
    assert_true(other);
    assert_int_equal(run_steps_computed(a), STEPS);

    Run *b = make(64e6);
    advance(b, STEPS);
    save(b, straight, &step, &other);
    assert_int_equal(step, STEPS);
    assert_false(other);

    Bodies got, want;
    SavedRun got_run, want_run;
    load(scrubbed, &got, &got_run);
    load(straight, &want, &want_run);
    assert_same_bodies(&got, &want);
    assert_int_equal(got_run.step, want_run.step);
    assert_true(got_run.time == want_run.time);

    /* The save loads as the run's start, and runs on as the run never scrubbed does. */
    RunDesc d = {.source = {.from_save = true, .force = SIM_FORCE_DIRECT}, .backend = SIM_BACKEND_CPU};
    snprintf(d.source.file, sizeof d.source.file, "%s", scrubbed);
    Run *c = run_make(&d, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(run_reset(c, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, err, sizeof err), 0);
    assert_int_equal(run_step(c), STEPS);
    assert_same_bodies(run_first_state(c), &want);
    advance(c, 10);
    advance(b, 10);
    run_read_state(c);
    run_read_state(b);
    assert_same_bodies(&run_copy(c)->bodies, &run_copy(b)->bodies);

    bodies_free(&got);
    bodies_free(&want);
    run_destroy(a);
    run_destroy(b);
    run_destroy(c);
    folder_remove(dir);
}

/* Every force method, by the angle and by estimated error: the run never interrupted against the
 * same run saved and loaded, scrubbed back to a keyframe and resumed, stepped Left then Right
 * then resumed (space), and undone to a change: each goes on bit for bit. The tree and the fmm
 * by error read each body's previous |a|, which the keyframe, the save and the undo carry. */
#define RESUME_BODIES 2048
#define RESUME_STEPS 12

typedef struct Method {
    const char *name;
    SimForce force;
    float alpha; /* 0: by the angle */
} Method;

static const Method methods[] = {
    {"direct", SIM_FORCE_DIRECT, 0},     {"tree by angle", SIM_FORCE_TREE, 0}, {"tree by error", SIM_FORCE_TREE, 5e-4f},
    {"fmm by angle", SIM_FORCE_FMM, 0}, {"fmm by error", SIM_FORCE_FMM, 5e-4f},
};

static Run *make_method(const Method *m, const char *from_save)
{
    RunDesc d = {.source = {.scene = {.kind = SCENE_PLUMMER}, .force = m->force},
                 .backend = SIM_BACKEND_CPU,
                 .timeline_bytes = 64e6,
                 .log = keep_line};
    if (from_save) {
        d.source.from_save = true;
        snprintf(d.source.file, sizeof d.source.file, "%s", from_save);
    }
    char err[512];
    Run *r = run_make(&d, err, sizeof err);
    assert_non_null(r);
    if (run_reset(r, from_save ? SCENE_TIPSY : SCENE_PLUMMER, RESUME_BODIES, 5, SIM_KERNEL_DEFAULT, err, sizeof err))
        fail_msg("%s: %s", m->name, err);
    assert_int_equal(sim_force(run_sim(r)), m->force);
    run_start_timeline(r, 1);
    return r;
}

static void advance_with(Run *r, const SimParams *p, int k)
{
    for (int i = 0; i < k; i++) {
        assert_int_equal(run_advance(r, p, 1), 0);
        run_keep(r);
    }
}

/* The run's state now equals want's, bit for bit, at want's step. */
static void assert_state(Run *r, const Bodies *want, long long step, const char *what, const Method *m)
{
    run_read_state(r);
    const Bodies *got = &run_copy(r)->bodies;
    assert_int_equal(run_step(r), step);
    int differ = 0;
    for (int i = 0; i < got->n; i++)
        differ += memcmp(got->pos + 4 * i, want->pos + 4 * i, 4 * sizeof(float)) != 0 ||
                  memcmp(got->vel + 4 * i, want->vel + 4 * i, 4 * sizeof(float)) != 0;
    print_message("%s, %s: %d of %d bodies differ from the run never interrupted\n", m->name, what, differ, got->n);
    assert_int_equal(differ, 0);
}

static void every_method_resumes_bit_for_bit(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-run-XXXXXX", path[256], err[512];
    assert_int_equal(folder_make(dir), 0);
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        const Method *m = &methods[k];
        const SimParams p = {.dt = 0.01f, .softening = 0.05f, .damping = 1.0f, .theta = 0.5f, .alpha = m->alpha};
        Bodies want = {0};
        Run *straight = make_method(m, NULL);
        advance_with(straight, &p, 2 * RESUME_STEPS);
        run_read_state(straight);
        assert_int_equal(bodies_copy(&want, &run_copy(straight)->bodies), 0);
        run_destroy(straight);

        /* Saved at RESUME_STEPS, loaded, run on. */
        snprintf(path, sizeof path, "%s/half-%zu.tipsy", dir, k);
        Run *first = make_method(m, NULL);
        advance_with(first, &p, RESUME_STEPS);
        const RunSettings settings = {.params = p, .steps_per_frame = 1};
        long long step;
        bool other;
        assert_int_equal(run_save(first, path, &settings, &step, &other, err, sizeof err), 0);
        /* Undo to a change at RESUME_STEPS, after steps with other parameters. */
        run_remember(first, &p);
        SimParams changed = p;
        changed.dt *= 2;
        advance_with(first, &changed, 3);
        RunSettings back = {.params = changed};
        double t;
        assert_int_equal(run_undo(first, &back, &t, err, sizeof err), RUN_UNDID_PARAMS);
        advance_with(first, &back.params, RESUME_STEPS);
        assert_state(first, &want, 2 * RESUME_STEPS, "undone", m);
        run_destroy(first);
        Run *loaded = make_method(m, path);
        assert_int_equal(run_step(loaded), RESUME_STEPS);
        advance_with(loaded, &p, RESUME_STEPS);
        assert_state(loaded, &want, 2 * RESUME_STEPS, "saved and loaded", m);
        run_destroy(loaded);

        /* Scrubbed back to the keyframe of RESUME_STEPS and resumed. */
        Run *scrubbed = make_method(m, NULL);
        advance_with(scrubbed, &p, 2 * RESUME_STEPS);
        assert_int_equal(run_show(scrubbed, RESUME_STEPS, err, sizeof err), 0);
        assert_int_equal(run_step(scrubbed), RESUME_STEPS);
        advance_with(scrubbed, &p, RESUME_STEPS);
        assert_state(scrubbed, &want, 2 * RESUME_STEPS, "scrubbed and resumed", m);
        run_destroy(scrubbed);

        /* Left, Right, space: a keyframe back, the present again, and on. */
        Run *stepped = make_method(m, NULL);
        advance_with(stepped, &p, RESUME_STEPS);
        const int here = run_here(stepped);
        assert_int_equal(run_show(stepped, here - 1, err, sizeof err), 0);
        assert_int_equal(run_show(stepped, here, err, sizeof err), 0);
        advance_with(stepped, &p, RESUME_STEPS);
        assert_state(stepped, &want, 2 * RESUME_STEPS, "Left, Right, space", m);
        run_destroy(stepped);
        bodies_free(&want);
    }
    folder_remove(dir);
}

static void a_resume_sets_the_future_aside_and_undo_brings_it_back(void **state)
{
    (void)state;
    Run *r = make(64e6);
    advance(r, 50);
    const int last = run_here(r);
    char err[256];
    assert_int_equal(run_show(r, 10, err, sizeof err), 0);
    advance(r, 5); /* space: a new future from keyframe 10 */
    assert_int_equal(run_shown(r), -1);
    assert_int_equal(run_step(r), 15);
    assert_true(run_can_undo_future(r));
    assert_int_equal(run_undo_depth(r), 1);
    RunSettings p = {.params = params};
    double t;
    run_read_state(r);
    Bodies branch = {0};
    assert_int_equal(bodies_copy(&branch, &run_copy(r)->bodies), 0);
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), RUN_UNDID_FUTURE);
    assert_int_equal(run_shown(r), last);
    assert_int_equal(run_step(r), 50);
    /* The branch the resume started is kept for ctrl+Y: back at step 15, bit for bit, and on from
     * there as a run never undone. */
    assert_int_equal(run_redo_depth(r), 1);
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), RUN_UNDID_NOTHING);
    assert_int_equal(run_redo(r, &p, &t, err, sizeof err), RUN_UNDID_FUTURE);
    assert_int_equal(run_step(r), 15);
    run_read_state(r);
    assert_same_bodies(&run_copy(r)->bodies, &branch);
    assert_int_equal(run_redo(r, &p, &t, err, sizeof err), RUN_UNDID_NOTHING);
    /* ...and ctrl+Z takes it back again, to the future set aside. */
    assert_int_equal(run_undo_depth(r), 1);
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), RUN_UNDID_FUTURE);
    assert_int_equal(run_step(r), 50);
    assert_int_equal(run_redo(r, &p, &t, err, sizeof err), RUN_UNDID_FUTURE);
    assert_int_equal(run_step(r), 15);
    bodies_free(&branch);
    run_destroy(r);
}

static void a_future_set_aside_outlives_a_full_timeline(void **state)
{
    (void)state;
    /* Room for 12 keyframes: 40 steps fill it; a resume from keyframe 2 sets the rest aside, and
     * 400 more steps need their room many times over. */
    Run *r = make(12.0 * (double)keyframes_frame_bytes(BODIES) + BODIES);
    advance(r, 40);
    run_here(r);
    char err[256];
    assert_int_equal(run_show(r, 2, err, sizeof err), 0);
    const long long shown_step = run_step(r);
    advance(r, 400);
    const Keyframes *k = run_keyframes(r);
    assert_non_null(k);
    assert_true(keyframes_future_count(k) >= 2);
    assert_null(strstr(said, "are gone"));
    assert_non_null(strstr(said, "set aside too"));
    RunSettings p = {.params = params};
    double t;
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), 2);
    /* The view on the newest of the future brought back: the run as it stood at step 40. */
    assert_int_equal(run_step(r), 40);
    assert_true(run_step(r) > shown_step);
    run_destroy(r);
}

/* The smallest timeline, three keyframes: a resume from the start sets a future aside that the
 * new one never drops; ctrl+Z brings back the newest state it held, bit for bit. */
static void the_smallest_timeline_keeps_the_future_set_aside(void **state)
{
    (void)state;
    said[0] = '\0';
    Run *r = make(3.0 * (double)keyframes_frame_bytes(BODIES) + BODIES);
    assert_non_null(run_keyframes(r));
    advance(r, 2);
    run_here(r);
    run_read_state(r);
    Bodies newest = {0};
    assert_int_equal(bodies_copy(&newest, &run_copy(r)->bodies), 0);
    char err[256];
    assert_int_equal(run_show(r, 0, err, sizeof err), 0);
    advance(r, 40);
    assert_null(strstr(said, "are gone"));
    assert_null(strstr(said, "is gone"));
    RunSettings p = {.params = params};
    double t;
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), RUN_UNDID_FUTURE);
    assert_int_equal(run_step(r), 2);
    run_read_state(r);
    assert_same_bodies(&run_copy(r)->bodies, &newest);
    bodies_free(&newest);
    run_destroy(r);

    /* Two keyframes are too few for that: no timeline, said. */
    Run *small = make(2.0 * (double)keyframes_frame_bytes(BODIES) + BODIES);
    assert_null(run_keyframes(small));
    assert_non_null(strstr(run_timeline_note(small), "fewer than three"));
    run_destroy(small);
}

/* A reset keeps the run it replaces: ctrl+Z brings it back whole (state, step, timeline, settings),
 * ctrl+Y the run the reset made, each going on as if never left. */
static void a_reset_keeps_the_run_it_replaces(void **state)
{
    (void)state;
    Run *r = make(64e6);
    advance(r, 30);
    Run *twin = make(64e6); /* the same run, never left */
    advance(twin, 30);
    const int frames = keyframes_count(run_keyframes(r));
    const RunSettings kept = {.params = {.dt = 0.02f, .softening = 0.1f, .damping = 1.0f, .theta = 0.5f},
                              .steps_per_frame = 7};
    run_leave(r, &kept);
    assert_int_equal(run_left_count(r), 1);
    char err[256];
    assert_int_equal(run_reset(r, SCENE_PLUMMER, BODIES / 2, 9, SIM_KERNEL_DEFAULT, err, sizeof err), 0);
    run_start_timeline(r, 1);
    advance(r, 5);
    run_read_state(r);
    Bodies reset = {0};
    assert_int_equal(bodies_copy(&reset, &run_copy(r)->bodies), 0);
    assert_int_equal(run_undo_depth(r), 1);

    RunSettings s = {.params = params, .steps_per_frame = 3};
    double t;
    assert_int_equal(run_undo(r, &s, &t, err, sizeof err), RUN_UNDID_RUN);
    assert_true(s.params.dt == kept.params.dt && s.params.softening == kept.params.softening);
    assert_int_equal(s.steps_per_frame, 7);
    assert_int_equal(run_step(r), 30);
    assert_int_equal(sim_count(run_sim(r)), BODIES);
    assert_int_equal(run_info(r)->n, BODIES);
    assert_int_equal(keyframes_count(run_keyframes(r)), frames);
    run_read_state(r);
    run_read_state(twin);
    assert_same_bodies(&run_copy(r)->bodies, &run_copy(twin)->bodies);
    advance(r, 10);
    advance(twin, 10);
    run_read_state(r);
    run_read_state(twin);
    assert_same_bodies(&run_copy(r)->bodies, &run_copy(twin)->bodies);

    /* ctrl+Y: the reset's run, at its step 5, with the settings it ran with. */
    assert_int_equal(run_redo_depth(r), 1);
    s = (RunSettings){.params = params, .steps_per_frame = 7};
    assert_int_equal(run_redo(r, &s, &t, err, sizeof err), RUN_UNDID_RUN);
    assert_int_equal(s.steps_per_frame, 3);
    assert_int_equal(run_step(r), 5);
    assert_int_equal(sim_count(run_sim(r)), BODIES / 2);
    run_read_state(r);
    assert_same_bodies(&run_copy(r)->bodies, &reset);
    /* And back again: the first run at step 40, where it was left the second time. */
    assert_int_equal(run_undo(r, &s, &t, err, sizeof err), RUN_UNDID_RUN);
    assert_int_equal(run_step(r), 40);
    assert_int_equal(run_undo(r, &s, &t, err, sizeof err), RUN_UNDID_NOTHING);

    /* A reset that fails after the leave takes the run back at once; the reset's run that ctrl+Y
     * would have brought back stays kept behind it. */
    run_leave(r, &kept);
    RunSource bad = {.from_save = true, .force = SIM_FORCE_DIRECT};
    snprintf(bad.file, sizeof bad.file, "/nonexistent/run.tipsy");
    assert_int_equal(run_reset_to(r, &bad, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, err, sizeof err), -1);
    assert_int_equal(run_take_back(r, &s, err, sizeof err), 0);
    assert_int_equal(run_step(r), 40);
    assert_int_equal(sim_count(run_sim(r)), BODIES);
    assert_int_equal(run_left_count(r), 1);
    assert_int_equal(run_redo_depth(r), 0);
    assert_int_equal(run_undo(r, &s, &t, err, sizeof err), RUN_UNDID_RUN);
    assert_int_equal(run_step(r), 5);

    bodies_free(&reset);
    run_destroy(r);
    run_destroy(twin);
}

static void undo_returns_to_the_state_before_a_change(void **state)
{
    (void)state;
    Run *r = make(64e6);
    advance(r, 20);
    run_read_state(r);
    Bodies before = {0};
    assert_int_equal(bodies_copy(&before, &run_copy(r)->bodies), 0);
    run_remember(r, &params);
    advance(r, 20);
    RunSettings p = {0};
    double t;
    char err[256];
    assert_int_equal(run_undo(r, &p, &t, err, sizeof err), RUN_UNDID_PARAMS);
    assert_true(p.params.dt == params.dt);
    assert_int_equal(run_step(r), 20);
    run_read_state(r);
    assert_same_bodies(&run_copy(r)->bodies, &before);
    bodies_free(&before);
    run_destroy(r);
}

static void the_run_measures_itself(void **state)
{
    (void)state;
    Run *r = make(0);
    /* E0 on the first state, summed with the first measurement in the worker (the call that starts
     * it returns at once, the next after it finished publishes): dE/E0 0; 100 steps on, small; the
     * next only when due. */
    const RunEnergy *e = run_energy(r);
    assert_false(run_measure_energy(r, params.softening, 0));
    assert_false(e->valid);
    run_wait_energy(r);
    assert_true(run_measure_energy(r, params.softening, 0));
    assert_true(e->valid && e->finite);
    assert_true(fabs(e->error) < 1e-12);
    assert_false(run_measure_energy(r, params.softening, 0));
    advance(r, 100);
    run_measure_soon(r);
    assert_false(run_measure_energy(r, params.softening, 0));
    run_wait_energy(r);
    assert_true(run_measure_energy(r, params.softening, 0));
    assert_true(e->valid);
    assert_true(fabs(e->error) > 0 && fabs(e->error) < 1e-3);
    assert_true(e->spread > 0.8 && e->spread < 1.25);
    assert_int_equal(e->history_count, 2);
    /* The direct sum against the f64 sum: float's error. */
    ForceCheck c;
    assert_int_equal(run_check_forces(r, params.softening, &c), 0);
    assert_int_equal(c.samples, BODIES);
    assert_true(c.median < 1e-5);
    /* A Plummer sphere has no disk to watch. */
    assert_int_equal(run_heating(r)->galaxies, 0);
    run_destroy(r);
}

/* The energy's worker: a measurement started and then made stale by a reset gives nothing; one of
 * a new softening brings its own E0; the figures are the backend's own sums. */
static void the_energy_is_summed_off_the_loop(void **state)
{
    (void)state;
    Run *r = make(0);
    char err[256];
    assert_false(run_measure_energy(r, params.softening, 0));
    assert_int_equal(run_reset(r, SCENE_PLUMMER, BODIES, 8, SIM_KERNEL_DEFAULT, err, sizeof err), 0);
    run_wait_energy(r);
    assert_false(run_measure_energy(r, params.softening, 0)); /* the stale one dropped; the next started */
    assert_false(run_energy(r)->valid);
    run_wait_energy(r);
    assert_true(run_measure_energy(r, params.softening, 0));
    assert_true(fabs(run_energy(r)->error) < 1e-12);

    advance(r, 50);
    const float eps = 2 * params.softening;
    run_measure_soon(r);
    assert_false(run_measure_energy(r, eps, 0));
    run_wait_energy(r);
    assert_true(run_measure_energy(r, eps, 0));
    const RunEnergy *e = run_energy(r);
    const SimEnergy now = sim_energy(run_sim(r), eps);
    const double total = now.kinetic + now.potential + now.friction;
    print_message("softening %g: the worker's E %.15g, the backend's %.15g, dE/E0 %.3g\n", eps, e->diag.total,
                  total, e->error);
    assert_true(fabs(e->diag.total - total) <= 1e-12 * fabs(total));
    /* Stepped at the run's softening, measured at twice it: E0 is the first state's at eps, close. */
    assert_true(e->valid && fabs(e->error) > 0 && fabs(e->error) < 0.01);
    run_destroy(r);
}

/* --open of dir: the whole series read onto the timeline. */
static Run *open_series(const char *dir)
{
    RunDesc d = {.open_path = dir, .backend = SIM_BACKEND_CPU, .timeline_bytes = 64e6, .log = keep_line};
    char err[512];
    Run *r = run_make(&d, err, sizeof err);
    if (!r) fail_msg("%s", err);
    if (run_reset(r, SCENE_TIPSY, 0, 0, SIM_KERNEL_DEFAULT, err, sizeof err) != 0) fail_msg("%s", err);
    run_start_timeline(r, 1);
    while (run_read_next(r)) {
    }
    return r;
}

/* A live run thinned: the line gives the gaps the timeline keeps, not the spacing asked for now.
 * After a thinning the last of the older keyframes stand half the new spacing apart, and the line
 * names both ends ("every 8 to 16 steps"), never one figure that holds for some of them only. */
static void a_thinned_timeline_says_its_gaps(void **state)
{
    (void)state;
    Run *r = make((double)keyframes_frame_bytes(BODIES) * 6.5);
    char every[64], want[64];
    int uneven = 0;
    for (int s = 0; s < 200; s++) {
        advance(r, 1);
        const Keyframes *k = run_keyframes(r);
        long long least = -1, most = -1;
        for (int i = 1; i < keyframes_count(k); i++) {
            const long long gap = keyframes_step(k, i) - keyframes_step(k, i - 1);
            if (least < 0 || gap < least) least = gap;
            if (gap > most) most = gap;
        }
        if (most < 0) continue;
        if (least == most) snprintf(want, sizeof want, "every %lld step%s", most, most == 1 ? "" : "s");
        else snprintf(want, sizeof want, "every %lld to %lld steps", least, most), uneven++;
        assert_string_equal(run_timeline_every(r, every, sizeof every), want);
    }
    assert_true(keyframes_spacing(run_keyframes(r)) >= 8); /* thinned several times */
    assert_true(uneven > 0);                               /* and seen uneven between */
    run_destroy(r);
}

/* The line over the slider says how far apart a series' snapshots stand: the steps between saves
 * (their .ini gives dt), or the time between files that give no step, "~" where uneven; never the
 * spacing a live run would keep. */
static void a_series_says_its_snapshots_spacing(void **state)
{
    (void)state;
    char saves[] = "/tmp/starburst-run-XXXXXX", plain[] = "/tmp/starburst-run-XXXXXX";
    char uneven[] = "/tmp/starburst-run-XXXXXX", path[300], err[512], every[64];
    assert_int_equal(folder_make(saves), 0);
    assert_int_equal(folder_make(plain), 0);
    assert_int_equal(folder_make(uneven), 0);
    Bodies b;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = BODIES, .seed = 7}, &b, &info, err, sizeof err), 0);
    static const double uneven_time[3] = {0, 0.5, 1.5};
    for (int i = 0; i < 3; i++) {
        const SavedRun saved = {.params = params, .steps_per_frame = 1, .step = 384LL * i, .time = 384 * i * (double)params.dt};
        snprintf(path, sizeof path, "%s/snap_%d.tipsy", saves, i);
        if (state_save(path, &b, &saved, err, sizeof err) != 0) fail_msg("%s", err);
        snprintf(path, sizeof path, "%s/snap_%d.tipsy", plain, i);
        assert_int_equal(tipsy_write(path, &b, 0.5 * i, err, sizeof err), 0);
        snprintf(path, sizeof path, "%s/snap_%d.tipsy", uneven, i);
        assert_int_equal(tipsy_write(path, &b, uneven_time[i], err, sizeof err), 0);
    }
    bodies_free(&b);
    const struct {
        const char *dir, *says;
    } cases[] = {{saves, "every 384 steps"}, {plain, "every 0.500 time units"}, {uneven, "every ~0.750 time units"}};
    for (int i = 0; i < 3; i++) {
        said[0] = '\0';
        Run *r = open_series(cases[i].dir);
        assert_int_equal(keyframes_count(run_keyframes(r)), 3);
        run_timeline_every(r, every, sizeof every);
        print_message("%s: %s\n%s", cases[i].dir, every, said);
        assert_string_equal(every, cases[i].says);
        run_destroy(r);
    }
    /* A live run: the spacing it keeps, a keyframe a step. */
    Run *r = make(64e6);
    advance(r, 10);
    assert_string_equal(run_timeline_every(r, every, sizeof every), "every 1 step");
    run_destroy(r);
    folder_remove(saves);
    folder_remove(plain);
    folder_remove(uneven);
}

/* Why there is no timeline, as the HUD's "No timeline: <why>" puts it: the reason alone, not
 * "no timeline" again; a budget too small for two keyframes in figures that are not 0. */
static void no_timeline_says_why_once(void **state)
{
    (void)state;
    static const double budgets[2] = {0, 0.01e6};
    for (int i = 0; i < 2; i++) {
        Run *r = make(budgets[i]);
        const char *note = run_timeline_note(r);
        print_message("No timeline: %s\n", note);
        assert_null(run_keyframes(r));
        assert_true(note[0]);
        assert_true(strncasecmp(note, "no timeline", 11) != 0);
        assert_null(strstr(note, " 0.0 MB"));
        run_destroy(r);
    }
}

/* ASan reserves terabytes of address space, which no limit can hold: the sanitized build goes
 * without this test. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(STARBURST_SANITIZED)
/* In a child under an address-space limit: the budget asked for is clamped below it, with a line;
 * a run whose timeline asks for more than the limit (the clamp bypassed) stops the timeline when
 * a keyframe cannot be allocated, and goes on, and saves. Exit 0 when all held. */
static int under_a_limit(const char *dir)
{
    /* 64 MB more than the process holds now. */
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1) return 9;
    fclose(f);
    const rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
    struct rlimit rl = {.rlim_cur = limit, .rlim_max = limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) return 10;
    RunDesc d = {.timeline_bytes = 1e11};
    run_desc_defaults(&d);
    if (!(d.timeline_bytes < 64e6) || !strstr(d.timeline_note, "--timeline-mb 100000")) return 11;
    said[0] = '\0';
    Run *r = make(1e9); /* not clamped: the keyframes run into the limit */
    if (!run_keyframes(r)) return 16;
    for (int i = 0; i < 40000 && run_keyframes(r); i++) {
        if (run_advance(r, &params, 1) != 0) return 12;
        run_keep(r);
    }
    if (run_keyframes(r) || !strstr(said, "The timeline stopped")) return 13;
    if (run_advance(r, &params, 5) != 0) return 14;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/limited.tipsy", dir);
    long long step;
    bool other;
    const RunSettings s = {.params = params, .steps_per_frame = 1};
    if (run_save(r, path, &s, &step, &other, err, sizeof err) != 0) {
        fprintf(stderr, "the save under the limit: %s\n", err);
        return 15;
    }
    run_destroy(r);
    return 0;
}

static void the_timeline_keeps_within_the_address_space(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-run-XXXXXX";
    assert_int_equal(folder_make(dir), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(under_a_limit(dir));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/limited.tipsy", dir);
    Bodies b;
    SavedRun saved;
    load(path, &b, &saved);
    assert_int_equal(b.n, BODIES);
    assert_true(saved.step > 0);
    bodies_free(&b);
    folder_remove(dir);
}
#endif

/* The encounter chosen for the next reset is what the reset builds, and every reset after it: B's
 * stars 0.3 of A's, B's disk turning against the orbit (tilted 180 degrees). */
static void a_reset_builds_the_encounter_chosen(void **state)
{
    (void)state;
    RunDesc d = {.source = {.scene = {.kind = SCENE_COLLISION, .halo = SCENE_HALO_FIELD}, .force = SIM_FORCE_DIRECT},
                 .backend = SIM_BACKEND_CPU, .log = keep_line};
    char err[256];
    Run *r = run_make(&d, err, sizeof err);
    assert_non_null(r);
    const SceneEncounter e = {.mass_ratio = 0.3f, .pericentre = 4.0f, .eccentricity = 1.0f, .inclination_a = 0.0f,
                              .inclination_b = 180.0f};
    run_choose_encounter(r, &e);
    for (int again = 0; again < 2; again++) {
        assert_int_equal(run_reset(r, SCENE_COLLISION, 4096, 3, SIM_KERNEL_DEFAULT, err, sizeof err), 0);
        const Bodies *b = run_first_state(r);
        double mass[2] = {0, 0}, lz[2] = {0, 0}, cx[2][3] = {{0}}, cv[2][3] = {{0}};
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < b->n; i++) {
                const int g = BODY_TAG_GALAXY(b->tag[i]), c = BODY_TAG_COMPONENT(b->tag[i]);
                if (g > 1 || c == BODY_HALO) continue; /* the stars; the fields' centres are dark */
                const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
                if (pass == 0) {
                    mass[g] += x[3];
                    for (int k = 0; k < 3; k++) {
                        cx[g][k] += x[3] * x[k];
                        cv[g][k] += x[3] * v[k];
                    }
                } else if (c == BODY_DISK) {
                    lz[g] += x[3] * ((x[0] - cx[g][0] / mass[g]) * (v[1] - cv[g][1] / mass[g]) -
                                     (x[1] - cx[g][1] / mass[g]) * (v[0] - cv[g][0] / mass[g]));
                }
            }
        print_message("reset %d: B's stars %.4f of A's (asked 0.3), disk spins about z %+.3g and %+.3g\n", again + 1,
                      mass[1] / mass[0], lz[0], lz[1]);
        assert_true(fabs(mass[1] / mass[0] - 0.3) < 1e-3);
        assert_true(lz[0] > 0 && lz[1] < 0); /* A prograde, B retrograde */
        const SceneEncounter now = scene_encounter(&run_source(r)->scene);
        assert_memory_equal(&now, &e, sizeof e);
    }
    run_destroy(r);
}

int main(void)
{
    /* The child of a fork runs OpenMP only where the parent has not yet: this test comes first. */
    const struct CMUnitTest tests[] = {
#if !defined(__SANITIZE_ADDRESS__) && !defined(STARBURST_SANITIZED)
        cmocka_unit_test(the_timeline_keeps_within_the_address_space),
#endif
        cmocka_unit_test(a_save_after_scrubbing_writes_the_present),
        cmocka_unit_test(every_method_resumes_bit_for_bit),
        cmocka_unit_test(a_reset_builds_the_encounter_chosen),
        cmocka_unit_test(a_resume_sets_the_future_aside_and_undo_brings_it_back),
        cmocka_unit_test(a_future_set_aside_outlives_a_full_timeline),
        cmocka_unit_test(undo_returns_to_the_state_before_a_change),
        cmocka_unit_test(the_smallest_timeline_keeps_the_future_set_aside),
        cmocka_unit_test(a_reset_keeps_the_run_it_replaces),
        cmocka_unit_test(the_run_measures_itself), cmocka_unit_test(the_energy_is_summed_off_the_loop),
        cmocka_unit_test(a_series_says_its_snapshots_spacing),
        cmocka_unit_test(a_thinned_timeline_says_its_gaps),
        cmocka_unit_test(no_timeline_says_why_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
