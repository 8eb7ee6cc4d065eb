/* The CUDA integrator against the CPU backend: the same leapfrog (opening half kick, full kicks,
 * closing half kick, damping of the synchronised velocity once per step), the same trajectories
 * over a few steps, damping that does not depend on the steps per advance, and energy conserved
 * over 1000 steps of a Plummer sphere in float and in double. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../sim_checks.h"
#include "test_skip.h"

#include "gpu_common.h"

#define PLUMMER_N 4096
#define EPS 0.02f
#define DT 0.005f
#define PI 3.14159265358979323846

/* A Plummer sphere in Henon units (G = M = 1, E = -1/4), Aarseth-Henon-Wielen sampling, radius
 * cut at 10 scale lengths, moved to rest at the origin. */
static void plummer(Bodies *b, int n, uint64_t seed)
{
    if (bodies_alloc(b, n) != 0) fail_msg("out of memory");
    uint64_t s = seed;
    const double scale = 3 * PI / 16;
    for (int i = 0; i < n; i++) {
        double r;
        do r = 1 / sqrt(pow(rng_uniform(&s) * 0.999 + 1e-9, -2.0 / 3.0) - 1);
        while (r > 10);
        double q, g;
        do {
            q = rng_uniform(&s);
            g = 0.1 * rng_uniform(&s);
        } while (g > q * q * pow(1 - q * q, 3.5));
        double v = q * sqrt(2.0) * pow(1 + r * r, -0.25);
        double dir[2][3];
        for (int k = 0; k < 2; k++) {
            double z = 2 * rng_uniform(&s) - 1, phi = 2 * PI * rng_uniform(&s), rho = sqrt(1 - z * z);
            dir[k][0] = rho * cos(phi);
            dir[k][1] = rho * sin(phi);
            dir[k][2] = z;
        }
        for (int k = 0; k < 3; k++) {
            b->pos[4 * i + k] = (float)(r * dir[0][k] * scale);
            b->vel[4 * i + k] = (float)(v * dir[1][k] / sqrt(scale));
        }
        b->pos[4 * i + 3] = 1.0f / n;
    }
    bodies_recentre(b);
}

static Sim *cpu_sim(const Bodies *b)
{
    char err[256] = "";
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CPU}, b, err, sizeof err);
    if (!s) fail_msg("sim_create (cpu): %s", err);
    return s;
}

static double total(SimEnergy e) { return e.kinetic + e.potential; }

static double max_diff(const float *a, const float *b, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double d = fabs((double)a[4 * i + k] - b[4 * i + k]);
            if (!(d <= m)) m = d; /* NaN sticks */
        }
    return m;
}

/* A few steps, in advances of unequal length, with damping: GPU and CPU agree to rounding. */
static void test_matches_cpu(void **state)
{
    gpu_require_cuda();
    Bodies b0, g, c;
    plummer(&b0, 2000, 11);
    bodies_alloc(&g, b0.n);
    bodies_alloc(&c, b0.n);
    const double size = bodies_mass_radius(&b0, 0.5);
    double vrms = 0;
    for (int i = 0; i < b0.n; i++)
        for (int k = 0; k < 3; k++) vrms += (double)b0.vel[4 * i + k] * b0.vel[4 * i + k] / b0.n;
    vrms = sqrt(vrms);
    static const float dampings[] = {1.0f, 0.97f};
    static const SimKernel kernels[] = {SIM_KERNEL_SYMMETRIC, SIM_KERNEL_MTPB};
    for (int d = 0; d < 4; d++) {
        Sim *gs = gpu_sim(&b0, kernels[d / 2], SIM_PRECISION_FLOAT);
        Sim *cs = cpu_sim(&b0);
        SimParams p = {.dt = DT, .softening = EPS, .damping = dampings[d % 2]};
        static const int advances[] = {1, 3, 6};
        for (int a = 0; a < 3; a++) {
            sim_advance(gs, &p, advances[a]);
            sim_advance(cs, &p, advances[a]);
        }
        sim_read(gs, &g);
        sim_read(cs, &c);
        double dx = max_diff(g.pos, c.pos, b0.n) / size, dv = max_diff(g.vel, c.vel, b0.n) / vrms;
        print_message("%s, damping %.2f, 10 steps: max |x_gpu - x_cpu| = %.2e of the half-mass radius, "
                      "max |v_gpu - v_cpu| = %.2e of v_rms\n",
                      sim_kernel_name(kernels[d / 2]), dampings[d % 2], dx, dv);
        if (!(dx < 1e-5) || !(dv < 1e-4)) fail_msg("GPU and CPU part ways: dx %.3g, dv %.3g", dx, dv);
        for (int i = 0; i < b0.n; i++) assert_int_equal(g.tag[i], b0.tag[i]);
        assert_int_equal(sim_stats(gs).total_steps, 10);
        sim_destroy(gs);
        sim_destroy(cs);
    }
    bodies_free(&b0);
    bodies_free(&g);
    bodies_free(&c);
}

