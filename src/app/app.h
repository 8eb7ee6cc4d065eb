/* The application: options from the command line, and the frame loop that runs them. */
#ifndef STARBURST_APP_H
#define STARBURST_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "render/renderer.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "sim/sim.h"

/* AppOptions.draw: who draws the bodies (render/renderer.h's RenderDraw), or auto
 * (renderer_auto_draw: CUDA from RENDER_DRAW_CUDA_MIN bodies on CUDA, GL below). */
enum { APP_DRAW_AUTO = 0, APP_DRAW_GL, APP_DRAW_CUDA };
/* AppOptions.gpus: every GPU of the host (--gpus all); 1 .. 8 name themselves. */
#define APP_GPUS_ALL 9

typedef struct AppOptions {
    SceneDesc scene;
    bool scene_given; /* --scene named one */
    /* Simulation parameters; a negative value means "the scene's suggestion". */
    float dt, softening, damping;
    int steps_per_frame; /* 0 = backend default */
    SimBackend backend;
    SimKernel kernel;
    SimPrecision precision;
    int threads_per_body, block_size;
    int gpus;       /* GPUs a step is split across: 0 or 1 = one, APP_GPUS_ALL = all */
    SimForce force; /* direct, tree or auto (0) */
    float theta;    /* tree opening angle; 0 = the default (params_theta) */
    float alpha;    /* the tree's error-based test (params_alpha); < 0 = the default, or 0 (by the
                       angle) where theta is given */
    /* Display. */
    bool headless, fullscreen, vsync, no_ui, paused;
    int width, height;
    float point_size, exposure;
    ColorMode color_mode;
    int draw; /* APP_DRAW_* */
    bool auto_rotate;
    bool show_halo;          /* draw the dark-matter halo bodies */
    bool lecture;            /* full screen, large type, the kernel ladder on stage */
    bool measure_ladder;     /* time every rung of the kernel ladder at the start (K later) */
    int follow;              /* camera follows: 0 nothing, 1 galaxy A, 2 galaxy B, 3 the whole system */
    const char *shader_dir;
    /* Saved runs. */
    const char *save_path; /* written at exit, and by S */
    const char *load_path; /* start from a saved run (R returns to it) */
    float open_rate;       /* headless --open: snapshots a frame (1 = one each frame; 0.25 holds each
                              for four frames) */
    const char *open_path; /* start from the first snapshot of a series: a TIPSY or HDF5 (SWIFT,
                              GADGET) file, a folder or a glob (scene/snapshot.h; R returns to it) */
    SnapshotSeries *series; /* open_path's series, opened by app_parse_args for its scale: app_run
                               hands it to the run, app_options_free closes it otherwise */
    /* Presets. */
    const char *preset;       /* start with this preset */
    const char *presets_path; /* NULL = assets/presets.ini */
    float cycle_seconds;      /* > 0: start cycling through the presets */
    /* Runs that end by themselves. */
    int frames;              /* 0 = until closed */
    const char *screenshot;  /* PNG written after the last frame (or at quit) */
    const char *record_dir;  /* numbered PNGs, one a frame */
    bool capture_ui;         /* screenshots and recordings include the panel and HUD */
    int monitor;             /* > 0: every this many frames, a line of memory use and errors */
    bool quiet;
    /* The run's timeline: its memory in MB; < 0 = the default (a tenth of the memory available,
     * at most 1 GB), 0 = none. */
    float timeline_mb;
    /* The physical scale values with a unit are read on, found by app_parse_args: the scene's, a
     * saved run's (its .ini) or a series' (its first file); all 0: none, a unit is refused. */
    Units scale;
    /* `starburst serve` (src/app/serve_cli.c): the run served to web pages, headless. */
    bool serve;
    const char *serve_host; /* the address listened on: "127.0.0.1" */
    int serve_port;         /* 0: one the kernel picks */
    bool public_view;       /* a page without a token watches */
} AppOptions;

/* Defaults: the collision scene, auto backend, a 1280 x 720 window with vsync. */
void app_default_options(AppOptions *o);
/* Fills o from argv (argv[0] is the program). 0: run; 1: help was printed; -1: err holds one
 * line naming the bad value. */
int app_parse_args(AppOptions *o, int argc, char **argv, char *err, size_t errlen);
void app_print_usage(FILE *f);
/* Closes what app_parse_args opened (the series of --open) where app_run did not take it. */
void app_options_free(AppOptions *o);
/* Runs the frame loop until the window closes or the frames are done; returns an exit status. The
 * run it makes takes o->series over (o->series is NULL after). */
int app_run(AppOptions *o);

#endif
