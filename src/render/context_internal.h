/* What context.c shares with its two platforms (context_glfw.c, context_egl.c). Each platform
 * allocates its own struct that begins with a RenderContext and fills in the function table. */
#ifndef STARBURST_CONTEXT_INTERNAL_H
#define STARBURST_CONTEXT_INTERNAL_H

#include "render/context.h"

typedef struct RenderContextPlatform {
    void (*destroy)(RenderContext *c);
    void (*size)(const RenderContext *c, int *width, int *height);
    bool (*should_close)(RenderContext *c);
    void (*poll)(RenderContext *c);
    void (*swap)(RenderContext *c);
    void (*set_fullscreen)(RenderContext *c, bool on);
    void (*set_vsync)(RenderContext *c, bool on);
} RenderContextPlatform;

struct RenderContext {
    const RenderContextPlatform *platform;
    const char *platform_name;
    bool headless;
    bool fullscreen;
    GLFWwindow *window;      /* NULL when headless */
    unsigned int framebuffer; /* 0 in a window */
    char renderer[128], vendor[128];
};

RenderContext *render_context_create_glfw(const RenderContextDesc *desc, char *err, size_t errlen);
RenderContext *render_context_create_egl(const RenderContextDesc *desc, char *err, size_t errlen);
/* After the context is current and GLEW loaded: copies GL_RENDERER and GL_VENDOR, and checks
 * that the context offers GL 3.3. Returns 0, or -1 with err. */
int render_context_describe(RenderContext *c, char *err, size_t errlen);

#endif
