#include "sim/diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/halo.h"

void diag_measure(const Bodies *b, SimEnergy e, Diagnostics *out)
{
    memset(out, 0, sizeof *out);
    out->kinetic = e.kinetic;
    out->potential = e.potential;
    out->total = e.kinetic + e.potential + e.friction;
    out->virial = e.potential != 0 ? 2 * e.kinetic / fabs(e.potential) : 0;
    for (int i = 0; i < b->n; i++) {
        const double m = b->pos[4 * i + 3];
        const double x[3] = {b->pos[4 * i], b->pos[4 * i + 1], b->pos[4 * i + 2]};
        const double v[3] = {b->vel[4 * i], b->vel[4 * i + 1], b->vel[4 * i + 2]};
        for (int k = 0; k < 3; k++) out->momentum[k] += m * v[k];
        out->angular_momentum[0] += m * (x[1] * v[2] - x[2] * v[1]);
        out->angular_momentum[1] += m * (x[2] * v[0] - x[0] * v[2]);
        out->angular_momentum[2] += m * (x[0] * v[1] - x[1] * v[0]);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double diag_percentile(const double *sorted, int count, double q)
{
    if (count < 1) return 0;
    int k = (int)ceil(q * count) - 1;
    return sorted[k < 0 ? 0 : k >= count ? count - 1 : k];
}

void diag_sample_targets(int n, int count, int *targets)
{
    for (int t = 0; t < count; t++) targets[t] = (int)((long long)t * n / count);
}

int diag_compare(const float *acc3, const double *ref3, int count, ForceCheck *out)
{
    memset(out, 0, sizeof *out);
    if (count < 1) return 0;
    double *rel = malloc((size_t)count * sizeof *rel);
    if (!rel) return -1;
    double num = 0, den = 0;
    for (int t = 0; t < count; t++) {
        const float *a = acc3 + 3 * t;
        const double *r = ref3 + 3 * t;
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            d2 += (a[k] - r[k]) * (a[k] - r[k]);
            r2 += r[k] * r[k];
        }
        num += d2;
        den += r2;
        /* NaN must not pass: it becomes an infinite error. */
        double e = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
        rel[t] = isnan(e) ? INFINITY : e;
    }
    qsort(rel, (size_t)count, sizeof *rel, by_value);
    out->samples = count;
    out->rms = den > 0 ? sqrt(num / den) : sqrt(num);
    if (isnan(out->rms)) out->rms = INFINITY;
    out->median = diag_percentile(rel, count, 0.5);
    out->p99 = diag_percentile(rel, count, 0.99);
    out->p999 = diag_percentile(rel, count, 0.999);
    out->worst = rel[count - 1];
    free(rel);
    return 0;
}

int diag_force_check(Sim *s, const Bodies *b, float softening, int max_samples, ForceCheck *out)
{
    memset(out, 0, sizeof *out);
    const int n = b->n, stars = n - sim_halos(s)->count; /* halos as fields: the centres last */
    const int count = max_samples > 0 && max_samples < stars ? max_samples : stars;
    float *acc = malloc(3 * (size_t)n * sizeof *acc);
    float *sampled = malloc(3 * (size_t)count * sizeof *sampled);
    double *ref = malloc(3 * (size_t)count * sizeof *ref);
    int *targets = malloc((size_t)count * sizeof *targets);
    int rc = -1;
    if (acc && sampled && ref && targets) {
        diag_sample_targets(stars, count, targets);
        sim_accelerations(s, softening, acc);
        sim_reference_subset(b->pos, stars, softening, targets, count, ref);
        for (int t = 0; t < count; t++) memcpy(sampled + 3 * t, acc + 3 * (size_t)targets[t], 3 * sizeof *acc);
        sim_halo_take_out_pull(sim_halos(s), b->pos, stars, softening, targets, count, sampled);
        rc = diag_compare(sampled, ref, count, out);
    }
    free(acc), free(sampled), free(ref), free(targets);
    return rc;
}
