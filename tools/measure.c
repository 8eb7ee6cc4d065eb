/* starburst-measure: the structure of the galaxies in saved states (TIPSY files, HDF5 snapshots) or
 * in a freshly built scene, one line per galaxy (src/sim/structure.h): half-mass radii of disk,
 * bulge and halo, the disk's rms thickness, sigma_R, kappa and Toomre's Q in an annulus, the
 * Fourier amplitudes A_1..A_6 there, the mass beyond a radius and 2K/|W|.
 *
 *   starburst-measure [--ring R0 R1] [--beyond R] [--softening EPS] FILE ...
 *   starburst-measure [options] --scene disk|collision [--n N] [--seed S]
 *
 * A built scene, or a save that records its scale (FILE.ini's [units]), also gets its physical units
 * and the mass of all its bodies in solar masses; --softening with a unit ("200pc") is read on that
 * scale, as the viewer reads it for the same run.
 *
 * The options are read as the viewer reads its own (util/params.h: the parameter table's ranges,
 * OptionSpec's numbers); a bad one is refused with one line and exit 2. A figure that the bodies
 * cannot give (a half-mass radius of a component with no bodies, a dispersion of one body) is
 * printed as "not measured" with the reason, never as a zero.
 *
 * The softening for W is --softening, else the one a save records beside its file (FILE.ini, as
 * src/run/saved_run.h reads it), else the file's own (its bodies' eps, an HDF5 file's parameters),
 * else the scene's; the line says which. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "scene/tipsy.h"
#include "sim/structure_report.h"
#include "util/params.h"

/* Radii in model length units: a TIPSY file of another code may be in kpc or pc. */
#define MEASURE_MAX_RADIUS 1e9

static const char *measure_scene_name(int v) { return scene_name((SceneKind)v); }
static const char *measure_halo_name(int v) { return scene_halo_name((SceneHalo)v); }

typedef enum MeasureOptionId { OPT_RING, OPT_BEYOND, OPT_SOFTENING, OPT_SCENE, OPT_N, OPT_SEED, OPT_HALO, OPT_HELP } MeasureOptionId;

typedef struct MeasureOption {
    const char *name;
    const char *values; /* as the usage names them */
    int count;          /* values it takes */
    OptionSpec spec;
    const char *help;
} MeasureOption;

static const MeasureOption options[] = {
    [OPT_RING] = {"--ring", "R0 R1", 2,
                  {.kind = OPTION_NUMBER, .min = 0, .max = MEASURE_MAX_RADIUS, .unit = "model length units"},
                  "the annulus of the disk plane for sigma_R, kappa, Q and A_m (default 2 3), R1 more than R0"},
    [OPT_BEYOND] = {"--beyond", "R", 1,
                    {.kind = OPTION_NUMBER, .min = 0, .min_open = true, .max = MEASURE_MAX_RADIUS,
                     .unit = "model length units"},
                    "the radius for the mass fractions beyond it (default 22.5, 1.5 halo cuts)"},
    [OPT_SOFTENING] = {"--softening", "EPS", 1, {.kind = OPTION_PARAM, .param = PARAM_SOFTENING},
                       "the softening for W (default: the save's FILE.ini, the file's, the scene's)"},
    [OPT_SCENE] = {"--scene", "NAME", 1,
                   {.kind = OPTION_CHOICE, .name_of = measure_scene_name, .first = SCENE_COLLISION,
                    .end = SCENE_DISK + 1, .noun = "scene of disk galaxies"},
                   "build the scene and measure it at t 0"},
    [OPT_N] = {"-n", "N", 1, {.kind = OPTION_PARAM, .param = PARAM_BODIES}, "the scene's bodies"},
    [OPT_SEED] = {"--seed", "S", 1, {.kind = OPTION_SEED}, "the scene's seed"},
    [OPT_HALO] = {"--halo", "MODE", 1,
                  {.kind = OPTION_CHOICE, .name_of = measure_halo_name, .first = SCENE_HALO_FIELD,
                   .end = SCENE_HALO_COUNT, .noun = "halo mode"},
                  "the scene's halos: live (bodies, the default here) or field"},
    [OPT_HELP] = {"--help", "", 0, {.kind = OPTION_HELP}, "this help"},
};
#define OPTION_COUNT ((int)(sizeof options / sizeof options[0]))

