/* Barnes-Hut with quadrupoles on the CPU: O(N log N) forces for 64K-256K bodies live.
 *
 * The idea. Each step: the bodies' bounding cube; a 63-bit Morton key per body (21 bits per
 * axis, x y z interleaved, x highest); a stable LSD radix sort of (key, index); the tree built
 * breadth first, level by level, from the sorted keys. A cell is a range of sorted bodies that
 * share a key prefix of 3L bits (L = its level), so its children are the runs of the next 3 bits
 * inside its range, found by binary search: no pointers to chase and no locks. A cell splits only
 * while it holds more than NBODY_TREE_LEAF bodies and is above level 21, so coincident bodies end
 * in one (large) leaf instead of splitting forever. Multipoles go bottom up in double (children
 * come after their parent in the breadth-first order, so a reverse sweep sees children first):
 * mass, centre of mass and the second moment S about it (the parallel-axis rule moves a child's
 * S to its parent's centre).
 *
 * The walk is per group: a cell of at most TREE_CPU_GROUP bodies (or a deepest leaf). The group
 * walks the tree once against its bodies' bounding box and collects the cells it accepts and the
 * leaves it opens; the lists hold for every body of the group because the test takes the box's
 * nearest point. A cell is accepted when d > l/theta + delta (d: box to the cell's centre of
 * mass, l: the cell's side, delta: its centre of mass from its geometric centre), the improved
 * Barnes-Hut test whose error stays bounded when the mass sits in a corner; a cell that holds the
 * group is always opened. The lists are gathered into dense arrays and every body of the group
 * sums them in full, body list then cell list, vectorised like the direct kernel (tree_sums.c).
 *
 * A cell's term, softened like the direct sum, is the GPU tree's too: nbody_cell_term in
 * kernels/tree_geometry.h, with the keys and the cell limits. The walk reads the traceless
 * quadrupole Q = 3S - T I and the trace T = tr S, rounded to float from the double S.
 *
 * The build, the groups, the lists and their sums are shared with the fast multipole method
 * (fmm_cpu.c), which walks the same tree with one more test: tree_cpu.h gives them.
 *
 * Work split: tree building and multipoles are serial (a few per cent of a step); groups are
 * spread over OpenMP threads, each writing only its own bodies' accelerations.
 *
 * Determinism: the sort is stable and the tree, the groups and every list are functions of the
 * keys alone; each body sums its lists in list order on one thread, and the multipoles are summed
 * serially in a fixed order. So the same input gives the same bits on any number of threads. */
#include "sim/tree_cpu.h"
#include "tree_geometry.h"
#include "util/clock.h"

#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


typedef TreeCpuNode Node;
typedef TreeCpuLists Lists;

struct TreeCpu {
    int n_cap, node_cap, nnodes, ngroups, nthreads;
    uint64_t *key, *key_tmp;
    int *idx, *idx_tmp;
    float *x, *y, *z, *m; /* sorted bodies */
    Node *node;
    /* Per node, for the walk: centre of mass, mass, Q (xx yy zz xy xz yz), T, the opening radius
     * squared, the radius about the centre of mass that holds the node's bodies. */
    float *ncx, *ncy, *ncz, *nm, *nq, *ntr, *nopen2, *nrho;
    double *dmass, *dcom, *ds, *drho; /* the multipoles' double accumulators */
    int *group;
    long long *group_work; /* per group: body-body, then body-cell interactions */
    Lists *lists;
    /* The tree of the last call that succeeded, for tree_cpu_boxes: its nodes and root side. */
    int built_nodes;
    double built_side;
};

static void lists_free(Lists *l)
{
    float **f[] = {&l->bx, &l->by, &l->bz, &l->bm, &l->cx, &l->cy, &l->cz, &l->cm,
                   &l->qxx, &l->qyy, &l->qzz, &l->qxy, &l->qxz, &l->qyz, &l->teps2};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
    l->body_cap = l->cell_cap = 0;
}

TreeCpu *tree_cpu_create(void) { return calloc(1, sizeof(TreeCpu)); }

