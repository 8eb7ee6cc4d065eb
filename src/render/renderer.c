/* Two passes: bodies as additive Gaussian sprites into an RGBA16F target the size of the view,
 * then one full-screen triangle that tonemaps it into the caller's framebuffer; or, drawn by CUDA
 * (render/splat.h), both passes in CUDA into an RGBA8 texture that GL copies to the framebuffer.
 * The boxes go on top, after the tonemap: lines of a fixed brightness whatever the exposure,
 * instanced (a cube's 12 edges, one instance a box). */
#include <GL/glew.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glow.h"
#include "render/renderer.h"
#ifdef STARBURST_HAVE_CUDA
#include "render/splat.h"
#endif

/* Generated at build time from shaders/. */
const char *shader_embedded(const char *name);

/* Sprite diameter in pixels at point_size 1, on a view 1080 pixels high. */
#define BASE_SPRITE_PX 3.0f
/* Peak light of one disk sprite in a system of REFERENCE_BODIES; it scales as 1/sqrt(n), a
 * middle way between constant light per body (dense runs burn out) and constant total light
 * (single stars of large runs vanish). */
#define BASE_BRIGHTNESS 1.6f
#define REFERENCE_BODIES 16384.0f
/* Below REFERENCE_BODIES a body stands for more stars: its sprite's side grows as
 * (REFERENCE_BODIES / n)^(1/4), so that with the brightness's 1/sqrt(n) the whole light and the
 * area the sprites cover stay those of REFERENCE_BODIES bodies; a galaxy of a few thousand bodies
 * (the CPU's) reads as a galaxy, not as scattered dots. Capped for very small systems. */
#define SMALL_N_GROWTH_MAX 3.0f
#define GLOW 0.3f
/* The HDR target's sides are multiples of this: every level the glow reads halves evenly. */
#define HDR_PAD GLOW_PAD
/* Light of a box's lines at level 0 on the tonemapped image; each level below has BOX_FADE of the
 * one above, so the many small cells of a dense core stay a haze instead of a white block. */
#define BOX_GAIN 0.2f
#define BOX_FADE 0.7f

typedef struct BodiesProgram {
    GLuint id;
    GLint view, proj, size, max_size, focus, mass_ref, brightness, color_mode, speed_scale, show_halo;
} BodiesProgram;

typedef struct TonemapProgram {
    GLuint id;
    GLint hdr, glow3, glow4, exposure, glow, uv_scale;
} TonemapProgram;

typedef struct GlowProgram {
    GLuint id;
    GLint src, lod, step, radius, weight;
} GlowProgram;

typedef struct BoxesProgram {
    GLuint id;
    GLint view, proj, gain, fade;
} BoxesProgram;

typedef struct RingsProgram {
    GLuint id;
    GLint view, proj, radius, color;
} RingsProgram;

/* The programs a renderer draws with, built and rebuilt (renderer_reload) together. */
typedef struct Programs {
    BodiesProgram bodies;
    TonemapProgram tonemap;
    GlowProgram glow;
    BoxesProgram boxes;
    RingsProgram rings;
} Programs;

/* The halo fields' rings: a faint violet, lines of a fixed brightness as the boxes are; each ring
 * a loop of RING_POINTS. */
#define RING_POINTS 96
#define RING_RED 0.30f
#define RING_GREEN 0.22f
#define RING_BLUE 0.55f

struct Renderer {
    int max_bodies;
    char *shader_dir;
    GLuint vao, position_vbo, speed_vbo, tag_vbo;
    GLuint empty_vao; /* core profile draws need a VAO bound, even without attributes */
    BodiesProgram bodies;
    TonemapProgram tonemap;
    GlowProgram glow;
    BoxesProgram boxes;
    RingsProgram rings;
    GLuint box_vao, cube_vbo, box_vbo;
    int box_count, box_capacity;
    GLuint ring_vao, ring_vbo;
    int ring_count; /* the halo fields whose centres are the last ring_count bodies */
    float ring_radius[RENDER_RINGS_MAX];
    GLuint hdr_fbo, hdr_texture;
    int hdr_width, hdr_height; /* the view's size; the texture is padded to HDR_PAD */
    int hdr_padded_width, hdr_padded_height;
    /* The glow's blurred levels (kernels/glow.h): [b][0] across, [b][1] then up, which the tonemap reads. */
    GLuint blur_fbo[GLOW_BLURS][2], blur_texture[GLOW_BLURS][2];
    GLuint ldr_fbo, ldr_texture; /* CUDA's tonemapped image (RGBA8), copied to the view's framebuffer */
    int ldr_width, ldr_height;
    /* The view's framebuffer as CUDA may write it: its RGBA8 renderbuffer of the view's size (a
     * headless context's), found for framebuffer direct_fbo at direct_width x direct_height; 0 =
     * none (a window's, or another kind): CUDA's image is copied. */
    GLuint direct_fbo, direct_renderbuffer;
    int direct_width, direct_height;
    bool direct_known;
    float mass_ref;
    float max_point_size;
#ifdef STARBURST_HAVE_CUDA
    Splat *splat; /* made at the first frame CUDA draws */
#endif
    bool splat_tried;     /* a splat was made, or could not be (draw_note says why) */
    uint8_t *tags_sent;   /* the tags renderer_upload_device last uploaded (max_bodies), to upload only others */
    int tags_sent_n;
    RenderDraw drawn_by;  /* the last frame's */
    char draw_note[256];
};