typedef struct MeasureArgs {
    StructureDesc desc;    /* ring and beyond */
    double softening;
    bool softening_given;
    const char *softening_text; /* with a unit: read on each source's scale (softening_for) */
    int scene_kind;        /* -1: no scene */
    SceneDesc scene;
    bool scene_set;        /* -n or --seed given */
    const char *n_name;    /* -n as it was typed: -n, --n */
    const char **files;
    int file_count;
} MeasureArgs;

static void help(void)
{
    printf("usage: starburst-measure [--ring R0 R1] [--beyond R] [--softening EPS] FILE ...\n"
           "       starburst-measure [options] --scene disk|collision [-n N] [--seed S]\n"
           "FILE: a TIPSY file (a save: its FILE.ini gives the softening and the scale) or an HDF5 snapshot.\n");
    for (int i = 0; i < OPTION_COUNT; i++) {
        const MeasureOption *o = &options[i];
        /* A parameter's range alone: its default is the viewer's, not this tool's. */
        char values[192], head[64];
        if (o->spec.kind == OPTION_PARAM) params_range_text(o->spec.param, values, sizeof values);
        else option_values_text(&o->spec, values, sizeof values);
        const char *unit = o->spec.kind == OPTION_PARAM ? params_get(o->spec.param)->unit : o->spec.unit;
        snprintf(head, sizeof head, "%s %s", o->name, o->values);
        printf("  %-22s %s", head, o->help);
        if (values[0]) printf("; %s", values);
        if (unit && unit[0]) printf(" (%s)", unit);
        printf("\n");
    }
}

/* One line, exit status 2. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "starburst-measure: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

static int find_option(const char *name)
{
    for (int i = 0; i < OPTION_COUNT; i++)
        if (strcmp(options[i].name, name) == 0) return i;
    /* The viewer's spellings too. */
    if (strcmp(name, "--n") == 0 || strcmp(name, "--bodies") == 0) return OPT_N;
    return strcmp(name, "-h") == 0 ? OPT_HELP : -1;
}

/* --softening on the scale of what is measured (a save's [units], a scene's): 0 with *eps, or 2
 * with the line said. A value without a unit was read with the options. */
static int softening_for(const MeasureArgs *m, const Units *u, double *eps)
{
    if (!m->softening_text) {
        *eps = m->softening;
        return 0;
    }
    OptionValue v;
    char err[320];
    if (option_read(&options[OPT_SOFTENING].spec, u, "--softening", m->softening_text, &v, err, sizeof err) != 0)
        return refuse("%s", err);
    *eps = v.number;
    return 0;
}

