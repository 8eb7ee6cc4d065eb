/* Halos as fields (kernels/halo_field.h) on the CPU: the field against the halo it stands for
 * sampled into bodies, the friction against Chandrasekhar's formula evaluated here from its
 * parts, and runs of field-halo galaxies against the conservation laws (momentum of stars and
 * centres, energy with what friction took out). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/scene_internal.h"
#include "sim/sim.h"
#include "sim/structure.h"

/* The sample keeps its million under the sanitizers: a smaller one's noise reaches the 1 % bound. */
#define HALO_SAMPLE 1000000
#ifdef STARBURST_SANITIZED
#define ENCOUNTER_STEPS 300
#else
#define ENCOUNTER_STEPS 2000
#endif

/* The default galaxy's halo as a field, built as the scene builds it. */
static SimHalo default_halo(void)
{
    GalaxyModel m = scene_galaxy_defaults();
    SimHalo h;
    assert_int_equal(sim_halo_profile(&h, m.halo_mass, m.halo_scale, SCENE_GALAXY_TAPER * m.halo_cut, m.halo_cut), 0);
    return h;
}

/* The field's pull against the pull of the same halo drawn as HALO_SAMPLE bodies by the scene's
 * sampler (Eddington's distribution function, scene/galaxy.c), summed directly in double at points
 * on 14 directions at each radius. The sample's own noise is the count of bodies inside r: the
 * bound is 1% or three times that Poisson error, whichever is larger (at 0.5 scale lengths the
 * default halo holds 0.06% of its mass, a few hundred bodies of a million). */
static void the_field_pulls_as_the_sampled_halo(void **state)
{
    (void)state;
    GalaxyModel model = scene_galaxy_defaults();
    SceneGalaxy *g = malloc(sizeof *g);
    double *xv = malloc(7 * sizeof(double) * HALO_SAMPLE);
    uint8_t *tags = malloc(HALO_SAMPLE);
    assert_non_null(g);
    assert_non_null(xv);
    assert_non_null(tags);
    scene_galaxy_init(g, &model, 0.08);
    SceneRng rng;
    scene_rng_seed(&rng, 11);
    /* Only the halo: bodies from the first halo index on, of a galaxy of 1 disk, 1 bulge body. */
    scene_galaxy_sample_range(g, 1, 1, HALO_SAMPLE, 0, &rng, 2, HALO_SAMPLE, xv, tags);
    const SimHalo h = default_halo();
    const double radii[] = {0.5, 1, 2, 3, 5, 7, 9, 11, 12.5, 14};
    /* 64 directions spread over the sphere (a Fibonacci lattice). */
    enum { DIRS = 64 };
    double dirs[DIRS][3];
    for (int d = 0; d < DIRS; d++) {
        double z = 1 - (2 * d + 1.0) / DIRS, rho = sqrt(1 - z * z), phi = d * M_PI * (3 - sqrt(5.0));
        dirs[d][0] = rho * cos(phi), dirs[d][1] = rho * sin(phi), dirs[d][2] = z;
    }
    const double m_body = h.mass / HALO_SAMPLE;
    double worst = 0;
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
        const double r = radii[k];
        double sampled = 0, inside = 0;
#pragma omp parallel for reduction(+ : sampled)
        for (int d = 0; d < DIRS; d++) {
            double p[3] = {r * dirs[d][0], r * dirs[d][1], r * dirs[d][2]}, a[3] = {0, 0, 0};
            for (int i = 0; i < HALO_SAMPLE; i++) {
                const double *b = xv + 7 * (size_t)i;
                double dx = b[0] - p[0], dy = b[1] - p[1], dz = b[2] - p[2], r2 = dx * dx + dy * dy + dz * dz;
                double s = m_body / (r2 * sqrt(r2));
                a[0] += s * dx, a[1] += s * dy, a[2] += s * dz;
            }
            sampled += -(a[0] * p[0] + a[1] * p[1] + a[2] * p[2]) / r / DIRS; /* inward, averaged */
        }
        for (int i = 0; i < HALO_SAMPLE; i++) {
            const double *b = xv + 7 * (size_t)i;
            if (b[0] * b[0] + b[1] * b[1] + b[2] * b[2] < r * r) inside += 1;
        }
        float ax = 0, ay = 0, az = 0;
        nbody_halo_pull(&h, (float)r, 0, 0, 0, &ax, &ay, &az);
        const double field = -ax, rel = fabs(field - sampled) / sampled;
        const double bound = fmax(0.01, 3.0 / sqrt(inside > 1 ? inside : 1));
        print_message("r %5.2f: field %.6e sampled %.6e (%.0f bodies inside): %.2f%% (bound %.2f%%)\n", r, field,
                      sampled, inside, 100 * rel, 100 * bound);
        assert_true(rel <= bound);
        worst = fmax(worst, rel);
    }
    print_message("worst difference %.3f%%\n", 100 * worst);
    free(g);
    free(xv);
    free(tags);
}

