/* The encounters from the literature (assets/presets.ini): each builds, and its first passage falls
 * where its source puts it. The presets give their sources' physical numbers (kpc, km/s, Msun),
 * read through the scene's units, so that these checks hold when the galaxy model changes. Two
 * measures of the first passage: Kepler's, the time the scene predicts for two point masses
 * (SceneInfo.pericentre_time), and the N-body one, the first minimum of the distance between the
 * two galaxies' stellar centres of mass in a run of a thousand bodies on the CPU tree. The 10 % of
 * the checks is on the N-body time: against the source where the source gives the time from the
 * start to the passage (the Milky Way and Andromeda: van der Marel et al. 2012; the Mice: Barnes
 * 2004), against the scene's own prediction elsewhere (the Antennae, M51, the Cartwheel); the
 * Antennae's second passage against Karl et al. 2010. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/presets.h"
#include "scene/scene.h"
#include "sim/sim.h"

/* The centres' path needs few bodies and long steps: a tenth of a model time unit (0.84 Myr) is
 * some 80 steps of the default disk's rotation at its half-mass radius. */
#ifdef STARBURST_SANITIZED
#define ENCOUNTER_BODIES 512
#else
#define ENCOUNTER_BODIES 1024
#endif
#define ENCOUNTER_DT 0.1
/* The Antennae's second passage comes as fast as the halos' few heavy bodies brake the pair: its
 * interval depends on the body count (447 Myr at 512 bodies, 521 at 1,024, seed 1), and the preset
 * is tuned at 1,024, which the check keeps in every build. */
#define ANTENNAE_BODIES 1024

static PresetList presets;

static int setup(void **state)
{
    (void)state;
    char err[512];
    if (presets_load(STARBURST_SOURCE_DIR "/assets/presets.ini", &presets, err, sizeof err) != 0)
        fail_msg("%s", err);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    presets_free(&presets);
    return 0;
}

static const Preset *preset(const char *name)
{
    const Preset *p = presets_find(&presets, name);
    if (!p) fail_msg("assets/presets.ini has no preset [%s]", name);
    if (!p->about[0] || !p->cite[0]) fail_msg("[%s] has no about or no source", name);
    return p;
}

static void build(const Preset *p, int n, Bodies *b, SceneInfo *info)
{
    char err[512];
    SceneDesc d = p->scene;
    d.n = n;
    if (scene_build(&d, b, info, err, sizeof err) != 0) fail_msg("[%s]: %s", p->name, err);
    assert_true(units_physical(&info->units));
}

/* Centre of mass of galaxy g's bodies, or of its stars alone (disk and bulge), and its velocity. */
static void galaxy_centre(const Bodies *b, int g, bool stars, double x[3], double v[3])
{
    double m = 0;
    for (int k = 0; k < 3; k++) x[k] = v[k] = 0;
    for (int i = 0; i < b->n; i++) {
        if (BODY_TAG_GALAXY(b->tag[i]) != g || (stars && BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO)) continue;
        double w = b->pos[4 * (size_t)i + 3];
        m += w;
        for (int k = 0; k < 3; k++) {
            x[k] += w * b->pos[4 * (size_t)i + k];
            v[k] += w * b->vel[4 * (size_t)i + k];
        }
    }
    for (int k = 0; k < 3; k++) {
        x[k] /= m;
        v[k] /= m;
    }
}

static void stellar_centre(const Bodies *b, int g, double x[3], double v[3])
{
    galaxy_centre(b, g, true, x, v);
}

static double separation(const Bodies *b)
{
    double xa[3], va[3], xb[3], vb[3];
    stellar_centre(b, 0, xa, va);
    stellar_centre(b, 1, xb, vb);
    return sqrt(pow(xb[0] - xa[0], 2) + pow(xb[1] - xa[1], 2) + pow(xb[2] - xa[2], 2));
}

typedef struct Passage {
    double time, distance; /* of the first minimum of the stars' separation, model units; 0 = none */
    double second;         /* time of the second passage; 0 = none, or not looked for */
} Passage;

