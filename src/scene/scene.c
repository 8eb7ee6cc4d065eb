/* Initial conditions. Every scene draws from its own seeded xoshiro stream in a fixed order, in
 * double precision, and ends recentred (centre of mass at the origin, at rest), so a SceneDesc
 * gives the same bodies bit for bit. G = 1 throughout. One file for the built and the read scenes
 * alike: the TIPSY scenes (rescaled, rotated, set on the same parabolic orbits) share placing,
 * orbits and recentring with the built ones, and galaxy.c holds the one model both sample. */
#include "scene/scene.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"
#include "scene/tipsy.h"
#include "util/params.h"

#define SCENE_DEFAULT_N 16384

/* Collision and disk, in disk scale lengths. The softening is below the disk's scale height
 * (0.1) and a fifth of the bulge's half-mass radius. */
#define GALAXY_SOFTENING 0.08
#define GALAXY_STEPS_PER_PERIOD 400.0

static const char *const scene_names[SCENE_COUNT] = {
    [SCENE_COLLISION] = "collision",
    [SCENE_DISK] = "disk",
    [SCENE_PLUMMER] = "plummer",
    [SCENE_SHELL] = "shell",
    [SCENE_RANDOM] = "random",
    [SCENE_TIPSY] = "tipsy",
    [SCENE_TIPSY_COLLIDE] = "tipsy-collide",
};

const char *scene_name(SceneKind kind)
{
    return (kind >= 0 && kind < SCENE_COUNT) ? scene_names[kind] : "?";
}

static const char *const halo_names[SCENE_HALO_COUNT] = {
    [SCENE_HALO_DEFAULT] = "default",
    [SCENE_HALO_FIELD] = "field",
    [SCENE_HALO_LIVE] = "live",
};

const char *scene_halo_name(SceneHalo h) { return (h >= 0 && h < SCENE_HALO_COUNT) ? halo_names[h] : "?"; }

int scene_halo_from_name(const char *name)
{
    for (int k = SCENE_HALO_FIELD; k < SCENE_HALO_COUNT; k++)
        if (name && strcmp(name, halo_names[k]) == 0) return k;
    return -1;
}

int scene_has_halos(SceneKind kind) { return kind == SCENE_COLLISION || kind == SCENE_DISK; }

/* The centre bodies a resolved scene adds after its n stars: one a galaxy with field halos. */
static int scene_halo_centres(const SceneDesc *d)
{
    if (d->halo != SCENE_HALO_FIELD) return 0;
    return d->kind == SCENE_COLLISION ? 2 : 1;
}

int scene_min_bodies(SceneKind kind)
{
    return kind == SCENE_COLLISION ? 6 : kind == SCENE_DISK ? 3 : kind == SCENE_TIPSY_COLLIDE ? 2 : 1;
}

int scene_check_bodies(SceneKind kind, int n, char *err, size_t errlen)
{
    const int least = scene_min_bodies(kind);
    if (n >= least) return 0;
    snprintf(err, errlen, "-n %d: the %s scene needs at least %d bodies", n, scene_name(kind), least);
    return -1;
}

int scene_from_name(const char *name)
{
    for (int k = 0; k < SCENE_COUNT; k++)
        if (name && strcmp(name, scene_names[k]) == 0) return k;
    return -1;
}

static double sq(double x)
{
    return x * x;
}

/* The largest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k not above x: steps people can read. */
static double round_step(double x)
{
    double p = pow(10.0, floor(log10(x))), steps[] = {8, 6, 5, 4, 3, 2.5, 2, 1.5, 1};
    for (int i = 0; i < 9; i++)
        if (steps[i] * p <= x) return steps[i] * p;
    return p;
}

/* Writes bodies [first, first + n) from xv (7 doubles a body) as floats. */
static void store(Bodies *out, int first, int n, const double *xv, const uint8_t *tags)
{
    for (int i = 0; i < n; i++) {
        const double *p = xv + 7 * (size_t)i;
        float *x = out->pos + 4 * (size_t)(first + i), *v = out->vel + 4 * (size_t)(first + i);
        for (int k = 0; k < 3; k++) {
            x[k] = (float)p[k];
            v[k] = (float)p[3 + k];
        }
        x[3] = (float)p[6];
        v[3] = 0.0f;
        out->tag[first + i] = tags[i];
    }
}

/* Scales lengths by L, masses by M (velocities by sqrt(M / L)), tilts by incl about the x axis,
 * then moves to (x0, v0). */
static void place(double *xv, int n, double L, double M, double incl, const double x0[3], const double v0[3])
{
    double vs = sqrt(M / L), c = cos(incl), s = sin(incl);
    for (int i = 0; i < n; i++) {
        double *p = xv + 7 * (size_t)i;
        for (int k = 0; k < 3; k++) {
            p[k] *= L;
            p[3 + k] *= vs;
        }
        p[6] *= M;
        for (int o = 0; o < 6; o += 3) {
            double y = p[o + 1], z = p[o + 2];
            p[o + 1] = c * y - s * z;
            p[o + 2] = s * y + c * z;
        }
        for (int k = 0; k < 3; k++) {
            p[k] += x0[k];
            p[3 + k] += v0[k];
        }
    }
}

/* Relative position and velocity (B - A) of two point masses of total mass m on a parabola with
 * pericentre q, at distance r0 before pericentre, orbiting counter-clockwise in the xy plane. */
/* Position and velocity in the xy plane at distance r0 and true anomaly f (cos, sin given), from
 * the radial and tangential speeds. */
static void orbit_state(double r0, double cf, double sf, double vr, double vt, double x[3], double v[3])
{
    x[0] = r0 * cf;
    x[1] = r0 * sf;
    x[2] = 0.0;
    v[0] = vr * cf - vt * sf;
    v[1] = vr * sf + vt * cf;
    v[2] = 0.0;
}

static void parabolic_orbit(double m, double q, double r0, double x[3], double v[3])
{
    double cf = 2.0 * q / r0 - 1.0;
    cf = cf < -1 ? -1 : (cf > 1 ? 1 : cf);
    double f = -acos(cf), sf = sin(f), h = sqrt(m / (2.0 * q));
    orbit_state(r0, cf, sf, h * sf, h * (1.0 + cf), x, v);
}

/* Time from distance r0 to pericentre q on a parabola about mass m (Barker's equation). */
static double parabolic_time_to_pericentre(double m, double q, double r0)
{
    double cf = 2.0 * q / r0 - 1.0;
    cf = cf < -1 ? -1 : (cf > 1 ? 1 : cf);
    double d = tan(0.5 * acos(cf));
    return sqrt(2.0 * q * q * q / m) * (d + d * d * d / 3.0);
}

/* The conic of eccentricity e with pericentre q: as parabolic_orbit, for an ellipse (e < 1, r0 at
 * most the apocentre) or a hyperbola (e > 1). With p = q (1 + e) the semi-latus rectum,
 * r = p / (1 + e cos f), v_r = sqrt(m / p) e sin f and v_t = sqrt(m / p) (1 + e cos f). */
static void conic_orbit(double m, double q, double e, double r0, double x[3], double v[3])
{
    if (e == 1.0) {
        parabolic_orbit(m, q, r0, x, v);
        return;
    }
    double p = q * (1.0 + e), cf = (p / r0 - 1.0) / e;
    cf = cf < -1 ? -1 : (cf > 1 ? 1 : cf);
    double f = -acos(cf), sf = sin(f), k = sqrt(m / p);
    orbit_state(r0, cf, sf, k * e * sf, k * (1.0 + e * cf), x, v);
}

/* Time from distance r0 to pericentre on the conic of conic_orbit: Kepler's equation for the
 * ellipse (M = E - e sin E) and the hyperbola (M = e sinh H - H), Barker's for the parabola. */
