/* Command-line options. Every value is checked here, so a bad one ends the program with one
 * line that names it before anything is opened. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"

#define MAX_BODIES (64 * 1024 * 1024)

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
}

void app_print_usage(FILE *f)
{
    fputs("usage: starburst [options]\n"
          "       starburst bench [--csv FILE] [-n N[,N...]] [--kernel NAME[,NAME...]] [--sweep]\n"
          "                       (starburst bench --help for more)\n"
          "\n"
          "Scene (applied at start and on reset):\n"
          "  --scene NAME          collision (default), disk, plummer, shell, random\n"
          "  --tipsy FILE          a TIPSY snapshot as it is\n"
          "  --tipsy-collide FILE  two copies of a TIPSY galaxy on a collision orbit\n"
          "  -n, --bodies N        number of bodies (default 16384; 4096 on the CPU backend)\n"
          "  --seed S              random seed (default 1)\n"
          "  --mass-ratio X        collision: mass of galaxy B / galaxy A (default 1)\n"
          "  --pericentre X        collision: closest approach in disk scale lengths (default 3)\n"
          "  --inclination-a DEG   collision: tilt of disk A (default 0)\n"
          "  --inclination-b DEG   collision: tilt of disk B (default 60)\n"
          "  --load FILE           continue a saved run (a TIPSY file and FILE.ini beside it)\n"
          "  --save FILE           save the run there at exit (S saves at any time)\n"
          "  --preset NAME         start with a preset of the presets file\n"
          "  --presets FILE        the presets file (default: assets/presets.ini)\n"
          "  --cycle SECONDS       step through the presets every SECONDS (C toggles)\n"
          "\n"
          "Simulation:\n"
          "  --dt X                timestep (default: the scene's)\n"
          "  --softening X         Plummer softening length (default: the scene's)\n"
          "  --damping X           velocity factor per step, 0 < X <= 1 (default 1 = off)\n"
          "  --steps-per-frame K   simulation steps per drawn frame (default 4 on CUDA, 1 on CPU)\n"
          "  --backend B           auto (default: CUDA where a CUDA device runs the OpenGL context,\n"
          "                        else the CPU with 4096 bodies unless -n), cuda, cpu\n"
          "  --kernel NAME         naive, registers, tiled, tiled-unrolled, mtpb, symmetric\n"
          "                        (default: mtpb below 40 bodies per multiprocessor, about 5,000\n"
          "                        on an H100, symmetric above; mtpb in double precision)\n"
          "  --precision P         float (default) or double (the mtpb kernel only)\n"
          "  --threads-per-body Q  mtpb: 1, 2, 4, 8, 16 or 32 (default: chosen from N and the GPU)\n"
          "  --block-size B        threads per block, a power of two from 32 to 1024 (default: chosen;\n"
          "                        symmetric runs 256); either of these alone asks for mtpb\n"
          "  --force M             direct, tree (Barnes-Hut with quadrupoles) or auto (default: the\n"
          "                        tree from 131072 bodies on the GPU and 16384 on the CPU, direct below)\n"
          "  --theta X             tree opening angle, 0.05 .. 1.5 (default 0.4; smaller is more exact)\n"
          "\n"
          "Display:\n"
          "  --size WxH            window or image size (default 1280x720)\n"
          "  --fullscreen          start full screen\n"
          "  --lecture             full screen, large type, the kernel ladder on stage (L toggles)\n"
          "  --measure-ladder      time every rung of the kernel ladder at the start (K at any time)\n"
          "  --no-vsync            draw as fast as possible\n"
          "  --no-ui               hide the control panel and HUD\n"
          "  --point-size X        sprite size (default 1)\n"
          "  --exposure X          tonemap exposure (default 1)\n"
          "  --color MODE          component (default) or speed\n"
          "  --auto-rotate         turn the camera slowly\n"
          "  --follow WHAT         the camera follows the centre of mass of galaxy a, b, or all (G cycles)\n"
          "  --show-halo           draw the dark-matter halo bodies too (D toggles)\n"
          "  --shader-dir DIR      load shaders from DIR instead of the built-in ones\n"
          "\n"
          "Runs without a person:\n"
          "  --headless            render offscreen through EGL: no window, no X server\n"
          "  --frames N            stop after N frames\n"
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
          "      S save the run, V record, [ ] previous / next preset, C cycle presets,\n"
          "      Home reset camera, Esc quit. Mouse: left drag orbit, right or shift drag pan, wheel\n"
          "      zoom; ctrl+click a slider to type a value.\n",
          f);
}

static int bad(char *err, size_t errlen, const char *opt, const char *value, const char *why)
{
    snprintf(err, errlen, "%s: '%s' %s", opt, value, why);
    return -1;
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
        snprintf(range, sizeof range, "is out of range: expected %s%g .. %g", lo_open ? "more than " : "", lo, hi);
        return bad(err, errlen, opt, s, range);
    }
    *out = (float)v;
    return 0;
}

static int parse_int(const char *opt, const char *s, long lo, long hi, int *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return bad(err, errlen, opt, s, "is not a whole number");
    if (v < lo || v > hi) {
        char range[96];
        snprintf(range, sizeof range, "is out of range: expected %ld .. %ld", lo, hi);
        return bad(err, errlen, opt, s, range);
    }
    *out = (int)v;
    return 0;
}

/* Options that are each fine but do not go together: the kernels' launch shapes and precisions
 * (what nbody_shape_check asks of a launch) and the CPU backend, which has one kernel in float. */
