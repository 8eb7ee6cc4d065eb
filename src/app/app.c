/* The viewer: start, the frame, finish. A frame is a list of named steps:
 *
 *   plan [-> the pages' messages] -> take requests -> apply controls -> advance (k steps;
 *   positions end in the vertex buffer) [-> fall back to the CPU] -> after the advance -> observe
 *   -> timeline -> heating -> tree overlay -> camera -> draw -> rates [-> the frame to the pages]
 *   -> capture -> UI -> readout [-> the readout to the pages] -> present [-> pace]
 *
 * The bracketed steps are `starburst serve`'s (remote.c), and do nothing otherwise.
 *
 * The run itself (the simulation, its clock, its past, its files) is a Run (src/run/run.h); the
 * viewer's state is App (viewer.h). Beside this file: run_actions.c (what the keys and the panel
 * do to the run: reset, the CPU fall-back, the force method, undo, save, export), requests.c
 * (every request of the keys and the panel, taken once a frame), input.c (keys, mouse),
 * observe.c (energy, force checks, alarms), heating_watch.c (the disks' heating),
 * timeline_view.c (the slider over the run's keyframes), preset_apply.c, follow.c,
 * frame_capture.c, tree_overlay.c, messages.c. */
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/viewer.h"
#include "app/view.h"
#include "app/readout.h"
#include "app/stop_signal.h"
#include "app/ui_names.h"
#include "run/saved_run.h"
#include "util/clock.h"
#include "util/params.h"


/* ---- the frame's steps, in the order app_frame takes them ---- */

/* The frame's plan: the window's events taken, the clock read, whether this frame is the last. */
static FramePlan app_plan_frame(App *a)
{
    render_context_poll(a->ctx);
    FramePlan f = {.t = clock_seconds()};
    /* A closing window still draws this frame, so a screenshot asked for has something; a stop
     * asked for by a signal ends the run the same way. */
    f.closing = render_context_should_close(a->ctx) || stop_signal_requested();
    f.seconds = (float)(f.t - a->loop.last);
    f.last_frame = f.closing || (a->loop.frames > 0 && a->loop.frame + 1 == a->loop.frames);
    a->loop.last = f.t;
    run_clock_frame(&a->loop.clock, f.t);
    return f;
}

/* Runs this frame's steps (the panel's, or the one asked for while paused); positions end in the
 * vertex buffer. False when the backend stopped on an error: the frame then falls back. */
static bool app_advance(App *a, FramePlan *f)
{
    const UiModel *u = &a->ui;
    f->steps = !u->controls.paused ? u->controls.steps_per_frame : f->step_once ? 1 : 0;
    if (f->steps > 0) a->tl.playing_back = false;
    a->live.params = app_ui_params(a);
    /* From a past keyframe shown, the run resumes as a new future. */
    return run_advance(a->run, &a->live.params, f->steps) == 0;
}

/* After the advance: a run that diverged is paused, the ladder's tour goes on to its next rung,
 * and the HUD's clock moves. */
static void app_after_advance(App *a, const FramePlan *f)
{
    UiModel *u = &a->ui;
    const int steps = f->steps;
    if (steps > 0 && sim_diverged(run_sim(a->run)) && !u->controls.paused) {
        char when[64];
        u->controls.paused = true;
        a->live.diverged_pause = true;
        snprintf(a->msg.alarm, sizeof a->msg.alarm,
                 "The simulation diverged (NaN or Inf) at %s: paused. ctrl+Z undoes the last change, R resets; "
                 "or raise the softening, lower dt.",
                 app_when(a, run_time(a->run), when, sizeof when));
        app_say(a, "starburst: %s\n", a->msg.alarm);
    }
    if (a->tour.active && steps > 0 && !sim_error(run_sim(a->run))) {
        double n = sim_count(run_sim(a->run));
        const int ran = app_rung(a);
        if (ran == UI_RUNG_TREE) u->readout.ladder_tree_per_body = sim_stats(run_sim(a->run)).interactions_per_body;
        app_run_rung(a, ladder_tour_after_advance(&a->tour, ran, n * n * steps,
                                                  sim_stats(run_sim(a->run)).kernel_interactions_per_s, u->readout.ladder_rate,
                                                  LADDER_TOUR_MAX_S));
    }
    u->readout.ladder_touring = a->tour.active ? (int)a->tour.rung : SIM_KERNEL_DEFAULT;
    u->readout.sim_time = run_time(a->run);
    app_show_units(a);
}