static double conic_time_to_pericentre(double m, double q, double e, double r0)
{
    if (e == 1.0) return parabolic_time_to_pericentre(m, q, r0);
    double a = q / fabs(1.0 - e), mean;
    if (e < 1.0) {
        double c = (1.0 - r0 / a) / e;
        c = c < -1 ? -1 : (c > 1 ? 1 : c);
        double E = acos(c);
        mean = E - e * sin(E);
    } else {
        double c = (1.0 + r0 / a) / e, H = acosh(c < 1 ? 1 : c);
        mean = e * sinh(H) - H;
    }
    return mean * sqrt(a * a * a / m);
}

/* Turns a vector in the orbital plane by angle (radians) about z. */
static void turn_z(double angle, double x[3])
{
    double c = cos(angle), s = sin(angle), x0 = x[0];
    x[0] = c * x0 - s * x[1];
    x[1] = s * x0 + c * x[1];
}

/* Puts galaxies of masses ma and mb on the conic about their common centre of mass, its pericentre
 * turned by angle from the x axis. The orbit counts each galaxy's mass inside the separation,
 * m_orbit: a halo reaching far beyond it (the TIPSY galaxy's reaches 300) pulls little at first,
 * and counting it all would start the pair faster than their overlapping halos can hold. */
static void place_pair(double ma, double mb, double m_orbit, double q, double e, double angle, double r0,
                       double xa[3], double va[3], double xb[3], double vb[3])
{
    double x[3], v[3];
    conic_orbit(m_orbit, q, e, r0, x, v);
    if (angle != 0) {
        turn_z(angle, x);
        turn_z(angle, v);
    }
    for (int k = 0; k < 3; k++) {
        xa[k] = -mb / (ma + mb) * x[k];
        va[k] = -mb / (ma + mb) * v[k];
        xb[k] = ma / (ma + mb) * x[k];
        vb[k] = ma / (ma + mb) * v[k];
    }
}

/* Splits n bodies of a galaxy into disk, bulge and halo: disk and bulge bodies weigh the same,
 * halo bodies halo_factor times more. Each component keeps at least one body. */
static void galaxy_counts(const SceneGalaxy *g, int n, double halo_factor, int c[3])
{
    if (!(halo_factor > 0)) { /* a field halo: every body a star */
        c[1] = (int)lround(n * g->bulge.mass / (g->disk_mass + g->bulge.mass));
        if (c[1] < 1) c[1] = 1;
        if (c[1] > n - 1) c[1] = n - 1;
        c[0] = n - c[1];
        c[2] = 0;
        return;
    }
    double w[3] = {g->disk_mass, g->bulge.mass, g->halo.mass / halo_factor};
    double wsum = w[0] + w[1] + w[2];
    c[1] = (int)lround(n * w[1] / wsum);
    c[2] = (int)lround(n * w[2] / wsum);
    if (c[1] < 1) c[1] = 1;
    if (c[2] < 1) c[2] = 1;
    c[0] = n - c[1] - c[2];
    while (c[0] < 1) {
        if (c[2] >= c[1]) c[2]--;
        else c[1]--;
        c[0]++;
    }
}

/* The step for a galaxy: a 400th of its rotation period at the half-mass radius, and at most a
 * third of the time to cross the softening length at the peak circular speed (the bound that
 * holds where the softening is small beside the bulge, as in galaxy_20K.bin), rounded down. For
 * the built-in galaxy that is 0.03 (its period at the half-mass radius is 13.9, 117 Myr, so the
 * first bound rules); galaxy_20K.bin gets 0.025, where a 400th of its period (0.08) lost 2e-4 of
 * the energy. */
static double galaxy_step(double period, double softening, double vmax)
{
    double a = period / GALAXY_STEPS_PER_PERIOD, b = softening / (3.0 * vmax);
    return round_step(a < b ? a : b);
}

/* Rotation period at the half-mass radius of the disk, and the peak circular speed. */
static double galaxy_period(const SceneGalaxy *g, double *vmax)
{
    double rh = scene_galaxy_disk_half_mass_radius(g);
    *vmax = 0;
    for (double R = 0.01; R <= g->disk_cut; R += 0.01) {
        double v = sqrt(scene_galaxy_vc2(g, R));
        if (v > *vmax) *vmax = v;
    }
    return 2.0 * SCENE_PI * rh / sqrt(scene_galaxy_vc2(g, rh));
}

/* The Milky Way's scale for galaxy A (scene.h): its disk scale length is 2.6 kpc and its circular
 * speed at the Sun's radius, 8.2 kpc, is 238 km/s. It is a constant of the model, worked out once
 * a process: a start reads it for every entry of the presets file, and each working-out builds the
 * galaxy's tables (16 ms; 114 of them took 1.8 s of a 2.2 s start). */
static int milky_way_units(Units *u)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static Units known;
    static bool have;
    pthread_mutex_lock(&lock);
    if (!have) {
        SceneGalaxy *g = malloc(sizeof *g);
        if (!g) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
        GalaxyModel mw = scene_galaxy_defaults();
        scene_galaxy_init(g, &mw, GALAXY_SOFTENING / mw.disk_scale);
        double vc = sqrt(scene_galaxy_vc2(g, UNITS_MW_R0_KPC / UNITS_MW_DISK_SCALE_KPC));
        known = units_from(UNITS_MW_DISK_SCALE_KPC, UNITS_MW_VC0_KMS / vc);
        have = true;
        free(g);
    }
    *u = known;
    pthread_mutex_unlock(&lock);
    return 0;
}

Units scene_units(SceneKind kind)
{
    Units u = {0, 0, 0, 0};
    if (kind == SCENE_COLLISION || kind == SCENE_DISK) milky_way_units(&u);
    return u;
}

/* A galaxy's model with its zero fields filled: galaxy A's from the defaults, galaxy B's from A's
 * scaled by the mass ratio q (masses times q, lengths times sqrt(q)). */
static GalaxyModel galaxy_model(const SceneDesc *d, int which)
{
    GalaxyModel base = scene_galaxy_defaults(), m = d->galaxy[which];
    if (which == 1) {
        GalaxyModel a = galaxy_model(d, 0);
        float q = d->mass_ratio > 0 ? d->mass_ratio : 1.0f, l = sqrtf(q);
        base = a;
        base.disk_mass *= q;
        base.bulge_mass *= q;
        base.halo_mass *= q;
        base.disk_scale *= l;
        base.disk_height *= l;
        base.bulge_scale *= l;
        base.halo_scale *= l;
        base.halo_cut *= l;
    }
    float *f = &m.disk_mass, *b = &base.disk_mass;
    for (size_t k = 0; k < sizeof m / sizeof(float); k++)
        if (!(f[k] > 0)) f[k] = b[k];
    return m;
}

static double galaxy_model_mass(const GalaxyModel *m)
{
    return (double)m->disk_mass + m->bulge_mass + m->halo_mass;
}

/* Mass of a galaxy's model within radius r of its centre (model units). */
static int galaxy_model_mass_inside(const GalaxyModel *m, double r, double *mass)
{
    SceneGalaxy *g = malloc(sizeof *g);
    if (!g) return -1;
    scene_galaxy_init(g, m, GALAXY_SOFTENING / m->disk_scale);
    *mass = scene_galaxy_mass_inside(g, r / m->disk_scale) * m->disk_mass;
    free(g);
    return 0;
}

/* Draws one galaxy of the given model, tilted and placed, into out from body `first`; gives its
 * rotation period and step. halo_factor 0: a field halo, no halo bodies (halo_centre places it). */
