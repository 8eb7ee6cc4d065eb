#include "app/state.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/tipsy.h"
#include "util/atomic_file.h"
#include "util/params.h"

static int sidecar_path(char *buf, size_t len, const char *path, char *err, size_t errlen)
{
    if (snprintf(buf, len, "%s.ini", path) >= (int)len) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    return 0;
}

/* 64-bit FNV-1a over a file's bytes: enough to tell one TIPSY file from another (no defence
 * against a forged one, which is not what it is for). */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen)
{
    char ini[4200], why[256];
    if (sidecar_path(ini, sizeof ini, path, err, errlen) != 0) return -1;
    size_t len;
    unsigned char *bytes = tipsy_encode(b, run->time, &len, why, sizeof why);
    if (!bytes) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    uint64_t sum = fnv1a(FNV_OFFSET, bytes, len);
    AtomicFile *files[2] = {atomic_file_open(path, err, errlen), NULL};
    if (files[0]) files[1] = atomic_file_open(ini, err, errlen);
    if (!files[1]) {
        atomic_file_abort(files[0]);
        free(bytes);
        return -1;
    }
    atomic_file_write(files[0], bytes, len);
    free(bytes);
    /* 9 significant digits give back every float bit for bit, 17 every double. */
    atomic_file_printf(files[1],
                       "; Starburst run parameters, beside the TIPSY file of the same name\n[run]\n"
                       "dt = %.9g\nsoftening = %.9g\ndamping = %.9g\n",
                       (double)run->params.dt, (double)run->params.softening, (double)run->params.damping);
    /* The method and angle only where given, so that a save loads back as it was handed in. */
    if (run->force != SIM_FORCE_AUTO) atomic_file_printf(files[1], "force = %s\n", sim_force_name(run->force));
    if (run->params.theta > 0) atomic_file_printf(files[1], "theta = %.9g\n", (double)run->params.theta);
    atomic_file_printf(files[1],
                       "steps_per_frame = %d\nstep = %lld\ntime = %.17g\n"
                       "; the TIPSY file these belong to: its size, and the 64-bit FNV-1a of its bytes\n"
                       "tipsy_bytes = %zu\ntipsy_checksum = 0x%016llx\n",
                       run->steps_per_frame, run->step, run->time, len, (unsigned long long)sum);
    /* The TIPSY file is renamed first: a crash before the ini follows leaves a pair whose
     * checksum disagrees, which state_load refuses. */
    return atomic_file_commit_all(files, 2, err, errlen);
}

typedef struct SidecarParser {
    SavedRun *run;
    bool has_bytes, has_checksum;
    long long tipsy_bytes;
    uint64_t tipsy_checksum;
    char what[256];
} SidecarParser;

static int on_sidecar(void *user, const char *section, const char *key, const char *value)
{
    SidecarParser *ps = user;
    char *end, quoted[2][96];
    /* The run's parameters, in the ranges the command line and the presets take. */
    const int id = params_find(key);
    if (id == PARAM_DT || id == PARAM_SOFTENING || id == PARAM_DAMPING || id == PARAM_THETA ||
        id == PARAM_STEPS_PER_FRAME) {
        double v;
        char why[sizeof ps->what];
        if (params_parse((ParamId)id, key, value, &v, why, sizeof why) != 0) {
            if (!ps->what[0]) snprintf(ps->what, sizeof ps->what, "%s", why);
            return 0;
        }
        if (id == PARAM_STEPS_PER_FRAME) ps->run->steps_per_frame = (int)v;
        else if (id == PARAM_DT) ps->run->params.dt = (float)v;
        else if (id == PARAM_SOFTENING) ps->run->params.softening = (float)v;
        else if (id == PARAM_DAMPING) ps->run->params.damping = (float)v;
        else ps->run->params.theta = (float)v;
        return 1;
    }
    errno = 0;
    if (strcmp(key, "step") == 0) {
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || errno || v < 0) goto bad;
        ps->run->step = v;
        return 1;
    }
    if (strcmp(key, "force") == 0) {
        const int f = sim_force_from_name(value);
        if (f < 0) goto bad;
        ps->run->force = (SimForce)f;
        return 1;
    }
    if (strcmp(key, "tipsy_bytes") == 0) {
        ps->tipsy_bytes = strtoll(value, &end, 10);
        if (end == value || *end || errno || ps->tipsy_bytes < 0) goto bad;
        ps->has_bytes = true;
        return 1;
    }
    if (strcmp(key, "tipsy_checksum") == 0) {
        ps->tipsy_checksum = strtoull(value, &end, 16);
        if (!isxdigit((unsigned char)value[0]) || end == value || *end || errno) goto bad;
        ps->has_checksum = true;
        return 1;
    }
    if (strcmp(key, "time") == 0) {
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v)) goto bad;
        ps->run->time = v;
        return 1;
    }
    if (!ps->what[0])
        snprintf(ps->what, sizeof ps->what, "unknown key '%s'", params_quote(key, quoted[0], sizeof quoted[0]));
    return 0;
bad:
    if (!ps->what[0])
        snprintf(ps->what, sizeof ps->what, "%s = '%s' is not a valid value", params_quote(key, quoted[0], sizeof quoted[0]),
                 params_quote(value, quoted[1], sizeof quoted[1]));
    return 0;
}

/* The size and checksum of path's bytes. 0, or -1 with err. */
static int file_digest(const char *path, long long *size, uint64_t *sum, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    unsigned char buf[16384];
    *size = 0;
    *sum = FNV_OFFSET;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        *sum = fnv1a(*sum, buf, got);
        *size += (long long)got;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) snprintf(err, errlen, "%s: cannot read it", path);
    return failed ? -1 : 0;
}

/* Whether path is the TIPSY file the ini was written with; older saves record nothing to check. */
static int check_pair(const char *path, const char *ini, const SidecarParser *ps, char *err, size_t errlen)
{
    if (!ps->has_bytes && !ps->has_checksum) return 0;
    if (ps->has_bytes != ps->has_checksum) {
        snprintf(err, errlen, "%s: gives %s without %s", ini, ps->has_bytes ? "tipsy_bytes" : "tipsy_checksum",
                 ps->has_bytes ? "tipsy_checksum" : "tipsy_bytes");
        return -1;
    }
    long long size;
    uint64_t sum;
    if (file_digest(path, &size, &sum, err, errlen) != 0) return -1;
    if (size == ps->tipsy_bytes && sum == ps->tipsy_checksum) return 0;
    snprintf(err, errlen,
             "%s: does not match %s (saved separately or interrupted): %lld bytes, checksum 0x%016llx, the ini "
             "says %lld bytes, checksum 0x%016llx",
             path, ini, size, (unsigned long long)sum, ps->tipsy_bytes, (unsigned long long)ps->tipsy_checksum);
    return -1;
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
    if (check_pair(path, ini, &ps, err, errlen) != 0) goto fail;
    return 0;
fail:
    bodies_free(b);
    return -1;
}
