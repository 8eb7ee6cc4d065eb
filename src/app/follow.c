/* G: the camera follows galaxy A, galaxy B or the whole system. */
#include <math.h>

#include "app/viewer.h"

static const char *const follow_names[] = {"nothing", "galaxy A", "galaxy B", "the whole system"};

/* Samples the centre of mass being followed (a host copy of the bodies a few times a second,
 * never every frame) and moves the camera's target towards it. */
void app_follow(App *a, double t, float seconds)
{
    if (a->follow.mode == 0) return;
    if (t >= a->follow.next) {
        a->follow.next = t + 0.1;
        run_read_state(a->run);
        double c[3];
        a->follow.valid = bodies_group_centre(&run_copy(a->run)->bodies, a->follow.mode == 3 ? -1 : a->follow.mode - 1, c) > 0;
        for (int k = 0; k < 3 && a->follow.valid; k++) a->follow.target[k] = (float)c[k];
    }
    if (!a->follow.valid) return;
    /* About a third of a second to close most of the gap: smooth, yet it keeps up. */
    float blend = 1.0f - expf(-seconds / 0.3f);
    for (int k = 0; k < 3; k++) a->camera.target[k] += (a->follow.target[k] - a->camera.target[k]) * blend;
}

void app_cycle_follow(App *a)
{
    a->follow.mode = (a->follow.mode + 1) % 4;
    a->follow.next = 0;
    a->follow.valid = false;
    app_notify(a, "Camera follows %s", follow_names[a->follow.mode]);
}