void tree_cpu_destroy(TreeCpu *t)
{
    if (!t) return;
    free(t->key), free(t->key_tmp), free(t->idx), free(t->idx_tmp);
    free(t->x), free(t->y), free(t->z), free(t->m);
    free(t->node);
    free(t->ncx), free(t->ncy), free(t->ncz), free(t->nm), free(t->nq), free(t->ntr), free(t->nopen2);
    free(t->nrho);
    free(t->dmass), free(t->dcom), free(t->ds), free(t->drho);
    free(t->group), free(t->group_work);
    for (int i = 0; i < t->nthreads; i++) lists_free(&t->lists[i]);
    free(t->lists);
    free(t);
}

static int reserve_bodies(TreeCpu *t, int n)
{
    if (n <= t->n_cap) return 0;
    const size_t c = (size_t)n;
    if (tree_cpu_grow(&t->key, c * sizeof(uint64_t)) || tree_cpu_grow(&t->key_tmp, c * sizeof(uint64_t)) ||
        tree_cpu_grow(&t->idx, c * sizeof(int)) || tree_cpu_grow(&t->idx_tmp, c * sizeof(int)) || tree_cpu_grow(&t->x, c * sizeof(float)) ||
        tree_cpu_grow(&t->y, c * sizeof(float)) || tree_cpu_grow(&t->z, c * sizeof(float)) || tree_cpu_grow(&t->m, c * sizeof(float)) ||
        tree_cpu_grow(&t->group, c * sizeof(int)) || tree_cpu_grow(&t->group_work, 2 * c * sizeof(long long)))
        return -1;
    t->n_cap = n;
    return 0;
}

static int reserve_nodes(TreeCpu *t, int count)
{
    if (count <= t->node_cap) return 0;
    size_t c = (size_t)t->node_cap * 2;
    if (c < (size_t)count) c = (size_t)count;
    if (c < 64) c = 64;
    if (tree_cpu_grow(&t->node, c * sizeof(Node)) || tree_cpu_grow(&t->ncx, c * sizeof(float)) || tree_cpu_grow(&t->ncy, c * sizeof(float)) ||
        tree_cpu_grow(&t->ncz, c * sizeof(float)) || tree_cpu_grow(&t->nm, c * sizeof(float)) || tree_cpu_grow(&t->nq, 6 * c * sizeof(float)) ||
        tree_cpu_grow(&t->ntr, c * sizeof(float)) || tree_cpu_grow(&t->nopen2, c * sizeof(float)) || tree_cpu_grow(&t->nrho, c * sizeof(float)) ||
        tree_cpu_grow(&t->dmass, c * sizeof(double)) || tree_cpu_grow(&t->dcom, 3 * c * sizeof(double)) ||
        tree_cpu_grow(&t->ds, 6 * c * sizeof(double)) || tree_cpu_grow(&t->drho, c * sizeof(double)))
        return -1;
    t->node_cap = (int)c;
    return 0;
}

static int reserve_lists(TreeCpu *t, int threads, int bodies, int cells)
{
    if (threads > t->nthreads) {
        if (tree_cpu_grow(&t->lists, (size_t)threads * sizeof(Lists))) return -1;
        memset(t->lists + t->nthreads, 0, (size_t)(threads - t->nthreads) * sizeof(Lists));
        t->nthreads = threads;
    }
    for (int i = 0; i < threads; i++) {
        Lists *l = &t->lists[i];
        if (bodies > l->body_cap) {
            const size_t b = (size_t)bodies * sizeof(float);
            if (tree_cpu_grow(&l->bx, b) || tree_cpu_grow(&l->by, b) || tree_cpu_grow(&l->bz, b) || tree_cpu_grow(&l->bm, b)) return -1;
            l->body_cap = bodies;
        }
        if (cells > l->cell_cap) {
            const size_t b = (size_t)cells * sizeof(float);
            if (tree_cpu_grow(&l->cx, b) || tree_cpu_grow(&l->cy, b) || tree_cpu_grow(&l->cz, b) || tree_cpu_grow(&l->cm, b) || tree_cpu_grow(&l->qxx, b) ||
                tree_cpu_grow(&l->qyy, b) || tree_cpu_grow(&l->qzz, b) || tree_cpu_grow(&l->qxy, b) || tree_cpu_grow(&l->qxz, b) || tree_cpu_grow(&l->qyz, b) ||
                tree_cpu_grow(&l->teps2, b))
                return -1;
            l->cell_cap = cells;
        }
    }
    return 0;
}

