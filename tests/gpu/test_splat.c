/* The bodies drawn by CUDA (render/splat.h) against the same bodies drawn by GL's point sprites,
 * pixel by pixel after the tonemap, in one headless context on NVIDIA's driver: a galaxy
 * collision at 16K bodies, with the halo shown and coloured by speed, a million bodies, sixteen
 * million, none, and bodies outside the view (behind the eye, beyond the edges, their sprites cut
 * by the edge); CUDA's image written in place into the headless framebuffer and copied into one
 * whose colour is a texture. The two paths differ where light adds up in a different order and
 * precision (GL blends in half floats, the splat adds in floats and rounds once) and where a
 * pixel's centre lies on a sprite's edge: the tolerances of assert_same_picture are for those.
 * Skips where CUDA or a GL context on the NVIDIA driver is missing. */
#include <GL/glew.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "render/camera.h"
#include "render/context.h"
#include "render/renderer.h"
#include "scene/scene.h"

#define WIDTH 1280
#define HEIGHT 720

typedef struct Fixture {
    RenderContext *ctx;
    Renderer *r;
    uint8_t *gl, *cuda; /* WIDTH x HEIGHT RGBA */
} Fixture;

/* A headless GL context on NVIDIA's driver and a renderer for max bodies, or the test skipped. */
static void fixture_open(Fixture *f, int max)
{
    gpu_require_cuda();
    char err[256] = "";
    f->ctx = render_context_create(&(RenderContextDesc){.width = WIDTH, .height = HEIGHT, .headless = true}, err,
                                   sizeof err);
    if (!f->ctx) {
        print_message("skipped: no headless GL context: %s\n", err);
        test_skip();
    }
    f->r = renderer_create(&(RendererDesc){.max_bodies = max}, err, sizeof err);
    if (!f->r) fail_msg("renderer_create: %s", err);
    f->gl = malloc((size_t)WIDTH * HEIGHT * 4);
    f->cuda = malloc((size_t)WIDTH * HEIGHT * 4);
    assert_non_null(f->gl);
    assert_non_null(f->cuda);
}

static void fixture_close(Fixture *f)
{
    free(f->gl);
    free(f->cuda);
    renderer_destroy(f->r);
    render_context_destroy(f->ctx);
}

/* Draws v by GL and by CUDA, each into its image, in the headless context's framebuffer (an RGBA8
 * renderbuffer CUDA writes into) or in fbo (its colour a texture: CUDA's image is copied there);
 * the CUDA draw must have been CUDA's. */
static void draw_both_into(Fixture *f, RenderView v, GLuint fbo)
{
    v.width = WIDTH;
    v.height = HEIGHT;
    v.framebuffer = fbo ? fbo : render_context_framebuffer(f->ctx);
    uint8_t *out[2] = {f->gl, f->cuda};
    for (int k = 0; k < 2; k++) {
        v.draw = k ? RENDER_DRAW_CUDA : RENDER_DRAW_GL;
        /* Twice: the second frame shows that the splat's buffer starts from black again. */
        for (int again = 0; again < 2; again++) renderer_draw(f->r, &v);
        if (k == 1 && renderer_drawn_by(f->r) != RENDER_DRAW_CUDA) {
            if (strstr(renderer_draw_note(f->r), "GL context") || strstr(renderer_draw_note(f->r), "OpenGL")) {
                print_message("skipped: %s (GL on %s)\n", renderer_draw_note(f->r), render_context_renderer(f->ctx));
                fixture_close(f);
                test_skip();
            }
            fail_msg("CUDA did not draw: %s", renderer_draw_note(f->r));
        }
        glBindFramebuffer(GL_FRAMEBUFFER, v.framebuffer);
        glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, out[k]);
        assert_int_equal(glGetError(), GL_NO_ERROR);
    }
}

static void draw_both(Fixture *f, RenderView v) { draw_both_into(f, v, 0); }

/* How the two images differ: the mean of |difference| over every colour channel (8-bit levels),
 * the share of pixels any channel of which is off by more than 3 levels, the largest difference,
 * the pixels lit (a channel above 24) in each, and those lit in one and dark (every channel at 20
 * or below) in the other: a sprite one path drew and the other did not. */
typedef struct Diff {
    double mean, off_share;
    int max, lit_gl, lit_cuda, lit_one;
} Diff;