/* Damping acts the same whatever the steps per frame (sim_checks.h). */
static void run_damping(SimKernel kernel, SimPrecision precision)
{
    gpu_require_cuda();
    Bodies b0;
    plummer(&b0, 2048, 21);
    Sim *one = gpu_sim(&b0, kernel, precision), *eight = gpu_sim(&b0, kernel, precision);
    const SimParams p = {.dt = 2 * DT, .softening = EPS, .damping = 0.98f};
    char what[64];
    snprintf(what, sizeof what, "%s%s", sim_kernel_name(sim_kernel(one)),
             precision == SIM_PRECISION_DOUBLE ? " fp64" : "");
    check_damping_per_advance(one, eight, &b0, &p, what);
    sim_destroy(one);
    sim_destroy(eight);
    bodies_free(&b0);
}

static void test_damping_symmetric(void **state) { run_damping(SIM_KERNEL_SYMMETRIC, SIM_PRECISION_FLOAT); }
static void test_damping_mtpb(void **state) { run_damping(SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT); }
static void test_damping_double(void **state) { run_damping(SIM_KERNEL_MTPB, SIM_PRECISION_DOUBLE); }

static void run_energy(SimKernel kernel, SimPrecision precision)
{
    gpu_require_cuda();
    Bodies b0, g, c;
    plummer(&b0, PLUMMER_N, 5);
    bodies_alloc(&g, b0.n);
    bodies_alloc(&c, b0.n);
    const double size = bodies_mass_radius(&b0, 0.5);
    Sim *gs = gpu_sim(&b0, kernel, precision);
    Sim *cs = cpu_sim(&b0);
    const double e0g = total(sim_energy(gs, EPS)), e0c = total(sim_energy(cs, EPS));
    print_message("E0: GPU %.12f, CPU %.12f\n", e0g, e0c);
    if (!(fabs(e0g - e0c) <= 1e-9 * fabs(e0c))) fail_msg("energy of the same state: GPU %.15g, CPU %.15g", e0g, e0c);
    SimParams p = {.dt = DT, .softening = EPS, .damping = 1.0f};
    for (int a = 1; a <= 10; a++) {
        sim_advance(gs, &p, 100);
        sim_advance(cs, &p, 100);
        double eg = total(sim_energy(gs, EPS)), ec = total(sim_energy(cs, EPS));
        double dg = fabs((eg - e0g) / e0g), dc = fabs((ec - e0c) / e0c);
        sim_read(gs, &g);
        sim_read(cs, &c);
        double cg[3], cc[3], dcom = 0;
        bodies_centre_of_mass(&g, cg, NULL);
        bodies_centre_of_mass(&c, cc, NULL);
        for (int k = 0; k < 3; k++) dcom += (cg[k] - cc[k]) * (cg[k] - cc[k]);
        dcom = sqrt(dcom) / size;
        print_message("step %4d: |dE/E0| GPU %.2e, CPU %.2e; centres of mass %.2e of the half-mass radius apart\n",
                      100 * a, dg, dc, dcom);
        if (!(dg < 1e-3) || !(dc < 1e-3)) fail_msg("step %d: |dE/E0| GPU %.3g, CPU %.3g (limit 1e-3)", 100 * a, dg, dc);
        if (!(dcom < 1e-4)) fail_msg("step %d: centres of mass %.3g of the half-mass radius apart", 100 * a, dcom);
    }
    SimStats st = sim_stats(gs);
    print_message("GPU (%s, %s): last advance of 100 steps %.2f ms, %.3g interactions/s; steps alone on the GPU's "
                  "clock %.3f ms, %.3g interactions/s\n",
                  sim_device_name(gs), sim_kernel_name(sim_kernel(gs)), st.ms, st.interactions_per_s, st.gpu_ms, st.kernel_interactions_per_s);
    /* The steps alone take some of the advance's wall time, never more. */
    assert_true(st.gpu_ms > 0 && st.gpu_ms <= st.ms);
    assert_true(st.kernel_interactions_per_s >= st.interactions_per_s);
    sim_destroy(gs);
    sim_destroy(cs);
    bodies_free(&b0);
    bodies_free(&g);
    bodies_free(&c);
}

