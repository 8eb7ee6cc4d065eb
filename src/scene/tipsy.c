/* TIPSY binary snapshots. Starburst writes the little-endian variant NVIDIA's samples read, and
 * reads it and the standard one, big-endian (XDR), which tipsy and pkdgrav write: every field of
 * the format is a 4-byte word but the header's time (8 bytes), so a big-endian file becomes a
 * little-endian one by reversing those words in place. The header's ndim, 3, says which order a
 * file is in. Every field is decoded byte by byte, so the code reads the same on hosts of either
 * byte order, and every size is worked out in 64 bits before anything is allocated.
 *
 * What Starburst writes, other readers ignore: phi holds each body's index; a star's metals
 * holds its tag byte (component, and galaxy << 2); dark particles of galaxy 1 come after those
 * of galaxy 0, and their count sits in the header's 4 padding bytes. */
#include "scene/tipsy.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scene/body_check.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/le_bytes.h"

#define TIPSY_HEADER 32
#define TIPSY_DARK 36
#define TIPSY_STAR 44
#define TIPSY_MAX_BODIES (1 << 26)
/* NVIDIA's galaxy came from GalactICS, which numbers disk stars from 0, bulge stars from 1e8
 * and halo particles from 2e8. */
#define GALACTICS_BAND 100000000

/* Reverses the bytes of each 4-byte word in p[0 .. len). */
static void swap_words(unsigned char *p, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i += 4) {
        unsigned char b0 = p[i], b1 = p[i + 1];
        p[i] = p[i + 3];
        p[i + 1] = p[i + 2];
        p[i + 2] = b1;
        p[i + 3] = b0;
    }
}

/* True where ndim is 3 only when read big-endian; hb is then turned into a little-endian header
 * (the time's 8 bytes reversed, then each word). */
static bool header_is_big_endian(unsigned char *hb)
{
    if (le_get_i32(hb + 12) == 3) return false;
    unsigned char ndim[4] = {hb[15], hb[14], hb[13], hb[12]};
    if (le_get_i32(ndim) != 3) return false;
    for (int k = 0; k < 4; k++) {
        unsigned char t = hb[k];
        hb[k] = hb[7 - k];
        hb[7 - k] = t;
    }
    swap_words(hb + 8, TIPSY_HEADER - 8);
    return true;
}

typedef struct TipsyHeader {
    double time;
    int32_t nbodies, ndim, nsph, ndark, nstar;
    uint32_t pad;
} TipsyHeader;

/* Checks the header against itself and against the file's size. */
static int check_header(const char *path, const TipsyHeader *h, long long size, char *err, size_t errlen)
{
    if (h->nbodies < 0 || h->ndark < 0 || h->nstar < 0 || h->nsph < 0) {
        snprintf(err, errlen, "tipsy: %s: negative count in the header (nbodies %d, ndark %d, nstar %d, nsph %d)",
                 path, h->nbodies, h->ndark, h->nstar, h->nsph);
        return -1;
    }
    if (h->ndim != 3) {
        snprintf(err, errlen, "tipsy: %s: header says ndim = %d; only 3 is supported", path, h->ndim);
        return -1;
    }
    if (h->nsph != 0) {
        snprintf(err, errlen, "tipsy: %s: %d gas (SPH) particles; files with gas are not supported", path,
                 h->nsph);
        return -1;
    }
    long long counted = (long long)h->ndark + h->nstar;
    if (counted != h->nbodies) {
        snprintf(err, errlen, "tipsy: %s: header says %d bodies but ndark + nstar = %lld", path, h->nbodies,
                 counted);
        return -1;
    }
    if (h->nbodies == 0) {
        snprintf(err, errlen, "tipsy: %s: header says 0 bodies", path);
        return -1;
    }
    if (body_check_time(path, h->time, err, errlen) != 0) return -1;
    long long need = TIPSY_HEADER + (long long)h->ndark * TIPSY_DARK + (long long)h->nstar * TIPSY_STAR;
    if (size < need) {
        long long body = size - TIPSY_HEADER, dark = (long long)h->ndark * TIPSY_DARK;
        long long holds = body < dark ? body / TIPSY_DARK : h->ndark + (body - dark) / TIPSY_STAR;
        snprintf(err, errlen, "tipsy: %s: header says %d bodies, file holds %lld (%lld of %lld bytes)", path,
                 h->nbodies, holds, size, need);
        return -1;
    }
    if (size > need) {
        snprintf(err, errlen, "tipsy: %s: %lld unexpected bytes after the last of %d %s", path, size - need,
                 h->nbodies, h->nbodies == 1 ? "body" : "bodies");
        return -1;
    }
    if (body_check_count(path, h->nbodies, err, errlen) != 0) return -1;
    return 0;
}

