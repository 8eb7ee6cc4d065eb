/* Halos as fields (kernels/halo_field.h) on the CUDA backend, on a collision whose halos overlap
 * from the start (friction works from the first step): the accelerations against the CPU
 * backend's (stars and centres, the direct sum and the tree), a few hundred steps that stay with
 * the CPU's (damped and not, what friction took out too), energy with friction's work counted and
 * momentum kept over 1000 steps with the direct sum and the tree, runs that repeat bit for bit and
 * one read and put back that goes on bit for bit, and what the fields' step costs against live
 * halos of as many bodies. STARBURST_GPU_TEST_FILTER (a cmocka pattern) runs some of them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "scene/scene.h"
#include "util/params.h"

/* The centres start 8 disk scale lengths apart, each inside the other's halo (its cut is 12). */
#define SEPARATION 8.0f

static void field_collision(int n, SceneHalo halo, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    const SceneDesc d = {.kind = SCENE_COLLISION, .n = n, .seed = 3, .halo = halo, .separation = SEPARATION};
    if (scene_build(&d, b, info, err, sizeof err) != 0) fail_msg("scene_build: %s", err);
    if (halo == SCENE_HALO_FIELD) assert_int_equal(b->n, n + info->halos.count);
}

static Sim *make(const Bodies *b, const SceneInfo *info, SimBackend backend, SimForce force)
{
    char err[256] = "";
    const SimDesc d = {.backend = backend, .force = force, .halos = &info->halos};
    Sim *s = sim_create(&d, b, err, sizeof err);
    if (!s) fail_msg("sim_create (%s, %s): %s", sim_backend_name(backend), sim_force_name(force), err);
    assert_int_equal(sim_force(s), force);
    return s;
}

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Relative difference of the centres' accelerations (the worst of them), and the stars':
 * ||a - ref|| / ||ref|| over all of them and the 99.9th percentile of |a_i - ref_i| / |ref_i|. */
typedef struct AccDiff {
    double stars_norm, stars_p999, centres;
} AccDiff;

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static AccDiff acc_diff(const float *a, const float *ref, int stars, int n)
{
    AccDiff d = {0};
    double *rel = malloc((size_t)stars * sizeof *rel), num = 0, den = 0;
    assert_non_null(rel);
    for (int i = 0; i < n; i++) {
        double diff[3], r[3];
        for (int k = 0; k < 3; k++) diff[k] = (double)a[3 * i + k] - ref[3 * i + k], r[k] = ref[3 * i + k];
        const double e = norm3(diff) / norm3(r);
        if (i < stars) {
            rel[i] = isnan(e) ? INFINITY : e;
            num += diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2];
            den += r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        } else if (!(e <= d.centres)) {
            d.centres = isnan(e) ? INFINITY : e;
        }
    }
    qsort(rel, (size_t)stars, sizeof *rel, by_value);
    d.stars_norm = sqrt(num / den);
    d.stars_p999 = rel[(int)(0.999 * (stars - 1))];
    free(rel);
    return d;
}

/* The friction's work so far (the centres' velocity w) of the state in b. */
static double friction_loss(const Bodies *b, const SceneInfo *info)
{
    return sim_halo_friction_loss(&info->halos, b->vel, b->n - info->halos.count);
}

/* The CUDA backend's accelerations, stars and centres, against the CPU's direct sum: within float
 * rounding with the direct sum; the GPU's tree within its error for the stars, while the centres,
 * which feel the stars' reaction summed over every star whatever the method, stay with rounding. */
