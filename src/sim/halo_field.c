/* Halos as fields on the host (kernels/halo_field.h has the design): the taper shell's tables by
 * Simpson's rule in double, the CPU's field step and the fields' potential energy. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "sim/halo.h"

#define HALO_PI 3.14159265358979323846

/* The density of the profile of hern_mass 1 (scale, taper and cut set in h). */
static double unit_density(const SimHalo *h, double r)
{
    SimHalo u = *h;
    u.hern_mass = 1.0f;
    return nbody_halo_density(&u, r);
}

/* int_r0^r1 f(r) dr by Simpson's rule on 2m intervals, f = 4 pi r^power rho(r) for hern_mass 1. */
static double shell_integral(const SimHalo *h, double r0, double r1, int power)
{
    const int m = 64;
    const double step = (r1 - r0) / (2 * m);
    double sum = 0;
    for (int k = 0; k <= 2 * m; k++) {
        double r = r0 + k * step, f = 4.0 * HALO_PI * pow(r, power) * unit_density(h, r);
        sum += f * (k == 0 || k == 2 * m ? 1 : (k % 2 ? 4 : 2));
    }
    return sum * step / 3.0;
}

int sim_halo_profile(SimHalo *h, double mass, double scale, double taper, double cut)
{
    if (!(mass > 0) || !(scale > 0) || !(taper > 0) || !(cut > taper)) return -1;
    memset(h, 0, sizeof *h);
    h->scale = (float)scale;
    h->taper = (float)taper;
    h->cut = (float)cut;
    const double a = scale, mt1 = (taper / (taper + a)) * (taper / (taper + a));
    const double w = (cut - taper) / (NBODY_HALO_NODES - 1);
    /* Shell masses and P(r) for hern_mass 1, node by node (P from the cut inwards). */
    double m1[NBODY_HALO_NODES], p1[NBODY_HALO_NODES];
    m1[0] = mt1;
    for (int k = 1; k < NBODY_HALO_NODES; k++)
        m1[k] = m1[k - 1] + shell_integral(h, taper + (k - 1) * w, taper + k * w, 2);
    p1[NBODY_HALO_NODES - 1] = 0;
    for (int k = NBODY_HALO_NODES - 2; k >= 0; k--)
        p1[k] = p1[k + 1] + shell_integral(h, taper + k * w, taper + (k + 1) * w, 1);
    const double hern = mass / m1[NBODY_HALO_NODES - 1];
    h->hern_mass = (float)hern;
    h->mass = (float)mass;
    for (int k = 0; k < NBODY_HALO_NODES; k++) {
        double r = taper + k * w, rho = hern * unit_density(h, r);
        h->m[k] = (float)(hern * m1[k]);
        h->dm[k] = (float)(4.0 * HALO_PI * r * r * rho);
        h->p[k] = (float)(hern * p1[k]);
        h->dp[k] = (float)(-4.0 * HALO_PI * r * rho);
    }
    h->m[NBODY_HALO_NODES - 1] = (float)mass;
    /* Inside the taper Phi = -hern / (r + a) + shift, continuous with the shell's at the taper. */
    const double phi_t = -hern * mt1 / taper - hern * p1[0];
    h->phi_shift = (float)(phi_t + hern / (taper + a));
    return 0;
}

/* Every halo's pull on the star at x (centres: the halos' positions, 4 floats each), summed into
 * a in the halos' order; each halo's own into g (3 per halo). */
static inline void pull_on_star(const SimHalos *hs, const float *centre, const float *x, float eps2, float a[3],
                                float g[3 * NBODY_HALO_MAX])
{
    a[0] = a[1] = a[2] = 0;
    for (int h = 0; h < hs->count; h++) {
        float *gh = g + 3 * h;
        gh[0] = gh[1] = gh[2] = 0;
        nbody_halo_pull(&hs->halo[h], x[0] - centre[4 * h], x[1] - centre[4 * h + 1], x[2] - centre[4 * h + 2], eps2,
                        &gh[0], &gh[1], &gh[2]);
        a[0] += gh[0], a[1] += gh[1], a[2] += gh[2];
    }
}

/* Every halo's pull on every star, added to acc3 where it is not NULL; the stars' pull on each
 * centre into react (3 per halo). */
static void pull_stars(const SimHalos *hs, const float *pos4, int n_stars, float eps, float *acc3, int threads,
                       double *react)
{
    const int count = hs->count;
    const float *centre = pos4 + 4 * (size_t)n_stars, eps2 = eps * eps;
    double sum[3 * NBODY_HALO_MAX] = {0};
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum[:3 * NBODY_HALO_MAX])
    for (int i = 0; i < n_stars; i++) {
        const float *x = pos4 + 4 * (size_t)i;
        float a[3], g[3 * NBODY_HALO_MAX];
        pull_on_star(hs, centre, x, eps2, a, g);
        for (int k = 0; k < 3 * count; k++) sum[k] += (double)x[3] * g[k];
        if (acc3)
            for (int d = 0; d < 3; d++) acc3[3 * (size_t)i + d] += a[d];
    }
    for (int k = 0; k < 3 * NBODY_HALO_MAX; k++) react[k] = sum[k];
}

