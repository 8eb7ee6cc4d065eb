/* Command-line options. Every value is checked here, so a bad one ends the program with one
 * line that names it before anything is opened. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app/app.h"
#include "app/options.h"
#include "run/run.h"
#include "run/saved_run.h"
#include "util/params.h"

void app_default_options(AppOptions *o)
{
    memset(o, 0, sizeof *o);
    o->scene.kind = SCENE_COLLISION;
    o->scene.halo = SCENE_HALO_FIELD; /* every body a star; --halo live for the full N-body */
    o->dt = o->softening = o->damping = -1;
    o->alpha = -1;
    o->point_size = -1;
    o->exposure = -1;
    o->backend = SIM_BACKEND_AUTO;
    o->kernel = SIM_KERNEL_DEFAULT;
    o->vsync = true;
    o->width = 1280;
    o->height = 720;
    o->timeline_mb = -1;
}

/* "  -n, --bodies N        number of bodies (...)", its further lines, then what it takes: "(1 to
 * 67108864; default ...)". A parameter's unit ends its help, as the table words it; another
 * number's ends its range: "(-180 to 180 degrees)". */
static void print_option(FILE *f, const AppOption *o)
{
    const char *name = app_option_name(o);
    if (o->value.kind == OPTION_HEADING) fprintf(f, "\n%s\n", o->help);
    if (!name) return;
    char left[64], unit[96], tail[100] = "", values[256];
    snprintf(left, sizeof left, "%s%s%s%s%s", o->short_name ? o->short_name : "", o->short_name ? ", " : "", name,
             o->arg ? " " : "", o->arg ? o->arg : "");
    option_unit_text(&o->value, unit, sizeof unit);
    const bool after_help = o->value.kind == OPTION_PARAM;
    if (unit[0]) snprintf(tail, sizeof tail, after_help ? " (%s)" : " %s", unit);
    for (const char *line = o->help, *end; line; line = *end ? end + 1 : NULL) {
        end = line + strcspn(line, "\n");
        fprintf(f, "  %-20s  %.*s%s\n", line == o->help ? left : "", (int)(end - line), line,
                !*end && after_help ? tail : "");
    }
    option_values_text(&o->value, values, sizeof values);
    if (values[0]) fprintf(f, "  %-20s  (%s%s)\n", "", values, after_help ? "" : tail);
}

void app_print_usage(FILE *f)
{
    fputs("usage: starburst [options]\n"
          "       starburst bench [--csv FILE] [-n N[,N...]] [--kernel NAME[,NAME...]] [--sweep]\n"
          "                       (starburst bench --help for more)\n"
          "       starburst export --swift DIR [-n N] [scene options | --load FILE]\n"
          "                       (the scene as SWIFT initial conditions; starburst export --help)\n"
          "       starburst serve [--listen ADDR:PORT] [--public-view] [options]\n"
          "                       (the run headless, shown and driven in a web browser; starburst serve --help)\n",
          f);
    int count;
    const AppOption *options = app_options(&count);
    for (int i = 0; i < count; i++) print_option(f, &options[i]);
    const Units mw = scene_units(SCENE_COLLISION);
    fprintf(f,
            "\n"
            "A value with a unit (--dt 0.2Myr, --softening 200pc, --pericentre 8kpc) is converted on the\n"
            "run's scale: the galaxy scenes' Milky-Way scale, 1 model time = %.2f Myr, 1 model length (a\n"
            "disk scale length) = %.2f kpc; a saved run's own (--load, --open); none for the other scenes;\n"
            "see README, Units.\n",
            mw.myr, mw.kpc);
    fputs("\n"
          "Keys: space pause, . single step, R reset, Backspace defaults (dt, softening, damping,\n"
          "      theta, alpha), ctrl+Z undo the last change (a parameter, a resume, a reset or preset:\n"
          "      the run left comes back whole), ctrl+Y or ctrl+shift+Z redo, H hide UI, F full screen,\n"
          "      A auto-rotate, M colour mode, D halo, G follow, L lecture mode (full screen),\n"
          "      K time every kernel, T tree cells, S save the run, P screenshot, V record, [ ] previous / next preset,\n"
          "      C cycle presets, Home reset camera, Left / Right a keyframe back / forward,\n"
          "      ctrl+Left / ctrl+Right the timeline's start / end, shift+Left play backwards,\n"
          "      Esc quit. Mouse: left drag orbit, right or shift drag pan, wheel zoom; ctrl+click a\n"
          "      slider to type a value (as an option takes it, 200pc or 0.2Myr; one out of its\n"
          "      range is set to the end it passed, and the screen says so).\n",
          f);
}

