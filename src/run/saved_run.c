/* The save as a pair, under any interruption. A save writes run.tipsy.tmp-X and run.tipsy.ini.tmp-Y
 * in full, keeps the old run.tipsy as run.tipsy.old-Z (a hard link), renames the TIPSY file into
 * place and then the ini, the commit record (util/atomic_file.c gives the order and the flushes),
 * and once both are in place removes every .tmp- and .old- file beside them, an earlier
 * interrupted save's too. The ini records the size and FNV-1a checksum of its TIPSY file, so a
 * loader can tell which files belong together. Killed anywhere, the folder holds one of:
 *   - the old pair, which agrees (with new files half written or complete beside it);
 *   - the new TIPSY file and the old ini, which disagree, with the new ini complete as
 *     run.tipsy.ini.tmp-Y and the old TIPSY file as run.tipsy.old-Z;
 *   - the new pair, which agrees (with run.tipsy.old-Z perhaps still beside it).
 * state_load takes, in this order: the TIPSY file with its ini when they agree; the TIPSY file
 * with a run.tipsy.ini.tmp-* that records it (the save finished, forwards); an ini of an older
 * save, which records no checksum; the ini with a run.tipsy.old-* it records (the save undone,
 * backwards). Among leftovers of several interrupted saves, the newest that fits wins. Loading
 * writes nothing: the next save to the same name tidies up. A TIPSY file without an ini and
 * without such leftovers is refused: its settings are not known (--tipsy opens it alone). */
#include "run/saved_run.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/tipsy.h"
#include "util/atomic_file.h"
#include "util/ini_lines.h"
#include "util/input_file.h"
#include "util/le_bytes.h"
#include "util/params.h"

/* path with suffix after it, in a new allocation (NULL when out of memory). */
static char *suffixed(const char *path, const char *suffix)
{
    size_t len = strlen(path) + strlen(suffix) + 1;
    char *name = malloc(len);
    if (name) snprintf(name, len, "%s%s", path, suffix);
    return name;
}

static char *sidecar_of(const char *path) { return suffixed(path, ".ini"); }

/* 64-bit FNV-1a over a file's bytes: enough to tell one TIPSY file from another (no defence
 * against a forged one, which is not what it is for). */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

/* FILE.acc: the accelerations the run's next step reads (sim/bodies.h's Bodies.acc), so that a
 * loaded run goes on bit for bit as the run never saved. Little-endian: the 16 bytes of ACC_MAGIC
 * (no TIPSY header: a folder of saves opened as a series passes over it), then u32 n, i32
 * backend, i32 force, f32 softening, theta, alpha, u64 the size and u64 the FNV-1a of the TIPSY
 * file they belong to, then 3n f32. A load takes them only from a file that records the TIPSY
 * file it read and its count of bodies; any other it passes over, and the run computes them as a
 * run saved without them does. */
static const char ACC_MAGIC[16] = "Starburst acc 1";
#define ACC_HEADER 56

/* b's accelerations as FILE.acc's bytes, for the TIPSY file of tipsy_bytes and sum; NULL when
 * out of memory. */
static unsigned char *acc_encode(const Bodies *b, size_t tipsy_bytes, uint64_t sum, size_t *len)
{
    *len = ACC_HEADER + 12 * (size_t)b->n;
    unsigned char *p = malloc(*len);
    if (!p) return NULL;
    const BodiesAccInfo *a = &b->acc_info;
    memcpy(p, ACC_MAGIC, sizeof ACC_MAGIC);
    le_put_u32(p + 16, (uint32_t)b->n);
    le_put_u32(p + 20, (uint32_t)a->backend);
    le_put_u32(p + 24, (uint32_t)a->force);
    le_put_f32(p + 28, a->softening);
    le_put_f32(p + 32, a->theta);
    le_put_f32(p + 36, a->alpha);
    le_put_u64(p + 40, tipsy_bytes);
    le_put_u64(p + 48, sum);
    for (size_t i = 0; i < 3 * (size_t)b->n; i++) le_put_f32(p + ACC_HEADER + 4 * i, b->acc[i]);
    return p;
}

