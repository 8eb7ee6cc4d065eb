/* Command-line options. Every value is checked here, so a bad one ends the program with one
 * line that names it before anything is opened. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "util/params.h"

void app_default_options(AppOptions *o)
{
    memset(o, 0, sizeof *o);
    o->scene.kind = SCENE_COLLISION;
    o->dt = o->softening = o->damping = -1;
    o->point_size = -1;
    o->exposure = -1;
    o->backend = SIM_BACKEND_AUTO;
    o->kernel = SIM_KERNEL_DEFAULT;
    o->vsync = true;
    o->width = 1280;
    o->height = 720;
    o->timeline_mb = -1;
}

/* An option of the parameter table: what it is, then its range and default from the table. */
static void param_usage(FILE *f, const char *option, const char *what, ParamId id)
{
    char range[160];
    params_help_text(id, range, sizeof range);
    const char *unit = params_get(id)->unit;
    const UnitDim dim = params_get(id)->dim;
    const char *also = dim == UNIT_TIME ? ", or Myr, Gyr" : dim == UNIT_LENGTH ? ", or pc, kpc" : "";
    fprintf(f, "  %-20s  %s%s%s%s%s\n  %-20s  (%s)\n", option, what, unit[0] ? " (" : "", unit, also,
            unit[0] ? ")" : "", "", range);
}