static void test_energy_float(void **state) { run_energy(SIM_KERNEL_SYMMETRIC, SIM_PRECISION_FLOAT); }
static void test_energy_mtpb(void **state) { run_energy(SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT); }
static void test_energy_double(void **state) { run_energy(SIM_KERNEL_DEFAULT, SIM_PRECISION_DOUBLE); }

/* sim_load replaces the state; the next advance starts from it as a fresh simulation would. */
static void test_load(void **state)
{
    gpu_require_cuda();
    Bodies a, b, out1, out2;
    plummer(&a, 3000, 1);
    plummer(&b, 3000, 2);
    bodies_alloc(&out1, 3000);
    bodies_alloc(&out2, 3000);
    SimParams p = {.dt = DT, .softening = EPS, .damping = 1.0f};
    Sim *s1 = gpu_sim(&a, SIM_KERNEL_DEFAULT, SIM_PRECISION_FLOAT);
    sim_advance(s1, &p, 5);
    char err[256];
    assert_int_equal(sim_load(s1, &b, err, sizeof err), 0);
    sim_advance(s1, &p, 5);
    Sim *s2 = gpu_sim(&b, SIM_KERNEL_DEFAULT, SIM_PRECISION_FLOAT);
    sim_advance(s2, &p, 5);
    sim_read(s1, &out1);
    sim_read(s2, &out2);
    assert_memory_equal(out1.pos, out2.pos, 4 * 3000 * sizeof(float));
    assert_memory_equal(out1.vel, out2.vel, 4 * 3000 * sizeof(float));
    sim_destroy(s1);
    sim_destroy(s2);
    bodies_free(&a);
    bodies_free(&b);
    bodies_free(&out1);
    bodies_free(&out2);
}

/* sim_read_xyz and sim_read_positions: the columns packed on the device, and the positions and
 * tags alone, are sim_read's, bit for bit. */
