/* Presets: named scenes with their parameters and a camera, kept in an INI file
 * (assets/presets.ini). A section is a preset; keys it leaves out keep the program's defaults. */
#ifndef STARBURST_PRESETS_H
#define STARBURST_PRESETS_H

#include <stdbool.h>
#include <stddef.h>

#include "scene/scene.h"
#include "sim/sim.h"

enum {
    PRESET_DT = 1 << 0,
    PRESET_SOFTENING = 1 << 1,
    PRESET_DAMPING = 1 << 2,
    PRESET_STEPS = 1 << 3,
    PRESET_EXPOSURE = 1 << 4,
    PRESET_POINT_SIZE = 1 << 5,
    PRESET_COLOR = 1 << 6,
    PRESET_CAMERA = 1 << 7,
    PRESET_AUTO_ROTATE = 1 << 8,
    PRESET_FORCE = 1 << 9,
    PRESET_CUDA = 1 << 10, /* backend = cuda: offered only where the CUDA backend runs */
    PRESET_THETA = 1 << 11,
    PRESET_VELOCITY = 1 << 12, /* velocity_radial and velocity_tangential: the orbit from today's state */
    PRESET_ALPHA = 1 << 13,
};

/* Where a preset's bodies come from: a built-in scene, or a file. */
typedef enum PresetSource {
    PRESET_SOURCE_SCENE = 0,
    PRESET_SOURCE_TIPSY,         /* tipsy = FILE: a TIPSY snapshot as it is */
    PRESET_SOURCE_TIPSY_COLLIDE, /* tipsy_collide = FILE: two copies on a collision orbit */
    PRESET_SOURCE_LOAD,          /* load = FILE: a saved run (FILE and FILE.ini) */
} PresetSource;

typedef struct Preset {
    char name[64];
    SceneDesc scene;   /* kind, n, seed and the collision parameters; tipsy_path unset (see file) */
    PresetSource source;
    char file[1024];   /* the file of a source other than a scene */
    char about[320];   /* about = one line on what the encounter is and what to watch for */
    char cite[320];    /* source = the work it follows, as cited */
    float dt, softening, damping;
    float theta;       /* the tree's opening angle */
    float alpha;       /* the tree's error-based test; 0: by the angle (theta alone given implies it) */
    int steps_per_frame;
    float exposure, point_size;
    int color_mode;    /* ColorMode */
    float camera_yaw, camera_pitch; /* degrees */
    float camera_distance;          /* in units of the scene's extent */
    bool auto_rotate;
    SimForce force;    /* force = auto | direct | tree | fmm */
    float velocity_radial, velocity_tangential; /* model speeds at the separation; scene's eccentricity
                                                   and pericentre follow from them */
    unsigned set;      /* PRESET_* bits: which of the optional fields the file gave */
} Preset;

#define PRESETS_SKIPPED_MAX 8
typedef struct PresetList {
    Preset *items;
    int count;
    /* What a skipping read left out, a line each: "presets.ini:184: steps_per_frame = '-3' is too
     * small: expected 1 to 1024: the preset [Mine] (line 180) is skipped"; past the first
     * PRESETS_SKIPPED_MAX, counted alone. */
    char skipped[PRESETS_SKIPPED_MAX][600];
    int skipped_count, skipped_more;
} PresetList;

/* Reads path. Unknown keys, bad values, a key given twice in a section and lines that are not INI
 * fail with "path:line: ..." in err, the line counted as a person counts it. */
int presets_load(const char *path, PresetList *out, char *err, size_t errlen);
/* As presets_load, where a preset with a mistake is left out with a line in out->skipped and the
 * others are read: a presets file with a bad section still starts the program. -1 with err only
 * where the file cannot be read at all. */
int presets_load_skipping(const char *path, PresetList *out, char *err, size_t errlen);
void presets_free(PresetList *list);
/* The preset named name, or NULL. */
const Preset *presets_find(const PresetList *list, const char *name);
/* Appends p as a new section to path atomically: the old content and the new section go to a
 * temporary file that then replaces path. Fails, leaving path as it was, when a preset of that
 * name exists already or anything cannot be written. */
int presets_append(const char *path, const Preset *p, char *err, size_t errlen);

#endif