/* Runs the scene on the CPU tree with step dt until the first passage (or the second, when
 * `second` is set), or until `until` (model time). A passage is a minimum of the separation of the
 * stellar centres, sampled every `every` steps: a sample below both neighbours; the second must
 * also come below half the greatest separation since the first, so that the wobble of centres
 * whose stars are flung into tails is not taken for one. */
static Passage passages(const Bodies *b0, const SceneInfo *info, double dt, double until, int second)
{
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_TREE}, b0, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    Bodies b;
    assert_int_equal(bodies_alloc(&b, b0->n), 0);
    memcpy(b.tag, b0->tag, (size_t)b0->n);
    SimParams p = {.dt = (float)dt, .softening = info->softening, .damping = 1};
    const int every = 4;
    Passage out = {0};
    double prev2 = separation(b0), prev = prev2, t = 0;
    double farthest = 0;
    while (t < until && (out.time == 0 || (second && out.second == 0))) {
        sim_advance(s, &p, every);
        t += every * dt;
        sim_read(s, &b);
        double r = separation(&b);
        if (out.time > 0 && r > farthest) farthest = r;
        if (prev < prev2 && prev <= r) {
            if (out.time == 0) out = (Passage){t - every * dt, prev, 0};
            else if (prev < 0.5 * farthest) out.second = t - every * dt;
        }
        prev2 = prev;
        prev = r;
    }
    sim_destroy(s);
    bodies_free(&b);
    return out;
}

/* Relative radial and tangential speed of galaxy B about A (all their bodies: the few stars of a
 * thousand-body Local Group move about their halo's centre by tens of km/s), model units. */
static void relative_speeds(const Bodies *b, double *radial, double *tangential)
{
    double xa[3], va[3], xb[3], vb[3], r[3], v[3];
    galaxy_centre(b, 0, false, xa, va);
    galaxy_centre(b, 1, false, xb, vb);
    for (int k = 0; k < 3; k++) {
        r[k] = xb[k] - xa[k];
        v[k] = vb[k] - va[k];
    }
    double rr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    *radial = (r[0] * v[0] + r[1] * v[1] + r[2] * v[2]) / rr;
    *tangential = sqrt(fmax(0, v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - *radial * *radial));
}

/* van der Marel et al. 2012 (ApJ 753, 8 and 9): the Milky Way and M31, 770 kpc apart today, closing
 * at 109.3 km/s and 17 km/s across, pass first in 3.87 Gyr. The preset starts today with those
 * speeds: Kepler's time and the N-body's from the start both count. */
static void milky_way_andromeda_passes_in_3_9_gyr(void **state)
{
    (void)state;
    const Preset *p = preset("Milky Way + Andromeda");
    Bodies b;
    SceneInfo info;
    build(p, ENCOUNTER_BODIES, &b, &info);
    const double source_myr = 3870.0, start_kpc = 770.0;
    double r0 = separation(&b) * info.units.kpc, vr, vt;
    relative_speeds(&b, &vr, &vt);
    vr *= info.units.kms;
    vt *= info.units.kms;
    double kepler = info.pericentre_time * info.units.myr;
    print_message("Milky Way + Andromeda: closing at %.1f km/s, %.1f km/s across (source 109.3, 17)\n", -vr, vt);
    assert_true(fabs(-vr - 109.3) < 0.02 * 109.3);
    assert_true(fabs(vt - 17.0) < 0.1 * 17.0);
    /* Steps of 0.2 (2.2 Myr): 1,800 of them to the passage, not 3,600; the time moves by 1 %. */
    Passage nb = passages(&b, &info, 2 * ENCOUNTER_DT, 1.5 * source_myr / info.units.myr, 0);
    print_message("Milky Way + Andromeda: start %.0f kpc apart (source %.0f); first passage Kepler %.0f Myr, "
                  "N-body %.0f Myr at %.1f kpc (source %.0f Myr)\n",
                  r0, start_kpc, kepler, nb.time * info.units.myr, nb.distance * info.units.kpc, source_myr);
    assert_true(fabs(r0 - start_kpc) < 0.02 * start_kpc);
    assert_true(fabs(kepler - source_myr) < 0.1 * source_myr);
    assert_true(nb.time > 0);
    assert_true(fabs(nb.time * info.units.myr - source_myr) < 0.1 * source_myr);
    bodies_free(&b);
}