/* Quantises a coordinate to 21 bits; NaN and values outside the cube are clamped (no undefined
 * float-to-integer conversion on a diverged run). */
static uint32_t quantise(float v, double lo, double scale)
{
    double q = ((double)v - lo) * scale;
    if (!(q > 0)) return 0;
    if (q >= (double)(1 << NBODY_TREE_LEVELS)) return (1u << NBODY_TREE_LEVELS) - 1;
    return (uint32_t)q;
}

/* The bounding cube: lo corner and side; side 1 about the data when it has no extent or no
 * finite coordinates. */
static void bounding_cube(const float *pos4, int n, double lo[3], double *side)
{
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            const double v = pos4[4 * i + k];
            if (!isfinite(v)) continue;
            if (v < mn[k]) mn[k] = v;
            if (v > mx[k]) mx[k] = v;
        }
    double s = 0;
    for (int k = 0; k < 3; k++) {
        if (!(mn[k] <= mx[k])) mn[k] = mx[k] = 0;
        if (mx[k] - mn[k] > s) s = mx[k] - mn[k];
    }
    /* A little margin keeps the largest coordinate inside the last cell after rounding. */
    s = s > 0 && isfinite(s) ? s * (1 + 1e-6) : 1;
    for (int k = 0; k < 3; k++) lo[k] = 0.5 * (mn[k] + mx[k]) - 0.5 * s;
    *side = s;
}

/* Stable LSD radix sort of (key, idx), 8 bits a pass; a pass whose digit is the same for every
 * key is skipped. */
static void radix_sort(TreeCpu *t, int n)
{
    uint64_t *k = t->key, *kt = t->key_tmp;
    int *ix = t->idx, *it = t->idx_tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (int i = 0; i < n; i++) count[((k[i] >> shift) & 0xff) + 1]++;
        if (count[((k[0] >> shift) & 0xff) + 1] == (size_t)n) continue;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (int i = 0; i < n; i++) {
            const size_t at = count[(k[i] >> shift) & 0xff]++;
            kt[at] = k[i];
            it[at] = ix[i];
        }
        uint64_t *sk = k;
        k = kt, kt = sk;
        int *si = ix;
        ix = it, it = si;
    }
    t->key = k, t->key_tmp = kt;
    t->idx = ix, t->idx_tmp = it;
}

/* First position in [b, e) whose key is >= bound (keys sorted). */
static int lower_bound(const uint64_t *key, int b, int e, uint64_t bound)
{
    while (b < e) {
        const int mid = b + (e - b) / 2;
        if (key[mid] < bound) b = mid + 1;
        else e = mid;
    }
    return b;
}

/* Breadth first: node i's children are appended as the runs of the next key digit in its range,
 * so every level follows the one above it and a parent precedes its children. */
static int build(TreeCpu *t, int n, const double lo[3], double side)
{
    if (reserve_nodes(t, 1)) return -1;
    t->node[0] = (Node){.begin = 0, .end = n, .centre = {lo[0] + side / 2, lo[1] + side / 2, lo[2] + side / 2}};
    int count = 1;
    for (int i = 0; i < count; i++) {
        Node *p = &t->node[i];
        if (p->end - p->begin <= NBODY_TREE_LEAF || p->level == NBODY_TREE_LEVELS) continue;
        const int level = p->level + 1, shift = 3 * (NBODY_TREE_LEVELS - level);
        if (reserve_nodes(t, count + 8)) return -1;
        p = &t->node[i]; /* the array may have moved */
        const double quarter = side / (double)(1u << level) / 2;
        p->child = count;
        for (int b = p->begin; b < p->end;) {
            const uint64_t prefix = t->key[b] >> shift;
            const int e = lower_bound(t->key, b, p->end, (prefix + 1) << shift);
            const int oct = (int)(prefix & 7);
            Node *c = &t->node[count++];
            *c = (Node){.begin = b, .end = e, .level = level};
            c->centre[0] = p->centre[0] + (oct & 4 ? quarter : -quarter);
            c->centre[1] = p->centre[1] + (oct & 2 ? quarter : -quarter);
            c->centre[2] = p->centre[2] + (oct & 1 ? quarter : -quarter);
            b = e;
        }
        p->nchild = count - p->child;
    }
    t->nnodes = count;
    return 0;
}

