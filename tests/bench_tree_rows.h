/* A row of the tree bench's CSV (src/bench/bench_tree.c), as the tests read it back. Include after
 * <cmocka.h>. */
#ifndef STARBURST_BENCH_TREE_ROWS_H
#define STARBURST_BENCH_TREE_ROWS_H

#include <stdio.h>

typedef struct TreeRow {
    int n, samples;
    double build, walk, step, bb, bc, direct, speedup, med, p99, worst;
} TreeRow;

/* The next row of f; fails the test where there is none or it does not hold twelve fields. */
static inline TreeRow next_tree_row(FILE *f)
{
    char line[512];
    TreeRow r;
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d", &r.n, &r.build, &r.walk, &r.step,
                            &r.bb, &r.bc, &r.direct, &r.speedup, &r.med, &r.p99, &r.worst, &r.samples),
                     12);
    return r;
}

#endif
