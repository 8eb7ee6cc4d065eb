/* The fast multipole method on the CPU: the Barnes-Hut tree of tree_cpu.c, walked per group, with
 * far cells acting on the whole group through one local expansion instead of on every body.
 *
 * The idea. The tree, its multipoles and its groups are tree_cpu.c's (tree_cpu_build). A group
 * (at most FMM_CPU_GROUP bodies) has a centre c_g, the middle of its bodies' bounding box, and a
 * radius r_g, its farthest body from c_g. Its walk sorts every cell it meets into one of three:
 *   far   rho + r_g < theta_fmm R (fmm_far; rho: the cell's radius about its centre of mass, R:
 *         the distance of that centre from c_g): the cell's monopole + quadrupole is expanded
 *         about c_g into the group's local expansion L (M2L, sim/fmm_expansion.h), once for
 *         the whole group;
 *   near  accepted by the tree's test (tree_cpu_accepts, by the angle or by estimated error): a
 *         cell-body term per body, as the tree;
 *   open  otherwise: its children are walked, and a leaf's bodies act body by body.
 * Downward, each body adds the acceleration of its group's L at x - c_g (L2P). Far cells cost
 * one M2L a group instead of one term a body, which is what brings the terms a body down.
 *
 * Data for SIMD. The far cells of a group are gathered into arrays (structure of arrays) and the
 * M2L loop runs over them with `omp simd`, each cell's 20 coefficients stored in a column of a
 * scratch array and then summed coefficient by coefficient; near cells and bodies are summed by
 * tree_cpu.c's vectorised loops; the L2P loop runs over a group's bodies with `omp simd`. Each
 * of those loops is compiled for AVX-512, AVX2 and the baseline, picked at load time
 * (target_clones, like the direct kernel; the near sums' copies with FMA, tree_sums.c).
 *
 * Work split and determinism: the build is serial; groups are spread over OpenMP threads, each
 * group walked, summed and its expansion evaluated at its bodies on one thread, which writes only
 * those bodies (one parallel region: on a busy machine each region's barrier can cost a time
 * slice). Every list is a
 * function of the tree alone and is summed in list order on one thread, so the same input gives
 * the same bits on any number of threads. */
#include "sim/fmm_cpu.h"
#include "sim/fmm_expansion.h"
#include "util/clock.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* One thread's far cells, offsets from the group centre, and the scratch of their coefficients
 * (FMM_NL rows of cap). */
typedef struct FarList {
    float *dx, *dy, *dz, *m, *qxx, *qyy, *qzz, *qxy, *qxz, *qyz, *t;
    float *terms;
    int cap;
} FarList;

struct FmmCpu {
    TreeCpu *tree;
    int group_cap, nthreads;
    float *local;         /* per group: FMM_NL coefficients */
    float *centre;        /* per group: c_g */
    double *down_ms;      /* per group: the time of its downward pass */
    long long *work;      /* per group: body-body, body-cell, cell-group */
    FarList *far;
};

static void far_free(FarList *l)
{
    float **f[] = {&l->dx,  &l->dy,  &l->dz,  &l->m,   &l->qxx, &l->qyy,
                   &l->qzz, &l->qxy, &l->qxz, &l->qyz, &l->t,   &l->terms};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
    l->cap = 0;
}

FmmCpu *fmm_cpu_create(void)
{
    FmmCpu *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->tree = tree_cpu_create();
    if (!f->tree) {
        free(f);
        return NULL;
    }
    return f;
}

void fmm_cpu_destroy(FmmCpu *f)
{
    if (!f) return;
    tree_cpu_destroy(f->tree);
    free(f->local), free(f->centre), free(f->work), free(f->down_ms);
    for (int i = 0; i < f->nthreads; i++) far_free(&f->far[i]);
    free(f->far);
    free(f);
}

const TreeCpu *fmm_cpu_tree(const FmmCpu *f) { return f->tree; }

