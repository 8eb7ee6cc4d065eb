/* Initial conditions: equilibrium where a scene promises it, reproducibility, recentring, tags,
 * the collision orbit, and refusals that name the parameter at fault. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_skip.h"

#include "scene/scene.h"
#include "scene/tipsy.h"

#define PI 3.14159265358979323846

static const SceneKind built_in[] = {SCENE_COLLISION, SCENE_DISK, SCENE_PLUMMER, SCENE_SHELL, SCENE_RANDOM};
#define N_BUILT_IN (sizeof built_in / sizeof built_in[0])

/* The folder holding galaxy_20K.bin: $STARBURST_DATA, else ../shared/data beside the checkout. */
static const char *galaxy_path(void)
{
    static char path[4096];
    const char *dir = getenv("STARBURST_DATA");
    snprintf(path, sizeof path, "%s/galaxy_20K.bin", dir && dir[0] ? dir : STARBURST_SOURCE_DIR "/../shared/data");
    return access(path, R_OK) == 0 ? path : NULL;
}

static void build(const SceneDesc *d, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    int rc = scene_build(d, b, info, err, sizeof err);
    if (rc != 0) fail_msg("scene %s: %s", scene_name(d->kind), err);
    assert_true(b->n > 0);
}

/* Kinetic and potential energy in double; W unsoftened. */
static void energies(const Bodies *b, double *k, double *w)
{
    *k = *w = 0;
    for (int i = 0; i < b->n; i++) {
        const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
        *k += 0.5 * x[3] * ((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        for (int j = i + 1; j < b->n; j++) {
            const float *y = b->pos + 4 * (size_t)j;
            double dx = (double)y[0] - x[0], dy = (double)y[1] - x[1], dz = (double)y[2] - x[2];
            *w -= (double)x[3] * y[3] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
}

static void plummer_is_in_virial_equilibrium(void **state)
{
    (void)state;
    SceneDesc d = {.kind = SCENE_PLUMMER, .n = 4096, .seed = 11};
    Bodies b;
    SceneInfo info;
    build(&d, &b, &info);
    double k, w;
    energies(&b, &k, &w);
    double q = 2 * k / fabs(w), mass = bodies_total_mass(&b);
    print_message("plummer N=4096: 2K/|W| = %.4f, E = %.4f (Henon units: -0.25), M = %.6f\n", q, k + w, mass);
    assert_true(fabs(q - 1.0) < 0.1);
    assert_true(fabs(mass - 1.0) < 1e-4);
    assert_true(fabs(k + w + 0.25) < 0.025); /* E = -1/4 defines Henon units */
    assert_true(info.dt > 0 && info.softening > 0 && info.extent > 0 && info.period > 0);
    bodies_free(&b);
}

static int same_bodies(const Bodies *a, const Bodies *b)
{
    return a->n == b->n && memcmp(a->pos, b->pos, 16 * (size_t)a->n) == 0 &&
           memcmp(a->vel, b->vel, 16 * (size_t)a->n) == 0 && memcmp(a->tag, b->tag, (size_t)a->n) == 0;
}

static void check_reproducible(SceneDesc d)
{
    Bodies a, b, c;
    SceneInfo ia, ib, ic;
    build(&d, &a, &ia);
    build(&d, &b, &ib);
    assert_true(same_bodies(&a, &b));
    assert_memory_equal(&ia, &ib, sizeof ia);
    d.seed += 1;
    build(&d, &c, &ic);
    assert_int_equal(a.n, c.n);
    assert_true(memcmp(a.pos, c.pos, 16 * (size_t)a.n) != 0);
    bodies_free(&a);
    bodies_free(&b);
    bodies_free(&c);
}

static void same_seed_same_bodies(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_BUILT_IN; i++) check_reproducible((SceneDesc){.kind = built_in[i], .n = 2000, .seed = 5});
    /* seed 0 means 1 */
    Bodies a, b;
    SceneInfo info;
    build(&(SceneDesc){.kind = SCENE_DISK, .n = 500}, &a, &info);
    build(&(SceneDesc){.kind = SCENE_DISK, .n = 500, .seed = 1}, &b, &info);
    assert_true(same_bodies(&a, &b));
    bodies_free(&a);
    bodies_free(&b);
    const char *path = galaxy_path();
    if (!path) test_skip();
    check_reproducible((SceneDesc){.kind = SCENE_TIPSY, .n = 5000, .seed = 3, .tipsy_path = path});
    check_reproducible((SceneDesc){.kind = SCENE_TIPSY_COLLIDE, .n = 6000, .seed = 3, .tipsy_path = path});
}

static void check_centred(const SceneDesc *d)
{
    Bodies b;
    SceneInfo info;
    build(d, &b, &info);
    double x[3], v[3], v2 = 0, m = bodies_total_mass(&b);
    bodies_centre_of_mass(&b, x, v);
    for (int i = 0; i < b.n; i++)
        for (int k = 0; k < 3; k++) v2 += b.pos[4 * (size_t)i + 3] * (double)b.vel[4 * (size_t)i + k] * b.vel[4 * (size_t)i + k];
    double xcm = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), vcm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    double vrms = sqrt(v2 / m);
    print_message("%-13s n=%6d: |x_cm| / extent = %.1e, |v_cm| / v_rms = %.1e; dt %g, softening %g, extent %g, "
                  "period %g\n",
                  scene_name(d->kind), b.n, xcm / info.extent, vrms > 0 ? vcm / vrms : vcm, info.dt, info.softening,
                  info.extent, info.period);
    assert_true(xcm < 1e-5 * info.extent);
    assert_true(vcm <= 1e-5 * vrms);
    bodies_free(&b);
}

static void every_scene_is_centred_at_rest(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_BUILT_IN; i++) check_centred(&(SceneDesc){.kind = built_in[i]});
    check_centred(&(SceneDesc){.kind = SCENE_COLLISION, .n = 5000, .mass_ratio = 0.3f, .inclination_a = 30});
    const char *path = galaxy_path();
    if (!path) test_skip();
    check_centred(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path});
    check_centred(&(SceneDesc){.kind = SCENE_TIPSY_COLLIDE, .n = 8000, .mass_ratio = 0.5f, .tipsy_path = path});
}