/* Where FILE.acc is looked for: the TIPSY file read (its size and checksum) and its bodies. */
typedef struct AccSearch {
    Bodies *b;
    long long tipsy_bytes;
    uint64_t sum;
} AccSearch;

/* Takes the accelerations of the file at name into s->b where it records s's TIPSY file: 1, else 0. */
static int acc_take(void *user, const char *name)
{
    AccSearch *s = user;
    char why[160];
    FILE *f = input_file_open(name, why, sizeof why);
    if (!f) return 0;
    const size_t want = ACC_HEADER + 12 * (size_t)s->b->n;
    unsigned char *p = malloc(want + 1);
    const size_t got = p ? fread(p, 1, want + 1, f) : 0;
    fclose(f);
    const bool fits = got == want && memcmp(p, ACC_MAGIC, sizeof ACC_MAGIC) == 0 &&
                      le_get_u32(p + 16) == (uint32_t)s->b->n && le_get_u64(p + 40) == (uint64_t)s->tipsy_bytes &&
                      le_get_u64(p + 48) == s->sum && bodies_alloc_acc(s->b) == 0;
    if (fits) {
        s->b->acc_info = (BodiesAccInfo){.backend = (int)le_get_u32(p + 20),
                                         .force = (int)le_get_u32(p + 24),
                                         .softening = le_get_f32(p + 28),
                                         .theta = le_get_f32(p + 32),
                                         .alpha = le_get_f32(p + 36)};
        for (size_t i = 0; i < 3 * (size_t)s->b->n; i++) s->b->acc[i] = le_get_f32(p + ACC_HEADER + 4 * i);
    }
    free(p);
    return fits;
}

/* The accelerations saved beside target for the TIPSY file read (of tipsy_bytes and sum) into b:
 * from target.acc, or what an interrupted save left beside it. None found: b carries none. */
static void acc_load(const char *target, Bodies *b, long long tipsy_bytes, uint64_t sum)
{
    char *acc = suffixed(target, ".acc"), *acc_target = acc ? atomic_file_target(acc) : NULL;
    AccSearch s = {.b = b, .tipsy_bytes = tipsy_bytes, .sum = sum};
    if (acc_target && !acc_take(&s, acc_target) && !atomic_file_leftovers(acc_target, ".tmp-", acc_take, &s))
        atomic_file_leftovers(acc_target, ".old-", acc_take, &s);
    free(acc);
    free(acc_target);
}

/* FILE.param beside a save with a scale: the TIPSY parameters that name its model units (G = 1),
 * which yt's TIPSY reader takes from a .param file in the save's folder (dKpcUnit, dMsolUnit; the
 * time follows from G). A save without a scale removes one an older save left. 0, or -1 with err. */
static int write_units_param(const char *target, const Units *u, char *err, size_t errlen)
{
    const size_t len = strlen(target) + sizeof ".param";
    char *param = malloc(len);
    if (!param) {
        snprintf(err, errlen, "%s: out of memory", target);
        return -1;
    }
    snprintf(param, len, "%s.param", target);
    int rc = 0;
    if (!units_physical(u)) {
        atomic_file_remove_leftovers(param);
        if (remove(param) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "saved; but %s, of an older save, stays: %s", param, strerror(errno));
            rc = -1;
        }
        free(param);
        return rc;
    }
    char why[256];
    AtomicFile *f = atomic_file_open(param, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "saved; but not its units for other readers: %s", why);
        free(param);
        return -1;
    }
    atomic_file_printf(f,
                       "# Starburst: the scale of the model units (G = 1) of the TIPSY file beside it\n"
                       "dKpcUnit = %.17g\n"
                       "dMsolUnit = %.17g\n"
                       "bPeriodic = 0\n"
                       "bComove = 0\n",
                       u->kpc, u->msun);
    if (atomic_file_commit(f, why, sizeof why) != 0) {
        snprintf(err, errlen, "saved; but not its units for other readers: %s", why);
        rc = -1;
    } else {
        atomic_file_remove_leftovers(param); /* an interrupted save's, as the pair's are */
    }
    free(param);
    return rc;
}

