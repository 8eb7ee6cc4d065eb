/* The whole-loop bench: the real frame (k simulation steps on the vertex buffer, then drawing the
 * sprites, HDR and tonemap at 1920 x 1080) timed over many frames, headless or in a window. */
#include <GL/glew.h>

#include <stdio.h>
#include <string.h>

#include "bench/bench_loop.h"
#include "util/clock.h"
#include "bench/bench_progress.h"
#include "render/camera.h"
#include "render/context.h"
#include "render/renderer.h"
#include "scene/scene.h"

static int loop_run(const BenchLoopOptions *o, SceneHalo halo, const char *csv_path)
{
    BenchTable *table = NULL;
    const int n = o->n > 0 ? o->n : 16384;
    const int width = o->width > 0 ? o->width : 1920, height = o->height > 0 ? o->height : 1080;
    const int frames = o->frames > 0 ? o->frames : 300;
    char err[512] = "";
    RenderContext *ctx = render_context_create(
        &(RenderContextDesc){.width = width, .height = height, .headless = !o->window, .vsync = false}, err,
        sizeof err);
    if (!ctx) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    Bodies b;
    SceneInfo info;
    Renderer *r = NULL;
    Sim *s = NULL;
    int status = 1;
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .halo = halo}, &b, &info, err, sizeof err) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        render_context_destroy(ctx);
        return 1;
    }
    /* With fields the bodies are n stars and the halos' centres. */
    r = renderer_create(&(RendererDesc){.max_bodies = b.n}, err, sizeof err);
    if (!r) goto done;
    renderer_upload(r, b.pos, b.tag, b.n);
    s = sim_create(&(SimDesc){.backend = o->backend,
                              .force = o->force,
                              .position_vbo = renderer_position_vbo(r),
                              .speed_vbo = renderer_speed_vbo(r),
                              .halos = &info.halos},
                   &b, err, sizeof err);
    if (!s) goto done;
    Camera cam;
    camera_init(&cam, info.extent);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1, .theta = o->theta, .alpha = o->alpha,
                         .rebuild_every = o->rebuild_every};
    char title[256];
    char bodies[64];
    if (info.halos.count > 0) snprintf(bodies, sizeof bodies, "%d stars and %d halo fields", n, info.halos.count);
    else snprintf(bodies, sizeof bodies, "%d bodies, live halos", n);
    snprintf(title, sizeof title, "Whole loop: %s, %dx%d, %s, %s backend (%s) on %s, GL on %s", bodies, width,
             height, o->window ? "GLFW window, vsync off" : "headless (EGL)", sim_backend_name(sim_backend(s)),
             sim_force_name(sim_force(s)), sim_device_name(s), render_context_renderer(ctx));
    if (o->alpha > 0)
        snprintf(title + strlen(title), sizeof title - strlen(title), "; the tree opened by estimated error, alpha %.2g",
                 (double)o->alpha);
    if (o->rebuild_every > 1)
        snprintf(title + strlen(title), sizeof title - strlen(title), ", rebuilt every %d steps", o->rebuild_every);
    strncat(title, "; ms per frame", sizeof title - strlen(title) - 1);
    fprintf(stdout, "\n");
    table = bench_table_open(stdout, title, csv_path, err, sizeof err);
    if (!table) goto done;
    BenchProgress progress;
    /* Who draws: as asked, else GL, and CUDA too where the simulation runs on it. */
    RenderDraw draws[RENDER_DRAW_COUNT] = {RENDER_DRAW_GL, RENDER_DRAW_CUDA};
    int draws_count = sim_backend(s) == SIM_BACKEND_CUDA ? 2 : 1;
    if (o->draws_count > 0) {
        draws_count = o->draws_count;
        memcpy(draws, o->draws, sizeof draws);
    }
    bench_progress_begin(&progress, stderr, o->steps_count * draws_count);
    for (int i = 0; i < o->steps_count * draws_count; i++) {
        const int k = o->steps_per_frame[i / draws_count];
        const RenderDraw draw = draws[i % draws_count];
        char what[96];
        snprintf(what, sizeof what, "whole loop N=%d, %d %s, drawn by %s", n, k, k == 1 ? "step/frame" : "steps/frame",
                 renderer_draw_name(draw));
        bench_progress_step(&progress, what);
        RenderView v = {.n = b.n, .width = width, .height = height, .framebuffer = render_context_framebuffer(ctx),
                        .point_size = 1, .exposure = 1, .speed_scale = 1, .show_halo = 1,
                        .focus_distance = cam.distance, .draw = draw};
        camera_matrices(&cam, (float)width / (float)height, v.view, v.proj);
        double map_ms = 0, draw_ms = 0, kernel_ms = 0, t0 = 0;
        const int warmup = frames / 10 + 5;
        /* The drawing's GPU time: two timer queries in turn, each read a frame after it ran. */
        GLuint query[2];
        glGenQueries(2, query);
        for (int f = 0; f < warmup + frames; f++) {
            if (f == warmup) {
                glFinish();
                t0 = clock_seconds();
                map_ms = draw_ms = kernel_ms = 0;
            }
            render_context_poll(ctx);
            sim_advance(s, &p, k);
            map_ms += sim_stats(s).map_ms;
            glBeginQuery(GL_TIME_ELAPSED, query[f & 1]);
            renderer_draw(r, &v);
            glEndQuery(GL_TIME_ELAPSED);
            if (f > warmup) {
                GLuint64 ns = 0;
                glGetQueryObjectui64v(query[(f - 1) & 1], GL_QUERY_RESULT, &ns);
                /* GL's query spans CUDA's drawing too: GL waits for it (the unmap) before its own
                 * commands. The kernels alone, on CUDA's clock, the last frame's. */
                double kernels = 0;
                renderer_splat_ms(r, &kernels);
                draw_ms += 1e-6 * (double)ns;
                kernel_ms += kernels;
            }
            render_context_swap(ctx);
        }
        glFinish();
        GLuint64 last = 0;
        glGetQueryObjectui64v(query[(warmup + frames - 1) & 1], GL_QUERY_RESULT, &last);
        double kernels = 0;
        renderer_splat_ms(r, &kernels);
        draw_ms += 1e-6 * (double)last;
        kernel_ms += kernels;
        /* Asked of CUDA and drawn by GL: the row says so rather than time GL under CUDA's name. */
        if (draw == RENDER_DRAW_CUDA && renderer_drawn_by(r) != RENDER_DRAW_CUDA) {
            bench_progress_clear(&progress);
            fprintf(stderr, "bench: %s\n", renderer_draw_note(r));
            glDeleteQueries(2, query);
            continue;
        }
        glDeleteQueries(2, query);
        double secs = clock_seconds() - t0;
        bench_progress_clear(&progress);
        /* A simulation stopped by a CUDA error would time frames that compute nothing. */
        if (sim_error(s)) {
            snprintf(err, sizeof err, "%d %s: %s", k, k == 1 ? "step/frame" : "steps/frame", sim_error(s));
            status = 1;
            goto done;
        }
        double frame_ms = 1e3 * secs / frames;
        char shape[64], note[256];
        snprintf(shape, sizeof shape, "%d %s, %s draws", k, k == 1 ? "step/frame" : "steps/frame",
                 draw == RENDER_DRAW_CUDA ? "CUDA" : "GL");
        int used = snprintf(note, sizeof note, "%.0f steps/s, %.0f frames/s, map+unmap %.1f%% of a frame, drawing %.2f ms (GPU)",
                            k * frames / secs, frames / secs, 100 * map_ms / (1e3 * secs), draw_ms / frames);
        if (draw == RENDER_DRAW_CUDA && used > 0 && (size_t)used < sizeof note)
            snprintf(note + used, sizeof note - (size_t)used, ", CUDA's kernels %.2f ms of it", kernel_ms / frames);
        bench_table_row(table, &(BenchRow){.name = o->window ? "loop-window" : "loop-headless",
                                           .n = n,
                                           .shape = shape,
                                           .ms = frame_ms,
                                           .interactions_per_s = (double)n * n * k * frames / secs,
                                           .note = note});
    }
    status = bench_table_close(table) == 0 ? 0 : 1;
    table = NULL;
    if (status) snprintf(err, sizeof err, "cannot write %.400s", csv_path);
done:
    bench_table_close(table);
    if (status != 0 && err[0]) fprintf(stderr, "bench: %s\n", err);
    sim_destroy(s);
    renderer_destroy(r);
    bodies_free(&b);
    render_context_destroy(ctx);
    return status;
}

int bench_loop_run(const BenchLoopOptions *o, const char *csv_path)
{
    const SceneHalo fields = SCENE_HALO_FIELD;
    const SceneHalo *halos = o->halos_count > 0 ? o->halos : &fields;
    const int count = o->halos_count > 0 ? o->halos_count : 1;
    for (int h = 0; h < count; h++) {
        char beside[1024];
        const char *csv = csv_path;
        if (csv_path && h > 0) {
            const char *dot = strrchr(csv_path, '.');
            const int stem = dot ? (int)(dot - csv_path) : (int)strlen(csv_path);
            snprintf(beside, sizeof beside, "%.*s-%s%s", stem, csv_path, scene_halo_name(halos[h]), dot ? dot : "");
            csv = beside;
        }
        if (loop_run(o, halos[h], csv) != 0) return 1;
    }
    return 0;
}
