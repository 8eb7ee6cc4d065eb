/* The fast multipole method of the CPU backend (internal to the sim module). fmm_cpu.c says how
 * it works. */
#ifndef STARBURST_FMM_CPU_H
#define STARBURST_FMM_CPU_H

#include "sim/tree_cpu.h"

typedef struct FmmCpu FmmCpu;

/* Bodies per group at most: the bodies that share one local expansion. Larger than the tree's
 * groups: with the near sums cheap (tree_sums.c) fewer expansions pay for a wider near field
 * (docs/FMM.md: 16K bodies, one thread, 40 ms against 57 with groups of 64 and 38 with 512). */
#define FMM_CPU_GROUP 256

/* NULL when out of memory. The state keeps its buffers (and its tree) from step to step. */
FmmCpu *fmm_cpu_create(void);
void fmm_cpu_destroy(FmmCpu *f);

/* Accelerations of n bodies (pos4: x, y, z, mass) into acc3 (3n floats, in the bodies' order),
 * with Plummer softening eps, the tree's opening angle theta for cells that act body by body and
 * theta_fmm for those that act through a group's expansion (fmm_far), on `threads` OpenMP
 * threads. alpha > 0: the cells that act body by body are taken by the tree's error-based test
 * too (tree_geometry.h, theta then its widest angle), from each group's previous accelerations
 * in acc3, read before the group writes them. The result does not depend on `threads`. *stats
 * gets what the call did. Returns 0, or -1 when out of memory (acc3 untouched). */
int fmm_cpu_forces(FmmCpu *f, const float *pos4, int n, float eps, float theta, float theta_fmm, float alpha,
                   int threads, float *acc3, TreeCpuStats *stats);

/* The tree of the last successful fmm_cpu_forces, for its boxes (tree_cpu_boxes). */
const TreeCpu *fmm_cpu_tree(const FmmCpu *f);

#endif
