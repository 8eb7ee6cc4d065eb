/* `starburst export --swift DIR`: the command line over the run's export (run/export.h): a scene
 * built at any N (the collision and the disk streamed to the file) or a saved run, written for
 * SWIFT. */
#include "app/export_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "run/export.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "util/clock.h"
#include "util/params.h"

/* Bodies built at once to measure the extent of a streamed encounter. */
#define EXPORT_PROBE_BODIES 32768

typedef struct Stream {
    SnapshotWriter *w;
    long long done, total;
    double started, said;
} Stream;

static int stream_chunk(void *user, const Bodies *chunk, char *err, size_t errlen)
{
    Stream *s = user;
    if (snapshot_writer_append(s->w, chunk, err, errlen) != 0) return -1;
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
    fputs("usage: starburst export --swift DIR [-n N] [--span T] [--snapshots K] [scene options | --load FILE]\n"
          "  --swift DIR      write ics.hdf5, params.yml and README.txt for SWIFT into DIR (made if missing)\n"
          "  -n N             build the collision or disk at N bodies (streamed to the file: any N up\n"
          "                   to 2147483647); other scenes at N as the viewer's -n\n"
          "  --span T         model time to run, or a time with its unit: 1Gyr (default: twice the\n"
          "                   time to the first pericentre for a collision, else 4 rotation periods);\n"
          "                   rounded up to 2^k steps of dt\n"
          "  --snapshots K    outputs after the first (default 16; rounded down to a power of two)\n"
          "  scene options    as the viewer's: --scene, --seed, --mass-ratio, --pericentre, --dt,\n"
          "                   --softening, ... (starburst --help); --load FILE exports a saved run\n",
          f);
}

/* --span: a model time, or a time with its unit on the run's scale, as the viewer's --dt. The most
 * is what 2^40 steps of the largest dt reach (run/export.c). */
static const OptionSpec span_spec = {.kind = OPTION_NUMBER, .min = 0, .min_open = true, .max = 1e12,
                                     .unit = "model time units", .dim = UNIT_TIME};

typedef struct ExportArgs {
    const char *dir;
    long long n;
    const char *span_text; /* read once the run's scale is known */
    double span;
    int snapshots;
} ExportArgs;

/* Takes export's own options out of argv, leaving the viewer's in rest (rest[0] = "starburst"). */
static int parse_export(int argc, char **argv, ExportArgs *a, char **rest, int *nrest, char *err, size_t errlen)
{
    *a = (ExportArgs){.snapshots = EXPORT_SNAPSHOTS};
    *nrest = 0;
    rest[(*nrest)++] = "starburst";
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool mine = strcmp(o, "--swift") == 0 || strcmp(o, "-n") == 0 || strcmp(o, "--bodies") == 0 ||
                    strcmp(o, "--span") == 0 || strcmp(o, "--snapshots") == 0;
        if (!mine) {
            rest[(*nrest)++] = argv[i];
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
        info = (SceneInfo){.dt = run.params.dt, .softening = run.params.softening, .period = run.period,
                           .units = run.units};
        t0 = run.time;
        snprintf(what, sizeof what, "the saved run %s", o->load_path);
    } else {
        if (scene_build(&o->scene, &b, &info, err, errlen) != 0) return -1;
        snprintf(what, sizeof what, "Starburst's %s scene (seed %llu)", scene_name(o->scene.kind),
                 (unsigned long long)(o->scene.seed ? o->scene.seed : 1));
    }
    double dt = o->dt > 0 ? o->dt : info.dt, eps = o->softening >= 0 ? o->softening : info.softening;
    char said[1024];
    int rc = export_state(a->dir, &b, &info, dt, eps, t0, a->span, a->snapshots, what, said, sizeof said);
    if (rc == 0) printf("export: %s\n", said);
    else snprintf(err, errlen, "%s", said);
    bodies_free(&b);
    return rc;
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
    double rmax, vmax;
    export_reach(&b, &rmax, &vmax);
    bodies_free(&b);
    double dt = o->dt > 0 ? o->dt : info.dt, eps = o->softening >= 0 ? o->softening : info.softening;
    double span = a->span > 0 ? a->span : info.pericentre_time > 0 ? 2.0 * info.pericentre_time : 4.0 * info.period;
    ExportPlan p;
    if (export_plan(dt, eps, 0.0, span, a->snapshots, rmax, vmax, &info.units, &p, err, errlen) != 0) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", a->dir, EXPORT_ICS);
    Stream s = {.total = a->n, .started = clock_seconds()};
    s.said = s.started;
    s.w = snapshot_writer_create(path, a->n, &(SnapshotWriteDesc){.box = p.box, .shift = 0.5 * p.box, .units = &p.units},
                                 err, errlen);
    if (!s.w) return -1;
    SceneInfo built;
    if (scene_stream(&o->scene, a->n, 1 << 20, stream_chunk, &s, &built, err, errlen) != 0) {
        char ignored[64];
        snapshot_writer_close(s.w, ignored, sizeof ignored); /* removes the partial file */
        return -1;
    }
    if (snapshot_writer_close(s.w, err, errlen) != 0) return -1;
    char what[256];
    snprintf(what, sizeof what, "Starburst's %s scene at %lld bodies (seed %llu)", scene_name(o->scene.kind), a->n,
             (unsigned long long)(o->scene.seed ? o->scene.seed : 1));
    if (export_write_text(a->dir, "params.yml", &p, a->n, what, err, errlen) != 0 ||
        export_write_text(a->dir, "README.txt", &p, a->n, what, err, errlen) != 0)
        return -1;
    printf("export: %lld bodies streamed in %.1f s, 2^%d steps of %g to t = %g, box %g: %s/{%s,params.yml,README.txt}\n",
           a->n, clock_seconds() - s.started, p.log2_steps, p.dt, p.time_end, p.box, a->dir, EXPORT_ICS);
    return 0;
}

int export_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    char err[1024] = "";
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 1;
    ExportArgs a;
    AppOptions o;
    int nrest;
    app_default_options(&o);
    int rc = parse_export(argc, argv, &a, rest, &nrest, err, sizeof err);
    if (rc == 0 && app_parse_args(&o, nrest, rest, err, sizeof err) != 0) rc = -1;
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
    if (export_make_dir(a.dir, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    if ((stream ? export_streamed(&o, &a, err, sizeof err) : export_held(&o, &a, err, sizeof err)) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    return 0;
}