/* van der Marel et al. 2019 (ApJ 872, 24): the larger tangential speed of Gaia DR2 and HST
 * combined makes the first passage later and wider than in 2012. Checked on Kepler's orbit. */
static void andromeda_with_gaia_passes_later_and_wider(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo hst, gaia;
    build(preset("Milky Way + Andromeda"), 256, &b, &hst);
    bodies_free(&b);
    build(preset("Milky Way + Andromeda (Gaia)"), 256, &b, &gaia);
    bodies_free(&b);
    const Preset *p12 = preset("Milky Way + Andromeda"), *p19 = preset("Milky Way + Andromeda (Gaia)");
    print_message("Andromeda: first passage %.0f Myr at %.0f kpc (HST, 2012), %.0f Myr at %.0f kpc (Gaia, 2019)\n",
                  hst.pericentre_time * hst.units.myr, p12->scene.pericentre * hst.units.kpc,
                  gaia.pericentre_time * gaia.units.myr, p19->scene.pericentre * gaia.units.kpc);
    assert_true(gaia.pericentre_time > 1.05 * hst.pericentre_time);
    assert_true(p19->scene.pericentre > 5 * p12->scene.pericentre);
}

/* Barnes 2004 (MNRAS 350, 798; his model's time unit is about 160 Myr): pericentre one time unit
 * after the start, the best match to the Mice one unit after that. The preset's separation (66 kpc)
 * is set to give that time. */
static void mice_pass_at_160_myr(void **state)
{
    (void)state;
    const Preset *p = preset("The Mice (NGC 4676)");
    Bodies b;
    SceneInfo info;
    build(p, ENCOUNTER_BODIES, &b, &info);
    const double source_myr = 160.0;
    double kepler = info.pericentre_time * info.units.myr;
    Passage nb = passages(&b, &info, ENCOUNTER_DT, 2 * source_myr / info.units.myr, 0);
    print_message("Mice: first passage Kepler %.0f Myr, N-body %.0f Myr at %.1f kpc (source %.0f Myr)\n", kepler,
                  nb.time * info.units.myr, nb.distance * info.units.kpc, source_myr);
    assert_true(fabs(kepler - source_myr) < 0.1 * source_myr);
    assert_true(nb.time > 0);
    assert_true(fabs(nb.time * info.units.myr - source_myr) < 0.1 * source_myr);
    bodies_free(&b);
}

/* The encounters whose sources give no time from a start: the N-body passage falls where the
 * scene predicts it. */
static Passage passage_as_predicted(const char *name, int n, int second)
{
    const Preset *p = preset(name);
    Bodies b;
    SceneInfo info;
    build(p, n, &b, &info);
    double kepler = info.pericentre_time;
    Passage nb = passages(&b, &info, ENCOUNTER_DT, (second ? 8 : 1.5) * kepler, second);
    print_message("%s: first passage Kepler %.0f Myr, N-body %.0f Myr at %.1f kpc\n", name, kepler * info.units.myr,
                  nb.time * info.units.myr, nb.distance * info.units.kpc);
    assert_true(nb.time > 0);
    assert_true(fabs(nb.time - kepler) < 0.1 * kepler);
    if (second) {
        nb.second = nb.second > 0 ? (nb.second - nb.time) * info.units.myr : 0;
        print_message("%s: second passage %.0f Myr after the first\n", name, nb.second);
    }
    bodies_free(&b);
    return nb;
}

/* Karl et al. 2010 (ApJ 715, L88): the first passage about 600 Myr ago, the second 40 Myr ago. The
 * preset's pericentre (12.5 kpc) is set to give that interval as the mean of four seeds at this
 * body count (521, 532, 612 and 555 Myr for seeds 1 to 4); 12 kpc gives a mean of 534 Myr, 13 kpc
 * 584 Myr. The seed the test runs, 1, gives 521 Myr. */