void app_print_usage(FILE *f)
{
    fputs("usage: starburst [options]\n"
          "       starburst bench [--csv FILE] [-n N[,N...]] [--kernel NAME[,NAME...]] [--sweep]\n"
          "                       (starburst bench --help for more)\n"
          "       starburst export --swift DIR [-n N] [scene options | --load FILE]\n"
          "                       (the scene as SWIFT initial conditions; starburst export --help)\n"
          "\n"
          "Scene (applied at start and on reset):\n"
          "  --scene NAME          collision (default), disk, plummer, shell, random\n"
          "  --tipsy FILE          a TIPSY snapshot as it is\n"
          "  --tipsy-collide FILE  two copies of a TIPSY galaxy on a collision orbit\n",
          f);
    param_usage(f, "-n, --bodies N", "number of bodies (a collision needs 6, a disk 3)", PARAM_BODIES);
    fputs("  --seed S              random seed (default 1)\n", f);
    param_usage(f, "--mass-ratio X", "collision: the mass ratio", PARAM_MASS_RATIO);
    fprintf(f, "  --pericentre X        collision: closest approach in disk scale lengths of %.1f kpc (default 3)\n",
            scene_units(SCENE_COLLISION).kpc);
    fputs("  --inclination-a DEG   collision: tilt of disk A (default 0)\n"
          "  --inclination-b DEG   collision: tilt of disk B (default 60)\n"
          "  --load FILE           continue a saved run (a TIPSY file and FILE.ini beside it)\n"
          "  --open PATH           start from the first snapshot of a series: a TIPSY or HDF5 file\n"
          "                        (SWIFT, GADGET-4: any particle types, converted to model units),\n"
          "                        a folder of them or a glob ('out/snapshot_*.hdf5'); see export.\n"
          "                        Goes with none of --load, --preset, --scene, --tipsy\n"
          "  --open-rate S         headless --open plays its series, S snapshots a frame (default 1;\n"
          "                        0.25 holds each for 4 frames); --frames defaults to its length\n"
          "  --save FILE           save the run there at exit (S saves at any time)\n"
          "  --preset NAME         start with a preset of the presets file\n"
          "  --presets FILE        the presets file (default: assets/presets.ini in the folder above the\n"
          "                        program's, as build/../assets; else the source tree's)\n"
          "  --cycle SECONDS       step through the presets every SECONDS (C toggles)\n"
          "\n"
          "Simulation:\n",
          f);
    param_usage(f, "--dt X", "timestep", PARAM_DT);
    param_usage(f, "--softening X", "Plummer softening length", PARAM_SOFTENING);
    const Units mw = scene_units(SCENE_COLLISION);
    fprintf(f,
            "                        (a value with a unit, --dt 0.2Myr or --softening 200pc, is converted on\n"
            "                        the galaxy scenes' Milky-Way scale: 1 model time = %.2f Myr, 1 model\n"
            "                        length = %.2f kpc; see README, Units)\n",
            mw.myr, mw.kpc);
    param_usage(f, "--damping X", "damping, 1 = off", PARAM_DAMPING);
    param_usage(f, "--steps-per-frame K", "simulation steps per drawn frame", PARAM_STEPS_PER_FRAME);
    fputs("  --backend B           auto (default: CUDA where a CUDA device runs the OpenGL context,\n"
          "                        else the CPU with 16384 bodies unless -n), cuda, cpu\n"
          "  --kernel NAME         naive, registers, tiled, tiled-unrolled, mtpb, symmetric\n"
          "                        (default: mtpb below 40 bodies per multiprocessor, about 5,000\n"
          "                        on an H100, symmetric above; mtpb in double precision)\n"
          "  --precision P         float (default) or double (the mtpb kernel only)\n"
          "  --threads-per-body Q  mtpb: 1, 2, 4, 8, 16 or 32 (default: chosen from N and the GPU)\n"
          "  --block-size B        threads per block, a power of two from 32 to 1024 (default: chosen;\n"
          "                        symmetric runs 256); either of these alone asks for mtpb\n"
          "  --force M             direct, tree (Barnes-Hut with quadrupoles), fmm (fast multipole method:\n"
          "                        far cells act on groups of bodies through local expansions) or auto\n"
          "                        (default: the tree from 131072 bodies on the GPU, fmm from 1024 on the\n"
          "                        CPU, direct below)\n",
          f);
    param_usage(f, "--theta X", "tree opening angle, smaller is more exact", PARAM_THETA);
    fputs("\n"
          "Display:\n"
          "  --size WxH            window or image size (default 1280x720)\n"
          "  --fullscreen          start full screen\n"
          "  --lecture             full screen, large type, the kernel ladder on stage (L toggles)\n"
          "  --measure-ladder      time every rung of the kernel ladder at the start (K at any time)\n"
          "  --no-vsync            draw as fast as possible\n"
          "  --no-ui               hide the control panel, the HUD and the scale bar\n",
          f);
    param_usage(f, "--point-size X", "sprite size", PARAM_POINT_SIZE);
    param_usage(f, "--exposure X", "tonemap exposure", PARAM_EXPOSURE);
    fputs("  --color MODE          component (default) or speed\n"
          "  --auto-rotate         turn the camera slowly\n"
          "  --follow WHAT         the camera follows the centre of mass of galaxy a, b, or all (G cycles)\n"
          "  --show-halo           draw the dark-matter halo bodies too (D toggles)\n"
          "  --shader-dir DIR      load shaders from DIR instead of the built-in ones\n"
          "  --timeline-mb MB      memory for the run's timeline of keyframes, 0 to 1000000 (0: none;\n"
          "                        default a tenth of the memory available, at most 1000)\n"
          "\n"
          "Runs without a person:\n"
          "  --headless            render offscreen through EGL: no window, no X server\n"
          "  --frames N            stop after N frames, 1 to 1000000000 (headless default 300)\n"
          "  --screenshot FILE     write the last frame as PNG\n"
          "  --record PATH         record every frame: a video when PATH ends in .mp4, .mkv, .webm or\n"
          "                        .mov (needs ffmpeg), else numbered PNGs in the folder PATH\n"
          "  --capture-ui          screenshots and recordings include the panel and HUD\n"
          "  --monitor N           every N frames print host and GPU memory in use and any GL or\n"
          "                        CUDA error (for long runs)\n"
          "  --quiet               print nothing but errors\n"
          "  -h, --help            this text\n"
          "\n"
          "Keys: space pause, . single step, R reset, Backspace defaults (dt, softening, damping),\n"
          "      ctrl+Z undo the last parameter change, H hide UI, F full screen, A auto-rotate,\n"
          "      M colour mode, D halo, G follow, L lecture mode (full screen), K time every kernel,\n"
          "      T tree cells, S save the run, P screenshot, V record, [ ] previous / next preset,\n"
          "      C cycle presets, Home reset camera, Left / Right a keyframe back / forward,\n"
          "      ctrl+Left / ctrl+Right the timeline's start / end, shift+Left play backwards,\n"
          "      Esc quit. Mouse: left drag orbit, right or shift drag pan, wheel zoom; ctrl+click a\n"
          "      slider to type a value.\n",
          f);
}

