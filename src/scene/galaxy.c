/* A disk galaxy near equilibrium, in units of its disk scale length and disk mass (G = 1): an
 * exponential disk with a sech^2 vertical profile cut at 6 scale lengths, a Hernquist bulge and a
 * Hernquist dark halo, each tapered smoothly to zero density at its cut (docs/GALAXIES.md).
 *
 * Bulge and halo draw their speeds from Eddington's isotropic distribution function of the
 * tapered density in the potential of the whole model (the disk taken as spherical there), so
 * they start in equilibrium. The density and its slope vanish at the cut, so the distribution
 * function is zero for energies that reach past it: no body starts with the energy to leave.
 * (The untruncated profiles' distribution functions, sampled inside the cut, let 10% of the halo
 * out within t = 20; Gaussian speeds from the Jeans equation fall short of virial.)
 *
 * The disk follows Hernquist (1993, ApJS 86, 389): rotation at the circular speed less the
 * asymmetric drift, radial dispersion set by Toomre's Q, vertical dispersion of the isothermal
 * sheet. Its circular speed takes the disk's own force from softened rings: the spherical
 * estimate falls 2-3% short in the plane, and a disk started that slow contracts.
 *
 * Every force carries the run's Plummer softening. */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"
#include "sim/bodies.h"

#define GALAXY_RMIN 1e-3
/* Toomre's Q is set at the solar radius of Hernquist's Milky Way model, 2.43 scale lengths. */
#define GALAXY_RREF 2.43
/* The bulge ends at this many scale lengths; bulge and halo taper from this fraction of their cut. */
#define GALAXY_BULGE_CUT 10.0
#define GALAXY_TAPER SCENE_GALAXY_TAPER

static double sq(double x)
{
    return x * x;
}

/* Mass fraction of an untruncated exponential disk inside cylindrical radius R. */
static double exp_disk_fraction(double R)
{
    return 1.0 - (1.0 + R) * exp(-R);
}

static double hernquist_fraction(double a, double r)
{
    return sq(r / (r + a));
}

/* The taper, 1 inside s->taper and 0 from the cut on: a quintic smoothstep between, so density,
 * slope and curvature all reach zero at the cut. Its slope goes to *slope. */
static double taper(const SceneSphere *s, double r, double *slope)
{
    *slope = 0.0;
    if (r <= s->taper) return 1.0;
    if (r >= s->cut) return 0.0;
    double w = s->cut - s->taper, x = (r - s->taper) / w;
    *slope = -30.0 * x * x * sq(1.0 - x) / w;
    return 1.0 - x * x * x * (10.0 + x * (6.0 * x - 15.0));
}

/* Density of the tapered profile for hern_mass 1, and its radial slope. */
static double sphere_density(const SceneSphere *s, double r, double *slope)
{
    double a = s->scale, h = a / (2.0 * SCENE_PI * r * pow(r + a, 3)), ts, t = taper(s, r, &ts);
    *slope = h * (ts - t * (1.0 / r + 3.0 / (r + a)));
    return h * t;
}

/* Mass between r0 and r1 for hern_mass 1, by Simpson's rule. */
static double sphere_shell(const SceneSphere *s, double r0, double r1, int m)
{
    double h = (r1 - r0) / m, sum = 0.0, slope;
    for (int i = 0; i <= m; i++) {
        double r = r0 + i * h, w = (i == 0 || i == m) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w * r * r * sphere_density(s, r, &slope);
    }
    return 4.0 * SCENE_PI * sum * h / 3.0;
}

static double grid_r(const SceneGalaxy *g, int k)
{
    return exp(g->lnr0 + k * g->dlnr);
}

/* Sets the sphere's normalisation and its table of mass inside each grid radius. */
static void sphere_init(const SceneGalaxy *g, SceneSphere *s, double mass, double scale, double cut, double taper_from)
{
    s->mass = mass;
    s->scale = scale;
    s->cut = cut;
    s->taper = taper_from * cut;
    s->hern_mass = mass / (hernquist_fraction(scale, s->taper) + sphere_shell(s, s->taper, cut, 2048));
    double prev = 0.0;
    for (int k = 0; k < SCENE_GALAXY_GRID; k++) {
        double r = grid_r(g, k);
        if (r <= s->taper) s->inside[k] = s->hern_mass * hernquist_fraction(scale, r);
        else if (prev >= cut) s->inside[k] = mass;
        else {
            double r0 = prev > s->taper ? prev : s->taper, r1 = r < cut ? r : cut;
            s->inside[k] = (r0 > s->taper ? s->inside[k - 1] : s->hern_mass * hernquist_fraction(scale, r0)) +
                           s->hern_mass * sphere_shell(s, r0, r1, 32);
            if (r >= cut) s->inside[k] = mass;
        }
        prev = r;
    }
}

