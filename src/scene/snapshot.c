/* Series of snapshots (snapshot.h): one file, a folder or a glob, each file TIPSY or HDF5. Opening
 * a series reads only headers (a TIPSY file's 32 bytes, an HDF5 file's Header group), so a folder
 * of large snapshots opens at once; series_load reads one snapshot's bodies when it is asked. */
#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scene/snapshot.h"
#include "scene/tipsy.h"
#include "util/atomic_file.h"

typedef struct SeriesEntry {
    char *path;
    bool hdf5;
    double time; /* in the file's units */
    double lead_steps; /* SnapshotInfo's */
    long long n;
    double softening, dt; /* an HDF5 file's, its units; 0: none given */
    SnapshotUnits units;  /* an HDF5 file's; all 0: none */
} SeriesEntry;

struct SnapshotSeries {
    SeriesEntry *e;
    int count, cap;
    SnapshotUnits file_units; /* the first HDF5 file's in time; all 0 where none */
    Units to;                 /* model units bodies come back in */
    double softening, dt;     /* the first file's in time (the one a run starts from), file units */
    double time_factor;
};

/* Adds path where it is a snapshot; a file that is neither format is passed over where it came
 * from a folder or glob (quietly) and refused where it was named alone. */
static int add_entry(SnapshotSeries *s, const char *path, bool named, char *err, size_t errlen)
{
    SeriesEntry e = {0};
    if (snapshot_hdf5_is(path)) {
        SnapshotInfo info;
        /* Another HDF5 file in a folder is passed over; a snapshot that fails the check is not. */
        const int rc = snapshot_hdf5_info(path, &info, err, errlen);
        if (rc != 0) return named || rc == -2 ? -1 : 0;
        e = (SeriesEntry){.hdf5 = true, .time = info.time, .lead_steps = info.lead_steps, .n = info.n,
                          .softening = info.softening, .dt = info.dt, .units = info.units};
    } else {
        /* A TIPSY file named alone whose header fails its check is refused as --tipsy refuses it,
         * naming the fault; in a folder or glob it keeps its place (the time its header gives), and
         * the reading stops there with that fault, what was read before it kept. A file that is
         * no TIPSY file is passed over in a folder or glob. */
        char why[1024];
        const int rc = tipsy_read_header(path, &e.time, &e.n, why, sizeof why);
        if (rc == -1 && named) snprintf(err, errlen, "%s: neither an HDF5 snapshot nor a TIPSY file", path);
        if (rc == -2 && named) snprintf(err, errlen, "%s", why);
        if (rc == -1 || (rc == -2 && named)) return named ? -1 : 0;
    }
    if (s->count == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        SeriesEntry *grown = realloc(s->e, sizeof *grown * (size_t)cap);
        if (!grown) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
        s->e = grown;
        s->cap = cap;
    }
    e.path = strdup(path);
    if (!e.path) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    s->e[s->count++] = e;
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const SeriesEntry *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int add_folder(SnapshotSeries *s, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot read the folder", dir);
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || atomic_file_is_leftover(de->d_name)) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) rc = add_entry(s, p, false, err, errlen);
    }
    closedir(d);
    return rc;
}

void series_set_units(SnapshotSeries *s, const Units *to)
{
    const SnapshotUnits *f = &s->file_units;
    if (units_physical(to)) {
        s->to = *to;
    } else if (f->length_cm > 0) {
        /* The file's own length and speed as model units, G = 1 fixing the mass. */
        s->to = units_from(f->length_cm / SNAPSHOT_CM_PER_KPC, f->length_cm / f->time_s / 1e5);
    } else {
        s->to = (Units){0, 0, 0, 0};
    }
    s->time_factor = 1.0;
    if (f->length_cm > 0 && units_physical(&s->to)) s->time_factor = snapshot_time_factor(f, &s->to);
}

