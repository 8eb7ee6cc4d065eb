/* The view: the home camera of each scene, and the region of the window left of the panel. */
#include <GLFW/glfw3.h>
#include <math.h>
#include <string.h>

#include "app/viewer.h"
#include "app/view.h"

/* An encounter's bodies spread to 2-3 times their first extent once the tails are out: the home
 * view leaves room for most of that and still shows the disks as disks at the start. */
#define ENCOUNTER_MARGIN 1.6f

void app_camera_home(const App *a, Camera *home)
{
    const SceneKind kind = (SceneKind)(int)run_info(a->run)->kind;
    if (!run_source(a->run)->from_save && (kind == SCENE_COLLISION || kind == SCENE_TIPSY_COLLIDE))
        camera_init_view(home, run_info(a->run)->scene.extent, -0.5f * (float)M_PI, 0.5f * (float)M_PI, ENCOUNTER_MARGIN);
    else
        camera_init(home, run_info(a->run)->scene.extent);
    /* A pair that starts far apart: what is there, both galaxies with a margin (follow.c). */
    float target[3], distance;
    if (app_pair_view(a, home, target, &distance)) {
        memcpy(home->target, target, sizeof target);
        memcpy(home->home_target, target, sizeof target);
        home->distance = home->home_distance = distance;
    }
}

bool app_view_region(const App *a, int width, int height, CameraRegion *region)
{
    if (!a->ui_attached || !a->ui.controls.visible || width <= 0 || height <= 0) return false;
    const UiWidget *panel = NULL;
    for (int i = 0; i < a->ui.readout.widget_count && !panel; i++)
        if (strcmp(a->ui.readout.widgets[i].name, "panel") == 0) panel = &a->ui.readout.widgets[i];
    if (!panel) return false;
    /* The UI measures in window units, the view in framebuffer pixels. */
    float scale = 1;
    GLFWwindow *win = render_context_window(a->ctx);
    if (win) {
        int ww, wh;
        glfwGetWindowSize(win, &ww, &wh);
        if (ww > 0) scale = (float)width / (float)ww;
    }
    const float left = panel->x0 * scale;
    /* A panel reaching over most of the view leaves no region worth framing in. */
    if (!(left >= 0.2f * (float)width) || left > (float)width) return false;
    *region = (CameraRegion){0, 0, left, (float)height};
    return true;
}