/* The profile's pieces fit: the enclosed mass is Hernquist's inside the taper and the halo's mass
 * from the cut; the pull is minus the potential's slope everywhere (the shell's table and the
 * closed forms agree), and the potential is continuous across the taper and the cut. */
static void the_profile_is_one_potential(void **state)
{
    (void)state;
    const SimHalo h = default_halo();
    assert_float_equal(nbody_halo_mass_inside(&h, 1e6f), h.mass, 1e-6);
    assert_float_equal(nbody_halo_mass_inside(&h, h.cut * 0.9999f), h.mass, 1e-3 * h.mass);
    double worst = 0;
    for (double r = 0.2; r < 30; r *= 1.05) {
        const double d = 1e-2 * r; /* the potential is a float: a narrower step reads its rounding */
        double slope = (nbody_halo_potential(&h, (float)(r + d)) - (double)nbody_halo_potential(&h, (float)(r - d))) / (2 * d);
        float ax = 0, ay = 0, az = 0;
        nbody_halo_pull(&h, (float)r, 0, 0, 0, &ax, &ay, &az);
        worst = fmax(worst, fabs(slope + ax) / fabs(ax));
    }
    print_message("pull against the potential's slope: worst %.2e\n", worst);
    assert_true(worst < 1e-3);
    const float t = h.taper, c = h.cut;
    assert_float_equal(nbody_halo_potential(&h, t * 0.99999f), nbody_halo_potential(&h, t * 1.00001f), 1e-4);
    assert_float_equal(nbody_halo_potential(&h, c * 0.99999f), nbody_halo_potential(&h, c * 1.00001f), 1e-4);
}

/* Chandrasekhar's drag, B&T (2008) eq. 8.7, with the dispersion from the Jeans equation of the
 * untapered Hernquist halo integrated here (sigma^2 rho = int_r^inf rho M / r'^2 dr'), not from
 * the closed form the field uses: against the field's friction, in size and direction. */
static double jeans_dispersion(double M, double a, double r)
{
    double sum = 0, lo = log(r), hi = log(r * 1e5), dl = (hi - lo) / 20000;
    for (int k = 0; k <= 20000; k++) {
        double x = exp(lo + k * dl), rho = M * a / (2 * M_PI * x * pow(x + a, 3)), m = M * x * x / ((x + a) * (x + a));
        sum += (k == 0 || k == 20000 ? 0.5 : 1) * rho * m / (x * x) * x * dl;
    }
    double rho = M * a / (2 * M_PI * r * pow(r + a, 3));
    return sqrt(sum / rho);
}

static void friction_is_chandrasekhar_s(void **state)
{
    (void)state;
    const SimHalo h = default_halo();
    const double m = 1.5, ln_lambda = 3, r = 4.0;
    const double v[3] = {0.3, -0.2, 0.1};
    double a[3];
    nbody_halo_friction(&h, (float)ln_lambda, m, r, v, a);
    const double rho = nbody_halo_density(&h, r), sigma = jeans_dispersion(h.hern_mass, h.scale, r);
    const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), X = speed / (sqrt(2.0) * sigma);
    const double want = 4 * M_PI * ln_lambda * m * rho / (speed * speed) * (erf(X) - 2 * X / sqrt(M_PI) * exp(-X * X));
    const double got = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    const double along = (a[0] * v[0] + a[1] * v[1] + a[2] * v[2]) / (got * speed);
    print_message("friction %.6e, Chandrasekhar %.6e (sigma %.5f), cosine to v %.6f\n", got, want, sigma, along);
    assert_true(fabs(got - want) <= 1e-3 * want);
    assert_true(along < -0.999999);
    /* Slower than the dispersion, the drag falls with the speed; none outside the cut. */
    const double slow[3] = {1e-5, 0, 0};
    nbody_halo_friction(&h, (float)ln_lambda, m, r, slow, a);
    assert_true(a[0] < 0 && isfinite(a[0]));
    nbody_halo_friction(&h, (float)ln_lambda, m, h.cut * 1.01, v, a);
    assert_true(a[0] == 0 && a[1] == 0 && a[2] == 0);
}