typedef struct GalaxyStats {
    int count[3];
    double mass[3], x[3], v[3], total;
} GalaxyStats;

static void galaxy_stats(const Bodies *b, int galaxy, GalaxyStats *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < b->n; i++) {
        if (BODY_TAG_GALAXY(b->tag[i]) != galaxy) continue;
        int c = BODY_TAG_COMPONENT(b->tag[i]);
        assert_true(c <= BODY_HALO);
        const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
        s->count[c]++;
        s->mass[c] += x[3];
        s->total += x[3];
        for (int k = 0; k < 3; k++) {
            s->x[k] += x[3] * x[k];
            s->v[k] += x[3] * v[k];
        }
    }
    for (int k = 0; k < 3 && s->total > 0; k++) {
        s->x[k] /= s->total;
        s->v[k] /= s->total;
    }
}

/* Angle in degrees between +z and the spin of a galaxy's disk about its centre. */
static double disk_tilt(const Bodies *b, int galaxy, const GalaxyStats *s)
{
    double l[3] = {0, 0, 0};
    for (int i = 0; i < b->n; i++) {
        if (b->tag[i] != BODY_TAG(galaxy, BODY_DISK)) continue;
        const float *p = b->pos + 4 * (size_t)i, *q = b->vel + 4 * (size_t)i;
        double x[3], v[3];
        for (int k = 0; k < 3; k++) {
            x[k] = p[k] - s->x[k];
            v[k] = q[k] - s->v[k];
        }
        l[0] += p[3] * (x[1] * v[2] - x[2] * v[1]);
        l[1] += p[3] * (x[2] * v[0] - x[0] * v[2]);
        l[2] += p[3] * (x[0] * v[1] - x[1] * v[0]);
    }
    return acos(l[2] / sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2])) * 180.0 / PI;
}

/* d built, its two galaxies measured, and B's place and speed relative to A's. */
static void build_pair(const SceneDesc *d, Bodies *b, SceneInfo *info, GalaxyStats g[2], double x[3], double v[3])
{
    build(d, b, info);
    galaxy_stats(b, 0, &g[0]);
    galaxy_stats(b, 1, &g[1]);
    for (int k = 0; k < 3; k++) {
        x[k] = g[1].x[k] - g[0].x[k];
        v[k] = g[1].v[k] - g[0].v[k];
    }
}