/* The options argv gives that name the run's start or make its bodies (AppOption.start, .serves),
 * each once, in the order given, with the spelling used. */
typedef struct Given {
    const AppOption *row[32];
    const char *spelling[32];
    int count;
} Given;

static void note_given(Given *g, const AppOption *row, const char *spelling)
{
    if (!g || !(row->start || row->serves)) return;
    for (int i = 0; i < g->count; i++)
        if (g->row[i] == row) return;
    if (g->count < (int)(sizeof g->row / sizeof g->row[0])) {
        g->row[g->count] = row;
        g->spelling[g->count++] = spelling;
    }
}

/* The start a row names: --scene's is the collision or another scene built from nothing. */
static unsigned start_named(const AppOption *row, const AppOptions *o)
{
    if (row->start != (APP_START_COLLISION | APP_START_BUILT)) return row->start;
    return o->scene.kind == SCENE_COLLISION ? APP_START_COLLISION : APP_START_BUILT;
}

/* What a start is, as a line says it. */
static const char *start_noun(unsigned start)
{
    switch (start) {
    case APP_START_OPEN: return "a series";
    case APP_START_LOAD: return "a saved run";
    case APP_START_TIPSY: return "a TIPSY file";
    case APP_START_TIPSY_COLLIDE: return "two copies of a TIPSY galaxy";
    case APP_START_PRESET: return "a preset";
    default: return "a scene";
    }
}

/* The run starts from one thing: a series, a saved run, a TIPSY file, a preset or a scene, and an
 * option that makes bodies (-n, --seed, the collision's --mass-ratio ...) goes only with a start that
 * builds them so. Refused here, before anything opens, rather than one of them ignored: a preset
 * given with --load would replace the saved run (and --save write over it at exit). */
static int check_start(const AppOptions *o, const Given *g, char *err, size_t errlen)
{
    static const unsigned rank[] = {APP_START_OPEN, APP_START_LOAD, APP_START_TIPSY, APP_START_TIPSY_COLLIDE,
                                    APP_START_PRESET, APP_START_COLLISION | APP_START_BUILT};
    int first = -1; /* the start given that ranks first: the one a line is about */
    for (size_t k = 0; k < sizeof rank / sizeof rank[0] && first < 0; k++)
        for (int i = 0; i < g->count && first < 0; i++)
            if (g->row[i]->start == rank[k]) first = i;
    for (int i = 0; first >= 0 && i < g->count; i++) {
        if (i == first || !g->row[i]->start) continue;
        snprintf(err, errlen, "%s: %s is the run's start; it goes with none of %s", g->spelling[first],
                 start_noun(g->row[first]->start), g->spelling[i]);
        return -1;
    }
    const unsigned start = first >= 0 ? start_named(g->row[first], o) : APP_START_COLLISION;
    for (int i = 0; i < g->count; i++) {
        const AppOption *row = g->row[i];
        if (!row->serves || (row->serves & start)) continue;
        char whose[96];
        if (start == APP_START_BUILT) snprintf(whose, sizeof whose, "the %s scene", scene_name(o->scene.kind));
        else snprintf(whose, sizeof whose, "%s (%s)", start_noun(start), g->spelling[first]);
        const char *what = row->serves == APP_START_ENCOUNTER
                               ? "it shapes a collision, of the collision scene or --tipsy-collide"
                           : start == APP_START_PRESET ? "the preset builds its own scene"
                                                       : "it makes the bodies of a scene or a TIPSY file";
        snprintf(err, errlen, "%s: %s takes no %s: %s", g->spelling[i], whose, g->spelling[i],
                 start == APP_START_LOAD || start == APP_START_OPEN ? "it has its own bodies" : what);
        return -1;
    }
    return 0;
}

/* Options that are each fine but do not go together: a body count below what the scene is built
 * with, an encounter's values (the scene's check), the kernels' launch shapes and precisions (what
 * nbody_shape_check asks of a launch) and the CPU backend, which has one kernel in float. */
