/* The structure measure against analytic truths: systems sampled exactly from known profiles give
 * back their half-mass radii, thickness and Fourier amplitudes within the sampling noise each test
 * works out; a tilted copy measures as the upright one; the scene's disk galaxy shows the Q it was
 * built with and the W the simulation's own energy sums. Bounds are four standard errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene/scene.h"
#include "scene/scene_internal.h"
#include "sim/diag.h"
#include "sim/structure.h"

#define PI 3.14159265358979323846
#define N_SAMPLE 20000

/* splitmix64: a fixed stream of its own, apart from the scene's. */
static uint64_t rng_state;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double normal(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(2.0 * PI * uniform());
}

static void put(Bodies *b, int i, const double x[3], const double v[3], double m, int comp)
{
    for (int k = 0; k < 3; k++) {
        b->pos[4 * i + k] = (float)x[k];
        b->vel[4 * i + k] = (float)v[k];
    }
    b->pos[4 * i + 3] = (float)m;
    b->tag[i] = BODY_TAG(0, comp);
}

/* A disk body at (R, phi) with a sech^2(z / z0) layer, turning at speed 1 with dispersion 0.1. */
static void put_disk(Bodies *b, int i, double R, double phi, double z0, double m)
{
    const double z = z0 * atanh(2.0 * uniform() - 1.0), vr = 0.1 * normal(), vphi = 1.0 + 0.1 * normal();
    const double c = cos(phi), s = sin(phi);
    put(b, i, (double[3]){R * c, R * s, z}, (double[3]){vr * c - vphi * s, vr * s + vphi * c, 0.05 * normal()}, m,
        BODY_DISK);
}

/* An exponential disk of scale length 1: R = -ln u1 - ln u2 has density R e^-R, the disk's. */
static void put_exp_disk(Bodies *b, int first, int n, double z0)
{
    for (int i = first; i < first + n; i++)
        put_disk(b, i, -log(uniform()) - log(uniform()), 2.0 * PI * uniform(), z0, 1.0 / n);
}

/* A Hernquist sphere of scale a cut at 50 a: M(<r) / M(cut) = (r / (r + a))^2 / (50 / 51)^2. (The
 * untruncated tail would carry the centre of mass off by more than the bulge's size.) */
#define HERNQUIST_CUT 50.0
static void put_hernquist(Bodies *b, int first, int n, double a, double mass, int comp)
{
    const double smax = HERNQUIST_CUT / (HERNQUIST_CUT + 1.0);
    for (int i = first; i < first + n; i++) {
        const double s = smax * sqrt(uniform()), r = a * s / (1.0 - s);
        const double cz = 2.0 * uniform() - 1.0, sz = sqrt(1.0 - cz * cz), ph = 2.0 * PI * uniform();
        put(b, i, (double[3]){r * sz * cos(ph), r * sz * sin(ph), r * cz},
            (double[3]){0.3 * normal(), 0.3 * normal(), 0.3 * normal()}, mass / n, comp);
    }
}

static double exp_fraction(double a, double R)
{
    (void)a;
    return 1.0 - (1.0 + R) * exp(-R);
}

static double hernquist_fraction(double a, double r)
{
    return pow(r / (r + a), 2.0);
}

