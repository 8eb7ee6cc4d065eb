/* The headless platform: an EGL context with no window and no X server, drawing into an RGBA8
 * framebuffer object. Displays are tried in order: each EGL device (NVIDIA's GPU on a server,
 * Mesa's software device elsewhere), Mesa's surfaceless platform, then the default display. */
#include <GL/glew.h>
#define EGL_NO_X11
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/context_internal.h"

typedef struct EglContext {
    RenderContext base;
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface; /* a 1 x 1 pbuffer where surfaceless contexts are not offered */
    GLuint color;       /* renderbuffer behind base.framebuffer */
    int width, height;
} EglContext;

static bool has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

static const char *egl_error_name(EGLint code)
{
    switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error";
    }
}

static void egl_release(EglContext *e)
{
    if (e->display == EGL_NO_DISPLAY) return;
    eglMakeCurrent(e->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (e->context != EGL_NO_CONTEXT) eglDestroyContext(e->display, e->context);
    if (e->surface != EGL_NO_SURFACE) eglDestroySurface(e->display, e->surface);
    eglTerminate(e->display);
    e->display = EGL_NO_DISPLAY;
    e->context = EGL_NO_CONTEXT;
    e->surface = EGL_NO_SURFACE;
}

/* Initialises `display` and makes a GL 3.3 core context current on it. On failure writes why
 * into err and leaves e without a display. */
static bool egl_try_display(EglContext *e, EGLDisplay display, char *err, size_t errlen)
{
    e->display = display;
    e->context = EGL_NO_CONTEXT;
    e->surface = EGL_NO_SURFACE;
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        snprintf(err, errlen, "eglInitialize failed (%s)", egl_error_name(eglGetError()));
        e->display = EGL_NO_DISPLAY;
        return false;
    }
    const char *extensions = eglQueryString(display, EGL_EXTENSIONS);
    bool surfaceless = has_extension(extensions, "EGL_KHR_surfaceless_context");
    if (major * 10 + minor < 15 && !has_extension(extensions, "EGL_KHR_create_context")) {
        snprintf(err, errlen, "EGL %d.%d without EGL_KHR_create_context cannot ask for a core profile",
                 (int)major, (int)minor);
        egl_release(e);
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(err, errlen, "eglBindAPI(EGL_OPENGL_API) failed: no desktop OpenGL");
        egl_release(e);
        return false;
    }
    const EGLint config_attribs[] = {
        EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
        EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
        EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
        EGL_NONE,
    };
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs < 1) {
        snprintf(err, errlen, "no EGL config renders desktop OpenGL");
        egl_release(e);
        return false;
    }
    const EGLint context_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3,
        EGL_CONTEXT_MINOR_VERSION, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        EGL_NONE,
    };
    e->context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (e->context == EGL_NO_CONTEXT) {
        snprintf(err, errlen, "no OpenGL 3.3 core context (%s)", egl_error_name(eglGetError()));
        egl_release(e);
        return false;
    }
    if (!surfaceless) {
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        e->surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
        if (e->surface == EGL_NO_SURFACE) {
            snprintf(err, errlen, "no pbuffer surface (%s)", egl_error_name(eglGetError()));
            egl_release(e);
            return false;
        }
    }
    if (!eglMakeCurrent(display, e->surface, e->surface, e->context)) {
        snprintf(err, errlen, "eglMakeCurrent failed (%s)", egl_error_name(eglGetError()));
        egl_release(e);
        return false;
    }
    return true;
}

/* Walks the displays in order of preference; true with a current context on the first that
 * works, else err says why the last one failed. */
