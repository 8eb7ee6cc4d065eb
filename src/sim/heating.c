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

/* Centre of mass of galaxy g's stars (disk and bulge), or of all its bodies where it has none.
 * False where g has no body. */
static bool galaxy_centre(const Bodies *b, int g, double c[3])
{
    double m[2] = {0, 0}, s[2][3] = {{0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < b->n; i++) {
        if (BODY_TAG_GALAXY(b->tag[i]) != g) continue;
        const int comp = BODY_TAG_COMPONENT(b->tag[i]), star = comp == BODY_DISK || comp == BODY_BULGE;
        const float *p = b->pos + 4 * i;
        m[star] += p[3];
        for (int k = 0; k < 3; k++) s[star][k] += (double)p[3] * p[k];
    }
    const int use = m[1] > 0 ? 1 : 0;
    if (!(m[use] > 0)) return false;
    for (int k = 0; k < 3; k++) c[k] = s[use][k] / m[use];
    return true;
}

/* Mass of galaxy g's bodies within r of c; a halo field's (its centre one of the last
 * fields->count bodies) is its profile's within r, the field counted as centred on c. */
static double mass_within(const Bodies *b, int g, const double c[3], double r, const SimHalos *fields)
{
    const int centres = fields ? fields->count : 0;
    double m = g < centres ? nbody_halo_mass_inside(&fields->halo[g], (float)r) : 0;
    for (int i = 0; i < b->n - centres; i++) {
        if (BODY_TAG_GALAXY(b->tag[i]) != g) continue;
        const float *p = b->pos + 4 * i;
        const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
        if (dx * dx + dy * dy + dz * dz <= r * r) m += p[3];
    }
    return m;
}

double heating_tidal(const Bodies *b, int galaxy, double radius, const SimHalos *fields)
{
    double c[3], o[3];
    if (!b->tag || !galaxy_centre(b, galaxy, c) || !galaxy_centre(b, 1 - galaxy, o)) return 0;
    const double d = sqrt((o[0] - c[0]) * (o[0] - c[0]) + (o[1] - c[1]) * (o[1] - c[1]) + (o[2] - c[2]) * (o[2] - c[2]));
    const double own = mass_within(b, galaxy, c, radius, fields), other = mass_within(b, 1 - galaxy, o, d, fields);
    if (!(own > 0) || !(other > 0)) return 0;
    if (!(d > radius)) return INFINITY; /* the other galaxy's centre within the disk: no longer a tide */
    return 2.0 * other * radius * radius * radius / (own * d * d * d);
}

/* Galaxy g's halo as a field, or NULL. */
static const SimHalo *field_of(const SimHalos *fields, int galaxy)
{
    return fields && galaxy < fields->count ? &fields->halo[galaxy] : NULL;
}

int heating_measure(const Bodies *b, int galaxy, const double ring[2], const SimHalos *fields, HeatingPoint *out)
{
    StructureMeasure m;
    const StructureDesc d = {.galaxy = galaxy, .ring = {ring[0], ring[1]}, .virial_max_n = -1,
                             .field = field_of(fields, galaxy)};
    memset(out, 0, sizeof *out);
    if (structure_measure(b, &d, &m) != 0) return -1;
    out->rms_z = m.disk_rms_z;
    out->sigma_r = m.ring.sigma_r;
    out->toomre_q = m.ring.toomre_q;
    out->tidal = heating_tidal(b, galaxy, ring[1], fields);
    return 0;
}

/* The bodies to measure: b itself, or every k-th star of it with k times its mass where b holds
 * more than max_bodies, and the halo fields' centres (the last bodies) as they are. NULL when
 * memory runs out. */
static const Bodies *measured_bodies(HeatingSeries *s, const Bodies *b)
{
    const int max = s->desc.max_bodies > 0 ? s->desc.max_bodies : HEATING_MAX_BODIES;
    if (b->n <= max) return b;
    const int centres = s->desc.fields.count, stars = b->n - centres;
    const int k = (stars + max - 1) / max, taken = (stars + k - 1) / k, n = taken + centres;
    if (s->sample.n != n) {
        bodies_free(&s->sample);
        if (bodies_alloc(&s->sample, n) != 0) return NULL;
    }
    for (int j = 0; j < n; j++) {
        const int i = j < taken ? j * k : stars + (j - taken);
        memcpy(s->sample.pos + 4 * j, b->pos + 4 * i, 4 * sizeof(float));
        memcpy(s->sample.vel + 4 * j, b->vel + 4 * i, 4 * sizeof(float));
        if (j < taken) s->sample.pos[4 * j + 3] *= (float)k;
        s->sample.tag[j] = b->tag[i];
    }
    return &s->sample;
}

static void judge_all(HeatingSeries *s);

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
        if (structure_measure(m, &(StructureDesc){.galaxy = g, .virial_max_n = -1, .field = field_of(&s->desc.fields, g)},
                              &first) != 0)
            continue;
        HeatingGalaxy *h = &s->galaxy[s->galaxies];
        const double r_half = first.half_mass_radius[BODY_DISK];
        h->galaxy = g;
        h->ring[0] = HEATING_RING_IN * r_half;
        h->ring[1] = HEATING_RING_OUT * r_half;
        if (heating_measure(m, g, h->ring, &s->desc.fields, &h->history[0]) != 0) continue;
        h->history[0].time = time;
        h->count = 1;
        s->galaxies++;
    }
    judge_all(s); /* a run that starts within an encounter is the encounter's from its start */
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

