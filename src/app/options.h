/* The options a person gives, in one table: each row is a command-line option, a key of the presets
 * file, or both, with how its value reads (util/params.h), where AppOptions and a Preset keep it and
 * its lines of --help. The command line and --help (cli.c) and the presets reader and writer
 * (presets.c) walk it; a parameter of util/params.c's table takes its spellings from there. */
#ifndef STARBURST_OPTIONS_H
#define STARBURST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "app/presets.h"
#include "util/params.h"

/* The ways a run starts (AppOption.start, .serves): a scene built from nothing, a TIPSY file as it
 * is or collided, a preset, a saved run, a series. */
enum {
    APP_START_COLLISION = 1 << 0,     /* --scene collision, or no start named */
    APP_START_BUILT = 1 << 1,         /* --scene disk, plummer, shell or random */
    APP_START_TIPSY = 1 << 2,         /* --tipsy */
    APP_START_TIPSY_COLLIDE = 1 << 3, /* --tipsy-collide */
    APP_START_PRESET = 1 << 4,        /* --preset: it names its own scene */
    APP_START_LOAD = 1 << 5,          /* --load */
    APP_START_OPEN = 1 << 6,          /* --open */
};
/* The collision's orbit and galaxies: a built collision's or two TIPSY copies'. */
#define APP_START_ENCOUNTER (APP_START_COLLISION | APP_START_TIPSY_COLLIDE)
/* Every start that builds its bodies (a TIPSY file's: a subsample where -n is fewer). */
#define APP_START_BUILDS (APP_START_ENCOUNTER | APP_START_BUILT | APP_START_TIPSY)

typedef struct AppOption AppOption;
struct AppOption {
    const char *name;       /* "--scene"; a parameter's is its option; NULL: a presets key alone */
    const char *short_name; /* "-n", shown beside the name in --help */
    const char *other_name; /* another spelling the command line takes: "--colour" */
    const char *key;        /* in a presets file: "scene"; a parameter's is its key; NULL: none */
    const char *arg;        /* what --help calls the value: "N", "FILE" */
    const char *help;       /* --help's lines, '\n' between them */
    OptionSpec value;
    OptionStore app;        /* where AppOptions keeps it */
    OptionStore preset;     /* where a Preset keeps it */
    unsigned preset_bit;    /* PRESET_*: set in Preset.set when the key is read */
    const char *preset_only; /* the one value a preset may give ("backend = cuda"); preset_bit says it did */
    PresetSource source;    /* a file's key: the source it names */
    bool names_scene;       /* the scene on whose scale the values with a unit after it are read */
    bool in_disk_scale;     /* a length in galaxy A's disk scale lengths */
    bool sets_disk_scale;   /* galaxy A's disk scale length, which lengths after it are read in */
    unsigned start;         /* APP_START_*: the start this option names (--scene, --load, ...); 0: none */
    unsigned serves;        /* APP_START_* bits: the starts whose bodies this option makes (-n, --seed,
                               --mass-ratio); 0: a setting every start takes */
    bool exported;          /* `starburst export` takes it too (a scene's options, dt, softening); the
                               others are the viewer's, and export refuses them */
    /* What a value does besides its store: the scene a file picks, a set bit of the scene. */
    void (*to_app)(AppOptions *o, const OptionValue *v);
    /* The same for a preset, or a refusal: 0, or -1 with what is wrong in why ("is not cuda: ..."). */
    int (*to_preset)(Preset *p, const AppOption *row, const OptionValue *v, char *why, size_t len);
    /* Whether presets_append writes the key; NULL: where the file gave it (preset_bit), else where
     * its value is not 0. */
    bool (*written)(const Preset *p, const AppOption *row);
};

/* The table, in --help's order; *count rows. */
const AppOption *app_options(int *count);
/* The row the command line's arg names (its name, short name or other spelling), or NULL. */
const AppOption *app_option_named(const char *arg);
/* The row of a presets key, or NULL. */
const AppOption *app_option_keyed(const char *key);
/* Its spellings, a parameter's from the parameter table; NULL where it has none. */
const char *app_option_name(const AppOption *o);
const char *app_option_key(const AppOption *o);
/* Reads text as o's value (option_read) for a scene: a length in galaxy A's disk scale lengths
 * is converted with the scene's scale length. */
int app_option_read(const AppOption *o, const SceneDesc *scene, const Units *u, const char *label, const char *text,
                    OptionValue *v, char *err, size_t errlen);

#endif