/* Mass, centre of mass and S per node, children before parents; then the float copies the walk
 * reads (Q = 3S - T I and T) and the opening radius (l / theta + delta)^2. The radius rho about
 * the centre of mass that holds the bodies: exact for a leaf, for a parent the smaller of its
 * children's spheres grown to the new centre and the cube's farthest corner. */
static void multipoles(TreeCpu *t, double side, float theta)
{
    for (int i = t->nnodes - 1; i >= 0; i--) {
        const Node *c = &t->node[i];
        double M = 0, mx = 0, my = 0, mz = 0, s[6] = {0};
        if (c->nchild == 0) {
            for (int j = c->begin; j < c->end; j++) {
                M += t->m[j];
                mx += (double)t->m[j] * t->x[j];
                my += (double)t->m[j] * t->y[j];
                mz += (double)t->m[j] * t->z[j];
            }
        } else {
            for (int k = c->child; k < c->child + c->nchild; k++) {
                M += t->dmass[k];
                mx += t->dmass[k] * t->dcom[3 * k];
                my += t->dmass[k] * t->dcom[3 * k + 1];
                mz += t->dmass[k] * t->dcom[3 * k + 2];
            }
        }
        double com[3];
        if (M > 0) com[0] = mx / M, com[1] = my / M, com[2] = mz / M;
        else com[0] = c->centre[0], com[1] = c->centre[1], com[2] = c->centre[2];
        if (c->nchild == 0) {
            for (int j = c->begin; j < c->end; j++) {
                const double d[3] = {t->x[j] - com[0], t->y[j] - com[1], t->z[j] - com[2]}, w = t->m[j];
                s[0] += w * d[0] * d[0], s[1] += w * d[0] * d[1], s[2] += w * d[0] * d[2];
                s[3] += w * d[1] * d[1], s[4] += w * d[1] * d[2], s[5] += w * d[2] * d[2];
            }
        } else {
            for (int k = c->child; k < c->child + c->nchild; k++) {
                const double *ck = t->dcom + 3 * k, *sk = t->ds + 6 * k, w = t->dmass[k];
                const double d[3] = {ck[0] - com[0], ck[1] - com[1], ck[2] - com[2]};
                s[0] += sk[0] + w * d[0] * d[0], s[1] += sk[1] + w * d[0] * d[1], s[2] += sk[2] + w * d[0] * d[2];
                s[3] += sk[3] + w * d[1] * d[1], s[4] += sk[4] + w * d[1] * d[2], s[5] += sk[5] + w * d[2] * d[2];
            }
        }
        double rho = 0;
        if (c->nchild == 0) {
            for (int j = c->begin; j < c->end; j++) {
                const double d[3] = {t->x[j] - com[0], t->y[j] - com[1], t->z[j] - com[2]};
                const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                if (r > rho) rho = r;
            }
        } else {
            for (int k = c->child; k < c->child + c->nchild; k++) {
                const double *ck = t->dcom + 3 * k;
                const double d[3] = {ck[0] - com[0], ck[1] - com[1], ck[2] - com[2]};
                const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + t->drho[k];
                if (r > rho) rho = r;
            }
            const double h = side / (double)(1u << c->level) / 2;
            double corner = 0;
            for (int k = 0; k < 3; k++) {
                const double e = fabs(com[k] - c->centre[k]) + h;
                corner += e * e;
            }
            if (sqrt(corner) < rho) rho = sqrt(corner);
        }
        t->drho[i] = rho;
        /* Rounded up, so the float radius still holds every body. */
        t->nrho[i] = (float)rho * (1 + 1e-6f);
        t->dmass[i] = M;
        for (int k = 0; k < 3; k++) t->dcom[3 * i + k] = com[k];
        for (int k = 0; k < 6; k++) t->ds[6 * i + k] = s[k];
        t->ncx[i] = (float)com[0], t->ncy[i] = (float)com[1], t->ncz[i] = (float)com[2];
        t->nm[i] = (float)M;
        const double tr = s[0] + s[3] + s[5];
        float *q = t->nq + 6 * i;
        q[0] = (float)(3 * s[0] - tr), q[1] = (float)(3 * s[3] - tr), q[2] = (float)(3 * s[5] - tr);
        q[3] = (float)(3 * s[1]), q[4] = (float)(3 * s[2]), q[5] = (float)(3 * s[4]);
        t->ntr[i] = (float)tr;
        const double dx = com[0] - c->centre[0], dy = com[1] - c->centre[1], dz = com[2] - c->centre[2];
        const double l = side / (double)(1u << c->level);
        const double r = l / theta + sqrt(dx * dx + dy * dy + dz * dz);
        t->nopen2[i] = (float)(r * r);
    }
}

