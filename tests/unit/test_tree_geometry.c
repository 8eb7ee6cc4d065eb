/* kernels/tree_geometry.h as the CPU tree compiles it (C11): the Morton keys put x highest and
 * round-trip, and a cell's softened monopole + quadrupole term matches the f64 direct sum over the
 * cell's bodies to third order in size / distance, for eps from 0 to larger than the cell, and its
 * softening (trace) term is what keeps it so when eps is large. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tree_geometry.h"

static void test_morton_keys(void **state)
{
    (void)state;
    assert_true(nbody_morton_key(1, 0, 0) == 4);
    assert_true(nbody_morton_key(0, 1, 0) == 2);
    assert_true(nbody_morton_key(0, 0, 1) == 1);
    assert_true(nbody_morton_key(2, 0, 0) == 32);
    const uint32_t top = (1u << NBODY_TREE_LEVELS) - 1;
    assert_true(nbody_morton_key(top, top, top) == (UINT64_C(1) << (3 * NBODY_TREE_LEVELS)) - 1);
    const uint32_t v[] = {0, 1, 5, 0x155555, 0x0aaaaa, 0x123456, top};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        assert_true(nbody_compact3(nbody_spread3(v[i])) == v[i]);
        assert_true(nbody_compact3(nbody_morton_key(v[i], 0, 0) >> 2) == v[i]);
        assert_true(nbody_compact3(nbody_morton_key(0, v[i], 0) >> 1) == v[i]);
        assert_true(nbody_compact3(nbody_morton_key(0, 0, v[i])) == v[i]);
    }
    assert_true(nbody_spread3(0xffffffffu) == nbody_spread3(top)); /* bits above 21 are dropped */
}

#define BODIES 24

/* What a cell term is given: the monopole alone, the quadrupole without its softening (trace)
 * term, or everything. */
typedef enum Terms { MONOPOLE, NO_TRACE, ALL } Terms;

/* Relative error |a - ref| / |ref| of the cell term at x. */
static double term_error(const double (*p)[4], const double x[3], double eps, Terms terms)
{
    double M = 0, com[3] = {0, 0, 0}, s[3][3] = {{0}};
    for (int j = 0; j < BODIES; j++) {
        M += p[j][3];
        for (int k = 0; k < 3; k++) com[k] += p[j][3] * p[j][k];
    }
    for (int k = 0; k < 3; k++) com[k] /= M;
    for (int j = 0; j < BODIES; j++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) s[a][b] += p[j][3] * (p[j][a] - com[a]) * (p[j][b] - com[b]);
    const double T = s[0][0] + s[1][1] + s[2][2];
    const double q = terms == MONOPOLE ? 0 : 1, tr = terms == ALL ? 1 : 0;

    double ref[3] = {0, 0, 0};
    for (int j = 0; j < BODIES; j++) {
        const double d[3] = {p[j][0] - x[0], p[j][1] - x[1], p[j][2] - x[2]};
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
        const double w = p[j][3] / (r2 * sqrt(r2));
        for (int k = 0; k < 3; k++) ref[k] += w * d[k];
    }
    const float dx = (float)(com[0] - x[0]), dy = (float)(com[1] - x[1]), dz = (float)(com[2] - x[2]);
    const float eps2 = (float)(eps * eps);
    const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
    const NbodyAccel a = nbody_cell_term(
        (NbodyAccel){0, 0, 0}, dx, dy, dz, inv, (float)M, (float)(q * (3 * s[0][0] - T)),
        (float)(q * (3 * s[1][1] - T)), (float)(q * (3 * s[2][2] - T)), (float)(q * 3 * s[0][1]),
        (float)(q * 3 * s[0][2]), (float)(q * 3 * s[1][2]), (float)(tr * T * eps * eps));
    const double e[3] = {a.x - ref[0], a.y - ref[1], a.z - ref[2]};
    return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) /
           sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
}

static void test_cell_term(void **state)
{
    (void)state;
    /* A lopsided cell of side 0.2 (a fixed LCG), so its quadrupole is far from zero. */
    double p[BODIES][4];
    uint32_t r = 12345;
    for (int j = 0; j < BODIES; j++) {
        for (int k = 0; k < 4; k++) {
            r = r * 1664525u + 1013904223u;
            const double u = (r >> 8) / 16777216.0;
            p[j][k] = k < 3 ? 0.2 * u * (k == 0 ? u : 1) : 0.5 + u;
        }
    }
    static const double where[][3] = {{1.5, 0.3, -0.2}, {-0.4, 1.2, 0.9}, {0.1, 0.1, -1.6}};
    static const double epss[] = {0, 0.05, 0.3, 1.0};
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++)
        for (size_t e = 0; e < sizeof epss / sizeof epss[0]; e++) {
            const double quad = term_error(p, where[w], epss[e], ALL);
            const double mono = term_error(p, where[w], epss[e], MONOPOLE);
            print_message("at (%.1f, %.1f, %.1f), eps %.2f: monopole %.2e, with quadrupole %.2e\n", where[w][0],
                          where[w][1], where[w][2], epss[e], mono, quad);
            /* Third order in 0.2 / 1.5 leaves a few 1e-4 at most; the monopole alone is second order. */
            assert_true(quad < 5e-4);
            assert_true(quad < 0.25 * mono);
            /* With softening as large as the distance, the trace term is what keeps it third order. */
            if (epss[e] >= 1.0) assert_true(quad < 0.25 * term_error(p, where[w], epss[e], NO_TRACE));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_morton_keys),
        cmocka_unit_test(test_cell_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
