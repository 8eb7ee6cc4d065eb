/* The window platform: a GLFW window with a GL 3.3 core context, drawn into framebuffer 0. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/context_internal.h"

typedef struct GlfwContext {
    RenderContext base;
    int windowed_x, windowed_y, windowed_w, windowed_h;
    bool vsync;
} GlfwContext;

/* GLFW reports errors through a callback without a user pointer: keep the last one here so
 * that a failing call can put it into its message. */
static char glfw_last_error[256];

static void glfw_error(int code, const char *description)
{
    snprintf(glfw_last_error, sizeof glfw_last_error, "%s", description);
}

static void glfw_destroy(RenderContext *c)
{
    glfwDestroyWindow(c->window);
    glfwTerminate();
    free(c);
}

static void glfw_size(const RenderContext *c, int *width, int *height)
{
    glfwGetFramebufferSize(c->window, width, height);
}

static bool glfw_should_close(RenderContext *c) { return glfwWindowShouldClose(c->window); }
/* A minimised window shows nothing: wait for events a little instead of spinning. */
static void glfw_poll(RenderContext *c)
{
    if (glfwGetWindowAttrib(c->window, GLFW_ICONIFIED)) glfwWaitEventsTimeout(0.05);
    else glfwPollEvents();
}
static void glfw_swap(RenderContext *c) { glfwSwapBuffers(c->window); }

static void glfw_set_vsync(RenderContext *c, bool on)
{
    ((GlfwContext *)c)->vsync = on;
    glfwSwapInterval(on ? 1 : 0);
}

static void glfw_set_fullscreen(RenderContext *c, bool on)
{
    GlfwContext *g = (GlfwContext *)c;
    if (on == c->fullscreen) return;
    if (on) {
        GLFWmonitor *monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
        if (!mode) return;
        glfwGetWindowPos(c->window, &g->windowed_x, &g->windowed_y);
        glfwGetWindowSize(c->window, &g->windowed_w, &g->windowed_h);
        glfwSetWindowMonitor(c->window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(c->window, NULL, g->windowed_x, g->windowed_y, g->windowed_w,
                             g->windowed_h, 0);
    }
    c->fullscreen = on;
    /* Some drivers drop the swap interval when the window changes monitor. */
    glfw_set_vsync(c, g->vsync);
}

static const RenderContextPlatform glfw_platform = {
    .destroy = glfw_destroy,
    .size = glfw_size,
    .should_close = glfw_should_close,
    .poll = glfw_poll,
    .swap = glfw_swap,
    .set_fullscreen = glfw_set_fullscreen,
    .set_vsync = glfw_set_vsync,
};

static bool display_missing(void)
{
    const char *x = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    return (!x || !*x) && (!wayland || !*wayland);
}

RenderContext *render_context_create_glfw(const RenderContextDesc *desc, char *err, size_t errlen)
{
    glfw_last_error[0] = '\0';
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit()) {
        if (display_missing() || strstr(glfw_last_error, "isplay"))
            snprintf(err, errlen, "no display (DISPLAY unset or X unavailable): run with --headless, or serve the run to a browser with starburst serve");
        else
            snprintf(err, errlen, "GLFW: cannot initialise: %s", glfw_last_error);
        return NULL;
    }
    GlfwContext *g = calloc(1, sizeof *g);
    if (!g) {
        glfwTerminate();
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    RenderContext *c = &g->base;
    c->platform = &glfw_platform;
    c->platform_name = "glfw";
    g->windowed_w = desc->width;
    g->windowed_h = desc->height;
    g->vsync = desc->vsync;

    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    GLFWmonitor *monitor = desc->fullscreen ? glfwGetPrimaryMonitor() : NULL;
    const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
    if (mode) {
        glfwWindowHint(GLFW_REFRESH_RATE, mode->refreshRate);
        c->window = glfwCreateWindow(mode->width, mode->height, desc->title, monitor, NULL);
        c->fullscreen = true;
        /* Leaving full screen later restores a window of the requested size, centred. */
        g->windowed_x = (mode->width - desc->width) / 2;
        g->windowed_y = (mode->height - desc->height) / 2;
    } else {
        c->window = glfwCreateWindow(desc->width, desc->height, desc->title, NULL, NULL);
    }
    if (!c->window) {
        snprintf(err, errlen, "GLFW: cannot create a window with OpenGL 3.3 core: %s",
                 glfw_last_error[0] ? glfw_last_error : "unknown error");
        free(g);
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(c->window);
    glfwSwapInterval(desc->vsync ? 1 : 0);

    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    if (glew != GLEW_OK) {
        snprintf(err, errlen, "GLEW: cannot load OpenGL entry points: %s",
                 (const char *)glewGetErrorString(glew));
        glfw_destroy(c);
        return NULL;
    }
    if (render_context_describe(c, err, errlen) != 0) {
        glfw_destroy(c);
        return NULL;
    }
    return c;
}