static float ln_lambda = -1; /* < 0: the scene's */
static Sim *build(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 3, .halo = SCENE_HALO_FIELD}, b, info, err,
                    sizeof err) != 0)
        fail_msg("scene_build: %s", err);
    assert_int_equal(b->n, n + info->halos.count);
    if (ln_lambda >= 0) info->halos.ln_lambda = ln_lambda;
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_DIRECT, .halos = &info->halos}, b,
                        err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

/* The friction's Coulomb logarithm follows the encounter's pericentre: a closer pass brakes more,
 * the default pair's is SCENE_HALO_LN_LAMBDA, and outside the range it was set against it holds the
 * end values. */
static void the_friction_follows_the_pass(void **state)
{
    (void)state;
    const float q[] = {1, 2, 3, 4.8f, 8};
    float got[5];
    for (int i = 0; i < 5; i++) {
        Bodies b;
        SceneInfo info;
        char err[256] = "";
        if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 64, .seed = 1, .halo = SCENE_HALO_FIELD,
                                     .pericentre = q[i]},
                        &b, &info, err, sizeof err) != 0)
            fail_msg("scene_build: %s", err);
        got[i] = info.halos.ln_lambda;
        bodies_free(&b);
    }
    assert_true(got[0] == got[1] && got[1] > got[2] && got[2] > got[3] && got[3] == got[4]);
    assert_true(got[3] > 0);
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 64, .seed = 1, .halo = SCENE_HALO_FIELD},
                                 &b, &info, err, sizeof err),
                     0);
    assert_float_equal(info.halos.ln_lambda, SCENE_HALO_LN_LAMBDA, 0);
    assert_float_equal(info.halos.ln_lambda, got[2], 0);
    bodies_free(&b);
}

/* Every body a star but the centres, which carry the halos' mass and sit at the galaxies' centres
 * of mass at the start. */
static void a_field_scene_is_all_stars(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    Sim *s = build(SCENE_COLLISION, 4096, &b, &info);
    assert_int_equal(info.halos.count, 2);
    for (int i = 0; i < 4096; i++) assert_int_not_equal(BODY_TAG_COMPONENT(b.tag[i]), BODY_HALO);
    for (int h = 0; h < 2; h++) {
        const int i = 4096 + h;
        assert_int_equal(b.tag[i], BODY_TAG(h, BODY_HALO));
        assert_float_equal(b.pos[4 * i + 3], info.halos.halo[h].mass, 1e-6);
        /* The stars of galaxy h are centred on it. */
        double c[3] = {0, 0, 0}, m = 0;
        for (int k = 0; k < 4096; k++)
            if (BODY_TAG_GALAXY(b.tag[k]) == h) {
                for (int d = 0; d < 3; d++) c[d] += b.pos[4 * k + 3] * b.pos[4 * k + d];
                m += b.pos[4 * k + 3];
            }
        for (int d = 0; d < 3; d++) assert_float_equal(c[d] / m, b.pos[4 * i + d], 0.1);
    }
    sim_destroy(s);
    bodies_free(&b);
}

/* A field run at its start, its halos sampled into bodies (what an export to SWIFT sends): the
 * stars as they were, each halo of bodies of a disk body's mass whose total is the field's, centred
 * on the field's centre and moving with it, and measuring as the live build's halo: the same
 * half-mass radius and the whole galaxy in the same equilibrium (2K/|W|). */