static void accelerations_match_the_cpu(void **state)
{
    gpu_require_cuda();
    Bodies b;
    SceneInfo info;
    const int stars = 16384;
    field_collision(stars, SCENE_HALO_FIELD, &b, &info);
    const int n = b.n;
    float *cpu = malloc(3 * (size_t)n * sizeof *cpu), *gpu = malloc(3 * (size_t)n * sizeof *gpu);
    assert_true(cpu && gpu);
    Sim *c = make(&b, &info, SIM_BACKEND_CPU, SIM_FORCE_DIRECT);
    sim_accelerations(c, info.softening, cpu);
    static const SimForce forces[] = {SIM_FORCE_DIRECT, SIM_FORCE_TREE};
    for (int f = 0; f < 2; f++) {
        Sim *g = make(&b, &info, SIM_BACKEND_CUDA, forces[f]);
        sim_accelerations(g, info.softening, gpu);
        assert_null(sim_error(g));
        const AccDiff d = acc_diff(gpu, cpu, stars, n);
        print_message("%d stars, GPU %s against the CPU's direct sum: stars ||da|| / ||a|| %.2e, p99.9 %.2e; centres "
                      "%.2e\n",
                      stars, sim_force_name(forces[f]), d.stars_norm, d.stars_p999, d.centres);
        if (forces[f] == SIM_FORCE_DIRECT) {
            assert_true(d.stars_norm < 1e-5);
            assert_true(d.stars_p999 < 1e-3);
        } else {
            assert_true(d.stars_norm < 5e-4);
            assert_true(d.stars_p999 < 2e-3);
        }
        assert_true(d.centres < 1e-5);
        sim_destroy(g);
    }
    /* The friction is in the centres' accelerations: with it off they are other ones. */
    SceneInfo quiet = info;
    quiet.halos.ln_lambda = 0;
    Sim *g = make(&b, &quiet, SIM_BACKEND_CUDA, SIM_FORCE_DIRECT);
    sim_accelerations(g, info.softening, gpu);
    const AccDiff d = acc_diff(gpu, cpu, stars, n);
    print_message("without friction the centres' accelerations differ by %.2e\n", d.centres);
    assert_true(d.centres > 1e-4);
    sim_destroy(g);
    sim_destroy(c);
    free(cpu);
    free(gpu);
    bodies_free(&b);
}

/* 300 steps in advances of unequal length, with and without damping: the GPU's run stays with
 * the CPU's, the stars, the centres and what friction took out. */
static void a_few_hundred_steps_stay_with_the_cpu(void **state)
{
    gpu_require_cuda();
    Bodies b0, g, c;
    SceneInfo info;
    const int stars = 4096;
    field_collision(stars, SCENE_HALO_FIELD, &b0, &info);
    const int n = b0.n;
    assert_int_equal(bodies_alloc(&g, n), 0);
    assert_int_equal(bodies_alloc(&c, n), 0);
    const double size = bodies_mass_radius(&b0, 0.5);
    static const float dampings[] = {1.0f, 0.995f};
    for (int k = 0; k < 2; k++) {
        Sim *gs = make(&b0, &info, SIM_BACKEND_CUDA, SIM_FORCE_DIRECT);
        Sim *cs = make(&b0, &info, SIM_BACKEND_CPU, SIM_FORCE_DIRECT);
        const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = dampings[k]};
        static const int advances[] = {1, 9, 90, 200};
        for (int a = 0; a < 4; a++) {
            sim_advance(gs, &p, advances[a]);
            sim_advance(cs, &p, advances[a]);
        }
        assert_null(sim_error(gs));
        sim_read(gs, &g);
        sim_read(cs, &c);
        double *dx = malloc((size_t)stars * sizeof *dx), centres = 0;
        assert_non_null(dx);
        for (int i = 0; i < n; i++) {
            double d[3];
            for (int j = 0; j < 3; j++) d[j] = (double)g.pos[4 * i + j] - c.pos[4 * i + j];
            if (i < stars) dx[i] = isnan(norm3(d)) ? INFINITY : norm3(d) / size;
            else centres = fmax(centres, norm3(d) / SEPARATION);
        }
        qsort(dx, (size_t)stars, sizeof *dx, by_value);
        const double median = dx[stars / 2], p99 = dx[(int)(0.99 * (stars - 1))];
        const double wg = friction_loss(&g, &info), wc = friction_loss(&c, &info);
        print_message("damping %.3f, 300 steps: stars |x_gpu - x_cpu| median %.2e p99 %.2e of the half-mass radius; "
                      "centres %.2e of their first separation; friction took %.6e (GPU), %.6e (CPU)\n",
                      dampings[k], median, p99, centres, wg, wc);
        assert_true(median < 1e-5);
        assert_true(p99 < 2e-4);
        assert_true(centres < 1e-6);
        assert_true(wc > 0);
        assert_true(fabs(wg - wc) <= 1e-5 * wc);
        free(dx);
        sim_destroy(gs);
        sim_destroy(cs);
    }
    bodies_free(&b0);
    bodies_free(&g);
    bodies_free(&c);
}