static int galaxy_into(Bodies *out, int first, int n, int galaxy, const GalaxyModel *model, double incl,
                       const double x0[3], const double v0[3], double halo_factor, SceneRng *rng,
                       double *period, double *step, char *err, size_t errlen)
{
    double L = model->disk_scale, M = model->disk_mass;
    SceneGalaxy *g = malloc(sizeof *g);
    double *xv = malloc(7 * sizeof(double) * (size_t)n);
    uint8_t *tags = malloc((size_t)n);
    if (!g || !xv || !tags) {
        free(g);
        free(xv);
        free(tags);
        snprintf(err, errlen, "scene: out of memory for %d bodies", n);
        return -1;
    }
    scene_galaxy_init(g, model, GALAXY_SOFTENING / L);
    int c[3];
    galaxy_counts(g, n, halo_factor, c);
    scene_galaxy_sample(g, c[0], c[1], c[2], galaxy, rng, xv, tags);
    place(xv, n, L, M, incl, x0, v0);
    store(out, first, n, xv, tags);
    double vmax, p = galaxy_period(g, &vmax);
    *period = p * sqrt(L * L * L / M);
    *step = galaxy_step(*period, GALAXY_SOFTENING, vmax * sqrt(M / L));
    free(g);
    free(xv);
    free(tags);
    return 0;
}

float scene_halo_ln_lambda(float pericentre)
{
    if (!(pericentre > 0)) return SCENE_HALO_LN_LAMBDA;
    const float q = pericentre < SCENE_HALO_Q_NEAR ? SCENE_HALO_Q_NEAR
                    : pericentre > SCENE_HALO_Q_FAR ? SCENE_HALO_Q_FAR
                                                    : pericentre;
    return SCENE_HALO_LN_LAMBDA + SCENE_HALO_LN_LAMBDA_SLOPE * (3.0f - q);
}

/* A field halo of galaxy `which` (model, at x0 moving at v0): its centre is body out->n - count +
 * which, its profile goes into info->halos; the friction's Coulomb logarithm is the pair's of
 * pericentre q (0 for one galaxy). */
static int halo_centre(Bodies *out, SceneInfo *info, int which, int count, const GalaxyModel *m, const double x0[3],
                       const double v0[3], float q, char *err, size_t errlen)
{
    SimHalo *h = &info->halos.halo[which];
    if (sim_halo_profile(h, m->halo_mass, m->halo_scale, SCENE_GALAXY_TAPER * m->halo_cut, m->halo_cut) != 0) {
        snprintf(err, errlen, "scene: galaxy %c: a halo of mass %g, scale %g and cut %g cannot be a field",
                 'A' + which, m->halo_mass, m->halo_scale, m->halo_cut);
        return -1;
    }
    const int i = out->n - count + which;
    for (int k = 0; k < 3; k++) {
        out->pos[4 * i + k] = (float)x0[k];
        out->vel[4 * i + k] = (float)v0[k];
    }
    out->pos[4 * i + 3] = h->mass;
    out->vel[4 * i + 3] = 0;
    out->tag[i] = BODY_TAG(which, BODY_HALO);
    info->halos.count = count;
    info->halos.ln_lambda = scene_halo_ln_lambda(q);
    return 0;
}

/* Halo body mass over disk body mass as galaxy_into takes it: 0 for field halos. */
static double halo_factor(const SceneDesc *d) { return d->halo == SCENE_HALO_FIELD ? 0.0 : d->halo_mass_factor; }

static int build_disk(const SceneDesc *d, Bodies *out, SceneInfo *info, char *err, size_t errlen)
{
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    double zero[3] = {0, 0, 0}, period, step;
    GalaxyModel model = galaxy_model(d, 0);
    if (galaxy_into(out, 0, d->n, 0, &model, 0.0, zero, zero, halo_factor(d), &rng, &period, &step, err, errlen) != 0)
        return -1;
    if (d->halo == SCENE_HALO_FIELD && halo_centre(out, info, 0, 1, &model, zero, zero, 0, err, errlen) != 0) return -1;
    info->softening = GALAXY_SOFTENING;
    info->dt = (float)step;
    info->extent = 6.0f;
    info->period = (float)period;
    if (milky_way_units(&info->units) != 0) {
        snprintf(err, errlen, "scene: out of memory");
        return -1;
    }
    return 0;
}

/* The isolated disk is as thin and cool as its stars can hold for a Gyr. From SCENE_THIN_DISK_STARS
 * stars it is the Milky Way's thin disk (scale height 0.1 R_d, 260 pc; Q 1.0), which grows spiral arms
 * from its own noise within 400 Myr; below, where the noise of 16,384 stars thickens such a disk
 * by half in a Gyr, it is built as the collision's galaxies are (0.2 R_d, Q 1.3), which thickens by a
 * tenth (docs/GALAXIES.md, "Spiral arms at a million bodies"). Stars are every body with field
 * halos, the disk's and bulge's share of them with live ones. A value the caller gave is kept. */
static void disk_for_its_stars(SceneDesc *d, long long n)
{
    if (d->kind != SCENE_DISK) return;
    GalaxyModel *g = &d->galaxy[0], m = galaxy_model(d, 0);
    double stars = (double)n;
    if (d->halo != SCENE_HALO_FIELD) {
        double seen = (double)m.disk_mass + m.bulge_mass;
        stars = n * seen / (seen + m.halo_mass / d->halo_mass_factor);
    }
    if (stars < SCENE_THIN_DISK_STARS) return;
    if (!(g->disk_height > 0)) g->disk_height = SCENE_THIN_DISK_HEIGHT * m.disk_scale;
    if (!(g->toomre_q > 0)) g->toomre_q = SCENE_THIN_DISK_Q;
}

static int resolve(const SceneDesc *in, SceneDesc *d, char *err, size_t errlen);

/* Where the collision's galaxies start: their models, body counts and orbit. */
typedef struct CollisionPlan {
    GalaxyModel ga, gb;
    long long na, nb;
    double xa[3], va[3], xb[3], vb[3];
    double m_orbit, q, r0, lb;
} CollisionPlan;

/* Galaxy B is galaxy A scaled to mass_ratio times its mass, its size growing as sqrt(mass): the
 * same surface density (Freeman's law), which with M ~ v^4 (Tully-Fisher) makes R ~ M^(1/2). */
static int collision_plan(const SceneDesc *d, long long n, CollisionPlan *p, char *err, size_t errlen)
{
    p->ga = galaxy_model(d, 0);
    p->gb = galaxy_model(d, 1);
    double ma = galaxy_model_mass(&p->ga), mb = galaxy_model_mass(&p->gb), ia, ib;
    p->lb = p->gb.disk_scale / p->ga.disk_scale;
    p->r0 = d->separation * p->ga.disk_scale;
    if (galaxy_model_mass_inside(&p->ga, p->r0, &ia) != 0 || galaxy_model_mass_inside(&p->gb, p->r0, &ib) != 0) {
        snprintf(err, errlen, "scene: out of memory");
        return -1;
    }
    p->m_orbit = ia + ib;
    p->q = d->pericentre * p->ga.disk_scale;

    /* Bodies shared in proportion to the galaxies' masses. */
    p->nb = llround(n * mb / (ma + mb));
    if (p->nb < 3) p->nb = 3;
    if (p->nb > n - 3) p->nb = n - 3;
    p->na = n - p->nb;
    place_pair(ma, mb, p->m_orbit, p->q, d->eccentricity, d->pericentre_angle * (SCENE_PI / 180.0), p->r0, p->xa, p->va,
               p->xb, p->vb);
    return 0;
}

static void collision_info(const SceneDesc *d, const CollisionPlan *p, double pa, double sa, double sb, SceneInfo *info)
{
    info->softening = GALAXY_SOFTENING;
    info->dt = (float)(sa < sb ? sa : sb);
    double ra = sqrt(sq(p->xa[0]) + sq(p->xa[1])), rb = sqrt(sq(p->xb[0]) + sq(p->xb[1]));
    info->extent = (float)((ra > rb ? ra : rb) + 4.0 * (p->lb > 1 ? p->gb.disk_scale : p->ga.disk_scale));
    info->period = (float)pa;
    info->pericentre_time = (float)conic_time_to_pericentre(p->m_orbit, p->q, d->eccentricity, p->r0);
}

