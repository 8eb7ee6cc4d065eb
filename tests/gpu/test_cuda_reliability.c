/* Device trouble on demand: a GPU too small for N (STARBURST_GPU_MEMORY_MIB) is refused before
 * anything is allocated, with the largest N that fits; a failing CUDA call
 * (STARBURST_CUDA_FAIL_AFTER) stops the backend cleanly and says so; NaN or Inf in any body is
 * found by the advance that made it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../sim_checks.h"
#include "test_skip.h"

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

/* NaN or Inf in any body is found by the advance that made it (sim_checks.h), with positions the
 * simulation owns. */
static void run_divergence(SimKernel kernel, SimPrecision precision)
{
    gpu_require_cuda();
    Bodies b;
    gpu_random_ball(&b, 1000, 5);
    Sim *s = gpu_sim(&b, kernel, precision);
    const SimParams p = {.dt = 1e-3f, .softening = 0.05f, .damping = 1};
    char what[64];
    snprintf(what, sizeof what, "%s%s", sim_kernel_name(sim_kernel(s)),
             precision == SIM_PRECISION_DOUBLE ? " fp64" : "");
    check_divergence_in_any_body(s, &b, &p, what);
    sim_destroy(s);
    bodies_free(&b);
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
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
