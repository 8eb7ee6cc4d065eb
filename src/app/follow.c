/* The camera follows: G, galaxy A, galaxy B or the whole system; and by itself the pair of an
 * encounter that starts far apart, framed with a margin as it approaches (the Milky Way and
 * Andromeda start 770 kpc apart: a view of that start shows two dots until they meet), until the
 * user moves the camera. */
#include <math.h>

#include "app/viewer.h"

static const char *const follow_names[] = {"nothing", "galaxy A", "galaxy B", "the whole system"};

/* Seconds for the view to close most of the gap to the pair's frame: smooth, yet it keeps up. */
#define PAIR_SECONDS 0.5f

/* The frame holding both galaxies' light with a margin, for camera c; with far_apart, only where
 * the pair starts far apart. False where b is not two galaxies with stars. */
static bool pair_frame(const Bodies *b, const Camera *c, bool far_apart, float target[3], float *distance)
{
    CameraPair pair;
    return bodies_pair_light(b, pair.centre, pair.radius) && camera_pair_frame(c, &pair, far_apart, target, distance);
}

bool app_pair_view(const App *a, const Camera *c, float target[3], float *distance)
{
    if (!run_is_encounter(a->run)) return false;
    run_read_state(a->run);
    return pair_frame(&run_copy(a->run)->bodies, c, true, target, distance);
}

void app_follow_pair_start(App *a)
{
    float target[3], distance;
    a->follow.pair = a->follow.mode == 0 && app_pair_view(a, &a->camera, target, &distance);
    a->follow.pair_valid = false;
    a->follow.pair_next = 0;
}

void app_follow_pair_stop(App *a) { a->follow.pair = false; }

/* The pair's frame sampled a few times a second (a host copy of the bodies, never every frame);
 * the view moves towards it once a glide (a preset's, Home) is over. */
static void follow_pair(App *a, double t, float seconds)
{
    if (t >= a->follow.pair_next) {
        a->follow.pair_next = t + 0.1;
        run_read_state(a->run);
        a->follow.pair_valid =
            pair_frame(&run_copy(a->run)->bodies, &a->camera, false, a->follow.pair_target, &a->follow.pair_distance);
    }
    if (a->follow.pair_valid && a->camera.glide_seconds == 0)
        camera_approach(&a->camera, a->follow.pair_target, a->follow.pair_distance, seconds, PAIR_SECONDS);
}

/* Samples the centre of mass being followed (a host copy of the bodies a few times a second,
 * never every frame) and moves the camera's target towards it. */
void app_follow(App *a, double t, float seconds)
{
    if (a->follow.pair) follow_pair(a, t, seconds);
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
    app_follow_pair_stop(a);
    app_notify(a, "Camera follows %s", follow_names[a->follow.mode]);
}