static void collision_has_two_whole_galaxies(void **state)
{
    (void)state;
    const float ratios[] = {1.0f, 0.25f};
    for (int r = 0; r < 2; r++) {
        SceneDesc d = {.kind = SCENE_COLLISION, .mass_ratio = ratios[r]};
        Bodies b;
        SceneInfo info;
        build(&d, &b, &info);
        assert_int_equal(b.n, 16384);
        GalaxyStats g[2];
        galaxy_stats(&b, 0, &g[0]);
        galaxy_stats(&b, 1, &g[1]);
        int total = 0;
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 3; c++) {
                assert_true(g[k].count[c] > 0);
                total += g[k].count[c];
            }
        assert_int_equal(total, b.n);
        double ratio = g[1].total / g[0].total;
        /* halo bodies are halo_mass_factor (default 1) times heavier than disk bodies */
        double heavier = (g[0].mass[2] / g[0].count[2]) / (g[0].mass[0] / g[0].count[0]);
        print_message("collision mass_ratio %.2f: galaxies of %d and %d bodies, mass ratio %.4f, halo/disk body mass "
                      "%.3f\n",
                      ratios[r], g[0].count[0] + g[0].count[1] + g[0].count[2],
                      g[1].count[0] + g[1].count[1] + g[1].count[2], ratio, heavier);
        assert_true(fabs(ratio - ratios[r]) < 1e-3 * ratios[r]);
        assert_true(fabs(heavier - 1.0) < 0.03);
        bodies_free(&b);
    }
}

static void collision_starts_on_the_requested_orbit(void **state)
{
    (void)state;
    SceneDesc d = {.kind = SCENE_COLLISION, .n = 8192, .separation = 16};
    Bodies b;
    SceneInfo info;
    GalaxyStats g[2];
    double x[3], v[3];
    build_pair(&d, &b, &info, g, x, v);
    double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double h2 = pow(x[1] * v[2] - x[2] * v[1], 2) + pow(x[2] * v[0] - x[0] * v[2], 2) + pow(x[0] * v[1] - x[1] * v[0], 2);
    double m = g[0].total + g[1].total, energy = 0.5 * v2 - m / r, peri = h2 / (2 * m);
    double tilt_a = disk_tilt(&b, 0, &g[0]), tilt_b = disk_tilt(&b, 1, &g[1]);
    print_message("collision: separation %.4f (asked 16), Kepler pericentre %.4f (asked 3), orbital energy / (m/r) "
                  "%.1e, disk tilts %.2f and %.2f degrees (asked 0 and 60)\n",
                  r, peri, energy / (m / r), tilt_a, tilt_b);
    assert_true(fabs(r - 16.0) < 0.01 * 16.0);
    assert_true(x[0] * v[0] + x[1] * v[1] + x[2] * v[2] < 0); /* approaching */
    assert_true(fabs(energy) < 0.01 * m / r);                  /* parabolic */
    assert_true(fabs(peri - 3.0) < 0.03 * 3.0);
    assert_true(tilt_a < 3.0);
    assert_true(fabs(tilt_b - 60.0) < 3.0);
    assert_true(info.extent > 8.0f);
    bodies_free(&b);
}

/* The disk's rms thickness and its radial dispersion in R 2-3. */
static void disk_shape(const Bodies *b, double *rms_z, double *sigma_r)
{
    double z2 = 0, vr2 = 0;
    int n = 0, ring = 0;
    for (int i = 0; i < b->n; i++) {
        if (b->tag[i] != BODY_TAG(0, BODY_DISK)) continue;
        const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
        z2 += (double)x[2] * x[2];
        n++;
        double rc = sqrt((double)x[0] * x[0] + (double)x[1] * x[1]);
        if (rc < 2.0 || rc > 3.0) continue;
        double vr = (x[0] * v[0] + x[1] * v[1]) / rc;
        vr2 += vr * vr;
        ring++;
    }
    *rms_z = sqrt(z2 / n);
    *sigma_r = sqrt(vr2 / ring);
}

/* From SCENE_THIN_DISK_STARS stars the isolated disk is thin and cool (scale height 0.1, Q 1.0: a
 * sech^2 disk's rms z is pi z0 / sqrt 12), one star fewer the default (0.2, 1.3); a height given
 * is kept, and with live halos the stars are the disk's and bulge's bodies alone. */
