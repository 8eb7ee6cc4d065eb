#include "app/readout.h"

#include <stdio.h>
#include <string.h>

#include "sim/heating.h"
#include "util/atomic_file.h"

/* Text on one line: a message's line breaks would start new keys. */
static void put_text(AtomicFile *f, const char *key, const char *text)
{
    char line[600];
    snprintf(line, sizeof line, "%s %s", key, text ? text : "");
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    atomic_file_printf(f, "%s\n", line);
}

/* The disks' heating (UiHeating): the state, and each disk's start and last sample in model units. */
static void put_heating(AtomicFile *f, const UiHeating *h)
{
    const int flag = h->state == UI_HEATING_HOT ? 2 : h->state == UI_HEATING_WARM ? 1 : 0;
    atomic_file_printf(f, "heating_disks %d\nheating_state %s\nheating_flag %d\nheating_since %.9g\nheating_time %.9g\n",
                       h->disks, heating_state_name((HeatingState)h->state), flag, h->since, h->time);
    atomic_file_printf(f, "heating_cost %.9g\n", h->cost);
    for (int g = 0; g < h->disks; g++) {
        const UiHeatingDisk *d = &h->disk[g];
        atomic_file_printf(f, "heating_samples_%d %d\nheating_ring_%d %.9g %.9g\n", g, d->count, g, d->ring[0], d->ring[1]);
        atomic_file_printf(f, "heating_rmsz0_%d %.9g\nheating_rmsz_%d %.9g\n", g, d->rms_z0, g, d->rms_z);
        atomic_file_printf(f, "heating_sigmar0_%d %.9g\nheating_sigmar_%d %.9g\n", g, d->sigma_r0, g, d->sigma_r);
        atomic_file_printf(f, "heating_q0_%d %.9g\nheating_q_%d %.9g\n", g, d->toomre_q0, g, d->toomre_q);
        atomic_file_printf(f, "heating_drift_%d %.9g %.9g\nheating_state_%d %s\n", g, d->thickness_drift, d->sigma_drift, g,
                           heating_state_name((HeatingState)d->state));
        atomic_file_printf(f, "heating_tidal_%d %.9g\nheating_encounter_%d %.9g\n", g, d->tidal, g, d->encounter);
        atomic_file_printf(f, "heating_base_%d %.9g\n", g, d->base);
    }
}

