/* The view: the home camera of each scene, and the region of the window left of the panel. */
#include <GLFW/glfw3.h>
#include <math.h>
#include <string.h>

#include "app/viewer.h"
#include "app/view.h"

void app_camera_home(const App *a, Camera *home)
{
    const bool encounter = run_is_encounter(a->run);
    CameraPair pair;
    bool paired = false;
    if (encounter) {
        run_read_state(a->run);
        paired = bodies_pair_light(&run_copy(a->run)->bodies, pair.centre, pair.radius);
    }
    camera_home(home, run_info(a->run)->scene.extent, encounter, paired ? &pair : NULL);
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
