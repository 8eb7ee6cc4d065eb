/* The heating series (heating.h): structure_measure of each galaxy with a disk, at the start and
 * then every interval of model time, each sample held against the start. */
#include "sim/heating.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/structure.h"

const char *heating_state_name(HeatingState state)
{
    switch (state) {
    case HEATING_STEADY: return "steady";
    case HEATING_WARM: return "warm";
    case HEATING_HOT: return "hot";
    case HEATING_TIDAL: return "tidal";
    default: return "none";
    }
}

/* The order in which the states tell the user something: a flag first, then the encounter's. */
static int state_rank(HeatingState state)
{
    static const int rank[] = {[HEATING_NONE] = 0, [HEATING_STEADY] = 1, [HEATING_TIDAL] = 2,
                               [HEATING_WARM] = 3, [HEATING_HOT] = 4};
    return rank[state];
}

static HeatingState drift_state(double drift)
{
    return drift > HEATING_HOT_DRIFT ? HEATING_HOT : drift > HEATING_WARM_DRIFT ? HEATING_WARM : HEATING_STEADY;
}

int heating_measure(const Bodies *b, int galaxy, const double ring[2], HeatingPoint *out)
{
    StructureMeasure m;
    const StructureDesc d = {.galaxy = galaxy, .ring = {ring[0], ring[1]}, .virial_max_n = -1};
    memset(out, 0, sizeof *out);
    if (structure_measure(b, &d, &m) != 0) return -1;
    out->rms_z = m.disk_rms_z;
    out->sigma_r = m.ring.sigma_r;
    out->toomre_q = m.ring.toomre_q;
    return 0;
}

/* The bodies to measure: b itself, or every k-th body of it with k times its mass where b holds
 * more than max_bodies. NULL when memory runs out. */
static const Bodies *measured_bodies(HeatingSeries *s, const Bodies *b)
{
    const int max = s->desc.max_bodies > 0 ? s->desc.max_bodies : HEATING_MAX_BODIES;
    if (b->n <= max) return b;
    const int k = (b->n + max - 1) / max, n = (b->n + k - 1) / k;
    if (s->sample.n != n) {
        bodies_free(&s->sample);
        if (bodies_alloc(&s->sample, n) != 0) return NULL;
    }
    for (int j = 0; j < n; j++) {
        const int i = j * k;
        memcpy(s->sample.pos + 4 * j, b->pos + 4 * i, 4 * sizeof(float));
        memcpy(s->sample.vel + 4 * j, b->vel + 4 * i, 4 * sizeof(float));
        s->sample.pos[4 * j + 3] *= (float)k;
        s->sample.tag[j] = b->tag[i];
    }
    return &s->sample;
}

int heating_start(HeatingSeries *s, const Bodies *b, double time, const HeatingDesc *desc)
{
    memset(s, 0, sizeof *s);
    if (desc) s->desc = *desc;
    s->interval = s->desc.interval > 0 ? s->desc.interval : 0;
    if (!b || !b->tag || b->n <= 0) return 0;
    const Bodies *m = measured_bodies(s, b);
    if (!m) return -1;
    int disk[2] = {0, 0};
    for (int i = 0; i < m->n; i++)
        if (BODY_TAG_COMPONENT(m->tag[i]) == BODY_DISK) disk[BODY_TAG_GALAXY(m->tag[i])]++;
    for (int g = 0; g < 2; g++) {
        if (disk[g] < HEATING_MIN_DISK) continue;
        StructureMeasure first;
        if (structure_measure(m, &(StructureDesc){.galaxy = g, .virial_max_n = -1}, &first) != 0) continue;
        HeatingGalaxy *h = &s->galaxy[s->galaxies];
        const double r_half = first.half_mass_radius[BODY_DISK];
        h->galaxy = g;
        h->ring[0] = HEATING_RING_IN * r_half;
        h->ring[1] = HEATING_RING_OUT * r_half;
        if (heating_measure(m, g, h->ring, &h->history[0]) != 0) continue;
        h->history[0].time = time;
        h->count = 1;
        h->state = HEATING_STEADY;
        s->galaxies++;
    }
    s->state = s->galaxies > 0 ? HEATING_STEADY : HEATING_NONE;
    return 0;
}

bool heating_due(const HeatingSeries *s, double time)
{
    if (s->galaxies == 0) return false;
    const HeatingGalaxy *h = &s->galaxy[0];
    const double last = h->history[h->count - 1].time;
    return time < last || (time > last && time - last >= s->interval);
}

/* Every other sample after the start dropped, to make room; samples come half as often. */
static void thin(HeatingSeries *s)
{
    for (int g = 0; g < s->galaxies; g++) {
        HeatingGalaxy *h = &s->galaxy[g];
        int kept = 1;
        for (int i = 2; i < h->count; i += 2) h->history[kept++] = h->history[i];
        h->count = kept;
    }
    s->interval *= 2;
}

/* The larger rise of thickness and sigma_R at p over the start. */
static double drift_at(const HeatingGalaxy *h, const HeatingPoint *p)
{
    const HeatingPoint *p0 = &h->history[0];
    const double dz = p0->rms_z > 0 ? p->rms_z / p0->rms_z - 1 : 0;
    const double ds = p0->sigma_r > 0 ? p->sigma_r / p0->sigma_r - 1 : 0;
    return fmax(dz, ds);
}

static bool after_pericentre(const HeatingSeries *s, double time)
{
    return s->desc.pericentre_time > 0 && time >= s->desc.pericentre_time;
}

/* The drifts of the last sample, the peak before the pericentre, and the state they give. */
static void judge(const HeatingSeries *s, HeatingGalaxy *h)
{
    const HeatingPoint *p0 = &h->history[0], *p = &h->history[h->count - 1];
    h->thickness_drift = p0->rms_z > 0 ? p->rms_z / p0->rms_z - 1 : 0;
    h->sigma_drift = p0->sigma_r > 0 ? p->sigma_r / p0->sigma_r - 1 : 0;
    h->peak_drift = 0;
    for (int i = 1; i < h->count && !after_pericentre(s, h->history[i].time); i++)
        h->peak_drift = fmax(h->peak_drift, drift_at(h, &h->history[i]));
    if (!after_pericentre(s, p->time)) {
        h->state = drift_state(drift_at(h, p));
    } else {
        /* Heating measured before the pericentre stays said; what comes after is the encounter's. */
        const HeatingState before = drift_state(h->peak_drift);
        h->state = before == HEATING_STEADY ? HEATING_TIDAL : before;
    }
}

int heating_sample(HeatingSeries *s, const Bodies *b, double time)
{
    if (s->galaxies == 0) return 0;
    const Bodies *m = measured_bodies(s, b);
    if (!m) return -1;
    if (s->galaxy[0].count == HEATING_MAX_SAMPLES) thin(s);
    s->state = HEATING_STEADY;
    for (int g = 0; g < s->galaxies; g++) {
        HeatingGalaxy *h = &s->galaxy[g];
        /* A run gone back (an undo): what was measured at or after its time is no longer its past. */
        while (h->count > 1 && h->history[h->count - 1].time >= time) h->count--;
        HeatingPoint p;
        if (heating_measure(m, h->galaxy, h->ring, &p) == 0) {
            p.time = time;
            if (time <= h->history[0].time) h->history[0] = p; /* back at the start: it is the start */
            else h->history[h->count++] = p;
        }
        judge(s, h);
        if (state_rank(h->state) > state_rank(s->state)) s->state = h->state;
    }
    return 0;
}

void heating_free(HeatingSeries *s)
{
    bodies_free(&s->sample);
    memset(s, 0, sizeof *s);
}