static int build_collision(const SceneDesc *d, Bodies *out, SceneInfo *info, char *err, size_t errlen)
{
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    CollisionPlan p;
    if (collision_plan(d, d->n, &p, err, errlen) != 0) return -1;
    int na = (int)p.na, nb = (int)p.nb;
    double deg = SCENE_PI / 180.0, pa, pb, sa, sb;
    if (galaxy_into(out, 0, na, 0, &p.ga, d->inclination_a * deg, p.xa, p.va, halo_factor(d), &rng, &pa, &sa, err,
                    errlen) != 0 ||
        galaxy_into(out, na, nb, 1, &p.gb, d->inclination_b * deg, p.xb, p.vb, halo_factor(d), &rng, &pb, &sb, err,
                    errlen) != 0)
        return -1;
    if (d->halo == SCENE_HALO_FIELD && (halo_centre(out, info, 0, 2, &p.ga, p.xa, p.va, d->pericentre, err, errlen) != 0 ||
                                        halo_centre(out, info, 1, 2, &p.gb, p.xb, p.vb, d->pericentre, err, errlen) != 0))
        return -1;
    collision_info(d, &p, pa, sa, sb, info);
    if (milky_way_units(&info->units) != 0) {
        snprintf(err, errlen, "scene: out of memory");
        return -1;
    }
    return 0;
}

/* galaxy_into in pieces of at most chunk bodies handed to fn: the galaxy is drawn twice from the
 * same random state, first for its centre of mass, then for its bodies, so that no more than a
 * piece is ever held; the bodies are those galaxy_into draws. */
static int galaxy_stream(long long n, int galaxy, const GalaxyModel *model, double incl, const double x0[3],
                         const double v0[3], double halo_factor, SceneRng *rng, int chunk, SceneChunkFn fn, void *user,
                         double *period, double *step, char *err, size_t errlen)
{
    double L = model->disk_scale, M = model->disk_mass;
    SceneGalaxy *g = malloc(sizeof *g);
    double *xv = malloc(7 * sizeof(double) * (size_t)chunk);
    uint8_t *tags = malloc((size_t)chunk);
    Bodies b = {0};
    if (!g || !xv || !tags || bodies_alloc(&b, chunk) != 0) {
        free(g);
        free(xv);
        free(tags);
        snprintf(err, errlen, "scene: out of memory for a piece of %d bodies", chunk);
        return -1;
    }
    scene_galaxy_init(g, model, GALAXY_SOFTENING / L);
    int c[3], rc = 0;
    galaxy_counts(g, (int)n, halo_factor, c);
    SceneRng start = *rng;
    double m = 0, centre[6] = {0};
    /* The first pass hands fn an empty piece after each of its own, so that a caller can stop
     * it (a signal): 10 million bodies take many seconds to draw before the first is handed. */
    for (int first = 0; first < n && rc == 0; first += chunk) {
        int count = n - first < chunk ? (int)(n - first) : chunk;
        scene_galaxy_sample_range(g, c[0], c[1], c[2], galaxy, rng, first, count, xv, tags);
        for (int i = 0; i < count; i++) {
            const double *p = xv + 7 * (size_t)i;
            m += p[6];
            for (int k = 0; k < 6; k++) centre[k] += p[6] * p[k];
        }
        b.n = 0;
        rc = fn(user, &b, err, errlen);
    }
    *rng = start;
    for (int first = 0; first < n && rc == 0; first += chunk) {
        int count = n - first < chunk ? (int)(n - first) : chunk;
        scene_galaxy_sample_range(g, c[0], c[1], c[2], galaxy, rng, first, count, xv, tags);
        for (int i = 0; i < count; i++)
            for (int k = 0; k < 6; k++) xv[7 * (size_t)i + k] -= centre[k] / m;
        place(xv, count, L, M, incl, x0, v0);
        b.n = count;
        store(&b, 0, count, xv, tags);
        rc = fn(user, &b, err, errlen);
    }
    double vmax, p = galaxy_period(g, &vmax);
    *period = p * sqrt(L * L * L / M);
    *step = galaxy_step(*period, GALAXY_SOFTENING, vmax * sqrt(M / L));
    b.n = chunk;
    bodies_free(&b);
    free(g);
    free(xv);
    free(tags);
    return rc;
}

int scene_stream(const SceneDesc *desc, long long n, int chunk, SceneChunkFn fn, void *user, SceneInfo *info,
                 char *err, size_t errlen)
{
    SceneDesc d;
    memset(info, 0, sizeof *info);
    SceneDesc small = *desc;
    small.n = 0;
    if (resolve(&small, &d, err, errlen) != 0) return -1;
    disk_for_its_stars(&d, n);
    if (d.kind != SCENE_COLLISION && d.kind != SCENE_DISK) {
        snprintf(err, errlen, "scene: %s cannot be built in pieces: only collision and disk can", scene_names[d.kind]);
        return -1;
    }
    long long least = scene_min_bodies(d.kind);
    if (n < least || n > INT32_MAX) {
        snprintf(err, errlen, "scene: %s: %lld bodies: expected %lld to %d", scene_names[d.kind], n, least, INT32_MAX);
        return -1;
    }
    if (chunk <= 0) chunk = 1 << 20;
    SceneRng rng;
    scene_rng_seed(&rng, d.seed);
    double deg = SCENE_PI / 180.0, zero[3] = {0, 0, 0}, pa, pb, sa, sb;
    if (d.kind == SCENE_DISK) {
        GalaxyModel model = galaxy_model(&d, 0);
        if (galaxy_stream(n, 0, &model, 0.0, zero, zero, d.halo_mass_factor, &rng, chunk, fn, user, &pa, &sa, err,
                          errlen) != 0)
            return -1;
        info->softening = GALAXY_SOFTENING;
        info->dt = (float)sa;
        info->extent = 6.0f;
        info->period = (float)pa;
    } else {
        CollisionPlan p;
        if (collision_plan(&d, n, &p, err, errlen) != 0) return -1;
        if (galaxy_stream(p.na, 0, &p.ga, d.inclination_a * deg, p.xa, p.va, d.halo_mass_factor, &rng, chunk, fn, user,
                          &pa, &sa, err, errlen) != 0 ||
            galaxy_stream(p.nb, 1, &p.gb, d.inclination_b * deg, p.xb, p.vb, d.halo_mass_factor, &rng, chunk, fn, user,
                          &pb, &sb, err, errlen) != 0)
            return -1;
        collision_info(&d, &p, pa, sa, sb, info);
    }
    if (milky_way_units(&info->units) != 0) {
        snprintf(err, errlen, "scene: out of memory");
        return -1;
    }
    return 0;
}

/* Aarseth, Henon & Wielen (1974, A&A 37, 183) in Henon units: M = 1, E = -1/4, so the Plummer
 * scale is 3 pi / 16. Radii beyond the 99.9% mass sphere are not drawn (mkplummer's cut). */
static int build_plummer(const SceneDesc *d, Bodies *out, SceneInfo *info)
{
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    double a = 3.0 * SCENE_PI / 16.0, vscale = 1.0 / sqrt(a), m = 1.0 / d->n;
    for (int i = 0; i < d->n; i++) {
        double x = 0.999 * scene_rng_uniform_pos(&rng);
        double r = 1.0 / sqrt(pow(x, -2.0 / 3.0) - 1.0);
        double q, y;
        /* von Neumann rejection from g(q) = q^2 (1 - q^2)^(7/2), whose maximum is below 0.1. */
        do {
            q = scene_rng_uniform(&rng);
            y = 0.1 * scene_rng_uniform(&rng);
        } while (y > q * q * pow(1.0 - q * q, 3.5));
        double v = q * sqrt(2.0) * pow(1.0 + r * r, -0.25), dx[3], dv[3];
        scene_rng_direction(&rng, dx);
        scene_rng_direction(&rng, dv);
        for (int k = 0; k < 3; k++) {
            out->pos[4 * (size_t)i + k] = (float)(a * r * dx[k]);
            out->vel[4 * (size_t)i + k] = (float)(vscale * v * dv[k]);
        }
        out->pos[4 * (size_t)i + 3] = (float)m;
        out->tag[i] = BODY_TAG(0, BODY_OTHER);
    }
    info->softening = 0.05f;
    info->dt = 0.005f;
    info->extent = 4.0f;
    info->period = (float)(2.0 * sqrt(2.0)); /* crossing time GM^(5/2) / (2|E|)^(3/2) */
    return 0;
}

