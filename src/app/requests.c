/* The requests of the keys and the panel, each taken here, once a frame, with take(); then the
 * panel's controls applied to the simulation, the camera and the window. */
#include <stdio.h>
#include <string.h>

#include "app/viewer.h"

/* Lowers a one-frame request flag; true when it was raised. */
static bool take(bool *flag)
{
    const bool raised = *flag;
    *flag = false;
    return raised;
}

/* The same for a request that carries a value: the value, 0 when none was raised. */
static int take_value(int *request)
{
    const int value = *request;
    *request = 0;
    return value;
}

/* The ladder's pick of the tree, or of a direct kernel while the tree runs: kept for resets. */
static void app_pick_rung(App *a, int force)
{
    if (a->ui.readout.cuda && force == SIM_FORCE_TREE && app_run_rung(a, UI_RUNG_TREE)) run_choose_force(a->run, SIM_FORCE_TREE);
    if (a->ui.readout.cuda && force == SIM_FORCE_DIRECT && app_run_rung(a, a->ui.controls.kernel)) {
        run_choose_force(a->run, SIM_FORCE_DIRECT);
        a->live.kernel_picked = true;
    }
}

/* The kernel combo, or a new launch shape (threads per body, block size) applied. */
static void app_pick_kernel(App *a, bool apply_shape)
{
    if ((a->ui.controls.kernel != (int)sim_kernel(run_sim(a->run)) || apply_shape) && a->ui.readout.cuda) {
        char err[256];
        if (a->ui.controls.kernel != (int)sim_kernel(run_sim(a->run))) a->live.kernel_picked = true;
        if (sim_set_kernel(run_sim(a->run), (SimKernel)a->ui.controls.kernel, a->ui.controls.threads_per_body, a->ui.controls.block_size, err,
                           sizeof err) != 0) {
            app_notify(a, "%s", err);
            a->ui.controls.kernel = (int)sim_kernel(run_sim(a->run));
        }
    }
}

/* Every request of the UI and the keys, each taken here, once, before the frame advances; those
 * served later in the frame (a single step, a screenshot) go into its plan. A preset that fails
 * leaves the run as it was; a reset that fails, or a preset whose failure took the run before it
 * along, leaves no simulation: the frame then ends the run. */
void app_take_requests(App *a, FramePlan *f)
{
    UiModel *u = &a->ui;
    char err[512];
    f->step_once = take(&u->actions.step_once);
    f->screenshot = take(&a->req.screenshot);
    const int preset_step = take_value(&a->req.preset_step);
    if (preset_step != 0) {
        app_step_preset(a, preset_step);
        if (!run_sim(a->run)) return;
    }
    if (take(&u->actions.reset)) {
        app_handle_reset(a);
        if (!run_sim(a->run)) return;
    }
    const bool preset = take(&u->actions.apply_preset);
    if (preset || (u->controls.cycling && f->t >= a->presets.cycle_next && a->presets.list.count > 0)) {
        if (!preset) app_step_preset(a, +1);
        else if (app_apply_preset(a, u->controls.preset, 1.5f, err, sizeof err) != 0)
            app_say_preset_failed(a, u->controls.preset, err);
        a->presets.cycle_next = f->t + u->controls.cycle_seconds;
        if (!run_sim(a->run)) return;
    }
    if (take(&u->actions.apply_force)) app_set_force(a, (SimForce)u->actions.force_wanted);
    if (take(&u->actions.edit_began))
        app_remember(a, &(SimParams){.dt = u->actions.before.dt, .softening = u->actions.before.softening,
                                     .damping = u->actions.before.damping, .theta = u->actions.before.theta,
                                     .alpha = u->actions.before.alpha});
    if (u->actions.typed) app_take_typed(a);
    if (take(&u->actions.defaults)) app_restore_defaults(a);
    if (take(&u->actions.undo)) app_undo(a);
    if (take(&u->actions.redo)) app_redo(a);
    /* Before anything below writes the controls out (a save, a preset). */
    app_check_controls(a);
    app_timeline_requests(a);
    if (take(&a->req.record)) {
        if (a->rec.recorder) app_stop_recording(a);
        else app_start_recording(a, NULL);
    }
    if (take(&a->req.save)) app_save_run(a, a->set.save_path);
    if (take(&u->actions.check_forces)) app_check_forces(a);
    if (take(&u->actions.save_preset)) app_save_preset(a);
    if (take(&u->actions.run_at_scale)) app_export_swift(a);
    if (take(&u->actions.measure_ladder)) {
        if (!u->readout.cuda)
            app_notify(a, "The kernel ladder is the CUDA backend's; this run is on the %s.", u->readout.backend);
        else if (!a->tour.active)
            app_run_rung(a, ladder_tour_start(&a->tour, app_rung(a)));
    }
    app_pick_rung(a, take_value(&u->actions.ladder_force));
    app_pick_kernel(a, take(&u->actions.apply_shape));
    if (take(&u->actions.reset_camera)) {
        camera_reset(&a->camera);
        app_follow_pair_stop(a);
    }
}

/* L: lecture mode goes full screen; leaving it gives back the window it came from. Its kernel
 * ladder is the CUDA backend's: on the CPU, the notice says why it is not there, as K's does. */
static void app_set_lecture(App *a, bool on)
{
    a->ui.controls.lecture = on;
    a->lecture.shown = on;
    if (on) {
        a->lecture.fullscreen_before = render_context_fullscreen(a->ctx);
        render_context_set_fullscreen(a->ctx, true);
        if (!a->ui.readout.cuda)
            app_notify(a, "Lecture mode: the kernel ladder is the CUDA backend's; this run is on the %s.",
                       a->ui.readout.backend);
    } else {
        render_context_set_fullscreen(a->ctx, a->lecture.fullscreen_before);
    }
}

/* The panel's settings as they stand after the requests: the names and shape the HUD shows, the
 * camera's rotation, lecture mode. */
void app_apply_controls(App *a)
{
    a->ui.readout.tree = sim_force(run_sim(a->run)) == SIM_FORCE_TREE || sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    a->ui.readout.fmm = sim_force(run_sim(a->run)) == SIM_FORCE_FMM;
    sim_launch_shape(run_sim(a->run), &a->ui.readout.shape_q, &a->ui.readout.shape_block);
    a->ui.readout.kernel_name = sim_kernel_name(sim_kernel(run_sim(a->run)));
    a->ui.controls.force = app_force_shown(a);
    /* The HUD's interactions/s count N^2 a step, as the direct sum does; the tree says what it
     * really evaluates. */
    a->ui.readout.method = NULL;
    if (sim_force(run_sim(a->run)) == SIM_FORCE_TREE) {
        char name[64];
        app_method_name(a, name, sizeof name);
        const int len = snprintf(a->obs.method, sizeof a->obs.method, "%s: %.0f interactions a body (of %d)", name,
                                 sim_stats(run_sim(a->run)).interactions_per_body, sim_count(run_sim(a->run)));
        /* The live force error, where it was measured on this method. */
        const RunLiveError *live = run_live_error(a->run);
        if (live->valid && strcmp(live->what, name) == 0 && len > 0 && len < (int)sizeof a->obs.method)
            snprintf(a->obs.method + len, sizeof a->obs.method - (size_t)len, "; force error p99 %.1e",
                     live->error.p99);
        a->ui.readout.method = a->obs.method;
    }
    a->camera.auto_rotate = a->ui.controls.auto_rotate ? 0.1f : 0.0f;
    if (a->ui.controls.lecture != a->lecture.shown) app_set_lecture(a, a->ui.controls.lecture);
}