static Diff compare(const Fixture *f)
{
    Diff d = {0};
    long long sum = 0, off = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        int worst = 0;
        bool lit[2] = {false, false}, dark[2] = {true, true};
        for (int c = 0; c < 3; c++) {
            const int a = f->gl[4 * i + c], b = f->cuda[4 * i + c];
            const int e = abs(a - b);
            sum += e;
            worst = e > worst ? e : worst;
            lit[0] |= a > 24;
            lit[1] |= b > 24;
            dark[0] &= a <= 20;
            dark[1] &= b <= 20;
        }
        off += worst > 3;
        d.lit_one += (lit[0] && dark[1]) || (lit[1] && dark[0]);
        d.max = worst > d.max ? worst : d.max;
        d.lit_gl += lit[0];
        d.lit_cuda += lit[1];
    }
    d.mean = (double)sum / (3.0 * WIDTH * HEIGHT);
    d.off_share = (double)off / ((double)WIDTH * HEIGHT);
    return d;
}

/* The same picture, within the tolerances of the header: a mean difference of half a level at most
 * (GL rounds every blend to a half float, 11 bits, and a pixel of the 16M ball takes thousands),
 * 0.2 % of pixels off by more than 3 levels, and no sprite drawn by one path alone (one pixel in
 * 2,000 of those lit, for sprites whose centre lies on a pixel's edge). */
static void assert_same_picture(const Fixture *f, const char *what, int min_lit)
{
    const Diff d = compare(f);
    print_message("%s: lit %d (GL) and %d (CUDA) pixels, %d lit in one and dark in the other; mean |difference| "
                  "%.4f levels, %.3f %% of pixels off by more than 3, at most %d\n",
                  what, d.lit_gl, d.lit_cuda, d.lit_one, d.mean, 100 * d.off_share, d.max);
    if (d.lit_gl < min_lit) fail_msg("%s: GL lit only %d pixels (the view shows too little to compare)", what, d.lit_gl);
    if (d.lit_one > d.lit_gl / 2000) fail_msg("%s: %d pixels lit by one path and dark in the other", what, d.lit_one);
    if (d.mean > 0.5) fail_msg("%s: mean difference %.4f levels", what, d.mean);
    if (d.off_share > 0.002) fail_msg("%s: %.3f %% of pixels off by more than 3 levels", what, 100 * d.off_share);
}

/* The view of a scene as the app frames it at the start. */
static RenderView scene_view(float extent, int n)
{
    Camera cam;
    camera_init(&cam, extent);
    RenderView v = {.n = n, .point_size = 1, .exposure = 1, .speed_scale = 1, .focus_distance = cam.distance};
    camera_matrices(&cam, (float)WIDTH / HEIGHT, v.view, v.proj);
    return v;
}

/* The collision of n bodies in the renderer, and the view that frames it. */
static RenderView upload_collision(Fixture *f, int n)
{
    Bodies b;
    SceneInfo info;
    char err[256];
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n}, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
    renderer_upload(f->r, b.pos, b.tag, b.n);
    const RenderView v = scene_view(info.extent, b.n);
    bodies_free(&b);
    return v;
}

static void test_collision_16k(void **state)
{
    Fixture f;
    fixture_open(&f, 16384);
    RenderView v = upload_collision(&f, 16384);
    draw_both(&f, v);
    assert_same_picture(&f, "16,384 bodies", 5000);
    v.show_halo = 1;
    v.color_mode = COLOR_BY_SPEED;
    draw_both(&f, v);
    assert_same_picture(&f, "16,384 bodies, the halo shown, coloured by speed", 5000);
    v.point_size = 4;
    v.exposure = 3;
    draw_both(&f, v);
    assert_same_picture(&f, "16,384 bodies, sprites 4 times as large, exposure 3", 20000);
    fixture_close(&f);
}

static void test_million(void **state)
{
    const int n = 1 << 20;
    Fixture f;
    fixture_open(&f, n);
    RenderView v = upload_collision(&f, n);
    draw_both(&f, v);
    assert_same_picture(&f, "1,048,576 bodies", 5000);
    v.show_halo = 1;
    draw_both(&f, v);
    assert_same_picture(&f, "1,048,576 bodies, the halo shown", 5000);
    fixture_close(&f);
}

static void test_sixteen_million(void **state)
{
    const int n = 1 << 24;
    Fixture f;
    fixture_open(&f, n);
    Bodies b;
    gpu_random_ball(&b, n, 7);
    for (int i = 0; i < n; i++) b.pos[4 * i + 3] = 1.0f / (float)n;
    renderer_upload(f.r, b.pos, NULL, b.n);
    RenderView v = scene_view(1.0f, b.n);
    draw_both(&f, v);
    assert_same_picture(&f, "16,777,216 bodies in a ball", 5000);
    bodies_free(&b);
    fixture_close(&f);
}

