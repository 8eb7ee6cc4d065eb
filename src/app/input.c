/* The window's keys and mouse. Keys raise requests (taken by app_take_requests) or flip a view
 * setting; the mouse moves the camera. Ours are installed before the UI's, which chains to them.
 * The served page's keys and drags (remote.c) come in through the same functions. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include "app/viewer.h"
#include "app/view.h"
#include "util/clock.h"

/* A key of the window's, or of the served page's (src/app/remote.c): GLFW's key codes and mods. */
void app_press_key(App *a, int key, int mods)
{
    UiModel *u = &a->ui;
    switch (key) {
    case GLFW_KEY_SPACE:
        u->controls.paused = !u->controls.paused;
        app_notify(a, u->controls.paused ? "Paused (space resumes)" : "Running");
        break;
    case GLFW_KEY_PERIOD: u->actions.step_once = true; break;
    case GLFW_KEY_R: u->actions.reset = true; break;
    case GLFW_KEY_BACKSPACE: u->actions.defaults = true; break;
    case GLFW_KEY_Z:
        if ((mods & GLFW_MOD_CONTROL) && (mods & GLFW_MOD_SHIFT)) u->actions.redo = true;
        else if (mods & GLFW_MOD_CONTROL) u->actions.undo = true;
        break;
    case GLFW_KEY_Y:
        if (mods & GLFW_MOD_CONTROL) u->actions.redo = true;
        break;
    case GLFW_KEY_H: u->controls.visible = !u->controls.visible; break;
    case GLFW_KEY_F:
        render_context_set_fullscreen(a->ctx, !render_context_fullscreen(a->ctx));
        app_notify(a, render_context_fullscreen(a->ctx) ? "Full screen (F leaves)" : "Window");
        break;
    case GLFW_KEY_A:
        u->controls.auto_rotate = !u->controls.auto_rotate;
        app_notify(a, u->controls.auto_rotate ? "Auto-rotation on" : "Auto-rotation off");
        break;
    case GLFW_KEY_G: app_cycle_follow(a); break;
    case GLFW_KEY_L: u->controls.lecture = !u->controls.lecture; break;
    case GLFW_KEY_D:
        u->controls.show_halo = !u->controls.show_halo;
        if (u->readout.field_halos > 0)
            app_notify(a, u->controls.show_halo ? "Dark-matter halos shown: each ring holds half a halo's mass (D hides them)"
                                                : "Dark-matter halos hidden (D shows them)");
        else app_notify(a, u->controls.show_halo ? "Dark-matter halo shown" : "Dark-matter halo hidden");
        break;
    case GLFW_KEY_M:
        u->controls.color_mode = (u->controls.color_mode + 1) % COLOR_MODE_COUNT;
        app_notify(a, "Colour by %s", renderer_color_mode_name((ColorMode)u->controls.color_mode));
        break;
    case GLFW_KEY_K: u->actions.measure_ladder = true; break;
    case GLFW_KEY_T:
        u->controls.show_tree = !u->controls.show_tree;
        app_say_tree(a);
        break;
    case GLFW_KEY_P: a->req.screenshot = true; break;
    case GLFW_KEY_HOME:
        u->actions.reset_camera = true;
        app_notify(a, "Camera reset");
        break;
    case GLFW_KEY_S: a->req.save = true; break;
    /* The timeline: Left / Right a keyframe, ctrl for its ends, shift+Left plays backwards. */
    case GLFW_KEY_LEFT:
        if (mods & GLFW_MOD_CONTROL) a->req.timeline_start = true;
        else if (mods & GLFW_MOD_SHIFT) a->req.timeline_play_back = true;
        else a->req.timeline_step--;
        break;
    case GLFW_KEY_RIGHT:
        if (mods & GLFW_MOD_CONTROL) a->req.timeline_end = true;
        else a->req.timeline_step++;
        break;
    case GLFW_KEY_V: a->req.record = true; break;
    case GLFW_KEY_LEFT_BRACKET: a->req.preset_step--; break;
    case GLFW_KEY_RIGHT_BRACKET: a->req.preset_step++; break;
    case GLFW_KEY_C:
        u->controls.cycling = !u->controls.cycling;
        a->presets.cycle_next = clock_seconds() + u->controls.cycle_seconds;
        if (u->controls.cycling) app_notify(a, "Cycling through the presets every %.0f s (C stops)", u->controls.cycle_seconds);
        else app_notify(a, "Preset cycling off");
        break;
    default: break;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    App *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS) return;
    a->keys.pressed++;
    if (a->ui_attached && ui_wants_keyboard()) {
        a->keys.captured++;
        return;
    }
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
    else app_press_key(a, key, mods);
}

/* The camera turned by a left drag of dx, dy window units. The user's own view is kept: the pair
 * is no longer framed for them. */
void app_orbit(App *a, float dx, float dy)
{
    if (dx == 0 && dy == 0) return;
    app_follow_pair_stop(a);
    camera_orbit(&a->camera, dx, dy);
}

/* The camera moved by a right drag of dx, dy window units, window_per_pixel of them to a pixel of
 * the framebuffer: the pan follows the cursor over the framebuffer's region. */
void app_pan(App *a, float dx, float dy, float window_per_pixel)
{
    int fw, fh;
    render_context_size(a->ctx, &fw, &fh);
    if ((dx == 0 && dy == 0) || fw <= 0 || fh <= 0) return;
    app_follow_pair_stop(a);
    CameraRegion region;
    const bool framed = app_view_region(a, fw, fh, &region);
    camera_pan(&a->camera, dx, dy, camera_region_side(fw, fh, framed ? &region : NULL) * window_per_pixel);
}

void app_zoom(App *a, float turns)
{
    app_follow_pair_stop(a);
    camera_zoom(&a->camera, turns);
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods)
{
    App *a = glfwGetWindowUserPointer(w);
    if (action == GLFW_PRESS) a->mouse.presses++;
    if (action == GLFW_RELEASE) {
        a->mouse.orbiting = a->mouse.panning = false;
        return;
    }
    if (a->ui_attached && ui_wants_mouse()) return;
    glfwGetCursorPos(w, &a->mouse.x, &a->mouse.y);
    bool pan = button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE ||
               (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT));
    a->mouse.panning = pan;
    a->mouse.orbiting = !pan && button == GLFW_MOUSE_BUTTON_LEFT;
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    App *a = glfwGetWindowUserPointer(w);
    float dx = (float)(x - a->mouse.x), dy = (float)(y - a->mouse.y);
    a->mouse.x = x;
    a->mouse.y = y;
    if (a->mouse.orbiting) app_orbit(a, dx, dy);
    if (a->mouse.panning) {
        int width, height, fw, fh;
        glfwGetWindowSize(w, &width, &height);
        glfwGetFramebufferSize(w, &fw, &fh);
        app_pan(a, dx, dy, fw > 0 ? (float)width / (float)fw : 1.0f);
    }
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    App *a = glfwGetWindowUserPointer(w);
    a->mouse.wheel_turns++;
    if (a->ui_attached && ui_wants_mouse()) return;
    app_zoom(a, (float)dy);
}

/* Installs the callbacks on the window; app is what they act on. */
void app_input_attach(App *a, GLFWwindow *win)
{
    glfwSetWindowUserPointer(win, a);
    glfwSetKeyCallback(win, on_key);
    glfwSetMouseButtonCallback(win, on_mouse_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);
}
