/* Halos as fields: a galaxy's dark halo as the analytic potential of its tapered Hernquist
 * profile (src/scene/galaxy.c samples the same profile into bodies for a live halo), centred on a
 * halo centre that moves. Both backends and every force method share this header, compiled as C11
 * (src/sim/halo_field.c) and as CUDA (kernels/halo_field.cu), so a star feels a halo with the same
 * formula on either.
 *
 * The profile: rho(r) = M_h a / (2 pi r (r + a)^3) T(r), with T = 1 inside the taper radius t, a
 * quintic smoothstep to 0 at the cut, 0 beyond. Inside t, the enclosed mass and the potential are
 * Hernquist's closed forms (the potential shifted by a constant); across the taper shell they come
 * from a table of NBODY_HALO_NODES nodes holding values and exact slopes (dM/dr = 4 pi r^2 rho),
 * read by cubic Hermite interpolation; beyond the cut the halo is a point mass.
 *
 * The state: halo h's centre is body n_stars + h of the run's arrays (the last `count` bodies,
 * with the halo's mass), drifted and kicked by the same leapfrog as the stars. Its acceleration is
 *   - the reaction of every star's pull, -sum_i m_i g_h(x_i - c_h) / M_h (so the momentum of stars
 *     and centres is conserved by construction),
 *   - the other halo's pull, the mutual force F_12 = (M_1 g_2(c_1 - c_2) - M_2 g_1(c_2 - c_1)) / 2
 *     (equal and opposite, and the gradient of (M_1 Phi_2 + M_2 Phi_1) / 2),
 *   - Chandrasekhar's dynamical friction (Binney & Tremaine 2008, eq. 8.7) on each centre moving
 *     through the other halo's density, with a Maxwellian of the untapered Hernquist profile's
 *     isotropic dispersion (Hernquist 1990, eq. 10) and the Coulomb logarithm ln_lambda; the
 *     friction's reaction goes to the other centre, so it too conserves momentum. The energy it
 *     takes out is tracked so that E + that loss checks the integrator: each centre body carries
 *     its share, summed over the run so far, in the w of its velocity (vx, vy, vz, loss), so that
 *     every copy of the state (keyframes, undo, a run left) carries it with the bodies. */
#ifndef STARBURST_HALO_FIELD_H
#define STARBURST_HALO_FIELD_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define NBODY_HALO_FN static __host__ __device__ __forceinline__
#else
#define NBODY_HALO_FN static inline
#endif

#define NBODY_HALO_MAX 2
#define NBODY_HALO_NODES 64

typedef struct NbodyHalo {
    float mass;      /* inside the cut: the centre body's mass */
    float hern_mass; /* the untapered profile's mass parameter */
    float scale;     /* Hernquist's a */
    float taper;     /* the taper starts here ... */
    float cut;       /* ... and the density is 0 from here on */
    float phi_shift; /* Phi(r) = -hern_mass / (r + a) + phi_shift inside the taper */
    /* The taper shell's nodes, r_k = taper + k (cut - taper) / (NODES - 1): enclosed mass and
     * P(r) = int_r^cut 4 pi rho r' dr' (Phi = -M / r - P there), each with its slope in r. */
    float m[NBODY_HALO_NODES], dm[NBODY_HALO_NODES];
    float p[NBODY_HALO_NODES], dp[NBODY_HALO_NODES];
} NbodyHalo;

typedef struct NbodyHalos {
    int count;       /* 0: none (every halo is bodies, or there is none) */
    float ln_lambda; /* Chandrasekhar's Coulomb logarithm; 0: no friction */
    NbodyHalo halo[NBODY_HALO_MAX];
} NbodyHalos;

/* Hermite interpolation of the shell's table at r (taper <= r < cut): value, or slope times w. */
NBODY_HALO_FN float nbody_halo_shell(const NbodyHalo *h, const float *v, const float *dv, float r)
{
    const float w = (h->cut - h->taper) / (NBODY_HALO_NODES - 1);
    float u = (r - h->taper) / w;
    if (!(u >= 0)) u = 0; /* NaN too: no cast of it to int */
    if (u > NBODY_HALO_NODES) u = NBODY_HALO_NODES;
    int k = (int)u;
    if (k < 0) k = 0;
    if (k > NBODY_HALO_NODES - 2) k = NBODY_HALO_NODES - 2;
    const float s = u - (float)k, s2 = s * s, s3 = s2 * s;
    const float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    return h00 * v[k] + h10 * w * dv[k] + h01 * v[k + 1] + h11 * w * dv[k + 1];
}

