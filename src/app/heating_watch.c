/* The disks' heating on screen: the run samples its disks (run_watch_heating: every half rotation
 * period of model time, never more often than a second of wall time or twenty times the last
 * sample's cost); the viewer shows the series in Diagnostics, and beside dE/E0 in the HUD while a
 * disk is flagged. */
#include "app/viewer.h"

/* The series as the UI shows it: the last sample against the settled disk, in model units, and the
 * thickness over the start's. */
void app_heating_show(App *a)
{
    const HeatingSeries *s = run_heating(a->run);
    UiHeating *u = &a->ui.readout.heating;
    const Units *units = &run_info(a->run)->scene.units;
    const bool physical = units_physical(units);
    *u = (UiHeating){.disks = s->galaxies,
                     .state = (int)s->state,
                     .tidal_limit = HEATING_TIDAL_LIMIT,
                     .kpc = physical ? units->kpc : 0,
                     .kms = physical ? units->kms : 0,
                     .myr = physical ? units->myr : 0,
                     .warn = HEATING_WARM_DRIFT,
                     .hot = HEATING_HOT_DRIFT,
                     .cost = run_heating_cost(a->run)};
    for (int g = 0; g < s->galaxies; g++) {
        const HeatingGalaxy *h = &s->galaxy[g];
        const HeatingPoint *start = &h->history[0], *p0 = &h->base, *p = &h->history[h->count - 1];
        for (int i = 0; i < h->count; i++)
            a->heat.plot[g][i] = start->rms_z > 0 ? (float)(h->history[i].rms_z / start->rms_z) : 1.0f;
        u->disk[g] = (UiHeatingDisk){.rms_z = p->rms_z,
                                     .sigma_r = p->sigma_r,
                                     .toomre_q = p->toomre_q,
                                     .rms_z0 = start->rms_z,
                                     .sigma_r0 = start->sigma_r,
                                     .toomre_q0 = start->toomre_q,
                                     .sigma_rb = p0->sigma_r,
                                     .toomre_qb = p0->toomre_q,
                                     .ring = {h->ring[0], h->ring[1]},
                                     .thickness_drift = h->thickness_drift,
                                     .sigma_drift = h->sigma_drift,
                                     .drift = h->drift,
                                     .base = h->settled ? p0->time : -1,
                                     .peak_drift = h->peak_drift,
                                     .tidal = p->tidal,
                                     .encounter = h->encounter_time,
                                     .state = (int)h->state,
                                     .thickness = a->heat.plot[g],
                                     .count = h->count};
        u->since = start->time;
        u->settled = start->time + s->desc.settle;
        u->time = p->time;
    }
}

void app_watch_heating(App *a, double t)
{
    /* As the energy: watched in a window, and headless without --frames. */
    if (a->set.headless && a->set.frames > 0) return;
    if (run_watch_heating(a->run, t)) app_heating_show(a);
}
