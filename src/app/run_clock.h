/* The time a run ran: the frame loop's wall time, less the time the process was stopped (ctrl+Z,
 * SIGSTOP), so that "300 steps in 12.5 s" gives the rate the run went at. The monotonic clock goes
 * on while a process is stopped, and no clock of Linux leaves that out (process CPU time counts
 * every thread and none of the time waited on the GPU or vsync), so the stop is found another
 * way: a SIGCONT handler marks the frame in which the process was continued, and that frame
 * counts as long as the one before it (the stop cannot be told apart from the frame's own work,
 * and a frame's work is that of the frame before within a few per cent). */
#ifndef STARBURST_RUN_CLOCK_H
#define STARBURST_RUN_CLOCK_H

typedef struct RunClock {
    double last;    /* clock_seconds() at the last frame */
    double frame;   /* the length of the last frame, as counted */
    double running; /* seconds run up to the last frame */
} RunClock;

/* Starts counting at t (clock_seconds()); installs the SIGCONT handler, once. */
void run_clock_start(RunClock *c, double t);
/* A frame ended at t: its time since the last is counted, or the last frame's time if the
 * process was continued after a stop in between. */
void run_clock_frame(RunClock *c, double t);
/* Seconds run from the start to t, counted as one more frame ending at t. */
double run_clock_seconds(RunClock *c, double t);

#endif