/* Copies a GL info log into err after `prefix`, its lines joined so that err stays one line. */
static void put_log(char *err, size_t errlen, const char *prefix, const char *log)
{
    int used = snprintf(err, errlen, "%s", prefix);
    if (used < 0 || (size_t)used >= errlen) return;
    size_t at = (size_t)used;
    for (const char *p = log; *p && at + 1 < errlen; p++) {
        if (*p == '\n') {
            if (p[1] == '\0') break;
            if (at + 3 >= errlen) break;
            err[at++] = ' ';
            err[at++] = '|';
            err[at++] = ' ';
        } else if (*p != '\r') {
            err[at++] = *p;
        }
    }
    err[at] = '\0';
}

/* The text of shader `name`: from shader_dir (malloc'd, *owned set) or embedded. */
static const char *shader_source(const Renderer *r, const char *name, char **owned, char *err, size_t errlen)
{
    *owned = NULL;
    if (!r->shader_dir) {
        const char *text = shader_embedded(name);
        if (!text) snprintf(err, errlen, "shader %s is not embedded in this build", name);
        return text;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", r->shader_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read shader %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
        fclose(f);
        *owned = text;
        return text;
    }
    snprintf(err, errlen, "cannot read shader %s: %s", path, size < 0 ? strerror(errno) : "short read");
    free(text);
    fclose(f);
    return NULL;
}