/* 1000 steps in advances of 10 (each opening kick counts its friction from the stored
 * accelerations): kinetic + potential + friction's work within 1e-4 of the start; momentum within
 * 2e-6 of sum m |v| with the direct sum (every pull has its reaction; the centres' float
 * velocities round), within 1e-4 with the tree (its forces are not mutual). Friction takes far
 * more than the energy's bound, so the check fails where its work were not counted. */
static void energy_and_momentum_are_kept(SimForce force, double momentum_bound)
{
    gpu_require_cuda();
    Bodies b, now;
    SceneInfo info;
    const int stars = 16384;
    field_collision(stars, SCENE_HALO_FIELD, &b, &info);
    assert_int_equal(bodies_alloc(&now, b.n), 0);
    Sim *s = make(&b, &info, SIM_BACKEND_CUDA, force);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    double p0[3], scale;
    gpu_momentum(&b, p0, &scale);
    const SimEnergy e0 = sim_energy(s, p.softening);
    const double E0 = e0.kinetic + e0.potential + e0.friction;
    assert_true(e0.friction == 0);
    double worst = 0, drift = 0;
    for (int k = 0; k < 10; k++) {
        for (int a = 0; a < 10; a++) sim_advance(s, &p, 10);
        assert_null(sim_error(s));
        const SimEnergy e = sim_energy(s, p.softening);
        worst = fmax(worst, fabs((e.kinetic + e.potential + e.friction - E0) / E0));
        double q[3], unused;
        sim_read(s, &now);
        gpu_momentum(&now, q, &unused);
        const double d[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]};
        drift = fmax(drift, norm3(d) / scale);
    }
    const SimEnergy e = sim_energy(s, p.softening);
    const SimStats st = sim_stats(s);
    print_message("%d stars, %s, 1000 steps of dt %.3g: worst |dE/E0| %.2e with friction's work counted (it took "
                  "%.3e, %.2e of |E0|); worst |P - P0| / sum m|v| %.2e; %.3f ms a step on the GPU\n",
                  stars, sim_force_name(force), info.dt, worst, e.friction, e.friction / fabs(E0), drift,
                  st.gpu_ms / st.steps);
    assert_true(worst <= 1e-4);
    assert_true(e.friction > 1e-2 * fabs(E0));
    assert_true(drift <= momentum_bound);
    sim_destroy(s);
    bodies_free(&b);
    bodies_free(&now);
}

static void energy_and_momentum_direct(void **state) { energy_and_momentum_are_kept(SIM_FORCE_DIRECT, 2e-6); }
static void energy_and_momentum_tree(void **state) { energy_and_momentum_are_kept(SIM_FORCE_TREE, 1e-4); }

/* Two runs repeat bit for bit (the reaction's sums have a fixed order), and a run read at step 10
 * with its stored accelerations and put back (the same simulation loaded, as a scrub does, and a
 * new one made from it) goes on for 10 steps a frame at a time with the bits of the run never
 * interrupted, the centres' friction work in vel.w included. Without the accelerations the
 * centres' friction is found again at the synchronised velocity, not the half step's: printed. */
