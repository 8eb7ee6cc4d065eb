/* A run on the GPU as the frame loop drives it: an advance, the timeline's keep, the checkpoint
 * read beside the steps (run_checkpoint) and the live force error. The checkpoint's worker copies
 * the keyframes that fall due, each the state of its step bit for bit; the live force error
 * measures the accelerations of the checkpoint's copy, the halo fields' pull taken out: the tree's
 * error, or the direct sum's float error, against the stars' f64 sum. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "run/run.h"
#include "util/clock.h"
#include "util/params.h"

#define STARS 65536
#define MAX_FRAMES 4000

static Run *make(SimForce force)
{
    RunDesc d = {.source = {.scene = {.kind = SCENE_COLLISION, .halo = SCENE_HALO_FIELD}, .force = force},
                 .backend = SIM_BACKEND_CUDA,
                 .timeline_bytes = 256e6};
    char err[256] = "";
    Run *r = run_make(&d, err, sizeof err);
    if (!r || run_reset(r, SCENE_COLLISION, STARS, 5, SIM_KERNEL_DEFAULT, err, sizeof err) != 0)
        fail_msg("run: %s", err);
    assert_int_equal(sim_backend(run_sim(r)), SIM_BACKEND_CUDA);
    assert_int_equal(sim_halos(run_sim(r))->count, 2);
    return r;
}

/* FNV-1a over a state's positions, velocities and accelerations. */
static uint64_t state_hash(const Bodies *b)
{
    uint64_t h = 1469598103934665603ull;
    const struct {
        const void *p;
        size_t bytes;
    } parts[] = {{b->pos, 16 * (size_t)b->n}, {b->vel, 16 * (size_t)b->n}, {b->acc, 12 * (size_t)b->n}};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < parts[k].bytes; i++) h = (h ^ ((const uint8_t *)parts[k].p)[i]) * 1099511628211ull;
    return h;
}

/* Frames as the loop runs them, one step each, with the timeline's keep and the checkpoint every
 * 0.05 s, until the timeline holds 5 keyframes: each a state the run passed through, as it was at
 * its step (the hash of every step's state, read at once, against the keyframe's). */
static void keyframes_are_taken_beside_the_steps(void **state)
{
    (void)state;
    gpu_require_cuda();
    Run *r = make(SIM_FORCE_TREE);
    assert_int_equal(run_start_timeline(r, 1), 0);
    const SimParams p = run_start_params(r, params_theta(0), params_alpha(-1));
    Bodies now;
    if (bodies_alloc(&now, sim_count(run_sim(r))) != 0 || bodies_alloc_acc(&now) != 0) fail_msg("out of memory");
    uint64_t *hashes = calloc(MAX_FRAMES + 1, sizeof *hashes);
    assert_non_null(hashes);
    int frames = 0;
    while (keyframes_count(run_keyframes(r)) < 5 && frames < MAX_FRAMES) {
        assert_int_equal(run_advance(r, &p, 1), 0);
        frames++;
        sim_read(run_sim(r), &now);
        hashes[run_step(r)] = state_hash(&now);
        run_keep(r);
        run_checkpoint(r, 0.05);
    }
    const Keyframes *k = run_keyframes(r);
    print_message("%d keyframes after %d steps\n", keyframes_count(k), frames);
    assert_true(keyframes_count(k) >= 5);
    for (int i = 1; i < keyframes_count(k); i++) {
        const long long step = keyframes_step(k, i);
        assert_true(step > keyframes_step(k, i - 1) && step <= frames);
        assert_int_equal(keyframes_load(k, i, &now), 0);
        assert_true(state_hash(&now) == hashes[step]);
    }
    free(hashes);
    bodies_free(&now);
    run_destroy(r);
}

/* The live force error from the checkpoint's copy, as the loop asks for it, until a result. */
static ForceCheck live_error(SimForce force)
{
    Run *r = make(force);
    const SimParams p = run_start_params(r, params_theta(0), params_alpha(-1));
    const double until = clock_seconds() + 120;
    bool arrived = false;
    while (!arrived && clock_seconds() < until) {
        assert_int_equal(run_advance(r, &p, 1), 0);
        run_checkpoint(r, 0.05);
        arrived = run_watch_forces(r, &p, clock_seconds(), true, "the method");
    }
    assert_true(arrived);
    const RunLiveError *live = run_live_error(r);
    assert_string_equal(live->what, "the method");
    const ForceCheck f = live->error;
    print_message("%s with field halos, %d stars: median %.3g, 99%% %.3g, worst %.3g over %d\n",
                  sim_force_name(force), STARS, f.median, f.p99, f.worst, f.samples);
    run_destroy(r);
    return f;
}

static void live_force_error_of_the_checkpoints_copy(void **state)
{
    (void)state;
    gpu_require_cuda();
    const ForceCheck tree = live_error(SIM_FORCE_TREE);
    assert_int_equal(tree.samples, 256);
    assert_true(tree.median > 1e-6 && tree.median < 1e-3 && tree.p99 < 1e-2);
    const ForceCheck direct = live_error(SIM_FORCE_DIRECT);
    assert_true(direct.median < 1e-5 && direct.p99 < 1e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyframes_are_taken_beside_the_steps),
        cmocka_unit_test(live_force_error_of_the_checkpoints_copy),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