static int check_combination(const AppOptions *o, char *err, size_t errlen)
{
    const char *kernel = sim_kernel_name(o->kernel);
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

int app_parse_args(AppOptions *o, int argc, char **argv, char *err, size_t errlen)
{
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
        } else if (IS("--tipsy") || IS("--tipsy-collide")) {
            VALUE();
            o->scene.kind = IS("--tipsy") ? SCENE_TIPSY : SCENE_TIPSY_COLLIDE;
            o->scene.tipsy_path = value;
        } else if (IS("-n") || IS("--bodies")) {
            VALUE();
            rc = parse_int(opt, value, 1, MAX_BODIES, &o->scene.n, err, errlen);
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
            rc = parse_float(opt, value, 0.01f, 100, false, &o->scene.mass_ratio, err, errlen);
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
            rc = parse_float(opt, value, 0, 10, true, &o->dt, err, errlen);
        } else if (IS("--softening")) {
            VALUE();
            rc = parse_float(opt, value, 0, 100, false, &o->softening, err, errlen);
        } else if (IS("--damping")) {
            VALUE();
            rc = parse_float(opt, value, 0, 1, true, &o->damping, err, errlen);
        } else if (IS("--steps-per-frame")) {
            VALUE();
            rc = parse_int(opt, value, 1, 1024, &o->steps_per_frame, err, errlen);
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
            rc = parse_int(opt, value, 1, 32, &o->threads_per_body, err, errlen);
            if (rc == 0 && (o->threads_per_body & (o->threads_per_body - 1)))
                return bad(err, errlen, opt, value, "is not a power of two from 1 to 32");
        } else if (IS("--block-size")) {
            VALUE();
            rc = parse_int(opt, value, 32, 1024, &o->block_size, err, errlen);
            if (rc == 0 && (o->block_size & (o->block_size - 1)))
                return bad(err, errlen, opt, value, "is not a power of two from 32 to 1024");
        } else if (IS("--force")) {
            VALUE();
            int f = sim_force_from_name(value);
            if (f < 0) return bad(err, errlen, opt, value, "is not a force method: direct, tree, auto");
            o->force = (SimForce)f;
        } else if (IS("--theta")) {
            VALUE();
            rc = parse_float(opt, value, 0.05f, 1.5f, false, &o->theta, err, errlen);
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
            rc = parse_float(opt, value, 0, 64, true, &o->point_size, err, errlen);
        } else if (IS("--exposure")) {
            VALUE();
            rc = parse_float(opt, value, 0, 1000, true, &o->exposure, err, errlen);
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
            rc = parse_int(opt, value, 1, 1000000000, &o->monitor, err, errlen);
        } else if (IS("--frames")) {
            VALUE();
            rc = parse_int(opt, value, 0, 1000000000, &o->frames, err, errlen);
        } else if (IS("--screenshot")) {
            VALUE();
            o->screenshot = value;
        } else if (IS("--record")) {
            VALUE();
            o->record_dir = value;
        } else if (arg[0] == '-') {
            snprintf(err, errlen, "unknown option '%s' (see --help)", arg);
            return -1;
        } else {
            snprintf(err, errlen, "unexpected argument '%s' (see --help)", arg);
            return -1;
        }
        if (rc != 0) return -1;
#undef IS
#undef VALUE
    }
    return check_combination(o, err, errlen);
}
