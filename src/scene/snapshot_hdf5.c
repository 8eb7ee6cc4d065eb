/* HDF5 snapshots in the SWIFT / GADGET-4 layout (snapshot.h), read and written with libhdf5.
 *
 * Reading goes a chunk of bodies at a time (a hyperslab of each dataset), converted by HDF5 into
 * doubles and 64-bit IDs whatever the file stores, so that a 10^7-body file reports progress and
 * needs no second copy of any dataset. The writer takes chunks too: `export -n 100000000` streams
 * an encounter into it without holding its bodies. HDF5's own error printing is turned off; every
 * failure comes back as one line. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene/body_check.h"
#include "scene/snapshot.h"
#include "scene/swift_params.h"

#define DEFAULT_CHUNK (1LL << 20)

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static void quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

uint8_t snapshot_type_tag(int type)
{
    switch (type) {
    case 1:
    case 2:
    case 3: return BODY_TAG(0, BODY_HALO);
    case 4: return BODY_TAG(0, BODY_DISK);
    default: return BODY_TAG(0, BODY_OTHER);
    }
}

bool snapshot_hdf5_is(const char *path)
{
    quiet();
    return H5Fis_hdf5(path) > 0;
}

/* Reads up to max numbers of attribute name of object loc as doubles; returns how many the
 * attribute holds (0 where it is missing or not numeric). */
static int attr_doubles(hid_t loc, const char *name, double *out, int max)
{
    if (H5Aexists(loc, name) <= 0) return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t space = H5Aget_space(a), type = H5Aget_type(a);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    H5T_class_t cls = H5Tget_class(type);
    int got = 0;
    if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && n >= 1 && n <= 64) {
        double buf[64];
        if (H5Aread(a, H5T_NATIVE_DOUBLE, buf) >= 0) {
            got = (int)n;
            memcpy(out, buf, sizeof(double) * (size_t)(n < max ? n : max));
        }
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Aclose(a);
    return got;
}

/* As attr_doubles, for counts (NumPart_*): read as 64-bit integers. */
static int attr_counts(hid_t loc, const char *name, long long out[SNAPSHOT_TYPES])
{
    memset(out, 0, sizeof(long long) * SNAPSHOT_TYPES);
    if (H5Aexists(loc, name) <= 0) return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t space = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    long long buf[16];
    int got = 0;
    if (n >= 1 && n <= 16 && H5Aread(a, H5T_NATIVE_LLONG, buf) >= 0) {
        got = (int)n;
        memcpy(out, buf, sizeof(long long) * (size_t)(n < SNAPSHOT_TYPES ? n : SNAPSHOT_TYPES));
    }
    H5Sclose(space);
    H5Aclose(a);
    return got;
}

/* A string attribute (fixed or variable length) into text; "" where it is missing or not a
 * string. */
static void attr_text(hid_t loc, const char *name, char *text, size_t len)
{
    text[0] = '\0';
    if (H5Aexists(loc, name) <= 0) return;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return;
    hid_t type = H5Aget_type(a);
    if (H5Tget_class(type) == H5T_STRING) {
        if (H5Tis_variable_str(type) > 0) {
            char *s = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            if (H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(text, len, "%s", s);
                H5free_memory(s);
            }
            H5Tclose(mt);
        } else {
            size_t size = H5Tget_size(type);
            if (size < len) {
                hid_t mt = H5Tcopy(H5T_C_S1);
                H5Tset_size(mt, size + 1);
                if (H5Aread(a, mt, text) < 0) text[0] = '\0';
                H5Tclose(mt);
            }
        }
    }
    H5Tclose(type);
    H5Aclose(a);
}

/* A string attribute read as a number (SWIFT writes its parameters so), or a number. Returns 0
 * where it is missing or not a number; *found (may be NULL) says whether it was there. */
static double attr_string_number(hid_t loc, const char *name, bool *found)
{
    if (found) *found = false;
    if (H5Aexists(loc, name) <= 0) return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t type = H5Aget_type(a);
    const bool string = H5Tget_class(type) == H5T_STRING;
    H5Tclose(type);
    H5Aclose(a);
    double v = 0;
    if (string) {
        char text[256], *end;
        attr_text(loc, name, text, sizeof text);
        v = strtod(text, &end);
        if (end == text) return 0;
    } else if (attr_doubles(loc, name, &v, 1) == 0) {
        return 0;
    }
    if (found) *found = true;
    return v;
}

