/* Platform-neutral half of the render context: dispatch to the GLFW or EGL platform, and the
 * checks both run once GL is loaded. */
#include <GL/glew.h>

#include <stdio.h>
#include <string.h>

#include "render/context_internal.h"

RenderContext *render_context_create(const RenderContextDesc *desc, char *err, size_t errlen)
{
    RenderContextDesc d = desc ? *desc : (RenderContextDesc){0};
    if (d.width <= 0 || d.height <= 0) {
        d.width = 1280;
        d.height = 720;
    }
    if (!d.title) d.title = "Starburst";
    return d.headless ? render_context_create_egl(&d, err, errlen)
                      : render_context_create_glfw(&d, err, errlen);
}

void render_context_destroy(RenderContext *c)
{
    if (c) c->platform->destroy(c);
}

int render_context_describe(RenderContext *c, char *err, size_t errlen)
{
    /* glewInit queries extensions the pre-3.0 way, which a core context flags as an error. */
    while (glGetError() != GL_NO_ERROR) {
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *vendor = (const char *)glGetString(GL_VENDOR);
    snprintf(c->renderer, sizeof c->renderer, "%s", renderer ? renderer : "unknown");
    snprintf(c->vendor, sizeof c->vendor, "%s", vendor ? vendor : "unknown");
    const char *version = (const char *)glGetString(GL_VERSION);
    int major = 0, minor = 0;
    if (version) sscanf(version, "%d.%d", &major, &minor);
    if (major * 10 + minor < 33) {
        snprintf(err, errlen, "%s offers OpenGL %s; Starburst needs 3.3 core", c->renderer,
                 version ? version : "(none)");
        return -1;
    }
    return 0;
}

bool render_context_headless(const RenderContext *c) { return c->headless; }
GLFWwindow *render_context_window(RenderContext *c) { return c->window; }
unsigned int render_context_framebuffer(const RenderContext *c) { return c->framebuffer; }
const char *render_context_renderer(const RenderContext *c) { return c->renderer; }
const char *render_context_vendor(const RenderContext *c) { return c->vendor; }
const char *render_context_platform(const RenderContext *c) { return c->platform_name; }
bool render_context_fullscreen(const RenderContext *c) { return c->fullscreen; }

void render_context_size(const RenderContext *c, int *width, int *height)
{
    c->platform->size(c, width, height);
}

bool render_context_should_close(RenderContext *c) { return c->platform->should_close(c); }
void render_context_poll(RenderContext *c) { c->platform->poll(c); }
void render_context_swap(RenderContext *c) { c->platform->swap(c); }
void render_context_set_fullscreen(RenderContext *c, bool on) { c->platform->set_fullscreen(c, on); }
void render_context_set_vsync(RenderContext *c, bool on) { c->platform->set_vsync(c, on); }
