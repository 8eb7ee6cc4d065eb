/* The sums of the tree's lists (tree_cpu.c, fmm_cpu.c): every body of a group against the
 * bodies, then the cells, its walk listed. These loops are most of a tree step, so this file alone
 * is built with -ffast-math -mrecip (CMakeLists.txt): 1 / sqrt becomes the processor's reciprocal
 * square root estimate and one Newton-Raphson step (about 2.4 times as fast on this project's
 * 2-core machine, the force errors against f64 unchanged to two digits, docs/FMM.md), and sums
 * may be reordered by the compiler. The order is still fixed by the compiled code, so a given
 * build on a given processor gives the same bits on any number of threads; the estimate's last
 * bits may differ from one processor make to another, and a processor without fused multiply-add
 * (below) rounds differently. No NaN or infinity is looked for here. */
#include "sim/tree_cpu.h"
#include "tree_geometry.h"

#include <math.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

ALWAYS_INLINE static void sum_bodies(const float *bx, const float *by, const float *bz, const float *bm, int nb, const float *gx,
                       const float *gy, const float *gz, int gn, float eps2, float *ax_out, float *ay_out,
                       float *az_out)
{
    for (int i = 0; i < gn; i++) {
        const float xi = gx[i], yi = gy[i], zi = gz[i];
        float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int j = 0; j < nb; j++) {
            const float dx = bx[j] - xi, dy = by[j] - yi, dz = bz[j] - zi;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            /* Coincident bodies with no softening: the self term must stay zero. */
            const float inv = r2 > 0 ? 1.0f / sqrtf(r2) : 0.0f;
            const float s = bm[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        ax_out[i] = ax, ay_out[i] = ay, az_out[i] = az;
    }
}

/* The cells' terms, nbody_cell_term (kernels/tree_geometry.h). An accepted cell is never at
 * distance 0, so r2 > 0. */
ALWAYS_INLINE static void sum_cells(const TreeCpuLists *l, int nc, const float *gx, const float *gy, const float *gz, int gn,
                      float eps2, float *ax_out, float *ay_out, float *az_out)
{
    const float *cx = l->cx, *cy = l->cy, *cz = l->cz, *cm = l->cm, *qxx = l->qxx, *qyy = l->qyy, *qzz = l->qzz,
                *qxy = l->qxy, *qxz = l->qxz, *qyz = l->qyz, *teps2 = l->teps2;
    for (int i = 0; i < gn; i++) {
        const float xi = gx[i], yi = gy[i], zi = gz[i];
        float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int j = 0; j < nc; j++) {
            const float dx = cx[j] - xi, dy = cy[j] - yi, dz = cz[j] - zi;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const NbodyAccel a = nbody_cell_term((NbodyAccel){0, 0, 0}, dx, dy, dz, 1.0f / sqrtf(r2), cm[j], qxx[j],
                                                 qyy[j], qzz[j], qxy[j], qxz[j], qyz[j], teps2[j]);
            ax += a.x;
            ay += a.y;
            az += a.z;
        }
        ax_out[i] += ax, ay_out[i] += ay, az_out[i] += az;
    }
}

/* One copy of the two loops for each instruction set, picked once as the program loads. Each copy
 * names fused multiply-add with its vector width: target_clones' "avx2" and "avx512f" leave it
 * out, and -ffast-math contracts a * b + c into one instruction only where the target has it (the
 * fmm's interactions at 16,384 bodies 8 % the faster for it on this project's 2-core machine,
 * docs/FMM.md). The pick is a constructor, not an ifunc: an ifunc's resolver runs before the
 * sanitizers are set up. */
#define SUM_LISTS_ARGS                                                                                           \
    const TreeCpuLists *l, const float *gx, const float *gy, const float *gz, int gn, float eps2, float *ax,    \
        float *ay, float *az
#define SUM_LISTS_BODY                                                                                           \
    sum_bodies(l->bx, l->by, l->bz, l->bm, l->nb, gx, gy, gz, gn, eps2, ax, ay, az);                          \
    sum_cells(l, l->nc, gx, gy, gz, gn, eps2, ax, ay, az)

__attribute__((target("avx512f,fma"))) static void sum_lists_avx512(SUM_LISTS_ARGS) { SUM_LISTS_BODY; }
__attribute__((target("avx2,fma"))) static void sum_lists_avx2(SUM_LISTS_ARGS) { SUM_LISTS_BODY; }
static void sum_lists_default(SUM_LISTS_ARGS) { SUM_LISTS_BODY; }

static void (*sum_lists)(SUM_LISTS_ARGS) = sum_lists_default;

__attribute__((constructor)) static void pick_sum_lists(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx512f"))
        sum_lists = sum_lists_avx512;
    else if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"))
        sum_lists = sum_lists_avx2;
}

void tree_cpu_sum_lists(SUM_LISTS_ARGS) { sum_lists(l, gx, gy, gz, gn, eps2, ax, ay, az); }
