/* The UI numbers its choices as the simulation, scene and renderer do: the checks below keep the
 * two in step, and the names come from the modules that own them. */
#include "app/ui_names.h"

#include <math.h>
#include <stdio.h>

#include "app/viewer.h"
#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/heating.h"
#include "sim/sim.h"
#include "util/params.h"

_Static_assert((int)UI_FORCE_AUTO == (int)SIM_FORCE_AUTO && (int)UI_FORCE_DIRECT == (int)SIM_FORCE_DIRECT &&
                   (int)UI_FORCE_TREE == (int)SIM_FORCE_TREE && (int)UI_FORCE_FMM == (int)SIM_FORCE_FMM &&
                   (int)UI_FORCE_COUNT == (int)SIM_FORCE_COUNT,
               "UiForce numbers the force methods as SimForce does");
_Static_assert(UI_KERNEL_DEFAULT == SIM_KERNEL_DEFAULT && UI_KERNEL_FIRST == SIM_KERNEL_NAIVE &&
                   UI_KERNELS == SIM_KERNEL_COUNT,
               "the UI numbers the kernels as SimKernel does");
_Static_assert((int)UI_HEATING_NONE == (int)HEATING_NONE && (int)UI_HEATING_STEADY == (int)HEATING_STEADY &&
                   (int)UI_HEATING_WARM == (int)HEATING_WARM && (int)UI_HEATING_HOT == (int)HEATING_HOT &&
                   (int)UI_HEATING_TIDAL == (int)HEATING_TIDAL,
               "UiHeatingState numbers the states as HeatingState does");
_Static_assert(SCENE_TIPSY <= UI_CHOICES_MAX && COLOR_MODE_COUNT <= UI_CHOICES_MAX,
               "the UI's lists of names hold every built-in scene and colour mode");

/* A slider's span [lo, hi], kept inside the parameter's range in the table. */
static UiRange slider(ParamId id, double lo, double hi)
{
    const Param *p = params_get(id);
    return (UiRange){(float)fmax(lo, p->min), (float)fmin(hi, p->max)};
}

static UiIntRange slider_int(ParamId id, int lo, int hi)
{
    const UiRange r = slider(id, lo, hi);
    return (UiIntRange){(int)r.lo, (int)r.hi};
}

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
    n->scene_encounter = SCENE_COLLISION;
    n->color_count = COLOR_MODE_COUNT;
    for (int c = 0; c < COLOR_MODE_COUNT; c++) n->color[c] = renderer_color_mode_name((ColorMode)c);

    /* Each slider spans the part of its parameter's range (util/params.h) that a hand uses; the
     * command line and the files may go further within the table's limits. Theta spans all of it;
     * alpha's 0 (by the angle) is the panel's "by error" unticked. */
    m->ranges = (UiRanges){
        .dt = slider(PARAM_DT, 1e-5, 1e-1),
        .softening = slider(PARAM_SOFTENING, 1e-4, 1.0),
        .damping = slider(PARAM_DAMPING, 0.9, 1.0),
        .theta = slider(PARAM_THETA, params_get(PARAM_THETA)->min, params_get(PARAM_THETA)->max),
        .alpha = slider(PARAM_ALPHA, 1e-5, 1e-2),
        .steps_per_frame = slider_int(PARAM_STEPS_PER_FRAME, 1, 64),
        .bodies = slider_int(PARAM_BODIES, 1, 1 << 20),
        .point_size = slider(PARAM_POINT_SIZE, 0.25, 8.0),
        .exposure = slider(PARAM_EXPOSURE, 0.05, 20.0),
        .cycle_seconds = {5.0f, 300.0f},
        /* The encounter's: a grazing pass to one far out, a head-on fall to a fly-by. */
        .mass_ratio = slider(PARAM_MASS_RATIO, params_get(PARAM_MASS_RATIO)->min, params_get(PARAM_MASS_RATIO)->max),
        .pericentre = slider(PARAM_PERICENTRE, 0.1, 20.0),
        .eccentricity = slider(PARAM_ECCENTRICITY, 0.2, 5.0),
        .inclination = slider(PARAM_INCLINATION_A, -180.0, 180.0),
        .widest_by_error = NBODY_TREE_REL_THETA,
    };
}

static UiForceError force_error(const ForceCheck *f)
{
    return (UiForceError){.samples = f->samples, .rms = f->rms, .p999 = f->p999, .worst = f->worst,
                          .median = f->median, .p99 = f->p99};
}

void ui_show_diagnostics(UiModel *m, const Diagnostics *d)
{
    m->readout.diag_valid = d != NULL;
    if (!d) return;
    m->readout.diag = (UiDiagnostics){.kinetic = d->kinetic, .potential = d->potential, .total = d->total,
                              .virial = d->virial};
    for (int i = 0; i < 3; i++) {
        m->readout.diag.momentum[i] = d->momentum[i];
        m->readout.diag.angular_momentum[i] = d->angular_momentum[i];
    }
}

void ui_show_force_check(UiModel *m, const ForceCheck *f)
{
    m->readout.force_check_valid = f != NULL;
    if (f) m->readout.force_check = force_error(f);
    if (f) m->readout.force_checks++;
}

void ui_show_live_error(UiModel *m, const ForceCheck *f)
{
    m->readout.live_error_valid = f != NULL;
    if (f) m->readout.live_error = force_error(f);
}

/* Named here, below both the run's actions and its observation, which each say it. */
void app_describe_opening(SimForce f, const SimParams *p, char *buf, size_t len)
{
    if (f == SIM_FORCE_TREE && p->alpha > 0) snprintf(buf, len, "alpha %.2g", (double)p->alpha);
    else if (f == SIM_FORCE_FMM && p->alpha > 0) /* the far field by theta, the near by alpha */
        snprintf(buf, len, "theta %.2f, alpha %.2g", (double)params_theta(p->theta), (double)p->alpha);
    else snprintf(buf, len, "theta %.2f", (double)params_theta(p->theta));
}