/* The groups: cells of at most group_max bodies whose parent has more, and deepest leaves
 * larger than that, in depth-first order. */
static int find_groups(TreeCpu *t, int group_max)
{
    int stack[TREE_CPU_STACK], top = 0, count = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node *c = &t->node[stack[--top]];
        if (c->end - c->begin <= group_max || c->nchild == 0) {
            t->group[count++] = (int)(c - t->node);
            continue;
        }
        for (int k = c->nchild - 1; k >= 0; k--) stack[top++] = c->child + k;
    }
    return count;
}

void tree_cpu_sum_group(const TreeCpuLists *l, const TreeCpuView *v, const TreeCpuNode *g, float eps2, float *acc3)
{
    const int gb = g->begin, gn = g->end - g->begin;
    float ax[TREE_CPU_GROUP], ay[TREE_CPU_GROUP], az[TREE_CPU_GROUP];
    /* A deepest leaf may exceed a group: its bodies go in slices of TREE_CPU_GROUP. */
    for (int s = 0; s < gn; s += TREE_CPU_GROUP) {
        const int sn = gn - s < TREE_CPU_GROUP ? gn - s : TREE_CPU_GROUP;
        tree_cpu_sum_lists(l, v->x + gb + s, v->y + gb + s, v->z + gb + s, sn, eps2, ax, ay, az);
        for (int j = 0; j < sn; j++) {
            float *a = acc3 + 3 * (size_t)v->idx[gb + s + j];
            a[0] = ax[j], a[1] = ay[j], a[2] = az[j];
        }
    }
}

/* Walks the tree for group g, evaluates its lists and writes its bodies' accelerations. work[0]
 * gets the body-body interactions evaluated, work[1] the body-cell ones. */
static void walk_group(const TreeCpuView *v, const Node *g, Lists *l, float eps2, float rel_k, float fallback,
                       float *acc3, long long work[2])
{
    const int gn = g->end - g->begin;
    float lo[3], hi[3];
    tree_cpu_group_box(v, g, lo, hi);
    const TreeCpuOpening op = tree_cpu_opening(v, g, rel_k, fallback, acc3);
    int stack[TREE_CPU_STACK], top = 0;
    l->nb = l->nc = 0;
    stack[top++] = 0;
    while (top > 0) {
        const int i = stack[--top];
        const Node *c = &v->node[i];
        if (tree_cpu_accepts(v, i, g, lo, hi, op)) tree_cpu_list_cell(l, v, i, eps2);
        else if (c->nchild == 0) tree_cpu_list_leaf(l, v, i);
        else
            for (int k = c->nchild - 1; k >= 0; k--) stack[top++] = c->child + k;
    }
    tree_cpu_sum_group(l, v, g, eps2, acc3);
    work[0] = (long long)gn * l->nb;
    work[1] = (long long)gn * l->nc;
}