/* The run's timeline after the advance: a keyframe where one is due, a snapshot of --open's
 * series while it is read, and the slider's line. */
static void app_keep_timeline(App *a)
{
    run_keep(a->run);
    app_timeline_read(a);
    app_timeline_show(a);
}

/* A backend that stopped on an error: the CPU carries on from the last checkpoint, and the presets
 * it cannot take leave the list. False when the CPU cannot run either. */
static bool app_fall_back(App *a)
{
    char err[512];
    if (app_fall_back_to_cpu(a) != 0) return false;
    app_offer_presets_for(a, false, "CUDA stopped", err, sizeof err);
    return true;
}

/* The camera's own motion (a glide, auto-rotation), then the body it follows. */
static void app_move_camera(App *a, const FramePlan *f)
{
    camera_update(&a->camera, f->seconds);
    app_follow(a, f->t, f->seconds);
}

/* The rate of the rung that ran, for its bar; the tree's with the interactions a body it took. */
static void app_note_rung_rate(App *a)
{
    const SimStats st = sim_stats(run_sim(a->run));
    const int r = app_rung(a);
    a->ui.readout.ladder_rate[r] = st.kernel_interactions_per_s;
    if (r == UI_RUNG_TREE) a->ui.readout.ladder_tree_per_body = st.interactions_per_body;
}

/* The HUD's rates over the last half second: frames, steps and interactions a second, GFLOP/s. */
static void app_update_rates(App *a, double t, int steps)
{
    a->rates.frames++;
    a->rates.steps += steps;
    a->ui.readout.gpus = run_info(a->run)->gpus;
    double span = t - a->rates.since;
    if (span >= 0.5) {
        a->ui.readout.fps = a->rates.frames / span;
        a->ui.readout.steps_per_s = a->rates.steps / span;
        a->ui.readout.interactions_per_s = a->ui.readout.steps_per_s * (double)sim_count(run_sim(a->run)) * sim_count(run_sim(a->run));
        a->ui.readout.gflops = a->ui.readout.interactions_per_s * 20e-9;
        /* The ladder shows what each rung computes, not what vsync lets the frame rate show. */
        if (a->ui.readout.cuda && steps > 0) app_note_rung_rate(a);
        a->rates.since = t;
        a->rates.frames = 0;
        a->rates.steps = 0;
    }
}

/* Who draws n bodies: as asked, or (auto) CUDA from RENDER_DRAW_CUDA_MIN bodies where the simulation
 * runs on CUDA. */
static RenderDraw app_drawer(const App *a, int n)
{
    if (a->set.draw == APP_DRAW_GL) return RENDER_DRAW_GL;
    if (a->set.draw == APP_DRAW_CUDA) return RENDER_DRAW_CUDA;
    return renderer_auto_draw(n, sim_backend(run_sim(a->run)) == SIM_BACKEND_CUDA);
}

/* The bodies as the vertex buffer holds them after the advance (point sprites, HDR, tonemap), and
 * the tree's boxes, into the window or the headless framebuffer. Where CUDA was asked to draw and
 * cannot, GL draws, said once. */
static void app_draw(App *a)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (w <= 0 || h <= 0) return; /* minimised */
    const int n = sim_count(run_sim(a->run));
    RenderView v = {
        .n = n,
        .draw = app_drawer(a, n),
        .width = w,
        .height = h,
        .framebuffer = render_context_framebuffer(a->ctx),
        .point_size = a->ui.controls.point_size,
        .exposure = a->ui.controls.exposure,
        .color_mode = (ColorMode)a->ui.controls.color_mode,
        .speed_scale = run_info(a->run)->speed_scale,
        .show_halo = a->ui.controls.show_halo,
        .show_boxes = a->ui.controls.show_tree,
    };
    v.focus_distance = a->camera.distance;
    CameraRegion region;
    const bool framed = app_view_region(a, w, h, &region);
    camera_matrices_in(&a->camera, w, h, framed ? &region : NULL, v.view, v.proj);
    renderer_draw(a->renderer, &v);
    if (v.draw == RENDER_DRAW_CUDA && renderer_drawn_by(a->renderer) != RENDER_DRAW_CUDA && !a->draw_note_said) {
        a->draw_note_said = true;
        app_say(a, "starburst: %s\n", renderer_draw_note(a->renderer));
    }
}

