/* The mutex hands the job over: `running` is set from start until run() returns. */
#include "util/job_thread.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct JobThread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a job, or quit, for the thread */
    pthread_cond_t done; /* the job finished */
    bool running, quit, ready, forget;
    void (*run)(void *job);
    void *job;
};

static void *thread_main(void *arg)
{
    JobThread *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->running && !t->quit) pthread_cond_wait(&t->wake, &t->lock);
        if (t->quit) break;
        pthread_mutex_unlock(&t->lock);
        t->run(t->job);
        pthread_mutex_lock(&t->lock);
        t->ready = !t->forget;
        t->running = t->forget = false;
        pthread_cond_broadcast(&t->done);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

JobThread *job_thread_create(void (*run)(void *job), void *job, const char *name, char *err, size_t errlen)
{
    JobThread *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    t->run = run;
    t->job = job;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->done, NULL);
    const int e = pthread_create(&t->thread, NULL, thread_main, t);
    if (e != 0) {
        snprintf(err, errlen, "%s: no thread: %s", name, strerror(e));
        pthread_cond_destroy(&t->done);
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
    }
    return t;
}

void job_thread_destroy(JobThread *t)
{
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    while (t->running) pthread_cond_wait(&t->done, &t->lock);
    t->quit = true;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

bool job_thread_start(JobThread *t)
{
    pthread_mutex_lock(&t->lock);
    const bool idle = !t->running;
    if (idle) {
        t->running = true;
        t->ready = t->forget = false;
        pthread_cond_signal(&t->wake);
    }
    pthread_mutex_unlock(&t->lock);
    return idle;
}

bool job_thread_busy(JobThread *t)
{
    pthread_mutex_lock(&t->lock);
    const bool busy = t->running;
    pthread_mutex_unlock(&t->lock);
    return busy;
}

bool job_thread_take(JobThread *t)
{
    pthread_mutex_lock(&t->lock);
    const bool got = t->ready;
    t->ready = false;
    pthread_mutex_unlock(&t->lock);
    return got;
}

void job_thread_settle(JobThread *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->running) pthread_cond_wait(&t->done, &t->lock);
    pthread_mutex_unlock(&t->lock);
}

/* Only the caller starts a job, so none starts between the two. */
bool job_thread_wait(JobThread *t)
{
    job_thread_settle(t);
    return job_thread_take(t);
}

void job_thread_forget(JobThread *t)
{
    pthread_mutex_lock(&t->lock);
    if (t->running) t->forget = true;
    t->ready = false;
    pthread_mutex_unlock(&t->lock);
}
