/* The Barnes-Hut tree force of the CPU backend, and the tree, groups and lists that the fast
 * multipole method (fmm_cpu.c) walks too (internal to the sim module). tree_cpu.c says how it
 * works. */
#ifndef STARBURST_TREE_CPU_H
#define STARBURST_TREE_CPU_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "tree_geometry.h"

typedef struct TreeCpu TreeCpu;

/* Bodies per group of the walk at most (a deepest leaf may be larger). The leaf size and the
 * levels are both trees' own: NBODY_TREE_LEAF, NBODY_TREE_LEVELS (kernels/tree_geometry.h). */
#define TREE_CPU_GROUP 64
/* A walk's stack: depth-first pushes of up to 8 children at each of 22 levels. */
#define TREE_CPU_STACK 256

/* realloc of the buffer *p (a pointer to a pointer) to bytes, leaving *p as it was on failure:
 * 0, or -1. The tree's and the fmm's buffers grow with it. */
static inline int tree_cpu_grow(void *p, size_t bytes)
{
    void *q = realloc(*(void **)p, bytes ? bytes : 1);
    if (!q) return -1;
    *(void **)p = q;
    return 0;
}

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
 * with Plummer softening eps and opening angle theta, on `threads` OpenMP threads. With alpha > 0
 * the opening test is the error-based one (tree_geometry.h), theta its widest angle, and acc3
 * holds on entry the previous accelerations (each group reads its own before it replaces them;
 * zeros: none). The result does not depend on `threads`. *stats gets what the call did. Returns
 * 0, or -1 when out of memory (acc3 untouched). */
int tree_cpu_forces(TreeCpu *t, const float *pos4, int n, float eps, float theta, float alpha, int threads,
                    float *acc3, TreeCpuStats *stats);

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
/* The walks' steps, inline: they run once for each cell a walk meets. */
/* Distance from v to the interval [lo, hi]. */
static inline float tree_cpu_gap(float lo, float hi, float v) { return v < lo ? lo - v : v > hi ? v - hi : 0.0f; }

/* The bounding box of a group's bodies. */
static inline void tree_cpu_group_box(const TreeCpuView *v, const TreeCpuNode *g, float lo[3], float hi[3])
{
    lo[0] = hi[0] = v->x[g->begin], lo[1] = hi[1] = v->y[g->begin], lo[2] = hi[2] = v->z[g->begin];
    for (int j = g->begin + 1; j < g->end; j++) {
        const float p[3] = {v->x[j], v->y[j], v->z[j]};
        for (int k = 0; k < 3; k++) {
            if (p[k] < lo[k]) lo[k] = p[k];
            if (p[k] > hi[k]) hi[k] = p[k];
        }
    }
}

/* A group's opening test: the opening distance's square scaled by scale2, and the error-based
 * test's bound k |a|min (0: the geometric test alone). */
typedef struct TreeCpuOpening {
    float scale2, bound;
} TreeCpuOpening;

/* Group g's test for k = nbody_rel_k(alpha, theta) (0: geometric), from its bodies' previous
 * accelerations in acc3: with no previous |a| (a body's zero or not finite), the geometric test
 * at the fallback angle (scale: nbody_rel_fallback). */
static inline TreeCpuOpening tree_cpu_opening(const TreeCpuView *v, const TreeCpuNode *g, float k, float scale,
                                              const float *acc3)
{
    TreeCpuOpening op = {1.0f, 0.0f};
    if (k == 0.0f) return op;
    float amin = INFINITY;
    for (int j = g->begin; j < g->end; j++) {
        const float *a = acc3 + 3 * (size_t)v->idx[j];
        float m = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (!(m < INFINITY)) m = 0.0f; /* NaN or infinite: no previous |a| */
        amin = m < amin ? m : amin;
    }
    if (amin > 0.0f && amin < INFINITY) op.bound = k * amin;
    else op.scale2 = scale * scale;
    return op;
}

/* Whether node's multipoles serve every body of group g (box lo..hi): the node does not hold the
 * group, the box's nearest point lies beyond the opening distance (scaled by op), and the
 * error-based test, where op has a bound, holds at that point. */
static inline bool tree_cpu_accepts(const TreeCpuView *v, int node, const TreeCpuNode *g, const float lo[3],
                                    const float hi[3], TreeCpuOpening op)
{
    const TreeCpuNode *c = &v->node[node];
    if (c->begin <= g->begin && g->end <= c->end) return false; /* a cell that holds the group */
    /* The box's nearest point to the centre of mass. */
    const float d0 = tree_cpu_gap(lo[0], hi[0], v->cx[node]), d1 = tree_cpu_gap(lo[1], hi[1], v->cy[node]),
                d2 = tree_cpu_gap(lo[2], hi[2], v->cz[node]);
    const float dist2 = d0 * d0 + d1 * d1 + d2 * d2;
    if (!(dist2 > v->open2[node] * op.scale2)) return false;
    return op.bound == 0.0f || nbody_rel_accepts(v->mass[node], sqrtf(v->open2[node]), sqrtf(dist2), op.bound);
}

/* Appends a node's multipoles, or a leaf's bodies, to the lists. */
static inline void tree_cpu_list_cell(TreeCpuLists *l, const TreeCpuView *v, int node, float eps2)
{
    const float *q = v->q + 6 * node;
    const int nc = l->nc++;
    l->cx[nc] = v->cx[node], l->cy[nc] = v->cy[node], l->cz[nc] = v->cz[node], l->cm[nc] = v->mass[node];
    l->qxx[nc] = q[0], l->qyy[nc] = q[1], l->qzz[nc] = q[2];
    l->qxy[nc] = q[3], l->qxz[nc] = q[4], l->qyz[nc] = q[5], l->teps2[nc] = v->trace[node] * eps2;
}

static inline void tree_cpu_list_leaf(TreeCpuLists *l, const TreeCpuView *v, int node)
{
    const TreeCpuNode *c = &v->node[node];
    const int count = c->end - c->begin;
    memcpy(l->bx + l->nb, v->x + c->begin, (size_t)count * sizeof(float));
    memcpy(l->by + l->nb, v->y + c->begin, (size_t)count * sizeof(float));
    memcpy(l->bz + l->nb, v->z + c->begin, (size_t)count * sizeof(float));
    memcpy(l->bm + l->nb, v->m + c->begin, (size_t)count * sizeof(float));
    l->nb += count;
}

/* The accelerations of group g's bodies from the lists, written to acc3 (in the bodies' order). */
void tree_cpu_sum_group(const TreeCpuLists *l, const TreeCpuView *v, const TreeCpuNode *g, float eps2, float *acc3);
/* The accelerations of gn <= TREE_CPU_GROUP bodies at (gx, gy, gz) from the lists' bodies then
 * cells, written to ax, ay, az. */
void tree_cpu_sum_lists(const TreeCpuLists *l, const float *gx, const float *gy, const float *gz, int gn, float eps2,
                        float *ax, float *ay, float *az);

/* The cells of levels 0 .. max_level of the last successful tree_cpu_forces, as sim_tree_boxes
 * gives them: the first cap into out, the count in all returned, the deepest level in *depth. */
int tree_cpu_boxes(const TreeCpu *t, int max_level, SimTreeBox *out, int cap, int *depth);

#endif
