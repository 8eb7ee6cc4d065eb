/* The job's buffers (positions, targets, sampled accelerations, references) are the worker's
 * while it runs (util/job_thread.h). The reference runs on half the processors (at least one),
 * leaving the rest to the frame loop and, on the CPU backend, to the simulation's own threads. */
#include "sim/force_watch.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/job_thread.h"

struct ForceWatch {
    JobThread *thread;
    int threads; /* OpenMP threads of the reference */
    /* The job. */
    float *pos;
    int n, count;
    double softening;
    int *targets;
    float *acc;
    double *ref;
    size_t pos_cap, sample_cap; /* floats; samples */
    int rc;
    ForceCheck result;
    /* The caller's: every body's acceleration. */
    float *all;
    size_t all_cap;
};

static void measure(void *job)
{
    ForceWatch *w = job;
    omp_set_num_threads(w->threads);
    sim_reference_subset(w->pos, w->n, w->softening, w->targets, w->count, w->ref);
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
    free(w->pos), free(w->targets), free(w->acc), free(w->ref), free(w->all);
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

int force_watch_start(ForceWatch *w, Sim *s, const Bodies *b, float softening, int samples)
{
    if (force_watch_busy(w)) return 1;
    const int n = b->n;
    const int count = samples > 0 && samples < n ? samples : n;
    if (n < 1 || !reserve(&w->all, &w->all_cap, 3 * (size_t)n, sizeof *w->all) ||
        !reserve(&w->pos, &w->pos_cap, 4 * (size_t)n, sizeof *w->pos) || !reserve_samples(w, (size_t)count))
        return -1;

    sim_accelerations(s, softening, w->all);
    diag_sample_targets(n, count, w->targets);
    for (int t = 0; t < count; t++) memcpy(w->acc + 3 * t, w->all + 3 * (size_t)w->targets[t], 3 * sizeof *w->acc);
    memcpy(w->pos, b->pos, 4 * (size_t)n * sizeof *w->pos);
    w->n = n;
    w->count = count;
    w->softening = softening;
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
