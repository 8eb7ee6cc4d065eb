/* One background job at a time on a thread of its own: the caller fills the job's inputs while
 * the thread is idle, starts it, and takes its result once it has finished, never waiting for it
 * in between (a frame loop's diagnostics). The job's memory belongs to the thread from start until
 * it finishes, to the caller otherwise. A job forgotten (its state gone) gives no result. */
#ifndef STARBURST_JOB_THREAD_H
#define STARBURST_JOB_THREAD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct JobThread JobThread;

/* Starts the thread, which runs run(job) for each start; NULL with one line in err when it cannot.
 * name says whose it is in that line ("force watch"). */
JobThread *job_thread_create(void (*run)(void *job), void *job, const char *name, char *err, size_t errlen);
/* Waits for a job under way, then stops the thread. NULL is a no-op. */
void job_thread_destroy(JobThread *t);
/* Runs the job once; false (nothing done) while one is under way. */
bool job_thread_start(JobThread *t);
bool job_thread_busy(JobThread *t);
/* True once for each job that finished and was not forgotten: its result is the caller's to read. */
bool job_thread_take(JobThread *t);
/* Waits until no job is under way; what it finished stays to be taken. */
void job_thread_settle(JobThread *t);
/* Waits until no job is under way, then takes as job_thread_take does. */
bool job_thread_wait(JobThread *t);
/* The job under way, or one finished and not yet taken, gives no result. */
void job_thread_forget(JobThread *t);

#endif