static GLuint compile(const Renderer *r, GLenum type, const char *name, char *err, size_t errlen)
{
    char *owned;
    const char *text = shader_source(r, name, &owned, err, errlen);
    if (!text) return 0;
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &text, NULL);
    glCompileShader(shader);
    free(owned);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "", prefix[128];
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        snprintf(prefix, sizeof prefix, "%s does not compile: ", name);
        put_log(err, errlen, prefix, log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint link(const Renderer *r, const char *vert, const char *frag, char *err, size_t errlen)
{
    GLuint vs = compile(r, GL_VERTEX_SHADER, vert, err, errlen);
    if (!vs) return 0;
    GLuint fs = compile(r, GL_FRAGMENT_SHADER, frag, err, errlen);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = "", prefix[160];
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        snprintf(prefix, sizeof prefix, "%s + %s do not link: ", vert, frag);
        put_log(err, errlen, prefix, log);
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

static void delete_programs(Programs *p)
{
    const GLuint ids[] = {p->bodies.id, p->tonemap.id, p->glow.id, p->boxes.id, p->rings.id};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
        if (ids[k]) glDeleteProgram(ids[k]);
    *p = (Programs){0};
}

static int build_programs(const Renderer *r, Programs *p, char *err, size_t errlen)
{
    BodiesProgram *b = &p->bodies;
    TonemapProgram *t = &p->tonemap;
    GlowProgram *w = &p->glow;
    BoxesProgram *x = &p->boxes;
    RingsProgram *g = &p->rings;
    *p = (Programs){0};
    if (!(b->id = link(r, "bodies.vert", "bodies.frag", err, errlen)) ||
        !(t->id = link(r, "tonemap.vert", "tonemap.frag", err, errlen)) ||
        !(w->id = link(r, "tonemap.vert", "glow.frag", err, errlen)) ||
        !(x->id = link(r, "boxes.vert", "boxes.frag", err, errlen)) ||
        !(g->id = link(r, "rings.vert", "boxes.frag", err, errlen))) {
        delete_programs(p);
        return -1;
    }
    b->view = glGetUniformLocation(b->id, "u_view");
    b->proj = glGetUniformLocation(b->id, "u_proj");
    b->size = glGetUniformLocation(b->id, "u_size");
    b->max_size = glGetUniformLocation(b->id, "u_max_size");
    b->focus = glGetUniformLocation(b->id, "u_focus");
    b->mass_ref = glGetUniformLocation(b->id, "u_mass_ref");
    b->brightness = glGetUniformLocation(b->id, "u_brightness");
    b->color_mode = glGetUniformLocation(b->id, "u_color_mode");
    b->speed_scale = glGetUniformLocation(b->id, "u_speed_scale");
    b->show_halo = glGetUniformLocation(b->id, "u_show_halo");
    t->hdr = glGetUniformLocation(t->id, "u_hdr");
    t->glow3 = glGetUniformLocation(t->id, "u_glow3");
    t->glow4 = glGetUniformLocation(t->id, "u_glow4");
    w->src = glGetUniformLocation(w->id, "u_src");
    w->lod = glGetUniformLocation(w->id, "u_lod");
    w->step = glGetUniformLocation(w->id, "u_step");
    w->radius = glGetUniformLocation(w->id, "u_radius");
    w->weight = glGetUniformLocation(w->id, "u_weight");
    t->exposure = glGetUniformLocation(t->id, "u_exposure");
    t->glow = glGetUniformLocation(t->id, "u_glow");
    t->uv_scale = glGetUniformLocation(t->id, "u_uv_scale");
    x->view = glGetUniformLocation(x->id, "u_view");
    x->proj = glGetUniformLocation(x->id, "u_proj");
    x->gain = glGetUniformLocation(x->id, "u_gain");
    x->fade = glGetUniformLocation(x->id, "u_fade");
    g->view = glGetUniformLocation(g->id, "u_view");
    g->proj = glGetUniformLocation(g->id, "u_proj");
    g->radius = glGetUniformLocation(g->id, "u_radius");
    g->color = glGetUniformLocation(g->id, "u_color");
    return 0;
}

static Programs programs_of(const Renderer *r)
{
    return (Programs){.bodies = r->bodies, .tonemap = r->tonemap, .glow = r->glow, .boxes = r->boxes, .rings = r->rings};
}

static void use_programs(Renderer *r, const Programs *p)
{
    r->bodies = p->bodies;
    r->tonemap = p->tonemap;
    r->glow = p->glow;
    r->boxes = p->boxes;
    r->rings = p->rings;
}

/* The 12 edges of the cube [-1, 1]^3 as 24 line ends; a box instance scales and moves it. */
static void create_box_buffers(Renderer *r)
{
    float cube[24 * 3];
    int k = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int u = -1; u <= 1; u += 2)
            for (int v = -1; v <= 1; v += 2)
                for (int end = -1; end <= 1; end += 2) {
                    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                    float *p = cube + 3 * k++;
                    p[axis] = (float)end;
                    p[a1] = (float)u;
                    p[a2] = (float)v;
                }
    glGenVertexArrays(1, &r->box_vao);
    glBindVertexArray(r->box_vao);
    glGenBuffers(1, &r->cube_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->cube_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof cube, cube, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glGenBuffers(1, &r->box_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->box_vbo);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(RenderBox), (void *)offsetof(RenderBox, x));
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(RenderBox), (void *)offsetof(RenderBox, level));
    glVertexAttribDivisor(2, 1);
    glEnableVertexAttribArray(2);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* The unit circle as a loop of RING_POINTS; the centres come from the position buffer, bound at
 * each draw where the halos' centre bodies lie in it. */
static void create_ring_buffers(Renderer *r)
{
    float circle[2 * RING_POINTS];
    for (int k = 0; k < RING_POINTS; k++) {
        const double a = 2 * M_PI * k / RING_POINTS;
        circle[2 * k] = (float)cos(a);
        circle[2 * k + 1] = (float)sin(a);
    }
    glGenVertexArrays(1, &r->ring_vao);
    glBindVertexArray(r->ring_vao);
    glGenBuffers(1, &r->ring_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->ring_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof circle, circle, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void renderer_set_rings(Renderer *r, const float *radius, int count)
{
    r->ring_count = 0;
    if (!radius || count <= 0) return;
    if (count > RENDER_RINGS_MAX) count = RENDER_RINGS_MAX;
    for (int k = 0; k < count; k++) r->ring_radius[k] = radius[k];
    r->ring_count = count;
}

/* Ring k about body n - ring_count + k of the position buffer. */
static void draw_rings(const Renderer *r, const RenderView *v)
{
    const RingsProgram *g = &r->rings;
    glUseProgram(g->id);
    glUniformMatrix4fv(g->view, 1, GL_FALSE, v->view);
    glUniformMatrix4fv(g->proj, 1, GL_FALSE, v->proj);
    glUniform1fv(g->radius, r->ring_count, r->ring_radius);
    glUniform3f(g->color, RING_RED, RING_GREEN, RING_BLUE);
    glBindVertexArray(r->ring_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->position_vbo);
    const size_t first = (size_t)(v->n - r->ring_count);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)(first * 4 * sizeof(float)));
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(1);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE);
    glDrawArraysInstanced(GL_LINE_LOOP, 0, RING_POINTS, r->ring_count);
    glDisable(GL_BLEND);
}

void renderer_set_speeds(Renderer *r, const float *speed, int n)
{
    if (n > r->max_bodies) n = r->max_bodies;
    if (n <= 0 || !speed) return;
    glBindBuffer(GL_ARRAY_BUFFER, r->speed_vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)n * sizeof(float)), speed);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void renderer_set_boxes(Renderer *r, const RenderBox *boxes, int count)
{
    r->box_count = 0;
    if (count <= 0 || !boxes) return;
    glBindBuffer(GL_ARRAY_BUFFER, r->box_vbo);
    const GLsizeiptr bytes = (GLsizeiptr)((size_t)count * sizeof(RenderBox));
    if (count > r->box_capacity) {
        glBufferData(GL_ARRAY_BUFFER, bytes, boxes, GL_DYNAMIC_DRAW);
        r->box_capacity = count;
    } else {
        glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, boxes);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->box_count = count;
}