static void a_run_repeats_and_goes_on_bit_for_bit(void **state)
{
    gpu_require_cuda();
    Bodies b, mid = {0}, want = {0}, got = {0};
    SceneInfo info;
    const int stars = 16384, steps = 10;
    field_collision(stars, SCENE_HALO_FIELD, &b, &info);
    const int n = b.n;
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    static const SimForce forces[] = {SIM_FORCE_DIRECT, SIM_FORCE_TREE};
    for (int f = 0; f < 2; f++) {
        const char *how = sim_force_name(forces[f]);
        Sim *s = make(&b, &info, SIM_BACKEND_CUDA, forces[f]), *twin = make(&b, &info, SIM_BACKEND_CUDA, forces[f]);
        for (int k = 0; k < steps; k++) {
            sim_advance(s, &p, 1);
            sim_advance(twin, &p, 1);
        }
        gpu_read_all(s, &mid, n);
        gpu_read_all(twin, &got, n);
        assert_int_equal(gpu_bodies_differing(&mid, &got), 0);
        sim_destroy(twin);
        assert_int_equal(mid.acc_info.backend, SIM_BACKEND_CUDA);
        const double loss = friction_loss(&mid, &info);
        assert_true(loss > 0);
        for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
        gpu_read_all(s, &want, n);
        char err[256];
        assert_int_equal(sim_load(s, &mid, err, sizeof err), 0);
        for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
        gpu_read_all(s, &got, n);
        assert_int_equal(gpu_bodies_differing(&got, &want), 0);
        sim_destroy(s);
        for (int with = 1; with >= 0; with--) {
            if (!with) mid.acc_info.backend = 0; /* none carried */
            s = make(&mid, &info, SIM_BACKEND_CUDA, forces[f]);
            for (int k = 0; k < steps; k++) sim_advance(s, &p, 1);
            gpu_read_all(s, &got, n);
            sim_destroy(s);
            const int differ = gpu_bodies_differing(&got, &want);
            print_message("%s: two runs of %d steps equal bit for bit (friction took %.3e); loaded at step %d %s its "
                          "accelerations: %d of %d bodies differ at step %d\n",
                          how, steps, loss, steps, with ? "with" : "without", differ, n, 2 * steps);
            if (with) assert_int_equal(differ, 0);
        }
    }
    bodies_free(&b);
    bodies_free(&mid);
    bodies_free(&want);
    bodies_free(&got);
}

/* ms a step on the GPU's clock over 20 steps, after 2. */
static double step_ms(int n, SceneHalo halo, SimForce force)
{
    Bodies b;
    SceneInfo info;
    field_collision(n, halo, &b, &info);
    Sim *s = make(&b, &info, SIM_BACKEND_CUDA, force);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    sim_advance(s, &p, 2);
    sim_advance(s, &p, 20);
    assert_null(sim_error(s));
    assert_false(sim_diverged(s));
    const double ms = sim_stats(s).gpu_ms / 20;
    sim_destroy(s);
    bodies_free(&b);
    return ms;
}

/* A field run of n stars against a live one of n bodies (its halos drawn as bodies among them):
 * the same pairs, so the fields' step (two launches) and the kick apart from the forces are what
 * the field run pays more. Printed; the bound only catches a step that went serial. */
static void the_fields_step_costs_little(void **state)
{
    gpu_require_cuda();
    static const struct {
        int n;
        SimForce force;
    } rows[] = {{16384, SIM_FORCE_DIRECT}, {131072, SIM_FORCE_DIRECT}, {131072, SIM_FORCE_TREE},
                {1048576, SIM_FORCE_TREE}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const double field = step_ms(rows[r].n, SCENE_HALO_FIELD, rows[r].force);
        const double live = step_ms(rows[r].n, SCENE_HALO_LIVE, rows[r].force);
        print_message("%7d bodies, %s: %.3f ms a step with halos as fields (as many stars), %.3f ms with live halos\n",
                      rows[r].n, sim_force_name(rows[r].force), field, live);
        assert_true(field <= 1.5 * live + 0.1);
    }
}

static double total(SimEnergy e) { return e.kinetic + e.potential + e.friction; }

