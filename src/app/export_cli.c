/* `starburst export --swift DIR`: the command line over the run's export (run/export.h): a scene
 * built at any N (the collision and the disk streamed to the file) or a saved run, written for
 * SWIFT. */
#include "app/export_cli.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/options.h"
#include "app/stop_signal.h"
#include "run/export.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "util/clock.h"
#include "util/params.h"

/* Bodies built at once to measure the extent of a streamed encounter. */
#define EXPORT_PROBE_BODIES 32768

/* Streaming a scene into the export, a chunk at a time; a stop signal ends it between chunks. */
typedef struct Stream {
    Export *e;
    long long done, total;
    double started, said;
} Stream;

static int stream_chunk(void *user, const Bodies *chunk, char *err, size_t errlen)
{
    Stream *s = user;
    if (stop_signal_requested()) {
        snprintf(err, errlen, "interrupted");
        return -1;
    }
    if (chunk->n == 0) return 0; /* a galaxy measured before its bodies come: a chance to stop */
    if (export_append(s->e, chunk, err, errlen) != 0) return -1;
    s->done += chunk->n;
    double now = clock_seconds();
    if (now - s->said >= 5.0 || s->done == s->total) {
        fprintf(stderr, "export: %lld of %lld bodies written (%.0f s)\n", s->done, s->total, now - s->started);
        s->said = now;
    }
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: starburst export --swift DIR [--force] [-n N] [--span T] [--snapshots K] [scene options | --load FILE]\n"
          "  --swift DIR      write ics.hdf5, params.yml and README.txt for SWIFT into DIR (made if missing;\n"
          "                   a folder holding anything else is refused)\n"
          "  --force          replace the previous export in DIR, its old snapshots removed\n"
          "  -n N             build the collision or disk at N bodies (streamed to the file: any N up\n"
          "                   to 2147483647); other scenes at N as the viewer's -n\n"
          "  --span T         model time to run, or a time with its unit: 1Gyr (default: twice the\n"
          "                   time to the first pericentre for a collision, else 4 rotation periods);\n"
          "                   rounded up to 2^k steps of dt\n"
          "  --snapshots K    outputs after the first: a power of two, at most the steps of the span and\n"
          "                   4096 (default 16, or the steps where fewer)\n"
          "  scene options    as the viewer's: --scene, --seed, --mass-ratio, --pericentre, --dt,\n"
          "                   --softening, ... (starburst --help); --load FILE exports a saved run;\n"
          "                   the viewer's other options (--open, --preset, --size, --backend, --force,\n"
          "                   --save, ...) are refused\n"
          "Ctrl+C (or SIGTERM) during an export removes what it wrote.\n",
          f);
}

/* --span: a model time, or a time with its unit on the run's scale, as the viewer's --dt. The most
 * is what 2^40 steps of the largest dt reach (run/export.c). */
static const OptionSpec span_spec = {.kind = OPTION_NUMBER, .min = 0, .min_open = true, .max = 1e12,
                                     .unit = "model time units", .dim = UNIT_TIME};

typedef struct ExportArgs {
    const char *dir;
    bool force;
    long long n;
    const char *span_text; /* read once the run's scale is known */
    double span;
    int snapshots;
} ExportArgs;

/* Takes export's own options out of argv, leaving the viewer's in rest (rest[0] = "starburst").
 * Each may be given once. */
static int parse_export(int argc, char **argv, ExportArgs *a, char **rest, int *nrest, char *err, size_t errlen)
{
    static const char *const own[] = {"--swift", "-n", "--span", "--snapshots", "--force"};
    enum { OWN = sizeof own / sizeof own[0] };
    bool seen[OWN] = {false};
    *a = (ExportArgs){0};
    *nrest = 0;
    rest[(*nrest)++] = "starburst";
    for (int i = 1; i < argc; i++) {
        const char *o = strcmp(argv[i], "--bodies") == 0 ? "-n" : argv[i];
        int which = -1;
        for (int k = 0; k < OWN; k++)
            if (strcmp(o, own[k]) == 0) which = k;
        if (which < 0) {
            rest[(*nrest)++] = argv[i];
            continue;
        }
        if (seen[which]) {
            snprintf(err, errlen, "export: %s is given twice: give it once", argv[i]);
            return -1;
        }
        seen[which] = true;
        if (strcmp(o, "--force") == 0) {
            a->force = true;
            continue;
        }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "export: %s needs a value (see starburst export --help)", o);
            return -1;
        }
        const char *v = argv[++i];
        char *end;
        errno = 0;
        if (strcmp(o, "--swift") == 0) {
            a->dir = v;
        } else if (strcmp(o, "--span") == 0) {
            a->span_text = v;
        } else {
            long long x = strtoll(v, &end, 10);
            bool n = strcmp(o, "--snapshots") != 0;
            if (end == v || *end || errno || x < 1 || x > (n ? 2147483647LL : 4096)) {
                snprintf(err, errlen, "export: %s: '%s' is not a whole number from 1 to %s", o, v,
                         n ? "2147483647" : "4096");
                return -1;
            }
            if (!n && (x & (x - 1)) != 0) {
                snprintf(err, errlen, "export: --snapshots: '%s' is not a power of two (1, 2, 4, ... 4096): outputs "
                         "fall on whole steps of a span of 2^k steps", v);
                return -1;
            }
            if (n) a->n = x;
            else a->snapshots = (int)x;
        }
    }
    if (!a->dir) {
        snprintf(err, errlen, "export: say where: --swift DIR (see starburst export --help)");
        return -1;
    }
    return 0;
}