static int bad(char *err, size_t errlen, const char *opt, const char *value, const char *why)
{
    char quoted[160];
    snprintf(err, errlen, "%s: '%s' %s", opt, params_quote(value, quoted, sizeof quoted), why);
    return -1;
}

/* A value of the parameter table, checked against its range there. */
static int parse_param(ParamId id, const char *opt, const char *s, float *out, char *err, size_t errlen)
{
    double v;
    if (params_parse(id, opt, s, &v, err, errlen) != 0) return -1;
    *out = (float)v;
    return 0;
}

static int parse_param_int(ParamId id, const char *opt, const char *s, int *out, char *err, size_t errlen)
{
    double v;
    if (params_parse(id, opt, s, &v, err, errlen) != 0) return -1;
    *out = (int)v;
    return 0;
}

static int parse_float(const char *opt, const char *s, float lo, float hi, bool lo_open, float *out,
                       char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return bad(err, errlen, opt, s, "is not a finite number");
    if (v < lo || (lo_open && v == lo) || v > hi) {
        char range[96];
        snprintf(range, sizeof range, "is out of range: expected %s%g to %g", lo_open ? "more than " : "", lo, hi);
        return bad(err, errlen, opt, s, range);
    }
    *out = (float)v;
    return 0;
}

static int parse_int(const char *opt, const char *s, long lo, long hi, const char *note, int *out, char *err,
                     size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0') return bad(err, errlen, opt, s, "is not a whole number");
    if (errno == ERANGE || v < lo || v > hi) {
        char range[192];
        snprintf(range, sizeof range, "is too %s: expected %ld to %ld%s", v < lo ? "small" : "large", lo, hi, note);
        return bad(err, errlen, opt, s, range);
    }
    *out = (int)v;
    return 0;
}

/* Options that are each fine but do not go together: a body count below what the scene is built
 * with, the kernels' launch shapes and precisions (what nbody_shape_check asks of a launch) and the
 * CPU backend, which has one kernel in float. */
static int check_combination(const AppOptions *o, char *err, size_t errlen)
{
    const char *kernel = sim_kernel_name(o->kernel);
    const int least = scene_min_bodies(o->scene.kind);
    if (o->open_path && (o->load_path || o->scene.kind >= SCENE_TIPSY || o->preset || o->scene_given)) {
        snprintf(err, errlen, "--open: a series is the run's start; it goes with none of --%s",
                 o->load_path ? "load" : o->preset ? "preset" : o->scene.kind == SCENE_TIPSY_COLLIDE ? "tipsy-collide"
                                                              : o->scene.kind == SCENE_TIPSY ? "tipsy" : "scene");
        return -1;
    }
    if (o->open_rate > 0 && !o->open_path) {
        snprintf(err, errlen, "--open-rate: plays the series of --open; there is none");
        return -1;
    }
    if (!o->load_path && !o->open_path && o->scene.n > 0 && o->scene.n < least) {
        snprintf(err, errlen, "-n %d: the %s scene needs at least %d bodies", o->scene.n, scene_name(o->scene.kind),
                 least);
        return -1;
    }
    const bool cuda_options = o->kernel != SIM_KERNEL_DEFAULT || o->threads_per_body > 0 || o->block_size > 0 ||
                              o->precision == SIM_PRECISION_DOUBLE;
    if (o->backend == SIM_BACKEND_CPU && cuda_options) {
        snprintf(err, errlen, "--backend cpu: the CPU backend has one kernel, in float; --kernel, --threads-per-body, "
                              "--block-size and --precision double are the CUDA backend's");
        return -1;
    }
    if (o->threads_per_body > 1 && o->kernel != SIM_KERNEL_DEFAULT && o->kernel != SIM_KERNEL_MTPB) {
        snprintf(err, errlen, "--threads-per-body %d: only the mtpb kernel splits a body across threads, not %s",
                 o->threads_per_body, kernel);
        return -1;
    }
    if (o->block_size > 0 && o->block_size != 256 && o->kernel == SIM_KERNEL_SYMMETRIC) {
        snprintf(err, errlen, "--block-size %d: the symmetric kernel runs blocks of its own size (256)", o->block_size);
        return -1;
    }
    if (o->precision == SIM_PRECISION_DOUBLE && o->kernel != SIM_KERNEL_DEFAULT && o->kernel != SIM_KERNEL_MTPB) {
        snprintf(err, errlen, "--precision double: only the mtpb kernel runs in double, not %s", kernel);
        return -1;
    }
    return 0;
}

