/* A GL 3.3 core context on one of two platforms: a GLFW window, or EGL headless (no window, no
 * X server; NVIDIA's EGL device platform where present, Mesa's otherwise) rendering into an
 * offscreen framebuffer of the requested size. The rest of the program draws into
 * render_context_framebuffer() and never asks which platform it is on. */
#ifndef STARBURST_CONTEXT_H
#define STARBURST_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct RenderContext RenderContext;
typedef struct GLFWwindow GLFWwindow;

typedef struct RenderContextDesc {
    int width, height; /* 0 = 1280 x 720 */
    bool headless;
    bool fullscreen;
    bool vsync;
    const char *title; /* NULL = "Starburst" */
} RenderContextDesc;

/* Creates the context and makes it current; loads GL entry points (GLEW). NULL with one line in
 * err on failure ("no display (DISPLAY unset or X unavailable): run with --headless, or serve the
 * run to a browser with starburst serve",
 * "EGL: no device offers OpenGL 3.3 core (last try: ...)"). */
RenderContext *render_context_create(const RenderContextDesc *desc, char *err, size_t errlen);
void render_context_destroy(RenderContext *c);

bool render_context_headless(const RenderContext *c);
GLFWwindow *render_context_window(RenderContext *c); /* NULL when headless */
/* The framebuffer to draw the final image into: 0 in a window, an FBO headless. */
unsigned int render_context_framebuffer(const RenderContext *c);
/* Size in pixels of that framebuffer; 0 x 0 while a window is minimised. */
void render_context_size(const RenderContext *c, int *width, int *height);
/* Window: a close was requested (the events come in through render_context_poll). Headless:
 * always false. */
bool render_context_should_close(RenderContext *c);
void render_context_poll(RenderContext *c);
/* Window: presents the back buffer (read it with capture_* before this). Headless: glFlush. */
void render_context_swap(RenderContext *c);
/* Window only: headless ignores them and is never full screen. */
void render_context_set_fullscreen(RenderContext *c, bool on);
bool render_context_fullscreen(const RenderContext *c);
void render_context_set_vsync(RenderContext *c, bool on);
/* GL_RENDERER and GL_VENDOR strings. */
const char *render_context_renderer(const RenderContext *c);
const char *render_context_vendor(const RenderContext *c);
/* Which platform opened the context: "glfw", "egl-device", "egl-surfaceless" or "egl-default". */
const char *render_context_platform(const RenderContext *c);

#endif