static void the_fields_sample_into_the_live_halo(void **state)
{
    (void)state;
#ifdef STARBURST_SANITIZED
    const int n = 2048;
#else
    const int n = 8192;
#endif
    Bodies b, live, sampled;
    SceneInfo info, live_info;
    char err[256] = "";
    const SceneDesc field = {.kind = SCENE_DISK, .n = n, .seed = 3, .halo = SCENE_HALO_FIELD};
    assert_int_equal(scene_build(&field, &b, &info, err, sizeof err), 0);
    assert_int_equal(scene_sample_halos(&field, &b, &info.halos, &sampled, err, sizeof err), 0);
    /* The live build of as many disk bodies: its halo bodies have a disk body's mass too. */
    const int live_n = (int)lround(n * 6.2 / 1.2);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = live_n, .seed = 3, .halo = SCENE_HALO_LIVE},
                                 &live, &live_info, err, sizeof err),
                     0);
    assert_memory_equal(sampled.pos, b.pos, sizeof(float) * 4 * (size_t)n);
    double m = 0, c[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
    int halo = 0;
    for (int i = n; i < sampled.n; i++) {
        assert_int_equal(sampled.tag[i], BODY_TAG(0, BODY_HALO));
        halo++;
        m += sampled.pos[4 * i + 3];
        for (int k = 0; k < 3; k++) {
            c[k] += sampled.pos[4 * i + 3] * sampled.pos[4 * i + k];
            cv[k] += sampled.pos[4 * i + 3] * sampled.vel[4 * i + k];
        }
    }
    assert_float_equal(m, info.halos.halo[0].mass, 1e-4 * m);
    assert_float_equal(sampled.pos[4 * n + 3], b.pos[3], 1e-3 * b.pos[3]); /* a disk body's mass */
    for (int k = 0; k < 3; k++) {
        assert_float_equal(c[k] / m, b.pos[4 * n + k], 1e-4);
        assert_float_equal(cv[k] / m, b.vel[4 * n + k], 1e-4);
    }
    StructureMeasure ms, ml;
    const StructureDesc d = {.galaxy = 0, .softening = info.softening, .virial_max_n = -1};
    assert_int_equal(structure_measure(&sampled, &d, &ms), 0);
    assert_int_equal(structure_measure(&live, &d, &ml), 0);
    print_message("%d stars: sampled halo %d bodies (live build %d), R_half %.4f (live %.4f)\n", n, halo,
                  ml.count[BODY_HALO], ms.half_mass_radius[BODY_HALO], ml.half_mass_radius[BODY_HALO]);
    assert_true(abs(halo - ml.count[BODY_HALO]) < 0.01 * halo);
    assert_true(fabs(ms.half_mass_radius[BODY_HALO] / ml.half_mass_radius[BODY_HALO] - 1) < 0.03);
    /* Equilibrium: the sampled galaxy's K and W by the simulation's own sums, as the live one's. */
    double virial[2];
    const Bodies *both[2] = {&sampled, &live};
    for (int k = 0; k < 2; k++) {
        Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_TREE}, both[k], err, sizeof err);
        assert_non_null(s);
        const SimEnergy e = sim_energy(s, info.softening);
        virial[k] = 2 * e.kinetic / -e.potential;
        sim_destroy(s);
    }
    print_message("  2K/|W|: sampled %.4f, live build %.4f\n", virial[0], virial[1]);
    assert_true(fabs(virial[0] - virial[1]) < 0.03);
    bodies_free(&b);
    bodies_free(&live);
    bodies_free(&sampled);
}

/* Momentum of stars and centres, over an encounter through its first pericentre: conserved to 1e-6
 * of the sum of |m v| (the reaction of every pull and of friction goes to the other side). */
static void momentum_is_conserved_through_an_encounter(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    Sim *s = build(SCENE_COLLISION, 2048, &b, &info);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    double scale = 0, p0[3] = {0, 0, 0};
    for (int i = 0; i < b.n; i++)
        for (int d = 0; d < 3; d++) {
            p0[d] += (double)b.pos[4 * i + 3] * b.vel[4 * i + d];
            scale += fabs((double)b.pos[4 * i + 3] * b.vel[4 * i + d]);
        }
    double worst = 0, closest = 1e30;
    for (int k = 0; k < ENCOUNTER_STEPS / 50; k++) {
        sim_advance(s, &p, 50);
        sim_read(s, &b);
        double q[3] = {0, 0, 0};
        for (int i = 0; i < b.n; i++)
            for (int d = 0; d < 3; d++) q[d] += (double)b.pos[4 * i + 3] * b.vel[4 * i + d];
        for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(q[d] - p0[d]) / scale);
        const float *c = b.pos + 4 * 2048;
        closest = fmin(closest, sqrt((c[0] - c[4]) * (c[0] - c[4]) + (c[1] - c[5]) * (c[1] - c[5]) +
                                     (c[2] - c[6]) * (c[2] - c[6])));
    }
    SimEnergy e = sim_energy(s, p.softening);
    print_message("momentum: worst %.2e of sum |m v|; centres came within %.2f; friction took %.3e\n", worst, closest,
                  e.friction);
    assert_true(worst <= 1e-6);
#ifndef STARBURST_SANITIZED
    assert_true(closest < 3 * 3); /* the pair passed its pericentre (3 scale lengths asked) */
    assert_true(e.friction > 0);
#endif
    sim_destroy(s);
    bodies_free(&b);
}

/* An isolated field-halo galaxy conserves its energy (the field's potential counted) to 1e-4 over
 * 1000 steps; so does a collision, with what friction took out counted. */