/* The mass inside r. */
NBODY_HALO_FN float nbody_halo_mass_inside(const NbodyHalo *h, float r)
{
    if (r >= h->cut) return h->mass;
    if (r > h->taper) return nbody_halo_shell(h, h->m, h->dm, r);
    const float q = r / (r + h->scale);
    return h->hern_mass * q * q;
}

/* The potential at r (G = 1; 0 at infinity); softened, it is read at sqrt(r^2 + eps^2). */
NBODY_HALO_FN float nbody_halo_potential(const NbodyHalo *h, float r)
{
    if (r >= h->cut) return -h->mass / r;
    if (r > h->taper) return -nbody_halo_shell(h, h->m, h->dm, r) / r - nbody_halo_shell(h, h->p, h->dp, r);
    return -h->hern_mass / (r + h->scale) + h->phi_shift;
}

/* The pull per unit mass at offset (dx, dy, dz) from the centre, added to a[3], softened as the
 * run's pairs are: the field is read at s = sqrt(r^2 + eps^2), so that the pull, -M(s) d / s^3,
 * is the slope of the potential Phi(s) and goes smoothly to 0 at the centre (the cusp's pull,
 * M / a^2 whichever way, would flip there). M(s) / s^3 inside the taper is
 * hern_mass / (s (s + a)^2). */
NBODY_HALO_FN void nbody_halo_pull(const NbodyHalo *h, float dx, float dy, float dz, float eps2, float *ax, float *ay,
                                   float *az)
{
    const float s2 = dx * dx + dy * dy + dz * dz + eps2;
    if (!(s2 > 0)) return;
    const float s = sqrtf(s2);
    float k;
    if (s > h->taper) k = nbody_halo_mass_inside(h, s) / (s2 * s);
    else {
        const float sa = s + h->scale;
        k = h->hern_mass / (s * sa * sa);
    }
    *ax -= k * dx;
    *ay -= k * dy;
    *az -= k * dz;
}

/* The density at r. */
NBODY_HALO_FN double nbody_halo_density(const NbodyHalo *h, double r)
{
    if (!(r > 0) || r >= h->cut) return 0.0;
    const double a = h->scale, pi = 3.14159265358979323846;
    double t = 1.0;
    if (r > h->taper) {
        const double x = (r - h->taper) / ((double)h->cut - h->taper);
        t = 1.0 - x * x * x * (10.0 + x * (6.0 * x - 15.0));
    }
    return h->hern_mass * a / (2.0 * pi * r * (r + a) * (r + a) * (r + a)) * t;
}

/* The untapered Hernquist profile's isotropic velocity dispersion at r (Hernquist 1990, eq. 10);
 * the large-r form where the closed form cancels away its digits. */
NBODY_HALO_FN double nbody_halo_dispersion(const NbodyHalo *h, double r)
{
    const double a = h->scale, M = h->hern_mass, x = r / a;
    if (!(x > 0)) return 0.0;
    double s2;
    if (x > 300.0) s2 = M / (5.0 * r) * (1.0 - 0.5 / x); /* the series' first terms in 1/x */
    else
        s2 = M / (12.0 * a) *
             (12.0 * x * (1 + x) * (1 + x) * (1 + x) * log((1 + x) / x) -
              x / (1 + x) * (25.0 + 52.0 * x + 42.0 * x * x + 12.0 * x * x * x));
    return s2 > 0 ? sqrt(s2) : 0.0;
}

/* Chandrasekhar's drag on a body of mass m moving at v (3, relative to the host) through the host
 * halo at distance r from its centre: the acceleration, into a[3]. B&T eq. 8.7 with
 * X = |v| / (sqrt(2) sigma); for small X the bracket's series (4 / (3 sqrt(pi))) X^3 keeps it
 * finite as |v| -> 0. */
NBODY_HALO_FN void nbody_halo_friction(const NbodyHalo *host, float ln_lambda, double m, double r, const double *v,
                                       double *a)
{
    a[0] = a[1] = a[2] = 0.0;
    const double rho = nbody_halo_density(host, r), sigma = nbody_halo_dispersion(host, r);
    if (!(rho > 0) || !(sigma > 0) || !(ln_lambda > 0)) return;
    const double pi = 3.14159265358979323846, sqrt_pi = 1.77245385090551602730;
    const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), X = speed / (1.41421356237309504880 * sigma);
    /* a = -4 pi ln_lambda m rho [erf X - 2X/sqrt(pi) e^-X^2] v / |v|^3 = -k v */
    double k;
    if (X < 1e-3) {
        const double s = 1.41421356237309504880 * sigma;
        k = 4.0 * pi * ln_lambda * m * rho * (4.0 / (3.0 * sqrt_pi)) / (s * s * s);
    } else
        k = 4.0 * pi * ln_lambda * m * rho * (erf(X) - 2.0 * X / sqrt_pi * exp(-X * X)) / (speed * speed * speed);
    for (int d = 0; d < 3; d++) a[d] = -k * v[d];
}