/* Polls until the sums are in, stepping between polls as the frame loop does; the polls made. */
static int poll_until_done(Sim *s, const SimParams *p, SimEnergy *out)
{
    SimEnergy stars;
    int polls = 1, rc;
    while ((rc = sim_energy_poll(s, &stars)) == 0) {
        sim_advance(s, p, 1);
        polls++;
    }
    assert_int_equal(rc, 1);
    *out = stars;
    return polls;
}

/* The energy summed a share a frame beside the steps (sim_energy_begin, sim_energy_poll), at the
 * 131,072 stars of the GPU's default: the state read when the sum began, whatever steps came
 * between the shares, as the sum made at once gives it (its tiles added in the same order; the
 * fields' part from the host); the first state as a run of it gives; and the stars' pairs against
 * the host's sum in double. */
static void the_energy_in_shares_is_the_state_begun(void **state)
{
    gpu_require_cuda();
    Bodies b, now;
    SceneInfo info;
    field_collision(131072, SCENE_HALO_FIELD, &b, &info);
    Sim *s = make(&b, &info, SIM_BACKEND_CUDA, SIM_FORCE_DIRECT);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    sim_advance(s, &p, 5);
    const SimEnergy at_once = sim_energy(s, p.softening);
    assert_int_equal(bodies_alloc(&now, b.n), 0);
    sim_read(s, &now);
    const SimEnergy fields = sim_energy_fields(&now, sim_halos(s), p.softening, 1);
    assert_int_equal(sim_energy_begin(s, &now, p.softening), 0);
    SimEnergy stars;
    const int polls = poll_until_done(s, &p, &stars);
    assert_null(sim_error(s));
    const double shares = total((SimEnergy){.kinetic = stars.kinetic + fields.kinetic,
                                            .potential = stars.potential + fields.potential,
                                            .friction = fields.friction});
    print_message("131072 stars: %d polls (steps between them); %.17g in shares, %.17g at once\n", polls, shares,
                  total(at_once));
    assert_true(polls >= 4);
    assert_true(fabs(shares - total(at_once)) <= 1e-13 * fabs(total(at_once)));
    assert_int_equal(sim_energy_poll(s, &stars), -1); /* nothing under way */

    /* The host's sum in double over the same bodies (one thread per core, a few seconds). */
    const SimEnergy host = sim_energy_of(&now, sim_halos(s), p.softening, 0);
    print_message("the host's sum: %.17g (relative difference %.2e)\n", total(host),
                  fabs(total(host) - total(at_once)) / fabs(total(at_once)));
    assert_true(fabs(total(host) - total(at_once)) <= 1e-10 * fabs(total(at_once)));

    /* The first state, given from the host, against a run made of it. */
    Sim *first = make(&b, &info, SIM_BACKEND_CUDA, SIM_FORCE_DIRECT);
    const SimEnergy first_once = sim_energy(first, p.softening);
    assert_int_equal(sim_energy_begin(s, &b, p.softening), 0);
    poll_until_done(s, &p, &stars);
    const SimEnergy first_fields = sim_energy_fields(&b, sim_halos(first), p.softening, 1);
    const double first_shares = stars.kinetic + first_fields.kinetic + stars.potential + first_fields.potential +
                                first_fields.friction;
    assert_true(fabs(first_shares - total(first_once)) <= 1e-13 * fabs(total(first_once)));
    sim_destroy(first);
    sim_destroy(s);
    bodies_free(&b);
    bodies_free(&now);
}

int main(void)
{
    const char *filter = getenv("STARBURST_GPU_TEST_FILTER");
    if (filter) cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accelerations_match_the_cpu),
        cmocka_unit_test(a_few_hundred_steps_stay_with_the_cpu),
        cmocka_unit_test(energy_and_momentum_direct),
        cmocka_unit_test(energy_and_momentum_tree),
        cmocka_unit_test(a_run_repeats_and_goes_on_bit_for_bit),
        cmocka_unit_test(the_fields_step_costs_little),
        cmocka_unit_test(the_energy_in_shares_is_the_state_begun),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