static void draw_boxes(const Renderer *r, const RenderView *v)
{
    const BoxesProgram *x = &r->boxes;
    glUseProgram(x->id);
    glUniformMatrix4fv(x->view, 1, GL_FALSE, v->view);
    glUniformMatrix4fv(x->proj, 1, GL_FALSE, v->proj);
    glUniform1f(x->gain, BOX_GAIN);
    glUniform1f(x->fade, BOX_FADE);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE);
    glBindVertexArray(r->box_vao);
    glDrawArraysInstanced(GL_LINES, 0, 24, r->box_count);
    glDisable(GL_BLEND);
}

Renderer *renderer_create(const RendererDesc *desc, char *err, size_t errlen)
{
    if (!desc || desc->max_bodies <= 0) {
        snprintf(err, errlen, "renderer: max_bodies must be positive");
        return NULL;
    }
    Renderer *r = calloc(1, sizeof *r);
    if (!r || (desc->shader_dir && !(r->shader_dir = strdup(desc->shader_dir)))) {
        free(r);
        snprintf(err, errlen, "renderer: out of memory");
        return NULL;
    }
    r->max_bodies = desc->max_bodies;
    r->mass_ref = 1.0f;
    Programs p;
    if (build_programs(r, &p, err, errlen) != 0) {
        renderer_destroy(r);
        return NULL;
    }
    use_programs(r, &p);
    GLfloat range[2] = {1, 64};
    glGetFloatv(GL_POINT_SIZE_RANGE, range);
    r->max_point_size = range[1] < 64 ? range[1] : 64;

    size_t n = (size_t)r->max_bodies;
    glGenVertexArrays(1, &r->vao);
    glGenVertexArrays(1, &r->empty_vao);
    glBindVertexArray(r->vao);
    glGenBuffers(1, &r->position_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->position_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * 4 * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glGenBuffers(1, &r->speed_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->speed_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(1);
    glGenBuffers(1, &r->tag_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)n, NULL, GL_STATIC_DRAW);
    glVertexAttribIPointer(2, 1, GL_UNSIGNED_BYTE, 0, NULL);
    glEnableVertexAttribArray(2);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    create_box_buffers(r);
    create_ring_buffers(r);

    GLenum e = glGetError();
    if (e == GL_OUT_OF_MEMORY) {
        snprintf(err, errlen, "renderer: no GPU memory for %d bodies", r->max_bodies);
        renderer_destroy(r);
        return NULL;
    }
    if (e != GL_NO_ERROR) {
        snprintf(err, errlen, "renderer: OpenGL error 0x%04x while creating buffers", (unsigned)e);
        renderer_destroy(r);
        return NULL;
    }
    return r;
}

void renderer_destroy(Renderer *r)
{
    if (!r) return;
#ifdef STARBURST_HAVE_CUDA
    splat_destroy(r->splat);
#endif
    free(r->tags_sent);
    Programs p = programs_of(r);
    delete_programs(&p);
    GLuint buffers[] = {r->position_vbo, r->speed_vbo, r->tag_vbo, r->cube_vbo, r->box_vbo, r->ring_vbo};
    glDeleteBuffers(6, buffers);
    GLuint vaos[] = {r->vao, r->empty_vao, r->box_vao, r->ring_vao};
    glDeleteVertexArrays(4, vaos);
    if (r->hdr_fbo) glDeleteFramebuffers(1, &r->hdr_fbo);
    if (r->hdr_texture) glDeleteTextures(1, &r->hdr_texture);
    for (int b = 0; b < GLOW_BLURS; b++)
        for (int k = 0; k < 2; k++) {
            if (r->blur_fbo[b][k]) glDeleteFramebuffers(1, &r->blur_fbo[b][k]);
            if (r->blur_texture[b][k]) glDeleteTextures(1, &r->blur_texture[b][k]);
        }
    if (r->ldr_fbo) glDeleteFramebuffers(1, &r->ldr_fbo);
    if (r->ldr_texture) glDeleteTextures(1, &r->ldr_texture);
    free(r->shader_dir);
    free(r);
}

int renderer_reload(Renderer *r, char *err, size_t errlen)
{
    Programs fresh, old = programs_of(r);
    if (build_programs(r, &fresh, err, errlen) != 0) return -1;
    delete_programs(&old);
    use_programs(r, &fresh);
    return 0;
}

unsigned int renderer_position_vbo(const Renderer *r) { return r->position_vbo; }
unsigned int renderer_speed_vbo(const Renderer *r) { return r->speed_vbo; }

void renderer_upload(Renderer *r, const float *pos4, const uint8_t *tags, int n)
{
    if (n > r->max_bodies) n = r->max_bodies;
    if (n <= 0) return;
    size_t count = (size_t)n;
    r->tags_sent_n = 0; /* the tag buffer no longer holds what renderer_upload_device sent */
    if (pos4) {
        glBindBuffer(GL_ARRAY_BUFFER, r->position_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * 4 * sizeof(float)), pos4);
        double sum = 0, all = 0;
        int counted = 0;
        for (int i = 0; i < n; i++) {
            all += pos4[4 * i + 3];
            if (!tags || !RENDER_TAG_IS_HALO(tags[i])) {
                sum += pos4[4 * i + 3];
                counted++;
            }
        }
        double mean = counted ? sum / counted : all / n;
        r->mass_ref = mean > 0 ? (float)mean : 1.0f;
    }
    /* One zeroed block serves as both the default tags and the initial speeds. */
    void *zeros = calloc(count, sizeof(float));
    if (zeros) {
        glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)count, tags ? (const void *)tags : zeros);
        glBindBuffer(GL_ARRAY_BUFFER, r->speed_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(count * sizeof(float)), zeros);
        free(zeros);
    } else if (tags) {
        glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)count, tags);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