/* Radius holding half the mass of a profile whose cumulative fraction is frac, cut at cut. */
static double half_of_cut(double (*frac)(double, double), double a, double cut)
{
    double lo = 0, hi = cut, target = 0.5 * frac(a, cut);
    for (int i = 0; i < 100; i++) {
        const double mid = 0.5 * (lo + hi);
        if (frac(a, mid) < target) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The scene's tapered Hernquist sphere (scene_internal.h): density a / (2 pi r (r + a)^3) times
 * 1 - x^3 (10 - 15 x + 6 x^2), x = (r - taper) / (cut - taper), from taper to cut. */
static double tapered_density(const SceneSphere *s, double r)
{
    const double a = s->scale, x = r <= s->taper ? 0.0 : (r >= s->cut ? 1.0 : (r - s->taper) / (s->cut - s->taper));
    return a / (2.0 * PI * r * pow(r + a, 3)) * (1.0 - x * x * x * (10.0 - 15.0 * x + 6.0 * x * x));
}

/* Its mass inside r by the midpoint rule (unnormalised, as the density). */
static double tapered_mass(const SceneSphere *s, double r)
{
    const int steps = 20000;
    double h = r / steps, sum = 0.0;
    for (int i = 0; i < steps; i++) {
        const double x = (i + 0.5) * h;
        sum += 4.0 * PI * x * x * tapered_density(s, x);
    }
    return sum * h;
}

/* Its half-mass radius by bisection, and there the density of the mass fraction dF/dr in *p. */
static double tapered_half_mass(const SceneSphere *s, double *p)
{
    const double total = tapered_mass(s, s->cut);
    double lo = 0, hi = s->cut;
    for (int i = 0; i < 50; i++) {
        const double mid = 0.5 * (lo + hi);
        if (tapered_mass(s, mid) < 0.5 * total) lo = mid;
        else hi = mid;
    }
    const double r = 0.5 * (lo + hi);
    *p = 4.0 * PI * r * r * tapered_density(s, r) / total;
    return r;
}

static void measure(const Bodies *b, StructureMeasure *m)
{
    assert_int_equal(structure_measure(b, &(StructureDesc){.galaxy = 0, .virial_max_n = -1}, m), 0);
}

/* Half-mass radius 1.678 (1 - (1 + R) e^-R = 1/2), standard error sqrt(1/4N) / p(R_half) with
 * p(R) = R e^-R; rms z of sech^2(z / z0) is z0 pi / (2 sqrt 3), its relative error
 * sqrt((<z^4> / <z^2>^2 - 1) / N) / 2 = sqrt(3.2 / N) / 2. */
static void exponential_disk_half_mass_and_thickness(void **state)
{
    (void)state;
    rng_state = 1;
    Bodies b;
    assert_int_equal(bodies_alloc(&b, N_SAMPLE), 0);
    const double z0 = 0.7; /* thick: a spherical radius would read 0.12 larger */
    put_exp_disk(&b, 0, N_SAMPLE, z0);
    StructureMeasure m;
    measure(&b, &m);
    const double rh = 1.678346990016661, se_rh = sqrt(0.25 / N_SAMPLE) / (rh * exp(-rh));
    const double rms = z0 * PI / (2.0 * sqrt(3.0)), se_rms = rms * sqrt(3.2 / N_SAMPLE) / 2.0;
    print_message("exponential disk: R_half %.4f (truth %.4f +- %.4f), rms z %.5f (truth %.5f +- %.5f)\n",
                  m.half_mass_radius[BODY_DISK], rh, se_rh, m.disk_rms_z, rms, se_rms);
    assert_int_equal(m.count[BODY_DISK], N_SAMPLE);
    assert_true(fabs(m.half_mass_radius[BODY_DISK] - rh) < 4 * se_rh);
    assert_true(fabs(m.disk_rms_z - rms) < 4 * se_rms);
    bodies_free(&b);
}

/* Half-mass radius (1 + sqrt 2) a untruncated, that of the cut sphere a bisection finds; standard
 * error sqrt(1/4N) / p with p the cut profile's dM/dr there. The mass beyond r is
 * 1 - M(<r) / M(cut), binomial error sqrt(f (1 - f) / N). Bulge and halo of different scales are
 * measured apart. */
static void hernquist_half_mass_and_mass_beyond(void **state)
{
    (void)state;
    rng_state = 2;
    Bodies b;
    const int n = N_SAMPLE / 2;
    assert_int_equal(bodies_alloc(&b, 2 * n), 0);
    const double a_bulge = 0.2, a_halo = 3.0, beyond = 18.0;
    put_hernquist(&b, 0, n, a_bulge, 0.3, BODY_BULGE);
    put_hernquist(&b, n, n, a_halo, 5.0, BODY_HALO);
    StructureMeasure m;
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = 0, .beyond = beyond, .virial_max_n = -1}, &m),
                     0);
    const double a[2] = {a_bulge, a_halo};
    for (int k = 0; k < 2; k++) {
        const int c = k == 0 ? BODY_BULGE : BODY_HALO;
        const double cut = HERNQUIST_CUT * a[k], in_cut = hernquist_fraction(a[k], cut);
        const double rh = half_of_cut(hernquist_fraction, a[k], cut), p = 2.0 * a[k] * rh / pow(rh + a[k], 3.0) / in_cut;
        const double se = sqrt(0.25 / n) / p;
        const double f = 1.0 - hernquist_fraction(a[k], fmin(beyond, cut)) / in_cut, se_f = sqrt(f * (1.0 - f) / n);
        print_message("hernquist a = %.1f: r_half %.4f (truth %.4f +- %.4f; uncut %.4f), beyond %.0f: %.4f (truth %.4f "
                      "+- %.4f)\n",
                      a[k], m.half_mass_radius[c], rh, se, (1.0 + sqrt(2.0)) * a[k], beyond, m.beyond_fraction[c], f,
                      se_f);
        assert_int_equal(m.count[c], n);
        assert_true(fabs(m.half_mass_radius[c] - rh) < 4 * se);
        assert_true(fabs(m.beyond_fraction[c] - f) < 4 * se_f + 1e-12);
    }
    assert_int_equal(m.count[BODY_DISK], 0);
    bodies_free(&b);
}