/* A shell of radius 1 and mass 1 turning as a solid body about z at half the circular speed: the
 * poles fall in, the equator holds, and it collapses into a flattened rotating system. A 3%
 * thickness keeps the bodies from arriving at the centre all at once. */
static int build_shell(const SceneDesc *d, Bodies *out, SceneInfo *info)
{
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    double omega = 0.5, m = 1.0 / d->n;
    for (int i = 0; i < d->n; i++) {
        double dir[3], r = 0.985 + 0.03 * scene_rng_uniform(&rng);
        scene_rng_direction(&rng, dir);
        double x = r * dir[0], y = r * dir[1], z = r * dir[2];
        float *p = out->pos + 4 * (size_t)i, *v = out->vel + 4 * (size_t)i;
        p[0] = (float)x;
        p[1] = (float)y;
        p[2] = (float)z;
        p[3] = (float)m;
        v[0] = (float)(-omega * y);
        v[1] = (float)(omega * x);
        out->tag[i] = BODY_TAG(0, BODY_OTHER);
    }
    info->softening = 0.05f;
    info->dt = 0.002f;
    info->extent = 1.5f;
    info->period = (float)(0.5 * SCENE_PI); /* collapse of the shell in its own field, M / 2 */
    return 0;
}

/* A cold uniform ball of radius 1 and mass 1: the classic violent collapse. */
static int build_random(const SceneDesc *d, Bodies *out, SceneInfo *info)
{
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    double m = 1.0 / d->n;
    for (int i = 0; i < d->n; i++) {
        double dir[3], r = cbrt(scene_rng_uniform(&rng));
        scene_rng_direction(&rng, dir);
        for (int k = 0; k < 3; k++) out->pos[4 * (size_t)i + k] = (float)(r * dir[k]);
        out->pos[4 * (size_t)i + 3] = (float)m;
        out->tag[i] = BODY_TAG(0, BODY_OTHER);
    }
    info->softening = 0.05f;
    info->dt = 0.001f; /* the collapse peaks at t ~ 1.1; 0.002 lost 0.2% of the energy there */
    info->extent = 1.5f;
    info->period = (float)(0.5 * SCENE_PI * sqrt(0.5)); /* free fall, pi/2 sqrt(R^3 / 2GM) */
    return 0;
}

/* Sizes of a galaxy read from a file, measured on its stars (all bodies when it has none). */
typedef struct GalaxyScale {
    double spin[3][3]; /* rotation taking the stars' angular momentum onto +z */
    double rh, r90;    /* radii holding half and 90% of the stellar mass */
    double rd;         /* exponential-disk scale length with the stars' cylindrical half-mass radius */
    double period;     /* rotation period at rh */
} GalaxyScale;

/* Mass within radius r of the origin. */
static double mass_inside(const Bodies *b, double r)
{
    double m = 0;
    for (int i = 0; i < b->n; i++) {
        const float *x = b->pos + 4 * (size_t)i;
        if (sq(x[0]) + sq(x[1]) + sq(x[2]) <= r * r) m += x[3];
    }
    return m;
}

