/* The table of options (options.h). A row gives the value's kind and range once; the command line,
 * --help and the presets file all read it from here, so that a value one of them takes the others
 * take too. Rows that only a presets file gives (an encounter's orbit and galaxies, the camera)
 * have no name and stay out of --help. */
#include "app/options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "render/renderer.h"
#include "run/run_choices.h"
#include "scene/scene.h"
#include "sim/sim.h"

/* The names of the choices, from the modules that own them (a run's own: run/run_choices.h). */
static const char *kernel_choice(int v) { return sim_kernel_name((SimKernel)v); }
static const char *color_choice(int v) { return renderer_color_mode_name((ColorMode)v); }

/* --gpus: 1 .. GPU_SPLIT_MAX, then "all" (AppOptions.gpus APP_GPUS_ALL). */
static const char *gpus_choice(int v)
{
    static const char *const names[] = {"?", "1", "2", "3", "4", "5", "6", "7", "8", "all"};
    _Static_assert(sizeof names / sizeof *names == APP_GPUS_ALL + 1, "a name for every count");
    return v >= 1 && v <= APP_GPUS_ALL ? names[v] : "?";
}

static const char *precision_choice(int v)
{
    static const char *const names[] = {[SIM_PRECISION_FLOAT] = "float", [SIM_PRECISION_DOUBLE] = "double"};
    return names[v];
}

#define OPTION_TEXT_OF(x) #x
#define OPTION_TEXT(x) OPTION_TEXT_OF(x)

static const char *draw_choice(int v)
{
    static const char *const names[] = {[APP_DRAW_AUTO] = "auto", [APP_DRAW_GL] = "gl", [APP_DRAW_CUDA] = "cuda"};
    return names[v];
}

/* AppOptions.follow: 0 nothing, 1 galaxy A, 2 galaxy B, 3 the whole system. */
static const char *follow_choice(int v)
{
    static const char *const names[] = {"none", "a", "b", "all"};
    return names[v];
}

/* Besides the value: the scene a file picks, a choice the scene keeps apart from its default. */
static void tipsy_as_it_is(AppOptions *o, const OptionValue *v) { o->scene.kind = SCENE_TIPSY; }
static void tipsy_collided(AppOptions *o, const OptionValue *v) { o->scene.kind = SCENE_TIPSY_COLLIDE; }
static void inclination_b_given(AppOptions *o, const OptionValue *v) { o->scene.set |= SCENE_SET_INCLINATION_B; }
static void lecture_full_screen(AppOptions *o, const OptionValue *v) { o->fullscreen = true; }
static void scene_named(AppOptions *o, const OptionValue *v) { o->scene_given = true; }

static void window_size(AppOptions *o, const OptionValue *v)
{
    o->width = (int)v->number;
    o->height = (int)v->height;
}

static int preset_file(Preset *p, const AppOption *row, const OptionValue *v, char *why, size_t len)
{
    if (!v->text[0]) {
        snprintf(why, len, "is not a file name");
        return -1;
    }
    p->source = row->source;
    p->scene.kind = row->source == PRESET_SOURCE_TIPSY_COLLIDE ? SCENE_TIPSY_COLLIDE : SCENE_TIPSY;
    return 0;
}

static int preset_inclination_b(Preset *p, const AppOption *row, const OptionValue *v, char *why, size_t len)
{
    p->scene.set |= SCENE_SET_INCLINATION_B;
    return 0;
}

/* Which keys presets_append writes, where the rule (given, or not 0) is not enough. */
static bool scene_written(const Preset *p, const AppOption *row) { return p->source == PRESET_SOURCE_SCENE; }
static bool file_written(const Preset *p, const AppOption *row) { return p->source == row->source; }

/* An orbit given by today's velocities is written as those; its conic follows from them on reading. */
static bool conic_written(const Preset *p, const AppOption *row)
{
    return !(p->set & PRESET_VELOCITY) && !option_stored_zero(p, &row->preset);
}

static bool inclination_b_written(const Preset *p, const AppOption *row)
{
    return p->scene.inclination_b != 0 || (p->scene.set & SCENE_SET_INCLINATION_B);
}