/* Whether the file's parameters set G to 1 (PhysicalConstants:G, as SWIFT writes it). */
static bool g_is_one(hid_t f)
{
    if (H5Lexists(f, "Parameters", H5P_DEFAULT) <= 0) return false;
    hid_t p = H5Gopen2(f, "Parameters", H5P_DEFAULT);
    if (p < 0) return false;
    bool one = attr_string_number(p, "PhysicalConstants:G", NULL) == 1;
    H5Gclose(p);
    return one;
}

/* The step and softening of the run that wrote the file (swift_params.h), where its Parameters
 * say, and whether its box is not periodic. */
static void read_parameters(hid_t p, SnapshotInfo *info)
{
    bool begin, end;
    SwiftParams sp = {
        .dt_max = attr_string_number(p, "TimeIntegration:dt_max", NULL),
        .time_begin = attr_string_number(p, "TimeIntegration:time_begin", &begin),
        .time_end = attr_string_number(p, "TimeIntegration:time_end", &end),
        .max_physical_softening = attr_string_number(p, "Gravity:max_physical_DM_softening", NULL),
        .comoving_softening = attr_string_number(p, "Gravity:comoving_DM_softening", NULL),
    };
    sp.has_span = begin && end;
    info->softening = swift_params_softening(&sp);
    info->dt = swift_params_step(&sp);
    info->time_begin = sp.has_span ? sp.time_begin : NAN;
    if (info->box > 0 && H5Aexists(p, "InitialConditions:periodic") > 0 &&
        attr_string_number(p, "InitialConditions:periodic", NULL) == 0)
        info->shift = 0.5 * info->box;
}

/* SWIFT's snapshots write velocities a step ahead of their positions (v(t) + a dt; half a step,
 * v + a dt/2, in the one at time_begin): measured against Starburst's continuation of each
 * snapshot to the next (README, the SWIFT hand-off). Other files are in step. */
static void read_lead(const char *code, SnapshotInfo *info)
{
    if (strcmp(code, "SWIFT") != 0) return;
    const bool first =
        isfinite(info->time_begin) && info->dt > 0 && fabs(info->time - info->time_begin) < 0.25 * info->dt;
    info->lead_steps = first ? 0.5 : 1.0;
}

/* Reads the three unit attributes names[] of group: 0 with v[] where each is there (any missing:
 * 1, the group names no units); -1 with err where one is there but no unit, not finite and above 0
 * (U_L = -1 was taken for "no units", and the file read in model units). */
static int unit_attrs(hid_t f, const char *group, const char *const names[3], double v[3], const char *path,
                      char *err, size_t errlen)
{
    if (H5Lexists(f, group, H5P_DEFAULT) <= 0) return 1;
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (g < 0) return 1;
    int missing = 0, rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++) {
        v[k] = 0;
        if (attr_doubles(g, names[k], &v[k], 1) == 0) {
            missing++;
        } else if (!(isfinite(v[k]) && v[k] > 0)) {
            snprintf(err, errlen, "%s: %s says %s = %g: a unit is a positive number of cgs units", base_name(path),
                     group, names[k], v[k]);
            rc = -1;
        }
    }
    H5Gclose(g);
    return rc != 0 ? -1 : missing ? 1 : 0;
}

/* The file's units: SWIFT's Units group, else GADGET's attributes in Header or Parameters. A run
 * in model units, without a physical scale, is written (`starburst export`, and SWIFT after it)
 * as units of 1 cm, 1 g and 1 s with G = 1: no units. 0, or -1 with err where a unit given is none. */
static int read_units(hid_t f, const char *path, SnapshotUnits *u, char *err, size_t errlen)
{
    static const char *const swift[3] = {"Unit length in cgs (U_L)", "Unit mass in cgs (U_M)",
                                         "Unit time in cgs (U_t)"};
    static const char *const gadget[3] = {"UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s"};
    *u = (SnapshotUnits){0, 0, 0};
    double v[3];
    int rc = unit_attrs(f, "Units", swift, v, path, err, errlen);
    if (rc < 0) return -1;
    if (rc == 0) {
        if (!(v[0] == 1 && v[1] == 1 && v[2] == 1 && g_is_one(f))) *u = (SnapshotUnits){v[0], v[1], v[2]};
        return 0;
    }
    const char *groups[] = {"Header", "Parameters"};
    for (int k = 0; k < 2; k++) {
        rc = unit_attrs(f, groups[k], gadget, v, path, err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) {
            *u = (SnapshotUnits){v[0], v[1], v[0] / v[2]};
            return 0;
        }
    }
    return 0;
}