void sim_halo_take_out_pull(const SimHalos *hs, const float *pos4, int n_stars, float eps, const int *targets,
                            int count, float *acc3)
{
    if (!hs || hs->count <= 0) return;
    const float *centre = pos4 + 4 * (size_t)n_stars, eps2 = eps * eps;
    for (int t = 0; t < count; t++) {
        float a[3], g[3 * NBODY_HALO_MAX];
        pull_on_star(hs, centre, pos4 + 4 * (size_t)targets[t], eps2, a, g);
        for (int d = 0; d < 3; d++) acc3[3 * t + d] = (float)((double)acc3[3 * t + d] - a[d]);
    }
}

void sim_halo_forces_cpu(const SimHalos *hs, const float *pos4, const float *vel4, int n_stars, float eps,
                         float *acc3, int threads, double *fric)
{
    if (!hs || hs->count <= 0) return;
    double react[3 * NBODY_HALO_MAX], ac[3 * NBODY_HALO_MAX];
    pull_stars(hs, pos4, n_stars, eps, acc3, threads, react);
    nbody_halo_centres(hs, react, pos4 + 4 * (size_t)n_stars, vel4 + 4 * (size_t)n_stars, eps * eps, ac, fric);
    for (int k = 0; k < 3 * hs->count; k++) acc3[3 * (size_t)n_stars + k] = (float)ac[k];
}

void sim_halo_stored_friction(const SimHalos *hs, const float *pos4, const float *vel4, const float *acc3,
                              int n_stars, float eps, int threads, double *fric)
{
    for (int k = 0; k < 3 * NBODY_HALO_MAX; k++) fric[k] = 0;
    if (!hs || hs->count < 2 || !(hs->ln_lambda > 0)) return;
    SimHalos gravity = *hs;
    gravity.ln_lambda = 0;
    double react[3 * NBODY_HALO_MAX], ac[3 * NBODY_HALO_MAX];
    pull_stars(&gravity, pos4, n_stars, eps, NULL, threads, react);
    nbody_halo_centres(&gravity, react, pos4 + 4 * (size_t)n_stars, vel4 + 4 * (size_t)n_stars, eps * eps, ac, NULL);
    for (int h = 0; h < hs->count; h++)
        for (int d = 0; d < 3; d++)
            fric[3 * h + d] = hs->halo[h].mass * ((double)acc3[3 * ((size_t)n_stars + h) + d] - ac[3 * h + d]);
}

double sim_halo_friction_loss(const SimHalos *hs, const float *vel4, int n_stars)
{
    double loss = 0;
    for (int h = 0; hs && h < hs->count; h++) loss += vel4[4 * ((size_t)n_stars + h) + 3];
    return loss;
}

double sim_halo_potential_energy(const SimHalos *hs, const float *pos4, int n_stars, float eps, int threads)
{
    const double eps2 = (double)eps * eps;
    if (!hs || hs->count <= 0) return 0.0;
    const int count = hs->count;
    const float *centre = pos4 + 4 * (size_t)n_stars;
    double u = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : u)
    for (int i = 0; i < n_stars; i++) {
        const float *x = pos4 + 4 * (size_t)i;
        for (int h = 0; h < count; h++) {
            double dx = (double)x[0] - centre[4 * h], dy = (double)x[1] - centre[4 * h + 1],
                   dz = (double)x[2] - centre[4 * h + 2];
            u += (double)x[3] * nbody_halo_potential(&hs->halo[h], (float)sqrt(dx * dx + dy * dy + dz * dz + eps2));
        }
    }
    if (count == 2) {
        double dx = (double)centre[0] - centre[4], dy = (double)centre[1] - centre[5], dz = (double)centre[2] - centre[6];
        float r = (float)sqrt(dx * dx + dy * dy + dz * dz + eps2);
        u += 0.5 * ((double)hs->halo[0].mass * nbody_halo_potential(&hs->halo[1], r) +
                    (double)hs->halo[1].mass * nbody_halo_potential(&hs->halo[0], r));
    }
    return u;
}

double sim_halo_half_mass_radius(const SimHalo *h)
{
    double lo = 0, hi = h->cut;
    for (int k = 0; k < 60; k++) {
        const double mid = 0.5 * (lo + hi);
        if (nbody_halo_mass_inside(h, (float)mid) < 0.5f * h->mass) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}