static double sphere_mass_inside(const SceneGalaxy *g, const SceneSphere *s, double r)
{
    if (r <= s->taper) return s->hern_mass * hernquist_fraction(s->scale, r);
    if (r >= s->cut) return s->mass;
    double x = (log(r) - g->lnr0) / g->dlnr;
    int k = (int)x;
    if (k >= SCENE_GALAXY_GRID - 1) return s->mass;
    double r0 = grid_r(g, k), r1 = grid_r(g, k + 1), f = (r - r0) / (r1 - r0);
    return s->inside[k] * (1.0 - f) + s->inside[k + 1] * f;
}

/* The radius holding mass fraction u of the sphere: Hernquist's inverse inside the taper, the
 * table beyond. */
static double sphere_radius_at_fraction(const SceneGalaxy *g, const SceneSphere *s, double u)
{
    double m = u * s->mass, mt = s->hern_mass * hernquist_fraction(s->scale, s->taper);
    if (m <= mt) {
        double q = sqrt(m / s->hern_mass);
        return s->scale * q / (1.0 - q);
    }
    int lo = 0, hi = SCENE_GALAXY_GRID - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (s->inside[mid] <= m) lo = mid;
        else hi = mid;
    }
    double r0 = grid_r(g, lo), r1 = grid_r(g, hi), span = s->inside[hi] - s->inside[lo];
    double r = span > 0 ? r0 + (r1 - r0) * (m - s->inside[lo]) / span : r0;
    if (r < s->taper) r = s->taper;
    return r < s->cut ? r : s->cut;
}

/* Mass inside radius r, the disk counted as if it were spherical. */
static double enclosed_mass(const SceneGalaxy *g, double r)
{
    double d = r < g->disk_cut ? g->disk_mass * exp_disk_fraction(r) / exp_disk_fraction(g->disk_cut) : g->disk_mass;
    return d + sphere_mass_inside(g, &g->bulge, r) + sphere_mass_inside(g, &g->halo, r);
}

static double softened(const SceneGalaxy *g, double m, double r)
{
    return m * r / pow(r * r + sq(g->softening), 1.5);
}

static double disk_surface_density(const SceneGalaxy *g, double R)
{
    return g->disk_mass * exp(-R) / (2.0 * SCENE_PI * exp_disk_fraction(g->disk_cut));
}

/* Complete elliptic integral K from the complementary modulus, by the arithmetic-geometric mean. */
static double ellip_k(double kp)
{
    double a = 1.0, b = kp;
    for (int i = 0; i < 40 && fabs(a - b) > 1e-15 * a; i++) {
        double m = 0.5 * (a + b);
        b = sqrt(a * b);
        a = m;
    }
    return 0.5 * SCENE_PI / a;
}

/* Midplane potential of the disk as rings; a ring of mass m at R' gives
 * -(2m / pi) K(k) / sqrt((R + R')^2 + eps^2) with k^2 = 4 R R' / ((R + R')^2 + eps^2). */
static double disk_potential(const SceneGalaxy *g, double R, double eps2)
{
    int m = 1200;
    double h = g->disk_cut / m, sum = 0.0;
    for (int i = 0; i < m; i++) {
        double rp = (i + 0.5) * h, a = sq(R + rp) + eps2;
        sum += rp * disk_surface_density(g, rp) * ellip_k(sqrt((sq(R - rp) + eps2) / a)) / sqrt(a);
    }
    return -4.0 * sum * h;
}

double scene_galaxy_vc2(const SceneGalaxy *g, double R)
{
    double x = R / g->disk_dr;
    if (x >= SCENE_GALAXY_DISK_GRID - 1) return R * softened(g, enclosed_mass(g, R), R);
    int k = (int)x;
    double f = x - k, disk = g->disk_accel[k] * (1.0 - f) + g->disk_accel[k + 1] * f;
    return R * (disk + softened(g, sphere_mass_inside(g, &g->bulge, R) + sphere_mass_inside(g, &g->halo, R), R));
}