static void energy_is_conserved(SceneKind kind, int n, int steps)
{
    Bodies b;
    SceneInfo info;
    Sim *s = build(kind, n, &b, &info);
    const double dt_scale = getenv("HALO_DT") ? atof(getenv("HALO_DT")) : 1;
    steps = (int)(steps / dt_scale);
    const SimParams p = {.dt = (float)(info.dt * dt_scale), .softening = info.softening, .damping = 1};
    SimEnergy e0 = sim_energy(s, p.softening);
    const double E0 = e0.kinetic + e0.potential + e0.friction;
    double worst = 0;
    for (int k = 0; k < steps / 100; k++) {
        sim_advance(s, &p, 100);
        SimEnergy e = sim_energy(s, p.softening);
        worst = fmax(worst, fabs((e.kinetic + e.potential + e.friction - E0) / E0));
    }
    SimEnergy e = sim_energy(s, p.softening);
    print_message("%s, %d stars, %d steps: worst |dE/E0| %.2e (friction took %.3e of %.4f)\n", scene_name(kind), n,
                  steps, worst, e.friction, E0);
    assert_true(worst <= 1e-4);
    sim_destroy(s);
    bodies_free(&b);
}

static void an_isolated_galaxy_keeps_its_energy(void **state)
{
    (void)state;
    energy_is_conserved(SCENE_DISK, 2048, 1000);
}

static void a_collision_keeps_its_energy_with_friction_counted(void **state)
{
    (void)state;
    energy_is_conserved(SCENE_COLLISION, 2048, ENCOUNTER_STEPS);
}

/* A field-halo collision saved in the middle of its encounter (friction at work) loads with the
 * same halos and runs on bit for bit, with the force method by error (fmm) as the program runs
 * it: positions, velocities and what friction took out, against a twin never saved. */
static void a_save_loads_bit_for_bit(void **state)
{
    (void)state;
    Bodies b, back, twin;
    SceneInfo info;
    char err[512] = "", dir[] = "/tmp/starburst-halo-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.tipsy", dir);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 2048, .seed = 4, .halo = SCENE_HALO_FIELD,
                                              .separation = 12},
                                 &b, &info, err, sizeof err),
                     0);
    const SimDesc desc = {.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_FMM, .halos = &info.halos};
    Sim *s = sim_create(&desc, &b, err, sizeof err);
    assert_non_null(s);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1, .alpha = 5e-4f};
    sim_advance(s, &p, 150);
    assert_int_equal(bodies_alloc_acc(&b), 0);
    sim_read(s, &b);
    assert_true(sim_energy(s, p.softening).friction > 0); /* the halos overlap: friction works */
    const SavedRun saved = {.params = p, .force = SIM_FORCE_FMM, .steps_per_frame = 1, .step = 150, .halos = info.halos};
    if (state_save(path, &b, &saved, err, sizeof err) != 0) fail_msg("%s", err);
    SavedRun r;
    if (state_load(path, &back, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.halos.count, 2);
    assert_memory_equal(&r.halos, &info.halos, sizeof r.halos); /* the profiles, built again */
    Sim *t = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU, .force = SIM_FORCE_FMM, .halos = &r.halos}, &back, err,
                        sizeof err);
    assert_non_null(t);
    sim_advance(s, &p, 100);
    sim_advance(t, &p, 100);
    assert_int_equal(bodies_alloc(&twin, b.n), 0);
    sim_read(s, &b);
    sim_read(t, &twin);
    assert_memory_equal(b.pos, twin.pos, 4 * sizeof(float) * (size_t)b.n);
    assert_memory_equal(b.vel, twin.vel, 4 * sizeof(float) * (size_t)b.n);
    sim_destroy(s);
    sim_destroy(t);
    bodies_free(&b);
    bodies_free(&back);
    bodies_free(&twin);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    if (getenv("HALO_LN_LAMBDA")) ln_lambda = (float)atof(getenv("HALO_LN_LAMBDA"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_profile_is_one_potential),
        cmocka_unit_test(the_field_pulls_as_the_sampled_halo),
        cmocka_unit_test(friction_is_chandrasekhar_s),
        cmocka_unit_test(the_friction_follows_the_pass),
        cmocka_unit_test(a_field_scene_is_all_stars),
        cmocka_unit_test(the_fields_sample_into_the_live_halo),
        cmocka_unit_test(momentum_is_conserved_through_an_encounter),
        cmocka_unit_test(an_isolated_galaxy_keeps_its_energy),
        cmocka_unit_test(a_collision_keeps_its_energy_with_friction_counted),
        cmocka_unit_test(a_save_loads_bit_for_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
