/* The run's timeline (src/run/keyframes.c): within its budget at every add, thinned by halves
 * keeping the first and last frames with the spacing doubled, states back bit for bit, a resume
 * that sets the future aside and an undo that brings it back, and the FrameSource over it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "run/keyframes.h"
#include "sim/sim.h"

/* A state whose every float is a distinct bit pattern drawn from (step, i): what comes back is
 * compared bit for bit. */
static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

static void fill(Bodies *b, long long step)
{
    for (int i = 0; i < 4 * b->n; i++) {
        uint32_t p = mix((uint64_t)step * 1000003u + (uint64_t)i), v = mix(~((uint64_t)step * 7919u + (uint64_t)i));
        memcpy(&b->pos[i], &p, sizeof p);
        memcpy(&b->vel[i], &v, sizeof v);
    }
    for (int i = 0; i < b->n; i++) b->tag[i] = (uint8_t)(i % 8);
}

static Bodies state_at(int n, long long step)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n), 0);
    fill(&b, step);
    return b;
}

/* Frame i holds the state made for its step, bit for bit, tags included. */
static void assert_frame_is_its_step(const Keyframes *t, int i)
{
    const int n = keyframes_bodies(t);
    Bodies got, want = state_at(n, keyframes_step(t, i));
    assert_int_equal(bodies_alloc(&got, n), 0);
    assert_int_equal(keyframes_load(t, i, &got), 0);
    assert_memory_equal(got.pos, want.pos, (size_t)n * 4 * sizeof(float));
    assert_memory_equal(got.vel, want.vel, (size_t)n * 4 * sizeof(float));
    assert_memory_equal(got.tag, want.tag, (size_t)n);
    bodies_free(&got);
    bodies_free(&want);
}

/* A timeline of n bodies, frames every `spacing` steps while due, up to step `last`. */
static Keyframes *run(int n, size_t budget, long long spacing, long long last, int *thinnings)
{
    Keyframes *t = keyframes_create(budget);
    char err[160];
    Bodies b = state_at(n, 0);
    assert_int_equal(keyframes_start(t, &b, 0.0, 0, spacing, err, sizeof err), 0);
    if (thinnings) *thinnings = 0;
    for (long long step = 1; step <= last; step++) {
        if (!keyframes_due(t, step)) continue;
        fill(&b, step);
        KeyframesAdded added;
        assert_int_equal(keyframes_add(t, &b, 0.5 * (double)step, step, &added, err, sizeof err), 0);
        assert_true(keyframes_bytes_used(t) <= budget);
        if (added.thinned && thinnings) ++*thinnings;
    }
    bodies_free(&b);
    return t;
}

static void stays_within_its_budget(void **state)
{
    const int n = 1000;
    const size_t budget = 10 * keyframes_frame_bytes(n) + (size_t)n;
    int thinnings;
    Keyframes *t = run(n, budget, 1, 5000, &thinnings);
    assert_int_equal(keyframes_capacity(t), 10);
    assert_true(keyframes_count(t) <= 10);
    assert_true(keyframes_bytes_used(t) <= budget);
    assert_true(thinnings > 5); /* 5000 steps into 10 frames: the spacing doubled again and again */
    keyframes_destroy(t);

    /* A budget that holds fewer than three frames (the first, the newest and a future's newest)
     * is refused with a reason. */
    Keyframes *small = keyframes_create(2 * keyframes_frame_bytes(n) + (size_t)n);
    Bodies b = state_at(n, 0);
    char err[160] = "";
    assert_int_equal(keyframes_start(small, &b, 0, 0, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "fewer than three"));
    assert_int_equal(keyframes_count(small), 0);
    assert_false(keyframes_due(small, 10));
    keyframes_destroy(small);

    /* --timeline-mb 0.01: the reason states the sizes as they are, not "0.0 MB": the keyframe's
     * and the budget's figures read back to them within their three figures. */
    Keyframes *tiny = keyframes_create(10000);
    assert_int_equal(keyframes_start(tiny, &b, 0, 0, 1, err, sizeof err), -1);
    print_message("%s\n", err);
    double takes, stated;
    char takes_unit[8], budget_unit[8];
    assert_int_equal(sscanf(strstr(err, "takes "), "takes %lf %7s", &takes, takes_unit), 2);
    assert_int_equal(sscanf(strstr(err, "budget of "), "budget of %lf %7s", &stated, budget_unit), 2);
    const double frame = (double)keyframes_frame_bytes(n);
    assert_true(fabs(takes * (strcmp(takes_unit, "kB;") == 0 ? 1e3 : 1e6) - frame) <= 0.005 * frame);
    assert_true(fabs(stated * (strcmp(budget_unit, "kB") == 0 ? 1e3 : 1e6) - 10000) <= 0.005 * 10000);
    keyframes_destroy(tiny);
    char text[32];
    assert_string_equal(keyframes_bytes_text(999.7e3, text, sizeof text), "1 MB");
    assert_string_equal(keyframes_bytes_text(256e6, text, sizeof text), "256 MB");
    bodies_free(&b);
}