/* Whether the run's parameters are what the reader takes back (the table's ranges): a save that
 * would not load is not written. 0, or -1 with the first that is not in err. */
static int check_saved(const char *path, const SavedRun *run, char *err, size_t errlen)
{
    const struct {
        ParamId id;
        double v;
        bool given;
    } values[] = {
        {PARAM_DT, run->params.dt, true},
        {PARAM_SOFTENING, run->params.softening, true},
        {PARAM_DAMPING, run->params.damping, true},
        {PARAM_THETA, run->params.theta, run->params.theta > 0},
        {PARAM_ALPHA, run->params.alpha, run->params.alpha >= 0},
        {PARAM_STEPS_PER_FRAME, run->steps_per_frame, true},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char why[256];
        if (values[i].given && params_check(values[i].id, values[i].v, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: not saved, it would not load: %s", path, why);
            return -1;
        }
    }
    return 0;
}

int state_save(const char *path, const Bodies *b, const SavedRun *run, char *err, size_t errlen)
{
    char why[256];
    if (check_saved(path, run, err, errlen) != 0) return -1;
    /* Through a symbolic link, the pair goes beside the file it ends at. */
    char *target = atomic_file_target(path), *ini = target ? sidecar_of(target) : NULL;
    char *ini_target = ini ? atomic_file_target(ini) : NULL;
    if (!ini_target) {
        snprintf(err, errlen, "%s: cannot write: out of memory", path);
        free(target);
        free(ini);
        return -1;
    }
    size_t len;
    int rc = -1;
    char *acc_name = NULL, *acc_target = NULL;
    unsigned char *bytes = tipsy_encode(b, run->time, &len, why, sizeof why);
    if (!bytes) {
        snprintf(err, errlen, "%s: %s", path, why);
        goto done;
    }
    uint64_t sum = fnv1a(FNV_OFFSET, bytes, len);
    /* The accelerations where the bodies carry them, between the TIPSY file and the ini. */
    size_t acc_len = 0;
    unsigned char *acc = b->acc && b->acc_info.backend ? acc_encode(b, len, sum, &acc_len) : NULL;
    if (b->acc && b->acc_info.backend && !acc) {
        snprintf(err, errlen, "%s: cannot write: out of memory", path);
        free(bytes);
        goto done;
    }
    acc_name = acc ? suffixed(target, ".acc") : NULL;
    acc_target = acc_name ? atomic_file_target(acc_name) : NULL;
    if (acc && !acc_target) {
        snprintf(err, errlen, "%s: cannot write: out of memory", path);
        free(bytes);
        free(acc);
        goto done;
    }
    AtomicFile *files[3] = {atomic_file_open(target, err, errlen), NULL, NULL};
    const int nfiles = acc ? 3 : 2;
    for (int k = 1; k < nfiles && files[k - 1]; k++)
        files[k] = atomic_file_open(k == nfiles - 1 ? ini_target : acc_target, err, errlen);
    if (!files[nfiles - 1]) {
        for (int k = 0; k < nfiles; k++) atomic_file_abort(files[k]);
        free(bytes);
        free(acc);
        goto done;
    }
    atomic_file_write(files[0], bytes, len);
    free(bytes);
    if (acc) atomic_file_write(files[1], acc, acc_len);
    free(acc);
    AtomicFile *ini_file = files[nfiles - 1];
    /* 9 significant digits give back every float bit for bit, 17 every double. The parameters'
     * keys are the table's (util/params.h), as the reader's are. */
    atomic_file_printf(ini_file,
                       "; Starburst run parameters, beside the TIPSY file of the same name\n[run]\n"
                       "%s = %.9g\n%s = %.9g\n%s = %.9g\n",
                       params_get(PARAM_DT)->key, (double)run->params.dt, params_get(PARAM_SOFTENING)->key,
                       (double)run->params.softening, params_get(PARAM_DAMPING)->key, (double)run->params.damping);
    /* The method and angle only where given, so that a save loads back as it was handed in. */
    if (run->force != SIM_FORCE_AUTO) atomic_file_printf(ini_file, "force = %s\n", sim_force_name(run->force));
    if (run->params.theta > 0)
        atomic_file_printf(ini_file, "%s = %.9g\n", params_get(PARAM_THETA)->key, (double)run->params.theta);
    if (run->params.alpha >= 0)
        atomic_file_printf(ini_file, "%s = %.9g\n", params_get(PARAM_ALPHA)->key, (double)run->params.alpha);
    atomic_file_printf(ini_file,
                       "%s = %d\nstep = %lld\ntime = %.17g\n"
                       "; the TIPSY file these belong to: its size, and the 64-bit FNV-1a of its bytes\n"
                       "tipsy_bytes = %zu\ntipsy_checksum = 0x%016llx\n",
                       params_get(PARAM_STEPS_PER_FRAME)->key, run->steps_per_frame, run->step, run->time, len,
                       (unsigned long long)sum);
    /* The scale goes with the run: one model length in kpc and one model speed in km/s (mass and
     * time follow from G); a run in model units alone has no such section. */
    if (units_physical(&run->units))
        atomic_file_printf(ini_file, "[units]\nkpc = %.17g\nkms = %.17g\n", run->units.kpc, run->units.kms);
    if (run->period > 0) atomic_file_printf(ini_file, "%speriod = %.9g\n", units_physical(&run->units) ? "" : "[units]\n",
                                            (double)run->period);
    /* Halos as fields: each profile's four numbers (it is built again from them, bit for bit) and
     * the loss its centre carries. */
    if (run->halos.count > 0) {
        atomic_file_printf(ini_file,
                           "[halos]\n; fields: the last %d bodies are their centres; each halo is its mass, "
                           "scale, taper and cut\ncount = %d\nln_lambda = %.9g\n",
                           run->halos.count, run->halos.count, (double)run->halos.ln_lambda);
        for (int h = 0; h < run->halos.count; h++) {
            const SimHalo *o = &run->halos.halo[h];
            atomic_file_printf(ini_file, "halo%d = %.9g %.9g %.9g %.9g\nloss%d = %.9g\n", h, (double)o->mass,
                               (double)o->scale, (double)o->taper, (double)o->cut, h,
                               (double)b->vel[4 * ((size_t)b->n - run->halos.count + h) + 3]);
        }
    }
    /* The TIPSY file is renamed first and the ini last, the commit record (see the top). */
    rc = atomic_file_commit_all(files, nfiles, err, errlen);
    if (rc == 0) {
        atomic_file_remove_leftovers(target);
        if (acc_target) atomic_file_remove_leftovers(acc_target);
        atomic_file_remove_leftovers(ini_target);
    }
    if (rc == 0) rc = write_units_param(target, &run->units, err, errlen);
done:
    free(acc_name);
    free(acc_target);
    free(target);
    free(ini);
    free(ini_target);
    return rc;
}

typedef struct SidecarParser {
    SavedRun *run;
    bool has_bytes, has_checksum;
    long long tipsy_bytes;
    uint64_t tipsy_checksum;
    char what[256];
    char with_unit[2][96]; /* dt and softening given with a unit, read once [units] has given the scale */
    IniLines lines;
    int fail_line; /* where the first mistake is */
    struct {
        char key[48];
        int line;
    } keys[32]; /* the keys given so far, with their sections' headers and lines */
    int key_count;
} SidecarParser;

static void sidecar_problem(void *user, int line, const char *what)
{
    SidecarParser *ps = user;
    if (ps->what[0]) return;
    ps->fail_line = line;
    snprintf(ps->what, sizeof ps->what, "%s", what);
}

/* The line a key stood at before in the same section, or 0: of two values, which was meant cannot
 * be told. */
static int given_before(SidecarParser *ps, const char *section, const char *key)
{
    char full[48];
    snprintf(full, sizeof full, "%.20s.%.26s", section, key);
    for (int i = 0; i < ps->key_count; i++)
        if (strcmp(ps->keys[i].key, full) == 0) return ps->keys[i].line;
    if (ps->key_count < (int)(sizeof ps->keys / sizeof ps->keys[0])) {
        snprintf(ps->keys[ps->key_count].key, sizeof ps->keys[0].key, "%s", full);
        ps->keys[ps->key_count++].line = ps->lines.line;
    }
    return 0;
}

/* Whether text is a value of id with a unit after it ("0.2Myr"): read after the file, on its scale. */
static bool has_unit(ParamId id, const char *text)
{
    const Units probe = units_from(1, 1);
    double v;
    bool had = false;
    char why[160];
    return params_get(id)->dim != UNIT_NONE && units_parse(text, params_get(id)->dim, &probe, &v, &had, why, sizeof why) == 0 &&
           had;
}

/* A key of [halos]: count, ln_lambda, haloH (mass scale taper cut) and lossH. */
static int on_halos(SidecarParser *ps, const char *key, const char *value)
{
    SimHalos *hs = &ps->run->halos;
    char *end, quoted[2][96];
    int h;
    errno = 0;
    if (strcmp(key, "count") == 0) {
        long v = strtol(value, &end, 10);
        if (end == value || *end || v < 1 || v > NBODY_HALO_MAX) goto bad;
        hs->count = (int)v;
        return 1;
    }
    if (strcmp(key, "ln_lambda") == 0) {
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v) || v < 0) goto bad;
        hs->ln_lambda = (float)v;
        return 1;
    }
    if (sscanf(key, "halo%d", &h) == 1 && h >= 0 && h < NBODY_HALO_MAX && strlen(key) == 5) {
        double v[4];
        const char *at = value;
        for (int k = 0; k < 4; k++) {
            v[k] = strtod(at, &end);
            if (end == at || errno || !isfinite(v[k]) || !(v[k] > 0)) goto bad;
            at = end;
        }
        while (*at == ' ' || *at == '\t') at++;
        if (*at) goto bad;
        SimHalo *o = &hs->halo[h];
        o->mass = (float)v[0], o->scale = (float)v[1], o->taper = (float)v[2], o->cut = (float)v[3];
        return 1;
    }
    if (sscanf(key, "loss%d", &h) == 1 && h >= 0 && h < NBODY_HALO_MAX && strlen(key) == 5) {
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v)) goto bad;
        ps->run->halo_loss[h] = (float)v;
        return 1;
    }
    if (!ps->what[0])
        snprintf(ps->what, sizeof ps->what, "unknown key '%s' in [halos]", params_quote(key, quoted[0], sizeof quoted[0]));
    return 0;
