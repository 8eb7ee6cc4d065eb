/* `starburst bench --gpus 1,2`: the direct sum (or with --force tree the tree) split across the
 * GPUs of one host (docs/MULTI_GPU.md), rows side by side: for each N, each GPU count's whole step
 * through the sim API (drift, the symmetric kernel's tasks shared out or the tree's walk shared,
 * the sum and kick), on the first GPU's clock,
 * with interactions/s, the speed-up and efficiency against one GPU, and the share of the step the
 * copy of the positions to the other GPUs took. */
#ifndef STARBURST_BENCH_GPUS_H
#define STARBURST_BENCH_GPUS_H

#include <stdio.h>

#include "sim/sim.h"

#define BENCH_GPUS_MAX_COUNTS 4

typedef struct BenchGpusOptions {
    SimForce force; /* direct (0 counts as direct) or tree: the tree's walk shared, by estimated error */
    const int *ns; /* NULL = 1,048,576 and 2,097,152 (the tree: 1,048,576 and 16,777,216) */
    int ns_count;
    int counts[BENCH_GPUS_MAX_COUNTS]; /* GPU counts, one a row; -1 = all */
    int counts_count;
    int repeats;          /* timed steps a row, the median reported; 0 = 5 */
    const char *csv_path; /* NULL = no CSV */
    FILE *out;            /* NULL = stdout */
} BenchGpusOptions;

/* Runs the table; returns the exit status (2 where no CUDA device can run it). */
int bench_gpus_run(const BenchGpusOptions *o);

#endif
