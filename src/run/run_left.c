/* Runs left: a reset, a preset or a load replaces the run, and ctrl+Z brings the one it replaced
 * back whole. The run as it stands moves into a RunLeft (its timeline's keyframes and its undo
 * history change hands, nothing is copied but the present), and coming back builds a simulation
 * on its present again, as a load does (its stored accelerations with it, so that it goes on bit
 * for bit as the run never left). The run an undo leaves goes to the right, for ctrl+Y; a
 * new reset keeps those too, behind the run it leaves, so that no run is dropped by going back
 * and forth.
 *
 * Memory: the timelines kept are thinned (their first and newest frames stay) until together
 * they fit the run's own timeline budget; the presents are kept whole. At RUN_LEFT_MAX runs the
 * oldest goes, said in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_state.h"

static void free_left(RunLeft *l)
{
    bodies_free(&l->first);
    bodies_free(&l->present);
    undo_clear(&l->undo);
    keyframes_destroy(l->store);
    *l = (RunLeft){0};
}

void run_left_free(Run *r)
{
    for (int i = 0; i < r->left_count; i++) free_left(&r->left[i]);
    for (int i = 0; i < r->right_count; i++) free_left(&r->right[i]);
    r->left_count = r->right_count = 0;
}

int run_left_count(const Run *r) { return r->left_count; }

static size_t left_bytes(const RunLeft *l)
{
    return (l->store ? keyframes_bytes_used(l->store) : 0) + (size_t)l->present.n * (l->present.acc ? 44 : 32);
}

/* The timelines kept thinned, the oldest first, until those on both sides fit one budget. */
static void fit(Run *r)
{
    const double budget = r->desc.timeline_bytes;
    for (;;) {
        size_t used = 0;
        for (int i = 0; i < r->left_count; i++) used += left_bytes(&r->left[i]);
        for (int i = 0; i < r->right_count; i++) used += left_bytes(&r->right[i]);
        if (!((double)used > budget)) return;
        bool thinned = false;
        for (int i = 0; i < r->left_count && !thinned; i++)
            thinned = r->left[i].store && keyframes_thin(r->left[i].store) > 0;
        for (int i = 0; i < r->right_count && !thinned; i++)
            thinned = r->right[i].store && keyframes_thin(r->right[i].store) > 0;
        if (!thinned) return;
    }
}

/* The run as it stands moved into l (the present read first); false where memory for its present
 * ran out (r is then as it was). */
static bool take(Run *r, const RunSettings *s, RunLeft *l)
{
    run_read_state(r);
    *l = (RunLeft){.source = r->source,
                   .info = r->info,
                   .last_scene = r->last_scene,
                   .last_n = r->last_n,
                   .time = r->copy.valid ? r->copy.time : run_time(r),
                   .step = r->copy.valid ? r->copy.step : run_step(r),
                   .first_step = r->first_step,
                   .settings = *s,
                   .view = r->tl.view,
                   .undo_depth = r->tl.undo_depth};
    if (!r->copy.valid || bodies_copy(&l->present, &r->copy.bodies) != 0) return false;
    l->first = r->first;
    r->first = (Bodies){0};
    l->undo = r->undo;
    r->undo = (UndoHistory){0};
    l->store = r->tl.store;
    r->tl.store = NULL;
    snprintf(l->note, sizeof l->note, "%s", r->tl.note);
    r->tl.view = -1;
    return true;
}

/* Pushes l onto a side; at RUN_LEFT_MAX the oldest there goes, said. */
static void push(Run *r, RunLeft *side, int *count, RunLeft *l)
{
    if (*count == RUN_LEFT_MAX) {
        char when[64];
        run_say(r, RUN_SAY_SCREEN | RUN_SAY_CONSOLE, "The oldest of %d runs kept for ctrl+Z (%d bodies, %s) is gone",
                RUN_LEFT_MAX, side[0].present.n, run_when(r, side[0].time, when, sizeof when));
        free_left(&side[0]);
        memmove(side, side + 1, (size_t)(RUN_LEFT_MAX - 1) * sizeof *side);
        (*count)--;
    }
    side[(*count)++] = *l;
    *l = (RunLeft){0};
}

/* Nothing computed since the build: the present is the first state, no keyframe past the first,
 * nothing to undo. */
static bool computed_nothing(const Run *r)
{
    const int frames = r->tl.store ? keyframes_count(r->tl.store) + keyframes_aside_frames(r->tl.store) : 0;
    return run_step(r) == r->first_step && r->tl.view < 0 && frames <= 1 && r->undo.count == 0;
}

void run_leave(Run *r, const RunSettings *s)
{
    if (!r->sim || r->first.n == 0 || sim_error(r->sim) || computed_nothing(r)) return;
    RunLeft l;
    if (!take(r, s, &l)) {
        run_say(r, RUN_SAY_SCREEN | RUN_SAY_CONSOLE, "Out of memory: the run replaced cannot be kept for ctrl+Z");
        return;
    }
    /* The runs ctrl+Y would have brought back stay behind the one left, nearest last. */
    while (r->right_count > 0) {
        RunLeft back = r->right[--r->right_count];
        r->right[r->right_count] = (RunLeft){0};
        push(r, r->left, &r->left_count, &back);
    }
    push(r, r->left, &r->left_count, &l);
    fit(r);
}

