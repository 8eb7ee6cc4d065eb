#include "sim/bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bodies_alloc(Bodies *b, int n)
{
    memset(b, 0, sizeof *b);
    if (n < 0) return -1;
    size_t m = n > 0 ? (size_t)n : 1;
    b->pos = calloc(4 * m, sizeof(float));
    b->vel = calloc(4 * m, sizeof(float));
    b->tag = calloc(m, 1);
    if (!b->pos || !b->vel || !b->tag) {
        bodies_free(b);
        return -1;
    }
    b->n = n;
    return 0;
}

int bodies_alloc_acc(Bodies *b)
{
    float *acc = calloc(3 * (size_t)(b->n > 0 ? b->n : 1), sizeof(float));
    if (!acc) return -1;
    free(b->acc);
    b->acc = acc;
    b->acc_info = (BodiesAccInfo){0};
    return 0;
}

void bodies_free(Bodies *b)
{
    free(b->acc);
    free(b->pos);
    free(b->vel);
    free(b->tag);
    memset(b, 0, sizeof *b);
}

int bodies_copy(Bodies *dst, const Bodies *src)
{
    if (bodies_alloc(dst, src->n) != 0) return -1;
    memcpy(dst->pos, src->pos, 4 * (size_t)src->n * sizeof(float));
    memcpy(dst->vel, src->vel, 4 * (size_t)src->n * sizeof(float));
    memcpy(dst->tag, src->tag, (size_t)src->n);
    if (!src->acc) return 0;
    if (bodies_alloc_acc(dst) != 0) {
        bodies_free(dst);
        return -1;
    }
    memcpy(dst->acc, src->acc, 3 * (size_t)src->n * sizeof(float));
    dst->acc_info = src->acc_info;
    return 0;
}

double bodies_total_mass(const Bodies *b)
{
    double m = 0;
    for (int i = 0; i < b->n; i++) m += b->pos[4 * i + 3];
    return m;
}

void bodies_centre_of_mass(const Bodies *b, double dest[3], double vdest[3])
{
    double m = 0, x[3] = {0}, v[3] = {0};
    for (int i = 0; i < b->n; i++) {
        double mi = b->pos[4 * i + 3];
        m += mi;
        for (int k = 0; k < 3; k++) {
            x[k] += mi * b->pos[4 * i + k];
            v[k] += mi * b->vel[4 * i + k];
        }
    }
    for (int k = 0; k < 3; k++) {
        dest[k] = m > 0 ? x[k] / m : 0;
        if (vdest) vdest[k] = m > 0 ? v[k] / m : 0;
    }
}

double bodies_group_centre(const Bodies *b, int galaxy, double dest[3])
{
    double m = 0, c[3] = {0};
    for (int i = 0; i < b->n; i++) {
        if (galaxy >= 0 && BODY_TAG_GALAXY(b->tag[i]) != galaxy) continue;
        double mi = b->pos[4 * i + 3];
        m += mi;
        for (int k = 0; k < 3; k++) c[k] += mi * b->pos[4 * i + k];
    }
    for (int k = 0; k < 3 && m > 0; k++) dest[k] = c[k] / m;
    return m;
}

/* Of an exponential disk's rms radius, the radius its light reaches (bodies_pair_light). */
#define LIGHT_PER_RMS 1.6f

void bodies_light(const Bodies *b, BodiesLight *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; b->tag && i < b->n; i++) {
        const int c = BODY_TAG_COMPONENT(b->tag[i]), g = BODY_TAG_GALAXY(b->tag[i]);
        if (c != BODY_DISK && c != BODY_BULGE) continue;
        const float *p = b->pos + 4 * (size_t)i;
        const double m = p[3], x = p[0], y = p[1], z = p[2];
        out->mass[g] += m;
        out->moment[g][0] += m * x;
        out->moment[g][1] += m * y;
        out->moment[g][2] += m * z;
        out->r2[g] += m * (x * x + y * y + z * z);
    }
}

bool bodies_light_pair(const BodiesLight *l, float centre[2][3], float radius[2])
{
    for (int g = 0; g < 2; g++) {
        const double m = l->mass[g];
        if (!(m > 0)) return false;
        double c[3], c2 = 0;
        for (int k = 0; k < 3; k++) {
            c[k] = l->moment[g][k] / m;
            c2 += c[k] * c[k];
            centre[g][k] = (float)c[k];
        }
        const double spread = l->r2[g] / m - c2; /* the mean |x - c|² */
        radius[g] = LIGHT_PER_RMS * (float)sqrt(spread > 0 ? spread : 0);
        if (!(radius[g] > 0)) return false;
    }
    return true;
}

bool bodies_pair_light(const Bodies *b, float centre[2][3], float radius[2])
{
    if (!b->tag) return false;
    BodiesLight l;
    bodies_light(b, &l);
    return bodies_light_pair(&l, centre, radius);
}

void bodies_recentre(Bodies *b)
{
    double x[3], v[3];
    bodies_centre_of_mass(b, x, v);
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < 3; k++) {
            b->pos[4 * i + k] = (float)(b->pos[4 * i + k] - x[k]);
            b->vel[4 * i + k] = (float)(b->vel[4 * i + k] - v[k]);
        }
}

static int by_radius(const void *a, const void *b)
{
    double ra = ((const BodyRadius *)a)->r, rb = ((const BodyRadius *)b)->r;
    return (ra > rb) - (ra < rb);
}

void bodies_sort_radii(BodyRadius *rm, int n)
{
    if (n > 0) qsort(rm, (size_t)n, sizeof *rm, by_radius);
}

double bodies_radius_holding(BodyRadius *rm, int n, double f)
{
    if (n <= 0) return 0;
    double total = 0, acc = 0;
    bodies_sort_radii(rm, n);
    for (int i = 0; i < n; i++) total += rm[i].m;
    for (int i = 0; i < n; i++) {
        acc += rm[i].m;
        if (acc >= f * total) return rm[i].r;
    }
    return rm[n - 1].r;
}

double bodies_mass_radius(const Bodies *b, double f)
{
    if (b->n == 0) return 0;
    BodyRadius *rm = malloc((size_t)b->n * sizeof *rm);
    if (!rm) return NAN;
    double c[3];
    bodies_centre_of_mass(b, c, NULL);
    for (int i = 0; i < b->n; i++) {
        double dx = b->pos[4 * i] - c[0], dy = b->pos[4 * i + 1] - c[1], dz = b->pos[4 * i + 2] - c[2];
        rm[i] = (BodyRadius){sqrt(dx * dx + dy * dy + dz * dz), b->pos[4 * i + 3]};
    }
    double r = bodies_radius_holding(rm, b->n, f);
    free(rm);
    return r;
}

void bodies_xyz(const float *four, int n, float *xyz)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) xyz[3 * (size_t)i + k] = four[4 * (size_t)i + k];
}
