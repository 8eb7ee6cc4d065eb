#include "app/pericentre.h"

#include <math.h>
#include <string.h>

/* Mass-weighted centre and velocity of galaxy g's stars (disk and bulge). False where it has none. */
static bool stellar_centre(const Bodies *b, int g, double x[3], double v[3])
{
    double m = 0, sx[3] = {0, 0, 0}, sv[3] = {0, 0, 0};
    for (int i = 0; i < b->n; i++) {
        const int tag = b->tag[i], c = BODY_TAG_COMPONENT(tag);
        if (BODY_TAG_GALAXY(tag) != g || (c != BODY_DISK && c != BODY_BULGE)) continue;
        const float *p = &b->pos[4 * i], *u = &b->vel[4 * i];
        m += p[3];
        for (int k = 0; k < 3; k++) {
            sx[k] += (double)p[3] * p[k];
            sv[k] += (double)p[3] * u[k];
        }
    }
    if (!(m > 0)) return false;
    for (int k = 0; k < 3; k++) {
        x[k] = sx[k] / m;
        v[k] = sv[k] / m;
    }
    return true;
}

/* Mass of galaxy g's bodies within r of c. */
static double mass_within(const Bodies *b, int g, const double c[3], double r)
{
    double m = 0;
    for (int i = 0; i < b->n; i++) {
        if (BODY_TAG_GALAXY(b->tag[i]) != g) continue;
        const float *p = &b->pos[4 * i];
        const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
        if (dx * dx + dy * dy + dz * dz <= r * r) m += p[3];
    }
    return m;
}

int orbit_estimate(const Bodies *b, OrbitEstimate *out)
{
    memset(out, 0, sizeof *out);
    double xa[3], va[3], xb[3], vb[3];
    if (!b || b->n < 2 || !b->tag || !stellar_centre(b, 0, xa, va) || !stellar_centre(b, 1, xb, vb)) return -1;
    double r[3], v[3];
    for (int k = 0; k < 3; k++) {
        r[k] = xb[k] - xa[k];
        v[k] = vb[k] - va[k];
    }
    const double d = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (!(d > 0)) return -1;
    const double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2], v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    const double h[3] = {r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
    const double h2 = h[0] * h[0] + h[1] * h[1] + h[2] * h[2];
    const double mu = mass_within(b, 0, xa, d) + mass_within(b, 1, xb, d); /* G = 1 */
    out->separation = d;
    out->radial_speed = rv / d;
    out->mass = mu;
    out->phase = rv < 0 ? ORBIT_APPROACHING : ORBIT_RECEDING;
    out->time_to_pericentre = out->time_to_apocentre = -1;
    if (!(mu > 0)) return 0;
    const double energy = 0.5 * v2 - mu / d;
    const double e = sqrt(fmax(0.0, 1.0 + 2.0 * energy * h2 / (mu * mu)));
    if (energy < 0 && e < 1) {
        /* An ellipse: the eccentric anomaly E from r = a (1 - e cos E), the mean anomaly E - e sin E
         * is the time since pericentre times n; apocentre lies at E = pi. */
        const double a = -mu / (2.0 * energy), n = sqrt(mu / (a * a * a));
        const double cosE = e > 0 ? fmin(1.0, fmax(-1.0, (1.0 - d / a) / e)) : 1.0;
        const double E = acos(cosE), M = E - e * sin(E);
        if (rv < 0) out->time_to_pericentre = M / n;
        else out->time_to_apocentre = (M_PI - M) / n;
    } else if (rv < 0) {
        /* A hyperbola (a parabola as its limit): r = a (e cosh F - 1), M = e sinh F - F. */
        const double a = mu / (2.0 * fmax(energy, 1e-12 * mu / d)), n = sqrt(mu / (a * a * a));
        const double F = acosh(fmax(1.0, (1.0 + d / a) / e));
        out->time_to_pericentre = (e * sinh(F) - F) / n;
    }
    return 0;
}

void orbit_watch_reset(OrbitWatch *w) { memset(w, 0, sizeof *w); }

void orbit_watch_take(OrbitWatch *w, const Bodies *b, double t, double merge_radius, double merge_time)
{
    if (w->measured && t == w->measured_at) return;
    if (w->measured && t < w->measured_at) orbit_watch_reset(w);
    w->measured = true;
    w->measured_at = t;
    OrbitEstimate e;
    if (orbit_estimate(b, &e) != 0) {
        w->est = (OrbitEstimate){.phase = ORBIT_NONE};
        return;
    }
    if (e.separation < merge_radius) {
        if (!w->close) w->close_since = t;
        w->close = true;
    } else {
        w->close = false;
    }
    if (w->close && t - w->close_since >= merge_time) e.phase = ORBIT_MERGED;
    w->est = e;
}
