/* TIPSY files: NVIDIA's galaxy reads as described, Starburst's files round-trip bit for bit,
 * every kind of damaged file is refused with a reason, and a failed write harms nothing. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include "test_skip.h"

#include "scene/scene.h"
#include "scene/tipsy.h"
#include "util/params.h"

#define HEADER 32
#define DARK 36
#define STAR 44

static const char *galaxy_path(void)
{
    static char path[4096];
    const char *dir = getenv("STARBURST_DATA");
    snprintf(path, sizeof path, "%s/galaxy_20K.bin", dir && dir[0] ? dir : STARBURST_SOURCE_DIR "/../shared/data");
    return access(path, R_OK) == 0 ? path : NULL;
}

/* A fresh folder for one test, emptied and removed by its teardown. */
static int make_dir(void **state)
{
    const char *base = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/starburst-tipsy-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        chmod(path, 0700);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int remove_dir(void **state)
{
    remove_tree(*state);
    free(*state);
    return 0;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(*len + 1);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

static void spit(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void put_i32(unsigned char *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(u >> (8 * k));
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(u >> (8 * k));
}

static int same_bodies(const Bodies *a, const Bodies *b)
{
    return a->n == b->n && memcmp(a->pos, b->pos, 16 * (size_t)a->n) == 0 &&
           memcmp(a->vel, b->vel, 16 * (size_t)a->n) == 0 && memcmp(a->tag, b->tag, (size_t)a->n) == 0;
}

static void reads_nvidia_galaxy(void **state)
{
    (void)state;
    const char *path = galaxy_path();
    if (!path) test_skip();
    Bodies b;
    TipsyMeta meta;
    char err[256] = "";
    if (tipsy_read_meta(path, &b, &meta, err, sizeof err) != 0) fail_msg("%s", err);
    int count[4] = {0};
    double x[3], star_r_max = 0, mass = bodies_total_mass(&b);
    float bulge_mass = 0, disk_mass = 0;
    for (int i = 0; i < b.n; i++) {
        int c = BODY_TAG_COMPONENT(b.tag[i]);
        count[c]++;
        assert_int_equal(BODY_TAG_GALAXY(b.tag[i]), 0);
        const float *p = b.pos + 4 * (size_t)i;
        if (c == BODY_BULGE) bulge_mass = p[3];
        if (c == BODY_DISK) disk_mass = p[3];
        if (c != BODY_HALO) {
            double r = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
            if (r > star_r_max) star_r_max = r;
        }
    }
    bodies_centre_of_mass(&b, x, NULL);
    double xcm = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    print_message("galaxy_20K: %d bodies (halo %d, bulge %d, disk %d), mass %.4f, |x_cm| %.2e, stars within %.2f, "
                  "softening %g\n",
                  b.n, count[BODY_HALO], count[BODY_BULGE], count[BODY_DISK], mass, xcm, star_r_max, meta.softening);
    assert_int_equal(b.n, 20000);
    assert_true(fabs(mass - 130.9) < 0.1);
    assert_true(xcm < 0.01 * star_r_max);
    assert_int_equal(count[BODY_HALO], 2500);
    assert_int_equal(count[BODY_BULGE], 2500);
    assert_int_equal(count[BODY_DISK], 15000);
    for (int i = 0; i < 2500; i++) assert_int_equal(b.tag[i], BODY_TAG(0, BODY_HALO)); /* file order kept */
    assert_true(bulge_mass > 2 * disk_mass);                                              /* 0.00252 vs 0.00119 */
    assert_true(meta.time == 0.0);
    assert_true(meta.softening > 0 && meta.softening < 1);
    bodies_free(&b);
}

static void check_round_trip(const char *dir, const Bodies *b, double time)
{
    char path[4200], err[256] = "";
    snprintf(path, sizeof path, "%s/snapshot.bin", dir);
    if (tipsy_write(path, b, time, err, sizeof err) != 0) fail_msg("%s", err);
    int ndark = 0;
    for (int i = 0; i < b->n; i++) ndark += BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO;
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((long long)st.st_size, HEADER + (long long)ndark * DARK + (long long)(b->n - ndark) * STAR);
    Bodies back;
    double t = -1;
    if (tipsy_read(path, &back, &t, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(same_bodies(b, &back));
    assert_true(t == time);
    bodies_free(&back);
}

/* Two galaxies, three components, bodies of the halo not first: order, galaxy and component. */
static void collision_bodies(Bodies *b)
{
    SceneInfo info;
    char err[256] = "";
    SceneDesc d = {.kind = SCENE_COLLISION, .n = 3000, .mass_ratio = 0.5f, .seed = 9};
    if (scene_build(&d, b, &info, err, sizeof err) != 0) fail_msg("%s", err);
}

/* The galaxy model's file; skips the calling test where it is not found. */
static void galaxy_bodies(Bodies *b)
{
    char err[256] = "";
    const char *path = galaxy_path();
    if (!path) test_skip();
    if (tipsy_read(path, b, NULL, err, sizeof err) != 0) fail_msg("%s", err);
}

static void write_then_read_gives_the_same_bodies(void **state)
{
    const char *dir = *state;
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    collision_bodies(&b);
    check_round_trip(dir, &b, 12.5);
    bodies_free(&b);
    if (scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 777}, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
    check_round_trip(dir, &b, 0.0);
    bodies_free(&b);
    galaxy_bodies(&b);
    check_round_trip(dir, &b, 0.0);
    bodies_free(&b);
}

/* The standard TIPSY byte order, big-endian (XDR), of a little-endian file: the header's time is
 * one 8-byte double, every other field of the header and the particles a 4-byte word. */
static void to_big_endian(unsigned char *p, size_t len)
{
    for (int k = 0; k < 4; k++) {
        unsigned char t = p[k];
        p[k] = p[7 - k];
        p[7 - k] = t;
    }
    for (size_t i = 8; i + 4 <= len; i += 4) {
        unsigned char w[4] = {p[i], p[i + 1], p[i + 2], p[i + 3]};
        for (int k = 0; k < 4; k++) p[i + k] = w[3 - k];
    }
}

/* The same bodies written in both byte orders read back equal, with the same time. */
static void check_both_byte_orders(const char *dir, const Bodies *b, double time)
{
    char little[4200], big[4200], err[256] = "";
    snprintf(little, sizeof little, "%s/little.bin", dir);
    snprintf(big, sizeof big, "%s/big.bin", dir);
    size_t len;
    unsigned char *buf = tipsy_encode(b, time, &len, err, sizeof err);
    if (!buf) fail_msg("%s", err);
    spit(little, buf, len);
    to_big_endian(buf, len);
    const unsigned char ndim[4] = {0, 0, 0, 3};
    assert_memory_equal(buf + 12, ndim, 4);
    spit(big, buf, len);
    free(buf);
    Bodies from_little, from_big;
    double t_little = -1, t_big = -2;
    if (tipsy_read(little, &from_little, &t_little, err, sizeof err) != 0) fail_msg("%s", err);
    if (tipsy_read(big, &from_big, &t_big, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(same_bodies(&from_little, &from_big));
    assert_true(same_bodies(b, &from_big));
    assert_true(t_little == time && t_big == time);
    bodies_free(&from_little);
    bodies_free(&from_big);
}

static void big_endian_files_read_as_little_endian_ones(void **state)
{
    const char *dir = *state;
    Bodies b;
    collision_bodies(&b);
    check_both_byte_orders(dir, &b, 12.5);
    bodies_free(&b);
    galaxy_bodies(&b);
    check_both_byte_orders(dir, &b, 0.0);
    bodies_free(&b);
}

static void expect_refused(const char *path, const char *word)
{
    Bodies b;
    char err[256] = "";
    int rc = tipsy_read(path, &b, NULL, err, sizeof err);
    if (rc != -1) fail_msg("%s was accepted (expected a complaint about \"%s\")", path, word);
    if (!strstr(err, word)) fail_msg("message \"%s\" does not mention \"%s\"", err, word);
    if (!strstr(err, path)) fail_msg("message \"%s\" does not name the file", err);
    assert_int_equal(b.n, 0);
    assert_null(b.pos);
}

/* A small valid file to damage: a few dark particles and stars. */
static unsigned char *sample_file(const char *dir, size_t *len)
{
    Bodies b;
    SceneInfo info;
    char path[4200], err[256] = "";
    if (scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = 40}, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/good.bin", dir);
    if (tipsy_write(path, &b, 0.0, err, sizeof err) != 0) fail_msg("%s", err);
    bodies_free(&b);
    return slurp(path, len);
}

static void truncated_files_are_refused(void **state)
{
    const char *dir = *state;
    size_t len;
    unsigned char *good = sample_file(dir, &len);
    int ndark = (int)good[20] | good[21] << 8, nbodies = (int)good[8] | good[9] << 8;
    char path[4200], word[128];
    snprintf(path, sizeof path, "%s/cut.bin", dir);
    const size_t cuts[] = {0, 1, 20, HEADER - 1, HEADER, HEADER + 5, HEADER + DARK * 2 + 3, len - STAR, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t cut = cuts[i];
        spit(path, good, cut);
        if (cut < HEADER) {
            expect_refused(path, "shorter than the 32-byte header");
            continue;
        }
        long long body = (long long)cut - HEADER, holds = body < (long long)ndark * DARK
                                                               ? body / DARK
                                                               : ndark + (body - (long long)ndark * DARK) / STAR;
        snprintf(word, sizeof word, "header says %d bodies, file holds %lld", nbodies, holds);
        expect_refused(path, word);
    }
    snprintf(path, sizeof path, "%s/missing.bin", dir);
    expect_refused(path, "No such file");
    expect_refused(dir, "not a regular file");
    free(good);
}

static void damaged_headers_are_refused(void **state)
{
    const char *dir = *state;
    size_t len;
    unsigned char *good = sample_file(dir, &len), *bad = malloc(len + 16);
    int ndark = (int)good[20] | good[21] << 8, nstar = (int)good[24] | good[25] << 8;
    char path[4200];
    snprintf(path, sizeof path, "%s/bad.bin", dir);
    struct {
        int offset;
        int32_t value;
        const char *word;
    } cases[] = {
        {8, ndark + nstar + 1, "ndark + nstar"},
        {8, -5, "negative count"},
        {20, -1, "negative count"},
        {16, 3, "not supported"}, /* gas */
        {12, 2, "ndim = 2"},
        {8, 0x7fffffff, "ndark + nstar"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, good, len);
        put_i32(bad + cases[i].offset, cases[i].value);
        spit(path, bad, len);
        expect_refused(path, cases[i].word);
    }
    /* consistent counts promising more than the file holds, up to the absurd */
    const int32_t totals[] = {ndark + nstar + 1, 0x7fffffff};
    for (int i = 0; i < 2; i++) {
        char word[128];
        memcpy(bad, good, len);
        put_i32(bad + 8, totals[i]);
        put_i32(bad + 24, totals[i] - ndark);
        spit(path, bad, len);
        snprintf(word, sizeof word, "header says %d bodies, file holds %d", totals[i], ndark + nstar);
        expect_refused(path, word);
    }
    memcpy(bad, good, len);
    memset(bad + len, 0xab, 7);
    spit(path, bad, len + 7);
    expect_refused(path, "7 unexpected bytes");
    free(bad);
    free(good);
}

static void bad_values_are_refused(void **state)
{
    const char *dir = *state;
    size_t len;
    unsigned char *good = sample_file(dir, &len), *bad = malloc(len);
    int ndark = (int)good[20] | good[21] << 8;
    char path[4200], word[128];
    snprintf(path, sizeof path, "%s/bad.bin", dir);
    struct {
        int star, index, field;
        float value;
        const char *what;
    } cases[] = {
        {0, 1, 0, NAN, "mass that is not finite"},  {1, 3, 0, -1.0f, "negative mass"},
        {1, 0, 2, INFINITY, "position that is not finite"}, {0, 0, 3, -INFINITY, "position that is not finite"},
        {1, 5, 5, NAN, "velocity that is not finite"}, {0, 2, 0, 0.0f, "mass of 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, good, len);
        size_t at = HEADER + (cases[i].star ? (size_t)ndark * DARK + (size_t)cases[i].index * STAR
                                            : (size_t)cases[i].index * DARK);
        put_f32(bad + at + 4 * (size_t)cases[i].field, cases[i].value);
        spit(path, bad, len);
        snprintf(word, sizeof word, "particle %d (%s %d) has a %s", cases[i].star ? ndark + cases[i].index : cases[i].index,
                 cases[i].star ? "star" : "dark", cases[i].index, cases[i].what);
        expect_refused(path, word);
    }
    free(bad);
    free(good);
}

/* A file whose bodies suggest a step or softening beyond the parameter table's range is refused
 * with one line naming it: masses of 1e-40 in model units suggested dt 5e16, which ran, and a save
 * of it did not load. The same bodies at their own masses suggest values in range. */
static void a_scale_beyond_the_table_is_refused(void **state)
{
    const char *dir = *state;
    char path[4200], err[512] = "";
    Bodies b, out;
    collision_bodies(&b);
    SceneInfo info;
    snprintf(path, sizeof path, "%s/light.bin", dir);
    assert_int_equal(tipsy_write(path, &b, 0, err, sizeof err), 0);
    if (scene_build(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path}, &out, &info, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(params_in_range(PARAM_DT, info.dt) && params_in_range(PARAM_SOFTENING, info.softening));
    bodies_free(&out);
    for (int i = 0; i < b.n; i++) b.pos[4 * i + 3] *= 1e-40f;
    assert_int_equal(tipsy_write(path, &b, 0, err, sizeof err), 0);
    const SceneKind kinds[] = {SCENE_TIPSY, SCENE_TIPSY_COLLIDE};
    for (int k = 0; k < 2; k++) {
        err[0] = '\0';
        const int rc = scene_build(&(SceneDesc){.kind = kinds[k], .tipsy_path = path}, &out, &info, err, sizeof err);
        if (rc == 0) {
            bodies_free(&out);
            fail_msg("%s of masses 1e-40 built, at dt %g and softening %g", scene_name(kinds[k]), (double)info.dt,
                     (double)info.softening);
        }
        assert_null(strchr(err, '\n'));
        if (!strstr(err, "light.bin") || !strstr(err, "dt = ") || !strstr(err, "is too large: expected more than 0, at most 10"))
            fail_msg("'%s' does not name the file and its dt beyond the range", err);
    }
    bodies_free(&b);
}

/* Files without Starburst's tags: the bulge is told by GalactICS' ids, else by the heavier of two
 * star masses, else every star is disk. */
static void stars_are_split_without_our_tags(void **state)
{
    const char *dir = *state, *galaxy = galaxy_path();
    if (!galaxy) test_skip();
    char path[4200], err[256] = "";
    snprintf(path, sizeof path, "%s/anonymous.bin", dir);
    size_t len;
    unsigned char *buf = slurp(galaxy, &len);
    int ndark = 2500, nstar = 17500;
    for (int i = 0; i < ndark + nstar; i++) /* ids that say nothing */
        put_i32(buf + HEADER + (i < ndark ? (size_t)i * DARK + 32 : (size_t)ndark * DARK + (size_t)(i - ndark) * STAR + 40), 7);
    spit(path, buf, len);
    Bodies b;
    if (tipsy_read(path, &b, NULL, err, sizeof err) != 0) fail_msg("%s", err);
    int count[4] = {0};
    for (int i = 0; i < b.n; i++) count[BODY_TAG_COMPONENT(b.tag[i])]++;
    assert_int_equal(count[BODY_HALO], 2500);
    assert_int_equal(count[BODY_BULGE], 2500);
    for (int i = 2500; i < 5000; i++) assert_int_equal(b.tag[i], BODY_TAG(0, BODY_BULGE));
    bodies_free(&b);
    free(buf);

    /* a Plummer sphere written by Starburst, its tags wiped: one star mass, so all disk */
    Bodies ball;
    SceneInfo info;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 300}, &ball, &info, err, sizeof err), 0);
    assert_int_equal(tipsy_write(path, &ball, 0.0, err, sizeof err), 0);
    buf = slurp(path, &len);
    for (int i = 0; i < ball.n; i++) put_f32(buf + HEADER + (size_t)i * STAR + 28, 0.5f);
    spit(path, buf, len);
    if (tipsy_read(path, &b, NULL, err, sizeof err) != 0) fail_msg("%s", err);
    for (int i = 0; i < b.n; i++) assert_int_equal(b.tag[i], BODY_TAG(0, BODY_DISK));
    assert_memory_equal(b.pos, ball.pos, 16 * (size_t)ball.n); /* the ids still restore the order */
    bodies_free(&b);
    bodies_free(&ball);
    free(buf);
}

/* A file gets the mode the user's umask gives, as the files of other programs do. */
static void written_file_follows_the_umask(void **state)
{
    const char *dir = *state;
    Bodies b;
    SceneInfo info;
    char path[4200], err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 50}, &b, &info, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/mode.bin", dir);
    struct stat st;
    const mode_t masks[] = {022, 027, 002};
    for (int i = 0; i < 3; i++) {
        mode_t old = umask(masks[i]);
        int rc = tipsy_write(path, &b, 0.0, err, sizeof err);
        umask(old);
        if (rc != 0) fail_msg("%s", err);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0666 & ~masks[i]);
    }
    assert_int_equal(count_entries(dir), 1);
    bodies_free(&b);
}

static void failed_write_leaves_the_old_file(void **state)
{
    const char *dir = *state;
    Bodies b, other;
    SceneInfo info;
    char path[4200], err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_SHELL, .n = 300}, &b, &info, err, sizeof err), 0);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_RANDOM, .n = 200}, &other, &info, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/keep.bin", dir);
    assert_int_equal(tipsy_write(path, &b, 1.0, err, sizeof err), 0);
    size_t len;
    unsigned char *before = slurp(path, &len);

    /* into a folder that does not exist */
    char missing[4300];
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.bin", dir);
    err[0] = 0;
    assert_int_equal(tipsy_write(missing, &other, 0.0, err, sizeof err), -1);
    assert_non_null(strstr(err, missing));

    /* onto a path that is a folder: the folder and what it holds stay */
    char folder[4300], inside[4400];
    snprintf(folder, sizeof folder, "%s/folder", dir);
    snprintf(inside, sizeof inside, "%s/keep.bin", folder);
    assert_int_equal(mkdir(folder, 0700), 0);
    assert_int_equal(tipsy_write(inside, &b, 1.0, err, sizeof err), 0);
    err[0] = 0;
    assert_int_equal(tipsy_write(folder, &other, 0.0, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    struct stat st;
    assert_int_equal(stat(folder, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(count_entries(folder), 1);

    /* into a folder it may not write to (root may write anywhere: then this case proves nothing) */
    if (geteuid() != 0) {
        assert_int_equal(chmod(folder, 0500), 0);
        err[0] = 0;
        assert_int_equal(tipsy_write(inside, &other, 0.0, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
        assert_int_equal(chmod(folder, 0700), 0);
        Bodies kept;
        assert_int_equal(tipsy_read(inside, &kept, NULL, err, sizeof err), 0);
        assert_true(same_bodies(&b, &kept));
        bodies_free(&kept);
    }

    /* nothing to write */
    Bodies none = {0};
    err[0] = 0;
    assert_int_equal(tipsy_write(path, &none, 0.0, err, sizeof err), -1);
    assert_true(strlen(err) > 0);

    size_t len_after;
    unsigned char *after = slurp(path, &len_after);
    assert_int_equal(len, len_after);
    assert_memory_equal(before, after, len);
    assert_int_equal(count_entries(dir), 2); /* keep.bin and folder: no temporary files left */

    /* and a write that succeeds replaces the file */
    assert_int_equal(tipsy_write(path, &other, 2.0, err, sizeof err), 0);
    Bodies back;
    double t;
    assert_int_equal(tipsy_read(path, &back, &t, err, sizeof err), 0);
    assert_true(same_bodies(&other, &back));
    assert_true(t == 2.0);
    assert_int_equal(count_entries(dir), 2);
    bodies_free(&back);
    free(before);
    free(after);
    bodies_free(&b);
    bodies_free(&other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_nvidia_galaxy),
        cmocka_unit_test_setup_teardown(write_then_read_gives_the_same_bodies, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(big_endian_files_read_as_little_endian_ones, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(truncated_files_are_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(damaged_headers_are_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(bad_values_are_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(stars_are_split_without_our_tags, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_scale_beyond_the_table_is_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(written_file_follows_the_umask, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(failed_write_leaves_the_old_file, make_dir, remove_dir),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