bad:
    if (!ps->what[0])
        snprintf(ps->what, sizeof ps->what, "%s = '%s' is not a valid value", params_quote(key, quoted[0], sizeof quoted[0]),
                 params_quote(value, quoted[1], sizeof quoted[1]));
    return 0;
}

static int on_sidecar(void *user, const char *section, const char *key, const char *value)
{
    SidecarParser *ps = user;
    char *end, quoted[2][96];
    const int before = given_before(ps, section, key);
    if (before) {
        if (!ps->what[0])
            snprintf(ps->what, sizeof ps->what, "%s is given twice, at lines %d and %d",
                     params_quote(key, quoted[0], sizeof quoted[0]), before, ps->lines.line);
        return 0;
    }
    /* The run's parameters, in the ranges the command line and the presets take. */
    const int id = params_find(key);
    if (id == PARAM_DT || id == PARAM_SOFTENING || id == PARAM_DAMPING || id == PARAM_THETA || id == PARAM_ALPHA ||
        id == PARAM_STEPS_PER_FRAME) {
        double v;
        char why[sizeof ps->what];
        if (params_parse((ParamId)id, key, value, &v, why, sizeof why) != 0) {
            if (has_unit((ParamId)id, value) && strlen(value) < sizeof ps->with_unit[0]) {
                snprintf(ps->with_unit[id == PARAM_SOFTENING], sizeof ps->with_unit[0], "%s", value);
                return 1;
            }
            if (!ps->what[0]) snprintf(ps->what, sizeof ps->what, "%s", why);
            return 0;
        }
        if (id == PARAM_STEPS_PER_FRAME) ps->run->steps_per_frame = (int)v;
        else if (id == PARAM_DT) ps->run->params.dt = (float)v;
        else if (id == PARAM_SOFTENING) ps->run->params.softening = (float)v;
        else if (id == PARAM_DAMPING) ps->run->params.damping = (float)v;
        else if (id == PARAM_ALPHA) ps->run->params.alpha = (float)v;
        else ps->run->params.theta = (float)v;
        return 1;
    }
    errno = 0;
    if (strcmp(section, "halos") == 0) return on_halos(ps, key, value);
    if (strcmp(section, "units") == 0) {
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v) || !(v > 0)) goto bad;
        if (strcmp(key, "kpc") == 0) ps->run->units = units_from(v, ps->run->units.kms);
        else if (strcmp(key, "kms") == 0) ps->run->units = units_from(ps->run->units.kpc, v);
        else if (strcmp(key, "period") == 0) ps->run->period = (float)v;
        else goto unknown;
        return 1;
    }
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
unknown:
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
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, why);
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