static void thinning_keeps_the_ends_and_doubles_the_spacing(void **state)
{
    const int n = 64;
    const int capacity = 8;
    Keyframes *t = run(n, (size_t)capacity * keyframes_frame_bytes(n) + (size_t)n, 4, 4 * (capacity - 1), NULL);
    /* Full: frames at steps 0, 4, ..., 28. */
    assert_int_equal(keyframes_count(t), capacity);
    assert_int_equal(keyframes_spacing(t), 4);
    assert_int_equal(keyframes_step(t, capacity - 1), 28);
    /* The next frame thins: the even ones and the last stay, then it is added. */
    Bodies b = state_at(n, 32);
    KeyframesAdded added;
    char err[160];
    assert_false(keyframes_due(t, 31));
    assert_true(keyframes_due(t, 32));
    assert_int_equal(keyframes_add(t, &b, 16.0, 32, &added, err, sizeof err), 0);
    assert_true(added.thinned);
    assert_int_equal(keyframes_spacing(t), 8);
    const long long want[] = {0, 8, 16, 24, 28, 32};
    assert_int_equal(keyframes_count(t), 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(keyframes_step(t, i), want[i]);
        assert_frame_is_its_step(t, i);
    }
    /* The next is due a new spacing after the last. */
    assert_false(keyframes_due(t, 39));
    assert_true(keyframes_due(t, 40));
    bodies_free(&b);
    keyframes_destroy(t);

    /* Over a long run the first frame stays, the last is the newest, and the gaps between frames
     * are never below the spacing of their time. */
    int thinnings;
    t = run(n, 16 * keyframes_frame_bytes(n) + (size_t)n, 1, 10000, &thinnings);
    assert_int_equal(keyframes_step(t, 0), 0);
    assert_int_equal(keyframes_spacing(t), 1LL << thinnings);
    const long long last = keyframes_step(t, keyframes_count(t) - 1);
    assert_true(last > 10000 - keyframes_spacing(t));
    for (int i = 1; i < keyframes_count(t); i++) {
        assert_true(keyframes_step(t, i) > keyframes_step(t, i - 1));
        assert_frame_is_its_step(t, i);
    }
    keyframes_destroy(t);
}

static void states_come_back_bit_identical(void **state)
{
    Keyframes *t = run(777, 50 * keyframes_frame_bytes(777) + 777, 3, 90, NULL);
    assert_int_equal(keyframes_count(t), 31);
    for (int i = 0; i < keyframes_count(t); i++) {
        assert_int_equal(keyframes_step(t, i), 3 * i);
        assert_float_equal(keyframes_time(t, i), 1.5 * i, 0);
        assert_frame_is_its_step(t, i);
    }
    /* A load into bodies of another count is refused. */
    Bodies other;
    assert_int_equal(bodies_alloc(&other, 776), 0);
    assert_int_equal(keyframes_load(t, 0, &other), -1);
    assert_int_equal(keyframes_load(t, 31, &other), -1);
    bodies_free(&other);
    /* So is a frame of another count. */
    Bodies b = state_at(10, 93);
    char err[160] = "";
    assert_int_equal(keyframes_add(t, &b, 0, 93, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "10 bodies"));
    assert_int_equal(keyframes_count(t), 31);
    bodies_free(&b);
    keyframes_destroy(t);
}

/* A keyframe keeps the accelerations the next step reads, with what computed them, bit for bit
 * (44 bytes a body in all); bodies that carry none give zeros back, none carried. */
static void a_keyframe_keeps_the_accelerations(void **state)
{
    const int n = 100;
    assert_true(keyframes_frame_bytes(n) >= (size_t)44 * n && keyframes_frame_bytes(n) <= (size_t)44 * n + 128);
    Keyframes *t = keyframes_create(10 * keyframes_frame_bytes(n) + (size_t)n);
    Bodies b = state_at(n, 0), got;
    assert_int_equal(bodies_alloc_acc(&b), 0);
    for (int i = 0; i < 3 * n; i++) b.acc[i] = (float)mix((uint64_t)i) / 4e9f;
    b.acc_info = (BodiesAccInfo){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_FMM, .softening = 0.05f, .alpha = 5e-4f};
    char err[160];
    assert_int_equal(keyframes_start(t, &b, 0, 0, 1, err, sizeof err), 0);
    assert_int_equal(bodies_alloc(&got, n), 0);
    assert_int_equal(bodies_alloc_acc(&got), 0);
    assert_int_equal(keyframes_load(t, 0, &got), 0);
    assert_memory_equal(got.acc, b.acc, 3 * (size_t)n * sizeof(float));
    assert_memory_equal(&got.acc_info, &b.acc_info, sizeof b.acc_info);
    Bodies plain = state_at(n, 1);
    assert_int_equal(keyframes_add(t, &plain, 1, 1, NULL, err, sizeof err), 0);
    assert_int_equal(keyframes_load(t, 1, &got), 0);
    assert_int_equal(got.acc_info.backend, 0);
    for (int i = 0; i < 3 * n; i++) assert_true(got.acc[i] == 0.0f);
    bodies_free(&plain);
    bodies_free(&got);
    bodies_free(&b);
    keyframes_destroy(t);
}