static int reserve(FmmCpu *f, int groups, int threads, int cells)
{
    if (groups > f->group_cap) {
        const size_t g = (size_t)groups;
        if (tree_cpu_grow(&f->local, g * FMM_NL * sizeof(float)) || tree_cpu_grow(&f->centre, 3 * g * sizeof(float)) ||
            tree_cpu_grow(&f->work, 3 * g * sizeof(long long)) || tree_cpu_grow(&f->down_ms, g * sizeof(double)))
            return -1;
        f->group_cap = groups;
    }
    if (threads > f->nthreads) {
        if (tree_cpu_grow(&f->far, (size_t)threads * sizeof(FarList))) return -1;
        memset(f->far + f->nthreads, 0, (size_t)(threads - f->nthreads) * sizeof(FarList));
        f->nthreads = threads;
    }
    for (int i = 0; i < threads; i++) {
        FarList *l = &f->far[i];
        if (cells <= l->cap) continue;
        const size_t b = (size_t)cells * sizeof(float);
        if (tree_cpu_grow(&l->dx, b) || tree_cpu_grow(&l->dy, b) || tree_cpu_grow(&l->dz, b) || tree_cpu_grow(&l->m, b) || tree_cpu_grow(&l->qxx, b) ||
            tree_cpu_grow(&l->qyy, b) || tree_cpu_grow(&l->qzz, b) || tree_cpu_grow(&l->qxy, b) || tree_cpu_grow(&l->qxz, b) || tree_cpu_grow(&l->qyz, b) ||
            tree_cpu_grow(&l->t, b) || tree_cpu_grow(&l->terms, FMM_NL * b))
            return -1;
        l->cap = cells;
    }
    return 0;
}

/* L = the sum of the nf far cells' expansions: each cell's coefficients into a column of the
 * scratch, then each coefficient summed over the cells in list order. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void m2l_list(const FarList *l, int nf, float eps2, float L[FMM_NL])
{
    const int cap = l->cap;
    float *terms = l->terms;
    for (int k = 0; k < FMM_NL; k++) memset(terms + (size_t)k * cap, 0, (size_t)nf * sizeof(float));
    const float *dx = l->dx, *dy = l->dy, *dz = l->dz, *m = l->m, *qxx = l->qxx, *qyy = l->qyy, *qzz = l->qzz,
                *qxy = l->qxy, *qxz = l->qxz, *qyz = l->qyz, *t = l->t;
    /* fmm_m2l, with the cell's quadrupole read from the lists. */
    const float sixth = 1.0f / 6.0f, third = 1.0f / 3.0f;
#pragma omp simd
    for (int j = 0; j < nf; j++) {
        const float u = 1.0f / (dx[j] * dx[j] + dy[j] * dy[j] + dz[j] * dz[j] + eps2);
        fmm_m2l_terms(terms + j, cap, -dx[j], -dy[j], -dz[j], u, m[j], (qxx[j] + t[j]) * sixth,
                      (qyy[j] + t[j]) * sixth, (qzz[j] + t[j]) * sixth, qxy[j] * third, qxz[j] * third,
                      qyz[j] * third);
    }
    for (int k = 0; k < FMM_NL; k++) {
        const float *row = terms + (size_t)k * cap;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (int j = 0; j < nf; j++) s += row[j];
        L[k] = s;
    }
}

/* The group's centre c (the middle of its bodies' box lo..hi) and radius. */
static float group_sphere(const TreeCpuView *v, const TreeCpuNode *g, const float lo[3], const float hi[3], float c[3])
{
    for (int k = 0; k < 3; k++) c[k] = 0.5f * (lo[k] + hi[k]);
    float r2 = 0;
    for (int j = g->begin; j < g->end; j++) {
        const float dx = v->x[j] - c[0], dy = v->y[j] - c[1], dz = v->z[j] - c[2];
        const float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > r2) r2 = d2;
    }
    /* Rounded up, so the float radius still holds every body. */
    return sqrtf(r2) * (1 + 1e-6f);
}

/* The group's expansion at its bodies, added to their accelerations. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void l2p_group(const TreeCpuView *v, const TreeCpuNode *g, const float L[FMM_NL], const float c[3],
                      float *acc3)
{
    float ax[TREE_CPU_GROUP], ay[TREE_CPU_GROUP], az[TREE_CPU_GROUP];
    for (int s = g->begin; s < g->end; s += TREE_CPU_GROUP) {
        const int sn = g->end - s < TREE_CPU_GROUP ? g->end - s : TREE_CPU_GROUP;
        const float *x = v->x + s, *y = v->y + s, *z = v->z + s;
#pragma omp simd
        for (int j = 0; j < sn; j++) {
            ax[j] = ay[j] = az[j] = 0;
            fmm_l2p_xyz(L, x[j] - c[0], y[j] - c[1], z[j] - c[2], &ax[j], &ay[j], &az[j]);
        }
        for (int j = 0; j < sn; j++) {
            float *a = acc3 + 3 * (size_t)v->idx[s + j];
            a[0] += ax[j], a[1] += ay[j], a[2] += az[j];
        }
    }
}

/* Group gi: the walk, far cells into its expansion (local, about centre), near cells and leaves
 * summed into its bodies' accelerations, then the expansion at its bodies added. work: body-body,
 * body-cell and cell-group interactions; *down_ms: the time of the last part. */
