/* The panel's controls as the run's parameters: the one place they are read (app_ui_params), and
 * the one place they are written back (an undo, the defaults). */
#include "app/viewer.h"

SimParams app_ui_params(const App *a)
{
    const UiControls *c = &a->ui.controls;
    return (SimParams){.dt = c->dt, .softening = c->softening, .damping = c->damping, .theta = c->theta};
}

void app_set_params(App *a, const SimParams *p)
{
    UiControls *c = &a->ui.controls;
    c->dt = p->dt;
    c->softening = p->softening;
    c->damping = p->damping;
    if (p->theta > 0) c->theta = p->theta;
}
