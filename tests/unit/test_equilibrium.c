/* The isolated galaxy starts in equilibrium and stays what it is (docs/GALAXIES.md, issue 16's
 * targets over 1 Gyr): 2K/|W| = 1.00 +- 0.02 at t = 0; no halo body starts beyond the halo's cut,
 * and over a run the halo keeps all but 0.5 % of its mass inside 1.5 cuts; the disk and bulge keep
 * their half-mass radii and the disk its thickness within the 1-Gyr targets scaled to the run's
 * length; the disk is close to maximal inside 2.2 scale lengths.
 *
 * The run is shortened to fit CI: a fraction f of 1 Gyr. Heating by two-body encounters adds to
 * z^2 at a rate roughly constant in time, so a thickness allowed to grow 25 % in 1 Gyr
 * (z^2 x 1.5625) may grow to sqrt(1 + 0.5625 f) in f Gyr; the bulge's radius, allowed 10 % in
 * 1 Gyr, 0.10 f. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "scene/scene.h"
#include "scene/scene_internal.h"
#include "sim/sim.h"
#include "sim/structure.h"
#include "util/params.h"

static void build(int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    int rc = scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = n}, b, info, err, sizeof err);
    if (rc != 0) print_error("%s\n", err);
    assert_int_equal(rc, 0);
}

static double halo_cut(void)
{
    GalaxyModel m = scene_galaxy_defaults();
    return m.halo_cut / m.disk_scale;
}

static void measure(const Bodies *b, const SceneInfo *info, StructureMeasure *m)
{
    assert_int_equal(
        structure_measure(b, &(StructureDesc){.galaxy = 0, .softening = info->softening, .beyond = 1.5 * halo_cut()}, m),
        0);
}

static void virial_ratio_is_one_at_the_start(void **state)
{
    (void)state;
#ifdef STARBURST_SANITIZED
    const int sizes[] = {4096};
#else
    const int sizes[] = {4096, 16384};
#endif
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        Bodies b;
        SceneInfo info;
        build(sizes[t], &b, &info);
        StructureMeasure m;
        measure(&b, &info, &m);
        double rmax = 0;
        for (int i = 0; i < b.n; i++) {
            if (BODY_TAG_COMPONENT(b.tag[i]) != BODY_HALO) continue;
            const float *x = b.pos + 4 * (size_t)i;
            double r = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
            if (r > rmax) rmax = r;
        }
        print_message("disk, %d bodies: 2K/|W| %.4f, farthest halo body %.3f (cut %.1f)\n", sizes[t], m.virial, rmax,
                      halo_cut());
        assert_true(fabs(m.virial - 1.0) <= 0.02);
        assert_true(rmax <= halo_cut() + 0.05); /* the cut, and the centring of the whole */
        bodies_free(&b);
    }
}

/* v_disk / v_c at 2.2 scale lengths, v_disk that of the disk alone (bulge and halo made
 * massless), both with the run's softening. */
static void disk_is_close_to_maximal(void **state)
{
    (void)state;
    SceneGalaxy *g = malloc(sizeof *g), *d = malloc(sizeof *d);
    assert_non_null(g);
    assert_non_null(d);
    GalaxyModel full = scene_galaxy_defaults(), disk = full;
    disk.bulge_mass = 1e-9f;
    disk.halo_mass = 1e-9f;
    scene_galaxy_init(g, &full, 0.08);
    scene_galaxy_init(d, &disk, 0.08);
    const double ratio = sqrt(scene_galaxy_vc2(d, 2.2) / scene_galaxy_vc2(g, 2.2));
    print_message("v_disk / v_c at 2.2 R_d: %.3f; Q %.2f\n", ratio, full.toomre_q);
    assert_true(ratio > 0.7 && ratio < 0.9);
    assert_true(full.toomre_q >= 1.2f && full.toomre_q <= 1.5f);
    free(g);
    free(d);
}

/* Half-mass radii and thickness over a run of f Gyr at CI's N. Two-body encounters heat the disk
 * (z^2 grows at a rate ~ 1/N, docs/GALAXIES.md) and relax the bulge, and at the CPU's N they are
 * beyond the 1-Gyr targets (4096 bodies: rms z x 2.5 in 1 Gyr, bulge radius +36 %). What is held
 * to the target is the rate scaled to the default N of the GPU backend (the --bodies default),
 * where the targets apply: the z^2 growth times N / N_default against 0.5625 f, and the bulge's
 * radius change against 0.10 f N_default / N. The half-mass radii are noise-bound at this N (a
 * snapshot's standard error is 3.6 % for 661 disk bodies, 15 % for 132 bulge bodies), so each is
 * taken as its mean over the run's second half and allowed two standard errors of that mean on
 * top: the disk 5 %, the bulge its scaled bound. */