SnapshotSeries *series_open(const char *path, char *err, size_t errlen)
{
    SnapshotSeries *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    struct stat st;
    int rc;
    if (stat(path, &st) == 0) {
        rc = S_ISDIR(st.st_mode) ? add_folder(s, path, err, errlen) : add_entry(s, path, true, err, errlen);
    } else if (strpbrk(path, "*?[")) {
        glob_t g;
        int grc = glob(path, 0, NULL, &g);
        rc = 0;
        if (grc == 0)
            for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
                if (!atomic_file_is_leftover(g.gl_pathv[i])) rc = add_entry(s, g.gl_pathv[i], false, err, errlen);
        globfree(&g);
    } else {
        snprintf(err, errlen, "%s: no such file or folder", path);
        rc = -1;
    }
    if (rc == 0 && s->count == 0) {
        snprintf(err, errlen, "%s: holds no HDF5 or TIPSY snapshot", path);
        rc = -1;
    }
    if (rc != 0) {
        series_close(s);
        return NULL;
    }
    qsort(s->e, (size_t)s->count, sizeof *s->e, by_time);
    /* The settings are the first file's in time, the one the run starts from and its line names,
     * whatever order the folder or the glob listed them in. */
    s->softening = s->e[0].softening;
    s->dt = s->e[0].dt;
    for (int i = 0; i < s->count && !(s->file_units.length_cm > 0); i++) s->file_units = s->e[i].units;
    series_set_units(s, NULL);
    return s;
}

void series_close(SnapshotSeries *s)
{
    if (!s) return;
    for (int i = 0; i < s->count; i++) free(s->e[i].path);
    free(s->e);
    free(s);
}


Units series_units(const SnapshotSeries *s)
{
    return s->to;
}

int series_count(const SnapshotSeries *s)
{
    return s->count;
}

const char *series_path(const SnapshotSeries *s, int i)
{
    return i >= 0 && i < s->count ? s->e[i].path : NULL;
}

double series_time(const SnapshotSeries *s, int i)
{
    if (i < 0 || i >= s->count) return 0;
    return s->e[i].hdf5 ? s->e[i].time * s->time_factor : s->e[i].time;
}

long long series_bodies(const SnapshotSeries *s, int i)
{
    return i >= 0 && i < s->count ? s->e[i].n : 0;
}

double series_softening(const SnapshotSeries *s)
{
    if (!(s->file_units.length_cm > 0) || !units_physical(&s->to)) return s->softening;
    return s->softening * s->file_units.length_cm / (s->to.kpc * SNAPSHOT_CM_PER_KPC);
}

long long series_step(const SnapshotSeries *s, int i)
{
    double dt = series_dt(s);
    if (!(dt > 0)) return i;
    return llround((series_time(s, i) - series_time(s, 0)) / dt);
}

double series_dt(const SnapshotSeries *s)
{
    return s->dt * s->time_factor;
}

void series_set_settings(SnapshotSeries *s, double dt, double softening)
{
    if (!(s->dt > 0)) s->dt = dt;
    if (!(s->softening > 0)) s->softening = softening;
}

double series_lead(const SnapshotSeries *s, int i)
{
    if (i < 0 || i >= s->count || !s->e[i].hdf5) return 0;
    return s->e[i].lead_steps * series_dt(s);
}

int series_load(SnapshotSeries *s, int i, Bodies *out, uint8_t **types, SnapshotProgress progress, void *user,
                char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (types) *types = NULL;
    if (i < 0 || i >= s->count) {
        snprintf(err, errlen, "series: no snapshot %d (it holds %d)", i, s->count);
        return -1;
    }
    const SeriesEntry *e = &s->e[i];
    uint8_t *t = NULL;
    if (types) {
        t = malloc((size_t)e->n);
        if (!t) {
            snprintf(err, errlen, "%s: out of memory for %lld bodies", e->path, e->n);
            return -1;
        }
    }
    int rc;
    if (e->hdf5) {
        SnapshotReadDesc d = {.to = &s->to, .progress = progress, .user = user, .types = t};
        rc = snapshot_hdf5_read(e->path, &d, out, NULL, err, errlen);
    } else {
        rc = tipsy_read(e->path, out, NULL, err, errlen);
        if (rc == 0 && t) {
            if (out->n != e->n) {
                free(t);
                t = malloc((size_t)out->n);
            }
            for (int k = 0; t && k < out->n; k++) t[k] = BODY_TAG_COMPONENT(out->tag[k]) == BODY_HALO ? 1 : 4;
        }
        if (rc == 0 && progress) progress(user, out->n, out->n);
    }
    if (rc != 0) {
        free(t);
        return -1;
    }
    if (types) *types = t;
    return 0;
}