/* N bodies of equal mass inside the annulus 2-3 (its edges clear of the centre's noise), their azimuths drawn from (1 + eps cos 2 phi) / 2 pi. */
static void put_ring(Bodies *b, int n, double eps)
{
    for (int i = 0; i < n; i++) {
        double phi;
        do phi = 2.0 * PI * uniform();
        while ((1.0 + eps) * uniform() > 1.0 + eps * cos(2.0 * phi));
        put_disk(b, i, sqrt(4.41 + 4.0 * uniform()), phi, 0.1, 1.0 / n); /* R = 2.1 .. 2.9 */
    }
}

/* Random azimuths: N |A_m|^2 is exponential with mean 1, so A_m < 4 / sqrt N fails once in e^16,
 * and the mean of N A_m^2 over m = 1..6 lies within 1 +- 0.41 (one sd). A layer with density
 * 1 + eps cos 2 phi has A_2 = eps / 2, the other A_m still noise. */
static void fourier_noise_and_known_m2(void **state)
{
    (void)state;
    rng_state = 3;
    const int n = N_SAMPLE;
    const double noise = 4.0 / sqrt(n);
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n), 0);
    StructureMeasure m;
    put_ring(&b, n, 0.0);
    measure(&b, &m);
    double mean = 0;
    for (int k = 1; k <= STRUCTURE_MAX_M; k++) {
        print_message("uniform: A_%d = %.4f (noise %.4f)\n", k, m.ring.fourier[k], 1.0 / sqrt(n));
        assert_true(m.ring.fourier[k] < noise);
        mean += n * m.ring.fourier[k] * m.ring.fourier[k] / STRUCTURE_MAX_M;
    }
    assert_int_equal(m.ring.count, n);
    assert_true(fabs(m.ring.fourier[0] - 1.0) < 1e-12);
    assert_true(mean > 0.1 && mean < 2.7);

    const double eps = 0.4;
    put_ring(&b, n, eps);
    measure(&b, &m);
    for (int k = 1; k <= STRUCTURE_MAX_M; k++) {
        print_message("m = 2, eps %.1f: A_%d = %.4f\n", eps, k, m.ring.fourier[k]);
        if (k == 2) assert_true(fabs(m.ring.fourier[k] - eps / 2) < noise);
        else assert_true(m.ring.fourier[k] < noise);
    }
    bodies_free(&b);
}

