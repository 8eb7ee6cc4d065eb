/* Where a long bench is: "bench: 7/42  symmetric N=131072  (about 35 s left)" on stderr, one
 * line per cell. The count of cells is known up front; the time left assumes the cells still to
 * come take as long, on average, as those done (the bench goes from small N to large, so early
 * estimates run short). On a terminal the line is rewritten in place and taken off before the
 * bench prints anything, so that the table on stdout reads as before; elsewhere (a log) each
 * cell gets a plain line. */
#ifndef STARBURST_BENCH_PROGRESS_H
#define STARBURST_BENCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct BenchProgress {
    FILE *out;     /* NULL = silent */
    bool terminal; /* rewrite one line in place */
    int count;     /* cells in all */
    int started;   /* cells begun; the one running is number `started` */
    double start;  /* monotonic seconds at begin */
    int shown;     /* characters of the line on the terminal now; 0 = none */
} BenchProgress;

/* Starts counting count cells, reported on out (a terminal or not, as isatty says). */
void bench_progress_begin(BenchProgress *p, FILE *out, int count);
/* A cell begins (those before it are done): shows its number and `what` it measures. */
void bench_progress_step(BenchProgress *p, const char *what);
/* Takes the line off the terminal: before anything else is printed, and at the end. */
void bench_progress_clear(BenchProgress *p);

/* Seconds left when done of count cells took elapsed seconds: elapsed * (count - done) / done;
 * negative (unknown) while none is done. */
double bench_progress_left(int done, int count, double elapsed);
/* The line for cell k of count (1-based; k - 1 done in elapsed seconds), without a newline.
 * Returns what snprintf returns. */
int bench_progress_line(char *buf, size_t len, int k, int count, const char *what, double elapsed);

#endif