/* 0 with the options in *m; 1 where --help was asked for (printed); 2 where one is refused. */
static int read_args(int argc, char **argv, MeasureArgs *m)
{
    *m = (MeasureArgs){.scene_kind = -1, .files = calloc((size_t)argc, sizeof *m->files)};
    if (!m->files) return refuse("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            m->files[m->file_count++] = a;
            continue;
        }
        const int id = find_option(a);
        char quoted[96], err[320];
        if (id < 0) return refuse("unknown option '%s' (starburst-measure --help)", params_quote(a, quoted, sizeof quoted));
        if (id == OPT_HELP) {
            help();
            return 1;
        }
        const MeasureOption *o = &options[id];
        if (i + o->count >= argc) return refuse("%s takes %s", o->name, o->values);
        OptionValue v[2];
        for (int k = 0; k < o->count; k++) {
            if (option_read(&o->spec, NULL, a, argv[i + 1 + k], &v[k], err, sizeof err) == 0) continue;
            /* A softening with a unit is read on the scale of each file or scene measured. */
            const Units mw = scene_units(SCENE_DISK);
            OptionValue scaled;
            char why[320];
            if (id != OPT_SOFTENING) return refuse("%s", err);
            if (option_read(&o->spec, &mw, o->name, argv[i + 1 + k], &scaled, why, sizeof why) != 0)
                return refuse("%s", why);
            m->softening_text = argv[i + 1 + k];
            v[k] = scaled;
        }
        i += o->count;
        switch ((MeasureOptionId)id) {
        case OPT_RING:
            if (!(v[1].number > v[0].number)) {
                char both[160];
                snprintf(both, sizeof both, "%s %s", v[0].text, v[1].text);
                option_refuse(o->name, both, "is not an annulus: R1 must be more than R0", err, sizeof err);
                return refuse("%s", err);
            }
            m->desc.ring[0] = v[0].number;
            m->desc.ring[1] = v[1].number;
            break;
        case OPT_BEYOND: m->desc.beyond = v[0].number; break;
        case OPT_SOFTENING:
            m->softening = v[0].number;
            m->softening_given = true;
            break;
        case OPT_SCENE: m->scene_kind = (int)v[0].number; break;
        case OPT_N:
            m->n_name = a;
            m->scene.n = (int)v[0].number;
            m->scene_set = true;
            break;
        case OPT_SEED:
            m->scene.seed = v[0].seed;
            m->scene_set = true;
            break;
        case OPT_HALO:
            m->scene.halo = (SceneHalo)v[0].number;
            m->scene_set = true;
            break;
        case OPT_HELP: break;
        }
    }
    if (m->scene_set && m->scene_kind < 0) return refuse("-n, --seed and --halo build a scene: they go with --scene");
    if (m->scene_kind >= 0 && m->scene.n > 0 && m->scene.n < scene_min_bodies((SceneKind)m->scene_kind))
        return refuse("%s: '%d' is too small: the %s scene needs at least %d bodies", m->n_name, m->scene.n,
                      scene_name((SceneKind)m->scene_kind), scene_min_bodies((SceneKind)m->scene_kind));
    if (m->scene_kind < 0 && m->file_count == 0)
        return refuse("nothing to measure: name a file or --scene (starburst-measure --help)");
    return 0;
}

/* Where the softening for W came from, for the line: "pl.tipsy.ini", "--softening". */
typedef struct Softening {
    double value;
    const char *from;
} Softening;

/* fields: the halos as fields of the run (count 0 or NULL: none), halo g galaxy g's. */
static void print_bodies(const char *source, double time, const Bodies *b, const StructureDesc *d,
                         const SimHalos *fields, const Softening *eps)
{
    StructureReport galaxies[2];
    const int count = structure_report(b, d, fields, eps->value, galaxies);
    for (int g = 0; g < count; g++) {
        char line[2048];
        structure_report_line(&galaxies[g], source, time, eps->from, line, sizeof line);
        printf("%s\n", line);
    }
    if (b->n == 0) printf("%s t %.4g: not measured: no bodies\n", source, time);
}

/* "NAME units: length 2.6 kpc, ...; mass of all bodies 1.2e11 Msun": what a model unit is on the
 * run's scale, where it has one. */
static void print_units(const char *name, const Units *u, const Bodies *b)
{
    if (!units_physical(u)) return;
    double mass = 0;
    for (int k = 0; k < b->n; k++) mass += b->pos[4 * k + 3];
    printf("%s units: length %.4g kpc, speed %.4g km/s, mass %.4g Msun, time %.4g Myr (1 Gyr = %.2f); "
           "mass of all bodies %.3g Msun\n",
           name, u->kpc, u->kms, u->msun, u->myr, 1000.0 / u->myr, mass * u->msun);
}