/* Toomre's Q where every factor is known: a light ring (R^2 uniform over 2.1^2 .. 2.9^2, mass
 * 0.01, sigma_R 0.1, rotation 1 with dispersion 0.1, sigma_z 0.05) about a point of mass 1.
 * kappa^2 = (M(<2.5) + 2.5 dM/dR) / 2.5^3 with M(<2.5) = 1 + 0.01 (2.5^2 - 2.1^2) / (2.9^2 - 2.1^2)
 * and dM/dR = 0.01 over the annulus 2-3, Sigma = 0.01 / (pi (3^2 - 2^2)). Each measured moment
 * is within four standard errors: sigma / sqrt(2N) for a dispersion, sigma / sqrt N for a mean. */
static void toomre_q_of_a_ring_about_a_point_mass(void **state)
{
    (void)state;
    rng_state = 6;
    const int n = N_SAMPLE;
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n + 1), 0);
    put_ring(&b, n, 0.0);
    for (int i = 0; i < n; i++) b.pos[4 * i + 3] = (float)(0.01 / n);
    put(&b, n, (double[3]){0, 0, 0}, (double[3]){0, 0, 0}, 1.0, BODY_BULGE);
    StructureMeasure m;
    measure(&b, &m);
    const StructureRing *r = &m.ring;
    const double m_in = 1.0 + 0.01 * (6.25 - 4.41) / (8.41 - 4.41), kappa = sqrt((m_in + 2.5 * 0.01) / pow(2.5, 3));
    const double sigma = 0.01 / (PI * 5.0), q = 0.1 * kappa / (3.36 * sigma);
    print_message("ring: sigma_R %.5f (0.1), v_phi %.5f (1), sigma_z %.5f (0.05), Sigma %.6f (%.6f), kappa %.5f (%.5f), "
                  "Q %.4f (%.4f)\n",
                  r->sigma_r, r->mean_vphi, r->sigma_z, r->surface_density, sigma, r->kappa, kappa, r->toomre_q, q);
    assert_int_equal(r->count, n);
    assert_true(fabs(r->sigma_r - 0.1) < 4 * 0.1 / sqrt(2.0 * n));
    assert_true(fabs(r->mean_vphi - 1.0) < 4 * 0.1 / sqrt(n));
    assert_true(fabs(r->mean_vr) < 4 * 0.1 / sqrt(n));
    assert_true(fabs(r->sigma_z - 0.05) < 4 * 0.05 / sqrt(2.0 * n));
    assert_true(fabs(r->surface_density / sigma - 1) < 1e-5);
    assert_true(fabs(r->kappa / kappa - 1) < 1e-4);
    assert_true(fabs(r->toomre_q / q - 1) < 4 / sqrt(2.0 * n));
    bodies_free(&b);
}

/* Rotation about x by angle, then a shift and a drift: nothing the measure reports may change. */
static void tilt(Bodies *b, double angle)
{
    const double c = cos(angle), s = sin(angle), shift[3] = {5, -3, 2}, drift[3] = {0.5, 0.2, -0.4};
    for (int i = 0; i < b->n; i++) {
        float *x = b->pos + 4 * i, *v = b->vel + 4 * i;
        const double y = x[1], z = x[2], vy = v[1], vz = v[2];
        x[0] = (float)(x[0] + shift[0]);
        x[1] = (float)(c * y - s * z + shift[1]);
        x[2] = (float)(s * y + c * z + shift[2]);
        v[0] = (float)(v[0] + drift[0]);
        v[1] = (float)(c * vy - s * vz + drift[1]);
        v[2] = (float)(s * vy + c * vz + drift[2]);
    }
}

static void near(double a, double b, double rel, const char *what)
{
    if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-9)) fail_msg("%s: %.9g upright, %.9g tilted", what, a, b);
}

