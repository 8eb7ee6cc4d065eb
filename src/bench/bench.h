/* The bench: `starburst bench`, a program of its own beside the viewer (src/app/), built as the
 * library starburst_bench over starburst_lib. It times what the library runs, and prints tables
 * and writes CSVs and PNG charts:
 *   bench.h           bench_main; the force-kernel table and sweeps; the table and chart helpers
 *   bench_cli.h       the command line: which parts run, and with what
 *   bench_tree.h      the Barnes-Hut tree against the direct sum, and the crossover N
 *   bench_loop.h      the whole loop: steps/s, and frames/s with rendering
 *   bench_progress.h  where a long bench is, on stderr
 *   chart.h           line charts drawn off screen with Dear ImGui, written as PNG
 * Arrows point down: the bench includes sim, scene, render, ui's font, util and kernels; nothing
 * but main.c and the bench's tests includes the bench.
 *
 * The force-kernel bench: every kernel of the ladder timed at several N with CUDA events, read
 * against the FP32 rate the device sustains in the same run. Its table helpers also take the
 * app's whole-loop rows (steps/s, frames/s with rendering). */
#ifndef STARBURST_BENCH_H
#define STARBURST_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/chart.h"

/* `starburst bench ...`, argv[0] being "bench": parses the options (bench_cli.h) and runs what
 * they ask for. 0 (also after --help); 2 after a bad option (one line on stderr) or when a part
 * asked for cannot run here (no CUDA); 1 after another error. */
int bench_main(int argc, char **argv);

/* Zero fields mean "default". */
typedef struct BenchOptions {
    const int *ns; /* body counts; NULL = 4096, 16384, 65536, 131072, 1048576 */
    int ns_count;
    /* "naive", "registers", "tiled", "tiled-unrolled", "mtpb", "mtpb-f64"; NULL = all */
    const char *const *kernels;
    int kernels_count;
    const char *csv_path;             /* NULL = no CSV */
    int repeats;                      /* timed launches per cell, the median reported; 0 = 10 */
    int threads_per_body, block_size; /* mtpb launch shape; 0 = chosen */
    /* Instead of the table, the tuning experiments: every kernel against N (ns, default 1024 ..
     * 1M by doubling); tiled, tiled-unrolled and mtpb against threads per block at N = 131,072;
     * mtpb against threads per body at N = 1024, 4096, 16384. A table, a CSV and a chart each
     * (see bench_sweep_paths). */
    bool sweep;
} BenchOptions;

/* Prints the table (or the sweep's tables) on stdout, and the CSV; on stderr, the cell it is at
 * and the time left (bench_progress.h). Returns 0; 1 after an error (one line on stderr); 2 when
 * this build or this machine has no CUDA backend. */
int bench_run(const BenchOptions *o);

typedef struct BenchRow {
    const char *name;          /* the kernel, or what the row measures */
    int n;                     /* bodies */
    const char *shape;         /* launch shape ("q8 b256 r1"), or NULL */
    double ms;                 /* per step, or per frame */
    double force_ms;           /* the force + kick kernel alone; 0 = not measured */
    double interactions_per_s; /* 0 = not measured (a skipped row) */
    double peak_fraction;      /* of the device's peak interactions/s; 0 = unknown */
    const char *note;          /* NULL, or a word on the row ("skipped: ~9.8 s per call") */
} BenchRow;

typedef struct BenchTable BenchTable;
/* Starts a table on out, with the title lines printed above it and a CSV copy at csv_path
 * (NULL = none). NULL with one line in err when the CSV file cannot be written. */
BenchTable *bench_table_open(FILE *out, const char *title, const char *csv_path, char *err, size_t errlen);
void bench_table_row(BenchTable *t, const BenchRow *r);
/* Returns 0, or -1 when the CSV could not be written completely. */
int bench_table_close(BenchTable *t);

/* Where the sweep writes experiment `what` ("n", "block", "q"): beside csv_path, STEM-what.csv
 * and STEM-what.png (STEM: csv_path less its extension); with csv_path NULL, no CSV (csv = "")
 * and sweep-what.png in the current folder. False when a path does not fit in len. */
bool bench_sweep_paths(const char *csv_path, const char *what, char *csv, char *png, size_t len);
/* Draws the chart as a BENCH_CHART_WIDTH x BENCH_CHART_HEIGHT PNG in a headless GL context of
 * its own (which it destroys, leaving no context current). 0, or -1 with one line in err. */
#define BENCH_CHART_WIDTH 1600
#define BENCH_CHART_HEIGHT 1000
int bench_chart_png(const Chart *chart, const char *path, char *err, size_t errlen);

#endif