#define APP(field, type) {OPTION_STORE_##type, offsetof(AppOptions, field), sizeof(((AppOptions *)0)->field)}
#define PRE(field, type) {OPTION_STORE_##type, offsetof(Preset, field), sizeof(((Preset *)0)->field)}
#define HEADING(text) {.help = text, .value = {.kind = OPTION_HEADING}}
#define PARAM(id) {.kind = OPTION_PARAM, .param = id}
#define FLAG {.kind = OPTION_FLAG}
#define TEXT {.kind = OPTION_TEXT}
#define CHOICE(fn, lo, hi, what) {.kind = OPTION_CHOICE, .name_of = fn, .first = lo, .end = hi, .noun = what}
#define NUMBER(lo, hi, what) {.kind = OPTION_NUMBER, .min = lo, .max = hi, .unit = what}
#define WHOLE(lo, hi) {.kind = OPTION_NUMBER, .min = lo, .max = hi, .whole = true}
/* A galaxy's make-up in a preset: a_disk_mass, b_halo_scale, ... in model units or with a unit.
 * a_disk_scale is the length an orbit's lengths are given in. */
#define GALAXY_ROW(g, prefix, field, what, d)                                                      \
    {.key = prefix #field, .value = {.kind = OPTION_NUMBER, .min = 1e-4, .max = 1e4, .unit = what, .dim = d}, \
     .preset = PRE(scene.galaxy[g].field, FLOAT),                                                  \
     .sets_disk_scale = g == 0 && offsetof(GalaxyModel, field) == offsetof(GalaxyModel, disk_scale)}
#define GALAXY(g, prefix, field, measure) GALAXY_ROW(g, prefix, field, measure)
#define GALAXY_MASS "model mass units", UNIT_MASS
#define GALAXY_LENGTH "model length units", UNIT_LENGTH
#define GALAXY_RATIO NULL, UNIT_NONE
#define GALAXY_ROWS(g, prefix)                                                                     \
    GALAXY(g, prefix, disk_mass, GALAXY_MASS), GALAXY(g, prefix, disk_scale, GALAXY_LENGTH),       \
    GALAXY(g, prefix, disk_height, GALAXY_LENGTH), GALAXY(g, prefix, toomre_q, GALAXY_RATIO),      \
    GALAXY(g, prefix, bulge_mass, GALAXY_MASS), GALAXY(g, prefix, bulge_scale, GALAXY_LENGTH),     \
    GALAXY(g, prefix, halo_mass, GALAXY_MASS), GALAXY(g, prefix, halo_scale, GALAXY_LENGTH),       \
    GALAXY(g, prefix, halo_cut, GALAXY_LENGTH)

