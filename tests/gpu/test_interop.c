/* CUDA-GL interop: with a position buffer (and a speed buffer) from a headless GL context, the
 * CUDA backend updates the buffers in place, and what GL reads back is what sim_read reports and
 * what a simulation with positions of its own computes, bit for bit. Skips where CUDA or a GL
 * context on the NVIDIA driver is missing. */
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
#include "render/context.h"

#define N 5000

static void read_buffer(GLuint buf, void *dst, size_t bytes)
{
    glBindBuffer(GL_ARRAY_BUFFER, buf);
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, dst);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) fail_msg("glGetBufferSubData: GL error 0x%x", e);
}

static void check_speeds(GLuint buf, const Bodies *b, const char *when)
{
    float *speed = malloc(N * sizeof(float));
    assert_non_null(speed);
    read_buffer(buf, speed, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        const float *v = b->vel + 4 * i;
        double want = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        if (!(fabs(speed[i] - want) <= 1e-6 * want + 1e-12))
            fail_msg("%s: body %d: speed buffer %.9g, |v| = %.9g", when, i, speed[i], want);
    }
    free(speed);
}

/* A headless GL context, or the calling test skipped. */
static RenderContext *context_or_skip(void)
{
    gpu_require_cuda();
    char err[256] = "";
    RenderContext *ctx =
        render_context_create(&(RenderContextDesc){.width = 64, .height = 64, .headless = true}, err, sizeof err);
    if (!ctx) {
        print_message("skipped: no headless GL context: %s\n", err);
        test_skip();
    }
    return ctx;
}

static void test_buffers_in_place(void **state)
{
    RenderContext *ctx = context_or_skip();
    char err[256] = "";
    GLuint buf[2];
    glGenBuffers(2, buf);
    glBindBuffer(GL_ARRAY_BUFFER, buf[0]);
    glBufferData(GL_ARRAY_BUFFER, N * 4 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, buf[1]);
    glBufferData(GL_ARRAY_BUFFER, N * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    Bodies b0, got, own, second;
    gpu_random_ball(&b0, N, 99);
    gpu_random_ball(&second, N, 100);
    bodies_alloc(&got, N);
    bodies_alloc(&own, N);
    SimDesc d = {.backend = SIM_BACKEND_CUDA, .position_vbo = buf[0], .speed_vbo = buf[1]};
    Sim *s = sim_create(&d, &b0, err, sizeof err);
    if (!s && strstr(err, "GL context")) {
        print_message("skipped: %s (GL renderer: %s)\n", err, render_context_renderer(ctx));
        glDeleteBuffers(2, buf);
        render_context_destroy(ctx);
        test_skip();
    }
    if (!s) fail_msg("sim_create with GL buffers: %s", err);
    print_message("GL %s on %s; CUDA on %s\n", render_context_renderer(ctx), render_context_platform(ctx),
                  sim_device_name(s));

    float *vbo = malloc(N * 4 * sizeof(float));
    assert_non_null(vbo);
    read_buffer(buf[0], vbo, N * 4 * sizeof(float));
    assert_memory_equal(vbo, b0.pos, N * 4 * sizeof(float));
    check_speeds(buf[1], &b0, "after create");

    Sim *ref = gpu_sim(&b0, SIM_KERNEL_DEFAULT, SIM_PRECISION_FLOAT);
    SimParams p = {.dt = 0.001f, .softening = 0.01f, .damping = 1.0f};
    for (int a = 0; a < 3; a++) {
        sim_advance(s, &p, 4);
        sim_advance(ref, &p, 4);
    }
    read_buffer(buf[0], vbo, N * 4 * sizeof(float));
    sim_read(s, &got);
    sim_read(ref, &own);
    assert_memory_equal(vbo, got.pos, N * 4 * sizeof(float));
    assert_memory_equal(got.pos, own.pos, N * 4 * sizeof(float));
    assert_memory_equal(got.vel, own.vel, N * 4 * sizeof(float));
    assert_memory_not_equal(got.pos, b0.pos, N * 4 * sizeof(float));
    check_speeds(buf[1], &got, "after 12 steps");

    SimEnergy e1 = sim_energy(s, p.softening), e2 = sim_energy(ref, p.softening);
    assert_true(e1.kinetic == e2.kinetic && e1.potential == e2.potential);

    assert_int_equal(sim_load(s, &second, err, sizeof err), 0);
    read_buffer(buf[0], vbo, N * 4 * sizeof(float));
    assert_memory_equal(vbo, second.pos, N * 4 * sizeof(float));
    check_speeds(buf[1], &second, "after sim_load");

    sim_destroy(ref);
    sim_destroy(s);
    free(vbo);
    glDeleteBuffers(2, buf);
    render_context_destroy(ctx);
    bodies_free(&b0);
    bodies_free(&got);
    bodies_free(&own);
    bodies_free(&second);
}

/* A position buffer smaller than the bodies need is refused with a message, not overrun. */
static void test_small_buffer(void **state)
{
    RenderContext *ctx = context_or_skip();
    char err[256] = "";
    GLuint buf;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_ARRAY_BUFFER, buf);
    glBufferData(GL_ARRAY_BUFFER, (N - 1) * 4 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    Bodies b;
    gpu_random_ball(&b, N, 3);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA, .position_vbo = buf}, &b, err, sizeof err);
    bool no_interop = !s && strstr(err, "GL context");
    if (s) sim_destroy(s);
    glDeleteBuffers(1, &buf);
    render_context_destroy(ctx);
    bodies_free(&b);
    if (no_interop) {
        print_message("skipped: %s\n", err);
        test_skip();
    }
    assert_null(s);
    if (!strstr(err, "position buffer holds")) fail_msg("unexpected message: %s", err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_in_place),
        cmocka_unit_test(test_small_buffer),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
