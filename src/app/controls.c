/* The panel's controls as the run's parameters: the one place they are read (app_ui_params), and
 * the one place they are written back (an undo, the defaults). */
#include "app/viewer.h"
#include "util/params.h"

SimParams app_ui_params(const App *a)
{
    const UiControls *c = &a->ui.controls;
    return (SimParams){.dt = c->dt, .softening = c->softening, .damping = c->damping, .theta = c->theta,
                       .alpha = c->alpha};
}

void app_set_alpha(App *a, float alpha)
{
    UiControls *c = &a->ui.controls;
    c->alpha = alpha > 0 ? alpha : 0;
    if (alpha > 0) c->alpha_kept = alpha;
    else if (!(c->alpha_kept > 0)) c->alpha_kept = params_alpha(-1);
}

void app_set_params(App *a, const SimParams *p)
{
    UiControls *c = &a->ui.controls;
    c->dt = p->dt;
    c->softening = p->softening;
    c->damping = p->damping;
    if (p->theta > 0) c->theta = p->theta;
    if (p->alpha >= 0) app_set_alpha(a, p->alpha);
}