static void the_disk_is_as_thin_as_its_stars_hold(void **state)
{
    (void)state;
    const double rms_thin = PI * SCENE_THIN_DISK_HEIGHT / sqrt(12.0), rms_default = PI * 0.2 / sqrt(12.0);
    struct {
        SceneDesc d;
        double rms;
    } cases[] = {
        {{.kind = SCENE_DISK, .n = SCENE_THIN_DISK_STARS, .halo = SCENE_HALO_FIELD}, rms_thin},
        {{.kind = SCENE_DISK, .n = SCENE_THIN_DISK_STARS - 1, .halo = SCENE_HALO_FIELD}, rms_default},
        {{.kind = SCENE_DISK, .n = SCENE_THIN_DISK_STARS, .halo = SCENE_HALO_FIELD, .galaxy[0].disk_height = 0.2f},
         rms_default},
        {{.kind = SCENE_DISK, .n = SCENE_THIN_DISK_STARS, .halo = SCENE_HALO_LIVE}, rms_default},
    };
    double sigma[4];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Bodies b;
        SceneInfo info;
        build(&cases[k].d, &b, &info);
        double rms_z;
        disk_shape(&b, &rms_z, &sigma[k]);
        print_message("disk, %d bodies, %s halo, height %g: rms z %.4f (expected %.4f), sigma_R in R 2-3 %.4f\n",
                      cases[k].d.n, cases[k].d.halo == SCENE_HALO_FIELD ? "field" : "live",
                      cases[k].d.galaxy[0].disk_height, rms_z, cases[k].rms, sigma[k]);
        assert_true(fabs(rms_z / cases[k].rms - 1.0) < 0.05);
        bodies_free(&b);
    }
    /* Q 1.0 against 1.3 at one surface density and nearly one kappa: sigma_R in the ratio 1 / 1.3. */
    double ratio = sigma[0] / sigma[1];
    print_message("sigma_R thin / default %.3f (Q %.2f / 1.3 = %.3f)\n", ratio, SCENE_THIN_DISK_Q,
                  SCENE_THIN_DISK_Q / 1.3);
    assert_true(fabs(ratio / (SCENE_THIN_DISK_Q / 1.3) - 1.0) < 0.06);
}

static void expect_refused(const SceneDesc *d, const char *word);

/* The panel's encounter: a desc's zeros read as the collision's defaults, and what is set is what
 * the scene builds (an inclination of 0 meant as 0, not the default 60). */
static void the_encounter_reads_and_sets_the_desc(void **state)
{
    (void)state;
    const SceneEncounter none = scene_encounter(&(SceneDesc){.kind = SCENE_COLLISION});
    assert_true(none.mass_ratio == 1.0f && none.pericentre == 3.0f && none.eccentricity == 1.0f);
    assert_true(none.inclination_a == 0.0f && none.inclination_b == 60.0f);
    SceneDesc d = {.kind = SCENE_COLLISION, .n = 8192, .separation = 40};
    const SceneEncounter e = {.mass_ratio = 0.5f, .pericentre = 5.0f, .eccentricity = 1.5f, .inclination_a = -30.0f,
                              .inclination_b = 0.0f};
    scene_set_encounter(&d, &e);
    const SceneEncounter back = scene_encounter(&d);
    assert_memory_equal(&back, &e, sizeof e);
    assert_true(d.separation == 40.0f); /* the rest kept */
    Bodies b;
    SceneInfo info;
    build(&d, &b, &info);
    GalaxyStats g[2];
    galaxy_stats(&b, 0, &g[0]);
    galaxy_stats(&b, 1, &g[1]);
    const double ratio = g[1].total / g[0].total, tilt_a = disk_tilt(&b, 0, &g[0]), tilt_b = disk_tilt(&b, 1, &g[1]);
    print_message("encounter set: mass ratio %.4f (asked 0.5), disk tilts %.2f and %.2f degrees (asked 30 either way "
                  "and 0)\n", ratio, tilt_a, tilt_b);
    assert_true(fabs(ratio - 0.5) < 1e-3 * 0.5);
    assert_true(fabs(tilt_a - 30.0) < 3.0);
    assert_true(tilt_b < 3.0);
    bodies_free(&b);
}

/* A bound orbit whose apocentre is nearer than the halos' edges starts there: at rest radially,
 * the farthest the pair goes; a separation given beyond it is still refused. */
static void a_bound_orbit_starts_at_its_apocentre(void **state)
{
    (void)state;
    SceneDesc d = {.kind = SCENE_COLLISION, .n = 8192, .pericentre = 3, .eccentricity = 0.5f};
    Bodies b;
    SceneInfo info;
    GalaxyStats g[2];
    double x[3], v[3];
    build_pair(&d, &b, &info, g, x, v);
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const double radial = (x[0] * v[0] + x[1] * v[1] + x[2] * v[2]) / (r * speed);
    print_message("bound orbit q 3, e 0.5: starts %.4f apart (apocentre 9), radial / whole speed %.1e, first pericentre "
                  "at t %.2f\n", r, radial, info.pericentre_time);
    assert_true(fabs(r - 9.0) < 0.01 * 9.0);
    assert_true(fabs(radial) < 0.02);
    assert_true(info.pericentre_time > 0);
    bodies_free(&b);
    d.separation = 12;
    expect_refused(&d, "apocentre");
}