static void antennae_pass_again_560_myr_later(void **state)
{
    (void)state;
    Passage nb = passage_as_predicted("The Antennae (NGC 4038/9)", ANTENNAE_BODIES, 1);
    assert_true(fabs(nb.second - 560.0) < 0.1 * 560.0);
}

static void m51_companion_passes(void **state)
{
    (void)state;
    passage_as_predicted("M51 + NGC 5195", ENCOUNTER_BODIES, 0);
}

/* Lynds & Toomre 1976: the companion falls along the disk's axis through its centre. */
static void cartwheel_companion_goes_through_the_centre(void **state)
{
    (void)state;
    const Preset *p = preset("Cartwheel ring");
    Bodies b;
    SceneInfo info;
    build(p, 8192, &b, &info);
    double xa[3], va[3], xb[3], vb[3], l[3] = {0, 0, 0}, m = 0;
    stellar_centre(&b, 0, xa, va);
    stellar_centre(&b, 1, xb, vb);
    for (int i = 0; i < b.n; i++) { /* disk A's spin axis */
        if (b.tag[i] != BODY_TAG(0, BODY_DISK)) continue;
        const float *x = b.pos + 4 * (size_t)i, *v = b.vel + 4 * (size_t)i;
        double d[3] = {x[0] - xa[0], x[1] - xa[1], x[2] - xa[2]};
        l[0] += d[1] * v[2] - d[2] * v[1];
        l[1] += d[2] * v[0] - d[0] * v[2];
        l[2] += d[0] * v[1] - d[1] * v[0];
        m += 1;
    }
    double rel[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double cosang = fabs(l[0] * rel[0] + l[1] * rel[1] + l[2] * rel[2]) /
                    (sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) * sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]));
    print_message("Cartwheel: the companion comes in %.1f degrees off the disk's axis (%d disk bodies)\n",
                  acos(cosang) * 180 / M_PI, (int)m);
    assert_true(cosang > cos(5 * M_PI / 180));
    bodies_free(&b);
    passage_as_predicted("Cartwheel ring", ENCOUNTER_BODIES, 0);
}

/* The default collision starts with the halos apart: every halo body of each galaxy lies nearer
 * its own centre than the other's halo begins. */
static void default_collision_starts_with_the_halos_apart(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    char err[256];
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 4096}, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
    double c[2][3], v[3], reach[2] = {0, 0};
    for (int g = 0; g < 2; g++) stellar_centre(&b, g, c[g], v);
    for (int i = 0; i < b.n; i++) {
        int g = BODY_TAG_GALAXY(b.tag[i]);
        const float *x = b.pos + 4 * (size_t)i;
        double r = sqrt(pow(x[0] - c[g][0], 2) + pow(x[1] - c[g][1], 2) + pow(x[2] - c[g][2], 2));
        if (r > reach[g]) reach[g] = r;
    }
    double apart = sqrt(pow(c[1][0] - c[0][0], 2) + pow(c[1][1] - c[0][1], 2) + pow(c[1][2] - c[0][2], 2));
    print_message("default collision: %.1f kpc apart, halos reaching %.1f and %.1f kpc; first passage after %.0f Myr "
                  "(%.0f steps of dt %g, %.1f s at 500 steps/s)\n",
                  apart * info.units.kpc, reach[0] * info.units.kpc, reach[1] * info.units.kpc,
                  info.pericentre_time * info.units.myr, info.pericentre_time / info.dt, info.dt,
                  info.pericentre_time / info.dt / 500.0);
    assert_true(reach[0] + reach[1] < apart);
    bodies_free(&b);
}

/* The orbit of any eccentricity: the built galaxies' centres of mass (all bodies), taken as two point
 * masses and integrated by leapfrog, reach pericentre at the distance asked and at the time Kepler's
 * equation predicted, and their orbit has the eccentricity asked. The halos start apart, so the
 * mass the orbit counts is all of it. */