static int check_particle(const char *path, int index, const char *kind, int kind_index, const float *f,
                          char *err, size_t errlen)
{
    const char *what = body_check_fault(f + 1, f + 4, f[0]);
    if (!what) return 0;
    snprintf(err, errlen, "tipsy: %s: particle %d (%s %d) has %s", path, index, kind, kind_index, what);
    return -1;
}

/* True when every phi is a distinct value in [0, n): the file says where each body goes. */
static int phi_is_permutation(const int32_t *phi, int n)
{
    uint8_t *seen = calloc((size_t)n, 1);
    if (!seen) return 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        if (phi[i] < 0 || phi[i] >= n || seen[phi[i]]) ok = 0;
        else seen[phi[i]] = 1;
    }
    free(seen);
    return ok;
}

/* Star components, in file order, by the first rule the file fits: Starburst's own tag bytes in
 * metals; GalactICS' numbering in phi; two star masses, the heavier being the bulge; else disk.
 * rec holds the stars' mass, position and velocity, 7 floats each. */
static void star_tags(int ns, const float *rec, const float *metals, const int32_t *sphi, int ours, uint8_t *tags)
{
    if (ours) {
        for (int i = 0; i < ns; i++) tags[i] = (uint8_t)metals[i];
        return;
    }
    int bands = ns > 0, bulge_band = 0;
    for (int i = 0; i < ns && bands; i++) {
        int band = sphi[i] / GALACTICS_BAND;
        if (sphi[i] < 0 || band > 1) bands = 0;
        bulge_band |= band == 1;
    }
    if (bands && bulge_band) {
        for (int i = 0; i < ns; i++)
            tags[i] = BODY_TAG(0, sphi[i] >= GALACTICS_BAND ? BODY_BULGE : BODY_DISK);
        return;
    }
    float m0 = ns > 0 ? rec[0] : 0, m1 = m0;
    int distinct = ns > 0;
    for (int i = 0; i < ns && distinct <= 2; i++) {
        float m = rec[7 * (size_t)i];
        if (m != m0 && (distinct == 1 || m != m1)) {
            m1 = m;
            distinct++;
        }
    }
    float heavy = m0 > m1 ? m0 : m1;
    for (int i = 0; i < ns; i++)
        tags[i] = BODY_TAG(0, distinct == 2 && rec[7 * (size_t)i] == heavy ? BODY_BULGE : BODY_DISK);
}

/* Whether every star's metals is a tag byte of a non-halo body: the mark of Starburst's files. */
static int metals_are_tags(const float *metals, int ns)
{
    for (int i = 0; i < ns; i++) {
        float m = metals[i];
        if (!(m >= 0 && m <= 7) || m != floorf(m) || BODY_TAG_COMPONENT((int)m) == BODY_HALO) return 0;
    }
    return 1;
}

int tipsy_read(const char *path, Bodies *out, double *time, char *err, size_t errlen)
{
    TipsyMeta meta;
    int rc = tipsy_read_meta(path, out, &meta, err, errlen);
    if (rc == 0 && time) *time = meta.time;
    return rc;
}