static int read_info(hid_t f, const char *path, SnapshotInfo *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    if (H5Lexists(f, "Header", H5P_DEFAULT) <= 0) {
        snprintf(err, errlen, "%s: no Header group: not a SWIFT or GADGET snapshot", base_name(path));
        return -1;
    }
    hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
    if (h < 0) {
        snprintf(err, errlen, "%s: cannot open its Header group", base_name(path));
        return -1;
    }
    long long high[SNAPSHOT_TYPES];
    int have = attr_counts(h, "NumPart_ThisFile", info->count);
    if (!have) {
        have = attr_counts(h, "NumPart_Total", info->count);
        attr_counts(h, "NumPart_Total_HighWord", high);
        /* A word out of its range is a count that is not one (-1, refused below), never an overflow. */
        for (int t = 0; t < SNAPSHOT_TYPES; t++) {
            if (high[t] == 0) continue;
            bool words = high[t] > 0 && high[t] < (1LL << 30) && info->count[t] >= 0 && info->count[t] < (1LL << 32);
            info->count[t] = words ? info->count[t] + high[t] * (1LL << 32) : -1;
        }
    }
    double box[3] = {0, 0, 0};
    attr_doubles(h, "Time", &info->time, 1);
    attr_doubles(h, "BoxSize", box, 3);
    info->box = box[0];
    char code[64];
    attr_text(h, "Code", code, sizeof code);
    H5Gclose(h);
    if (!have) {
        snprintf(err, errlen, "%s: Header has no NumPart_ThisFile or NumPart_Total", base_name(path));
        return -1;
    }
    for (int t = 0; t < SNAPSHOT_TYPES; t++) {
        if (info->count[t] < 0) {
            snprintf(err, errlen, "%s: Header says %lld bodies of type %d", base_name(path), info->count[t], t);
            return -1;
        }
        /* Each count within the table's range first: their sum cannot overflow. */
        if (info->count[t] > 0 && body_check_count(path, info->count[t], err, errlen) != 0) return -2;
        info->n += info->count[t];
    }
    if (body_check_count(path, info->n, err, errlen) != 0 || body_check_time(path, info->time, err, errlen) != 0)
        return -2;
    if (info->n <= 0 || info->n > INT32_MAX) {
        snprintf(err, errlen, "%s: Header says %lld bodies: expected 1 to %d", base_name(path), info->n, INT32_MAX);
        return -1;
    }
    info->time_begin = NAN;
    if (H5Lexists(f, "Parameters", H5P_DEFAULT) > 0) {
        hid_t p = H5Gopen2(f, "Parameters", H5P_DEFAULT);
        if (p >= 0) {
            read_parameters(p, info);
            H5Gclose(p);
        }
    }
    read_lead(code, info);
    return read_units(f, path, &info->units, err, errlen) != 0 ? -2 : 0;
}

static hid_t open_file(const char *path, char *err, size_t errlen)
{
    quiet();
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        snprintf(err, errlen, "%s: cannot open it", path);
        return -1;
    }
    fclose(probe);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) snprintf(err, errlen, "%s: not a readable HDF5 file (truncated or another format)", base_name(path));
    return f;
}

int snapshot_hdf5_info(const char *path, SnapshotInfo *info, char *err, size_t errlen)
{
    hid_t f = open_file(path, err, errlen);
    if (f < 0) return -1;
    int rc = read_info(f, path, info, err, errlen);
    H5Fclose(f);
    return rc;
}

/* One type's dataset, checked to hold rows of width numbers. */
static hid_t open_dataset(hid_t g, const char *path, int type, const char *name, long long rows, int width,
                          char *err, size_t errlen)
{
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0) {
        snprintf(err, errlen, "%s: PartType%d has no %s", base_name(path), type, name);
        return -1;
    }
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) {
        snprintf(err, errlen, "%s: cannot open PartType%d/%s", base_name(path), type, name);
        return -1;
    }
    hid_t space = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    bool ok = rank >= 1 && rank <= 2 && (long long)dims[0] == rows && (width == 1 ? rank == 1 || dims[1] == 1 : rank == 2 && (int)dims[1] == width);
    if (!ok) {
        snprintf(err, errlen, "%s: PartType%d/%s holds %llu x %llu values: the Header says %lld x %d", base_name(path),
                 type, name, (unsigned long long)dims[0], rank == 2 ? (unsigned long long)dims[1] : 1ULL, rows, width);
        H5Dclose(d);
        return -1;
    }
    return d;
}