/* dt and softening may be given in Myr, pc or kpc: they are read once the scene, whose scale
 * converts them, is known (a --scene may follow them). A loaded run's scale is in its save, read
 * later: it takes model units. */
static int parse_scaled(AppOptions *o, const char *dt_opt, const char *dt, const char *soft_opt, const char *soft,
                        char *err, size_t errlen)
{
    const Units u = o->load_path ? (Units){0, 0, 0, 0} : scene_units(o->scene.kind);
    double v;
    if (dt) {
        if (params_parse_in(PARAM_DT, &u, dt_opt, dt, &v, err, errlen) != 0) return -1;
        o->dt = (float)v;
    }
    if (soft) {
        if (params_parse_in(PARAM_SOFTENING, &u, soft_opt, soft, &v, err, errlen) != 0) return -1;
        o->softening = (float)v;
    }
    return 0;
}

int app_parse_args(AppOptions *o, int argc, char **argv, char *err, size_t errlen)
{
    const char *dt = NULL, *softening = NULL;
    char dt_opt[64] = "--dt", softening_opt[64] = "--softening";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        const char *opt = name;
#define IS(s) (strcmp(opt, s) == 0)
#define VALUE()                                                                                    \
    do {                                                                                           \
        if (!value) {                                                                              \
            if (i + 1 >= argc) {                                                                   \
                snprintf(err, errlen, "%s needs a value (see --help)", opt);                       \
                return -1;                                                                         \
            }                                                                                      \
            value = argv[++i];                                                                     \
        }                                                                                          \
    } while (0)
        if (IS("-h") || IS("--help")) {
            app_print_usage(stdout);
            return 1;
        }
        /* Flags. */
        if (IS("--headless") || IS("--fullscreen") || IS("--no-vsync") || IS("--no-ui") ||
            IS("--auto-rotate") || IS("--quiet") || IS("--capture-ui") || IS("--show-halo") || IS("--lecture") ||
                   IS("--measure-ladder")) {
            if (value) return bad(err, errlen, opt, value, "takes no value");
            if (IS("--headless")) o->headless = true;
            if (IS("--fullscreen")) o->fullscreen = true;
            if (IS("--no-vsync")) o->vsync = false;
            if (IS("--no-ui")) o->no_ui = true;
            if (IS("--auto-rotate")) o->auto_rotate = true;
            if (IS("--quiet")) o->quiet = true;
            if (IS("--capture-ui")) o->capture_ui = true;
            if (IS("--show-halo")) o->show_halo = true;
            if (IS("--lecture")) o->lecture = o->fullscreen = true;
            if (IS("--measure-ladder")) o->measure_ladder = true;
            continue;
        }
        int rc = 0;
        if (IS("--scene")) {
            VALUE();
            int k = scene_from_name(value);
            if (k < 0 || k >= SCENE_TIPSY)
                return bad(err, errlen, opt, value, "is not a scene: collision, disk, plummer, shell, random");
            o->scene.kind = (SceneKind)k;
            o->scene_given = true;
        } else if (IS("--tipsy") || IS("--tipsy-collide")) {
            VALUE();
            o->scene.kind = IS("--tipsy") ? SCENE_TIPSY : SCENE_TIPSY_COLLIDE;
            o->scene.tipsy_path = value;
        } else if (IS("-n") || IS("--bodies")) {
            VALUE();
            rc = parse_param_int(PARAM_BODIES, opt, value, &o->scene.n, err, errlen);
        } else if (IS("--seed")) {
            VALUE();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(value, &end, 10);
            if (end == value || *end || errno == ERANGE || value[0] == '-')
                return bad(err, errlen, opt, value, "is not a whole number >= 0");
            o->scene.seed = (uint64_t)s;
        } else if (IS("--mass-ratio")) {
            VALUE();
            rc = parse_param(PARAM_MASS_RATIO, opt, value, &o->scene.mass_ratio, err, errlen);
        } else if (IS("--pericentre") || IS("--pericenter")) {
            VALUE();
            rc = parse_float(opt, value, 0, 100, true, &o->scene.pericentre, err, errlen);
        } else if (IS("--inclination-a")) {
            VALUE();
            rc = parse_float(opt, value, -180, 180, false, &o->scene.inclination_a, err, errlen);
        } else if (IS("--inclination-b")) {
            VALUE();
            rc = parse_float(opt, value, -180, 180, false, &o->scene.inclination_b, err, errlen);
            o->scene.set |= SCENE_SET_INCLINATION_B;
        } else if (IS("--dt")) {
            VALUE();
            dt = value;
            snprintf(dt_opt, sizeof dt_opt, "%s", opt);
        } else if (IS("--softening")) {
            VALUE();
            softening = value;
            snprintf(softening_opt, sizeof softening_opt, "%s", opt);
        } else if (IS("--damping")) {
            VALUE();
            rc = parse_param(PARAM_DAMPING, opt, value, &o->damping, err, errlen);
        } else if (IS("--steps-per-frame")) {
            VALUE();
            rc = parse_param_int(PARAM_STEPS_PER_FRAME, opt, value, &o->steps_per_frame, err, errlen);
        } else if (IS("--backend")) {
            VALUE();
            if (strcmp(value, "auto") == 0) o->backend = SIM_BACKEND_AUTO;
            else if (strcmp(value, "cuda") == 0) o->backend = SIM_BACKEND_CUDA;
            else if (strcmp(value, "cpu") == 0) o->backend = SIM_BACKEND_CPU;
            else return bad(err, errlen, opt, value, "is not a backend: auto, cuda, cpu");
        } else if (IS("--kernel")) {
            VALUE();
            int k = sim_kernel_from_name(value);
            if (k < 0) return bad(err, errlen, opt, value, "is not a kernel: naive, registers, tiled, tiled-unrolled, mtpb, symmetric");
            o->kernel = (SimKernel)k;
        } else if (IS("--precision")) {
            VALUE();
            if (strcmp(value, "float") == 0) o->precision = SIM_PRECISION_FLOAT;
            else if (strcmp(value, "double") == 0) o->precision = SIM_PRECISION_DOUBLE;
            else return bad(err, errlen, opt, value, "is not a precision: float, double");
        } else if (IS("--threads-per-body")) {
            VALUE();
            rc = parse_int(opt, value, 1, 32, "", &o->threads_per_body, err, errlen);
            if (rc == 0 && (o->threads_per_body & (o->threads_per_body - 1)))
                return bad(err, errlen, opt, value, "is not a power of two from 1 to 32");
        } else if (IS("--block-size")) {
            VALUE();
            rc = parse_int(opt, value, 32, 1024, "", &o->block_size, err, errlen);
            if (rc == 0 && (o->block_size & (o->block_size - 1)))
                return bad(err, errlen, opt, value, "is not a power of two from 32 to 1024");
        } else if (IS("--force")) {
            VALUE();
            int f = sim_force_from_name(value);
            if (f < 0) return bad(err, errlen, opt, value, "is not a force method: direct, tree, fmm, auto");
            o->force = (SimForce)f;
        } else if (IS("--theta")) {
            VALUE();
            rc = parse_param(PARAM_THETA, opt, value, &o->theta, err, errlen);
        } else if (IS("--size")) {
            VALUE();
            int w, h;
            char tail;
            if (sscanf(value, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
                return bad(err, errlen, opt, value, "is not a size like 1920x1080 (1 .. 16384 each)");
            o->width = w;
            o->height = h;
        } else if (IS("--point-size")) {
            VALUE();
            rc = parse_param(PARAM_POINT_SIZE, opt, value, &o->point_size, err, errlen);
        } else if (IS("--exposure")) {
            VALUE();
            rc = parse_param(PARAM_EXPOSURE, opt, value, &o->exposure, err, errlen);
        } else if (IS("--color") || IS("--colour")) {
            VALUE();
            if (strcmp(value, "component") == 0) o->color_mode = COLOR_BY_COMPONENT;
            else if (strcmp(value, "speed") == 0) o->color_mode = COLOR_BY_SPEED;
            else return bad(err, errlen, opt, value, "is not a colour mode: component, speed");
        } else if (IS("--follow")) {
            VALUE();
            if (strcmp(value, "none") == 0) o->follow = 0;
            else if (strcmp(value, "a") == 0) o->follow = 1;
            else if (strcmp(value, "b") == 0) o->follow = 2;
            else if (strcmp(value, "all") == 0) o->follow = 3;
            else return bad(err, errlen, opt, value, "is not one of none, a, b, all");
        } else if (IS("--shader-dir")) {
            VALUE();
            o->shader_dir = value;
        } else if (IS("--save")) {
            VALUE();
            o->save_path = value;
        } else if (IS("--load")) {
            VALUE();
            o->load_path = value;
        } else if (IS("--open")) {
            VALUE();
            o->open_path = value;
        } else if (IS("--open-rate")) {
            VALUE();
            if (parse_float(opt, value, 0, 1000, true, &o->open_rate, err, errlen) != 0) return -1;
        } else if (IS("--preset")) {
            VALUE();
            o->preset = value;
        } else if (IS("--presets")) {
            VALUE();
            o->presets_path = value;
        } else if (IS("--cycle")) {
            VALUE();
            rc = parse_float(opt, value, 1, 3600, false, &o->cycle_seconds, err, errlen);
        } else if (IS("--monitor")) {
            VALUE();
            rc = parse_int(opt, value, 1, 1000000000, "", &o->monitor, err, errlen);
        } else if (IS("--timeline-mb")) {
            VALUE();
            rc = parse_float(opt, value, 0, 1e6, false, &o->timeline_mb, err, errlen);
        } else if (IS("--frames")) {
            VALUE();
            rc = parse_int(opt, value, 1, 1000000000, " (without --frames a window runs until it is closed, headless draws 300)", &o->frames, err, errlen);
        } else if (IS("--screenshot")) {
            VALUE();
            o->screenshot = value;
        } else if (IS("--record")) {
            VALUE();
            o->record_dir = value;
        } else {
            char quoted[160];
            snprintf(err, errlen, "%s '%s' (see --help)", arg[0] == '-' ? "unknown option" : "unexpected argument",
                     params_quote(arg, quoted, sizeof quoted));
            return -1;
        }
        if (rc != 0) return -1;
#undef IS
#undef VALUE
    }
    if (parse_scaled(o, dt_opt, dt, softening_opt, softening, err, errlen) != 0) return -1;
    return check_combination(o, err, errlen);
}