static void disk_turns_at_the_circular_speed(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(&(SceneDesc){.kind = SCENE_DISK}, &b, &info);
    double inside = 0, vphi = 0, prograde = 0;
    int ring = 0;
    for (int i = 0; i < b.n; i++) {
        const float *x = b.pos + 4 * (size_t)i, *v = b.vel + 4 * (size_t)i;
        double r = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
        double rc = sqrt((double)x[0] * x[0] + (double)x[1] * x[1]);
        if (r < 2.0) inside += x[3];
        if (b.tag[i] == BODY_TAG(0, BODY_DISK) && fabs(rc - 2.0) < 0.2) {
            double vp = (x[0] * v[1] - x[1] * v[0]) / rc;
            vphi += vp;
            prograde += vp > 0;
            ring++;
        }
    }
    vphi /= ring;
    double vc = sqrt(inside / 2.0);
    print_message("disk: %d disk bodies at R = 2 +- 0.2, mean v_phi %.4f, sqrt(M(<2)/2) %.4f (ratio %.3f), %.1f%% "
                  "turn counter-clockwise\n",
                  ring, vphi, vc, vphi / vc, 100.0 * prograde / ring);
    assert_true(ring > 250); /* the disk holds a sixth of the bodies, all of equal mass */
    assert_true(vphi > 0);
    assert_true(fabs(vphi / vc - 1.0) < 0.15);
    assert_true(prograde > 0.9 * ring);
    bodies_free(&b);
}

static void expect_refused(const SceneDesc *d, const char *word)
{
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    int rc = scene_build(d, &b, &info, err, sizeof err);
    if (rc != -1) fail_msg("scene %s accepted a bad desc (expected a complaint about %s)", scene_name(d->kind), word);
    if (!strstr(err, word)) fail_msg("message \"%s\" does not mention %s", err, word);
    assert_int_equal(b.n, 0);
    assert_null(b.pos);
}

static void bad_descs_are_refused(void **state)
{
    (void)state;
    expect_refused(&(SceneDesc){.kind = SCENE_PLUMMER, .n = -1}, "n = -1");
    expect_refused(&(SceneDesc){.kind = SCENE_RANDOM, .n = (1 << 26) + 1}, "n = 67108865");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .n = 4}, "n = 4");
    expect_refused(&(SceneDesc){.kind = (SceneKind)42}, "kind");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .mass_ratio = NAN}, "mass_ratio");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .mass_ratio = -1}, "mass_ratio");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .mass_ratio = 1000}, "mass_ratio");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .separation = 16, .pericentre = 20}, "pericentre");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .pericentre = -3}, "pericentre");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .separation = INFINITY}, "separation");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .inclination_a = INFINITY}, "inclination_a");
    expect_refused(&(SceneDesc){.kind = SCENE_COLLISION, .inclination_b = 1e4f}, "inclination_b");
    expect_refused(&(SceneDesc){.kind = SCENE_DISK, .halo_mass_factor = -2}, "halo_mass_factor");
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY}, "tipsy_path");
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = "/nonexistent/galaxy.bin"}, "/nonexistent/galaxy.bin");
    const char *path = galaxy_path();
    if (!path) test_skip();
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY, .n = 20001, .tipsy_path = path}, "n = 20001");
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY_COLLIDE, .n = 50000, .tipsy_path = path}, "n = 50000");
}

static void names_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < SCENE_COUNT; k++) assert_int_equal(scene_from_name(scene_name((SceneKind)k)), k);
    assert_int_equal(scene_from_name("galaxy"), -1);
    assert_int_equal(scene_from_name(NULL), -1);
}

