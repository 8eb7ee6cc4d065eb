/* The f64 direct sum at some of a system's bodies, the yardstick of the force tests
 * (sim_reference_subset), and the order that sorts their errors. Include after <cmocka.h>. */
#ifndef STARBURST_TEST_REFERENCE_H
#define STARBURST_TEST_REFERENCE_H

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

#endif