/* A disk with a bar-like m = 2 in a halo, tilted by 30 degrees, moved and set drifting, measures
 * as the upright one to float rounding: the axis and centre are found, not assumed. */
static void tilted_galaxy_measures_the_same(void **state)
{
    (void)state;
    rng_state = 4;
    const int nd = 6000, nh = 4000;
    Bodies b;
    assert_int_equal(bodies_alloc(&b, nd + nh), 0);
    put_exp_disk(&b, 0, nd, 0.1);
    for (int i = 0; i < nd; i++) { /* squeeze y by 20%: an m = 2 pattern */
        b.pos[4 * i + 1] *= 0.8f;
    }
    put_hernquist(&b, nd, nh, 3.0, 5.0, BODY_HALO);
    const StructureDesc desc = {.galaxy = 0, .softening = 0.08};
    StructureMeasure up, tilted;
    assert_int_equal(structure_measure(&b, &desc, &up), 0);
    tilt(&b, 30.0 * PI / 180.0);
    assert_int_equal(structure_measure(&b, &desc, &tilted), 0);
    print_message("upright: axis (%.4f %.4f %.4f), rms z %.4f, A_2 %.4f, Q %.3f; tilted: axis (%.4f %.4f %.4f), "
                  "rms z %.4f, A_2 %.4f, Q %.3f\n",
                  up.axis[0], up.axis[1], up.axis[2], up.disk_rms_z, up.ring.fourier[2], up.ring.toomre_q,
                  tilted.axis[0], tilted.axis[1], tilted.axis[2], tilted.disk_rms_z, tilted.ring.fourier[2],
                  tilted.ring.toomre_q);
    /* The spin of the upright disk is along z, to the sampling noise of its angular momentum; the
     * tilted one's is that axis turned by 30 degrees about x. */
    const double cs = cos(PI / 6), sn = sin(PI / 6);
    assert_true(fabs(up.axis[2] - 1.0) < 1e-3);
    assert_true(fabs(tilted.axis[0] - up.axis[0]) < 1e-5);
    assert_true(fabs(tilted.axis[1] - (cs * up.axis[1] - sn * up.axis[2])) < 1e-5);
    assert_true(fabs(tilted.axis[2] - (sn * up.axis[1] + cs * up.axis[2])) < 1e-5);
    assert_true(up.ring.fourier[2] > 0.05);
    const double rel = 1e-4;
    for (int c = 0; c < 3; c++) near(up.half_mass_radius[c], tilted.half_mass_radius[c], rel, "half-mass radius");
    near(up.disk_rms_z, tilted.disk_rms_z, rel, "rms z");
    near(up.ring.sigma_r, tilted.ring.sigma_r, rel, "sigma_R");
    near(up.ring.mean_vphi, tilted.ring.mean_vphi, rel, "v_phi");
    near(up.ring.toomre_q, tilted.ring.toomre_q, rel, "Q");
    for (int k = 1; k <= STRUCTURE_MAX_M; k++) near(up.ring.fourier[k], tilted.ring.fourier[k], rel, "A_m");
    near(up.kinetic, tilted.kinetic, rel, "K");
    near(up.potential, tilted.potential, rel, "W");
    bodies_free(&b);
}

/* The model's Q over the annulus [r0, r1): the sampled sigma_R^2 and Sigma averaged over the
 * annulus as the measure averages them, with the model's kappa at its middle. */
