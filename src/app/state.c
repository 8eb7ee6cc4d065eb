#include "app/state.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene/tipsy.h"

static int sidecar_path(char *buf, size_t len, const char *path, char *err, size_t errlen)
{
    if (snprintf(buf, len, "%s.ini", path) >= (int)len) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    return 0;
}

/* Writes the parameters to a new temporary file beside path, named in tmp. */
static int write_sidecar(const char *path, const SavedRun *r, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    if (snprintf(tmp, tmplen, "%s.tmp.XXXXXX", path) >= (int)tmplen) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    /* 9 significant digits give back every float bit for bit, 17 every double. */
    fprintf(f,
            "; Starburst run parameters, beside the TIPSY file of the same name\n[run]\n"
            "dt = %.9g\nsoftening = %.9g\ndamping = %.9g\nsteps_per_frame = %d\nstep = %lld\ntime = %.17g\n",
            (double)r->params.dt, (double)r->params.softening, (double)r->params.damping, r->steps_per_frame,
            r->step, r->time);
    bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen)
{
    /* Both files are written in full beside the old ones before either replaces its old one. */
    char ini[4200], new_tipsy[4200], new_ini[4300];
    if (sidecar_path(ini, sizeof ini, path, err, errlen) != 0) return -1;
    if (snprintf(new_tipsy, sizeof new_tipsy, "%s.new", path) >= (int)sizeof new_tipsy) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    if (tipsy_write(new_tipsy, b, run->time, err, errlen) != 0) return -1;
    if (write_sidecar(ini, run, new_ini, sizeof new_ini, err, errlen) != 0) {
        unlink(new_tipsy);
        return -1;
    }
    if (rename(new_tipsy, path) != 0 || rename(new_ini, ini) != 0) {
        snprintf(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
        unlink(new_tipsy);
        unlink(new_ini);
        return -1;
    }
    return 0;
}

typedef struct SidecarParser {
    SavedRun *run;
    char what[160];
} SidecarParser;

static int on_sidecar(void *user, const char *section, const char *key, const char *value)
{
    SidecarParser *ps = user;
    char *end;
    errno = 0;
    if (strcmp(key, "steps_per_frame") == 0 || strcmp(key, "step") == 0) {
        long long v = strtoll(value, &end, 10);
        bool per_frame = strcmp(key, "steps_per_frame") == 0;
        if (end == value || *end || errno || v < 0 || (per_frame && (v < 1 || v > 1024))) goto bad;
        if (per_frame) ps->run->steps_per_frame = (int)v;
        else ps->run->step = v;
        return 1;
    }
    double v = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(v)) goto bad;
    if (strcmp(key, "dt") == 0 && v > 0) ps->run->params.dt = (float)v;
    else if (strcmp(key, "softening") == 0 && v >= 0) ps->run->params.softening = (float)v;
    else if (strcmp(key, "damping") == 0 && v > 0 && v <= 1) ps->run->params.damping = (float)v;
    else if (strcmp(key, "time") == 0) ps->run->time = v;
    else if (strcmp(key, "dt") && strcmp(key, "softening") && strcmp(key, "damping")) {
        snprintf(ps->what, sizeof ps->what, "unknown key '%s'", key);
        return 0;
    } else goto bad;
    return 1;
bad:
    if (!ps->what[0]) snprintf(ps->what, sizeof ps->what, "%s = '%s' is not a valid value", key, value);
    return 0;
}

int state_load(const char *path, Bodies *b, SavedRun *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    double time = 0;
    if (tipsy_read(path, b, &time, err, errlen) != 0) return -1;
    run->time = time;
    run->params.damping = 1;
    char ini[4200];
    if (sidecar_path(ini, sizeof ini, path, err, errlen) != 0) goto fail;
    FILE *f = fopen(ini, "r");
    if (!f) return 0; /* a plain TIPSY file: the caller's defaults */
    SidecarParser ps = {.run = run};
    int rc = ini_parse_file(f, on_sidecar, &ps);
    fclose(f);
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: %s", ini, rc, ps.what[0] ? ps.what : "not a valid INI line");
        goto fail;
    }
    if (!(run->params.dt > 0)) {
        snprintf(err, errlen, "%s: no dt", ini);
        goto fail;
    }
    return 0;
fail:
    bodies_free(b);
    return -1;
}
