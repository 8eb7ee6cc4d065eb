/* The f64 direct sum at some of a system's bodies, the yardstick of the force tests
 * (sim_reference_subset), and the bodies' errors against it. Include after <cmocka.h>. */
#ifndef STARBURST_TEST_REFERENCE_H
#define STARBURST_TEST_REFERENCE_H

#include <math.h>
#include <stdlib.h>

#include "sim/bodies.h"
#include "sim/sim.h"

typedef struct Reference {
    int count;    /* bodies checked */
    int *targets; /* their indices */
    double *acc;  /* 3 per checked body */
} Reference;

/* Room for count bodies; the caller fills r->targets, then calls reference_sum. */
static inline void reference_alloc(Reference *r, int count)
{
    r->count = count;
    r->targets = malloc((size_t)count * sizeof *r->targets);
    r->acc = malloc(3 * (size_t)count * sizeof *r->acc);
    assert_non_null(r->targets);
    assert_non_null(r->acc);
}

static inline void reference_sum(Reference *r, const Bodies *b, double eps)
{
    sim_reference_subset(b->pos, b->n, eps, r->targets, r->count, r->acc);
}

static inline void reference_free(Reference *r)
{
    free(r->targets);
    free(r->acc);
}

static inline int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The relative error |a - ref| / |ref| of each checked body, acc holding `stride` floats a body
 * (every body), sorted ascending in a new array of r->count; *diff2 and *ref2, where given, get
 * the sums of |a - ref|^2 and |ref|^2 over them. A component that is not finite fails the test,
 * naming what. */
static inline double *reference_errors(const char *what, const float *acc, int stride, const Reference *r,
                                       double *diff2, double *ref2)
{
    double *rel = malloc((size_t)r->count * sizeof *rel), num = 0, den = 0;
    assert_non_null(rel);
    for (int t = 0; t < r->count; t++) {
        const int i = r->targets[t];
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            const double a = acc[(size_t)stride * i + k], ref = r->acc[3 * t + k];
            if (!isfinite(a)) {
                free(rel);
                fail_msg("%s: body %d component %d is %g (unwritten or not finite)", what, i, k, a);
            }
            d2 += (a - ref) * (a - ref);
            r2 += ref * ref;
        }
        num += d2;
        den += r2;
        rel[t] = r2 > 0 ? sqrt(d2 / r2) : (d2 == 0 ? 0 : INFINITY);
    }
    qsort(rel, (size_t)r->count, sizeof *rel, compare_double);
    if (diff2) *diff2 = num;
    if (ref2) *ref2 = den;
    return rel;
}

#endif