static void resume_sets_the_future_aside_and_swaps_bring_either_back(void **state)
{
    const int n = 200;
    Keyframes *t = run(n, 100 * keyframes_frame_bytes(n) + (size_t)n, 10, 200, NULL);
    assert_int_equal(keyframes_count(t), 21); /* steps 0 .. 200 */
    /* Resuming from frame 5 (step 50) sets 15 frames aside. */
    assert_int_equal(keyframes_find(t, 57), 5);
    assert_int_equal(keyframes_cut(t, 5), 15);
    assert_int_equal(keyframes_count(t), 6);
    assert_int_equal(keyframes_future_count(t), 15);
    /* A new future: steps 51 .. 80 taken again, with other states. */
    Bodies b = state_at(n, 0);
    char err[160];
    for (long long step = 51; step <= 80; step++) {
        if (!keyframes_due(t, step)) continue;
        fill(&b, step + 100000);
        assert_int_equal(keyframes_add(t, &b, 0.5 * (double)step, step, NULL, err, sizeof err), 0);
    }
    assert_int_equal(keyframes_count(t), 9);
    assert_int_equal(keyframes_step(t, 8), 80);
    /* Undo: the old future comes back, every state as it was; the new one is set aside in its
     * place, for the redo. */
    assert_int_equal(keyframes_undo_count(t), 15);
    int aside = -1;
    assert_int_equal(keyframes_swap(t, &aside), 15);
    assert_int_equal(aside, 3);
    assert_int_equal(keyframes_undo_count(t), 0);
    assert_int_equal(keyframes_redo_count(t), 3);
    assert_int_equal(keyframes_count(t), 21);
    for (int i = 0; i < 21; i++) {
        assert_int_equal(keyframes_step(t, i), 10 * i);
        assert_frame_is_its_step(t, i);
    }
    /* Redo: the new future back, bit for bit; the old one aside again, for an undo. */
    assert_int_equal(keyframes_swap(t, &aside), 3);
    assert_int_equal(aside, 15);
    assert_int_equal(keyframes_undo_count(t), 15);
    assert_int_equal(keyframes_count(t), 9);
    Bodies got;
    assert_int_equal(bodies_alloc(&got, n), 0);
    for (int i = 6; i < 9; i++) {
        assert_int_equal(keyframes_step(t, i), 60 + 10 * (i - 6));
        fill(&b, keyframes_step(t, i) + 100000);
        assert_int_equal(keyframes_load(t, i, &got), 0);
        assert_memory_equal(got.pos, b.pos, (size_t)n * 16);
    }
    bodies_free(&got);
    /* A cut at the last frame sets nothing aside; a swap with nothing new after the cut brings
     * the future back and holds none. */
    assert_int_equal(keyframes_cut(t, 8), 0);
    assert_int_equal(keyframes_cut(t, 5), 3);
    assert_int_equal(keyframes_future_count(t), 3);
    assert_int_equal(keyframes_aside_frames(t), 18);
    assert_int_equal(keyframes_swap(t, &aside), 3);
    assert_int_equal(aside, 0);
    assert_int_equal(keyframes_count(t), 9);
    assert_int_equal(keyframes_undo_count(t), 15);
    bodies_free(&b);
    keyframes_destroy(t);
}

static void a_future_held_is_thinned_not_dropped(void **state)
{
    /* 10 frames of room: the 7 set aside by a cut at frame 2 (steps 3 .. 9) take 7 of them... */
    const int n = 50;
    Keyframes *t = run(n, 10 * keyframes_frame_bytes(n) + (size_t)n, 1, 9, NULL);
    assert_int_equal(keyframes_cut(t, 2), 7);
    Bodies b = state_at(n, 0);
    char err[160];
    /* ...and a new future of 200 steps needs their room many times over: the held one is thinned
     * with the rest, never freed whole. */
    int thinned = 0;
    for (long long step = 3; step <= 200; step++) {
        if (!keyframes_due(t, step)) continue;
        fill(&b, step);
        KeyframesAdded added = {0};
        assert_int_equal(keyframes_add(t, &b, 0, step, &added, err, sizeof err), 0);
        assert_true(keyframes_bytes_used(t) <= keyframes_budget(t));
        assert_int_equal(added.future_freed, 0);
        thinned += added.future_thinned;
    }
    assert_true(thinned > 0);
    const int held = keyframes_future_count(t);
    assert_true(held >= 2);
    assert_int_equal(thinned, 7 - held);
    /* The undo brings back its ends, steps 3 and 9, and what stayed between, each as it was. */
    int aside;
    const int restored = keyframes_swap(t, &aside);
    assert_int_equal(restored, held);
    assert_true(aside > 0);
    const int count = keyframes_count(t);
    assert_int_equal(keyframes_step(t, count - restored), 3);
    assert_int_equal(keyframes_step(t, count - 1), 9);
    for (int i = 0; i < count; i++) assert_frame_is_its_step(t, i);
    bodies_free(&b);
    keyframes_destroy(t);
}