static void tipsy_scenes_follow_the_file(void **state)
{
    (void)state;
    const char *path = galaxy_path();
    if (!path) test_skip();
    Bodies b;
    SceneInfo info;
    build(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path}, &b, &info);
    double mass = bodies_total_mass(&b);
    print_message("tipsy: %d bodies, mass %.4f; dt %g, softening %g, extent %g, period %g\n", b.n, mass, info.dt,
                  info.softening, info.extent, info.period);
    assert_int_equal(b.n, 20000);
    assert_true(info.extent > 10 && info.extent < 43); /* stars reach r = 43 */
    assert_true(info.softening > 0 && info.softening < 1);
    assert_true(info.dt > 0 && info.dt < 0.01 * info.period);
    bodies_free(&b);

    SceneDesc d = {.kind = SCENE_TIPSY_COLLIDE, .tipsy_path = path};
    build(&d, &b, &info);
    assert_int_equal(b.n, 40000);
    GalaxyStats g[2];
    for (int k = 0; k < 2; k++) {
        galaxy_stats(&b, k, &g[k]);
        assert_int_equal(g[k].count[BODY_DISK], 15000);
        assert_int_equal(g[k].count[BODY_BULGE], 2500);
        assert_int_equal(g[k].count[BODY_HALO], 2500);
        assert_true(fabs(g[k].total - mass) < 1e-3 * mass);
    }
    double tilt_b = disk_tilt(&b, 1, &g[1]);
    assert_true(fabs(tilt_b - 60.0) < 3.0);
    bodies_free(&b);

    d.n = 6001; /* subsampled: the mass of each component is kept */
    build(&d, &b, &info);
    assert_int_equal(b.n, 6001);
    for (int k = 0; k < 2; k++) {
        galaxy_stats(&b, k, &g[k]);
        assert_true(fabs(g[k].total - mass) < 1e-3 * mass);
        assert_true(g[k].count[BODY_BULGE] > 0 && g[k].count[BODY_HALO] > 0);
    }
    bodies_free(&b);
}

/* A file without softenings (as Starburst writes them): the TIPSY scene scales the run from the
 * galaxy itself, and for our own disk that should land near what the disk scene suggests. */
/* A file of massless bodies is refused for what it is, as a galaxy and as a collision. */
static void massless_tipsy_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-scene-XXXXXX", path[64], err[256] = "";
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/massless.bin", dir);
    Bodies disk;
    SceneInfo own;
    build(&(SceneDesc){.kind = SCENE_DISK, .n = 500}, &disk, &own);
    for (int i = 0; i < disk.n; i++) disk.pos[4 * (size_t)i + 3] = 0.0f;
    if (tipsy_write(path, &disk, 0.0, err, sizeof err) != 0) fail_msg("%s", err);
    bodies_free(&disk);
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path}, "particle 0 (dark 0) has a mass of 0");
    expect_refused(&(SceneDesc){.kind = SCENE_TIPSY_COLLIDE, .tipsy_path = path}, "particle 0 (dark 0) has a mass of 0");
    unlink(path);
    rmdir(dir);
}

static void tipsy_scene_scales_a_file_by_its_galaxy(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-scene-XXXXXX", path[64], err[256] = "";
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/disk.bin", dir);
    Bodies disk, b;
    SceneInfo own, info;
    build(&(SceneDesc){.kind = SCENE_DISK, .n = 8000}, &disk, &own);
    if (tipsy_write(path, &disk, 0.0, err, sizeof err) != 0) fail_msg("%s", err);
    build(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path}, &b, &info);
    unlink(path);
    rmdir(dir);
    print_message("disk as TIPSY: dt %g, softening %.4f, extent %.3f, period %.3f (disk scene: %g, %g, %g, %g)\n",
                  info.dt, info.softening, info.extent, info.period, own.dt, own.softening, own.extent, own.period);
    assert_int_equal(b.n, disk.n);
    assert_memory_equal(b.tag, disk.tag, (size_t)disk.n);
    assert_true(info.softening > 0.5 * own.softening && info.softening < 2 * own.softening);
    assert_true(info.dt >= 0.5f * own.dt && info.dt <= 2 * own.dt);
    assert_true(info.period > 0.5f * own.period && info.period < 2 * own.period);
    bodies_free(&disk);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plummer_is_in_virial_equilibrium),
        cmocka_unit_test(same_seed_same_bodies),
        cmocka_unit_test(every_scene_is_centred_at_rest),
        cmocka_unit_test(collision_has_two_whole_galaxies),
        cmocka_unit_test(collision_starts_on_the_requested_orbit),
        cmocka_unit_test(the_encounter_reads_and_sets_the_desc),
        cmocka_unit_test(a_bound_orbit_starts_at_its_apocentre),
        cmocka_unit_test(disk_turns_at_the_circular_speed),
        cmocka_unit_test(the_disk_is_as_thin_as_its_stars_hold),
        cmocka_unit_test(bad_descs_are_refused),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(tipsy_scenes_follow_the_file),
        cmocka_unit_test(tipsy_scene_scales_a_file_by_its_galaxy),
        cmocka_unit_test(massless_tipsy_is_refused),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