/* No bodies: both black but for the tonemap's dither, the same in both. */
static void test_none(void **state)
{
    Fixture f;
    fixture_open(&f, 16);
    RenderView v = scene_view(1.0f, 0);
    draw_both(&f, v);
    assert_memory_equal(f.gl, f.cuda, (size_t)WIDTH * HEIGHT * 4);
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++)
        if (f.cuda[4 * i] > 1 || f.cuda[4 * i + 1] > 1 || f.cuda[4 * i + 2] > 1) fail_msg("pixel %zu lit with no bodies", i);
    fixture_close(&f);
}

/* Bodies behind the eye and beyond the far plane draw nothing; bodies whose centres lie just
 * inside the view's edges draw the parts of their sprites inside it, as GL does. */
static void test_outside_view(void **state)
{
    const int n = 4096;
    Fixture f;
    fixture_open(&f, n);
    RenderView v = scene_view(1.0f, n);
    v.point_size = 12; /* sprites of tens of pixels, cut by the edges */
    /* The eye's frame: its position, right and up, from the view matrix (a rotation and a move). */
    const float *m = v.view;
    const float right[3] = {m[0], m[4], m[8]}, up[3] = {m[1], m[5], m[9]}, back[3] = {m[2], m[6], m[10]};
    float eye[3];
    for (int k = 0; k < 3; k++) eye[k] = -(m[12] * right[k] + m[13] * up[k] + m[14] * back[k]);
    Bodies b;
    if (bodies_alloc(&b, n) != 0) fail_msg("out of memory");
    uint64_t seed = 11;
    const float dist = v.focus_distance;
    /* The half-extents of the view at the focus distance, from the projection. */
    const float hx = dist / v.proj[0], hy = dist / v.proj[5];
    for (int i = 0; i < n; i++) {
        float x, y, z;
        const int kind = i % 4;
        const double s = 2 * rng_uniform(&seed) - 1;
        if (kind == 0) { /* behind the eye */
            x = (float)(hx * s), y = (float)(hy * (2 * rng_uniform(&seed) - 1)), z = -0.5f * dist;
        } else if (kind == 1) { /* far beyond everything */
            x = (float)(hx * s), y = 0, z = 1e7f * dist;
        } else if (kind == 2) { /* just inside the left and right edges */
            x = (float)((i & 8 ? 1 : -1) * hx * (1 - 0.004 * rng_uniform(&seed))), y = (float)(hy * s), z = dist;
        } else { /* just inside the top and bottom edges */
            x = (float)(hx * s), y = (float)((i & 8 ? 1 : -1) * hy * (1 - 0.004 * rng_uniform(&seed))), z = dist;
        }
        /* z is the distance in front of the eye. */
        for (int k = 0; k < 3; k++) b.pos[4 * i + k] = eye[k] + x * right[k] + y * up[k] - z * back[k];
        b.pos[4 * i + 3] = 1.0f / n;
    }
    renderer_upload(f.r, b.pos, NULL, b.n);
    draw_both(&f, v);
    assert_same_picture(&f, "sprites cut by the view's edges, bodies behind the eye and far away", 1000);
    /* Nothing lit away from the edges: the bodies behind and beyond drew nothing. */
    int inner = 0;
    for (int y = HEIGHT / 4; y < 3 * HEIGHT / 4; y++)
        for (int x = WIDTH / 4; x < 3 * WIDTH / 4; x++) inner += f.cuda[4 * ((size_t)y * WIDTH + x)] > 24;
    if (inner) fail_msg("%d pixels lit in the middle of the view by bodies behind the eye or beyond", inner);
    bodies_free(&b);
    fixture_close(&f);
}

/* Into a framebuffer whose colour is a texture, CUDA's image is copied, not written in place: the
 * same picture as GL's, and the image written in place into the headless framebuffer (the copy is
 * exact, but each draw adds the light with float atomics in no fixed order: a level apart at most
 * where a sum lies on a rounding edge). */
static void test_copied_into_a_texture(void **state)
{
    Fixture f;
    fixture_open(&f, 16384);
    const RenderView v = upload_collision(&f, 16384);
    draw_both(&f, v);
    uint8_t *in_place = malloc((size_t)WIDTH * HEIGHT * 4);
    assert_non_null(in_place);
    memcpy(in_place, f.cuda, (size_t)WIDTH * HEIGHT * 4);
    GLuint fbo, texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, WIDTH, HEIGHT, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    assert_int_equal(glCheckFramebufferStatus(GL_FRAMEBUFFER), GL_FRAMEBUFFER_COMPLETE);
    draw_both_into(&f, v, fbo);
    assert_same_picture(&f, "16,384 bodies into a texture's framebuffer", 5000);
    memcpy(f.gl, in_place, (size_t)WIDTH * HEIGHT * 4);
    const Diff d = compare(&f);
    print_message("copied and in place: lit %d and %d pixels, mean |difference| %.5f levels, at most %d\n", d.lit_gl,
                  d.lit_cuda, d.mean, d.max);
    assert_true(d.max <= 1);
    assert_true(d.mean < 0.01);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &texture);
    free(in_place);
    fixture_close(&f);
}

