/* The job's buffers (positions, targets, sampled accelerations, references) are the worker's
 * while it runs (util/job_thread.h); the caller's thread only copies into them. The fields' pull
 * is taken out and the reference summed on half the processors (at least one), leaving the rest
 * to the frame loop and, on the CPU backend, to the simulation's own threads. */
#include "sim/force_watch.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/halo.h"
#include "util/job_thread.h"

struct ForceWatch {
    JobThread *thread;
    int threads; /* OpenMP threads of the reference */
    /* The job. */
    float *pos;
    int n, stars, count;
    float softening;
    SimHalos halos;
    int *targets;
    float *acc;
    double *ref;
    size_t pos_cap, sample_cap; /* floats; samples */
    int rc;
    ForceCheck result;
};

static void measure(void *job)
{
    ForceWatch *w = job;
    omp_set_num_threads(w->threads);
    sim_halo_take_out_pull(&w->halos, w->pos, w->stars, w->softening, w->targets, w->count, w->acc);
    sim_reference_subset(w->pos, w->stars, w->softening, w->targets, w->count, w->ref);
    w->rc = diag_compare(w->acc, w->ref, w->count, &w->result);
}

ForceWatch *force_watch_create(char *err, size_t errlen)
{
    ForceWatch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "force watch: out of memory");
        return NULL;
    }
    const int procs = omp_get_num_procs();
    w->threads = procs > 1 ? procs / 2 : 1;
    if (!(w->thread = job_thread_create(measure, w, "force watch", err, errlen))) {
        free(w);
        return NULL;
    }
    return w;
}

void force_watch_destroy(ForceWatch *w)
{
    if (!w) return;
    job_thread_destroy(w->thread);
    free(w->pos), free(w->targets), free(w->acc), free(w->ref);
    free(w);
}

bool force_watch_busy(ForceWatch *w) { return job_thread_busy(w->thread); }

/* realloc to at least `need` elements of `size` bytes; false (the old block kept) when it cannot. */
static bool reserve(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    void *grown = realloc(*(void **)p, need * size);
    if (!grown) return false;
    *(void **)p = grown;
    *cap = need;
    return true;
}

/* Room for count samples: targets, and 3 accelerations and 3 references each. */
static bool reserve_samples(ForceWatch *w, size_t count)
{
    if (count <= w->sample_cap) return true;
    size_t cap = w->sample_cap;
    if (!reserve(&w->targets, &cap, count, sizeof *w->targets)) return false;
    cap = 3 * w->sample_cap;
    if (!reserve(&w->acc, &cap, 3 * count, sizeof *w->acc)) return false;
    cap = 3 * w->sample_cap;
    if (!reserve(&w->ref, &cap, 3 * count, sizeof *w->ref)) return false;
    w->sample_cap = count;
    return true;
}

int force_watch_start(ForceWatch *w, const Bodies *b, const SimHalos *halos, int samples)
{
    /* A softening of NaN: the accelerations are not yet computed at these positions (sim/bodies.h). */
    if (force_watch_busy(w) || !b->acc || !b->acc_info.backend || isnan(b->acc_info.softening)) return 1;
    const int n = b->n, fields = halos ? halos->count : 0, stars = n - fields;
    if (stars < 1) return 1;
    const int count = samples > 0 && samples < stars ? samples : stars;
    if (!reserve(&w->pos, &w->pos_cap, 4 * (size_t)n, sizeof *w->pos) || !reserve_samples(w, (size_t)count)) return -1;

    diag_sample_targets(stars, count, w->targets);
    for (int t = 0; t < count; t++) memcpy(w->acc + 3 * t, b->acc + 3 * (size_t)w->targets[t], 3 * sizeof *w->acc);
    memcpy(w->pos, b->pos, 4 * (size_t)n * sizeof *w->pos);
    w->halos = fields > 0 ? *halos : (SimHalos){0};
    w->n = n;
    w->stars = stars;
    w->count = count;
    w->softening = b->acc_info.softening;
    return job_thread_start(w->thread) ? 0 : 1;
}

/* A finished job's result, where it is one (its memory did not run out). */
static bool result(ForceWatch *w, bool finished, ForceCheck *out)
{
    if (!finished || w->rc != 0) return false;
    *out = w->result;
    return true;
}

bool force_watch_take(ForceWatch *w, ForceCheck *out) { return result(w, job_thread_take(w->thread), out); }

bool force_watch_wait(ForceWatch *w, ForceCheck *out) { return result(w, job_thread_wait(w->thread), out); }

void force_watch_forget(ForceWatch *w) { job_thread_forget(w->thread); }