/* The viewer's options that export would not use (the display, the backend, a series, a preset,
 * --save): refused with one line rather than ignored. rest holds what parse_export left, rest[0]
 * the program. */
static int refuse_viewer_options(int nrest, char **rest, char *err, size_t errlen)
{
    for (int i = 1; i < nrest; i++) {
        char name[64];
        const char *eq = strchr(rest[i], '=');
        snprintf(name, sizeof name, "%.*s", eq && strncmp(rest[i], "--", 2) == 0 ? (int)(eq - rest[i]) : 63, rest[i]);
        const AppOption *row = app_option_named(name);
        if (!row) continue; /* app_parse_args says what is wrong with it */
        if (!row->exported) {
            char shown[200];
            snprintf(err, errlen, "export: %s is the viewer's option: export writes a scene or a saved run (--load) "
                     "for SWIFT, which runs it at its own settings%s (see starburst export --help)",
                     params_quote(eq ? rest[i] : name, shown, sizeof shown),
                     row->start == APP_START_OPEN ? "; a series is opened by the viewer" : "");
            return -1;
        }
        if (row->value.kind != OPTION_FLAG && !eq) i++; /* its value */
    }
    return 0;
}

/* The end of an export a signal stopped: what it wrote removed, said in one line, and the program
 * ended by the signal (stop_signal.h). */
static int interrupted(Export *e)
{
    char removed[2400];
    export_cancel(e, removed, sizeof removed);
    fprintf(stderr, "starburst: export interrupted by %s: %s\n", stop_signal_name(stop_signal_requested()), removed);
    return stop_signal_finish(0, NULL, true);
}

/* A failure after the export began: its files removed, the line says what and why. */
static int failed(Export *e, const char *why, char *err, size_t errlen)
{
    char removed[2400];
    export_cancel(e, removed, sizeof removed);
    snprintf(err, errlen, "%.1200s (%.1200s)", why, removed);
    return -1;
}

/* The bodies held at once: a saved run, or the scene at its N. */
static int export_held(const AppOptions *o, const ExportArgs *a, char *err, size_t errlen)
{
    Bodies b;
    SceneInfo info;
    double t0 = 0;
    char what[256];
    if (o->load_path) {
        SavedRun run;
        if (state_load(o->load_path, &b, &run, err, errlen) != 0) return -1;
        if (run.halos.count > 0) {
            bodies_free(&b);
            snprintf(err, errlen,
                     "export: %s is a run with halo fields, which SWIFT runs as bodies: they are sampled into bodies "
                     "at a built run's start only (starburst export with the scene's options, or Run at scale at the "
                     "start in the window); a run saved with --halo live exports as it is",
                     o->load_path);
            return 2; /* bad input, as a refused plan */
        }
        info = (SceneInfo){.dt = run.params.dt, .softening = run.params.softening, .period = run.period,
                           .units = run.units};
        t0 = run.time;
        snprintf(what, sizeof what, "the saved run %s", o->load_path);
    } else {
        if (scene_build(&o->scene, &b, &info, err, errlen) != 0) return -1;
        snprintf(what, sizeof what, "Starburst's %s scene (seed %llu)", scene_name(o->scene.kind),
                 (unsigned long long)(o->scene.seed ? o->scene.seed : 1));
    }
    double span = a->span > 0 ? a->span
                  : info.pericentre_time > 0 ? 2.0 * info.pericentre_time
                  : info.period > 0          ? 4.0 * info.period
                                             : 1000.0 * info.dt;
    ExportDesc d = {.dir = a->dir, .force = a->force, .dt = o->dt > 0 ? o->dt : info.dt,
                    .softening = o->softening >= 0 ? o->softening : info.softening, .time_begin = t0, .span = span,
                    .snapshots = a->snapshots, .units = &info.units, .n = b.n, .what = what};
    export_reach(&b, &d.rmax, &d.vmax);
    Export *e = export_begin(&d, err, errlen);
    int rc = e ? 0 : 2;
    char why[1200];
    if (e && export_append(e, &b, why, sizeof why) != 0) rc = failed(e, why, err, errlen);
    bodies_free(&b);
    if (rc != 0) return rc;
    if (stop_signal_requested()) return interrupted(e);
    char said[1200];
    if (export_finish(e, said, sizeof said) != 0) {
        snprintf(err, errlen, "%s", said);
        return -1;
    }
    printf("export: %s\n", said);
    return 0;
}