static double model_ring_q(const SceneGalaxy *g, double r0, double r1)
{
    double mass = 0, s2 = 0;
    for (int i = 0; i < 1000; i++) {
        const double R = r0 + (i + 0.5) * (r1 - r0) / 1000, w = R * exp(-R);
        double sr = g->sigma_r0 * exp(-0.5 * R);
        const double vc2 = scene_galaxy_vc2(g, R);
        if (sr * sr > 0.25 * vc2) sr = 0.5 * sqrt(vc2);
        mass += w;
        s2 += w * sr * sr;
    }
    const double sigma = sqrt(s2 / mass), rm = 0.5 * (r0 + r1), h = 0.05;
    const double sigma_surface = g->disk_mass * (exp(-r0) * (1 + r0) - exp(-r1) * (1 + r1)) /
                                 exp_fraction(1, g->disk_cut) /
                                 (PI * (r1 * r1 - r0 * r0));
    const double k2 = (scene_galaxy_vc2(g, rm + h) - scene_galaxy_vc2(g, rm - h)) / (2 * h) / rm +
                      2.0 * scene_galaxy_vc2(g, rm) / (rm * rm);
    return sigma * sqrt(k2) / (3.36 * sigma_surface);
}

/* The scene's disk galaxy at t = 0 against its own model: half-mass radii of the profiles as cut
 * (exponential at 6, bulge at 2, halo at 12), rms z of its sech^2 layer, Q at R = 2-3 from
 * galaxy.c's sigma_R (Q = 1.5 at 2.43) and kappa, A_m at the noise of a random disk, and W the
 * simulation's energy sums. Tolerances: four standard errors of each, with kappa's standard
 * error (1 / 2 sqrt N: half of kappa^2 comes from dM/dR) from the disk bodies in the annulus, plus 4% on Q for kappa taken from the spherical enclosed
 * mass (the disk's in-plane force is 2-3% more, galaxy.c). */
static void scene_disk_matches_its_model(void **state)
{
    (void)state;
#ifdef STARBURST_SANITIZED
    const int sizes[] = {4096};
#else
    const int sizes[] = {16384, 4096};
#endif
    SceneGalaxy *g = malloc(sizeof *g);
    assert_non_null(g);
    GalaxyModel shape = scene_galaxy_defaults();
    scene_galaxy_init(g, &shape, 0.08);
    const double q_model = model_ring_q(g, 2.0, 3.0);
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        Bodies b;
        SceneInfo info;
        char err[256] = "";
        assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = sizes[t]}, &b, &info, err, sizeof err), 0);
        StructureMeasure m;
        assert_int_equal(
            structure_measure(&b, &(StructureDesc){.galaxy = 0, .softening = info.softening, .beyond = 1.5 * g->halo.cut}, &m),
            0);
        const StructureRing *r = &m.ring;
        print_message("disk scene, %d bodies (%d disk, %d bulge, %d halo), t = 0:\n", sizes[t], m.count[0], m.count[1],
                      m.count[2]);
        print_message("  half-mass radius: disk %.4f, bulge %.4f, halo %.4f; disk rms z %.4f\n",
                      m.half_mass_radius[0], m.half_mass_radius[1], m.half_mass_radius[2], m.disk_rms_z);
        print_message("  R = 2-3: %d disk bodies, Sigma %.5f, sigma_R %.4f, v_phi %.4f, kappa %.4f, Q %.3f "
                      "(model %.3f)\n",
                      r->count, r->surface_density, r->sigma_r, r->mean_vphi, r->kappa, r->toomre_q, q_model);
        print_message("  A_1..6 = %.4f %.4f %.4f %.4f %.4f %.4f (1/sqrt N %.4f)\n", r->fourier[1], r->fourier[2],
                      r->fourier[3], r->fourier[4], r->fourier[5], r->fourier[6], 1.0 / sqrt(r->count));
        print_message("  mass beyond 1.5 cut: halo %.4f; 2K/|W| = %.4f (K %.4f, W %.4f)\n", m.beyond_fraction[BODY_HALO],
                      m.virial, m.kinetic, m.potential);

        /* Half-mass radii and thickness against the cut profiles. */
        const int nd = m.count[BODY_DISK], nb = m.count[BODY_BULGE], nh = m.count[BODY_HALO];
        const double rd = half_of_cut(exp_fraction, 1.0, g->disk_cut);
        const double pd = rd * exp(-rd) / exp_fraction(1, g->disk_cut);
        double pb, ph;
        const double rb = tapered_half_mass(&g->bulge, &pb), rh = tapered_half_mass(&g->halo, &ph);
        print_message("  model half-mass radius: disk %.4f, bulge %.4f, halo %.4f\n", rd, rb, rh);
        assert_true(fabs(m.half_mass_radius[BODY_DISK] - rd) < 4 * sqrt(0.25 / nd) / pd);
        assert_true(fabs(m.half_mass_radius[BODY_BULGE] - rb) < 4 * sqrt(0.25 / nb) / pb);
        assert_true(fabs(m.half_mass_radius[BODY_HALO] - rh) < 4 * sqrt(0.25 / nh) / ph);
        const double rms = g->disk_height * PI / (2.0 * sqrt(3.0));
        assert_true(fabs(m.disk_rms_z - rms) < 4 * rms * sqrt(3.2 / nd) / 2.0);
        assert_true(m.beyond_fraction[BODY_HALO] == 0); /* beyond 1.5 halo_cut */

        /* Q: sigma_R (1 / sqrt 2N), Sigma (1 / sqrt N), and kappa^2 through dM/dR, whose error is
         * about half that of the mass in the annulus (half of kappa^2 comes from dM/dR). */
        const double n_ring = r->count, se_q = sqrt(0.5 / n_ring + 1.0 / n_ring + 0.25 / n_ring);
        print_message("  Q / model - 1 = %+.3f (bound %.3f)\n", r->toomre_q / q_model - 1, 4 * se_q + 0.04);
        assert_true(fabs(r->toomre_q / q_model - 1) < 4 * se_q + 0.04);
        for (int k = 1; k <= STRUCTURE_MAX_M; k++) assert_true(r->fourier[k] < 4.0 / sqrt(n_ring));

        /* W is the simulation's: its energy sum over the same bodies. */
        Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU}, &b, err, sizeof err);
        assert_non_null(s);
        const SimEnergy e = sim_energy(s, info.softening);
        Diagnostics d;
        diag_measure(&b, e, &d);
        print_message("  sim_energy: K %.4f, W %.4f, 2K/|W| %.4f\n", e.kinetic, e.potential, d.virial);
        assert_true(fabs(m.potential / e.potential - 1) < 1e-6);
        assert_true(fabs(m.virial / d.virial - 1) < 1e-4);
        sim_destroy(s);
        bodies_free(&b);
    }
    free(g);
}