#ifdef STARBURST_HAVE_CUDA
/* The splat, made at the first call that wants it; NULL where CUDA cannot reach the buffers (the
 * draw note says why, and it is not tried again). */
static Splat *made_splat(Renderer *r)
{
    if (!r->splat && !r->splat_tried) {
        char why[256];
        r->splat_tried = true;
        r->splat = splat_create(r->position_vbo, r->speed_vbo, r->tag_vbo, why, sizeof why);
        if (!r->splat) snprintf(r->draw_note, sizeof r->draw_note, "drawing by CUDA: %.200s: GL draws", why);
    }
    return r->splat;
}
#endif

int renderer_upload_device(Renderer *r, const float *device_pos4, const uint8_t *tags, int n, RenderLight *light)
{
#ifdef STARBURST_HAVE_CUDA
    if (n > r->max_bodies) n = r->max_bodies;
    if (n <= 0 || !device_pos4 || !tags || !made_splat(r)) return -1;
    if (!r->tags_sent && !(r->tags_sent = malloc((size_t)r->max_bodies))) return -1;
    if (r->tags_sent_n != n || memcmp(r->tags_sent, tags, (size_t)n) != 0) {
        glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)n, tags);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        memcpy(r->tags_sent, tags, (size_t)n);
        r->tags_sent_n = n;
    }
    char why[256];
    double sums[SPLAT_LIGHT_SUMS];
    if (splat_take_positions(r->splat, device_pos4, n, sums, why, sizeof why) != 0) {
        snprintf(r->draw_note, sizeof r->draw_note, "positions by CUDA failed (%.200s)", why);
        splat_destroy(r->splat);
        r->splat = NULL;
        r->tags_sent_n = 0;
        return -1;
    }
    /* The sprites' reference mass as renderer_upload takes it: the mean of the bodies not of a halo. */
    const double mean = sums[11] > 0 ? sums[10] / sums[11] : sums[12] / n;
    r->mass_ref = mean > 0 ? (float)mean : 1.0f;
    for (int g = 0; g < 2; g++) {
        const double *t = sums + 5 * g;
        light->mass[g] = t[0];
        for (int k = 0; k < 3; k++) light->moment[g][k] = t[1 + k];
        light->r2[g] = t[4];
    }
    return 0;
#else
    (void)r, (void)device_pos4, (void)tags, (void)n, (void)light;
    return -1;
#endif
}

/* Makes *texture (width x height of format, filtered by filter, level 0 the one that counts) the
 * colour of *fbo, both generated at their first use; true when the framebuffer is complete. */
static bool texture_target(GLuint *fbo, GLuint *texture, GLenum format, GLenum type, GLint filter, int width,
                           int height)
{
    if (!*fbo) {
        glGenFramebuffers(1, fbo);
        glGenTextures(1, texture);
    }
    glBindTexture(GL_TEXTURE_2D, *texture);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)format, width, height, 0, GL_RGBA, type, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter == GL_NEAREST ? GL_NEAREST : GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    if (filter == GL_LINEAR_MIPMAP_LINEAR) glGenerateMipmap(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *texture, 0);
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

