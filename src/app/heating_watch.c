/* The disks' heating, watched over the run (sim/heating.h): the start at each reset or load, then
 * a sample of the host copy every HEATING_PERIODS rotation periods of model time, and never more
 * often than HEATING_SECONDS of wall time or twenty times the last sample's cost, so that the
 * frame loop gives it at most a twentieth of its time. Above HEATING_MAX_BODIES bodies a sample
 * measures every k-th body: its cost stays bounded at a million. Shown in Diagnostics, and beside
 * dE/E0 in the HUD while a disk is flagged. */
#include <math.h>

#include "app/viewer.h"
#include "util/clock.h"

/* Model time between samples, in rotation periods at the disk's half-mass radius. */
#define HEATING_PERIODS 0.5
/* Wall time between samples at least. */
#define HEATING_SECONDS 1.0

/* The series as the UI shows it: the last sample against the start, in model units, and the
 * thickness over time. */
static void app_heating_show(App *a)
{
    const HeatingSeries *s = &a->heat.series;
    UiHeating *u = &a->ui.readout.heating;
    const Units *units = &run_info(a->run)->scene.units;
    const bool physical = units_physical(units);
    *u = (UiHeating){.disks = s->galaxies,
                     .state = (int)s->state,
                     .pericentre = s->desc.pericentre_time,
                     .kpc = physical ? units->kpc : 0,
                     .kms = physical ? units->kms : 0,
                     .myr = physical ? units->myr : 0,
                     .warn = HEATING_WARM_DRIFT,
                     .hot = HEATING_HOT_DRIFT,
                     .cost = a->heat.cost};
    for (int g = 0; g < s->galaxies; g++) {
        const HeatingGalaxy *h = &s->galaxy[g];
        const HeatingPoint *p0 = &h->history[0], *p = &h->history[h->count - 1];
        for (int i = 0; i < h->count; i++)
            a->heat.plot[g][i] = p0->rms_z > 0 ? (float)(h->history[i].rms_z / p0->rms_z) : 1.0f;
        u->disk[g] = (UiHeatingDisk){.rms_z = p->rms_z,
                                     .sigma_r = p->sigma_r,
                                     .toomre_q = p->toomre_q,
                                     .rms_z0 = p0->rms_z,
                                     .sigma_r0 = p0->sigma_r,
                                     .toomre_q0 = p0->toomre_q,
                                     .ring = {h->ring[0], h->ring[1]},
                                     .thickness_drift = h->thickness_drift,
                                     .sigma_drift = h->sigma_drift,
                                     .peak_drift = h->peak_drift,
                                     .state = (int)h->state,
                                     .thickness = a->heat.plot[g],
                                     .count = h->count};
        u->since = p0->time;
        u->time = p->time;
    }
}

void app_heating_restart(App *a, const Bodies *first)
{
    heating_free(&a->heat.series);
    const SceneInfo *info = &run_info(a->run)->scene;
    const HeatingDesc d = {.interval = info->period > 0 ? HEATING_PERIODS * info->period : 0,
                           .pericentre_time = info->pericentre_time};
    const double t0 = clock_seconds();
    if (heating_start(&a->heat.series, first, run_time(a->run), &d) != 0)
        app_notify(a, "Disk heating: out of memory");
    a->heat.cost = clock_seconds() - t0;
    a->heat.next = 0;
    app_heating_show(a);
}

void app_watch_heating(App *a, double t)
{
    /* As the energy: watched in a window, and headless without --frames. */
    if (a->heat.series.galaxies == 0 || t < a->heat.next || sim_error(run_sim(a->run)) ||
        (a->set.headless && a->set.frames > 0))
        return;
    const double time = run_time(a->run);
    if (!heating_due(&a->heat.series, time)) return;
    const double t0 = clock_seconds();
    if (!run_copy(a->run)->valid || run_copy(a->run)->step != run_step(a->run)) run_read_state(a->run);
    if (!run_copy(a->run)->valid || heating_sample(&a->heat.series, &run_copy(a->run)->bodies, run_copy(a->run)->time) != 0) {
        app_notify(a, "Disk heating: out of memory");
        a->heat.next = t + 60;
        return;
    }
    a->heat.cost = clock_seconds() - t0;
    a->heat.next = clock_seconds() + fmax(HEATING_SECONDS, 20 * a->heat.cost);
    app_heating_show(a);
}

void app_heating_free(App *a) { heating_free(&a->heat.series); }
