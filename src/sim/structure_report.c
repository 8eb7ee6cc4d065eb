/* Each galaxy of a state measured, and its line, as starburst-measure prints it (structure_report.h). */
#include "sim/structure_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define REPORT_TEXT(x) #x
#define REPORT_NUMBER(x) REPORT_TEXT(x)

const char *structure_report_no_virial(const StructureReport *r)
{
    if (r->m.potential < 0) return NULL;
    if (r->bodies > STRUCTURE_VIRIAL_MAX_N) return "over " REPORT_NUMBER(STRUCTURE_VIRIAL_MAX_N) " bodies";
    if (r->bodies < 2) return "one body";
    return "W is 0, every body at one point and no softening";
}

int structure_report(const Bodies *b, const StructureDesc *base, const SimHalos *fields, double softening,
                     StructureReport out[2])
{
    int count[2] = {0, 0};
    for (int i = 0; i < b->n; i++) count[BODY_TAG_GALAXY(b->tag[i])]++;
    int made = 0;
    for (int g = 0; g < 2; g++) {
        if (count[g] == 0) continue;
        StructureReport *r = &out[made++];
        *r = (StructureReport){.galaxy = g, .bodies = count[g], .desc = *base};
        StructureDesc *d = &r->desc;
        if (!(d->ring[1] > d->ring[0])) d->ring[0] = STRUCTURE_REPORT_RING_IN, d->ring[1] = STRUCTURE_REPORT_RING_OUT;
        if (!(d->beyond > 0)) d->beyond = STRUCTURE_REPORT_BEYOND;
        d->galaxy = g;
        d->field = fields && g < fields->count ? &fields->halo[g] : NULL;
        d->softening = softening;
        r->measured = structure_measure(b, d, &r->m) == 0;
        r->other = count[g] - r->m.count[BODY_DISK] - r->m.count[BODY_BULGE] - r->m.count[BODY_HALO];
    }
    return made;
}

/* A line built piece by piece. */
typedef struct Line {
    char *text;
    size_t len, at;
} Line;

static void put(Line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Line *l, const char *fmt, ...)
{
    if (l->at >= l->len) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(l->text + l->at, l->len - l->at, fmt, ap);
    va_end(ap);
    if (n > 0) l->at += (size_t)n;
}

static const char *const component[3] = {"disk", "bulge", "halo"};

/* " disk 1.2345 bulge - halo 6.5 (bulge not measured: no bulge bodies)": the components that have
 * bodies, a dash and the reason for those that have none; " not measured: no disk or halo
 * bodies" where none has any. */
static void put_components(Line *l, const StructureMeasure *m, const double value[3], const bool which[3])
{
    char missing[64] = "";
    int asked = 0, absent = 0;
    for (int c = 0; c < 3; c++)
        if (which[c]) asked++, absent += m->count[c] == 0;
    for (int c = 0, named = 0; c < 3; c++) {
        if (!which[c] || m->count[c] > 0) continue;
        const size_t at = strlen(missing);
        named++;
        snprintf(missing + at, sizeof missing - at, "%s%s", named == 1 ? "" : named == absent ? " or " : ", ",
                 component[c]);
    }
    if (absent == asked) {
        put(l, " not measured: no %s bodies", missing);
        return;
    }
    for (int c = 0; c < 3; c++) {
        if (!which[c]) continue;
        if (m->count[c] > 0) put(l, " %s %.4f", component[c], value[c]);
        else put(l, " %s -", component[c]);
    }
    if (absent) put(l, " (%s not measured: no %s bodies)", missing, missing);
}

void structure_report_line(const StructureReport *r, const char *source, double time, const char *eps_from, char *line,
                           size_t len)
{
    Line l = {.text = line, .len = len, .at = 0};
    if (len) line[0] = '\0';
    if (!r->measured) {
        put(&l, "%s galaxy %d t %.4g: not measured: out of memory", source, r->galaxy, time);
        return;
    }
    const StructureMeasure *m = &r->m;
    const StructureDesc *d = &r->desc;
    const StructureRing *ring = &m->ring;
    put(&l, "%s galaxy %d t %.4g: bodies %d/%d/%d", source, r->galaxy, time, m->count[BODY_DISK],
        m->count[BODY_BULGE], m->count[BODY_HALO]);
    if (r->other > 0) put(&l, " and %d of no component", r->other);

    put(&l, ", R_half");
    put_components(&l, m, m->half_mass_radius, (const bool[3]){true, true, true});

    /* The disk's plane is found from its own spin: one body lies in it, z = 0 by construction. */
    if (m->count[BODY_DISK] >= 2) put(&l, ", rms_z %.4f", m->disk_rms_z);
    else put(&l, ", rms_z not measured: %s", m->count[BODY_DISK] ? "one disk body" : "no disk bodies");

    put(&l, ", R %g-%g: n %d", d->ring[0], d->ring[1], ring->count);
    if (ring->count < 2) {
        put(&l, ", not measured: %s disk bodies in the annulus", ring->count ? "one of the" : "no");
    } else {
        put(&l, " sigma_R %.4f kappa %.4f Q ", ring->sigma_r, ring->kappa);
        if (ring->toomre_q > 0) put(&l, "%.3f", ring->toomre_q);
        else put(&l, "-");
        put(&l, " A_1..6 %.4f %.4f %.4f %.4f %.4f %.4f", ring->fourier[1], ring->fourier[2], ring->fourier[3],
            ring->fourier[4], ring->fourier[5], ring->fourier[6]);
        if (!(ring->toomre_q > 0)) put(&l, " (Q not measured: the enclosed mass gives no epicyclic frequency)");
    }

    put(&l, ", beyond %g:", d->beyond);
    put_components(&l, m, m->beyond_fraction, (const bool[3]){true, false, true});

    put(&l, ", 2K/|W| ");
    const char *none = structure_report_no_virial(r);
    if (none) put(&l, "not measured: %s", none);
    else if (d->field)
        put(&l, "%.4f at softening %g (%s; the stars in their field halo, W = sum m x.a)", m->virial, d->softening,
            eps_from);
    else put(&l, "%.4f at softening %g (%s)", m->virial, d->softening, eps_from);
}
