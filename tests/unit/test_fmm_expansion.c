/* sim/fmm_expansion.h as the CPU compiles it (C11): the coefficients' layout; a softened
 * point mass's local expansion against its exact pull, the error falling as (r_g / R)^p; a cell
 * of bodies (monopole + quadrupole + trace) expanded about a group centre against the f64 sum
 * over its bodies, and at the centre itself equal to the tree's cell term; a close pair without
 * softening, finite and as accurate; the far test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/fmm_expansion.h"

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(FMM_NL, 20);
    bool seen[FMM_NL] = {false};
    int expected = 0;
    for (int n = 0; n <= FMM_ORDER; n++)
        for (int a = n; a >= 0; a--)
            for (int b = n - a; b >= 0; b--) {
                const int i = fmm_index(a, b, n - a - b);
                assert_int_equal(i, expected); /* order by order, a then b descending */
                assert_false(seen[i]);
                seen[i] = true;
                expected++;
            }
    assert_int_equal(expected, FMM_NL);
    assert_int_equal(fmm_index(1, 0, 0), 1);
    assert_int_equal(fmm_index(0, 0, 1), 3);
    assert_int_equal(fmm_index(1, 1, 0), 5);
    assert_int_equal(fmm_index(0, 0, 3), 19);
}

static uint64_t rng_state = 12345;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return ((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random unit vector. */
static void direction(double v[3])
{
    double r2;
    do {
        for (int k = 0; k < 3; k++) v[k] = 2 * uniform() - 1;
        r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    } while (r2 > 1 || r2 < 1e-4);
    for (int k = 0; k < 3; k++) v[k] /= sqrt(r2);
}

#define CELL_BODIES 16
#define PROBES 64

/* A cell: bodies at z + offsets of length <= rho, and its multipoles as the tree gives them. */
typedef struct Cell {
    double p[CELL_BODIES][4];
    int count;
    float m, dz[3], q[6], t; /* mass, centre of mass offset from the group centre, Q, T */
} Cell;

/* Bodies of the cell about centre (group centre at the origin); count 1 = a point mass. */
static void make_cell(Cell *c, const double centre[3], double rho, int count)
{
    c->count = count;
    double M = 0, com[3] = {0, 0, 0};
    for (int j = 0; j < count; j++) {
        double v[3];
        direction(v);
        const double r = count == 1 ? 0 : rho * uniform();
        for (int k = 0; k < 3; k++) c->p[j][k] = centre[k] + r * v[k];
        c->p[j][3] = 0.5 + uniform();
        M += c->p[j][3];
        for (int k = 0; k < 3; k++) com[k] += c->p[j][3] * c->p[j][k];
    }
    for (int k = 0; k < 3; k++) com[k] /= M;
    double s[3][3] = {{0}};
    for (int j = 0; j < count; j++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) s[a][b] += c->p[j][3] * (c->p[j][a] - com[a]) * (c->p[j][b] - com[b]);
    const double T = s[0][0] + s[1][1] + s[2][2];
    c->m = (float)M;
    for (int k = 0; k < 3; k++) c->dz[k] = (float)com[k];
    c->q[0] = (float)(3 * s[0][0] - T), c->q[1] = (float)(3 * s[1][1] - T), c->q[2] = (float)(3 * s[2][2] - T);
    c->q[3] = (float)(3 * s[0][1]), c->q[4] = (float)(3 * s[0][2]), c->q[5] = (float)(3 * s[1][2]);
    c->t = (float)T;
}

/* The largest relative error, over PROBES points at distance r_g from the group centre, of the
 * cell's expansion against the f64 sum over its bodies. */
static double expansion_error(const Cell *c, double r_g, double eps)
{
    float L[FMM_NL] = {0};
    fmm_m2l(L, c->dz[0], c->dz[1], c->dz[2], c->m, c->q, c->t, (float)(eps * eps));
    double worst = 0;
    for (int i = 0; i < PROBES; i++) {
        double y[3];
        direction(y);
        for (int k = 0; k < 3; k++) y[k] *= r_g;
        float a[3] = {0, 0, 0};
        fmm_l2p(L, (float)y[0], (float)y[1], (float)y[2], a);
        double ref[3] = {0, 0, 0};
        for (int j = 0; j < c->count; j++) {
            const double d[3] = {c->p[j][0] - y[0], c->p[j][1] - y[1], c->p[j][2] - y[2]};
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
            const double w = c->p[j][3] / (r2 * sqrt(r2));
            for (int k = 0; k < 3; k++) ref[k] += w * d[k];
        }
        const double e = sqrt((a[0] - ref[0]) * (a[0] - ref[0]) + (a[1] - ref[1]) * (a[1] - ref[1]) +
                              (a[2] - ref[2]) * (a[2] - ref[2])) /
                         sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
        if (!(e <= worst)) worst = e; /* a NaN is the worst */
    }
    return worst;
}

/* For a cell at distance 1, errors at r_g / R = 1/2, 1/4, 1/8, 1/16: each step divides the
 * error by 2^p or more (within a margin), and the error stays below 5 (r_g / R)^p once the
 * ratio is 1/4 or less (the force's Taylor terms grow like (n + 1) (r_g / R)^n, so the constant
 * is several). */
static void check_order(const Cell *c, double eps)
{
    double prev = 0;
    for (int s = 1; s <= 4; s++) {
        const double ratio = ldexp(1.0, -s), e = expansion_error(c, ratio, eps);
        print_message("r_g/R %.4f eps %.2f: error %.3e\n", ratio, eps, e);
        if (s > 1) assert_true(e < 5 * pow(ratio, FMM_ORDER));
        if (s > 1) assert_true(e < prev * pow(2.0, -FMM_ORDER) * 1.6);
        prev = e;
    }
}

/* check_order for cells of `count` bodies within rho, in random directions, eps 0 to 0.3. */
static void check_orders(double rho, int count)
{
    const double eps[] = {0, 0.05, 0.3};
    for (int trial = 0; trial < 4; trial++)
        for (size_t e = 0; e < sizeof eps / sizeof eps[0]; e++) {
            double v[3];
            direction(v);
            Cell c;
            make_cell(&c, v, rho, count);
            check_order(&c, eps[e]);
        }
}

static void test_point_mass_order(void **state) { check_orders(0, 1); }

/* A cell of radius 1e-2 at distance 1: its own (rho / R)^3 error is far below the expansion's,
 * so the expansion's order shows. */
static void test_quadrupole_cell_order(void **state) { check_orders(1e-2, CELL_BODIES); }

/* At the group centre the expansion is the cell term itself: the same multipoles, the same
 * kernel. A large cell with large softening, so the quadrupole and trace terms are not small. */
static void test_centre_equals_cell_term(void **state)
{
    (void)state;
    const double eps[] = {0, 0.1, 0.5, 2.0};
    for (int trial = 0; trial < 8; trial++)
        for (size_t e = 0; e < sizeof eps / sizeof eps[0]; e++) {
            double v[3];
            direction(v);
            Cell c;
            make_cell(&c, v, 0.4, CELL_BODIES);
            const float eps2 = (float)(eps[e] * eps[e]);
            float L[FMM_NL] = {0}, a[3] = {0, 0, 0};
            fmm_m2l(L, c.dz[0], c.dz[1], c.dz[2], c.m, c.q, c.t, eps2);
            fmm_l2p(L, 0, 0, 0, a);
            const float dx = c.dz[0], dy = c.dz[1], dz = c.dz[2];
            const NbodyAccel ref =
                nbody_cell_term((NbodyAccel){0, 0, 0}, dx, dy, dz, 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2),
                                c.m, c.q[0], c.q[1], c.q[2], c.q[3], c.q[4], c.q[5], c.t * eps2);
            const double norm = sqrt(ref.x * ref.x + ref.y * ref.y + ref.z * ref.z);
            const double diff = sqrt((a[0] - ref.x) * (a[0] - ref.x) + (a[1] - ref.y) * (a[1] - ref.y) +
                                     (a[2] - ref.z) * (a[2] - ref.z));
            assert_true(diff <= 2e-6 * norm);
        }
}

/* Expansions add: two cells expanded into one L give the sum of their separate accelerations. */
static void test_expansions_add(void **state)
{
    (void)state;
    double v[3], w[3];
    direction(v), direction(w);
    for (int k = 0; k < 3; k++) w[k] *= 1.7;
    Cell c1, c2;
    make_cell(&c1, v, 0.1, CELL_BODIES);
    make_cell(&c2, w, 0.2, CELL_BODIES);
    float L1[FMM_NL] = {0}, L2[FMM_NL] = {0}, L[FMM_NL] = {0};
    fmm_m2l(L1, c1.dz[0], c1.dz[1], c1.dz[2], c1.m, c1.q, c1.t, 0.01f);
    fmm_m2l(L2, c2.dz[0], c2.dz[1], c2.dz[2], c2.m, c2.q, c2.t, 0.01f);
    fmm_m2l(L, c1.dz[0], c1.dz[1], c1.dz[2], c1.m, c1.q, c1.t, 0.01f);
    fmm_m2l(L, c2.dz[0], c2.dz[1], c2.dz[2], c2.m, c2.q, c2.t, 0.01f);
    float a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    fmm_l2p(L, 0.1f, -0.05f, 0.02f, a);
    fmm_l2p(L1, 0.1f, -0.05f, 0.02f, b);
    fmm_l2p(L2, 0.1f, -0.05f, 0.02f, b);
    for (int k = 0; k < 3; k++) assert_true(fabsf(a[k] - b[k]) <= 1e-5f * (fabsf(a[k]) + 1e-3f));
}

/* The cell scaled about the group centre by f: the same bodies, f times nearer or farther. */
static Cell scaled(const Cell *c, double f)
{
    Cell s = *c;
    for (int j = 0; j < c->count; j++)
        for (int k = 0; k < 3; k++) s.p[j][k] = c->p[j][k] * f;
    for (int k = 0; k < 3; k++) s.dz[k] = (float)(c->dz[k] * f);
    for (int k = 0; k < 6; k++) s.q[k] = (float)(c->q[k] * f * f);
    s.t = (float)(c->t * f * f);
    return s;
}

/* A close pair without softening: a cell at distance 1, brought to R = 1e-4 and 1e-8 (1 / R^11,
 * the order-5 derivative's power, is far past float's range; the coefficients are within it).
 * Without softening the relative error does not depend on the scale: at r_g / R = 1/4 it is the
 * same at every R, over the same probes, and below 5 (r_g / R)^p; a point mass and a cell of
 * radius R / 100. */
static void test_close_pair(void **state)
{
    (void)state;
    const double distances[] = {1e-4, 1e-8};
    for (int count = 1; count <= CELL_BODIES; count += CELL_BODIES - 1) {
        double v[3];
        direction(v);
        Cell c;
        make_cell(&c, v, count == 1 ? 0 : 1e-2, count);
        const uint64_t probes = rng_state;
        const double e1 = expansion_error(&c, 0.25, 0);
        for (size_t d = 0; d < sizeof distances / sizeof distances[0]; d++) {
            const double R = distances[d];
            const Cell near = scaled(&c, R);
            rng_state = probes;
            const double e = expansion_error(&near, 0.25 * R, 0);
            print_message("R %.0e, %2d bodies, r_g/R 0.25, eps 0: error %.3e (at R 1: %.3e)\n", R, count, e, e1);
            assert_true(e < 5 * pow(0.25, FMM_ORDER)); /* false for NaN too */
            assert_true(fabs(e - e1) <= 1e-3 * e1);
        }
    }
}

static void test_far(void **state)
{
    (void)state;
    assert_true(fmm_far(0.1f, 0.1f, 1.0f, 0.5f));
    assert_false(fmm_far(0.3f, 0.3f, 1.0f, 0.5f));
    assert_false(fmm_far(0.25f, 0.25f, 1.0f, 0.5f)); /* the bound itself is near */
    assert_false(fmm_far(0, 0, 0, 0.5f));             /* coincident centres are never far */
    /* The distance comes squared: R = 2. */
    assert_true(fmm_far(0.4f, 0.4f, 4.0f, 0.5f));
    assert_false(fmm_far(0.6f, 0.6f, 4.0f, 0.5f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_point_mass_order),
        cmocka_unit_test(test_quadrupole_cell_order),
        cmocka_unit_test(test_centre_equals_cell_term),
        cmocka_unit_test(test_expansions_add),
        cmocka_unit_test(test_close_pair),
        cmocka_unit_test(test_far),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
