/* `starburst bench [options]`: the kernel table, then the whole loop. */
#ifndef STARBURST_BENCH_CLI_H
#define STARBURST_BENCH_CLI_H

#include <stddef.h>

#include "app/bench.h"
#include "app/bench_loop.h"

typedef struct BenchCli {
    BenchOptions kernels;
    BenchLoopOptions loop;
    bool run_kernels, run_loop;
    const char *csv_path;
    /* Storage for the lists the options point into. */
    int ns[16];
    const char *kernel_names[8];
    char kernel_text[256];
    int steps[8];
} BenchCli;

/* argv[0] is "bench". 0: run; 1: help printed; -1: one line in err. */
int bench_parse_args(BenchCli *b, int argc, char **argv, char *err, size_t errlen);
/* Runs what b asks for; returns the exit status. */
int bench_main(BenchCli *b);

#endif