/* Epicyclic frequency squared, from the slope of the rotation curve. */
static double kappa2(const SceneGalaxy *g, double R)
{
    double h = R > 2.0 * g->disk_dr ? g->disk_dr : 0.5 * R;
    double dvc2 = (scene_galaxy_vc2(g, R + h) - scene_galaxy_vc2(g, R - h)) / (2.0 * h);
    return dvc2 / R + 2.0 * scene_galaxy_vc2(g, R) / (R * R);
}

double scene_galaxy_total_mass(const SceneGalaxy *g)
{
    return g->disk_mass + g->bulge.mass + g->halo.mass;
}

double scene_galaxy_mass_inside(const SceneGalaxy *g, double r)
{
    return enclosed_mass(g, r);
}

/* Inverts the disk's cumulative mass fraction: Newton steps kept inside a shrinking bracket, so
 * it converges fast where the slope is fair and never leaves [0, cut] where it is not. */
static double disk_radius_at_fraction(const SceneGalaxy *g, double f)
{
    double target = f * exp_disk_fraction(g->disk_cut), lo = 0.0, hi = g->disk_cut, R = 1.678;
    for (int i = 0; i < 100; i++) {
        double r = exp_disk_fraction(R) - target;
        if (r < 0) lo = R;
        else hi = R;
        double slope = R * exp(-R), next = slope > 0 ? R - r / slope : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (fabs(next - R) <= 1e-14 * (1.0 + R)) return next;
        R = next;
    }
    return R;
}

double scene_galaxy_disk_half_mass_radius(const SceneGalaxy *g)
{
    return disk_radius_at_fraction(g, 0.5);
}

static double psi_at(const SceneGalaxy *g, double r)
{
    double x = (log(r > GALAXY_RMIN ? r : GALAXY_RMIN) - g->lnr0) / g->dlnr;
    if (x >= SCENE_GALAXY_GRID - 1) return g->psi[SCENE_GALAXY_GRID - 1];
    int k = (int)x;
    double f = x - k;
    return g->psi[k] * (1.0 - f) + g->psi[k + 1] * f;
}

/* Eddington's inversion for a sphere in the model's potential: f(E) ~ integral from 0 to E of
 * (d2 rho / d psi2) dpsi / sqrt(E - psi), with d2 rho / d psi2 linear between grid points so each
 * piece integrates exactly, singularity included. The density is zero from the cut out, so f is
 * zero below psi(cut): no body is drawn with the energy to pass the cut. Where the sum comes out
 * negative it is held at zero. */
static void eddington(const SceneGalaxy *g, const double *accel, SceneSphere *s)
{
    int n = SCENE_GALAXY_GRID;
    double drho[SCENE_GALAXY_GRID], d2rho[SCENE_GALAXY_GRID], slope;
    for (int k = 0; k < n; k++) {
        sphere_density(s, grid_r(g, k), &slope);
        drho[k] = -slope / accel[k]; /* d rho / d psi = -(d rho / dr) / g */
    }
    for (int k = 0; k < n; k++) {
        int lo = k > 0 ? k - 1 : k, hi = k < n - 1 ? k + 1 : k;
        d2rho[k] = (drho[hi] - drho[lo]) / (g->psi[hi] - g->psi[lo]);
    }
    for (int j = 0; j < n; j++) {
        double e = g->psi[j], sum = drho[n - 1] / sqrt(e);
        for (int k = j; k < n - 1; k++) {
            double p0 = g->psi[k + 1], p1 = g->psi[k]; /* p0 < p1 <= e */
            double beta = (d2rho[k] - d2rho[k + 1]) / (p1 - p0), alpha = d2rho[k + 1] - beta * p0;
            double s0 = e - p1, s1 = e - p0; /* s = e - psi */
            sum += (alpha + beta * e) * 2.0 * (sqrt(s1) - sqrt(s0)) - beta * (2.0 / 3.0) * (s1 * sqrt(s1) - s0 * sqrt(s0));
        }
        s->df[j] = sum > 0 && e > s->psi_cut ? sum : 0.0;
    }
}

GalaxyModel scene_galaxy_defaults(void)
{
    return (GalaxyModel){.disk_mass = 1.0f,
                         .disk_scale = 1.0f,
                         .disk_height = 0.2f,
                         .toomre_q = 1.3f,
                         .bulge_mass = 0.2f,
                         .bulge_scale = 0.35f,
                         .halo_mass = 5.0f,
                         .halo_scale = 20.0f,
                         .halo_cut = 15.0f};
}

