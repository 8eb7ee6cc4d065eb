/* Structure of one galaxy, measured as an observer with the full phase space would: every body of
 * the galaxy is moved into the frame of its centre of mass, at rest, and turned so that the
 * disk's angular momentum points along z. The disk's plane is then the one it has, tilted or not.
 *
 * Toomre's Q = sigma_R kappa / (3.36 G Sigma) takes sigma_R and Sigma from the disk bodies in the
 * annulus, and kappa from the enclosed mass of the whole galaxy counted as spherical:
 * R^4 Omega^2 = G M(<R) R, so kappa^2 = (1/R^3) d(R^4 Omega^2)/dR = G (M + R dM/dR) / R^3, with
 * M at the annulus' middle and dM/dR across it. The cumulative mass is smooth where the measured
 * rotation curve is noisy and carries the asymmetric drift; the price is the disk's flattening,
 * whose in-plane force a sphere of the same mass falls 2-3% short of (galaxy.c), so Q reads
 * about 1-2% low. */
#include "sim/structure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* M_PI is not C11. */
#define STRUCTURE_PI 3.14159265358979323846

/* The galaxy's bodies in its own frame, centred on its stars: the centre of mass of disk and
 * bulge where it has them. A live halo's far bodies (an untruncated profile, or bodies an
 * encounter has flung out) pull the centre of mass of the whole off the disk by more than the
 * disk's thickness; the stars stay centred. */
typedef struct Frame {
    int n;
    double *x, *v, *m; /* 3n, 3n, n: positions and velocities in the disk's frame, masses */
    uint8_t *comp;     /* n: BODY_DISK .. BODY_OTHER */
    double *r_sorted, *m_inside; /* n: spherical radii ascending, mass within each (inclusive) */
    double centre[3], centre_velocity[3], axis[3];
    double bulk_velocity[3]; /* of every body, less centre_velocity */
    double mass;             /* of every body */
    const SimHalo *field;    /* the galaxy's halo as a field, or NULL */
    int field_centre;        /* with a field: the index of its centre body (dark), else -1 */
} Frame;

static void frame_free(Frame *f)
{
    free(f->x);
    free(f->v);
    free(f->m);
    free(f->comp);
    free(f->r_sorted);
    free(f->m_inside);
    memset(f, 0, sizeof *f);
}

static int selected(const Bodies *b, int galaxy, int i)
{
    return galaxy < 0 || BODY_TAG_GALAXY(b->tag[i]) == galaxy;
}