static int measure_scene(const MeasureArgs *m)
{
    SceneDesc scene = m->scene;
    scene.kind = (SceneKind)m->scene_kind;
    const char *name = scene_name(scene.kind);
    double given = 0;
    const Units scale = scene_units(scene.kind);
    if (m->softening_given && softening_for(m, &scale, &given) != 0) return 2;
    Bodies b;
    SceneInfo info;
    char err[512];
    if (scene_build(&scene, &b, &info, err, sizeof err) != 0) {
        fprintf(stderr, "starburst-measure: %s\n", err);
        return 1;
    }
    const Softening eps = m->softening_given ? (Softening){given, "--softening"}
                                             : (Softening){info.softening, "the scene's"};
    print_bodies(name, 0, &b, &m->desc, &info.halos, &eps);
    print_units(name, &info.units, &b);
    bodies_free(&b);
    return 0;
}

/* An HDF5 snapshot, read as --open reads one (scene/snapshot.h), in model units. */
static int measure_hdf5(const char *path, const MeasureArgs *m)
{
    char err[512];
    SnapshotSeries *s = series_open(path, err, sizeof err);
    Bodies b = {0};
    if (!s || series_load(s, 0, &b, NULL, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "starburst-measure: %s\n", err);
        series_close(s);
        return 1;
    }
    Softening eps = {0, "none recorded: --softening sets it"};
    const Units scale = series_units(s);
    double given = 0;
    if (m->softening_given && softening_for(m, &scale, &given) != 0) {
        bodies_free(&b);
        series_close(s);
        return 2;
    }
    if (m->softening_given) eps = (Softening){given, "--softening"};
    else if (series_softening(s) > 0) eps = (Softening){series_softening(s), "the file's"};
    print_bodies(path, series_time(s, 0), &b, &m->desc, NULL, &eps);
    print_units(path, &scale, &b);
    bodies_free(&b);
    series_close(s);
    return 0;
}

static int measure_tipsy(const char *path, const MeasureArgs *m)
{
    char err[512];
    SavedRun saved;
    /* The save's settings: its softening, and its scale for the units and for --softening 200pc. */
    int has_ini = state_read_settings(path, &saved, err, sizeof err);
    if (has_ini < 0) {
        fprintf(stderr, "starburst-measure: %s\n", err);
        return 1;
    }
    has_ini = has_ini == 0;
    const Units none = {0};
    const Units *scale = has_ini ? &saved.units : &none;
    double given = 0;
    if (m->softening_given && softening_for(m, scale, &given) != 0) return 2;
    Bodies b;
    TipsyMeta meta;
    if (tipsy_read_meta(path, &b, &meta, err, sizeof err) != 0) {
        fprintf(stderr, "starburst-measure: %s\n", err);
        return 1;
    }
    char ini[64];
    const char *slash = strrchr(path, '/');
    snprintf(ini, sizeof ini, "%.59s.ini", slash ? slash + 1 : path);
    Softening eps = {0, "none recorded: --softening sets it"};
    if (m->softening_given) eps = (Softening){given, "--softening"};
    else if (has_ini) eps = (Softening){saved.params.softening, ini};
    else if (meta.softening > 0) eps = (Softening){meta.softening, "the file's eps"};
    print_bodies(path, meta.time, &b, &m->desc, has_ini ? &saved.halos : NULL, &eps);
    print_units(path, scale, &b);
    bodies_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    MeasureArgs m;
    const int read = read_args(argc, argv, &m);
    if (read != 0) {
        free(m.files);
        return read == 1 ? 0 : 2;
    }
    /* 2 where --softening does not read on a file's scale, else 1 where a file does not read. */
    int rc = 0;
    if (m.scene_kind >= 0) rc = measure_scene(&m);
    for (int i = 0; i < m.file_count; i++) {
        const char *path = m.files[i];
        const int one = snapshot_hdf5_is(path) ? measure_hdf5(path, &m) : measure_tipsy(path, &m);
        if (one > rc) rc = one;
    }
    free(m.files);
    return rc;
}