/* Reads (or writes) rows [first, first + count) of d, width numbers a row, as memtype in buf. */
static int rows_io(hid_t d, hid_t memtype, long long first, long long count, int width, void *buf, bool write)
{
    hid_t fs = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(fs);
    hsize_t start[2] = {(hsize_t)first, 0}, cnt[2] = {(hsize_t)count, (hsize_t)width};
    if (rank == 1) cnt[1] = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(rank, cnt, NULL);
    herr_t rc = write ? H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, buf) : H5Dread(d, memtype, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return rc < 0 ? -1 : 0;
}

static int read_rows(hid_t d, hid_t memtype, long long first, long long count, int width, void *buf)
{
    return rows_io(d, memtype, first, count, width, buf, false);
}

typedef struct IdIndex {
    uint64_t id;
    int64_t index;
} IdIndex;

/* Sorts a by id, least significant byte first (a stable radix sort: linear in n, where qsort took
 * 14 s for 10^7 bodies in SWIFT's cell order); bytes every id shares are passed over. tmp holds n. */
static void radix_sort(IdIndex *a, IdIndex *tmp, int n)
{
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (int i = 0; i < n; i++) {
        all_or |= a[i].id;
        all_and &= a[i].id;
    }
    for (int shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0) continue;
        size_t count[257] = {0};
        for (int i = 0; i < n; i++) count[((a[i].id >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int i = 0; i < n; i++) tmp[count[(a[i].id >> shift) & 0xff]++] = a[i];
        memcpy(a, tmp, sizeof *a * (size_t)n);
    }
}

/* Puts the bodies in order of id; types may be NULL. Returns -1 when memory runs out. */
static int sort_by_id(Bodies *b, uint64_t *ids, uint8_t *types)
{
    int n = b->n;
    bool sorted = true;
    for (int i = 1; i < n && sorted; i++) sorted = ids[i - 1] <= ids[i];
    if (sorted) return 0;
    IdIndex *order = malloc(sizeof *order * (size_t)n), *tmp = malloc(sizeof *tmp * (size_t)n);
    Bodies s;
    uint8_t *st = types ? malloc((size_t)n) : NULL;
    if (!order || !tmp || bodies_alloc(&s, n) != 0 || (types && !st)) {
        free(order);
        free(tmp);
        free(st);
        return -1;
    }
    for (int i = 0; i < n; i++) order[i] = (IdIndex){ids[i], i};
    radix_sort(order, tmp, n);
    free(tmp);
    for (int i = 0; i < n; i++) {
        int64_t j = order[i].index;
        memcpy(s.pos + 4 * (size_t)i, b->pos + 4 * j, 4 * sizeof(float));
        memcpy(s.vel + 4 * (size_t)i, b->vel + 4 * j, 4 * sizeof(float));
        s.tag[i] = b->tag[j];
        if (st) st[i] = types[j];
        ids[i] = order[i].id;
    }
    bodies_free(b);
    *b = s;
    if (types) {
        memcpy(types, st, (size_t)n);
        free(st);
    }
    free(order);
    return 0;
}

double snapshot_time_factor(const SnapshotUnits *fu, const Units *to)
{
    return fu->time_s * (to->kms * 1e5) / (to->kpc * SNAPSHOT_CM_PER_KPC);
}

/* Factors from the file's units to the model units to: lengths, speeds, masses, times. All 1
 * where the file has no units or to is not physical. */
static void factors(const SnapshotUnits *fu, const Units *to, double f[4])
{
    f[0] = f[1] = f[2] = f[3] = 1.0;
    if (!(fu->length_cm > 0) || !units_physical(to)) return;
    f[0] = fu->length_cm / (to->kpc * SNAPSHOT_CM_PER_KPC);
    f[2] = fu->mass_g / (to->msun * SNAPSHOT_G_PER_MSUN);
    f[3] = snapshot_time_factor(fu, to);
    f[1] = f[0] / f[3];
}

typedef struct TypeRead {
    hid_t coords, vels, masses, ids;
    double table_mass;
} TypeRead;

static void close_type(TypeRead *t)
{
    if (t->coords >= 0) H5Dclose(t->coords);
    if (t->vels >= 0) H5Dclose(t->vels);
    if (t->masses >= 0) H5Dclose(t->masses);
    if (t->ids >= 0) H5Dclose(t->ids);
}

static int open_type(hid_t f, const char *path, int type, long long rows, double table_mass, TypeRead *t,
                     hid_t *group, char *err, size_t errlen)
{
    *t = (TypeRead){-1, -1, -1, -1, table_mass};
    char name[16];
    snprintf(name, sizeof name, "PartType%d", type);
    if (H5Lexists(f, name, H5P_DEFAULT) <= 0) {
        snprintf(err, errlen, "%s: the Header counts %lld bodies of type %d but there is no %s group", base_name(path),
                 rows, type, name);
        return -1;
    }
    *group = H5Gopen2(f, name, H5P_DEFAULT);
    if (*group < 0) {
        snprintf(err, errlen, "%s: cannot open %s", base_name(path), name);
        return -1;
    }
    if ((t->coords = open_dataset(*group, path, type, "Coordinates", rows, 3, err, errlen)) < 0 ||
        (t->vels = open_dataset(*group, path, type, "Velocities", rows, 3, err, errlen)) < 0 ||
        (t->ids = open_dataset(*group, path, type, "ParticleIDs", rows, 1, err, errlen)) < 0)
        return -1;
    if (H5Lexists(*group, "Masses", H5P_DEFAULT) > 0) {
        if ((t->masses = open_dataset(*group, path, type, "Masses", rows, 1, err, errlen)) < 0) return -1;
    } else if (!(table_mass > 0)) {
        snprintf(err, errlen, "%s: PartType%d has no Masses and the Header's MassTable gives it none",
                 base_name(path), type);
        return -1;
    }
    return 0;
}

int snapshot_hdf5_read(const char *path, const SnapshotReadDesc *desc, Bodies *out, SnapshotInfo *info, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    hid_t f = open_file(path, err, errlen);
    if (f < 0) return -1;
    SnapshotInfo in;
    if (read_info(f, path, &in, err, errlen) != 0) {
        H5Fclose(f);
        return -1;
    }
    double table[SNAPSHOT_TYPES] = {0};
    hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
    attr_doubles(h, "MassTable", table, SNAPSHOT_TYPES);
    H5Gclose(h);

    long long chunk = desc && desc->chunk > 0 ? desc->chunk : DEFAULT_CHUNK;
    double fac[4];
    factors(&in.units, desc ? desc->to : NULL, fac);
    int n = (int)in.n;
    uint64_t *ids = malloc(sizeof *ids * (size_t)n);
    double *buf = malloc(sizeof(double) * 3 * (size_t)(chunk < n ? chunk : n));
    if (!ids || !buf || bodies_alloc(out, n) != 0) {
        free(ids);
        free(buf);
        H5Fclose(f);
        snprintf(err, errlen, "%s: out of memory for %d bodies", base_name(path), n);
        return -1;
    }
    uint8_t *types = desc ? desc->types : NULL;
    long long done = 0;
    int rc = 0;
    for (int t = 0; t < SNAPSHOT_TYPES && rc == 0; t++) {
        long long rows = in.count[t];
        if (rows == 0) continue;
        TypeRead tr;
        hid_t g = -1;
        rc = open_type(f, path, t, rows, table[t], &tr, &g, err, errlen);
        for (long long first = 0; rc == 0 && first < rows; first += chunk) {
            long long c = rows - first < chunk ? rows - first : chunk;
            size_t o = (size_t)(done + first);
            if (read_rows(tr.coords, H5T_NATIVE_DOUBLE, first, c, 3, buf) != 0) rc = -1;
            for (long long i = 0; rc == 0 && i < c; i++)
                for (int k = 0; k < 3; k++) out->pos[4 * (o + i) + k] = (float)((buf[3 * i + k] - in.shift) * fac[0]);
            if (rc == 0 && read_rows(tr.vels, H5T_NATIVE_DOUBLE, first, c, 3, buf) != 0) rc = -1;
            for (long long i = 0; rc == 0 && i < c; i++)
                for (int k = 0; k < 3; k++) out->vel[4 * (o + i) + k] = (float)(buf[3 * i + k] * fac[1]);
            if (rc == 0 && tr.masses >= 0 && read_rows(tr.masses, H5T_NATIVE_DOUBLE, first, c, 1, buf) != 0) rc = -1;
            for (long long i = 0; rc == 0 && i < c; i++)
                out->pos[4 * (o + i) + 3] = (float)((tr.masses >= 0 ? buf[i] : tr.table_mass) * fac[2]);
            if (rc == 0 && read_rows(tr.ids, H5T_NATIVE_ULLONG, first, c, 1, ids + o) != 0) rc = -1;
            if (rc != 0) {
                snprintf(err, errlen, "%s: PartType%d: cannot read bodies %lld to %lld (a truncated file?)",
                         base_name(path), t, first, first + c);
                break;
            }
            for (long long i = 0; rc == 0 && i < c; i++) {
                char row[48];
                snprintf(row, sizeof row, "(PartType%d row %lld)", t, first + i);
                const float *x = out->pos + 4 * (o + i);
                rc = body_check(path, (long long)(o + i), row, x, out->vel + 4 * (o + i), x[3], err, errlen);
            }
            if (rc != 0) break;
            for (long long i = 0; i < c; i++) {
                out->tag[o + i] = snapshot_type_tag(t);
                if (types) types[o + i] = (uint8_t)t;
            }
            if (desc && desc->progress) desc->progress(desc->user, done + first + c, in.n);
        }
        done += rows;
        close_type(&tr);
        if (g >= 0) H5Gclose(g);
    }
    H5Fclose(f);
    free(buf);
    if (rc == 0) {
        bool ours = true;
        for (int i = 0; i < n && ours; i++) ours = snapshot_id_is_ours(ids[i]);
        if (ours)
            for (int i = 0; i < n; i++) out->tag[i] = (uint8_t)(ids[i] & 7);
        if (sort_by_id(out, ids, types) != 0) {
            snprintf(err, errlen, "%s: out of memory sorting %d bodies", base_name(path), n);
            rc = -1;
        }
        /* A body is its ID: two of one are a file put together wrong (their order, and which
         * is which, unknown). */
        for (int i = 1; i < n && rc == 0; i++)
            if (ids[i] == ids[i - 1]) {
                snprintf(err, errlen, "%s: ParticleIDs holds %llu twice: each body's ID is its own", base_name(path),
                         (unsigned long long)ids[i]);
                rc = -1;
            }
    }
    free(ids);
    if (rc != 0) {
        bodies_free(out);
        return -1;
    }
    in.time *= fac[3];
    in.box *= fac[0];
    in.shift *= fac[0];
    in.softening *= fac[0];
    in.dt *= fac[3];
    in.time_begin *= fac[3];
    if (info) *info = in;
    return 0;
}

/* Writing. */

struct SnapshotWriter {
    hid_t file, coords, vels, masses, ids;
    long long total, written;
    double shift, box;
    char path[1024], part[1040];
};

static hid_t make_dataset(hid_t g, const char *name, hid_t type, long long rows, int width)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)width};
    hid_t space = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL);
    hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(space);
    return d;
}