static void test_columns_read_alone(void **state)
{
    (void)state;
    gpu_require_cuda();
    enum { N = 5001 };
    Bodies a, out;
    plummer(&a, N, 3);
    bodies_alloc(&out, N);
    const SimParams p = {.dt = DT, .softening = EPS, .damping = 1.0f};
    Sim *s = gpu_sim(&a, SIM_KERNEL_DEFAULT, SIM_PRECISION_FLOAT);
    sim_advance(s, &p, 3);
    float *xyz = malloc(3 * N * sizeof(float)), *uvw = malloc(3 * N * sizeof(float));
    assert_non_null(xyz), assert_non_null(uvw);
    assert_int_equal(sim_read_xyz(s, false, xyz), 0);
    assert_int_equal(sim_read_xyz(s, true, uvw), 0);
    float *pos4 = malloc(4 * N * sizeof(float));
    uint8_t *tags = malloc(N);
    assert_non_null(pos4), assert_non_null(tags);
    assert_int_equal(sim_read_positions(s, pos4, tags), 0);
    sim_read(s, &out);
    assert_memory_equal(pos4, out.pos, 4 * N * sizeof(float));
    assert_memory_equal(tags, out.tag, N);
    free(pos4);
    free(tags);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            assert_memory_equal(&xyz[3 * i + k], &out.pos[4 * i + k], sizeof(float));
            assert_memory_equal(&uvw[3 * i + k], &out.vel[4 * i + k], sizeof(float));
        }
    free(xyz);
    free(uvw);
    sim_destroy(s);
    bodies_free(&a);
    bodies_free(&out);
}

/* The state read without waiting (sim_read_begin, sim_read_landed): steps queued after the read
 * began do not reach it, and what lands is, bit for bit, what sim_read gave at the same state (the
 * accelerations and what computed them too); a load replaces the state's serial, so a read begun
 * before it is known for an older state's. */
static void test_read_without_waiting(void **state)
{
    (void)state;
    gpu_require_cuda();
    enum { N = 100000 };
    Bodies a, now, later;
    plummer(&a, N, 5);
    assert_int_equal(bodies_alloc(&now, N), 0);
    assert_int_equal(bodies_alloc_acc(&now), 0);
    assert_int_equal(bodies_alloc(&later, N), 0);
    const SimParams p = {.dt = DT, .softening = EPS, .damping = 1.0f};
    Sim *s = gpu_sim(&a, SIM_KERNEL_DEFAULT, SIM_PRECISION_FLOAT);
    SimLanding got;
    assert_int_equal(sim_read_landed(s, &got), -1); /* nothing begun */
    sim_advance(s, &p, 3);
    sim_read(s, &now);
    assert_int_equal(sim_read_begin(s), 0);
    int polls = 0, rc;
    while ((rc = sim_read_landed(s, &got)) == 0) {
        sim_advance(s, &p, 1);
        polls++;
    }
    assert_int_equal(rc, 1);
    sim_read(s, &later);
    print_message("landed after %d polls with a step queued between each\n", polls);
    assert_int_equal(got.n, N);
    assert_memory_equal(got.pos, now.pos, 4 * (size_t)N * sizeof(float));
    assert_memory_equal(got.vel, now.vel, 4 * (size_t)N * sizeof(float));
    assert_memory_equal(got.acc, now.acc, 3 * (size_t)N * sizeof(float));
    assert_memory_equal(got.tags, now.tag, N);
    assert_int_equal(got.acc_info.force, now.acc_info.force);
    assert_memory_equal(&got.acc_info.softening, &now.acc_info.softening, sizeof(float));
    if (polls > 0) assert_memory_not_equal(later.pos, now.pos, 4 * (size_t)N * sizeof(float));
    assert_int_equal(sim_read_landed(s, &got), 1); /* it stays until the next begin */
    const unsigned long long serial = sim_state_serial(s);
    char err[256];
    assert_int_equal(sim_load(s, &a, err, sizeof err), 0);
    assert_true(sim_state_serial(s) != serial);
    sim_destroy(s);
    bodies_free(&a);
    bodies_free(&now);
    bodies_free(&later);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_without_waiting),
        cmocka_unit_test(test_matches_cpu),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_columns_read_alone),
        cmocka_unit_test(test_damping_symmetric),
        cmocka_unit_test(test_damping_mtpb),
        cmocka_unit_test(test_damping_double),
        cmocka_unit_test(test_energy_float),
        cmocka_unit_test(test_energy_mtpb),
        cmocka_unit_test(test_energy_double),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