static double half_mass_se(int n, double density)
{
    return sqrt(0.25 / n) / density;
}

static void isolated_galaxy_keeps_its_shape(void **state)
{
    (void)state;
#ifdef STARBURST_SANITIZED
    const int n = 2048;
    const double f = 0.02;
#else
    const int n = 4096;
    const double f = 0.15;
#endif
    Bodies b;
    SceneInfo info;
    build(n, &b, &info);
    StructureMeasure m0, m;
    measure(&b, &info, &m0);
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_TREE}, &b, err, sizeof err);
    assert_non_null(s);
    SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    const double gyr = 1000.0 / info.units.myr, scale = (double)n / params_get(PARAM_BODIES)->fallback;
    const int steps = (int)ceil(f * gyr / info.dt), chunks = 8, chunk = (steps + chunks - 1) / chunks;
    double worst_z2 = 0, worst_leak = 0, worst_virial = 0, late_disk = 0, late_bulge = 0;
    int late = 0;
    for (int k = 0, done = 0; done < steps; k++, done += chunk) {
        sim_advance(s, &p, steps - done < chunk ? steps - done : chunk);
        sim_read(s, &b);
        measure(&b, &info, &m);
        if (2 * (k + 1) > chunks) {
            late_disk += m.half_mass_radius[BODY_DISK];
            late_bulge += m.half_mass_radius[BODY_BULGE];
            late++;
        }
        worst_z2 = fmax(worst_z2, pow(m.disk_rms_z / m0.disk_rms_z, 2) - 1);
        worst_leak = fmax(worst_leak, m.beyond_fraction[BODY_HALO]);
        worst_virial = fmax(worst_virial, fabs(m.virial - 1));
    }
    /* Standard errors of the means: sqrt(1/4n) / p(R_half) a snapshot, p the profile's mass
     * fraction per unit radius there (R e^-R for the disk, 2 a r / (r + a)^3 for the bulge, its
     * taper far outside); the snapshots taken as independent, which overstates the error of the
     * mean by at most sqrt(late). */
    const GalaxyModel g = scene_galaxy_defaults();
    const double a = g.bulge_scale / g.disk_scale;
    const double rd = m0.half_mass_radius[BODY_DISK], rb = m0.half_mass_radius[BODY_BULGE];
    const double se_d = half_mass_se(m0.count[BODY_DISK], rd * exp(-rd)) / rd / sqrt(late);
    const double se_b = half_mass_se(m0.count[BODY_BULGE], 2 * a * rb / pow(rb + a, 3)) / rb / sqrt(late);
    const double disk = late_disk / late / rd - 1, bulge = late_bulge / late / rb - 1;
    const double bulge_bound = 0.10 * f / scale + 2 * se_b;
    print_message("disk, %d bodies (%d disk, %d bulge), %d steps (%.3f Gyr): R_half disk %.3f, late mean %+.3f "
                  "(bound 0.05 + 2 x %.3f); bulge %.3f, late mean %+.3f (bound %.3f = 0.10 f N_default / N + 2 x "
                  "%.3f); rms z %.4f -> %.4f, worst z^2 growth %.3f, x N/N_default %.4f (bound %.4f); halo beyond "
                  "1.5 cut %.4f (bound 0.005); worst |2K/|W| - 1| %.4f\n",
                  n, m0.count[BODY_DISK], m0.count[BODY_BULGE], steps, steps * info.dt / gyr, rd, disk, se_d, rb,
                  bulge, bulge_bound, se_b, m0.disk_rms_z, m.disk_rms_z, worst_z2, worst_z2 * scale, 0.5625 * f,
                  worst_leak, worst_virial);
    assert_true(worst_leak <= 0.005);
    assert_true(fabs(disk) <= 0.05 + 2 * se_d);
    assert_true(fabs(bulge) <= bulge_bound);
    assert_true(worst_z2 * scale <= 0.5625 * f);
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(virial_ratio_is_one_at_the_start),
        cmocka_unit_test(disk_is_close_to_maximal),
        cmocka_unit_test(isolated_galaxy_keeps_its_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
