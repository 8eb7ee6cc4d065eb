/* Device trouble on demand: a GPU too small for N (STARBURST_GPU_MEMORY_MIB) is refused before
 * anything is allocated, with the largest N that fits; a failing CUDA call
 * (STARBURST_CUDA_FAIL_AFTER) stops the backend cleanly and says so; NaN or Inf in any body is
 * found by the advance that made it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_common.h"

static Sim *cuda_sim(const Bodies *b, char *err, size_t errlen)
{
    return sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA}, b, err, errlen);
}

static void too_many_bodies_are_refused_with_the_largest_that_fits(void **state)
{
    gpu_require_cuda();
    setenv("STARBURST_GPU_MEMORY_MIB", "2", 1);
    Bodies b;
    gpu_random_ball(&b, 200000, 1);
    char err[512] = "";
    Sim *s = cuda_sim(&b, err, sizeof err);
    print_message("%s\n", err);
    assert_null(s);
    const char *at = strstr(err, "at most ");
    assert_non_null(at);
    long fit = atol(at + strlen("at most "));
    assert_true(fit > 0 && fit < 200000);
    bodies_free(&b);

    /* The largest N it names fits; one more does not. */
    gpu_random_ball(&b, (int)fit, 2);
    s = cuda_sim(&b, err, sizeof err);
    if (!s) fail_msg("%ld bodies were said to fit: %s", fit, err);
    sim_destroy(s);
    bodies_free(&b);
    gpu_random_ball(&b, (int)fit + 1, 3);
    assert_null(cuda_sim(&b, err, sizeof err));
    bodies_free(&b);
    unsetenv("STARBURST_GPU_MEMORY_MIB");
}

static void a_failing_call_stops_the_backend_and_says_so(void **state)
{
    gpu_require_cuda();
    setenv("STARBURST_CUDA_FAIL_AFTER", "3", 1);
    Bodies b, out;
    gpu_random_ball(&b, 1000, 4);
    assert_int_equal(bodies_alloc(&out, b.n), 0);
    char err[512] = "";
    Sim *s = cuda_sim(&b, err, sizeof err);
    unsetenv("STARBURST_CUDA_FAIL_AFTER");
    if (!s) fail_msg("%s", err);
    SimParams p = {.dt = 1e-3f, .softening = 0.05f, .damping = 1};
    sim_advance(s, &p, 2);
    sim_advance(s, &p, 2);
    assert_null(sim_error(s));
    sim_read(s, &out);
    for (int i = 0; i < 4 * out.n; i++) assert_true(isfinite(out.pos[i]));
    sim_advance(s, &p, 2);
    assert_non_null(sim_error(s));
    assert_non_null(strstr(sim_error(s), "injected"));
    sim_destroy(s);
    bodies_free(&b);
    bodies_free(&out);
}

static bool body_finite(const Bodies *b, int i)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(b->pos[4 * i + k]) || !isfinite(b->vel[4 * i + k])) return false;
    return true;
}

/* As unit.test_physics has it for the CPU backend. In the last body: a NaN velocity (loaded),
 * found after one step; and a velocity the last kick takes past the float range (3e38 doubled by
 * damping 2), which no force has spread yet: body 0 is still finite then, so a look at body 0
 * alone would miss it. */
static void run_divergence(SimKernel kernel, SimPrecision precision)
{
    gpu_require_cuda();
    Bodies b, bad, out;
    gpu_random_ball(&b, 1000, 5);
    assert_int_equal(bodies_alloc(&bad, b.n), 0);
    assert_int_equal(bodies_alloc(&out, b.n), 0);
    const int j = b.n - 1;
    Sim *s = gpu_sim(&b, kernel, precision);
    SimParams p = {.dt = 1e-3f, .softening = 0.05f, .damping = 1};
    sim_advance(s, &p, 10);
    assert_false(sim_diverged(s));

    char err[256];
    memcpy(bad.pos, b.pos, 4 * (size_t)b.n * sizeof(float));
    memcpy(bad.vel, b.vel, 4 * (size_t)b.n * sizeof(float));
    bad.vel[4 * j + 1] = NAN;
    assert_int_equal(sim_load(s, &bad, err, sizeof err), 0);
    assert_false(sim_diverged(s));
    sim_advance(s, &p, 1);
    assert_true(sim_diverged(s));

    bad.vel[4 * j + 1] = b.vel[4 * j + 1];
    bad.vel[4 * j] = 3e38f;
    assert_int_equal(sim_load(s, &bad, err, sizeof err), 0);
    p.damping = 2;
    sim_advance(s, &p, 1);
    sim_read(s, &out);
    print_message("%s%s: after the overflowing kick body 0 is %s, body %d %s; diverged: %s\n",
                  sim_kernel_name(sim_kernel(s)), precision == SIM_PRECISION_DOUBLE ? " fp64" : "",
                  body_finite(&out, 0) ? "finite" : "not finite", j, body_finite(&out, j) ? "finite" : "not finite",
                  sim_diverged(s) ? "yes" : "no");
    assert_true(body_finite(&out, 0));
    assert_false(body_finite(&out, j));
    assert_true(sim_diverged(s));

    assert_int_equal(sim_load(s, &b, err, sizeof err), 0);
    assert_false(sim_diverged(s));
    p.damping = 1;
    sim_advance(s, &p, 10);
    assert_false(sim_diverged(s));
    assert_null(sim_error(s));
    sim_destroy(s);
    bodies_free(&b);
    bodies_free(&bad);
    bodies_free(&out);
}

static void divergence_in_any_body_is_found_symmetric(void **state)
{
    run_divergence(SIM_KERNEL_SYMMETRIC, SIM_PRECISION_FLOAT);
}
static void divergence_in_any_body_is_found_mtpb(void **state) { run_divergence(SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT); }
static void divergence_in_any_body_is_found_double(void **state)
{
    run_divergence(SIM_KERNEL_MTPB, SIM_PRECISION_DOUBLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_many_bodies_are_refused_with_the_largest_that_fits),
        cmocka_unit_test(a_failing_call_stops_the_backend_and_says_so),
        cmocka_unit_test(divergence_in_any_body_is_found_symmetric),
        cmocka_unit_test(divergence_in_any_body_is_found_mtpb),
        cmocka_unit_test(divergence_in_any_body_is_found_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
