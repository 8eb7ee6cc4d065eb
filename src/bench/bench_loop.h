/* The whole-loop part of `starburst bench`: simulation steps/s and frames/s with rendering. */
#ifndef STARBURST_BENCH_LOOP_H
#define STARBURST_BENCH_LOOP_H

#include <stdbool.h>

#include "bench/bench.h"
#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/sim.h"

typedef struct BenchLoopOptions {
    int n;                       /* 0 = 16384 */
    int width, height;           /* 0 = 1920 x 1080 */
    int frames;                  /* timed frames per row; 0 = 300 */
    const int *steps_per_frame;  /* one row each */
    int steps_count;
    bool window;                 /* a GLFW window (vsync off) instead of EGL headless */
    SimBackend backend;
    SimForce force;              /* SIM_FORCE_AUTO (0): the backend's choice for n */
    float theta;                 /* the tree's and fmm's opening angle; 0 = the default */
    float alpha;                 /* > 0: the tree's error-based opening test (SimParams) */
    int rebuild_every;           /* > 1: the GPU tree refitted between builds (SimParams) */
    /* Who draws the bodies, a row each (per steps-per-frame value); none = GL, and CUDA too
     * where the simulation runs on it. */
    RenderDraw draws[RENDER_DRAW_COUNT];
    int draws_count;
    /* The galaxies' halos, a table each: none given = fields (the program's default). */
    SceneHalo halos[2];
    int halos_count;
} BenchLoopOptions;

/* Prints a table with one row per steps-per-frame value (its ms column is per frame), for each
 * halo mode asked, and a CSV copy at csv_path (NULL = none; a second mode's CSV beside it,
 * FILE-live.csv). 0, or 1 with one line on stderr. */
int bench_loop_run(const BenchLoopOptions *o, const char *csv_path);

#endif