/* One ini read: the settings, and the TIPSY file it records (has_pair false for an older save). */
typedef struct Settings {
    SavedRun run;
    bool has_pair;
    long long tipsy_bytes;
    uint64_t tipsy_checksum;
} Settings;

/* Reads the ini at path into s, its run starting as base. 0; 1 where path does not exist; -1
 * with err. */
static int read_settings(const char *path, const SavedRun *base, Settings *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->run = *base;
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        if (errno == ENOENT) return 1;
        snprintf(err, errlen, "cannot read %s: %s", path, why);
        return -1;
    }
    SidecarParser ps = {.run = &s->run};
    ps.lines = (IniLines){.file = f, .problem = sidecar_problem, .user = &ps};
    int rc = ini_parse_stream(ini_lines_read, &ps.lines, on_sidecar, &ps);
    fclose(f);
    if (rc != 0 || ps.what[0]) {
        snprintf(err, errlen, "%s:%d: %.200s", path, ps.fail_line ? ps.fail_line : rc,
                 ps.what[0] ? ps.what : "not a valid INI line");
        return -1;
    }
    /* The halos' profiles, built again from their numbers as the scene built them. */
    for (int h = 0; h < s->run.halos.count; h++) {
        SimHalo *o = &s->run.halos.halo[h];
        if (sim_halo_profile(o, o->mass, o->scale, o->taper, o->cut) != 0) {
            snprintf(err, errlen, "%s: [halos] halo%d: no halo of mass, scale, taper and cut with 0 < taper < cut", path,
                     h);
            return -1;
        }
    }
    /* dt and softening with a unit, as the command line and the presets take them, on the save's scale. */
    for (int k = 0; k < 2; k++) {
        const ParamId id = k ? PARAM_SOFTENING : PARAM_DT;
        double v;
        char off[sizeof ps.what];
        if (!ps.with_unit[k][0]) continue;
        if (params_parse_in(id, &s->run.units, params_get(id)->key, ps.with_unit[k], &v, off, sizeof off) != 0) {
            snprintf(err, errlen, "%s: %.200s", path, off);
            return -1;
        }
        if (k) s->run.params.softening = (float)v;
        else s->run.params.dt = (float)v;
    }
    if (!(s->run.params.dt > 0)) {
        snprintf(err, errlen, "%s: no dt", path);
        return -1;
    }
    if (ps.has_bytes != ps.has_checksum) {
        snprintf(err, errlen, "%s: gives %s without %s", path, ps.has_bytes ? "tipsy_bytes" : "tipsy_checksum",
                 ps.has_bytes ? "tipsy_checksum" : "tipsy_bytes");
        return -1;
    }
    s->has_pair = ps.has_bytes;
    s->tipsy_bytes = ps.tipsy_bytes;
    s->tipsy_checksum = ps.tipsy_checksum;
    return 0;
}