/* The centres' accelerations, into acc (3 per halo, in the order of the centre bodies): the
 * reaction of the stars, react[3h..3h+2] = sum_i m_i g_h(x_i - c_h) summed over the stars, the
 * other halo's mutual pull and the friction both ways. pos and vel hold the centres (4 floats
 * each: x, y, z, mass; vx, vy, vz, loss) at the force's time, the velocities half a step on from
 * the last synchronised ones. The drag on a centre takes the mass of its halo inside the
 * separation: what lies farther out of the satellite is no compact body to the host. fric (may
 * be NULL) gets the friction's force on each centre (3 per halo), which the caller's kicks turn
 * into the energy it takes out (nbody_halo_kick_loss). */
NBODY_HALO_FN void nbody_halo_centres(const NbodyHalos *hs, const double *react, const float *pos, const float *vel,
                                      float eps2, double *acc, double *fric)
{
    if (fric)
        for (int k = 0; k < 3 * NBODY_HALO_MAX; k++) fric[k] = 0.0;
    for (int h = 0; h < hs->count; h++) {
        const double M = hs->halo[h].mass;
        for (int d = 0; d < 3; d++) acc[3 * h + d] = M > 0 ? -react[3 * h + d] / M : 0.0;
    }
    if (hs->count < 2) return;
    const NbodyHalo *h1 = &hs->halo[0], *h2 = &hs->halo[1];
    const double M1 = h1->mass, M2 = h2->mass;
    const float dx = pos[0] - pos[4], dy = pos[1] - pos[5], dz = pos[2] - pos[6]; /* c1 - c2 */
    float g2x = 0, g2y = 0, g2z = 0, g1x = 0, g1y = 0, g1z = 0;
    nbody_halo_pull(h2, dx, dy, dz, eps2, &g2x, &g2y, &g2z);    /* halo 2's pull at c1 */
    nbody_halo_pull(h1, -dx, -dy, -dz, eps2, &g1x, &g1y, &g1z); /* halo 1's pull at c2 */
    double F[3] = {0.5 * (M1 * g2x - M2 * g1x), 0.5 * (M1 * g2y - M2 * g1y), 0.5 * (M1 * g2z - M2 * g1z)};
    /* Friction: each centre in the other's density, at their relative velocity. */
    const double r = sqrt((double)dx * dx + (double)dy * dy + (double)dz * dz);
    const double v12[3] = {(double)vel[0] - vel[4], (double)vel[1] - vel[5], (double)vel[2] - vel[6]};
    const double v21[3] = {-v12[0], -v12[1], -v12[2]};
    const double m1 = nbody_halo_mass_inside(h1, (float)r), m2 = nbody_halo_mass_inside(h2, (float)r);
    double a1[3], a2[3], f[3];
    nbody_halo_friction(h2, hs->ln_lambda, m1, r, v12, a1); /* on 1 in halo 2 */
    nbody_halo_friction(h1, hs->ln_lambda, m2, r, v21, a2); /* on 2 in halo 1 */
    for (int d = 0; d < 3; d++) {
        f[d] = M1 * a1[d] - M2 * a2[d]; /* on 1: its drag, and the reaction of 2's */
        F[d] += f[d];
    }
    for (int d = 0; d < 3; d++) {
        if (M1 > 0) acc[d] += F[d] / M1;
        if (M2 > 0) acc[3 + d] -= F[d] / M2;
    }
    if (fric)
        for (int d = 0; d < 3; d++) {
            fric[d] = f[d];
            fric[3 + d] = -f[d];
        }
}

/* The energy a half kick of tau with acceleration a (3) takes out through its friction part,
 * force f (3) on a body moving at v (3) before the kick: the friction's share of the kinetic
 * energy's change, -f . (v + a tau / 2) tau, exact for the kick as applied. */
NBODY_HALO_FN double nbody_halo_kick_loss(const double *f, const float *v, const float *a, double tau)
{
    double w = 0;
    for (int d = 0; d < 3; d++) w += f[d] * ((double)v[d] + 0.5 * (double)a[d] * tau);
    return -w * tau;
}

#ifdef __cplusplus
}
#endif

#endif