static int put_attr(hid_t loc, const char *name, hid_t type, int count, const void *values)
{
    hsize_t dims[1] = {(hsize_t)count};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, type, values) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return rc;
}

/* A number as a scalar attribute, not an array of one. */
static int put_scalar(hid_t loc, const char *name, double value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return rc;
}

/* A string attribute, as SWIFT writes its parameters (a scalar of fixed length). */
static int put_string(hid_t loc, const char *name, const char *value)
{
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, strlen(value) + 1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, st, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, st, value) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    H5Tclose(st);
    return rc;
}

/* A parameter file's values as SWIFT's snapshots hold them: each `key: value` line under a
 * `Section:` line an attribute "Section:key" holding the value's text, comments left out. */
static int put_parameters(hid_t g, const char *text)
{
    char section[128] = "";
    int rc = 0;
    for (const char *line = text; rc == 0 && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        line += len + (end != NULL);
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        char *colon = strchr(buf, ':');
        if (!colon) continue;
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ') value++;
        for (char *e = value + strlen(value); e > value && e[-1] == ' '; *--e = '\0') {}
        if (buf[0] != ' ') {
            snprintf(section, sizeof section, "%.120s", buf);
            continue;
        }
        char *key = buf;
        while (*key == ' ') key++;
        char name[256];
        snprintf(name, sizeof name, "%s:%.120s", section, key);
        rc = put_string(g, name, value);
    }
    return rc;
}