/* The smallest budget, three frames: a future set aside by a cut after the first frame keeps its
 * newest state however long the new future runs, and the swap brings it back as it was. */
static void the_smallest_budget_keeps_a_future_s_newest(void **state)
{
    const int n = 64;
    Keyframes *t = run(n, 3 * keyframes_frame_bytes(n) + (size_t)n, 1, 2, NULL);
    assert_int_equal(keyframes_capacity(t), 3);
    assert_int_equal(keyframes_count(t), 3); /* steps 0, 1, 2 */
    assert_int_equal(keyframes_cut(t, 0), 2);
    Bodies b = state_at(n, 0);
    char err[160];
    for (long long step = 1; step <= 100; step++) {
        if (!keyframes_due(t, step)) continue;
        fill(&b, step + 5000);
        KeyframesAdded added = {0};
        assert_int_equal(keyframes_add(t, &b, 0.5 * (double)step, step, &added, err, sizeof err), 0);
        assert_int_equal(added.future_freed, 0);
        assert_true(keyframes_undo_count(t) >= 1);
        assert_true(keyframes_bytes_used(t) <= keyframes_budget(t));
    }
    int aside;
    assert_int_equal(keyframes_swap(t, &aside), 1);
    assert_true(aside >= 1);
    assert_int_equal(keyframes_step(t, 0), 0);
    assert_int_equal(keyframes_step(t, keyframes_count(t) - 1), 2);
    for (int i = 0; i < keyframes_count(t); i++) assert_frame_is_its_step(t, i);
    bodies_free(&b);
    keyframes_destroy(t);
}

static void a_run_that_went_back_drops_what_came_after(void **state)
{
    const int n = 20;
    Keyframes *t = run(n, 100 * keyframes_frame_bytes(n) + (size_t)n, 5, 50, NULL);
    assert_int_equal(keyframes_count(t), 11);
    /* An undo of a parameter took the run back to step 23: a frame there is due at once. */
    assert_true(keyframes_due(t, 23));
    assert_int_equal(keyframes_drop_after(t, 23), 6);
    assert_int_equal(keyframes_step(t, keyframes_count(t) - 1), 20);
    /* The first frame always stays. */
    assert_int_equal(keyframes_drop_after(t, -1), 4);
    assert_int_equal(keyframes_count(t), 1);
    assert_int_equal(keyframes_find(t, -5), 0);
    keyframes_destroy(t);
}

static void a_frame_source_reads_the_keyframes(void **state)
{
    const int n = 30;
    Keyframes *t = run(n, 100 * keyframes_frame_bytes(n) + (size_t)n, 2, 20, NULL);
    FrameSource s = keyframes_source(t);
    assert_int_equal(s.count(s.ctx), 11);
    assert_float_equal(s.time(s.ctx, 4), 4.0, 0);
    assert_int_equal(s.step(s.ctx, 4), 8);
    Bodies got, want = state_at(n, 8);
    assert_int_equal(bodies_alloc(&got, n), 0);
    char err[160] = "";
    assert_int_equal(s.load(s.ctx, 4, &got, err, sizeof err), 0);
    assert_memory_equal(got.pos, want.pos, (size_t)n * 16);
    assert_int_equal(s.load(s.ctx, 11, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "no keyframe 11"));
    bodies_free(&got);
    bodies_free(&want);
    keyframes_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stays_within_its_budget),
        cmocka_unit_test(thinning_keeps_the_ends_and_doubles_the_spacing),
        cmocka_unit_test(states_come_back_bit_identical),
        cmocka_unit_test(a_keyframe_keeps_the_accelerations),
        cmocka_unit_test(resume_sets_the_future_aside_and_swaps_bring_either_back),
        cmocka_unit_test(a_future_held_is_thinned_not_dropped),
        cmocka_unit_test(the_smallest_budget_keeps_a_future_s_newest),
        cmocka_unit_test(a_run_that_went_back_drops_what_came_after),
        cmocka_unit_test(a_frame_source_reads_the_keyframes),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