static int check_combination(const AppOptions *o, char *err, size_t errlen)
{
    const char *kernel = sim_kernel_name(o->kernel);
    if (o->open_rate > 0 && !o->open_path) {
        snprintf(err, errlen, "--open-rate: plays the series of --open; there is none");
        return -1;
    }
    const bool built = !o->load_path && !o->open_path;
    if (built && o->scene.n > 0 && scene_check_bodies(o->scene.kind, o->scene.n, err, errlen) != 0) return -1;
    char why[400];
    if (!o->load_path && !o->open_path && o->scene.kind != SCENE_TIPSY && scene_check(&o->scene, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    /* The opening test: the tree takes one of the angle and the estimated error, the fmm both (theta
     * its far angle, alpha its near cells), the direct sum neither. */
    const bool theta_given = o->theta > 0, alpha_given = o->alpha >= 0;
    if (o->force == SIM_FORCE_TREE && theta_given && o->alpha > 0) {
        snprintf(err, errlen, "--force tree: --theta opens the tree by the angle, --alpha by estimated error: one "
                              "of them (--force fmm takes both)");
        return -1;
    }
    if (o->force == SIM_FORCE_DIRECT && (theta_given || alpha_given)) {
        snprintf(err, errlen, "--force direct: the direct sum sums every pair and opens no cells: %s the tree's "
                              "and the fmm's",
                 theta_given && alpha_given ? "--theta and --alpha are" : theta_given ? "--theta is" : "--alpha is");
        return -1;
    }
    const bool cuda_options = o->kernel != SIM_KERNEL_DEFAULT || o->threads_per_body > 0 || o->block_size > 0 ||
                              o->precision == SIM_PRECISION_DOUBLE;
    if (o->backend == SIM_BACKEND_CPU && cuda_options) {
        snprintf(err, errlen, "--backend cpu: the CPU backend has one kernel, in float; --kernel, --threads-per-body, "
                              "--block-size and --precision double are the CUDA backend's");
        return -1;
    }
    if (o->backend == SIM_BACKEND_CPU && o->gpus > 1) {
        snprintf(err, errlen, "--backend cpu: --gpus splits the CUDA backend's steps across GPUs; the CPU "
                              "backend runs on the CPU's cores");
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

/* One value: read, then kept where the table says. */
static int take(AppOptions *o, const AppOption *row, const char *label, const char *text, const Units *u, char *err,
                size_t errlen)
{
    OptionValue v;
    if (app_option_read(row, &o->scene, u, label, text, &v, err, errlen) != 0) return -1;
    if (row->to_app) row->to_app(o, &v);
    return option_store(o, &row->app, &v, label, err, errlen);
}

/* Where argv[i] is a file that follows an option's value, itself a file (argv[i - 1], the value
 * of option): the shell most likely expanded an unquoted pattern ("--open snap_*.hdf5") into
 * several files. True with a line in err that says so and how to quote it; the pattern offered is
 * the files' common start and end around a "*". */
static bool glob_expanded(int argc, char **argv, int i, const char *option, char *err, size_t errlen)
{
    struct stat st;
    if (!option || i < 2 || stat(argv[i - 1], &st) != 0 || stat(argv[i], &st) != 0) return false;
    int end = i + 1;
    while (end < argc && argv[end][0] != '-' && stat(argv[end], &st) == 0) end++;
    const char *first = argv[i - 1];
    size_t head = strlen(first), tail = strlen(first), shortest = strlen(first);
    for (int k = i; k < end; k++) {
        const char *f = argv[k];
        const size_t len = strlen(f);
        size_t h = 0, t = 0;
        while (h < head && h < len && f[h] == first[h]) h++;
        while (t < tail && t < len && f[len - 1 - t] == first[strlen(first) - 1 - t]) t++;
        head = h, tail = t;
        if (len < shortest) shortest = len;
    }
    if (head + tail > shortest) tail = shortest - head;
    if (head + tail == 0) return false; /* files with nothing in common: no pattern made them */
    char here[96], from[96], to[96], pattern[160], quoted[200];
    snprintf(pattern, sizeof pattern, "%.*s*%s", (int)head, first, first + strlen(first) - tail);
    /* --open takes the pattern itself (a series); another option one file of them. */
    char advice[260];
    if (strcmp(option, "--open") == 0)
        snprintf(advice, sizeof advice, "quote it: %s '%s'", option, params_quote(pattern, quoted, sizeof quoted));
    else snprintf(advice, sizeof advice, "%s takes one file of them", option);
    snprintf(err, errlen, "unexpected argument '%s': %s takes one value, and the %d files %s ... %s look like a "
             "pattern the shell expanded; %s", params_quote(argv[i], here, sizeof here), option, end - i + 1,
             params_quote(first, from, sizeof from), params_quote(argv[end - 1], to, sizeof to), advice);
    return true;
}

/* One pass over argv. A value that may come with a unit ("--dt 0.2Myr") is read on the run's scale,
 * which a later --scene, --load or --open names: the first pass (scale NULL) takes the others, the
 * second these. */
static int take_args(AppOptions *o, int argc, char **argv, const Units *scale, Given *given, char *err,
                     size_t errlen)
{
    int value_of = -1; /* the last value given apart from its option: argv[value_of], of value_name */
    char value_name[64] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL, *eq = strchr(arg, '=');
        char name[64];
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        const AppOption *row = app_option_named(name);
        char quoted[160];
        if (!row && arg[0] != '-' && glob_expanded(argc, argv, i, value_of == i - 1 ? value_name : NULL, err, errlen))
            return -1;
        if (!row) {
            snprintf(err, errlen, "%s '%s' (see --help)", arg[0] == '-' ? "unknown option" : "unexpected argument",
                     params_quote(arg, quoted, sizeof quoted));
            return -1;
        }
        if (row->value.kind == OPTION_HELP) {
            app_print_usage(stdout);
            return 1;
        }
        if (row->value.kind == OPTION_FLAG) {
            if (value) return option_refuse(name, value, "takes no value", err, errlen);
            value = "true";
        } else if (!value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value (see --help)", name);
                return -1;
            }
            value = argv[++i];
            value_of = i;
            snprintf(value_name, sizeof value_name, "%s", name);
        }
        note_given(given, row, row->short_name && strcmp(name, row->short_name) == 0 ? row->short_name
                               : row->other_name && strcmp(name, row->other_name) == 0 ? row->other_name
                                                                                       : app_option_name(row));
        if (option_takes_unit(&row->value) == (scale != NULL) && take(o, row, name, value, scale, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The scale of the run the options start, read before anything opens: a saved run's from its .ini
 * (whose values are checked here, as the command line's are), a series' from its first file (as
 * run_make opens it), else the scene's. */
static int run_scale(AppOptions *o, Units *u, char *err, size_t errlen)
{
    char why[600];
    *u = (Units){0, 0, 0, 0};
    if (o->load_path) {
        SavedRun saved;
        const int rc = state_read_settings(o->load_path, &saved, why, sizeof why);
        if (rc < 0) snprintf(err, errlen, "--load: %s", why);
        if (rc == 0) *u = saved.units;
        /* Without its .ini, what app_check_paths would say, before a unit is refused for want of a scale. */
        if (rc == 1 && state_check(o->load_path, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        return rc < 0 ? -1 : 0;
    }
    if (o->open_path) {
        /* A TIPSY file without its .ini has no known scale: model units, as --tipsy takes it. */
        const Units none = {0, 0, 0, 0};
        series_close(o->series);
        o->series = run_open_series(o->open_path, &none, u, why, sizeof why);
        if (o->series) return 0;
        snprintf(err, errlen, "--open: %s", why);
        return -1;
    }
    *u = scene_units(o->scene.kind);
    return 0;
}

int app_parse_args(AppOptions *o, int argc, char **argv, char *err, size_t errlen)
{
    Given given = {.count = 0};
    int rc = take_args(o, argc, argv, NULL, &given, err, errlen);
    if (rc != 0) return rc;
    if (check_start(o, &given, err, errlen) != 0 || run_scale(o, &o->scale, err, errlen) != 0) return -1;
    if (take_args(o, argc, argv, &o->scale, NULL, err, errlen) != 0 || check_combination(o, err, errlen) != 0) {
        app_options_free(o);
        return -1;
    }
    return 0;
}

void app_options_free(AppOptions *o)
{
    series_close(o->series);
    o->series = NULL;
}