void scene_galaxy_init(SceneGalaxy *g, const GalaxyModel *shape, double softening)
{
    memset(g, 0, sizeof *g);
    double m = shape->disk_mass > 0 ? shape->disk_mass : 1.0, l = shape->disk_scale > 0 ? shape->disk_scale : 1.0;
    g->disk_mass = 1.0;
    g->disk_height = shape->disk_height / l;
    g->disk_cut = 6.0;
    g->toomre_q = shape->toomre_q;
    g->softening = softening;

    /* The grid reaches far past the halo cut: Eddington's integral runs from psi = 0. */
    int n = SCENE_GALAXY_GRID;
    double halo_scale = shape->halo_scale / l, halo_cut = shape->halo_cut / l, bulge_scale = shape->bulge_scale / l;
    double rfar = 100.0 * (halo_cut > halo_scale ? halo_cut : halo_scale), accel[SCENE_GALAXY_GRID];
    g->lnr0 = log(GALAXY_RMIN);
    g->dlnr = (log(rfar) - g->lnr0) / (n - 1);
    sphere_init(g, &g->bulge, shape->bulge_mass / m, bulge_scale, GALAXY_BULGE_CUT * bulge_scale, GALAXY_TAPER);
    sphere_init(g, &g->halo, shape->halo_mass / m, halo_scale, halo_cut, GALAXY_TAPER);
    for (int k = 0; k < n; k++) {
        double r = exp(g->lnr0 + k * g->dlnr);
        accel[k] = softened(g, enclosed_mass(g, r), r);
    }
    g->psi[n - 1] = enclosed_mass(g, rfar) / sqrt(sq(rfar) + sq(softening));
    for (int k = n - 2; k >= 0; k--) { /* trapezoid in ln r: dpsi = g r dln r */
        double r0 = exp(g->lnr0 + k * g->dlnr), r1 = exp(g->lnr0 + (k + 1) * g->dlnr);
        g->psi[k] = g->psi[k + 1] + 0.5 * (accel[k] * r0 + accel[k + 1] * r1) * g->dlnr;
    }
    g->bulge.psi_cut = psi_at(g, g->bulge.cut);
    g->halo.psi_cut = psi_at(g, g->halo.cut);
    eddington(g, accel, &g->bulge);
    eddington(g, accel, &g->halo);

    /* The disk's own midplane force, its thickness folded into the softening: a sech^2 layer of
     * height z0 has <z^2> = pi^2 z0^2 / 12. */
    double eps2 = sq(softening) + sq(SCENE_PI * g->disk_height) / 12.0, d = 0.01;
    g->disk_dr = 0.05;
    for (int k = 1; k < SCENE_GALAXY_DISK_GRID; k++) {
        double R = k * g->disk_dr;
        g->disk_accel[k] = (disk_potential(g, R + d, eps2) - disk_potential(g, R - d, eps2)) / (2.0 * d);
    }

    double sigma_ref = g->toomre_q * 3.36 * disk_surface_density(g, GALAXY_RREF) / sqrt(kappa2(g, GALAXY_RREF));
    g->sigma_r0 = sigma_ref * exp(0.5 * GALAXY_RREF);
}

/* f(E), E = psi - v^2 / 2, interpolated on psi (which falls along the grid). */
static double df_at(const SceneGalaxy *g, const double *df, double e)
{
    int lo = 0, hi = SCENE_GALAXY_GRID - 1;
    if (e >= g->psi[0]) return df[0];
    if (e <= g->psi[hi]) return 0.0;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (g->psi[mid] >= e) lo = mid;
        else hi = mid;
    }
    double f = (g->psi[lo] - e) / (g->psi[lo] - g->psi[hi]);
    return df[lo] * (1.0 - f) + df[hi] * f;
}

/* A speed from p(v) ~ v^2 f(psi - v^2 / 2) on [0, v_max], by rejection under a scanned bound;
 * v_max is the speed that reaches the sphere's cut. */
static double df_speed(const SceneGalaxy *g, const SceneSphere *s, double psi, SceneRng *rng)
{
    const double *df = s->df;
    if (psi <= s->psi_cut) return 0.0;
    double vmax = sqrt(2.0 * (psi - s->psi_cut)), bound = 0.0;
    for (int i = 1; i < 64; i++) {
        double v = vmax * i / 64.0, p = v * v * df_at(g, df, psi - 0.5 * v * v);
        if (p > bound) bound = p;
    }
    bound *= 1.2;
    double v = 0.0;
    for (int tries = 0; tries < 1000; tries++) {
        v = vmax * scene_rng_uniform(rng);
        if (bound * scene_rng_uniform(rng) <= v * v * df_at(g, df, psi - 0.5 * v * v)) break;
    }
    return v;
}

