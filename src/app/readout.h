/* The readout: a small text file of what the program runs with and where its controls are,
 * rewritten every frame when STARBURST_READOUT names it. It lets a test drive the real window
 * as a person does (mouse and keys from outside) and read back what the simulation received.
 * One "key value" line each; controls as "widget NAME x0 y0 x1 y1" in window pixels. */
#ifndef STARBURST_READOUT_H
#define STARBURST_READOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/sim.h"
#include "ui/ui.h"

typedef struct ReadoutState {
    int frame;
    double time;
    long long step;
    long long steps_run; /* steps computed since the run was made (a keyframe shown changes step, not this) */
    SimParams params; /* what the simulation received in the last advance */
    int bodies;
    const char *backend;
    const char *drawn_by; /* who drew the bodies: "gl", "cuda" */
    int width, height;
    bool fullscreen;
    int follow;
    bool pair_view; /* the view frames an encounter's pair as it approaches (follow.c) */
    bool recording;
    float camera_distance, camera_yaw;
    const char *alarm, *notice;
    SimForce force;    /* the method in use */
    int tree_boxes;    /* cells the tree overlay draws */
    bool tree_capped;  /* it draws fewer levels than asked: too many cells */
    const char *screenshot; /* the last screenshot written, or NULL */
    int series_reads;       /* snapshots of --open's series read from disk so far */
    bool encounter_built;   /* the run is a collision built here: built_encounter is its encounter */
    UiEncounter built_encounter;
    /* The run's timeline, besides what the UI model shows of it. */
    struct {
        long long spacing; /* steps between keyframes at least */
        int held;          /* keyframes set aside by a resume, for ctrl+Z */
        size_t bytes, budget;
        double scrub_ms;   /* the last request's time to its keyframe drawn */
        double load_ms;    /* of which the keyframe's load into the simulation */
        double capture_ms; /* the last keyframe's copy into the timeline */
        bool playing_back;
    } timeline;
    /* --open's series: its snapshots, and those read onto the timeline so far (the first
     * included); the line the window shows while reading is the UI model's timeline_reading. */
    struct {
        int count, read;
    } series;
    int keys_pressed, keys_captured; /* key presses that reached the app; those the UI kept */
    bool keyboard_captured;          /* the UI takes the keyboard now (a text field is active) */
    bool focused;                    /* the window has the input focus */
    int mouse_presses, wheel_turns;  /* mouse button presses and wheel turns that reached the app */
    const UiModel *ui;
} ReadoutState;

/* Writes r to path atomically (util/atomic_file.h): a reader never sees half of it. 0, or -1
 * with err. */
int readout_write(const char *path, const ReadoutState *r, char *err, size_t errlen);

#endif