static const AppOption table[] = {
    HEADING("Scene (applied at start and on reset):"),
    {"--scene", .key = "scene", .arg = "NAME", .help = "the scene built from nothing (default collision)",
     .value = RUN_CHOICE_SCENE, .app = APP(scene.kind, INT), .to_app = scene_named,
     .preset = PRE(scene.kind, INT), .names_scene = true, .written = scene_written,
     .start = APP_START_COLLISION | APP_START_BUILT, .exported = true},
    {"--tipsy", .key = "tipsy", .arg = "FILE", .help = "a TIPSY snapshot as it is", .value = TEXT,
     .app = APP(scene.tipsy_path, STRING), .to_app = tipsy_as_it_is, .preset = PRE(file, CHARS),
     .source = PRESET_SOURCE_TIPSY, .to_preset = preset_file, .names_scene = true, .written = file_written,
     .start = APP_START_TIPSY, .exported = true},
    {"--tipsy-collide", .key = "tipsy_collide", .arg = "FILE",
     .help = "two copies of a TIPSY galaxy on a collision orbit", .value = TEXT, .app = APP(scene.tipsy_path, STRING), .to_app = tipsy_collided, .preset = PRE(file, CHARS),
     .source = PRESET_SOURCE_TIPSY_COLLIDE, .to_preset = preset_file, .names_scene = true, .written = file_written,
     .start = APP_START_TIPSY_COLLIDE, .exported = true},
    {"--load", .key = "load", .arg = "FILE", .help = "continue a saved run (a TIPSY file, FILE.ini and FILE.acc beside\n"
                                                   "it); goes with none of --preset, --scene, --tipsy, -n, --seed",
     .value = TEXT, .app = APP(load_path, STRING), .preset = PRE(file, CHARS), .source = PRESET_SOURCE_LOAD,
     .to_preset = preset_file, .names_scene = true, .written = file_written, .start = APP_START_LOAD,
     .exported = true},
    {.short_name = "-n", .arg = "N", .help = "number of bodies (a collision needs 6, a disk 3)",
     .value = PARAM(PARAM_BODIES), .app = APP(scene.n, INT), .preset = PRE(scene.n, INT),
     .serves = APP_START_BUILDS | APP_START_PRESET, .exported = true},
    {"--seed", .key = "seed", .arg = "S", .help = "random seed (default 1)", .value = {.kind = OPTION_SEED},
     .app = APP(scene.seed, SEED), .preset = PRE(scene.seed, SEED), .serves = APP_START_BUILDS, .exported = true},
    {"--halo", .key = "halo", .arg = "MODE",
     .help = "the galaxies' dark halos: field (analytic, with dynamical friction: every body a star; the "
             "default) or live (bodies, the full N-body)",
     .value = RUN_CHOICE_HALO, .app = APP(scene.halo, INT),
     .preset = PRE(scene.halo, INT), .serves = APP_START_COLLISION | APP_START_BUILT},
    {.arg = "X", .help = "collision: the mass ratio", .value = PARAM(PARAM_MASS_RATIO),
     .app = APP(scene.mass_ratio, FLOAT), .preset = PRE(scene.mass_ratio, FLOAT), .serves = APP_START_ENCOUNTER, .exported = true},
    {.value = PARAM(PARAM_SEPARATION), .preset = PRE(scene.separation, FLOAT), .in_disk_scale = true,
     .serves = APP_START_ENCOUNTER, .exported = true},
    {.key = "velocity_radial", .value = {.kind = OPTION_NUMBER, .min = -100, .max = 100,
     .unit = "model speed units", .dim = UNIT_SPEED}, .preset = PRE(velocity_radial, FLOAT),
     .preset_bit = PRESET_VELOCITY},
    {.key = "velocity_tangential", .value = {.kind = OPTION_NUMBER, .min = 0, .max = 100,
     .unit = "model speed units", .dim = UNIT_SPEED}, .preset = PRE(velocity_tangential, FLOAT),
     .preset_bit = PRESET_VELOCITY},
    {.other_name = "--pericenter", .arg = "X", .help = "collision: closest approach, within the separation",
     .value = PARAM(PARAM_PERICENTRE), .in_disk_scale = true, .app = APP(scene.pericentre, FLOAT),
     .preset = PRE(scene.pericentre, FLOAT), .written = conic_written, .serves = APP_START_ENCOUNTER, .exported = true},
    {.value = PARAM(PARAM_ECCENTRICITY), .preset = PRE(scene.eccentricity, FLOAT), .written = conic_written,
     .serves = APP_START_ENCOUNTER, .exported = true},
    {.value = PARAM(PARAM_PERICENTRE_ANGLE), .preset = PRE(scene.pericentre_angle, FLOAT),
     .serves = APP_START_ENCOUNTER, .exported = true},
    GALAXY_ROWS(0, "a_"),
    GALAXY_ROWS(1, "b_"),
    {.key = "about", .value = TEXT, .preset = PRE(about, CHARS)},
    {.key = "source", .value = TEXT, .preset = PRE(cite, CHARS)},
    {.arg = "DEG", .help = "collision: tilt of disk A", .value = PARAM(PARAM_INCLINATION_A),
     .app = APP(scene.inclination_a, FLOAT), .preset = PRE(scene.inclination_a, FLOAT),
     .serves = APP_START_ENCOUNTER, .exported = true},
    {.arg = "DEG", .help = "collision: tilt of disk B", .value = PARAM(PARAM_INCLINATION_B),
     .app = APP(scene.inclination_b, FLOAT), .to_app = inclination_b_given,
     .preset = PRE(scene.inclination_b, FLOAT), .to_preset = preset_inclination_b, .written = inclination_b_written,
     .serves = APP_START_ENCOUNTER, .exported = true},
    {"--open", .arg = "PATH",
     .help = "start from the first snapshot of a series: a TIPSY or HDF5 file\n"
             "(SWIFT, GADGET-4: any particle types, converted to model units),\n"
             "a folder of them or a glob ('out/snapshot_*.hdf5'); see export.\n"
             "Goes with none of --load, --preset, --scene, --tipsy",
     .value = TEXT, .app = APP(open_path, STRING), .start = APP_START_OPEN},
    {"--open-rate", .arg = "S",
     .help = "headless --open plays its series, S snapshots a frame (default 1;\n"
             "0.25 holds each for 4 frames); --frames defaults to its length",
     .value = {.kind = OPTION_NUMBER, .min = 0, .min_open = true, .max = 1000}, .app = APP(open_rate, FLOAT)},
    {"--save", .arg = "FILE", .help = "save the run there at exit (S saves at any time)", .value = TEXT,
     .app = APP(save_path, STRING)},
    {"--preset", .arg = "NAME", .help = "start with a preset of the presets file", .value = TEXT,
     .app = APP(preset, STRING), .start = APP_START_PRESET},
    {"--presets", .arg = "FILE",
     .help = "the presets file (default: assets/presets.ini in the folder above the\n"
             "program's, as build/../assets; else the source tree's)",
     .value = TEXT, .app = APP(presets_path, STRING)},
    {"--cycle", .arg = "SECONDS", .help = "step through the presets every SECONDS (C toggles)",
     .value = NUMBER(1, 3600, "seconds"), .app = APP(cycle_seconds, FLOAT)},

    HEADING("Simulation:"),
    {.arg = "X", .help = "timestep", .value = PARAM(PARAM_DT), .app = APP(dt, FLOAT), .preset = PRE(dt, FLOAT),
     .preset_bit = PRESET_DT, .exported = true},
    {.arg = "X", .help = "Plummer softening length", .value = PARAM(PARAM_SOFTENING), .app = APP(softening, FLOAT),
     .preset = PRE(softening, FLOAT), .preset_bit = PRESET_SOFTENING, .exported = true},
    {.arg = "X", .help = "damping, 1 = off", .value = PARAM(PARAM_DAMPING), .app = APP(damping, FLOAT),
     .preset = PRE(damping, FLOAT), .preset_bit = PRESET_DAMPING},
    {.arg = "K", .help = "simulation steps per drawn frame", .value = PARAM(PARAM_STEPS_PER_FRAME),
     .app = APP(steps_per_frame, INT), .preset = PRE(steps_per_frame, INT), .preset_bit = PRESET_STEPS},
    {"--backend", .key = "backend", .arg = "B",
     .help = "where the run goes (default auto: CUDA where a CUDA device runs the\n"
             "OpenGL context, else the CPU with 16384 bodies unless -n)",
     .value = RUN_CHOICE_BACKEND, .app = APP(backend, INT),
     .preset_only = "cuda", .preset_bit = PRESET_CUDA},
    {"--kernel", .arg = "NAME",
     .help = "the force kernel (default: mtpb below 40 bodies per multiprocessor,\n"
             "about 5,000 on an H200, symmetric above; mtpb in double precision)",
     .value = CHOICE(kernel_choice, SIM_KERNEL_NAIVE, SIM_KERNEL_COUNT, "kernel"), .app = APP(kernel, INT)},
    {"--precision", .arg = "P", .help = "float (default) or double (the mtpb kernel only)",
     .value = CHOICE(precision_choice, SIM_PRECISION_FLOAT, SIM_PRECISION_DOUBLE + 1, "precision"),
     .app = APP(precision, INT)},
    {"--threads-per-body", .arg = "Q", .help = "mtpb: threads per body (default: chosen from N and the GPU)",
     .value = {.kind = OPTION_NUMBER, .min = 1, .max = 32, .whole = true, .power_of_two = true},
     .app = APP(threads_per_body, INT)},
    {"--block-size", .arg = "B",
     .help = "threads per block (default: chosen; symmetric runs 256); either\n"
             "of these alone asks for mtpb",
     .value = {.kind = OPTION_NUMBER, .min = 32, .max = 1024, .whole = true, .power_of_two = true},
     .app = APP(block_size, INT)},
    {"--gpus", .arg = "N",
     .help = "GPUs of this host a step is split across: 1 (default) to 8, or all\n"
             "(every GPU found, kept where the first steps measure the split the\n"
             "faster); the symmetric kernel's pairs or the tree's walk are shared\n"
             "out, the same bits as on one GPU; the other kernels run on one",
     .value = CHOICE(gpus_choice, 1, APP_GPUS_ALL + 1, "GPU count"), .app = APP(gpus, INT)},
    {"--force", .key = "force", .arg = "M",
     .help = "direct, tree (Barnes-Hut with quadrupoles), fmm (fast multipole method:\n"
             "far cells act on groups of bodies through local expansions; the CPU\n"
             "backend's: the GPU runs the tree for it) or auto (default: the tree from\n"
             "131072 bodies on the GPU, fmm from 1024 on the CPU, direct below)",
     .value = RUN_CHOICE_FORCE, .app = APP(force, INT),
     .preset = PRE(force, INT), .preset_bit = PRESET_FORCE},
    {.arg = "X", .help = "tree opening angle, smaller is more exact", .value = PARAM(PARAM_THETA),
     .app = APP(theta, FLOAT), .preset = PRE(theta, FLOAT), .preset_bit = PRESET_THETA},
    {.arg = "A",
     .help = "the tree opened by estimated error, 0 by the angle theta as --theta\n"
             "alone asks: a cell is taken where its error stays within A times\n"
             "the smallest |a| it acts on",
     .value = PARAM(PARAM_ALPHA), .app = APP(alpha, FLOAT), .preset = PRE(alpha, FLOAT), .preset_bit = PRESET_ALPHA},

    HEADING("Display:"),
    {"--size", .arg = "WxH", .help = "window or image size (default 1280x720); a headless size\nthe GL cannot draw is refused",
     .value = {.kind = OPTION_SIZE, .max = RENDER_SIZE_MAX}, .to_app = window_size},
    {"--fullscreen", .help = "start full screen", .value = FLAG, .app = APP(fullscreen, BOOL)},
    {"--lecture", .help = "full screen, large type, the kernel ladder on stage (L toggles)", .value = FLAG,
     .app = APP(lecture, BOOL), .to_app = lecture_full_screen},
    {"--measure-ladder", .help = "time every rung of the kernel ladder at the start (K at any time)", .value = FLAG,
     .app = APP(measure_ladder, BOOL)},
    {"--no-vsync", .help = "draw as fast as possible", .value = FLAG, .app = APP(vsync, NOT)},
    {"--no-ui", .help = "hide the control panel, the HUD and the scale bar", .value = FLAG, .app = APP(no_ui, BOOL)},
    {"--paused", .help = "open the run paused (space runs it, '.' takes one step)", .value = FLAG,
     .app = APP(paused, BOOL)},
    {.arg = "X", .help = "sprite size", .value = PARAM(PARAM_POINT_SIZE), .app = APP(point_size, FLOAT),
     .preset = PRE(point_size, FLOAT), .preset_bit = PRESET_POINT_SIZE},
    {.arg = "X", .help = "tonemap exposure", .value = PARAM(PARAM_EXPOSURE), .app = APP(exposure, FLOAT),
     .preset = PRE(exposure, FLOAT), .preset_bit = PRESET_EXPOSURE},
    {"--color", .other_name = "--colour", .key = "color", .arg = "MODE",
     .help = "what the colours show (default component)",
     .value = CHOICE(color_choice, COLOR_BY_COMPONENT, COLOR_MODE_COUNT, "colour mode"), .app = APP(color_mode, INT),
     .preset = PRE(color_mode, INT), .preset_bit = PRESET_COLOR},
    {"--draw", .arg = "D",
     .help = "who draws the bodies: gl (point sprites), cuda (splatted by a kernel,\n"
             "the same picture), auto (default: CUDA from " OPTION_TEXT(RENDER_DRAW_CUDA_MIN) " bodies on CUDA)",
     .value = CHOICE(draw_choice, APP_DRAW_AUTO, APP_DRAW_CUDA + 1, "drawing"), .app = APP(draw, INT)},
    {"--auto-rotate", .key = "auto_rotate", .help = "turn the camera slowly", .value = FLAG,
     .app = APP(auto_rotate, BOOL), .preset = PRE(auto_rotate, BOOL), .preset_bit = PRESET_AUTO_ROTATE},
    {.key = "camera_yaw", .value = NUMBER(-360, 360, "degrees"), .preset = PRE(camera_yaw, FLOAT),
     .preset_bit = PRESET_CAMERA},
    {.key = "camera_pitch", .value = NUMBER(-89, 89, "degrees"), .preset = PRE(camera_pitch, FLOAT),
     .preset_bit = PRESET_CAMERA},
    {.key = "camera_distance", .value = NUMBER(0.01, 100, "of the scene's extent"),
     .preset = PRE(camera_distance, FLOAT), .preset_bit = PRESET_CAMERA},
    {"--follow", .arg = "WHAT", .help = "the camera follows the centre of mass of galaxy a, b, or all (G cycles)",
     .value = CHOICE(follow_choice, 0, 4, NULL), .app = APP(follow, INT)},
    {"--show-halo", .help = "draw the dark-matter halo bodies too (D toggles)", .value = FLAG,
     .app = APP(show_halo, BOOL)},
    {"--shader-dir", .arg = "DIR", .help = "load shaders from DIR instead of the built-in ones", .value = TEXT,
     .app = APP(shader_dir, STRING)},
    {"--timeline-mb", .arg = "MB",
     .help = "memory for the run's timeline of keyframes (0: none; default a tenth\n"
             "of the memory available, at most 1 GiB = 1073.7 MB)",
     .value = NUMBER(0, 1e6, "MB"), .app = APP(timeline_mb, FLOAT)},

    HEADING("Runs without a person:"),
    {"--headless", .help = "render offscreen through EGL: no window, no X server", .value = FLAG,
     .app = APP(headless, BOOL)},
    {"--frames", .arg = "N",
     .help = "stop after N frames (default: a window runs until it is closed,\nheadless draws 300)",
     .value = WHOLE(1, 1e9), .app = APP(frames, INT)},
    {"--screenshot", .arg = "FILE", .help = "write the last frame as PNG", .value = TEXT,
     .app = APP(screenshot, STRING)},
    {"--record", .arg = "PATH",
     .help = "record every frame: a video when PATH ends in .mp4, .mkv, .webm or\n"
             ".mov (needs ffmpeg), else numbered PNGs in the folder PATH",
     .value = TEXT, .app = APP(record_dir, STRING)},
    {"--capture-ui", .help = "screenshots and recordings include the panel and HUD", .value = FLAG,
     .app = APP(capture_ui, BOOL)},
    {"--monitor", .arg = "N",
     .help = "every N frames print host and GPU memory in use and any GL or\nCUDA error (for long runs)",
     .value = WHOLE(1, 1e9), .app = APP(monitor, INT)},
    {"--quiet", .help = "print nothing but errors", .value = FLAG, .app = APP(quiet, BOOL)},
    {"--help", .short_name = "-h", .help = "this text", .value = {.kind = OPTION_HELP}, .exported = true},
};

