/* The UI numbers its choices as the simulation, scene and renderer do: the checks below keep the
 * two in step, and the names come from the modules that own them. */
#include "app/ui_names.h"

#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/sim.h"

_Static_assert((int)UI_FORCE_AUTO == (int)SIM_FORCE_AUTO && (int)UI_FORCE_DIRECT == (int)SIM_FORCE_DIRECT &&
                   (int)UI_FORCE_TREE == (int)SIM_FORCE_TREE && (int)UI_FORCE_COUNT == (int)SIM_FORCE_COUNT,
               "UiForce numbers the force methods as SimForce does");
_Static_assert(UI_KERNEL_DEFAULT == SIM_KERNEL_DEFAULT && UI_KERNEL_FIRST == SIM_KERNEL_NAIVE &&
                   UI_KERNELS == SIM_KERNEL_COUNT,
               "the UI numbers the kernels as SimKernel does");
_Static_assert(SCENE_TIPSY <= UI_CHOICES_MAX && COLOR_MODE_COUNT <= UI_CHOICES_MAX,
               "the UI's lists of names hold every built-in scene and colour mode");

void ui_names_fill(UiModel *m)
{
    UiNames *n = &m->names;
    for (int k = 0; k < SIM_KERNEL_COUNT; k++) n->kernel[k] = sim_kernel_name((SimKernel)k);
    n->kernel_auto = SIM_KERNEL_SYMMETRIC;
    n->kernel_split = SIM_KERNEL_MTPB;
    n->kernel_own_block = SIM_KERNEL_SYMMETRIC;
    for (int f = 0; f < SIM_FORCE_COUNT; f++) n->force[f] = sim_force_name((SimForce)f);
    /* The scenes a reset builds from nothing: the TIPSY ones need a file. */
    n->scene_count = SCENE_TIPSY;
    for (int k = 0; k < SCENE_TIPSY; k++) n->scene[k] = scene_name((SceneKind)k);
    n->color_count = COLOR_MODE_COUNT;
    for (int c = 0; c < COLOR_MODE_COUNT; c++) n->color[c] = renderer_color_mode_name((ColorMode)c);

    m->ranges = (UiRanges){
        .dt = {1e-5f, 1e-1f},
        .softening = {1e-4f, 1.0f},
        .damping = {0.9f, 1.0f},
        .theta = {0.05f, 1.5f},
        .steps_per_frame = {1, 64},
        .bodies = {1, 1 << 20},
        .point_size = {0.25f, 8.0f},
        .exposure = {0.05f, 20.0f},
        .cycle_seconds = {5.0f, 300.0f},
    };
}

static UiForceError force_error(const ForceCheck *f)
{
    return (UiForceError){.samples = f->samples, .rms = f->rms, .p999 = f->p999, .worst = f->worst,
                          .median = f->median, .p99 = f->p99};
}

void ui_show_diagnostics(UiModel *m, const Diagnostics *d)
{
    m->diag_valid = d != NULL;
    if (!d) return;
    m->diag = (UiDiagnostics){.kinetic = d->kinetic, .potential = d->potential, .total = d->total,
                              .virial = d->virial};
    for (int i = 0; i < 3; i++) {
        m->diag.momentum[i] = d->momentum[i];
        m->diag.angular_momentum[i] = d->angular_momentum[i];
    }
}

void ui_show_force_check(UiModel *m, const ForceCheck *f)
{
    m->force_check_valid = f != NULL;
    if (f) m->force_check = force_error(f);
}

void ui_show_live_error(UiModel *m, const ForceCheck *f)
{
    m->live_error_valid = f != NULL;
    if (f) m->live_error = force_error(f);
}