int renderer_size_check(int width, int height, char *err, size_t errlen)
{
    const char *gl = (const char *)glGetString(GL_RENDERER);
    GLint texture = 0, renderbuffer = 0, viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &texture);
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
    const int padded_w = (width + HDR_PAD - 1) / HDR_PAD * HDR_PAD, padded_h = (height + HDR_PAD - 1) / HDR_PAD * HDR_PAD;
    const struct {
        int most, w, h;
        const char *what;
    } limits[] = {{texture, padded_w, padded_h, "texture"}, {renderbuffer, width, height, "renderbuffer"},
                  {viewport[0], width, 0, "viewport's width"}, {viewport[1], 0, height, "viewport's height"}};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++)
        if (limits[k].most > 0 && (limits[k].w > limits[k].most || limits[k].h > limits[k].most)) {
            snprintf(err, errlen, "%.100s draws at most %d pixels a side (its largest %s): %dx%d is too large", gl,
                     (int)limits[k].most, limits[k].what, width, height);
            return -1;
        }
    while (glGetError() != GL_NO_ERROR) {}
    GLuint fbo = 0, tex = 0;
    const bool complete =
        texture_target(&fbo, &tex, GL_RGBA16F, GL_HALF_FLOAT, GL_LINEAR_MIPMAP_LINEAR, padded_w, padded_h);
    const GLenum e = glGetError();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    while (glGetError() != GL_NO_ERROR) {}
    if (complete && e == GL_NO_ERROR) return 0;
    snprintf(err, errlen, "%.100s cannot make the %dx%d half-float image the bodies are drawn into (%.1f GiB with its "
             "mipmaps%s): a smaller size draws", gl, padded_w, padded_h, 8.0 * padded_w * padded_h * 4 / 3 / (1 << 30),
             e == GL_OUT_OF_MEMORY ? ", out of memory" : "");
    return -1;
}

/* (Re)creates the HDR target for the view's size, padded to a multiple of HDR_PAD in each
 * direction: every mip level the glow reads then halves evenly, a 2 x 2 box on every GL (NVIDIA's
 * and Mesa's filters differ on odd sizes), the same levels as the CUDA drawing's; and the glow's
 * blurred levels beside it. False when the GL cannot. */
static bool ensure_hdr_target(Renderer *r, int width, int height)
{
    if (r->hdr_fbo && r->hdr_width == width && r->hdr_height == height) return true;
    r->hdr_padded_width = (width + HDR_PAD - 1) / HDR_PAD * HDR_PAD;
    r->hdr_padded_height = (height + HDR_PAD - 1) / HDR_PAD * HDR_PAD;
    bool ok = texture_target(&r->hdr_fbo, &r->hdr_texture, GL_RGBA16F, GL_HALF_FLOAT, GL_LINEAR_MIPMAP_LINEAR,
                             r->hdr_padded_width, r->hdr_padded_height);
    /* No level below the coarsest the glow reads is made each frame. */
    glBindTexture(GL_TEXTURE_2D, r->hdr_texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, GLOW_FIRST_LEVEL + GLOW_BLURS - 1);
    glBindTexture(GL_TEXTURE_2D, 0);
    for (int b = 0; b < GLOW_BLURS && ok; b++)
        for (int k = 0; k < 2 && ok; k++)
            ok = texture_target(&r->blur_fbo[b][k], &r->blur_texture[b][k], GL_RGBA16F, GL_HALF_FLOAT, GL_LINEAR,
                                r->hdr_padded_width >> (GLOW_FIRST_LEVEL + b),
                                r->hdr_padded_height >> (GLOW_FIRST_LEVEL + b));
    r->hdr_width = ok ? width : 0;
    r->hdr_height = ok ? height : 0;
    return ok;
}

#ifdef STARBURST_HAVE_CUDA
/* (Re)creates the texture CUDA tonemaps into, at the view's size; false when the GL cannot. */
static bool ensure_ldr_target(Renderer *r, int width, int height)
{
    if (r->ldr_fbo && r->ldr_width == width && r->ldr_height == height) return true;
    const bool ok =
        texture_target(&r->ldr_fbo, &r->ldr_texture, GL_RGBA8, GL_UNSIGNED_BYTE, GL_NEAREST, width, height);
    r->ldr_width = ok ? width : 0;
    r->ldr_height = ok ? height : 0;
    return ok;
}
#endif

static float positive_or(float x, float fallback) { return x > 0 ? x : fallback; }

static float sprite_growth(int n)
{
    if (n <= 0 || (float)n >= REFERENCE_BODIES) return 1;
    return fminf(powf(REFERENCE_BODIES / (float)n, 0.25f), SMALL_N_GROWTH_MAX);
}

/* What the sprites take for n bodies in view v: the shader's uniforms. */
typedef struct SpriteLook {
    float size, focus, brightness, speed_scale;
    int color_mode, show_halo;
} SpriteLook;

static SpriteLook sprite_look(const Renderer *r, const RenderView *v, int n)
{
    /* The eye's distance to the origin: the column of the view matrix that moves it. */
    float focus = v->focus_distance;
    if (!(focus > 0)) focus = sqrtf(v->view[12] * v->view[12] + v->view[13] * v->view[13] + v->view[14] * v->view[14]);
    return (SpriteLook){
        .size = positive_or(v->point_size, 1) * sprite_growth(n) * BASE_SPRITE_PX * (float)v->height / 1080.0f,
        .focus = positive_or(focus, 1),
        .brightness = BASE_BRIGHTNESS * sqrtf(REFERENCE_BODIES / (float)n),
        .speed_scale = positive_or(v->speed_scale, 1),
        .color_mode = v->color_mode == COLOR_BY_SPEED ? 1 : 0,
        .show_halo = v->show_halo ? 1 : 0,
    };
}