/* A disk in its halo as a field measures as the same disk in the live halo's model: kappa (and so
 * Q) from the stars' mass and the profile's, the halo's half-mass radius the profile's, and the
 * stars in equilibrium, 2K/|W| near 1 with W Clausius' sum m x.a, which is the simulation's own
 * pulls (direct sum and field) summed about the stars' centre. The centre body counted as a
 * point mass, as before, gave kappa 0.64 for 0.42 and 2K/|W| 0.08. */
static void field_halo_disk_measures_as_its_model(void **state)
{
    (void)state;
#ifdef STARBURST_SANITIZED
    const int n = 2048;
#else
    const int n = 8192;
#endif
    SceneGalaxy *g = malloc(sizeof *g);
    assert_non_null(g);
    GalaxyModel shape = scene_galaxy_defaults();
    scene_galaxy_init(g, &shape, 0.08);
    const double q_model = model_ring_q(g, 2.0, 3.0);
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = n, .halo = SCENE_HALO_FIELD}, &b, &info, err,
                                 sizeof err),
                     0);
    assert_int_equal(info.halos.count, 1);
    StructureMeasure m;
    assert_int_equal(structure_measure(&b,
                                       &(StructureDesc){.galaxy = 0, .softening = info.softening,
                                                        .beyond = 1.5 * g->halo.cut, .field = &info.halos.halo[0]},
                                       &m),
                     0);
    const StructureRing *r = &m.ring;
    double ph;
    const double rh = tapered_half_mass(&g->halo, &ph);
    const double n_ring = r->count, se_q = sqrt(0.5 / n_ring + 1.0 / n_ring + 0.25 / n_ring);
    print_message("field disk, %d stars: kappa %.4f, Q %.3f (model %.3f), halo R_half %.4f (model %.4f), "
                  "2K/|W| %.4f\n",
                  m.count[BODY_DISK] + m.count[BODY_BULGE], r->kappa, r->toomre_q, q_model, m.half_mass_radius[BODY_HALO],
                  rh, m.virial);
    assert_int_equal(m.count[BODY_HALO], 1);
    assert_true(fabs(r->toomre_q / q_model - 1) < 4 * se_q + 0.04);
    assert_true(fabs(m.half_mass_radius[BODY_HALO] / rh - 1) < 1e-3);
    assert_true(m.beyond_fraction[BODY_HALO] == 0);
    assert_true(fabs(m.virial - 1) < 0.05);

    /* W against the simulation's pulls: sum m (x - c).a over the stars, c their centre of mass. */
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT, .halos = &info.halos}, &b,
                        err, sizeof err);
    assert_non_null(s);
    float *a = malloc(sizeof(float) * 3 * (size_t)b.n);
    assert_non_null(a);
    sim_accelerations(s, info.softening, a);
    const int stars = b.n - info.halos.count;
    double c[3] = {0, 0, 0}, mass = 0, w = 0;
    for (int i = 0; i < stars; i++) {
        mass += b.pos[4 * i + 3];
        for (int k = 0; k < 3; k++) c[k] += b.pos[4 * i + 3] * b.pos[4 * i + k];
    }
    for (int i = 0; i < stars; i++)
        for (int k = 0; k < 3; k++) w += b.pos[4 * i + 3] * (b.pos[4 * i + k] - c[k] / mass) * a[3 * i + k];
    print_message("  W %.6f, from the simulation's accelerations %.6f\n", m.potential, w);
    assert_true(fabs(m.potential / w - 1) < 1e-3);
    free(a);
    sim_destroy(s);
    bodies_free(&b);
    free(g);
}

