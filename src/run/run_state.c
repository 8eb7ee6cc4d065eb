/* The run's clock, the host copy of its state and its lines (run_state.h): what the other files
 * of the run stand on. */
#include "run/run_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/job_thread.h"

void run_say(const Run *r, int where, const char *fmt, ...)
{
    if (!r->desc.log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->desc.log(r->desc.user, where, line);
}

const char *run_when(const Run *r, double t, char *buf, size_t len)
{
    const Units *u = &r->info.scene.units;
    char when[32];
    if (units_physical(u)) snprintf(buf, len, "t = %s (%.4g)", units_format_time(u, t, when, sizeof when), t);
    else snprintf(buf, len, "t = %.4g", t);
    return buf;
}

double run_time(const Run *r) { return r->time_base + (r->sim ? sim_stats(r->sim).time : 0); }
long long run_step(const Run *r) { return r->step_base + (r->sim ? sim_stats(r->sim).total_steps : 0); }
long long run_steps_computed(const Run *r) { return r->computed; }

void run_read_state(Run *r)
{
    if (!r->sim || sim_error(r->sim)) return;
    sim_read(r->sim, &r->copy.bodies);
    r->copy.valid = true;
    r->copy.time = run_time(r);
    r->copy.step = run_step(r);
    r->copy.read_at = clock_seconds();
}

const RunCopy *run_copy(const Run *r) { return &r->copy; }

void run_read_recent(Run *r, double seconds)
{
    const bool kept = r->landing && r->sim && sim_backend(r->sim) == SIM_BACKEND_CUDA;
    if (!kept || !r->copy.valid || clock_seconds() - r->copy.read_at > seconds) run_read_state(r);
}

/* The checkpoint read without holding up the frame (run_checkpoint): the backend reads the state
 * into memory of its own; this worker copies it from there into `into`, which then changes place
 * with the copy. */
struct RunLanding {
    JobThread *thread;
    SimLanding from;
    Bodies into;
    const Sim *sim;            /* the simulation read, */
    unsigned long long serial; /* and its state's serial: a read of a state since replaced is dropped */
    double time, began;
    long long step;
    enum { LANDING_IDLE, LANDING_READING, LANDING_COPYING } stage;
    bool keyframe_due;     /* the timeline takes a keyframe of this state: */
    KeyframeState keyframe; /* the worker copies it too (state NULL: memory ran out) */
    double copied;         /* when the worker began */
};

static void landing_copy(void *arg)
{
    struct RunLanding *l = arg;
    const size_t n = (size_t)l->from.n;
    memcpy(l->into.pos, l->from.pos, 4 * n * sizeof(float));
    memcpy(l->into.vel, l->from.vel, 4 * n * sizeof(float));
    memcpy(l->into.tag, l->from.tags, n);
    memcpy(l->into.acc, l->from.acc, 3 * n * sizeof(float));
    l->into.acc_info = l->from.acc_info;
    if (l->keyframe_due) keyframes_state_copy(&l->keyframe, &l->into);
}

void run_landing_create(Run *r)
{
    struct RunLanding *l = calloc(1, sizeof *l);
    char why[256];
    if (l && !(l->thread = job_thread_create(landing_copy, l, "checkpoint", why, sizeof why))) {
        run_say(r, RUN_SAY_CONSOLE, "the checkpoint is read on the frame loop: %s", why);
        free(l);
        l = NULL;
    }
    r->landing = l;
}

void run_landing_free(Run *r)
{
    struct RunLanding *l = r->landing;
    if (!l) return;
    job_thread_destroy(l->thread);
    keyframes_state_free(&l->keyframe);
    bodies_free(&l->into);
    free(l);
    r->landing = NULL;
}

void run_drop_sim(Run *r)
{
    if (r->landing) job_thread_settle(r->landing->thread); /* it may be copying from the backend's memory */
    sim_destroy(r->sim);
    r->sim = NULL;
}

/* A landed read's copy, finished, put in the copy's place where its state is still the run's; its
 * keyframe, where one was copied, to the timeline. */
static void landing_take(Run *r, struct RunLanding *l)
{
    l->stage = LANDING_IDLE;
    const bool current = l->sim == r->sim && l->serial == sim_state_serial(r->sim);
    if (current && l->keyframe_due) run_keep_landed(r, &l->keyframe, l->time, l->step, l->copied);
    keyframes_state_free(&l->keyframe);
    if (!current || l->into.n != r->copy.bodies.n || !r->copy.bodies.acc || (r->copy.valid && r->copy.step > l->step))
        return; /* a state since replaced, or a copy read since that is newer */
    const Bodies older = r->copy.bodies;
    r->copy.bodies = l->into;
    l->into = older;
    r->copy.valid = true;
    r->copy.time = l->time;
    r->copy.step = l->step;
    r->copy.read_at = l->began;
}

void run_checkpoint(Run *r, double seconds)
{
    struct RunLanding *l = r->landing;
    if (!r->sim || sim_error(r->sim)) return;
    if (l && l->stage == LANDING_READING) {
        SimLanding got;
        const int rc = l->sim == r->sim && l->serial == sim_state_serial(r->sim) ? sim_read_landed(r->sim, &got) : -1;
        if (rc == 0) return;
        l->stage = LANDING_IDLE;
        if (rc < 0 || got.n != l->into.n) return;
        l->from = got;
        l->copied = clock_seconds();
        if (job_thread_start(l->thread)) l->stage = LANDING_COPYING;
        return;
    }
    if (l && l->stage == LANDING_COPYING) {
        if (job_thread_take(l->thread)) landing_take(r, l);
        return;
    }
    const double now = clock_seconds();
    if (r->copy.valid && now - r->copy.read_at < seconds) return;
    const int n = sim_count(r->sim);
    if (l && l->into.n != n) {
        bodies_free(&l->into);
        if (bodies_alloc(&l->into, n) != 0 || bodies_alloc_acc(&l->into) != 0) bodies_free(&l->into);
    }
    if (!l || l->into.n != n || !r->copy.bodies.acc || sim_read_begin(r->sim) != 0) {
        run_read_state(r);
        return;
    }
    l->sim = r->sim;
    l->serial = sim_state_serial(r->sim);
    l->time = run_time(r);
    l->step = run_step(r);
    l->began = now;
    l->keyframe_due = run_keyframe_due(r, l->step);
    l->stage = LANDING_READING;
}