static void every_conic_passes_when_kepler_says(void **state)
{
    (void)state;
    const struct {
        float e, q;
    } orbits[] = {{0.5f, 12}, {0.9f, 3}, {1, 3}, {1.5f, 3}, {4, 2}};
    for (size_t o = 0; o < sizeof orbits / sizeof orbits[0]; o++) {
        Bodies b;
        SceneInfo info;
        char err[256];
        SceneDesc d = {.kind = SCENE_COLLISION, .n = 512, .eccentricity = orbits[o].e, .pericentre = orbits[o].q,
                       .pericentre_angle = 30};
        if (scene_build(&d, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
        double x[2][3] = {{0}}, v[2][3] = {{0}}, m[2] = {0};
        for (int i = 0; i < b.n; i++) {
            int g = BODY_TAG_GALAXY(b.tag[i]);
            double w = b.pos[4 * (size_t)i + 3];
            m[g] += w;
            for (int k = 0; k < 3; k++) {
                x[g][k] += w * b.pos[4 * (size_t)i + k];
                v[g][k] += w * b.vel[4 * (size_t)i + k];
            }
        }
        double r[3], u[3], mt = m[0] + m[1];
        for (int k = 0; k < 3; k++) {
            r[k] = x[1][k] / m[1] - x[0][k] / m[0];
            u[k] = v[1][k] / m[1] - v[0][k] / m[0];
        }
        double h[3] = {r[1] * u[2] - r[2] * u[1], r[2] * u[0] - r[0] * u[2], r[0] * u[1] - r[1] * u[0]};
        double rr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        double h2 = h[0] * h[0] + h[1] * h[1] + h[2] * h[2], energy = 0.5 * uu - mt / rr;
        double e = sqrt(1 + 2 * energy * h2 / (mt * mt));
        /* Leapfrog (kick-drift-kick) to the first minimum of the distance. */
        const double dt = 1e-4 * info.pericentre_time;
        double t = 0, prev = rr, dist = rr;
        for (;;) {
            double a = -mt / (dist * dist * dist);
            for (int k = 0; k < 3; k++) u[k] += 0.5 * dt * a * r[k];
            for (int k = 0; k < 3; k++) r[k] += dt * u[k];
            dist = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            a = -mt / (dist * dist * dist);
            for (int k = 0; k < 3; k++) u[k] += 0.5 * dt * a * r[k];
            t += dt;
            if (dist > prev || t > 3 * info.pericentre_time) break;
            prev = dist;
        }
        print_message("e %.2f, q %.1f: from %.1f apart, eccentricity %.4f, pericentre %.3f after %.3f (Kepler %.3f)\n",
                      orbits[o].e, orbits[o].q, rr, e, prev, t - dt, info.pericentre_time);
        assert_true(fabs(e - orbits[o].e) < 2e-3 * orbits[o].e);
        assert_true(fabs(prev - orbits[o].q) < 0.01 * orbits[o].q);
        assert_true(fabs((t - dt) - info.pericentre_time) < 2e-3 * info.pericentre_time);
        bodies_free(&b);
    }
    /* A bound orbit whose apocentre (9) is nearer than the separation given (32) is refused (left to
     * its default, the pair starts at the apocentre: test_scene.c). */
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 512, .eccentricity = 0.5f, .pericentre = 3,
                                              .separation = 32},
                                 &b, &info, err, sizeof err),
                     -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "apocentre"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_collision_starts_with_the_halos_apart),
        cmocka_unit_test(every_conic_passes_when_kepler_says),
        cmocka_unit_test(milky_way_andromeda_passes_in_3_9_gyr),
        cmocka_unit_test(andromeda_with_gaia_passes_later_and_wider),
        cmocka_unit_test(mice_pass_at_160_myr),
        cmocka_unit_test(antennae_pass_again_560_myr_later),
        cmocka_unit_test(m51_companion_passes),
        cmocka_unit_test(cartwheel_companion_goes_through_the_centre),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