static void cross(const double a[3], const double b[3], double dest[3])
{
    dest[0] = a[1] * b[2] - a[2] * b[1];
    dest[1] = a[2] * b[0] - a[0] * b[2];
    dest[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm(const double a[3])
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Spin of the bodies of component comp (all components for comp < 0) about the centre. */
static void spin(const Bodies *b, int galaxy, int comp, const double c[3], const double cv[3], double dest[3])
{
    dest[0] = dest[1] = dest[2] = 0;
    for (int i = 0; i < b->n; i++) {
        if (!selected(b, galaxy, i) || (comp >= 0 && BODY_TAG_COMPONENT(b->tag[i]) != comp)) continue;
        const double m = b->pos[4 * i + 3], l[3] = {b->pos[4 * i] - c[0], b->pos[4 * i + 1] - c[1],
                                                     b->pos[4 * i + 2] - c[2]};
        const double u[3] = {b->vel[4 * i] - cv[0], b->vel[4 * i + 1] - cv[1], b->vel[4 * i + 2] - cv[2]};
        double j[3];
        cross(l, u, j);
        for (int k = 0; k < 3; k++) dest[k] += m * j[k];
    }
}

static int frame_build(const Bodies *b, int galaxy, const SimHalo *field, Frame *f)
{
    memset(f, 0, sizeof *f);
    f->field_centre = -1;
    /* [0]: every body of the galaxy; [1]: its stars (disk and bulge). */
    double msum[2] = {0, 0}, c[2][3] = {{0}}, cv[2][3] = {{0}};
    int n = 0;
    for (int i = 0; i < b->n; i++) {
        if (!selected(b, galaxy, i)) continue;
        const double m = b->pos[4 * i + 3];
        const int comp = BODY_TAG_COMPONENT(b->tag[i]);
        for (int s = 0; s < (comp == BODY_DISK || comp == BODY_BULGE ? 2 : 1); s++) {
            msum[s] += m;
            for (int k = 0; k < 3; k++) {
                c[s][k] += m * b->pos[4 * i + k];
                cv[s][k] += m * b->vel[4 * i + k];
            }
        }
        n++;
    }
    if (n == 0 || !(msum[0] > 0)) return -1;
    const int s = msum[1] > 0 ? 1 : 0;
    for (int k = 0; k < 3; k++) {
        f->centre[k] = c[s][k] / msum[s];
        f->centre_velocity[k] = cv[s][k] / msum[s];
        f->bulk_velocity[k] = cv[0][k] / msum[0] - f->centre_velocity[k];
    }
    f->mass = msum[0];

    /* z along the disk's spin; the whole galaxy's where the disk has none; else the box's z. */
    double l[3];
    spin(b, galaxy, BODY_DISK, f->centre, f->centre_velocity, l);
    if (!(norm(l) > 0)) spin(b, galaxy, -1, f->centre, f->centre_velocity, l);
    if (!(norm(l) > 0)) {
        l[0] = l[1] = 0;
        l[2] = 1;
    }
    double ln = norm(l), e1[3], e2[3], *e3 = f->axis;
    for (int k = 0; k < 3; k++) e3[k] = l[k] / ln;
    const double ref[3] = {fabs(e3[0]) < 0.9 ? 1 : 0, fabs(e3[0]) < 0.9 ? 0 : 1, 0};
    cross(ref, e3, e1);
    double n1 = norm(e1);
    for (int k = 0; k < 3; k++) e1[k] /= n1;
    cross(e3, e1, e2);

    f->n = n;
    f->x = malloc(3 * sizeof(double) * (size_t)n);
    f->v = malloc(3 * sizeof(double) * (size_t)n);
    f->m = malloc(sizeof(double) * (size_t)n);
    f->comp = malloc((size_t)n);
    f->r_sorted = malloc(sizeof(double) * (size_t)n);
    f->m_inside = malloc(sizeof(double) * (size_t)n);
    BodyRadius *rm = malloc(sizeof *rm * (size_t)n);
    if (!f->x || !f->v || !f->m || !f->comp || !f->r_sorted || !f->m_inside || !rm) {
        free(rm);
        frame_free(f);
        return -1;
    }
    for (int i = 0, j = 0; i < b->n; i++) {
        if (!selected(b, galaxy, i)) continue;
        const double d[3] = {b->pos[4 * i] - f->centre[0], b->pos[4 * i + 1] - f->centre[1],
                             b->pos[4 * i + 2] - f->centre[2]};
        const double u[3] = {b->vel[4 * i] - f->centre_velocity[0], b->vel[4 * i + 1] - f->centre_velocity[1],
                             b->vel[4 * i + 2] - f->centre_velocity[2]};
        double *x = f->x + 3 * j, *v = f->v + 3 * j;
        x[0] = dot(d, e1), x[1] = dot(d, e2), x[2] = dot(d, e3);
        v[0] = dot(u, e1), v[1] = dot(u, e2), v[2] = dot(u, e3);
        f->m[j] = b->pos[4 * i + 3];
        f->comp[j] = (uint8_t)BODY_TAG_COMPONENT(b->tag[i]);
        rm[j] = (BodyRadius){norm(d), f->m[j]};
        /* A field's centre body stands for the profile: its mass is the profile's, not a point's. */
        if (field && f->comp[j] == BODY_HALO && f->field_centre < 0) {
            f->field = field;
            f->field_centre = j;
            rm[j].m = 0;
        }
        j++;
    }
    bodies_sort_radii(rm, n);
    double acc = 0;
    for (int j = 0; j < n; j++) {
        acc += rm[j].m;
        f->r_sorted[j] = rm[j].r;
        f->m_inside[j] = acc;
    }
    free(rm);
    return 0;
}

/* Mass strictly inside spherical radius r. */
static double mass_inside(const Frame *f, double r)
{
    int lo = 0, hi = f->n; /* first index with r_sorted >= r */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->r_sorted[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    const double bodies = lo > 0 ? f->m_inside[lo - 1] : 0;
    return f->field ? bodies + nbody_halo_mass_inside(f->field, (float)r) : bodies;
}

static void ring_measure(const Frame *f, double r_in, double r_out, StructureRing *ring)
{
    memset(ring, 0, sizeof *ring);
    ring->r_in = r_in;
    ring->r_out = r_out;
    double m = 0, vr = 0, vr2 = 0, vphi = 0, vz = 0, vz2 = 0, z2 = 0;
    double re[STRUCTURE_MAX_M + 1] = {0}, im[STRUCTURE_MAX_M + 1] = {0};
    for (int j = 0; j < f->n; j++) {
        if (f->comp[j] != BODY_DISK) continue;
        const double *x = f->x + 3 * j, *v = f->v + 3 * j, mj = f->m[j];
        const double R = hypot(x[0], x[1]);
        if (!(R >= r_in && R < r_out) || !(R > 0)) continue;
        const double c = x[0] / R, s = x[1] / R, ur = v[0] * c + v[1] * s, uphi = v[1] * c - v[0] * s;
        ring->count++;
        m += mj;
        vr += mj * ur;
        vr2 += mj * ur * ur;
        vphi += mj * uphi;
        vz += mj * v[2];
        vz2 += mj * v[2] * v[2];
        z2 += mj * x[2] * x[2];
        /* e^(i m phi) by repeated multiplication with e^(i phi) = c + i s. */
        double cr = 1, ci = 0;
        for (int k = 0; k <= STRUCTURE_MAX_M; k++) {
            re[k] += mj * cr;
            im[k] += mj * ci;
            const double t = cr * c - ci * s;
            ci = cr * s + ci * c;
            cr = t;
        }
    }
    if (!(m > 0)) return;
    ring->mass = m;
    ring->surface_density = m / (STRUCTURE_PI * (r_out * r_out - r_in * r_in));
    ring->mean_vr = vr / m;
    ring->sigma_r = sqrt(fmax(vr2 / m - ring->mean_vr * ring->mean_vr, 0));
    ring->mean_vphi = vphi / m;
    ring->sigma_z = sqrt(fmax(vz2 / m - (vz / m) * (vz / m), 0));
    ring->rms_z = sqrt(z2 / m);
    for (int k = 0; k <= STRUCTURE_MAX_M; k++) ring->fourier[k] = hypot(re[k], im[k]) / m;

    const double rm = 0.5 * (r_in + r_out);
    const double dm = (mass_inside(f, r_out) - mass_inside(f, r_in)) / (r_out - r_in);
    const double k2 = (mass_inside(f, rm) + rm * dm) / (rm * rm * rm);
    ring->kappa = k2 > 0 ? sqrt(k2) : 0;
    ring->toomre_q = ring->kappa > 0 ? ring->sigma_r * ring->kappa / (3.36 * ring->surface_density) : 0;
}

static StructureDesc desc_or_default(const StructureDesc *desc)
{
    StructureDesc d = desc ? *desc : (StructureDesc){.galaxy = -1};
    if (!(d.ring[1] > d.ring[0]) || d.ring[0] < 0) d.ring[0] = 2, d.ring[1] = 3;
    if (!(d.beyond > 0)) d.beyond = 18;
    if (d.virial_max_n == 0) d.virial_max_n = STRUCTURE_VIRIAL_MAX_N;
    return d;
}

int structure_rings(const Bodies *b, const StructureDesc *desc, const double *edges, int count, StructureRing *rings)
{
    const StructureDesc d = desc_or_default(desc);
    Frame f;
    if (frame_build(b, d.galaxy, d.field, &f) != 0) {
        memset(rings, 0, sizeof *rings * (size_t)(count > 0 ? count : 0));
        return -1;
    }
    for (int i = 0; i < count; i++) ring_measure(&f, edges[i], edges[i + 1], &rings[i]);
    frame_free(&f);
    return 0;
}

/* W of the frame's bodies among themselves, pair by pair in double with Plummer softening. */
static double potential(const Frame *f, double softening)
{
    const double eps2 = softening * softening;
    double w = 0;
    for (int i = 0; i < f->n; i++) {
        const double *xi = f->x + 3 * i;
        double phi = 0;
        for (int j = i + 1; j < f->n; j++) {
            const double *xj = f->x + 3 * j;
            const double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (r2 > 0) phi += f->m[j] / sqrt(r2);
        }
        w -= f->m[i] * phi;
    }
    return w;
}

/* With a field: Clausius' virial of the stars, sum m x.a about the frame's centre, of their
 * softened pairs' pulls and the field's about its centre body. 2K + W = 0 in equilibrium. */
static double field_virial(const Frame *f, double softening)
{
    const double eps2 = softening * softening;
    const double *c = f->x + 3 * f->field_centre;
    double w = 0;
    for (int i = 0; i < f->n; i++) {
        if (i == f->field_centre) continue;
        const double *xi = f->x + 3 * i;
        for (int j = i + 1; j < f->n; j++) {
            if (j == f->field_centre) continue;
            const double *xj = f->x + 3 * j;
            const double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
            const double r2 = dx * dx + dy * dy + dz * dz, s2 = r2 + eps2;
            if (s2 > 0) w -= f->m[i] * f->m[j] * r2 / (s2 * sqrt(s2));
        }
        float a[3] = {0, 0, 0};
        nbody_halo_pull(f->field, (float)(xi[0] - c[0]), (float)(xi[1] - c[1]), (float)(xi[2] - c[2]), (float)eps2,
                        &a[0], &a[1], &a[2]);
        w += f->m[i] * (xi[0] * a[0] + xi[1] * a[1] + xi[2] * a[2]);
    }
    return w;
}

int structure_measure(const Bodies *b, const StructureDesc *desc, StructureMeasure *out)
{
    memset(out, 0, sizeof *out);
    const StructureDesc d = desc_or_default(desc);
    Frame f;
    if (frame_build(b, d.galaxy, d.field, &f) != 0) return -1;
    memcpy(out->centre, f.centre, sizeof out->centre);
    memcpy(out->centre_velocity, f.centre_velocity, sizeof out->centre_velocity);
    memcpy(out->axis, f.axis, sizeof out->axis);

    BodyRadius *rm[3];
    for (int c = 0; c < 3; c++) rm[c] = malloc(sizeof *rm[c] * (size_t)f.n);
    if (!rm[0] || !rm[1] || !rm[2]) {
        for (int c = 0; c < 3; c++) free(rm[c]);
        frame_free(&f);
        memset(out, 0, sizeof *out);
        return -1;
    }
    double beyond[3] = {0, 0, 0}, z2 = 0;
    for (int j = 0; j < f.n; j++) {
        const double *x = f.x + 3 * j, *v = f.v + 3 * j, m = f.m[j];
        if (j == f.field_centre) continue; /* a field: its profile, below; no body of it moves */
        out->kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        const int c = f.comp[j];
        if (c > BODY_HALO) continue;
        const double r = norm(x);
        rm[c][out->count[c]++] = (BodyRadius){c == BODY_DISK ? hypot(x[0], x[1]) : r, m};
        out->mass[c] += m;
        if (r > d.beyond) beyond[c] += m;
        if (c == BODY_DISK) z2 += m * x[2] * x[2];
    }
    for (int c = 0; c < 3; c++) {
        out->half_mass_radius[c] = bodies_radius_holding(rm[c], out->count[c], 0.5);
        out->beyond_fraction[c] = out->mass[c] > 0 ? beyond[c] / out->mass[c] : 0;
        free(rm[c]);
    }
    if (f.field) { /* the profile about its centre; the stars' K in their own frame */
        out->count[BODY_HALO] = 1;
        out->mass[BODY_HALO] = f.m[f.field_centre];
        out->half_mass_radius[BODY_HALO] = sim_halo_half_mass_radius(f.field);
        out->beyond_fraction[BODY_HALO] =
            d.beyond < f.field->cut ? 1 - nbody_halo_mass_inside(f.field, (float)d.beyond) / f.field->mass : 0;
    } else { /* K about the centre of mass of the whole galaxy, by the parallel-axis rule */
        out->kinetic -= 0.5 * f.mass * dot(f.bulk_velocity, f.bulk_velocity);
    }
    out->disk_rms_z = out->mass[BODY_DISK] > 0 ? sqrt(z2 / out->mass[BODY_DISK]) : 0;
    ring_measure(&f, d.ring[0], d.ring[1], &out->ring);
    if (d.virial_max_n > 0 && f.n <= d.virial_max_n) {
        out->potential = f.field ? field_virial(&f, d.softening) : potential(&f, d.softening);
        out->virial = out->potential < 0 ? 2 * out->kinetic / -out->potential : 0;
    }
    frame_free(&f);
    return 0;
}