static void sample_spherical(const SceneGalaxy *g, SceneRng *rng, const SceneSphere *s, double mass_each, double *xv)
{
    double r = sphere_radius_at_fraction(g, s, scene_rng_uniform(rng));
    double dir[3], vdir[3];
    scene_rng_direction(rng, dir);
    double v = df_speed(g, s, psi_at(g, r), rng);
    scene_rng_direction(rng, vdir);
    for (int k = 0; k < 3; k++) {
        xv[k] = r * dir[k];
        xv[3 + k] = v * vdir[k];
    }
    xv[6] = mass_each;
}

static void sample_disk(const SceneGalaxy *g, SceneRng *rng, double mass_each, double *xv)
{
    double R = disk_radius_at_fraction(g, scene_rng_uniform(rng));
    double phi = 2.0 * SCENE_PI * scene_rng_uniform(rng);
    double u = scene_rng_uniform(rng);
    u = u < 1e-9 ? 1e-9 : (u > 1.0 - 1e-9 ? 1.0 - 1e-9 : u);
    double z = g->disk_height * atanh(2.0 * u - 1.0);

    double Rs = R > 1e-3 ? R : 1e-3;
    double vc2 = scene_galaxy_vc2(g, Rs), omega2 = vc2 / (Rs * Rs);
    double ratio = kappa2(g, Rs) / (4.0 * omega2); /* sigma_phi^2 / sigma_R^2, epicyclic */
    ratio = ratio < 0 ? 0 : (ratio > 1 ? 1 : ratio);
    double sigma_r = g->sigma_r0 * exp(-0.5 * R);
    /* Hold the dispersion under half the circular speed: the epicyclic picture fails near the
     * centre, where the Q-based dispersion would exceed the rotation itself. */
    if (sigma_r * sigma_r > 0.25 * vc2) sigma_r = 0.5 * sqrt(vc2);
    double sigma_z = sqrt(SCENE_PI * disk_surface_density(g, R) * g->disk_height);
    /* Asymmetric drift for rho and sigma_R^2 both falling as exp(-R). */
    double vphi2 = vc2 + sigma_r * sigma_r * (1.0 - ratio - 2.0 * R);
    double vphi = (vphi2 > 0 ? sqrt(vphi2) : 0.0) + sqrt(ratio) * sigma_r * scene_rng_normal(rng);
    double vr = sigma_r * scene_rng_normal(rng), vz = sigma_z * scene_rng_normal(rng);

    double c = cos(phi), s = sin(phi);
    xv[0] = R * c;
    xv[1] = R * s;
    xv[2] = z;
    xv[3] = vr * c - vphi * s;
    xv[4] = vr * s + vphi * c;
    xv[5] = vz;
    xv[6] = mass_each;
}

void scene_galaxy_sample_range(const SceneGalaxy *g, int nd, int nb, int nh, int galaxy, SceneRng *rng, int first,
                               int count, double *xv, uint8_t *tags)
{
    for (int j = 0; j < count; j++) {
        int i = first + j;
        double *p = xv + 7 * (size_t)j;
        uint8_t *t = tags + j;
        if (i < nd) {
            sample_disk(g, rng, g->disk_mass / nd, p);
            *t = BODY_TAG(galaxy, BODY_DISK);
        } else if (i < nd + nb) {
            sample_spherical(g, rng, &g->bulge, g->bulge.mass / nb, p);
            *t = BODY_TAG(galaxy, BODY_BULGE);
        } else {
            sample_spherical(g, rng, &g->halo, g->halo.mass / nh, p);
            *t = BODY_TAG(galaxy, BODY_HALO);
        }
    }
}

void scene_galaxy_sample(const SceneGalaxy *g, int nd, int nb, int nh, int galaxy, SceneRng *rng,
                         double *xv, uint8_t *tags)
{
    int n = nd + nb + nh;
    scene_galaxy_sample_range(g, nd, nb, nh, galaxy, rng, 0, n, xv, tags);
    double m = 0, c[6] = {0};
    for (int i = 0; i < n; i++) {
        const double *p = xv + 7 * (size_t)i;
        m += p[6];
        for (int k = 0; k < 6; k++) c[k] += p[6] * p[k];
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 6; k++) xv[7 * (size_t)i + k] -= c[k] / m;
}