static bool records(const Settings *s, long long size, uint64_t sum)
{
    return s->has_pair && s->tipsy_bytes == size && s->tipsy_checksum == sum;
}

/* A search among the leftovers of an interrupted save for the other half of a pair. */
typedef struct Search {
    const SavedRun *base;
    long long size; /* forwards: the TIPSY file's digest; backwards: the one the ini records */
    uint64_t sum;
    Settings found; /* forwards: the settings of the ini found */
    char name[4200];
} Search;

/* Forwards: an ini left under a temporary name that records the TIPSY file in place. */
static int ini_records_tipsy(void *user, const char *name)
{
    Search *s = user;
    char ignored[256];
    if (read_settings(name, s->base, &s->found, ignored, sizeof ignored) != 0 || !records(&s->found, s->size, s->sum))
        return 0;
    snprintf(s->name, sizeof s->name, "%s", name);
    return 1;
}

/* Backwards: an old TIPSY file kept by the save, the one the ini in place records. */
static int tipsy_is_recorded(void *user, const char *name)
{
    Search *s = user;
    char ignored[256];
    long long size;
    uint64_t sum;
    if (file_digest(name, &size, &sum, ignored, sizeof ignored) != 0 || size != s->size || sum != s->sum) return 0;
    snprintf(s->name, sizeof s->name, "%s", name);
    return 1;
}