static void group_forces(const TreeCpuView *v, int gi, TreeCpuLists *l, FarList *far, float eps2, float theta_fmm,
                         float rel_k, float fallback, float *acc3, float *local, float *centre, long long work[3],
                         double *down_ms)
{
    const TreeCpuNode *g = &v->node[v->group[gi]];
    const int gb = g->begin, gn = g->end - g->begin;
    const TreeCpuOpening op = tree_cpu_opening(v, g, rel_k, fallback, acc3); /* before the group writes */
    float lo[3], hi[3];
    tree_cpu_group_box(v, g, lo, hi);
    const float r_g = group_sphere(v, g, lo, hi, centre);
    int stack[TREE_CPU_STACK], top = 0, nf = 0;
    l->nb = l->nc = 0;
    stack[top++] = 0;
    while (top > 0) {
        const int i = stack[--top];
        const TreeCpuNode *c = &v->node[i];
        const bool holds_group = c->begin <= gb && g->end <= c->end;
        const float dx = v->cx[i] - centre[0], dy = v->cy[i] - centre[1], dz = v->cz[i] - centre[2];
        if (!holds_group && fmm_far(v->rho[i], r_g, dx * dx + dy * dy + dz * dz, theta_fmm)) {
            const float *q = v->q + 6 * i;
            far->dx[nf] = dx, far->dy[nf] = dy, far->dz[nf] = dz, far->m[nf] = v->mass[i];
            far->qxx[nf] = q[0], far->qyy[nf] = q[1], far->qzz[nf] = q[2];
            far->qxy[nf] = q[3], far->qxz[nf] = q[4], far->qyz[nf] = q[5], far->t[nf] = v->trace[i];
            nf++;
        } else if (tree_cpu_accepts(v, i, g, lo, hi, op)) {
            tree_cpu_list_cell(l, v, i, eps2);
        } else if (c->nchild == 0) {
            tree_cpu_list_leaf(l, v, i);
        } else {
            for (int k = c->nchild - 1; k >= 0; k--) stack[top++] = c->child + k;
        }
    }
    if (nf > 0) m2l_list(far, nf, eps2, local);
    else memset(local, 0, FMM_NL * sizeof(float));
    tree_cpu_sum_group(l, v, g, eps2, acc3);
    work[0] = (long long)gn * l->nb;
    work[1] = (long long)gn * l->nc;
    work[2] = nf;
    if (nf > 0) {
        const double t0 = clock_seconds();
        l2p_group(v, g, local, centre, acc3);
        *down_ms = 1e3 * (clock_seconds() - t0);
    } else {
        *down_ms = 0;
    }
}

int fmm_cpu_forces(FmmCpu *f, const float *pos4, int n, float eps, float theta, float theta_fmm, float alpha,
                   int threads, float *acc3, TreeCpuStats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (n < 1) return 0;
    if (threads < 1) threads = 1;
    if (tree_cpu_build(f->tree, pos4, n, theta, FMM_CPU_GROUP, threads, stats)) return -1;
    const TreeCpuView v = tree_cpu_view(f->tree);
    if (reserve(f, v.groups, threads, v.nodes)) return -1;
    const double t0 = (1e3 * clock_seconds());
    const float eps2 = eps * eps;
    const int ngroups = v.groups;
    const float rel_k = nbody_rel_k(alpha, theta), fallback = nbody_rel_fallback(theta);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int g = 0; g < ngroups; g++) {
        const int thread = omp_get_thread_num();
        group_forces(&v, g, tree_cpu_lists(f->tree, thread), &f->far[thread], eps2, theta_fmm, rel_k, fallback, acc3,
                     f->local + (size_t)g * FMM_NL, f->centre + 3 * g, f->work + 3 * g, f->down_ms + g);
    }
    const double t1 = (1e3 * clock_seconds());
    double down = 0;
    for (int g = 0; g < ngroups; g++) {
        stats->body_body += f->work[3 * g];
        stats->body_cell += f->work[3 * g + 1];
        stats->body_group += f->work[3 * g + 2]; /* one M2L serves the whole group */
        down += f->down_ms[g];
    }
    /* The downward pass runs inside the walk's loop, group by group (one parallel region, not
     * two): its share of the wall time is its summed time over the threads. */
    stats->downward_ms = down / threads;
    stats->walk_ms = t1 - t0 - stats->downward_ms;
    return 0;
}
