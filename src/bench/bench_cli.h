/* `starburst bench [options]`: the kernel table, the tree against the direct sum, then the whole
 * loop; `--force tree` the tree alone. */
#ifndef STARBURST_BENCH_CLI_H
#define STARBURST_BENCH_CLI_H

#include <stddef.h>

#include "bench/bench.h"
#include "bench/bench_gpus.h"
#include "bench/bench_loop.h"
#include "bench/bench_tree.h"

typedef struct BenchCli {
    BenchOptions kernels;
    BenchTreeOptions tree;
    BenchLoopOptions loop;
    BenchGpusOptions gpus;
    bool run_kernels, run_tree, run_loop, run_gpus;
    const char *csv_path;
    /* Storage for the lists the options point into. */
    int ns[16];
    const char *kernel_names[8];
    char kernel_text[256];
    int steps[8];
    float thetas[BENCH_TREE_MAX_THETAS];
} BenchCli;

/* argv[0] is "bench". 0: run; 1: help printed; -1: one line in err. */
int bench_parse_args(BenchCli *b, int argc, char **argv, char *err, size_t errlen);
/* Runs what b asks for; returns the exit status. */
int bench_cli_run(BenchCli *b);

#endif