/* l becomes the run: a simulation built on its present (the vertex buffers sized for it), its
 * clock, timeline and undo history back, the view where it stood. 0, or -1 with err (l is then
 * left as it was, and r has no simulation). */
static int become(Run *r, RunLeft *l, char *err, size_t errlen)
{
    run_drop_sim(r);
    r->position_vbo = r->speed_vbo = 0;
    if (r->desc.buffers && r->desc.buffers(r->desc.user, &l->present, &r->position_vbo, &r->speed_vbo, err, errlen) != 0)
        return -1;
    const RunSource source = r->source;
    r->source = l->source;
    SimDesc sd = run_sim_desc(r, r->desc.backend, SIM_KERNEL_DEFAULT);
    sd.halos = &l->info.scene.halos;
    r->sim = sim_create(&sd, &l->present, err, errlen);
    if (!r->sim) {
        r->source = source;
        return -1;
    }
    if (r->copy.bodies.n != l->present.n) {
        bodies_free(&r->copy.bodies);
        bodies_free(&r->tl.frame);
        if (bodies_alloc(&r->copy.bodies, l->present.n) != 0 || bodies_alloc_acc(&r->copy.bodies) != 0 ||
            bodies_alloc(&r->tl.frame, l->present.n) != 0 || bodies_alloc_acc(&r->tl.frame) != 0) {
            snprintf(err, errlen, "out of memory for a host copy of %d bodies", l->present.n);
            run_drop_sim(r);
            r->source = source;
            return -1;
        }
    }
    r->copy.valid = false;
    char device[sizeof r->info.device];
    snprintf(device, sizeof device, "%s", sim_device_name(r->sim));
    r->info = l->info;
    r->info.fresh = false;
    snprintf(r->info.device, sizeof r->info.device, "%s", device);
    r->info.gpus = sim_gpus(r->sim, NULL);
    r->last_scene = l->last_scene;
    r->last_n = l->last_n;
    r->time_base = l->time;
    r->step_base = l->step;
    r->first_step = l->first_step;
    bodies_free(&r->first);
    r->first = l->first;
    undo_clear(&r->undo);
    r->undo = l->undo;
    keyframes_destroy(r->tl.store);
    r->tl.store = l->store;
    if (r->tl.store) r->tl.source = keyframes_source(r->tl.store);
    snprintf(r->tl.note, sizeof r->tl.note, "%s", l->note);
    r->tl.view = -1;
    r->tl.undo_depth = l->undo_depth;
    r->tl.series_next = 0;
    r->tl.reading[0] = '\0';
    const int view = l->view;
    bodies_free(&l->present);
    *l = (RunLeft){0};
    run_watch_restart(r);
    char ignored[128];
    if (view >= 0) run_show(r, view, ignored, sizeof ignored);
    return 0;
}

/* The run on top of from comes back; the one it replaces goes onto to (where to is not NULL). */
static int bring_back(Run *r, RunLeft *from, int *from_count, RunLeft *to, int *to_count, RunSettings *s, double *time,
                      char *err, size_t errlen)
{
    RunLeft cur = {0};
    if (to && !take(r, s, &cur)) {
        snprintf(err, errlen, "out of memory for the run as it stands");
        return -1;
    }
    RunLeft l = from[--*from_count];
    from[*from_count] = (RunLeft){0};
    const RunSettings settings = l.settings;
    if (become(r, &l, err, errlen) != 0) {
        from[(*from_count)++] = l;
        char again[256];
        if (to && become(r, &cur, again, sizeof again) != 0) {
            const size_t used = strlen(err);
            snprintf(err + used, errlen - used, "; the run as it stood failed too: %s", again);
            free_left(&cur);
        }
        return -1;
    }
    if (to) push(r, to, to_count, &cur);
    fit(r);
    *s = settings;
    *time = run_time(r);
    return 0;
}

int run_take_back(Run *r, RunSettings *s, char *err, size_t errlen)
{
    if (r->left_count == 0) {
        snprintf(err, errlen, "no run was left");
        return -1;
    }
    double t;
    return bring_back(r, r->left, &r->left_count, NULL, NULL, s, &t, err, errlen);
}

int run_undo_run(Run *r, RunSettings *s, double *time, char *err, size_t errlen)
{
    if (r->left_count == 0) return RUN_UNDID_NOTHING;
    return bring_back(r, r->left, &r->left_count, r->right, &r->right_count, s, time, err, errlen) == 0 ? RUN_UNDID_RUN
                                                                                                       : -1;
}

int run_redo_run(Run *r, RunSettings *s, double *time, char *err, size_t errlen)
{
    if (r->right_count == 0) return RUN_UNDID_NOTHING;
    return bring_back(r, r->right, &r->right_count, r->left, &r->left_count, s, time, err, errlen) == 0 ? RUN_UNDID_RUN
                                                                                                        : -1;
}