/* The collision or disk at a->n bodies, streamed. Its extent is measured on the same scene built
 * small. */
static int export_streamed(const AppOptions *o, const ExportArgs *a, char *err, size_t errlen)
{
    SceneDesc probe = o->scene;
    probe.n = a->n < EXPORT_PROBE_BODIES ? (int)a->n : EXPORT_PROBE_BODIES;
    Bodies b;
    SceneInfo info;
    if (scene_build(&probe, &b, &info, err, errlen) != 0) return -1;
    char what[256];
    snprintf(what, sizeof what, "Starburst's %s scene at %lld bodies (seed %llu)", scene_name(o->scene.kind), a->n,
             (unsigned long long)(o->scene.seed ? o->scene.seed : 1));
    ExportDesc d = {.dir = a->dir, .force = a->force, .dt = o->dt > 0 ? o->dt : info.dt,
                    .softening = o->softening >= 0 ? o->softening : info.softening,
                    .span = a->span > 0 ? a->span : info.pericentre_time > 0 ? 2.0 * info.pericentre_time : 4.0 * info.period,
                    .snapshots = a->snapshots, .units = &info.units, .n = a->n, .what = what};
    export_reach(&b, &d.rmax, &d.vmax);
    bodies_free(&b);
    Export *e = export_begin(&d, err, errlen);
    if (!e) return 2;
    Stream s = {.e = e, .total = a->n, .started = clock_seconds()};
    s.said = s.started;
    SceneInfo built;
    char why[1200];
    if (scene_stream(&o->scene, a->n, 1 << 20, stream_chunk, &s, &built, why, sizeof why) != 0)
        return stop_signal_requested() ? interrupted(e) : failed(e, why, err, errlen);
    if (stop_signal_requested()) return interrupted(e);
    char said[1200];
    if (export_finish(e, said, sizeof said) != 0) {
        snprintf(err, errlen, "%s", said);
        return -1;
    }
    printf("export: streamed in %.1f s: %s\n", clock_seconds() - s.started, said);
    return 0;
}

int export_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    char err[2600] = "";
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 1;
    ExportArgs a;
    AppOptions o;
    int nrest;
    app_default_options(&o);
    int rc = parse_export(argc, argv, &a, rest, &nrest, err, sizeof err);
    if (rc == 0) rc = refuse_viewer_options(nrest, rest, err, sizeof err);
    if (rc == 0 && app_parse_args(&o, nrest, rest, err, sizeof err) != 0) rc = -1;
    app_options_free(&o); /* an export builds its bodies anew: a series opened for its scale is let go */
    /* SWIFT runs a halo as bodies: a field (the program's default, or a preset's) goes as the live
     * scene samples it, in the galaxy's equilibrium. */
    if (o.scene.halo == SCENE_HALO_FIELD) o.scene.halo = SCENE_HALO_LIVE;
    free(rest);
    OptionValue span;
    if (rc == 0 && a.span_text && option_read(&span_spec, &o.scale, "--span", a.span_text, &span, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && a.span_text) a.span = span.number;
    if (rc == 0 && o.load_path && a.n > 0) {
        snprintf(err, sizeof err, "export: -n builds a scene; a --load'ed run has its own bodies");
        rc = -1;
    }
    if (rc == 0 && a.n > 0 && a.n < scene_min_bodies(o.scene.kind)) {
        snprintf(err, sizeof err, "export: -n %lld: the %s scene needs at least %d bodies", a.n,
                 scene_name(o.scene.kind), scene_min_bodies(o.scene.kind));
        rc = -1;
    }
    bool stream = a.n > 0 && !o.load_path && (o.scene.kind == SCENE_COLLISION || o.scene.kind == SCENE_DISK);
    if (rc == 0 && a.n > 0 && !stream) {
        if (a.n > SCENE_MAX_BODIES) {
            snprintf(err, sizeof err, "export: %s builds at most %d bodies (collision and disk stream any N)",
                     scene_name(o.scene.kind), SCENE_MAX_BODIES);
            rc = -1;
        }
        o.scene.n = (int)a.n;
    }
    if (rc != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    stop_signal_install();
    /* 2: the plan or the folder refused (bad input); 1: the export failed. */
    rc = stream ? export_streamed(&o, &a, err, sizeof err) : export_held(&o, &a, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return rc == 2 ? 2 : 1;
    }
    return stop_signal_finish(0, NULL, true);
}