int tipsy_read_header(const char *path, double *time, long long *n, char *err, size_t errlen)
{
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "tipsy: %s: %s", path, why);
        return -1;
    }
    struct stat st;
    unsigned char hb[TIPSY_HEADER];
    const bool read = fstat(fileno(f), &st) == 0 && st.st_size >= TIPSY_HEADER &&
                      fread(hb, 1, TIPSY_HEADER, f) == TIPSY_HEADER;
    fclose(f);
    if (!read || (le_get_i32(hb + 12) != 3 && !header_is_big_endian(hb))) {
        snprintf(err, errlen, "tipsy: %s: not a TIPSY file (no ndim of 3 in its header, in either byte order)", path);
        return -1;
    }
    TipsyHeader h = {le_get_f64(hb), le_get_i32(hb + 8), le_get_i32(hb + 12), le_get_i32(hb + 16),
                     le_get_i32(hb + 20), le_get_i32(hb + 24), le_get_u32(hb + 28)};
    *time = h.time;
    *n = h.nbodies;
    return check_header(path, &h, (long long)st.st_size, err, errlen) != 0 ? -2 : 0;
}

int tipsy_read_meta(const char *path, Bodies *out, TipsyMeta *meta, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "tipsy: %s: %s", path, why);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "tipsy: %s: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    long long size = (long long)st.st_size;
    unsigned char hb[TIPSY_HEADER];
    if (size < TIPSY_HEADER) {
        snprintf(err, errlen, "tipsy: %s: %lld bytes, shorter than the %d-byte header", path, size, TIPSY_HEADER);
        fclose(f);
        return -1;
    }
    if (fread(hb, 1, TIPSY_HEADER, f) != TIPSY_HEADER) {
        snprintf(err, errlen, "tipsy: %s: cannot read the header", path);
        fclose(f);
        return -1;
    }
    const bool big_endian = header_is_big_endian(hb);
    TipsyHeader h = {le_get_f64(hb), le_get_i32(hb + 8), le_get_i32(hb + 12), le_get_i32(hb + 16),
                     le_get_i32(hb + 20), le_get_i32(hb + 24), le_get_u32(hb + 28)};
    if (check_header(path, &h, size, err, errlen) != 0) {
        fclose(f);
        return -1;
    }

    int n = h.nbodies, rc = -1;
    size_t bytes = (size_t)(size - TIPSY_HEADER);
    unsigned char *data = malloc(bytes);
    float *rec = malloc(sizeof(float) * 7 * (size_t)n);
    float *metals = malloc(sizeof(float) * ((size_t)h.nstar + 1));
    int32_t *phi = malloc(sizeof(int32_t) * (size_t)n);
    uint8_t *tags = malloc((size_t)n);
    if (!data || !rec || !metals || !phi || !tags) {
        snprintf(err, errlen, "tipsy: %s: out of memory for %d bodies", path, n);
        goto done;
    }
    if (fread(data, 1, bytes, f) != bytes) {
        snprintf(err, errlen, "tipsy: %s: read failed after the header", path);
        goto done;
    }
    if (big_endian) swap_words(data, bytes);
    float eps_dark = 0, eps_star = 0;
    for (int i = 0; i < n; i++) {
        int dark = i < h.ndark;
        const unsigned char *p = dark ? data + (size_t)i * TIPSY_DARK
                                      : data + (size_t)h.ndark * TIPSY_DARK + (size_t)(i - h.ndark) * TIPSY_STAR;
        float *r = rec + 7 * (size_t)i;
        for (int k = 0; k < 7; k++) r[k] = le_get_f32(p + 4 * k);
        if (check_particle(path, i, dark ? "dark" : "star", dark ? i : i - h.ndark, r, err, errlen) != 0)
            goto done;
        phi[i] = le_get_i32(p + (dark ? 32 : 40));
        if (!dark) metals[i - h.ndark] = le_get_f32(p + 28);
        float eps = le_get_f32(p + (dark ? 28 : 36)), *least = dark ? &eps_dark : &eps_star;
        if (isfinite(eps) && eps > 0 && (*least == 0 || eps < *least)) *least = eps;
    }

    int ordered = phi_is_permutation(phi, n);
    int ours = ordered && metals_are_tags(metals, h.nstar) && h.pad <= (uint32_t)h.ndark;
    for (int i = 0; i < h.ndark; i++)
        tags[i] = BODY_TAG(ours && (uint32_t)(h.ndark - i) <= h.pad, BODY_HALO);
    star_tags(h.nstar, rec + 7 * (size_t)h.ndark, metals, phi + h.ndark, ours, tags + h.ndark);

    if (bodies_alloc(out, n) != 0) {
        snprintf(err, errlen, "tipsy: %s: out of memory for %d bodies", path, n);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        size_t j = ordered ? (size_t)phi[i] : (size_t)i;
        const float *r = rec + 7 * (size_t)i;
        float *x = out->pos + 4 * j, *v = out->vel + 4 * j;
        x[0] = r[1];
        x[1] = r[2];
        x[2] = r[3];
        x[3] = r[0];
        v[0] = r[4];
        v[1] = r[5];
        v[2] = r[6];
        v[3] = 0.0f;
        out->tag[j] = tags[i];
    }
    if (meta) {
        meta->time = h.time;
        meta->softening = eps_star > 0 ? eps_star : eps_dark;
    }
    rc = 0;