/* The positions a simulation holds on the device (sim_device_positions), copied there into the
 * vertex buffer (renderer_upload_device), draw the picture their upload from the host draws (the
 * splat adds light with float atomics in no fixed order: a level apart at most where a sum lies on
 * a rounding edge), and their light summed there is the host's sums; tags that change are sent. */
static void test_positions_from_the_device(void **state)
{
    const int n = 1 << 20;
    Fixture f;
    fixture_open(&f, n);
    Bodies b;
    SceneInfo info;
    char err[256];
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n}, &b, &info, err, sizeof err) != 0) fail_msg("%s", err);
    Sim *sim = sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA}, &b, err, sizeof err);
    if (!sim) fail_msg("sim_create (cuda): %s", err);
    const float *device_pos = NULL;
    uint8_t *tags = malloc((size_t)n);
    assert_non_null(tags);
    assert_int_equal(sim_device_positions(sim, &device_pos, tags), 0);
    assert_non_null(device_pos);
    assert_memory_equal(tags, b.tag, (size_t)n);

    RenderView v = scene_view(info.extent, n);
    v.width = WIDTH, v.height = HEIGHT, v.framebuffer = render_context_framebuffer(f.ctx), v.draw = RENDER_DRAW_CUDA;
    renderer_upload(f.r, b.pos, b.tag, n);
    renderer_draw(f.r, &v);
    glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, f.gl);
    /* Elsewhere first, so that only the copy on the device can bring the bodies back. */
    float *away = malloc((size_t)n * 4 * sizeof *away);
    assert_non_null(away);
    memcpy(away, b.pos, (size_t)n * 4 * sizeof *away);
    for (int i = 0; i < n; i++) away[4 * i] += 1000.0f;
    renderer_upload(f.r, away, b.tag, n);
    free(away);
    RenderLight light;
    assert_int_equal(renderer_upload_device(f.r, device_pos, tags, n, &light), 0);
    renderer_draw(f.r, &v);
    assert_int_equal(renderer_drawn_by(f.r), RENDER_DRAW_CUDA);
    glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, f.cuda);
    const Diff d = compare(&f);
    print_message("from the host and from the device: lit %d and %d pixels, mean |difference| %.5f levels, at most %d\n",
                  d.lit_gl, d.lit_cuda, d.mean, d.max);
    assert_true(d.lit_gl > 5000);
    assert_true(d.max <= 1);
    assert_true(d.mean < 0.01);

    BodiesLight host;
    bodies_light(&b, &host);
    for (int g = 0; g < 2; g++) {
        const double got[5] = {light.mass[g], light.moment[g][0], light.moment[g][1], light.moment[g][2], light.r2[g]};
        const double want[5] = {host.mass[g], host.moment[g][0], host.moment[g][1], host.moment[g][2], host.r2[g]};
        for (int k = 0; k < 5; k++) {
            print_message("galaxy %d light sum %d: device %.17g, host %.17g\n", g, k, got[k], want[k]);
            assert_true(fabs(got[k] - want[k]) <= 1e-12 * (fabs(want[k]) + host.mass[g]));
        }
    }
    /* Galaxy 1's stars made dark: their light leaves the sums. */
    for (int i = 0; i < n; i++)
        if (BODY_TAG_GALAXY(tags[i]) == 1) tags[i] = BODY_TAG(1, BODY_HALO);
    assert_int_equal(renderer_upload_device(f.r, device_pos, tags, n, &light), 0);
    assert_true(light.mass[1] == 0);
    assert_true(fabs(light.mass[0] - host.mass[0]) <= 1e-12 * host.mass[0]);

    free(tags);
    sim_destroy(sim);
    bodies_free(&b);
    fixture_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none),          cmocka_unit_test(test_collision_16k),   cmocka_unit_test(test_outside_view),
        cmocka_unit_test(test_million),       cmocka_unit_test(test_sixteen_million),
        cmocka_unit_test(test_copied_into_a_texture), cmocka_unit_test(test_positions_from_the_device),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