/* Rodrigues' rotation taking the unit vector l onto +z. */
static void rotation_to_z(const double l[3], double m[3][3])
{
    double ax = l[1], ay = -l[0], s = sqrt(ax * ax + ay * ay), c = l[2];
    memset(m, 0, 9 * sizeof(double));
    if (s < 1e-12) {
        m[0][0] = 1;
        m[1][1] = c < 0 ? -1 : 1;
        m[2][2] = c < 0 ? -1 : 1;
        return;
    }
    ax /= s;
    ay /= s;
    double k[3] = {ax, ay, 0.0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m[i][j] = (i == j ? c : 0.0) + (1.0 - c) * k[i] * k[j];
    m[0][2] += s * ay;
    m[1][2] -= s * ax;
    m[2][0] -= s * ay;
    m[2][1] += s * ax;
}

/* Radii into rm, of the stars only where stars_only; cylindrical about axis, where given.
 * Returns how many. */
static int radii(const Bodies *b, int stars_only, const double axis[3], BodyRadius *rm)
{
    int k = 0;
    for (int i = 0; i < b->n; i++) {
        if (stars_only && BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO) continue;
        const float *x = b->pos + 4 * (size_t)i;
        double r2 = sq(x[0]) + sq(x[1]) + sq(x[2]);
        if (axis) r2 -= sq(axis[0] * x[0] + axis[1] * x[1] + axis[2] * x[2]);
        rm[k++] = (BodyRadius){sqrt(r2 > 0 ? r2 : 0), x[3]};
    }
    return k;
}

/* Measures a galaxy centred at the origin. */
static int galaxy_scale(const Bodies *b, GalaxyScale *gs)
{
    int n = b->n, stars_only = 0;
    for (int i = 0; i < n && !stars_only; i++) stars_only = BODY_TAG_COMPONENT(b->tag[i]) != BODY_HALO;
    BodyRadius *rm = malloc(sizeof *rm * (size_t)n);
    if (!rm) return -1;

    double l[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (stars_only && BODY_TAG_COMPONENT(b->tag[i]) == BODY_HALO) continue;
        const float *x = b->pos + 4 * (size_t)i, *v = b->vel + 4 * (size_t)i;
        l[0] += x[3] * ((double)x[1] * v[2] - (double)x[2] * v[1]);
        l[1] += x[3] * ((double)x[2] * v[0] - (double)x[0] * v[2]);
        l[2] += x[3] * ((double)x[0] * v[1] - (double)x[1] * v[0]);
    }
    double ln = sqrt(sq(l[0]) + sq(l[1]) + sq(l[2]));
    for (int k = 0; k < 3; k++) l[k] = ln > 0 ? l[k] / ln : (k == 2);
    rotation_to_z(l, gs->spin);

    int ns = radii(b, stars_only, gs->spin[2], rm);
    gs->rd = bodies_radius_holding(rm, ns, 0.5) / 1.678; /* an exponential disk's half-mass radius is 1.678 Rd */
    ns = radii(b, stars_only, NULL, rm);
    gs->r90 = bodies_radius_holding(rm, ns, 0.9);
    gs->rh = bodies_radius_holding(rm, ns, 0.5);

    double inside = mass_inside(b, gs->rh);
    gs->period = inside > 0 && gs->rh > 0 ? 2.0 * SCENE_PI * gs->rh / sqrt(inside / gs->rh) : 0.0;
    free(rm);
    return 0;
}

/* Peak circular speed sqrt(M(<r) / r) of a galaxy centred at the origin, over radii past the
 * softening (inside it the force stops growing). */
static double peak_speed(const Bodies *b, double softening)
{
    BodyRadius *rm = malloc(sizeof *rm * (size_t)b->n);
    if (!rm) return -1;
    int n = radii(b, 0, NULL, rm);
    bodies_sort_radii(rm, n);
    double m = 0, v2 = 0;
    for (int i = 0; i < n; i++) {
        m += rm[i].m;
        if (rm[i].r >= softening && m / rm[i].r > v2) v2 = m / rm[i].r;
    }
    free(rm);
    return sqrt(v2);
}

/* Keeps k of b's n bodies, drawn at random within each tag in proportion to its count, and
 * scales each tag's masses so that it keeps its total mass. */
static int subsample(const Bodies *b, int k, SceneRng *rng, Bodies *out)
{
    int n = b->n, count[256] = {0}, keep[256] = {0}, kept = 0;
    double mass[256] = {0}, rem[256] = {0};
    for (int i = 0; i < n; i++) {
        count[b->tag[i]]++;
        mass[b->tag[i]] += b->pos[4 * (size_t)i + 3];
    }
    for (int t = 0; t < 256; t++) {
        double share = (double)k * count[t] / n;
        keep[t] = (int)floor(share);
        rem[t] = share - keep[t];
        kept += keep[t];
    }
    while (kept < k) { /* largest remainders first, lowest tag on ties */
        int best = -1;
        for (int t = 0; t < 256; t++)
            if (keep[t] < count[t] && (best < 0 || rem[t] > rem[best])) best = t;
        keep[best]++;
        rem[best] = -1;
        kept++;
    }
    int *idx = malloc(sizeof(int) * (size_t)n);
    uint8_t *chosen = calloc((size_t)n, 1);
    if (!idx || !chosen || bodies_alloc(out, k) != 0) {
        free(idx);
        free(chosen);
        return -1;
    }
    for (int t = 0; t < 256; t++) {
        if (keep[t] == 0) continue;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (b->tag[i] == t) idx[m++] = i;
        for (int j = 0; j < keep[t]; j++) { /* partial Fisher-Yates */
            int r = j + (int)(scene_rng_uniform(rng) * (m - j));
            int tmp = idx[j];
            idx[j] = idx[r];
            idx[r] = tmp;
            chosen[idx[j]] = 1;
        }
    }
    double kept_mass[256] = {0};
    for (int i = 0; i < n; i++)
        if (chosen[i]) kept_mass[b->tag[i]] += b->pos[4 * (size_t)i + 3];
    for (int i = 0, j = 0; i < n; i++) {
        if (!chosen[i]) continue;
        memcpy(out->pos + 4 * (size_t)j, b->pos + 4 * (size_t)i, 4 * sizeof(float));
        memcpy(out->vel + 4 * (size_t)j, b->vel + 4 * (size_t)i, 4 * sizeof(float));
        double s = kept_mass[b->tag[i]] > 0 ? mass[b->tag[i]] / kept_mass[b->tag[i]] : 1.0;
        out->pos[4 * (size_t)j + 3] = (float)(b->pos[4 * (size_t)i + 3] * s);
        out->tag[j++] = b->tag[i];
    }
    free(idx);
    free(chosen);
    return 0;
}

/* Softening, step and view for a galaxy read from a file: the softening is the one the file's
 * model was made with, where it says (its eps), else a twentieth of the stellar half-mass radius
 * as for ours. Copy B of a collision has its periods and speeds scaled by q^(1/4). */
static int tipsy_info(const Bodies *b, const char *path, float file_softening, double q, GalaxyScale *gs,
                      SceneInfo *info, char *err, size_t errlen)
{
    if (galaxy_scale(b, gs) != 0) {
        snprintf(err, errlen, "scene: %s: out of memory", path);
        return -1;
    }
    double softening = file_softening > 0 ? file_softening : 0.05 * gs->rh;
    double vmax = peak_speed(b, softening);
    if (!(softening > 0 && gs->period > 0 && vmax > 0)) {
        snprintf(err, errlen, "scene: %s: its stars have no size to scale a run by", path);
        return -1;
    }
    double s = pow(q, 0.25), step_a = galaxy_step(gs->period, softening, vmax);
    double step_b = galaxy_step(gs->period * s, softening, vmax * s);
    info->softening = (float)softening;
    info->dt = (float)(step_a < step_b ? step_a : step_b);
    info->extent = (float)gs->r90;
    info->period = (float)gs->period;
    if (!(isfinite(info->dt) && info->dt > 0 && isfinite(info->softening) && isfinite(info->extent))) {
        snprintf(err, errlen, "scene: %s: its scale (half-mass radius %.3g) gives dt = %g and softening %g, "
                 "beyond what a float holds", path, gs->rh, info->dt, info->softening);
        return -1;
    }
    /* What the run would take and save must be what a run and a save take (the table's range):
     * masses of 1e-40 in model units suggest a step of 1e17, and a save of it would not load. */
    char why[300];
    if (params_check(PARAM_DT, info->dt, why, sizeof why) != 0 ||
        params_check(PARAM_SOFTENING, info->softening, why, sizeof why) != 0) {
        double mass = 0;
        for (int i = 0; i < b->n; i++) mass += b->pos[4 * (size_t)i + 3];
        snprintf(err, errlen, "scene: %s: what its bodies suggest is out of range (mass %.3g in all, half-mass "
                 "radius %.3g; a file in model units has G = 1): %s", path, mass, gs->rh, why);
        return -1;
    }
    return 0;
}

static int read_galaxy(const SceneDesc *d, Bodies *b, float *softening, char *err, size_t errlen)
{
    TipsyMeta meta;
    /* The reader refuses a body without mass (body_check.h): the total is above 0. */
    if (tipsy_read_meta(d->tipsy_path, b, &meta, err, errlen) != 0) return -1;
    *softening = meta.softening;
    bodies_recentre(b);
    return 0;
}

static int build_tipsy(const SceneDesc *d, Bodies *out, SceneInfo *info, char *err, size_t errlen)
{
    Bodies file;
    float eps;
    if (read_galaxy(d, &file, &eps, err, errlen) != 0) return -1;
    if (d->n > file.n) {
        snprintf(err, errlen, "scene: tipsy: n = %d, but %s holds %d bodies", d->n, d->tipsy_path, file.n);
        bodies_free(&file);
        return -1;
    }
    if (d->n == 0 || d->n == file.n) {
        *out = file;
    } else {
        SceneRng rng;
        scene_rng_seed(&rng, d->seed);
        int rc = subsample(&file, d->n, &rng, out);
        bodies_free(&file);
        if (rc != 0) {
            snprintf(err, errlen, "scene: tipsy: out of memory for %d bodies", d->n);
            return -1;
        }
        bodies_recentre(out);
    }
    GalaxyScale gs;
    if (tipsy_info(out, d->tipsy_path, eps, 1.0, &gs, info, err, errlen) != 0) {
        bodies_free(out);
        return -1;
    }
    return 0;
}

/* One copy of the file's galaxy: turned so its stars spin about +z, scaled, tilted, placed. */
static int tipsy_copy(const Bodies *file, const GalaxyScale *gs, int n, int galaxy, double L, double M,
                      double incl, const double x0[3], const double v0[3], SceneRng *rng, Bodies *out, int first)
{
    Bodies sub;
    const Bodies *src = file;
    if (n < file->n) {
        if (subsample(file, n, rng, &sub) != 0) return -1;
        src = &sub;
    }
    double *xv = malloc(7 * sizeof(double) * (size_t)n);
    uint8_t *tags = malloc((size_t)n);
    if (!xv || !tags) {
        free(xv);
        free(tags);
        if (src == &sub) bodies_free(&sub);
        return -1;
    }
    double c[6] = {0}, m = 0;
    for (int i = 0; i < n; i++) {
        const float *x = src->pos + 4 * (size_t)i, *v = src->vel + 4 * (size_t)i;
        double *p = xv + 7 * (size_t)i;
        for (int r = 0; r < 3; r++) {
            p[r] = gs->spin[r][0] * x[0] + gs->spin[r][1] * x[1] + gs->spin[r][2] * x[2];
            p[3 + r] = gs->spin[r][0] * v[0] + gs->spin[r][1] * v[1] + gs->spin[r][2] * v[2];
        }
        p[6] = x[3];
        m += p[6];
        for (int k = 0; k < 6; k++) c[k] += p[6] * p[k];
        tags[i] = BODY_TAG(galaxy, BODY_TAG_COMPONENT(src->tag[i]));
    }
    for (int i = 0; i < n; i++) /* a subsample's centre drifts a little off the file's */
        for (int k = 0; k < 6; k++) xv[7 * (size_t)i + k] -= m > 0 ? c[k] / m : 0;
    place(xv, n, L, M, incl, x0, v0);
    store(out, first, n, xv, tags);
    free(xv);
    free(tags);
    if (src == &sub) bodies_free(&sub);
    return 0;
}

static int build_tipsy_collide(const SceneDesc *d, Bodies *out, SceneInfo *info, char *err, size_t errlen)
{
    Bodies file;
    float eps;
    if (read_galaxy(d, &file, &eps, err, errlen) != 0) return -1;
    double q = d->mass_ratio;
    int na = file.n, nb = file.n;
    if (d->n > 0) {
        nb = (int)lround(d->n * q / (1.0 + q));
        nb = nb < 1 ? 1 : (nb > d->n - 1 ? d->n - 1 : nb);
        na = d->n - nb;
    }
    if (na > file.n || nb > file.n) {
        snprintf(err, errlen, "scene: tipsy-collide: n = %d needs %d bodies of one copy, but %s holds %d", d->n,
                 na > nb ? na : nb, d->tipsy_path, file.n);
        bodies_free(&file);
        return -1;
    }
    GalaxyScale gs;
    if (tipsy_info(&file, d->tipsy_path, eps, q, &gs, info, err, errlen) != 0) {
        bodies_free(&file);
        return -1;
    }
    if (bodies_alloc(out, na + nb) != 0) {
        bodies_free(&file);
        snprintf(err, errlen, "scene: tipsy-collide: out of memory for %d bodies", na + nb);
        return -1;
    }
    double ma = bodies_total_mass(&file), mb = q * ma, lb = sqrt(q), r0 = d->separation * gs.rd;
    double m_orbit = mass_inside(&file, r0) + q * mass_inside(&file, r0 / lb);
    double xa[3], va[3], xb[3], vb[3];
    double deg = SCENE_PI / 180.0;
    place_pair(ma, mb, m_orbit, d->pericentre * gs.rd, d->eccentricity, d->pericentre_angle * deg, r0, xa, va, xb,
               vb);
    SceneRng rng;
    scene_rng_seed(&rng, d->seed);
    int rc = tipsy_copy(&file, &gs, na, 0, 1.0, 1.0, d->inclination_a * deg, xa, va, &rng, out, 0);
    if (rc == 0) rc = tipsy_copy(&file, &gs, nb, 1, lb, q, d->inclination_b * deg, xb, vb, &rng, out, na);
    bodies_free(&file);
    if (rc != 0) {
        bodies_free(out);
        snprintf(err, errlen, "scene: tipsy-collide: out of memory for %d bodies", na + nb);
        return -1;
    }
    double ra = sqrt(sq(xa[0]) + sq(xa[1])), rb = sqrt(sq(xb[0]) + sq(xb[1]));
    info->extent = (float)((ra > rb ? ra : rb) + gs.r90 * (lb > 1 ? lb : 1));
    return 0;
}

/* The default separation of a built collision: the halos' edges two of A's disk scale lengths
 * apart, so that the galaxies start as two and the orbit starts with all of their mass. */
static float halos_apart(const SceneDesc *d)
{
    GalaxyModel a = galaxy_model(d, 0), b = galaxy_model(d, 1);
    return (a.halo_cut + b.halo_cut) / a.disk_scale + 2.0f;
}

int scene_orbit_from_velocity(const SceneDesc *d, double v_radial, double v_tangential, float *eccentricity,
                              float *pericentre, char *err, size_t errlen)
{
    if (!(v_radial < 0) || !(v_tangential > 0)) {
        snprintf(err, errlen, "scene: the orbit from velocities needs the pair approaching (radial speed %g below 0) "
                 "and moving across (tangential speed %g above 0)", v_radial, v_tangential);
        return -1;
    }
    GalaxyModel ga = galaxy_model(d, 0), gb = galaxy_model(d, 1);
    double r0 = (d->separation > 0 ? d->separation : halos_apart(d)) * ga.disk_scale, ia, ib;
    if (galaxy_model_mass_inside(&ga, r0, &ia) != 0 || galaxy_model_mass_inside(&gb, r0, &ib) != 0) {
        snprintf(err, errlen, "scene: out of memory");
        return -1;
    }
    /* The conic of build_collision's point masses through this state: with h = r0 v_t and
     * E = v^2 / 2 - m / r0, e^2 = 1 + 2 E h^2 / m^2 and q = h^2 / (m (1 + e)). */
    double m = ia + ib, h = r0 * v_tangential;
    double energy = 0.5 * (v_radial * v_radial + v_tangential * v_tangential) - m / r0;
    double e2 = 1.0 + 2.0 * energy * h * h / (m * m), e = sqrt(e2 > 0 ? e2 : 0);
    *eccentricity = (float)e;
    *pericentre = (float)(h * h / (m * (1.0 + e)) / ga.disk_scale);
    return 0;
}

/* Fills zero fields with defaults and checks the rest; names the field that is off. */
static int resolve(const SceneDesc *in, SceneDesc *d, char *err, size_t errlen)
{
    *d = *in;
    if (d->kind < 0 || d->kind >= SCENE_COUNT) {
        snprintf(err, errlen, "scene: unknown kind %d", (int)d->kind);
        return -1;
    }
    const char *name = scene_names[d->kind];
    int from_file = d->kind == SCENE_TIPSY || d->kind == SCENE_TIPSY_COLLIDE;
    int two = d->kind == SCENE_COLLISION || d->kind == SCENE_TIPSY_COLLIDE;
    if (d->seed == 0) d->seed = 1;
    if (d->n == 0 && !from_file) d->n = SCENE_DEFAULT_N;
    int least = scene_min_bodies(d->kind);
    if (d->n < 0 || (d->n > 0 && d->n < least)) {
        snprintf(err, errlen, "scene: %s: n = %d %s; it needs at least %d%s", name, d->n, d->n == 1 ? "body" : "bodies", least,
                 from_file ? " (or 0 for all the file holds)" : "");
        return -1;
    }
    if (d->n > SCENE_MAX_BODIES) {
        snprintf(err, errlen, "scene: %s: n = %d bodies, more than the %d a scene holds", name, d->n,
                 SCENE_MAX_BODIES);
        return -1;
    }
    if (from_file && (!d->tipsy_path || !d->tipsy_path[0])) {
        snprintf(err, errlen, "scene: %s: no tipsy_path given", name);
        return -1;
    }
    if (d->mass_ratio == 0) d->mass_ratio = (float)params_get(PARAM_MASS_RATIO)->fallback;
    if (d->pericentre == 0) d->pericentre = (float)params_get(PARAM_PERICENTRE)->fallback;
    if (d->eccentricity == 0) d->eccentricity = (float)params_get(PARAM_ECCENTRICITY)->fallback;
    if (d->separation == 0) {
        d->separation = d->kind == SCENE_COLLISION ? halos_apart(d) : (float)params_get(PARAM_SEPARATION)->fallback;
        /* A bound orbit whose apocentre lies nearer starts there: the farthest the pair goes. */
        const double apocentre = d->pericentre * (1.0 + (double)d->eccentricity) / (1.0 - d->eccentricity);
        if (two && d->eccentricity < 1 && apocentre < d->separation) d->separation = (float)apocentre;
    }
    if (d->inclination_b == 0 && !(d->set & SCENE_SET_INCLINATION_B))
        d->inclination_b = (float)params_get(PARAM_INCLINATION_B)->fallback;
    if (d->halo_mass_factor == 0) d->halo_mass_factor = 1;
    if (d->halo < 0 || d->halo >= SCENE_HALO_COUNT) {
        snprintf(err, errlen, "scene: %s: halo mode %d is neither field nor live", name, (int)d->halo);
        return -1;
    }
    if (!scene_has_halos(d->kind)) d->halo = SCENE_HALO_DEFAULT;
    else if (d->halo == SCENE_HALO_DEFAULT) d->halo = SCENE_HALO_LIVE;
    disk_for_its_stars(d, d->n);
    /* The ranges are the parameter table's, which the command line and the presets read too. */
    const struct {
        ParamId id;
        float value;
    } checks[] = {
        {PARAM_MASS_RATIO, d->mass_ratio},     {PARAM_SEPARATION, d->separation},
        {PARAM_PERICENTRE, d->pericentre},     {PARAM_INCLINATION_A, d->inclination_a},
        {PARAM_INCLINATION_B, d->inclination_b}, {PARAM_ECCENTRICITY, d->eccentricity},
        {PARAM_PERICENTRE_ANGLE, d->pericentre_angle},
    };
    char why[192];
    for (size_t i = 0; two && i < sizeof checks / sizeof checks[0]; i++)
        if (params_check(checks[i].id, checks[i].value, why, sizeof why) != 0) {
            snprintf(err, errlen, "scene: %s: %s", name, why);
            return -1;
        }
    if ((d->kind == SCENE_COLLISION || d->kind == SCENE_DISK) &&
        (!isfinite(d->halo_mass_factor) || d->halo_mass_factor < 0.25f || d->halo_mass_factor > 64.0f)) {
        snprintf(err, errlen, "scene: %s: halo_mass_factor = %g is out of range [0.25, 64]", name,
                 d->halo_mass_factor);
        return -1;
    }
    /* The pair starts at the separation and comes no closer than the pericentre. */
    if (two && d->pericentre > d->separation) {
        snprintf(err, errlen, "scene: %s: pericentre = %g lies beyond the separation %g the pair starts at (disk "
                 "scale lengths)", name, d->pericentre, d->separation);
        return -1;
    }
    /* A bound orbit reaches no farther than its apocentre. */
    double apocentre = d->pericentre * (1.0 + (double)d->eccentricity) / (1.0 - d->eccentricity);
    if (two && d->eccentricity < 1 && d->separation > apocentre * (1 + 1e-6)) {
        snprintf(err, errlen, "scene: %s: separation = %g lies beyond the apocentre %g of the orbit with "
                 "pericentre %g and eccentricity %g", name, d->separation, apocentre, d->pericentre, d->eccentricity);
        return -1;
    }
    return 0;
}

int scene_check(const SceneDesc *desc, char *err, size_t errlen)
{
    SceneDesc d;
    return resolve(desc, &d, err, errlen);
}

SceneEncounter scene_encounter(const SceneDesc *desc)
{
    SceneDesc d = *desc;
    d.kind = SCENE_COLLISION; /* the defaults a collision fills */
    const float ratio = d.mass_ratio, pericentre = d.pericentre, eccentricity = d.eccentricity;
    return (SceneEncounter){
        .mass_ratio = ratio > 0 ? ratio : (float)params_get(PARAM_MASS_RATIO)->fallback,
        .pericentre = pericentre > 0 ? pericentre : (float)params_get(PARAM_PERICENTRE)->fallback,
        .eccentricity = eccentricity > 0 ? eccentricity : (float)params_get(PARAM_ECCENTRICITY)->fallback,
        .inclination_a = d.inclination_a,
        .inclination_b = d.inclination_b == 0 && !(d.set & SCENE_SET_INCLINATION_B)
                             ? (float)params_get(PARAM_INCLINATION_B)->fallback
                             : d.inclination_b,
    };
}

void scene_set_encounter(SceneDesc *d, const SceneEncounter *e)
{
    d->mass_ratio = e->mass_ratio;
    d->pericentre = e->pericentre;
    d->eccentricity = e->eccentricity;
    d->inclination_a = e->inclination_a;
    d->inclination_b = e->inclination_b;
    d->set |= SCENE_SET_INCLINATION_B;
}

/* The seed of galaxy g's sampled halo: the run's, set apart from the build's own stream. */
#define SAMPLED_HALO_SEED 0x68616c6fULL

int scene_sample_halos(const SceneDesc *desc, const Bodies *b, const SimHalos *halos, Bodies *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    const int count = halos->count, stars = b->n - count;
    SceneDesc d;
    if (count < 1 || count > 2 || stars < 1 || !scene_has_halos(desc->kind)) {
        snprintf(err, errlen, "scene: no halo fields to sample");
        return -1;
    }
    if (resolve(desc, &d, err, errlen) != 0) return -1;
    SceneGalaxy *g = malloc(sizeof *g);
    int nh[2] = {0, 0};
    double disk_body[2] = {0, 0};
    for (int i = 0; i < stars; i++) {
        const int k = BODY_TAG_GALAXY(b->tag[i]);
        if (k < count && BODY_TAG_COMPONENT(b->tag[i]) == BODY_DISK && disk_body[k] == 0) disk_body[k] = b->pos[4 * i + 3];
    }
    int total = stars;
    for (int k = 0; k < count; k++) {
        const double each = d.halo_mass_factor * disk_body[k], mass = halos->halo[k].mass;
        nh[k] = each > 0 ? (int)lround(mass / each) : 0;
        if (nh[k] < 1 || nh[k] > SCENE_MAX_BODIES - total) {
            snprintf(err, errlen, "scene: galaxy %c's halo does not go into bodies of %g (its disk bodies' mass)",
                     'A' + k, each);
            free(g);
            return -1;
        }
        total += nh[k];
    }
    if (!g || bodies_alloc(out, total) != 0) {
        free(g);
        snprintf(err, errlen, "scene: out of memory for %d bodies", total);
        return -1;
    }
    memcpy(out->pos, b->pos, sizeof(float) * 4 * (size_t)stars);
    memcpy(out->vel, b->vel, sizeof(float) * 4 * (size_t)stars);
    memcpy(out->tag, b->tag, (size_t)stars);
    for (int i = 0; i < stars; i++) out->vel[4 * i + 3] = 0;
    int first = stars;
    for (int k = 0; k < count; k++) {
        const GalaxyModel model = galaxy_model(&d, k);
        double *xv = malloc(7 * sizeof(double) * (size_t)nh[k]);
        uint8_t *tags = malloc((size_t)nh[k]);
        if (!xv || !tags) {
            free(xv);
            free(tags);
            free(g);
            bodies_free(out);
            snprintf(err, errlen, "scene: out of memory for %d halo bodies", nh[k]);
            return -1;
        }
        scene_galaxy_init(g, &model, GALAXY_SOFTENING / model.disk_scale);
        SceneRng rng;
        scene_rng_seed(&rng, d.seed ^ (SAMPLED_HALO_SEED + (uint64_t)k));
        /* All halo (no disk, no bulge counted before it), centred on its own centre of mass. */
        scene_galaxy_sample(g, 0, 0, nh[k], k, &rng, xv, tags);
        const float *c = b->pos + 4 * (size_t)(stars + k), *cv = b->vel + 4 * (size_t)(stars + k);
        const double x0[3] = {c[0], c[1], c[2]}, v0[3] = {cv[0], cv[1], cv[2]};
        place(xv, nh[k], model.disk_scale, model.disk_mass, 0.0, x0, v0);
        store(out, first, nh[k], xv, tags);
        first += nh[k];
        free(xv);
        free(tags);
    }
    free(g);
    return 0;
}

int scene_build(const SceneDesc *desc, Bodies *out, SceneInfo *info, char *err, size_t errlen)
{
    SceneDesc d;
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    if (resolve(desc, &d, err, errlen) != 0) return -1;
    int rc;
    switch (d.kind) {
    case SCENE_TIPSY: rc = build_tipsy(&d, out, info, err, errlen); break;
    case SCENE_TIPSY_COLLIDE: rc = build_tipsy_collide(&d, out, info, err, errlen); break;
    default:
        if (bodies_alloc(out, d.n + scene_halo_centres(&d)) != 0) {
            snprintf(err, errlen, "scene: %s: out of memory for %d bodies", scene_names[d.kind], d.n);
            return -1;
        }
        switch (d.kind) {
        case SCENE_COLLISION: rc = build_collision(&d, out, info, err, errlen); break;
        case SCENE_DISK: rc = build_disk(&d, out, info, err, errlen); break;
        case SCENE_PLUMMER: rc = build_plummer(&d, out, info); break;
        case SCENE_SHELL: rc = build_shell(&d, out, info); break;
        default: rc = build_random(&d, out, info); break;
        }
    }
    if (rc != 0) {
        bodies_free(out);
        return -1;
    }
    bodies_recentre(out);
    return 0;
}