done:
    free(data);
    free(rec);
    free(metals);
    free(phi);
    free(tags);
    fclose(f);
    return rc;
}

static void encode_body(const Bodies *b, int i, int dark, unsigned char *p)
{
    const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
    le_put_f32(p, x[3]);
    for (int k = 0; k < 3; k++) {
        le_put_f32(p + 4 + 4 * k, x[k]);
        le_put_f32(p + 16 + 4 * k, v[k]);
    }
    if (dark) {
        le_put_f32(p + 28, 0.0f); /* eps */
        le_put_i32(p + 32, i);
    } else {
        le_put_f32(p + 28, (float)(b->tag[i] & 7)); /* metals: the tag */
        le_put_f32(p + 32, 0.0f);             /* tform */
        le_put_f32(p + 36, 0.0f);             /* eps */
        le_put_i32(p + 40, i);
    }
}

/* Dark particles first (galaxy 0, then galaxy 1), then stars, each group in body order. */
unsigned char *tipsy_encode(const Bodies *b, double time, size_t *len, char *err, size_t errlen)
{
    if (b->n < 1) {
        snprintf(err, errlen, "no bodies to write");
        return NULL;
    }
    if (b->n > TIPSY_MAX_BODIES) {
        snprintf(err, errlen, "%d bodies, more than the %d Starburst writes", b->n, TIPSY_MAX_BODIES);
        return NULL;
    }
    int ndark = 0, ndark1 = 0;
    for (int i = 0; i < b->n; i++)
        if (BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO) {
            ndark++;
            ndark1 += BODY_TAG_GALAXY(b->tag[i]);
        }
    int nstar = b->n - ndark;
    *len = TIPSY_HEADER + (size_t)ndark * TIPSY_DARK + (size_t)nstar * TIPSY_STAR;
    unsigned char *buf = calloc(*len, 1), *p = buf;
    if (!buf) {
        snprintf(err, errlen, "out of memory for %d bodies", b->n);
        return NULL;
    }
    le_put_f64(p, time);
    le_put_i32(p + 8, b->n);
    le_put_i32(p + 12, 3);
    le_put_i32(p + 16, 0);
    le_put_i32(p + 20, ndark);
    le_put_i32(p + 24, nstar);
    le_put_u32(p + 28, (uint32_t)ndark1);
    p += TIPSY_HEADER;
    for (int galaxy = 0; galaxy < 2; galaxy++)
        for (int i = 0; i < b->n; i++)
            if (BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO && BODY_TAG_GALAXY(b->tag[i]) == galaxy) {
                encode_body(b, i, 1, p);
                p += TIPSY_DARK;
            }
    for (int i = 0; i < b->n; i++)
        if (BODY_TAG_COMPONENT(b->tag[i]) != BODY_HALO) {
            encode_body(b, i, 0, p);
            p += TIPSY_STAR;
        }
    return buf;
}

int tipsy_write(const char *path, const Bodies *b, double time, char *err, size_t errlen)
{
    char why[256];
    size_t len;
    unsigned char *buf = tipsy_encode(b, time, &len, why, sizeof why);
    if (!buf) {
        snprintf(err, errlen, "tipsy: %s: %s", path, why);
        return -1;
    }
    AtomicFile *f = atomic_file_open(path, err, errlen);
    int rc = -1;
    if (f) {
        atomic_file_write(f, buf, len);
        rc = atomic_file_commit(f, err, errlen);
    }
    free(buf);
    return rc;
}