/* A galaxy index picks its bodies; one with none is an error, not zeros passed off as a measure. */
static void galaxy_index_selects(void **state)
{
    (void)state;
    rng_state = 5;
    Bodies b;
    assert_int_equal(bodies_alloc(&b, 2000), 0);
    put_exp_disk(&b, 0, 2000, 0.1);
    for (int i = 1000; i < 2000; i++) b.tag[i] = BODY_TAG(1, BODY_DISK);
    StructureMeasure m;
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = 1, .virial_max_n = -1}, &m), 0);
    assert_int_equal(m.count[BODY_DISK], 1000);
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = -1, .virial_max_n = -1}, &m), 0);
    assert_int_equal(m.count[BODY_DISK], 2000);
    for (int i = 0; i < 2000; i++) b.tag[i] = BODY_TAG(0, BODY_DISK);
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = 1}, &m), -1);
    assert_int_equal(m.count[BODY_DISK], 0);
    /* Rings: the annuli of structure_rings add up to the disk. */
    double edges[7] = {0, 1, 2, 3, 4, 6, 1e9};
    StructureRing rings[6];
    assert_int_equal(structure_rings(&b, NULL, edges, 6, rings), 0);
    int total = 0;
    for (int i = 0; i < 6; i++) total += rings[i].count;
    assert_int_equal(total, 2000);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exponential_disk_half_mass_and_thickness),
        cmocka_unit_test(hernquist_half_mass_and_mass_beyond),
        cmocka_unit_test(fourier_noise_and_known_m2),
        cmocka_unit_test(toomre_q_of_a_ring_about_a_point_mass),
        cmocka_unit_test(tilted_galaxy_measures_the_same),
        cmocka_unit_test(scene_disk_matches_its_model),
        cmocka_unit_test(galaxy_index_selects),
        cmocka_unit_test(field_halo_disk_measures_as_its_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