/* The panel and HUD over the frame, from the UI model; its buttons raise the next frame's requests. */
static void app_draw_ui(App *a)
{
    a->ui.controls.diagnostics_open = false; /* raised again below while the section is drawn open */
    int w, h;
    render_context_size(a->ctx, &w, &h);
    if (!a->ui_attached || w <= 0 || h <= 0) return;
    const double age = clock_seconds() - a->msg.notice_at;
    a->ui.readout.notice = a->msg.notice[0] ? a->msg.notice : NULL;
    a->ui.readout.notice_alpha = age < NOTICE_SECONDS ? 1.0f : (float)fmax(0.0, 1.0 - (age - NOTICE_SECONDS));
    a->ui.readout.alarm = a->msg.alarm[0] ? a->msg.alarm : NULL;
    a->ui.readout.undo_depth = run_undo_depth(a->run);
    a->ui.readout.redo_depth = run_redo_depth(a->run);
    ui_frame(&a->ui);
    if (a->ui.actions.timeline_seek) a->tl.asked_at = clock_seconds(); /* the scrub's latency starts here */
}

/* STARBURST_READOUT: the app's state as a file, rewritten every frame (the window test reads it). */
static void app_write_readout(App *a)
{
    int w, h;
    render_context_size(a->ctx, &w, &h);
    const Keyframes *keys = run_keyframes(a->run);
    double load_ms, capture_ms;
    run_timeline_costs(a->run, &load_ms, &capture_ms);
    const RunSource *src = run_source(a->run);
    const SceneEncounter built = scene_encounter(&src->scene);
    ReadoutState r = {
        .encounter_built = !src->from_save && !src->from_series &&
                           (run_info(a->run)->kind == SCENE_COLLISION || src->scene.kind == SCENE_TIPSY_COLLIDE),
        .built_encounter = {.mass_ratio = built.mass_ratio, .pericentre = built.pericentre,
                            .eccentricity = built.eccentricity, .inclination_a = built.inclination_a,
                            .inclination_b = built.inclination_b},
        .frame = a->loop.frame,
        .time = run_time(a->run),
        .step = run_step(a->run),
        .steps_run = run_steps_computed(a->run),
        .params = a->live.params,
        .bodies = app_bodies_shown(a),
        .backend = a->ui.readout.backend,
        .width = w,
        .height = h,
        .fullscreen = render_context_fullscreen(a->ctx),
        .follow = a->follow.mode,
        .pair_view = a->follow.pair,
        .recording = a->rec.recorder != NULL,
        .camera_distance = a->camera.distance,
        .camera_yaw = a->camera.yaw,
        .alarm = a->msg.alarm,
        .notice = a->msg.notice,
        .force = sim_force(run_sim(a->run)),
        .drawn_by = renderer_draw_name(renderer_drawn_by(a->renderer)),
        .tree_boxes = a->ui.controls.show_tree ? a->tree.drawn : 0,
        .tree_capped = a->ui.controls.show_tree && a->tree.capped,
        .screenshot = a->rec.screenshot[0] ? a->rec.screenshot : NULL,
        .series_reads = run_series_reads(a->run),
        .series = {.count = run_series(a->run) ? series_count(run_series(a->run)) : 0, .read = run_series_read(a->run)},
        .timeline = {.spacing = keys ? keyframes_spacing(keys) : 0,
                     .held = keys ? keyframes_future_count(keys) : 0,
                     .bytes = keys ? keyframes_bytes_used(keys) : 0,
                     .budget = keys ? keyframes_budget(keys) : 0,
                     .scrub_ms = a->tl.scrub_ms,
                     .load_ms = load_ms,
                     .capture_ms = capture_ms,
                     .playing_back = a->tl.playing_back},
        .keys_pressed = a->keys.pressed,
        .keys_captured = a->keys.captured,
        .keyboard_captured = a->ui_attached && ui_wants_keyboard(),
        .focused = render_context_window(a->ctx) && glfwGetWindowAttrib(render_context_window(a->ctx), GLFW_FOCUSED),
        .mouse_presses = a->mouse.presses,
        .wheel_turns = a->mouse.wheel_turns,
        .ui = &a->ui,
    };
    char err[256];
    if (readout_write(a->loop.readout, &r, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        a->loop.readout = NULL;
    }
}

/* --frames: a line of progress a second on a terminal, every few seconds into a log. */
static void app_report_progress(App *a, double t)
{
    char steps[32];
    if (a->loop.frames > 0)
        app_progress(a, t, "starburst: frame %d/%d, %.0f fps, %s", a->loop.frame + 1, a->loop.frames, a->ui.readout.fps,
                     ui_steps_per_s(a->ui.readout.steps_per_s, steps, sizeof steps));
}

/* Ends the loop with an exit status. */
static bool app_stop(App *a, int status)
{
    a->loop.status = status;
    return false;
}

/* ---- the frame ---- */

/* One frame; false when the loop ends (a->loop.status says how). The bodies' path: the panel's
 * parameters -> sim_advance (positions into the renderer's vertex buffer) -> app_draw (the same
 * buffer as sprites) -> capture -> the panel and HUD (ui_frame) -> present. */
static bool app_frame(App *a)
{
    const AppSettings *set = &a->set;
    app_remote_lap(a, APP_LAP_WAIT);
    FramePlan f = app_plan_frame(a);
    app_remote_take(a);
    app_take_requests(a, &f);
    if (!run_sim(a->run)) return app_stop(a, 1); /* a reset or preset that failed */
    app_apply_controls(a);
    if (!app_advance(a, &f) && !app_fall_back(a)) return app_stop(a, 1);
    app_after_advance(a, &f);
    app_remote_lap(a, APP_LAP_ADVANCE);
    app_observe(a, f.t);
    app_keep_timeline(a);
    app_watch_heating(a, f.t);
    app_tree_overlay(a, f.t);
    app_remote_lap(a, APP_LAP_MEASURE);
    app_move_camera(a, &f);
    app_draw(a);
    app_update_rates(a, f.t, f.steps);
    app_remote_frame(a);
    app_remote_lap(a, APP_LAP_DRAW);
    /* Screenshots and recordings show the scene; the panel is drawn after them unless asked. */
    if (set->capture_ui) app_draw_ui(a);
    if (!app_capture_frame(a, &f)) return app_stop(a, 1);
    if (set->monitor > 0 && (a->loop.frame + 1) % set->monitor == 0) app_monitor(a, a->loop.frame + 1);
    if (f.closing) return false;
    if (!set->capture_ui) app_draw_ui(a);
    if (a->loop.readout) app_write_readout(a);
    app_remote_status(a);
    render_context_swap(a->ctx);
    app_timeline_shown(a);
    app_report_progress(a, f.t);
    app_remote_lap(a, APP_LAP_REST);
    app_remote_pace(a);
    a->loop.frame++;
    return a->loop.frames == 0 || a->loop.frame < a->loop.frames;
}

/* ---- start and end ---- */

static void app_init_ui_model(App *a, const AppOptions *o)
{
    UiModel *u = &a->ui;
    u->controls.scene = o->scene.kind < SCENE_TIPSY ? (int)o->scene.kind : (int)SCENE_COLLISION;
    u->controls.n = o->scene.n;
    u->controls.seed = (int)(o->scene.seed ? o->scene.seed : 1);
    u->controls.live_halo = o->scene.halo != SCENE_HALO_FIELD;
    u->controls.kernel = (int)o->kernel;
    u->actions.measure_ladder = o->measure_ladder;
    u->readout.ladder_touring = SIM_KERNEL_DEFAULT;
    a->live.kernel_picked = o->kernel != SIM_KERNEL_DEFAULT;
    u->controls.force = (int)o->force;
    u->controls.theta = params_theta(o->theta);
    app_set_alpha(a, params_alpha(a->set.alpha)); /* app_resolve_settings has run */
    u->controls.tree_levels = 4;
    u->controls.lecture = o->lecture;
    a->lecture.shown = o->lecture; /* --lecture opens full screen already */
    u->controls.threads_per_body = o->threads_per_body;
    u->controls.block_size = o->block_size;
    u->controls.visible = !o->no_ui;
    u->controls.paused = o->paused;
    u->controls.preset = -1;
    u->controls.cycle_seconds = o->cycle_seconds > 0 ? o->cycle_seconds : 30;
    u->controls.cycling = o->cycle_seconds > 0;
    ui_names_fill(u);
}

/* Everything before the first frame; 0, or the exit status. The options are read here, and what
 * the viewer needs of them later is kept resolved in a->set. */
/* --tipsy takes a file's bodies as they are: where the file is a save of Starburst's (its .ini
 * beside it), the settings saved there are not read, and the run's dt and softening are those
 * its bodies' scale suggests. Said once, with the way to continue the save as it was. */
static void app_say_tipsy_of_save(App *a, const AppOptions *o)
{
    SavedRun saved;
    char why[512];
    if (o->scene.kind != SCENE_TIPSY || !o->scene.tipsy_path ||
        state_read_settings(o->scene.tipsy_path, &saved, why, sizeof why) != 0)
        return;
    const SimParams now = app_ui_params(a);
    app_say(a, "starburst: --tipsy takes the bodies of %.300s alone, at dt %.3g and softening %.3g; the settings saved "
               "beside it (dt %.3g, softening %.3g%s) are --load's: --load %.300s continues that run\n",
            o->scene.tipsy_path, (double)now.dt, (double)now.softening, (double)saved.params.dt,
            (double)saved.params.softening, units_physical(&saved.units) ? ", its units" : "", o->scene.tipsy_path);
    app_notify(a, "--tipsy: the file's bodies alone, not its saved settings (--load continues the saved run)");
}

static int app_start(App *a, AppOptions *opt)
{
    char err[512] = "";
    app_resolve_settings(opt, &a->set);
    /* Served: the address first, before the run is made (a port in use ends it with one line). */
    if (opt->serve && app_remote_start(a, opt) != 0) return 2;
    a->follow.mode = opt->follow;
    a->presets.cuda = -1;
    app_init_ui_model(a, opt);

    /* Presets are checked before anything opens, so a bad name or file ends with one line. */
    int preset = -1;
    if (app_load_presets(a, err, sizeof err) != 0 && (opt->preset || opt->presets_path || opt->cycle_seconds > 0)) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    if (opt->preset && !presets_find(&a->presets.list, opt->preset)) {
        fprintf(stderr, "starburst: --preset: no preset named '%s' in %s\n", opt->preset, a->presets.path);
        return 2;
    }

    /* The backend: CUDA where a device is usable, else the CPU with fewer bodies unless asked. */
    char why[256] = "";
    bool cuda = opt->backend != SIM_BACKEND_CPU && sim_cuda_available(why, sizeof why);
    if (opt->backend == SIM_BACKEND_CUDA && !cuda) {
        fprintf(stderr, "starburst: --backend cuda: %s\n", why);
        return 1;
    }
    /* The presets this backend can take, before anything opens. */
    if (app_offer_presets_for(a, cuda, why, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    if (a->ui.controls.n == 0 && opt->scene.kind < SCENE_TIPSY) a->ui.controls.n = cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES;
    if (cuda && app_check_device(opt, a->ui.controls.n, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }

    /* The run: its series opened (its settings said), nothing built before the context opens. */
    if (app_make_run(a, opt, cuda, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s%s\n", opt->open_path ? "--open: " : "", err);
        return 2;
    }

    a->ctx = render_context_create(&(RenderContextDesc){.width = opt->width,
                                                         .height = opt->height,
                                                         .headless = opt->headless,
                                                         .fullscreen = opt->fullscreen,
                                                         .vsync = opt->vsync,
                                                         .title = "Starburst"},
                                   err, sizeof err);
    if (!a->ctx) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    /* An image larger than the GL draws would come out black: refused before the run is built. */
    if (opt->headless && renderer_size_check(opt->width, opt->height, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: --size %dx%d: %s\n", opt->width, opt->height, err);
        return 2;
    }
    app_say(a, "starburst: OpenGL on %s (%s)%s\n", render_context_renderer(a->ctx), render_context_vendor(a->ctx),
            opt->headless ? ", headless" : "");
    /* CUDA updates the vertex buffer in place only where the GL context runs on its device. */
    if (cuda && !sim_cuda_gl_usable(why, sizeof why)) {
        if (opt->backend == SIM_BACKEND_CUDA) {
            fprintf(stderr, "starburst: --backend cuda: %s\n", why);
            return 1;
        }
        cuda = false;
        if (opt->scene.n == 0 && opt->scene.kind < SCENE_TIPSY) a->ui.controls.n = CPU_DEFAULT_BODIES;
        if (app_offer_presets_for(a, false, why, err, sizeof err) != 0) {
            fprintf(stderr, "starburst: %s\n", err);
            return 2;
        }
    }
    if (opt->preset) preset = (int)(presets_find(&a->presets.list, opt->preset) - a->presets.list.items);
    if (!cuda) run_set_backend(a->run, SIM_BACKEND_CPU);
    /* A built-in scene on the CPU gets fewer bodies; a file brings its own. */
    const bool scene_n = !opt->load_path && !opt->open_path && opt->scene.kind < SCENE_TIPSY;
    char bodies[64] = "";
    if (scene_n) snprintf(bodies, sizeof bodies, ", %d %s%s", a->ui.controls.n, plural(a->ui.controls.n, "body", "bodies"), opt->scene.n ? "" : " (-n for more)");
    if (!cuda && opt->backend == SIM_BACKEND_AUTO)
        snprintf(a->live.backend_note, sizeof a->live.backend_note, "CUDA unavailable (%.200s): CPU backend%s.", why,
                 bodies);
    else if (!cuda && scene_n && opt->scene.n == 0)
        snprintf(a->live.backend_note, sizeof a->live.backend_note, "CPU backend%s.", bodies);
    if (a->live.backend_note[0]) {
        app_notify(a, "%s", a->live.backend_note);
        app_say(a, "starburst: %s\n", a->msg.notice);
    }
    if (!cuda && scene_n) app_say_cpu_step(a, opt, a->ui.controls.n);
    if (opt->record_dir) {
        app_start_recording(a, opt->record_dir);
        if (!a->rec.recorder) return 2;
    }

    /* The timeline starts once the settings are made: its spacing is the steps a frame they set,
     * and a series' snapshots are read onto it once. */
    app_show_encounter(a); /* the options' encounter, for the first build to take */
    if (app_build_run(a, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    app_say_gpu_only_options(a, opt);
    if (opt->load_path && opt->save_path && app_same_file(opt->load_path, opt->save_path))
        a->live.save_holder = run_info(a->run)->id;
    app_default_settings(a);
    app_start_timeline(a);
    app_camera_home(a, &a->camera);
    app_follow_pair_start(a);
    if (preset >= 0 && app_apply_preset(a, preset, 0, err, sizeof err) != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 1;
    }
    a->presets.cycle_next = clock_seconds() + a->ui.controls.cycle_seconds;
    /* The CPU backend has one kernel (OpenMP, all pairs): the ladder's names are the GPU's. A
     * tree run names the tree. */
    char kernel[48] = "";
    if (sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_force(run_sim(a->run)) == SIM_FORCE_FMM) {
        char opening[32];
        const SimParams now = app_ui_params(a);
        app_describe_opening(sim_force(run_sim(a->run)), &now, opening, sizeof opening);
        snprintf(kernel, sizeof kernel, ", %s, %s", sim_force_name(sim_force(run_sim(a->run))), opening);
    }
    else if (a->ui.readout.cuda)
        snprintf(kernel, sizeof kernel, ", kernel %s", sim_kernel_name(sim_kernel(run_sim(a->run))));
    char params[96], device[200];
    const int gpus = sim_gpus(run_sim(a->run), NULL);
    if (gpus > 1) snprintf(device, sizeof device, "%d x %s", gpus, run_info(a->run)->device);
    else snprintf(device, sizeof device, "%s", run_info(a->run)->device);
    char fields[48] = "";
    const int halos = a->ui.readout.field_halos;
    if (halos > 0) snprintf(fields, sizeof fields, " and %d halo field%s", halos, halos == 1 ? "" : "s");
    app_say(a, "starburst: %d %s%s on %s (%s)%s, %s, %d %s a frame\n", a->ui.readout.bodies,
            halos > 0 ? plural(a->ui.readout.bodies, "star", "stars") : plural(a->ui.readout.bodies, "body", "bodies"),
            fields, a->ui.readout.backend, device,
            kernel, app_dt_softening(a, app_ui_params(a).dt, app_ui_params(a).softening, params, sizeof params), a->ui.controls.steps_per_frame,
            plural(a->ui.controls.steps_per_frame, "step", "steps"));

    app_say_tipsy_of_save(a, opt);

    GLFWwindow *win = render_context_window(a->ctx);
    if (win) {
        /* Ours first: ImGui's GLFW backend chains to the callbacks installed before it. */
        app_input_attach(a, win);
        float sx = 1, sy = 1;
        glfwGetWindowContentScale(win, &sx, &sy);
        a->ui_attached = ui_create(win, sx);
    } else if (opt->capture_ui) {
        /* Headless, the panel and HUD are drawn only to appear in screenshots and recordings. */
        a->ui_attached = ui_create(NULL, 1);
    }

    a->loop.frames = opt->frames;
    if (opt->headless && a->loop.frames == 0 && run_series(a->run)) {
        /* Headless --open plays its series once through. */
        const double rate = a->set.open_rate;
        a->loop.frames = (int)ceil((series_count(run_series(a->run)) - 1) / rate - 1e-9) + 1;
        app_say(a, "starburst: headless --open: %d %s, %g %s a frame\n", a->loop.frames,
                plural(a->loop.frames, "frame", "frames"), rate, rate == 1 ? "snapshot" : "snapshots");
    }
    if (opt->headless && !opt->serve && a->loop.frames == 0) {
        a->loop.frames = 300;
        app_say(a, "starburst: headless without --frames: rendering %d frames\n", a->loop.frames);
    }
    const char *readout = getenv("STARBURST_READOUT");
    a->loop.readout = readout && *readout ? readout : NULL;
    a->loop.start = a->loop.last = a->loop.last_progress = a->rates.since = clock_seconds();
    run_clock_start(&a->loop.clock, a->loop.start);
    return 0;
}

/* After the last frame: the recording finalised, the run saved where asked. */
static int app_finish(App *a, int status)
{
    app_progress_end(a);
    if (a->rec.recorder && app_stop_recording(a) != 0) status = 1;
    if (a->set.save_path && a->run && run_sim(a->run) && app_save_at_exit(a) != 0) status = 1;
    /* The time the run ran: not the time it was stopped (ctrl+Z) for. */
    const double elapsed = run_clock_seconds(&a->loop.clock, clock_seconds());
    if (a->run && run_sim(a->run)) {
        const long long steps = run_steps_computed(a->run);
        char rate[32];
        app_say(a, "starburst: %lld %s in %.2f s (%s)\n", steps, plural(steps, "step", "steps"), elapsed,
                ui_steps_per_s(elapsed > 0 ? steps / elapsed : 0, rate, sizeof rate));
    }
    return status;
}

static void app_destroy(App *a)
{
    app_remote_finish(a);
    if (a->rec.recorder) app_stop_recording(a);
    presets_free(&a->presets.list);
    free(a->presets.names);
    free(a->tree.cells);
    free(a->tree.boxes);
    run_destroy(a->run);
    if (a->ui_attached) ui_destroy();
    renderer_destroy(a->renderer);
    render_context_destroy(a->ctx);
}

int app_run(AppOptions *opt)
{
    App app = {0};
    App *a = &app;
    int status = app_start(a, opt);
    if (status == 0) {
        stop_signal_install();
        while (app_frame(a)) {
        }
        status = app_finish(a, a->loop.status);
    }
    app_destroy(a);
    app_options_free(opt); /* the series, where the run was not made */
    return stop_signal_finish(status, app.live.saved_at_exit[0] ? app.live.saved_at_exit : opt->save_path, opt->quiet);
}