/* The rise judged at p: of the thickness over the start, and once settled (p the base or later)
 * of sigma_R over the base; the larger. */
static double drift_at(const HeatingGalaxy *h, const HeatingPoint *p)
{
    const HeatingPoint *p0 = &h->history[0], *b = &h->base;
    const double dz = p0->rms_z > 0 ? p->rms_z / p0->rms_z - 1 : 0;
    const double ds = h->settled && p->time >= b->time && b->sigma_r > 0 ? p->sigma_r / b->sigma_r - 1 : 0;
    return fmax(dz, ds);
}

/* The drifts of the last sample, the peak before the encounter, and the state they give. The
 * encounter heats the disk from the first sample at which the other galaxy's tide passed
 * HEATING_TIDAL_LIMIT, or from the first pericentre the orbit predicts where that comes first (a
 * fast passage may fall between two samples); from then on the growth is the encounter's, never
 * flagged. */
static void judge(const HeatingSeries *s, HeatingGalaxy *h)
{
    /* The base: kept once taken (thinning the history must not move it), dropped by a run gone
     * back before it, taken from the first sample at least settle after the start. */
    const double t0 = h->history[0].time, settle = s->desc.settle > 0 ? s->desc.settle : 0;
    const HeatingPoint *p = &h->history[h->count - 1];
    if (h->settled && (p->time < h->base.time || h->base.time <= t0)) h->settled = false; /* the start may be new */
    for (int i = 0; i < h->count && !h->settled; i++)
        if (h->history[i].time >= t0 + settle) {
            h->base = h->history[i];
            h->settled = true;
        }
    if (!h->settled) h->base = h->history[0];
    const HeatingPoint *start = &h->history[0], *p0 = &h->base;
    h->thickness_drift = start->rms_z > 0 ? p->rms_z / start->rms_z - 1 : 0;
    h->sigma_drift = p0->sigma_r > 0 ? p->sigma_r / p0->sigma_r - 1 : 0;
    h->peak_drift = 0;
    h->encounter_time = -1;
    const double pericentre = s->desc.pericentre_time;
    for (int i = 0; i < h->count && h->encounter_time < 0; i++) {
        const HeatingPoint *q = &h->history[i];
        if (q->tidal > HEATING_TIDAL_LIMIT || (pericentre > 0 && q->time >= pericentre)) h->encounter_time = q->time;
        else if (i > 0) h->peak_drift = fmax(h->peak_drift, drift_at(h, q));
    }
    h->drift = drift_at(h, p);
    h->state = h->encounter_time >= 0 ? HEATING_TIDAL : drift_state(h->drift);
}

/* Each galaxy judged, and the series' state the most telling of theirs. */
static void judge_all(HeatingSeries *s)
{
    s->state = s->galaxies > 0 ? HEATING_STEADY : HEATING_NONE;
    for (int g = 0; g < s->galaxies; g++) {
        judge(s, &s->galaxy[g]);
        if (state_rank(s->galaxy[g].state) > state_rank(s->state)) s->state = s->galaxy[g].state;
    }
}

int heating_sample(HeatingSeries *s, const Bodies *b, double time)
{
    if (s->galaxies == 0) return 0;
    const Bodies *m = measured_bodies(s, b);
    if (!m) return -1;
    if (s->galaxy[0].count == HEATING_MAX_SAMPLES) thin(s);
    for (int g = 0; g < s->galaxies; g++) {
        HeatingGalaxy *h = &s->galaxy[g];
        /* A run gone back (an undo): what was measured at or after its time is no longer its past. */
        while (h->count > 1 && h->history[h->count - 1].time >= time) h->count--;
        HeatingPoint p;
        if (heating_measure(m, h->galaxy, h->ring, &s->desc.fields, &p) == 0) {
            p.time = time;
            if (time <= h->history[0].time) h->history[0] = p; /* back at the start: it is the start */
            else h->history[h->count++] = p;
        }
    }
    judge_all(s);
    return 0;
}

void heating_free(HeatingSeries *s)
{
    bodies_free(&s->sample);
    memset(s, 0, sizeof *s);
}
