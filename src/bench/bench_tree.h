/* The tree's part of `starburst bench`: for each N, the collision scene stepped through the sim
 * API with the Barnes-Hut tree (or the fast multipole method, --force fmm) rebuilt every step, against the direct sum (the symmetric kernel on
 * the GPU) at the same N in the same run, and the tree's force error against the f64 direct sum
 * on a sample of bodies. Then the crossover: the smallest N from which the tree's step is the
 * faster, the figure SIM_TREE_MIN_BODIES_CUDA and SIM_TREE_MIN_BODIES_CPU are set from. */
#ifndef STARBURST_BENCH_TREE_H
#define STARBURST_BENCH_TREE_H

#include <stdio.h>

#include "sim/diag.h"
#include "sim/sim.h"

/* Body counts when none are given: the table's, and the crossover's between 16K and 256K. */
#define BENCH_TREE_MAX_NS 16
/* The f64 check's sample of bodies, spread over the system. */
#define BENCH_TREE_SAMPLES 1000
/* The accuracy the tree is held to (median and 99th percentile of |a - a_f64| / |a_f64|). */
#define BENCH_TREE_GOAL_MEDIAN 1e-4
#define BENCH_TREE_GOAL_P99 1e-3
/* Opening angles one run compares at most. */
#define BENCH_TREE_MAX_THETAS 4
/* A direct step predicted (from the rate at the N before) to take longer is not timed. */
#define BENCH_TREE_DIRECT_MAX_S 60.0

/* Zero fields mean "default". */
typedef struct BenchTreeOptions {
    const int *ns; /* NULL = bench_tree_default_ns */
    int ns_count;
    SimBackend backend; /* auto: CUDA where a device is usable; else the bench refuses (status 2) */
    SimForce force;     /* the method timed: SIM_FORCE_TREE (0 = the tree) or SIM_FORCE_FMM */
    float theta;        /* 0 = the default (params_theta) */
    float alpha;        /* > 0: the error-based opening test, theta its widest angle (SimParams) */
    int rebuild_every;  /* > 1: the GPU tree rebuilt every this many steps, refitted between */
    /* More opening angles: a table each, then the accuracy front (the fastest angle that meets
     * BENCH_TREE_GOAL_MEDIAN and BENCH_TREE_GOAL_P99 at each N); theta is ignored. */
    const float *thetas;
    int thetas_count;
    int samples;        /* bodies in the f64 check; 0 = BENCH_TREE_SAMPLES */
    int repeats;        /* timed steps per cell, the median reported; 0 = 10 */
    const char *csv_path; /* NULL = no CSV */
    /* With more than one angle: the front charted as a PNG here (median error against ms a step,
     * a line for each N, the goal dashed); NULL = no chart. */
    const char *front_png;
    FILE *out;            /* the table; NULL = stdout */
    FILE *progress;       /* where the bench is (bench_progress.h); NULL = stderr */
} BenchTreeOptions;

/* What one N measured. A time of 0 was not measured (see note). */
typedef struct BenchTreeRow {
    int n;
    double step_ms;            /* a whole tree step: drift, build, walk, kick */
    double build_ms, walk_ms;  /* the tree's part of it (the fmm: walk = its interactions) */
    double upward_ms, downward_ms; /* the fmm's multipoles and expansions' evaluation; 0 for the tree */
    double body_body, body_cell, body_group; /* interactions a body (body_group: the fmm's M2L) */
    double direct_ms;          /* a whole direct step at the same N */
    ForceCheck error;          /* against f64; samples 0 = not measured */
    char note[200];
} BenchTreeRow;

/* Prints the table, the crossover line and the CSV. 0; 1 after an error (one line on stderr); 2
 * when the backend asked for cannot run here. */
int bench_tree_run(const BenchTreeOptions *o);

/* The default body counts for a backend, smallest first: 16K .. 256K by doubling, then (CUDA) 1M,
 * 4M and 8M. Returns how many (at most BENCH_TREE_MAX_NS). */
int bench_tree_default_ns(SimBackend backend, int *ns);
/* The smallest N from which the tree's step beats the direct one at every larger N where both
 * were timed (rows in increasing N); 0 when the direct sum is the faster at the largest such N or
 * none has both. */
int bench_tree_crossover(const BenchTreeRow *rows, int count);

#endif