static bool egl_open(EglContext *e, char *err, size_t errlen)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    char why[192] = "no EGL display";

    if (get_platform_display && query_devices && has_extension(client, "EGL_EXT_platform_device")) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (query_devices(16, devices, &count)) {
            for (EGLint i = 0; i < count; i++) {
                EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                if (egl_try_display(e, d, why, sizeof why)) {
                    e->base.platform_name = "egl-device";
                    return true;
                }
            }
        }
    }
    if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (egl_try_display(e, d, why, sizeof why)) {
            e->base.platform_name = "egl-surfaceless";
            return true;
        }
    }
    if (egl_try_display(e, eglGetDisplay(EGL_DEFAULT_DISPLAY), why, sizeof why)) {
        e->base.platform_name = "egl-default";
        return true;
    }
    snprintf(err, errlen, "EGL: no device offers OpenGL 3.3 core (last try: %s); is the GPU driver's EGL (or libegl-mesa0) installed?", why);
    return false;
}

static void egl_destroy(RenderContext *c)
{
    EglContext *e = (EglContext *)c;
    if (e->context != EGL_NO_CONTEXT) {
        if (c->framebuffer) glDeleteFramebuffers(1, &c->framebuffer);
        if (e->color) glDeleteRenderbuffers(1, &e->color);
    }
    egl_release(e);
    eglReleaseThread();
    free(e);
}

static void egl_size(const RenderContext *c, int *width, int *height)
{
    const EglContext *e = (const EglContext *)c;
    *width = e->width;
    *height = e->height;
}

static bool egl_should_close(RenderContext *c) { return false; }
static void egl_poll(RenderContext *c) {}
/* Nothing is presented; flushing keeps a long headless run from queueing unbounded work. */
static void egl_swap(RenderContext *c) { glFlush(); }
static void egl_set_fullscreen(RenderContext *c, bool on) {}
static void egl_set_vsync(RenderContext *c, bool on) {}

static const RenderContextPlatform egl_platform = {
    .destroy = egl_destroy,
    .size = egl_size,
    .should_close = egl_should_close,
    .poll = egl_poll,
    .swap = egl_swap,
    .set_fullscreen = egl_set_fullscreen,
    .set_vsync = egl_set_vsync,
};

RenderContext *render_context_create_egl(const RenderContextDesc *desc, char *err, size_t errlen)
{
    EglContext *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    RenderContext *c = &e->base;
    c->platform = &egl_platform;
    c->headless = true;
    e->display = EGL_NO_DISPLAY;
    e->context = EGL_NO_CONTEXT;
    e->surface = EGL_NO_SURFACE;
    e->width = desc->width;
    e->height = desc->height;
    if (!egl_open(e, err, errlen)) {
        free(e);
        return NULL;
    }

    /* Debian's GLEW is built for GLX: under EGL it loads every GL entry point and then reports
     * that it found no GLX display. */
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    if (glew != GLEW_OK && glew != GLEW_ERROR_NO_GLX_DISPLAY) {
        snprintf(err, errlen, "GLEW: cannot load OpenGL entry points: %s",
                 (const char *)glewGetErrorString(glew));
        egl_destroy(c);
        return NULL;
    }
    if (!glGenFramebuffers || !glGenVertexArrays || !glCreateShader || !glBufferSubData) {
        snprintf(err, errlen, "GLEW: OpenGL 3.3 entry points missing under EGL (glewInit returned %d)",
                 (int)glew);
        egl_destroy(c);
        return NULL;
    }
    if (render_context_describe(c, err, errlen) != 0) {
        egl_destroy(c);
        return NULL;
    }

    GLint max_size = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    if (e->width > max_size || e->height > max_size) {
        snprintf(err, errlen, "headless size %dx%d exceeds what %s renders (%d per side)", e->width,
                 e->height, c->renderer, (int)max_size);
        egl_destroy(c);
        return NULL;
    }
    glGenRenderbuffers(1, &e->color);
    glBindRenderbuffer(GL_RENDERBUFFER, e->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, e->width, e->height);
    glGenFramebuffers(1, &c->framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, c->framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, e->color);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(err, errlen, "headless framebuffer %dx%d incomplete (status 0x%04x)", e->width,
                 e->height, (unsigned)status);
        egl_destroy(c);
        return NULL;
    }
    glViewport(0, 0, e->width, e->height);
    return c;
}
