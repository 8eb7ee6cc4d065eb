/* What the app hands the UI in the UI's own terms: every name the panel offers is the owning
 * module's, every slider has a range, and the Diagnostics figures arrive field for field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/ui_names.h"
#include "render/renderer.h"
#include "scene/scene.h"
#include "util/params.h"

static void names_are_the_modules_own(void **state)
{
    UiModel m = {0};
    ui_names_fill(&m);
    for (int k = 0; k < SIM_KERNEL_COUNT; k++) assert_string_equal(m.names.kernel[k], sim_kernel_name((SimKernel)k));
    assert_string_equal(m.names.kernel[m.names.kernel_split], "mtpb");
    assert_string_equal(m.names.kernel[m.names.kernel_own_block], "symmetric");
    assert_true(m.names.kernel_auto >= UI_KERNEL_FIRST && m.names.kernel_auto < UI_KERNELS);
    for (int f = 0; f < UI_FORCE_COUNT; f++) assert_string_equal(m.names.force[f], sim_force_name((SimForce)f));
    /* The scenes a reset builds from nothing, not those that read a file. */
    assert_int_equal(m.names.scene_count, SCENE_TIPSY);
    for (int k = 0; k < m.names.scene_count; k++) assert_string_equal(m.names.scene[k], scene_name((SceneKind)k));
    assert_int_equal(m.names.color_count, COLOR_MODE_COUNT);
    for (int c = 0; c < m.names.color_count; c++)
        assert_string_equal(m.names.color[c], renderer_color_mode_name((ColorMode)c));
}

static void every_slider_has_a_range(void **state)
{
    UiModel m = {0};
    ui_names_fill(&m);
    const UiRanges *r = &m.ranges;
    const UiRange floats[] = {r->dt,         r->softening, r->damping,      r->theta,
                              r->alpha,      r->point_size, r->exposure, r->cycle_seconds};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) assert_true(floats[i].lo > 0 && floats[i].lo < floats[i].hi);
    assert_true(r->steps_per_frame.lo >= 1 && r->steps_per_frame.lo < r->steps_per_frame.hi);
    assert_true(r->bodies.lo >= 1 && r->bodies.lo < r->bodies.hi);
    /* 1 is damping off, the slider's right end. */
    assert_true(r->damping.hi == 1.0f);
    assert_true(r->theta.lo <= params_theta(0) && params_theta(0) <= r->theta.hi);
    assert_true(r->alpha.lo <= params_alpha(-1) && params_alpha(-1) <= r->alpha.hi);
    assert_true(r->widest_by_error == NBODY_TREE_REL_THETA);
    /* Every slider stays inside the one table of limits the command line and the files check. */
    const struct {
        ParamId id;
        double lo, hi;
    } spans[] = {{PARAM_DT, r->dt.lo, r->dt.hi},
                 {PARAM_SOFTENING, r->softening.lo, r->softening.hi},
                 {PARAM_DAMPING, r->damping.lo, r->damping.hi},
                 {PARAM_THETA, r->theta.lo, r->theta.hi},
                 {PARAM_ALPHA, r->alpha.lo, r->alpha.hi},
                 {PARAM_STEPS_PER_FRAME, r->steps_per_frame.lo, r->steps_per_frame.hi},
                 {PARAM_BODIES, r->bodies.lo, r->bodies.hi},
                 {PARAM_POINT_SIZE, r->point_size.lo, r->point_size.hi},
                 {PARAM_EXPOSURE, r->exposure.lo, r->exposure.hi}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        assert_true(params_in_range(spans[i].id, spans[i].lo));
        assert_true(params_in_range(spans[i].id, spans[i].hi));
    }
    /* Theta's slider is the whole of its range. */
    assert_true(r->theta.lo == (float)params_get(PARAM_THETA)->min && r->theta.hi == (float)params_get(PARAM_THETA)->max);
}

static void measurements_arrive_field_for_field(void **state)
{
    UiModel m = {0};
    const Diagnostics d = {.kinetic = 1, .potential = -2, .total = -1, .momentum = {3, 4, 5},
                           .angular_momentum = {6, 7, 8}, .virial = 0.9};
    ui_show_diagnostics(&m, &d);
    assert_true(m.readout.diag_valid);
    assert_true(m.readout.diag.kinetic == 1 && m.readout.diag.potential == -2 && m.readout.diag.total == -1 && m.readout.diag.virial == 0.9);
    for (int i = 0; i < 3; i++) {
        assert_true(m.readout.diag.momentum[i] == 3 + i);
        assert_true(m.readout.diag.angular_momentum[i] == 6 + i);
    }
    const ForceCheck f = {.samples = 2048, .rms = 1e-3, .p999 = 2e-3, .worst = 3e-3, .median = 4e-4, .p99 = 5e-4};
    ui_show_force_check(&m, &f);
    ui_show_live_error(&m, &f);
    const UiForceError *shown[] = {&m.readout.force_check, &m.readout.live_error};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(shown[i]->samples, 2048);
        assert_true(shown[i]->rms == 1e-3 && shown[i]->p999 == 2e-3 && shown[i]->worst == 3e-3);
        assert_true(shown[i]->median == 4e-4 && shown[i]->p99 == 5e-4);
    }
    assert_true(m.readout.force_check_valid && m.readout.live_error_valid);
    /* A reset: nothing measured yet. */
    ui_show_diagnostics(&m, NULL);
    ui_show_force_check(&m, NULL);
    ui_show_live_error(&m, NULL);
    assert_false(m.readout.diag_valid || m.readout.force_check_valid || m.readout.live_error_valid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_the_modules_own),
        cmocka_unit_test(every_slider_has_a_range),
        cmocka_unit_test(measurements_arrive_field_for_field),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