int readout_write(const char *path, const ReadoutState *r, char *err, size_t errlen)
{
    AtomicFile *f = atomic_file_open(path, err, errlen);
    if (!f) return -1;
    const UiModel *u = r->ui;
    atomic_file_printf(f, "frame %d\ntime %.9g\nstep %lld\nsteps_run %lld\n", r->frame, r->time, r->step, r->steps_run);
    atomic_file_printf(f, "dt %.9g\nsoftening %.9g\ndamping %.9g\ntheta %.9g\nalpha %.9g\n", r->params.dt,
                       r->params.softening, r->params.damping, r->params.theta, r->params.alpha);
    atomic_file_printf(f, "force %s\nforce_choice %s\n", sim_force_name(r->force), sim_force_name((SimForce)u->controls.force));
    atomic_file_printf(f, "bodies %d\nfield_halos %d\ndrawn_by %s\n", r->bodies, u->readout.field_halos,
                       r->drawn_by ? r->drawn_by : "gl");
    put_text(f, "backend", r->backend);
    atomic_file_printf(f, "size %d %d\nfullscreen %d\nfollow %d\nrecording %d\n", r->width, r->height, r->fullscreen, r->follow,
            r->recording);
    atomic_file_printf(f, "camera_distance %.9g\ncamera_yaw %.9g\npair_view %d\n", r->camera_distance, r->camera_yaw,
                       r->pair_view);
    atomic_file_printf(f, "paused %d\nsteps_per_frame %d\npoint_size %.9g\nexposure %.9g\ncolor_mode %d\n", u->controls.paused,
            u->controls.steps_per_frame, u->controls.point_size, u->controls.exposure, u->controls.color_mode);
    atomic_file_printf(f, "live_halo %d\n", u->controls.live_halo);
    const UiEncounter *e = &u->controls.encounter, *b = &r->built_encounter;
    atomic_file_printf(f, "mass_ratio %.9g\npericentre %.9g\neccentricity %.9g\ninclination_a %.9g\ninclination_b %.9g\n",
                       e->mass_ratio, e->pericentre, e->eccentricity, e->inclination_a, e->inclination_b);
    put_text(f, "pericentre_note", u->readout.pericentre_note);
    atomic_file_printf(f, "encounter_built %d\n", r->encounter_built);
    if (r->encounter_built)
        atomic_file_printf(f, "built_mass_ratio %.9g\nbuilt_pericentre %.9g\nbuilt_eccentricity %.9g\n"
                           "built_inclination_a %.9g\nbuilt_inclination_b %.9g\n",
                           b->mass_ratio, b->pericentre, b->eccentricity, b->inclination_a, b->inclination_b);
    atomic_file_printf(f, "show_halo %d\nauto_rotate %d\nlecture %d\nvisible %d\ncycling %d\ncycle_seconds %.9g\n", u->controls.show_halo,
            u->controls.auto_rotate, u->controls.lecture, u->controls.visible, u->controls.cycling, u->controls.cycle_seconds);
    atomic_file_printf(f, "preset %d\npresets %d\nundo_depth %d\nenergy_valid %d\nenergy_error %.9g\n", u->controls.preset,
            u->readout.preset_count, u->readout.undo_depth, u->readout.energy_valid, u->readout.energy_error);
    atomic_file_printf(f, "redo_depth %d\n", u->readout.redo_depth);
    const UiForceError *check = &u->readout.force_check, *live = &u->readout.live_error;
    atomic_file_printf(f, "force_checks %d\nforce_check_samples %d\nforce_check_median %.9g\nforce_check_p99 %.9g\n",
                       u->readout.force_checks, check->samples, check->median, check->p99);
    atomic_file_printf(f, "live_error_valid %d\nlive_error_samples %d\nlive_error_median %.9g\nlive_error_p99 %.9g\n",
                       u->readout.live_error_valid, live->samples, live->median, live->p99);
    put_text(f, "live_error_what", u->readout.live_error_what ? u->readout.live_error_what : "");
    const int chosen = u->controls.preset;
    put_text(f, "preset_name", chosen >= 0 && chosen < u->readout.preset_count ? u->readout.preset_names[chosen] : "");
    atomic_file_printf(f, "tree_overlay %d\ntree_levels %d\ntree_boxes %d\ntree_capped %d\n", u->controls.show_tree, u->controls.tree_levels,
                       r->tree_boxes, r->tree_capped);
    atomic_file_printf(f, "keys_pressed %d\nkeys_captured %d\nkeyboard_captured %d\nfocused %d\n", r->keys_pressed,
                       r->keys_captured, r->keyboard_captured, r->focused);
    atomic_file_printf(f, "mouse_presses %d\nwheel_turns %d\nmouse_at %.1f %.1f\n", r->mouse_presses, r->wheel_turns,
                       (double)u->readout.mouse_at[0], (double)u->readout.mouse_at[1]);
    put_heating(f, &u->readout.heating);
    atomic_file_printf(f, "timeline_count %d\ntimeline_view %d\ntimeline_spacing %lld\ntimeline_held %d\n",
                       u->readout.timeline_count, u->readout.timeline_view, r->timeline.spacing, r->timeline.held);
    atomic_file_printf(f, "timeline_bytes %zu\ntimeline_budget %zu\ntimeline_playing_back %d\n", r->timeline.bytes,
                       r->timeline.budget, r->timeline.playing_back);
    atomic_file_printf(f, "timeline_scrub_ms %.3f\ntimeline_load_ms %.3f\ntimeline_capture_ms %.3f\n",
                       r->timeline.scrub_ms, r->timeline.load_ms, r->timeline.capture_ms);
    put_text(f, "timeline_text", u->readout.timeline_text);
    atomic_file_printf(f, "series_reads %d\n", r->series_reads);
    atomic_file_printf(f, "series_count %d\nseries_read %d\n", r->series.count, r->series.read);
    put_text(f, "series_text", u->readout.timeline_reading);
    put_text(f, "screenshot", r->screenshot);
    atomic_file_printf(f, "alarm %d\n", r->alarm && r->alarm[0]);
    put_text(f, "alarm_text", r->alarm);
    put_text(f, "notice", r->notice);
    put_text(f, "hud", u->readout.hud);
    put_text(f, "time_text", u->readout.time_text);
    put_text(f, "orbit_text", u->readout.orbit_text);
    put_text(f, "dt_note", u->readout.dt_note);
    put_text(f, "softening_note", u->readout.softening_note);
    atomic_file_printf(f, "view_height_kpc %.9g\nscalebar_px %.1f\n", u->readout.view_height_kpc, (double)u->readout.scalebar_px);
    put_text(f, "scalebar_text", u->readout.scalebar_text);
    atomic_file_printf(f, "scalebar_box %.1f %.1f %.1f %.1f\n", (double)u->readout.scalebar_box[0], (double)u->readout.scalebar_box[1],
                       (double)u->readout.scalebar_box[2], (double)u->readout.scalebar_box[3]);
    atomic_file_printf(f, "panel_scroll %.1f %.1f\n", (double)u->readout.panel_scroll[0], (double)u->readout.panel_scroll[1]);
    for (int i = 0; i < u->readout.widget_count; i++) {
        const UiWidget *w = &u->readout.widgets[i];
        char name[sizeof w->name];
        snprintf(name, sizeof name, "%s", w->name);
        for (char *c = name; *c; c++)
            if (*c == ' ') *c = '_'; /* one word per name */
        atomic_file_printf(f, "widget %s %.1f %.1f %.1f %.1f\n", name, w->x0, w->y0, w->x1, w->y1);
    }
    return atomic_file_commit(f, err, errlen);
}
