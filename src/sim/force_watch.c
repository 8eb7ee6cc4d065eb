/* The worker owns the job's buffers (positions, targets, sampled accelerations, references)
 * while `job` is set and the caller owns them otherwise; the mutex hands them over. The
 * reference runs on half the processors (at least one), leaving the rest to the frame loop and,
 * on the CPU backend, to the simulation's own threads. */
#include "sim/force_watch.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ForceWatch {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a job, or quit, for the worker */
    pthread_cond_t done; /* the job finished */
    bool job, quit, ready, forget;
    int threads; /* OpenMP threads of the reference */
    ForceCheck result;
    /* The job. */
    float *pos;
    int n, count;
    double softening;
    int *targets;
    float *acc;
    double *ref;
    size_t pos_cap, sample_cap; /* floats; samples */
    /* The caller's: every body's acceleration. */
    float *all;
    size_t all_cap;
};

static void *worker(void *arg)
{
    ForceWatch *w = arg;
    omp_set_num_threads(w->threads);
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->job && !w->quit) pthread_cond_wait(&w->wake, &w->lock);
        if (w->quit) break;
        pthread_mutex_unlock(&w->lock);
        sim_reference_subset(w->pos, w->n, w->softening, w->targets, w->count, w->ref);
        ForceCheck r;
        const int rc = diag_compare(w->acc, w->ref, w->count, &r);
        pthread_mutex_lock(&w->lock);
        if (rc == 0 && !w->forget) {
            w->result = r;
            w->ready = true;
        }
        w->job = w->forget = false;
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
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
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->done, NULL);
    const int e = pthread_create(&w->thread, NULL, worker, w);
    if (e != 0) {
        snprintf(err, errlen, "force watch: no thread: %s", strerror(e));
        pthread_cond_destroy(&w->done);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

void force_watch_destroy(ForceWatch *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    while (w->job) pthread_cond_wait(&w->done, &w->lock);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->done);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->pos), free(w->targets), free(w->acc), free(w->ref), free(w->all);
    free(w);
}

bool force_watch_busy(ForceWatch *w)
{
    pthread_mutex_lock(&w->lock);
    const bool busy = w->job;
    pthread_mutex_unlock(&w->lock);
    return busy;
}

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
    pthread_mutex_lock(&w->lock);
    w->job = true;
    w->forget = false;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

/* With the lock held. */
static bool take_locked(ForceWatch *w, ForceCheck *out)
{
    if (!w->ready) return false;
    *out = w->result;
    w->ready = false;
    return true;
}

bool force_watch_take(ForceWatch *w, ForceCheck *out)
{
    pthread_mutex_lock(&w->lock);
    const bool got = take_locked(w, out);
    pthread_mutex_unlock(&w->lock);
    return got;
}

bool force_watch_wait(ForceWatch *w, ForceCheck *out)
{
    pthread_mutex_lock(&w->lock);
    while (w->job) pthread_cond_wait(&w->done, &w->lock);
    const bool got = take_locked(w, out);
    pthread_mutex_unlock(&w->lock);
    return got;
}

void force_watch_forget(ForceWatch *w)
{
    pthread_mutex_lock(&w->lock);
    if (w->job) w->forget = true;
    w->ready = false;
    pthread_mutex_unlock(&w->lock);
}
