/* What a person reads in physical units each frame: the HUD's time, the rotation period and the
 * countdown to the next pericentre, the sliders' dt and softening, and the view's height in kpc
 * for the scale bar. The scale is the run's (the scene's, or the save's); a run without one reads
 * in model units. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/viewer.h"

/* Two disk scale lengths of the Milky-Way model: two galaxies whose stars stay closer than this
 * for half a rotation have merged. */
#define MERGE_SCALE_LENGTHS 2.0

/* The orbit's line after the first pericentre (and for a loaded run): from the latest host copy,
 * less the time run since it was taken. */
static void live_orbit(App *a, const Units *u, double t, char *buf, size_t len)
{
    if (!run_copy(a->run)->valid) {
        orbit_watch_reset(&a->orbit);
        return;
    }
    const double merge_radius = MERGE_SCALE_LENGTHS * UNITS_MW_DISK_SCALE_KPC / u->kpc;
    const double merge_time = run_info(a->run)->scene.period > 0 ? 0.5 * run_info(a->run)->scene.period : 250.0 / u->myr;
    orbit_watch_take(&a->orbit, &run_copy(a->run)->bodies, run_copy(a->run)->time, merge_radius, merge_time);
    const OrbitEstimate *e = &a->orbit.est;
    const double since = t - run_copy(a->run)->time;
    /* A host copy older than the event it foretold says nothing true of now (a headless run that
     * measures nothing refreshes it seldom): the line waits for a fresh one. */
    if ((e->phase == ORBIT_APPROACHING && since > e->time_to_pericentre) ||
        (e->phase == ORBIT_RECEDING && e->time_to_apocentre >= 0 && since > e->time_to_apocentre)) {
        buf[0] = '\0';
        return;
    }
    char when[32], apart[32];
    units_format_length(u, e->separation, apart, sizeof apart);
    switch (e->phase) {
    case ORBIT_APPROACHING:
        snprintf(buf, len, "%s apart, next pericentre in ~%s", apart,
                 units_format_time(u, fmax(0.0, e->time_to_pericentre - since), when, sizeof when));
        break;
    case ORBIT_RECEDING:
        if (e->time_to_apocentre >= 0)
            snprintf(buf, len, "%s apart, receding: apocentre in ~%s", apart,
                     units_format_time(u, fmax(0.0, e->time_to_apocentre - since), when, sizeof when));
        else snprintf(buf, len, "%s apart, receding", apart); /* unbound by the mass within: no apocentre to give */
        break;
    case ORBIT_MERGED: snprintf(buf, len, "merged"); break;
    default: buf[0] = '\0'; break;
    }
}

const char *app_when(const App *a, double t, char *buf, size_t len)
{
    const Units *u = &run_info(a->run)->scene.units;
    char when[32];
    if (units_physical(u)) snprintf(buf, len, "t = %s (%.4g)", units_format_time(u, t, when, sizeof when), t);
    else snprintf(buf, len, "t = %.4g", t);
    return buf;
}

const char *app_dt_softening(const App *a, double dt, double softening, char *buf, size_t len)
{
    const Units *u = &run_info(a->run)->scene.units;
    char t[32], l[32];
    if (units_physical(u))
        snprintf(buf, len, "dt %.3g (%s), softening %.3g (%s)", dt, units_format_time(u, dt, t, sizeof t), softening,
                 units_format_softening(u, softening, l, sizeof l));
    else snprintf(buf, len, "dt %.3g, softening %.3g", dt, softening);
    return buf;
}

void app_show_units(App *a)
{
    UiModel *m = &a->ui;
    const Units *u = &run_info(a->run)->scene.units;
    const double t = m->readout.sim_time;
    char a_[32], b_[32];
    /* The encounter's pericentre on the scale of the collision the panel builds, whatever runs now. */
    const Units pu = app_encounter_units(a);
    snprintf(m->readout.pericentre_note, sizeof m->readout.pericentre_note, "%s",
             units_physical(&pu) ? units_format_length(&pu, m->controls.encounter.pericentre, a_, sizeof a_) : "");
    if (!units_physical(u)) {
        snprintf(m->readout.time_text, sizeof m->readout.time_text, "t %.3f", t);
        m->readout.orbit_text[0] = m->readout.dt_note[0] = m->readout.softening_note[0] = '\0';
        m->readout.view_height_kpc = 0;
        m->readout.erg_per_energy = m->readout.momentum_unit = m->readout.angular_momentum_unit = 0;
        return;
    }
    m->readout.erg_per_energy = u->msun * UNITS_ERG_PER_MSUN_KMS2;
    m->readout.momentum_unit = u->msun * u->kms;
    m->readout.angular_momentum_unit = u->msun * u->kpc * u->kms;
    snprintf(m->readout.time_text, sizeof m->readout.time_text, "t %s (%.2f)", units_format_time(u, t, a_, sizeof a_), t);
    snprintf(m->readout.dt_note, sizeof m->readout.dt_note, "%s", units_format_time(u, m->controls.dt, a_, sizeof a_));
    snprintf(m->readout.softening_note, sizeof m->readout.softening_note, "%s", units_format_softening(u, m->controls.softening, a_, sizeof a_));
    m->readout.view_height_kpc = 2.0 * a->camera.distance * tan(0.5 * a->camera.fov_y) * u->kpc;

    char rotation[64] = "", orbit[96] = "";
    if (run_info(a->run)->scene.period > 0)
        snprintf(rotation, sizeof rotation, "rotation %s at R\xc2\xbd",
                 units_format_time(u, run_info(a->run)->scene.period, a_, sizeof a_));
    /* Before the first pericentre the scene's orbit gives it; after, the bodies do. */
    const float first = run_info(a->run)->scene.pericentre_time;
    if (first > 0 && !run_info(a->run)->loaded && t < first)
        snprintf(orbit, sizeof orbit, "pericentre in %s", units_format_time(u, first - t, b_, sizeof b_));
    else live_orbit(a, u, t, orbit, sizeof orbit);
    snprintf(m->readout.orbit_text, sizeof m->readout.orbit_text, "%s%s%s", rotation, rotation[0] && orbit[0] ? "   " : "", orbit);
}