const AppOption *app_options(int *count)
{
    *count = (int)(sizeof table / sizeof table[0]);
    return table;
}

const char *app_option_name(const AppOption *o)
{
    return o->value.kind == OPTION_PARAM ? params_get(o->value.param)->option : o->name;
}

const char *app_option_key(const AppOption *o)
{
    return o->value.kind == OPTION_PARAM ? params_get(o->value.param)->key : o->key;
}

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

const AppOption *app_option_named(const char *arg)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const AppOption *o = &table[i];
        if (o->value.kind != OPTION_HEADING &&
            (same(arg, app_option_name(o)) || same(arg, o->short_name) || same(arg, o->other_name)))
            return o;
    }
    return NULL;
}

const AppOption *app_option_keyed(const char *key)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (same(key, app_option_key(&table[i]))) return &table[i];
    return NULL;
}

int app_option_read(const AppOption *o, const SceneDesc *scene, const Units *u, const char *label, const char *text,
                    OptionValue *v, char *err, size_t errlen)
{
    Units scale = u ? *u : (Units){0, 0, 0, 0};
    /* Galaxy A's disk scale length is the model length unless the scene gives its own (units.h). */
    if (o->in_disk_scale && scene->galaxy[0].disk_scale > 0) scale.kpc *= scene->galaxy[0].disk_scale;
    return option_read(&o->value, &scale, label, text, v, err, errlen);
}