/* Let go of the datasets and the file. A close writes the file's metadata; where that write fails
 * (a full disk) HDF5 1.10 frees the file yet keeps its handle, and closes it again at exit: a crash
 * after everything else went right. So the file is flushed first, which fails without freeing
 * anything, and where it fails the partial file is emptied, giving back its blocks, before the close
 * writes what it must; the file is then only fit for removing. Returns the close's status. */
static herr_t close_writer(SnapshotWriter *w, bool flushed)
{
    bool emptied = false;
    if (w->file >= 0 && (!flushed || H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0)) emptied = truncate(w->part, 0) == 0;
    hid_t *d[] = {&w->coords, &w->vels, &w->masses, &w->ids};
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
        if (*d[k] >= 0) H5Dclose(*d[k]);
        *d[k] = -1;
    }
    herr_t rc = w->file >= 0 ? H5Fclose(w->file) : 0;
    w->file = -1;
    return emptied ? -1 : rc;
}

void snapshot_writer_abort(SnapshotWriter *w)
{
    close_writer(w, false);
    remove(w->part);
    free(w);
}

SnapshotWriter *snapshot_writer_create(const char *path, long long total, const SnapshotWriteDesc *desc, char *err,
                                       size_t errlen)
{
    quiet();
    if (total <= 0 || (uint64_t)total > SNAPSHOT_ID_MAX_INDEX) {
        snprintf(err, errlen, "%s: cannot write %lld bodies", base_name(path), total);
        return NULL;
    }
    SnapshotWriter *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", base_name(path));
        return NULL;
    }
    *w = (SnapshotWriter){.file = -1, .coords = -1, .vels = -1, .masses = -1, .ids = -1, .total = total,
                          .shift = desc->shift, .box = desc->box};
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->part, sizeof w->part, "%s.part", path);
    w->file = H5Fcreate(w->part, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (w->file < 0) {
        snprintf(err, errlen, "%s: cannot create it", w->part);
        snapshot_writer_abort(w);
        return NULL;
    }
    long long counts[SNAPSHOT_TYPES] = {0, total, 0, 0, 0, 0};
    unsigned low[SNAPSHOT_TYPES] = {0}, high[SNAPSHOT_TYPES] = {0};
    low[1] = (unsigned)(total & 0xffffffffLL);
    high[1] = (unsigned)(total >> 32);
    double table[SNAPSHOT_TYPES] = {0};
    int entropy[SNAPSHOT_TYPES] = {0}, files = 1, dim = 3;
    hid_t h = H5Gcreate2(w->file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = h >= 0 ? 0 : -1;
    if (rc == 0)
        /* A cube: BoxSize one number, as GADGET writes it; SWIFT reads it so too, and yt's
         * GADGET reader takes no other. */
        rc = put_scalar(h, "BoxSize", desc->box) | put_attr(h, "Time", H5T_NATIVE_DOUBLE, 1, &desc->time) |
             put_attr(h, "NumPart_ThisFile", H5T_NATIVE_LLONG, SNAPSHOT_TYPES, counts) |
             put_attr(h, "NumPart_Total", H5T_NATIVE_UINT, SNAPSHOT_TYPES, low) |
             put_attr(h, "NumPart_Total_HighWord", H5T_NATIVE_UINT, SNAPSHOT_TYPES, high) |
             put_attr(h, "MassTable", H5T_NATIVE_DOUBLE, SNAPSHOT_TYPES, table) |
             put_attr(h, "Flag_Entropy_ICs", H5T_NATIVE_INT, SNAPSHOT_TYPES, entropy) |
             put_attr(h, "NumFilesPerSnapshot", H5T_NATIVE_INT, 1, &files) |
             put_attr(h, "Dimension", H5T_NATIVE_INT, 1, &dim);
    if (h >= 0) H5Gclose(h);
    if (rc == 0 && units_physical(desc->units)) {
        double l = desc->units->kpc * SNAPSHOT_CM_PER_KPC, m = desc->units->msun * SNAPSHOT_G_PER_MSUN;
        /* U_t is U_L / U_V exactly, as SWIFT derives it from params.yml: any other figure, even
         * one 7e-10 away, has SWIFT convert every quantity of the file. */
        double t = l / (desc->units->kms * 1e5), one = 1.0;
        hid_t u = H5Gcreate2(w->file, "Units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = u >= 0 ? 0 : -1;
        if (rc == 0)
            rc = put_attr(u, "Unit mass in cgs (U_M)", H5T_NATIVE_DOUBLE, 1, &m) |
                 put_attr(u, "Unit length in cgs (U_L)", H5T_NATIVE_DOUBLE, 1, &l) |
                 put_attr(u, "Unit time in cgs (U_t)", H5T_NATIVE_DOUBLE, 1, &t) |
                 put_attr(u, "Unit current in cgs (U_I)", H5T_NATIVE_DOUBLE, 1, &one) |
                 put_attr(u, "Unit temperature in cgs (U_T)", H5T_NATIVE_DOUBLE, 1, &one);
        if (u >= 0) H5Gclose(u);
    }
    if (rc == 0) {
        hid_t p = H5Gcreate2(w->file, "Parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = p < 0 ? -1 : desc->parameters ? put_parameters(p, desc->parameters) : put_string(p, "InitialConditions:periodic", "0");
        if (p >= 0) H5Gclose(p);
    }
    hid_t g = rc == 0 ? H5Gcreate2(w->file, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (g >= 0) {
        w->coords = make_dataset(g, "Coordinates", H5T_IEEE_F64LE, total, 3);
        w->vels = make_dataset(g, "Velocities", H5T_IEEE_F32LE, total, 3);
        w->masses = make_dataset(g, "Masses", H5T_IEEE_F32LE, total, 1);
        w->ids = make_dataset(g, "ParticleIDs", H5T_STD_U64LE, total, 1);
        H5Gclose(g);
    }
    if (rc != 0 || g < 0 || w->coords < 0 || w->vels < 0 || w->masses < 0 || w->ids < 0) {
        snprintf(err, errlen, "%s: cannot write its header and datasets (disk full?)", w->part);
        snapshot_writer_abort(w);
        return NULL;
    }
    return w;
}

static int write_rows(hid_t d, hid_t memtype, long long first, long long count, int width, const void *buf)
{
    return rows_io(d, memtype, first, count, width, (void *)buf, true);
}

int snapshot_writer_append(SnapshotWriter *w, const Bodies *chunk, char *err, size_t errlen)
{
    long long c = chunk->n, first = w->written;
    if (c <= 0) return 0;
    if (first + c > w->total) {
        snprintf(err, errlen, "%s: more bodies than the %lld announced", w->path, w->total);
        return -1;
    }
    double *x = malloc(sizeof(double) * 3 * (size_t)c);
    float *v = malloc(sizeof(float) * 3 * (size_t)c), *m = malloc(sizeof(float) * (size_t)c);
    uint64_t *id = malloc(sizeof(uint64_t) * (size_t)c);
    int rc = x && v && m && id ? 0 : -1;
    for (long long i = 0; rc == 0 && i < c; i++) {
        for (int k = 0; k < 3; k++) {
            x[3 * i + k] = (double)chunk->pos[4 * i + k] + w->shift;
            v[3 * i + k] = chunk->vel[4 * i + k];
        }
        for (int k = 0; k < 3 && w->box > 0; k++)
            if (!(x[3 * i + k] >= 0 && x[3 * i + k] < w->box)) {
                snprintf(err, errlen,
                         "%s: body %lld lies at %g, outside the box [0, %g) (SWIFT would wrap it silently): the box "
                         "is too small",
                         w->path, first + i, x[3 * i + k] - w->shift, w->box);
                rc = -1;
            }
        m[i] = chunk->pos[4 * i + 3];
        id[i] = snapshot_id((uint64_t)(first + i), chunk->tag ? chunk->tag[i] : 0);
    }
    if (rc != 0 && x && v && m && id) {
        free(x);
        free(v);
        free(m);
        free(id);
        return -1;
    }
    if (rc == 0)
        rc = write_rows(w->coords, H5T_NATIVE_DOUBLE, first, c, 3, x) | write_rows(w->vels, H5T_NATIVE_FLOAT, first, c, 3, v) |
             write_rows(w->masses, H5T_NATIVE_FLOAT, first, c, 1, m) | write_rows(w->ids, H5T_NATIVE_UINT64, first, c, 1, id);
    free(x);
    free(v);
    free(m);
    free(id);
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write bodies %lld to %lld (disk full?)", w->part, first, first + c);
        return -1;
    }
    w->written += c;
    return 0;
}

int snapshot_writer_close(SnapshotWriter *w, char *err, size_t errlen)
{
    if (w->written != w->total) {
        snprintf(err, errlen, "%s: %lld bodies written of the %lld announced", w->path, w->written, w->total);
        snapshot_writer_abort(w);
        return -1;
    }
    herr_t rc = close_writer(w, true);
    if (rc < 0 || rename(w->part, w->path) != 0) {
        snprintf(err, errlen, "%s: cannot finish writing it%s", w->path, rc < 0 ? " (disk full?)" : "");
        snapshot_writer_abort(w);
        return -1;
    }
    free(w);
    return 0;
}

int snapshot_write(const char *path, const Bodies *b, const SnapshotWriteDesc *desc, char *err, size_t errlen)
{
    SnapshotWriter *w = snapshot_writer_create(path, b->n, desc, err, errlen);
    if (!w) return -1;
    if (snapshot_writer_append(w, b, err, errlen) != 0) {
        snapshot_writer_abort(w);
        return -1;
    }
    return snapshot_writer_close(w, err, errlen);
}
