/* The Barnes-Hut tree force of the CPU backend (internal to the sim module). tree_cpu.c says
 * how it works. */
#ifndef STARBURST_TREE_CPU_H
#define STARBURST_TREE_CPU_H

#include "sim/sim.h"

typedef struct TreeCpu TreeCpu;

/* Bodies per group of the walk at most (a deepest leaf may be larger). The leaf size and the
 * levels are both trees' own: NBODY_TREE_LEAF, NBODY_TREE_LEVELS (kernels/tree_geometry.h). */
#define TREE_CPU_GROUP 64

/* NULL when out of memory. The state keeps its buffers from step to step. */
TreeCpu *tree_cpu_create(void);
void tree_cpu_destroy(TreeCpu *t);

/* What one force call did: interactions evaluated in all (not per body), the tree's cells and
 * deepest level, and wall time of the build (box, keys, sort, cells, multipoles, groups) and of
 * the walk (lists and their sums). */
typedef struct TreeCpuStats {
    long long body_body, body_cell;
    int cells, depth;
    double build_ms, walk_ms;
} TreeCpuStats;

/* Accelerations of n bodies (pos4: x, y, z, mass) into acc3 (3n floats, in the bodies' order),
 * with Plummer softening eps and opening angle theta, on `threads` OpenMP threads. The result
 * does not depend on `threads`. *stats gets what the call did. Returns 0, or -1 when out of
 * memory (acc3 untouched). */
int tree_cpu_forces(TreeCpu *t, const float *pos4, int n, float eps, float theta, int threads, float *acc3,
                    TreeCpuStats *stats);

/* The cells of levels 0 .. max_level of the last successful tree_cpu_forces, as sim_tree_boxes
 * gives them: the first cap into out, the count in all returned, the deepest level in *depth. */
int tree_cpu_boxes(const TreeCpu *t, int max_level, SimTreeBox *out, int cap, int *depth);

#endif