#ifdef STARBURST_HAVE_CUDA
/* The renderbuffer of v's framebuffer that CUDA can write as the view's image, or 0. */
static GLuint direct_target(Renderer *r, const RenderView *v)
{
    if (r->direct_known && r->direct_fbo == v->framebuffer && r->direct_width == v->width &&
        r->direct_height == v->height)
        return r->direct_renderbuffer;
    r->direct_known = true;
    r->direct_fbo = v->framebuffer;
    r->direct_width = v->width;
    r->direct_height = v->height;
    r->direct_renderbuffer = 0;
    if (v->framebuffer == 0) return 0;
    GLint type = 0, name = 0, format = 0, w = 0, h = 0;
    glBindFramebuffer(GL_FRAMEBUFFER, v->framebuffer);
    glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
                                          &type);
    glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
                                          &name);
    if (type != GL_RENDERBUFFER || name <= 0) return 0;
    glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)name);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_INTERNAL_FORMAT, &format);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, &w);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, &h);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    if (format == GL_RGBA8 && w == v->width && h == v->height && splat_can_write_renderbuffer((GLuint)name))
        r->direct_renderbuffer = (GLuint)name;
    return r->direct_renderbuffer;
}
#endif

/* The bodies splatted and tonemapped by CUDA into the view's framebuffer (*direct) where CUDA can
 * write it, else into the LDR texture; false (GL draws, draw_note says why) where CUDA cannot. */
static bool splat_bodies_cuda(Renderer *r, const RenderView *v, int n, bool *direct)
{
    *direct = false;
#ifdef STARBURST_HAVE_CUDA
    char why[256];
    if (!made_splat(r)) return false;
    const SpriteLook look = sprite_look(r, v, n > 0 ? n : 1);
    SplatParams p = {.width = v->width,
                     .height = v->height,
                     .size = look.size,
                     .max_size = r->max_point_size,
                     .focus = look.focus,
                     .mass_ref = r->mass_ref,
                     .brightness = look.brightness,
                     .color_mode = look.color_mode,
                     .speed_scale = look.speed_scale,
                     .show_halo = look.show_halo,
                     .exposure = positive_or(v->exposure, 1),
                     .glow = GLOW};
    memcpy(p.view, v->view, sizeof p.view);
    memcpy(p.proj, v->proj, sizeof p.proj);
    const GLuint renderbuffer = direct_target(r, v);
    if (renderbuffer) {
        *direct = true;
        if (splat_draw_renderbuffer(r->splat, renderbuffer, n, &p, why, sizeof why) == 0) return true;
    } else {
        if (!ensure_ldr_target(r, v->width, v->height)) {
            snprintf(r->draw_note, sizeof r->draw_note, "drawing by CUDA: no %dx%d RGBA8 texture: GL draws", v->width,
                     v->height);
            return false;
        }
        if (splat_draw(r->splat, r->ldr_texture, n, &p, why, sizeof why) == 0) return true;
    }
    snprintf(r->draw_note, sizeof r->draw_note, "drawing by CUDA failed (%.200s): GL draws", why);
    splat_destroy(r->splat);
    r->splat = NULL;
    return false;
#else
    (void)v;
    (void)n;
    if (!r->splat_tried) snprintf(r->draw_note, sizeof r->draw_note, "drawing by CUDA: this build has no CUDA: GL draws");
    r->splat_tried = true;
    return false;
#endif
}

/* The glow's Gaussians (kernels/glow.h): each blurred level of the HDR target, made across into
 * blur [b][0], then up into [b][1]. The HDR target's levels are made; texture unit 0 is active. */