/* The line saying what a load recovered (a long path may cut it short). */
static void recovered(SavedRun *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void recovered(SavedRun *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->recovered, sizeof run->recovered, fmt, ap);
    va_end(ap);
}

/* A TIPSY file whose settings are missing: -1 with err. */
static int refuse_alone(const char *path, const char *ini, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: no settings beside it (%s is missing): --load continues a run saved with its "
             "settings; --tipsy opens a TIPSY file alone", path, ini);
    return -1;
}

/* Loads path with its settings, or the pair an interrupted save left (see the top). On success
 * b holds the bodies and run the settings. */
static int load_pair(const char *path, const char *ini, const char *ini_target, const char *target, Bodies *b,
                     SavedRun *run, char *err, size_t errlen)
{
    double time = 0;
    if (tipsy_read(path, b, &time, err, errlen) != 0) return -1;
    const SavedRun base = {.params = {.damping = 1, .alpha = -1}, .time = time};
    Settings in_place;
    const int got = read_settings(ini, &base, &in_place, err, errlen);
    if (got < 0) return -1;
    long long size;
    uint64_t sum;
    if (file_digest(path, &size, &sum, err, errlen) != 0) return -1;
    if (got == 0 && records(&in_place, size, sum)) {
        *run = in_place.run;
        acc_load(target, b, size, sum);
        return 0;
    }
    Search search = {.base = &base, .size = size, .sum = sum};
    if (atomic_file_leftovers(ini_target, ".tmp-", ini_records_tipsy, &search)) {
        *run = search.found.run;
        acc_load(target, b, size, sum);
        recovered(run, "recovered from an interrupted save: %s (step %lld) with its settings from %s; saving to %s "
                       "again tidies up",
                  path, run->step, search.name, path);
        return 0;
    }
    if (got == 1) return refuse_alone(path, ini, err, errlen);
    if (!in_place.has_pair) {
        *run = in_place.run; /* an older save: nothing to check, and no accelerations */
        return 0;
    }
    search = (Search){.size = in_place.tipsy_bytes, .sum = in_place.tipsy_checksum};
    if (atomic_file_leftovers(target, ".old-", tipsy_is_recorded, &search)) {
        bodies_free(b);
        if (tipsy_read(search.name, b, &time, err, errlen) != 0) return -1;
        *run = in_place.run;
        acc_load(target, b, in_place.tipsy_bytes, in_place.tipsy_checksum);
        recovered(run, "recovered from an interrupted save: the previous save, %s (step %lld) with %s; saving to %s "
                       "again tidies up",
                  search.name, run->step, ini, path);
        return 0;
    }
    snprintf(err, errlen,
             "%s: does not match %s (saved separately or interrupted): %lld bytes, checksum 0x%016llx, the ini "
             "says %lld bytes, checksum 0x%016llx",
             path, ini, size, (unsigned long long)sum, in_place.tipsy_bytes,
             (unsigned long long)in_place.tipsy_checksum);
    return -1;
}