int tree_cpu_build(TreeCpu *t, const float *pos4, int n, float theta, int group_max, int threads, TreeCpuStats *stats)
{
    memset(stats, 0, sizeof *stats);
    t->built_nodes = 0;
    if (n < 1) return -1;
    if (threads < 1) threads = 1;
    const double t0 = (1e3 * clock_seconds());
    if (reserve_bodies(t, n)) return -1;
    double lo[3], side;
    bounding_cube(pos4, n, lo, &side);
    const double scale = (double)(1u << NBODY_TREE_LEVELS) / side;
    for (int i = 0; i < n; i++) {
        const float *p = pos4 + 4 * i;
        t->key[i] = nbody_morton_key(quantise(p[0], lo[0], scale), quantise(p[1], lo[1], scale),
                                     quantise(p[2], lo[2], scale));
        t->idx[i] = i;
    }
    radix_sort(t, n);
    for (int i = 0; i < n; i++) {
        const float *p = pos4 + 4 * (size_t)t->idx[i];
        t->x[i] = p[0], t->y[i] = p[1], t->z[i] = p[2], t->m[i] = p[3];
    }
    if (build(t, n, lo, side)) return -1;
    t->ngroups = find_groups(t, group_max);
    /* A list holds each body and each cell at most once. */
    if (reserve_lists(t, threads, n, t->nnodes)) return -1;
    const double t1 = (1e3 * clock_seconds());
    multipoles(t, side, theta);
    stats->upward_ms = (1e3 * clock_seconds()) - t1;
    stats->build_ms = t1 - t0;
    stats->cells = t->nnodes;
    stats->depth = t->node[t->nnodes - 1].level;
    t->built_nodes = t->nnodes;
    t->built_side = side;
    return 0;
}

TreeCpuView tree_cpu_view(const TreeCpu *t)
{
    return (TreeCpuView){.nodes = t->built_nodes,
                         .groups = t->ngroups,
                         .node = t->node,
                         .x = t->x,
                         .y = t->y,
                         .z = t->z,
                         .m = t->m,
                         .idx = t->idx,
                         .cx = t->ncx,
                         .cy = t->ncy,
                         .cz = t->ncz,
                         .mass = t->nm,
                         .q = t->nq,
                         .trace = t->ntr,
                         .open2 = t->nopen2,
                         .rho = t->nrho,
                         .group = t->group};
}

TreeCpuLists *tree_cpu_lists(TreeCpu *t, int thread) { return &t->lists[thread]; }

int tree_cpu_forces(TreeCpu *t, const float *pos4, int n, float eps, float theta, float alpha, int threads,
                    float *acc3, TreeCpuStats *stats)
{
    if (n < 1) {
        memset(stats, 0, sizeof *stats);
        return 0;
    }
    if (threads < 1) threads = 1;
    if (tree_cpu_build(t, pos4, n, theta, TREE_CPU_GROUP, threads, stats)) return -1;
    const double t1 = (1e3 * clock_seconds());
    const TreeCpuView v = tree_cpu_view(t);
    const float eps2 = eps * eps;
    const int ngroups = t->ngroups;
    const float rel_k = nbody_rel_k(alpha, theta), fallback = nbody_rel_fallback(theta);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int g = 0; g < ngroups; g++)
        walk_group(&v, &t->node[t->group[g]], &t->lists[omp_get_thread_num()], eps2, rel_k, fallback, acc3,
                   t->group_work + 2 * g);
    for (int g = 0; g < ngroups; g++) {
        stats->body_body += t->group_work[2 * g];
        stats->body_cell += t->group_work[2 * g + 1];
    }
    /* The tree's build is timed whole: keys to multipoles. */
    stats->build_ms += stats->upward_ms;
    stats->upward_ms = 0;
    stats->walk_ms = (1e3 * clock_seconds()) - t1;
    return 0;
}

/* Nodes are in breadth-first order, so the levels come one after another. */
int tree_cpu_boxes(const TreeCpu *t, int max_level, SimTreeBox *out, int cap, int *depth)
{
    const int nodes = t->built_nodes;
    *depth = nodes > 0 ? t->node[nodes - 1].level : 0;
    int count = 0;
    for (; count < nodes && t->node[count].level <= max_level; count++) {
        if (count >= cap) continue;
        const Node *c = &t->node[count];
        out[count] = (SimTreeBox){
            .x = (float)c->centre[0],
            .y = (float)c->centre[1],
            .z = (float)c->centre[2],
            .half = (float)(t->built_side / (double)(1u << c->level) / 2),
            .level = c->level,
            .bodies = c->end - c->begin,
        };
    }
    return count;
}
