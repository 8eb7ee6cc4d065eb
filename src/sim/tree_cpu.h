/* The Barnes-Hut tree force of the CPU backend, and the tree, groups and lists that the fast
 * multipole method (fmm_cpu.c) walks too (internal to the sim module). tree_cpu.c says how it
 * works. */
#ifndef STARBURST_TREE_CPU_H
#define STARBURST_TREE_CPU_H

#include <stdbool.h>

#include "sim/sim.h"

typedef struct TreeCpu TreeCpu;

/* Bodies per group of the walk at most (a deepest leaf may be larger). The leaf size and the
 * levels are both trees' own: NBODY_TREE_LEAF, NBODY_TREE_LEVELS (kernels/tree_geometry.h). */
#define TREE_CPU_GROUP 64
/* A walk's stack: depth-first pushes of up to 8 children at each of 22 levels. */
#define TREE_CPU_STACK 256

/* NULL when out of memory. The state keeps its buffers from step to step. */
TreeCpu *tree_cpu_create(void);
void tree_cpu_destroy(TreeCpu *t);

/* What one force call did: interactions evaluated in all (not per body): body-body, body-cell
 * and, for the fast multipole method, cell-group expansions (M2L); the tree's cells and deepest
 * level; wall times. The tree's build_ms is the whole build (box, keys, sort, cells, groups,
 * multipoles) and walk_ms its walk with the sums; the multipole method splits the multipoles off
 * into upward_ms and its expansions' evaluation at the bodies into downward_ms. */
typedef struct TreeCpuStats {
    long long body_body, body_cell, body_group;
    int cells, depth;
    double build_ms, upward_ms, walk_ms, downward_ms;
} TreeCpuStats;

/* Accelerations of n bodies (pos4: x, y, z, mass) into acc3 (3n floats, in the bodies' order),
 * with Plummer softening eps and opening angle theta, on `threads` OpenMP threads. The result
 * does not depend on `threads`. *stats gets what the call did. Returns 0, or -1 when out of
 * memory (acc3 untouched). */
int tree_cpu_forces(TreeCpu *t, const float *pos4, int n, float eps, float theta, int threads, float *acc3,
                    TreeCpuStats *stats);

/* A cell of the tree: the range of sorted bodies it holds, its children (nchild 0: a leaf),
 * its level and the centre of its cube. The root is node 0; nodes are in breadth-first order. */
typedef struct TreeCpuNode {
    int begin, end;
    int child, nchild;
    int level;
    double centre[3];
} TreeCpuNode;

/* The last build as a walk reads it: the sorted bodies (and idx, each one's index in the input),
 * the nodes with their multipoles (centre of mass, mass, Q as xx yy zz xy xz yz, T = tr S, the
 * squared opening distance l / theta + delta, the radius about the centre of mass that holds the
 * bodies) and the groups (node indices, depth first). */
typedef struct TreeCpuView {
    int nodes, groups;
    const TreeCpuNode *node;
    const float *x, *y, *z, *m;
    const int *idx;
    const float *cx, *cy, *cz, *mass, *q, *trace, *open2, *rho;
    const int *group;
} TreeCpuView;

/* One thread's lists for the group it walks, dense so that the sums vectorise: nb bodies and nc
 * cells (multipoles as the walk reads them, teps2 = T eps^2). Capacity: every body and cell. */
typedef struct TreeCpuLists {
    float *bx, *by, *bz, *bm;
    float *cx, *cy, *cz, *cm, *qxx, *qyy, *qzz, *qxy, *qxz, *qyz, *teps2;
    int body_cap, cell_cap;
    int nb, nc;
} TreeCpuLists;

/* Builds the tree of n >= 1 bodies (pos4: x, y, z, mass) with opening angle theta, groups of at
 * most group_max bodies (a deepest leaf may be larger) and lists for `threads` threads; stats
 * gets cells, depth, build_ms (without the multipoles) and upward_ms (the multipoles). 0, or -1
 * when out of memory. */
int tree_cpu_build(TreeCpu *t, const float *pos4, int n, float theta, int group_max, int threads,
                   TreeCpuStats *stats);
TreeCpuView tree_cpu_view(const TreeCpu *t);
TreeCpuLists *tree_cpu_lists(TreeCpu *t, int thread);
/* The bounding box of a group's bodies. */
void tree_cpu_group_box(const TreeCpuView *v, const TreeCpuNode *g, float lo[3], float hi[3]);
/* Whether node's multipoles serve every body of group g (box lo..hi): the node does not hold the
 * group and the box's nearest point lies beyond the opening distance. */
bool tree_cpu_accepts(const TreeCpuView *v, int node, const TreeCpuNode *g, const float lo[3], const float hi[3]);
/* Appends a node's multipoles, or a leaf's bodies, to the lists. */
void tree_cpu_list_cell(TreeCpuLists *l, const TreeCpuView *v, int node, float eps2);
void tree_cpu_list_leaf(TreeCpuLists *l, const TreeCpuView *v, int node);
/* The accelerations of gn <= TREE_CPU_GROUP bodies at (gx, gy, gz) from the lists' bodies then
 * cells, written to ax, ay, az. */
void tree_cpu_sum_lists(const TreeCpuLists *l, const float *gx, const float *gy, const float *gz, int gn, float eps2,
                        float *ax, float *ay, float *az);

/* The cells of levels 0 .. max_level of the last successful tree_cpu_forces, as sim_tree_boxes
 * gives them: the first cap into out, the count in all returned, the deepest level in *depth. */
int tree_cpu_boxes(const TreeCpu *t, int max_level, SimTreeBox *out, int cap, int *depth);

#endif