/* The names of a save at path: the file its links end at, its ini, and the file that ini's links
 * end at. 0, or -1 with err (out of memory). */
static int pair_names(const char *path, char **target, char **ini, char **ini_target, char *err, size_t errlen)
{
    *target = atomic_file_target(path);
    *ini = *target ? sidecar_of(*target) : NULL;
    *ini_target = *ini ? atomic_file_target(*ini) : NULL;
    if (*ini_target) return 0;
    snprintf(err, errlen, "%s: cannot read: out of memory", path);
    free(*target);
    free(*ini);
    return -1;
}

/* The field halos' centres are the last bodies, dark; they carry the loss the ini holds. */
static int place_halos(const char *path, Bodies *b, const SavedRun *run, char *err, size_t errlen)
{
    const int count = run->halos.count;
    if (count == 0) return 0;
    if (b->n <= count) {
        snprintf(err, errlen, "%s: its ini gives %d halo fields, the file holds %d bodies", path, count, b->n);
        return -1;
    }
    for (int h = 0; h < count; h++) {
        const int i = b->n - count + h;
        if (BODY_TAG_COMPONENT(b->tag[i]) != BODY_HALO) {
            snprintf(err, errlen, "%s: body %d should be halo %d's centre, a dark body, and is not", path, i, h);
            return -1;
        }
        b->vel[4 * (size_t)i + 3] = run->halo_loss[h];
    }
    return 0;
}

int state_load(const char *path, Bodies *b, SavedRun *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    memset(b, 0, sizeof *b);
    char *target, *ini, *ini_target;
    if (pair_names(path, &target, &ini, &ini_target, err, errlen) != 0) return -1;
    int rc = load_pair(path, ini, ini_target, target, b, run, err, errlen);
    if (rc == 0) rc = place_halos(path, b, run, err, errlen);
    if (rc != 0) bodies_free(b);
    free(target);
    free(ini);
    free(ini_target);
    return rc;
}

int state_read_settings(const char *path, SavedRun *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    char *target, *ini, *ini_target;
    if (pair_names(path, &target, &ini, &ini_target, err, errlen) != 0) return -1;
    Settings s;
    const SavedRun base = {.params = {.damping = 1, .alpha = -1}};
    const int rc = read_settings(ini, &base, &s, err, errlen);
    if (rc == 0) *run = s.run;
    free(target);
    free(ini);
    free(ini_target);
    return rc;
}

int state_check_bodies_alone(const char *path, char *err, size_t errlen)
{
    SavedRun saved;
    char why[512];
    if (state_read_settings(path, &saved, why, sizeof why) != 0 || saved.halos.count == 0) return 0;
    snprintf(err, errlen,
             "%s: its last %d bodies are the centres of halo fields (its .ini's [halos]), which read as bodies alone "
             "would pull as points: --load %s continues that run",
             path, saved.halos.count, path);
    return -1;
}

static int any(void *user, const char *name)
{
    (void)user;
    (void)name;
    return 1;
}

int state_check(const char *path, char *err, size_t errlen)
{
    char *target, *ini, *ini_target, why[160];
    if (pair_names(path, &target, &ini, &ini_target, err, errlen) != 0) return -1;
    int rc = -1;
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, why);
        goto done;
    }
    fclose(f);
    if ((f = input_file_open(ini, why, sizeof why))) {
        fclose(f);
        rc = 0;
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "cannot read %s: %s", ini, why);
    } else if (atomic_file_leftovers(ini_target, ".tmp-", any, NULL)) {
        rc = 0; /* state_load finds out whether what an interrupted save left makes a pair */
    } else {
        refuse_alone(path, ini, err, errlen);
    }
done:
    free(target);
    free(ini);
    free(ini_target);
    return rc;
}