static void blur_glow(Renderer *r)
{
    const GlowProgram *g = &r->glow;
    glUseProgram(g->id);
    glUniform1i(g->src, 0);
    glBindVertexArray(r->empty_vao);
    for (int b = 0; b < GLOW_BLURS; b++) {
        float weight[GLOW_TAPS];
        const int level = GLOW_FIRST_LEVEL + b;
        glUniform1i(g->radius, glow_weights(b, weight));
        glUniform1fv(g->weight, GLOW_TAPS, weight);
        glViewport(0, 0, r->hdr_padded_width >> level, r->hdr_padded_height >> level);
        glBindFramebuffer(GL_FRAMEBUFFER, r->blur_fbo[b][0]);
        glBindTexture(GL_TEXTURE_2D, r->hdr_texture);
        glUniform1i(g->lod, level);
        glUniform2i(g->step, 1, 0);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindFramebuffer(GL_FRAMEBUFFER, r->blur_fbo[b][1]);
        glBindTexture(GL_TEXTURE_2D, r->blur_texture[b][0]);
        glUniform1i(g->lod, 0);
        glUniform2i(g->step, 0, 1);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
}

/* The boxes over the image in v's framebuffer, and GL left as renderer_draw promises. */
static void finish_frame(Renderer *r, const RenderView *v)
{
    glBindFramebuffer(GL_FRAMEBUFFER, v->framebuffer);
    glViewport(0, 0, v->width, v->height);
    if (v->show_boxes && r->box_count > 0) draw_boxes(r, v);
    if (v->show_halo && r->ring_count > 0 && v->n >= r->ring_count) draw_rings(r, v);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void renderer_draw(Renderer *r, const RenderView *v)
{
    if (v->width <= 0 || v->height <= 0) return;
    int n = v->n < r->max_bodies ? v->n : r->max_bodies;

    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_SCISSOR_TEST);
    r->drawn_by = RENDER_DRAW_GL;
    bool direct = false;
    if (v->draw == RENDER_DRAW_CUDA && splat_bodies_cuda(r, v, n, &direct)) {
        /* CUDA's image in the framebuffer already, or copied as it is: no GL drawing but the copy. */
        r->drawn_by = RENDER_DRAW_CUDA;
        if (!direct) {
            glBindFramebuffer(GL_READ_FRAMEBUFFER, r->ldr_fbo);
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, v->framebuffer);
            glBlitFramebuffer(0, 0, v->width, v->height, 0, 0, v->width, v->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        }
        finish_frame(r, v);
        return;
    }
    if (!ensure_hdr_target(r, v->width, v->height)) return;
    glBindFramebuffer(GL_FRAMEBUFFER, r->hdr_fbo);
    glViewport(0, 0, v->width, v->height);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    if (n > 0) {
        const SpriteLook look = sprite_look(r, v, n);
        const BodiesProgram *b = &r->bodies;
        glUseProgram(b->id);
        glUniformMatrix4fv(b->view, 1, GL_FALSE, v->view);
        glUniformMatrix4fv(b->proj, 1, GL_FALSE, v->proj);
        glUniform1f(b->size, look.size);
        glUniform1f(b->max_size, r->max_point_size);
        glUniform1f(b->focus, look.focus);
        glUniform1f(b->mass_ref, r->mass_ref);
        glUniform1f(b->brightness, look.brightness);
        glUniform1i(b->color_mode, look.color_mode);
        glUniform1f(b->speed_scale, look.speed_scale);
        glUniform1i(b->show_halo, look.show_halo);
        glEnable(GL_PROGRAM_POINT_SIZE);
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFunc(GL_ONE, GL_ONE);
        /* Sprites are not cut by the viewport: the scissor keeps their light out of the padding. */
        glEnable(GL_SCISSOR_TEST);
        glScissor(0, 0, v->width, v->height);
        glBindVertexArray(r->vao);
        glDrawArrays(GL_POINTS, 0, n);
        glDisable(GL_SCISSOR_TEST);
        glDisable(GL_BLEND);
        glDisable(GL_PROGRAM_POINT_SIZE);
    }

    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->hdr_texture);
    glGenerateMipmap(GL_TEXTURE_2D);
    blur_glow(r);
    glBindFramebuffer(GL_FRAMEBUFFER, v->framebuffer);
    glViewport(0, 0, v->width, v->height);
    glUseProgram(r->tonemap.id);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, r->blur_texture[0][1]);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, r->blur_texture[1][1]);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->hdr_texture);
    glUniform1i(r->tonemap.hdr, 0);
    glUniform1i(r->tonemap.glow3, 1);
    glUniform1i(r->tonemap.glow4, 2);
    glUniform1f(r->tonemap.exposure, positive_or(v->exposure, 1));
    glUniform1f(r->tonemap.glow, GLOW);
    glUniform2f(r->tonemap.uv_scale, (float)v->width / (float)r->hdr_padded_width,
                (float)v->height / (float)r->hdr_padded_height);
    glBindVertexArray(r->empty_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    for (int unit = 2; unit >= 0; unit--) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    finish_frame(r, v);
}

const char *renderer_draw_name(RenderDraw d) { return d == RENDER_DRAW_CUDA ? "cuda" : "gl"; }
RenderDraw renderer_drawn_by(const Renderer *r) { return r->drawn_by; }
const char *renderer_draw_note(const Renderer *r) { return r->draw_note; }

double renderer_splat_ms(const Renderer *r, double *kernel_ms)
{
    if (kernel_ms) *kernel_ms = 0;
#ifdef STARBURST_HAVE_CUDA
    return r->drawn_by == RENDER_DRAW_CUDA && r->splat ? splat_gpu_ms(r->splat, kernel_ms) : 0;
#else
    (void)r;
    return 0;
#endif
}

const char *renderer_color_mode_name(ColorMode m)
{
    switch (m) {
    case COLOR_BY_COMPONENT: return "component";
    case COLOR_BY_SPEED: return "speed";
    default: return "unknown";
    }
}
