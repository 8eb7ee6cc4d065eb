/* The geometry both tree codes share, the CPU's (src/sim/tree_cpu.c, compiled as C11) and the
 * GPU's (kernels/nbody_tree.cu, compiled as CUDA): the default opening angle, the cell limits,
 * the Morton keys, the types a caller reads (a cell's box, a force call's counts) and a cell's
 * softened monopole + quadrupole term. Written once, so the two trees cut space the same way and
 * a cell pulls a body with the same formula on either backend.
 *
 * A key holds LEVELS bits per axis, interleaved x y z with x highest: a cell at level L is the
 * run of sorted bodies that share the first 3L bits. */
#ifndef STARBURST_TREE_GEOMETRY_H
#define STARBURST_TREE_GEOMETRY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Functions here run on the host and, under nvcc, on the device too. The FMA is fused on the
 * device, where it is one instruction; on the host it is a product and a sum, as fmaf would be a
 * library call in the CPU's loops built for processors without FMA. */
#ifdef __CUDACC__
#define NBODY_TREE_FN static __host__ __device__ __forceinline__
#else
#define NBODY_TREE_FN static inline
#endif
#ifdef __CUDA_ARCH__
#define NBODY_TREE_FMA(a, b, c) fmaf((a), (b), (c))
#else
#define NBODY_TREE_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* The opening angle: a cell is opened when d < l / theta + delta with l the cell's side (not its
 * radius), so theta here is stricter than a radius-based one. The kernels take it from their
 * caller; its default is the parameter table's (src/util/params.c). */
/* A cell with more bodies is split, down to the deepest level. */
#define NBODY_TREE_LEAF 16
/* Levels below the root: 21 bits per axis of a 63-bit key. Bodies that share a key, coincident
 * ones included, share a leaf at the deepest level, so the split always ends. */
#define NBODY_TREE_LEVELS 21

/* The error-based opening test (nbody_tree_forces_rel; tree_cpu_forces with alpha > 0): a cell
 * that passes the geometric test at the widest angle theta_max (its opening distance r_open = l /
 * theta_max + delta) is accepted only where its quadrupole's truncation, estimated as M b^3 / d^5
 * with b = r_open theta_max and d the group box's distance from its centre of mass, stays within
 * alpha times the smallest |a| of the group's previous accelerations: M r_open^3 <= bound d^5,
 * bound = k |a|min, k = alpha / theta_max^3. A group without a previous |a| (zero or not finite:
 * the first call) takes the geometric test at NBODY_TREE_REL_FALLBACK instead. The defaults are
 * the front's (docs/TREE.md): the largest alpha at which every test input holds the error limits. */
#define NBODY_TREE_REL_THETA 0.6f
#define NBODY_TREE_REL_ALPHA 5e-4f
#define NBODY_TREE_REL_FALLBACK 0.4f

/* k = alpha / theta_max^3 (theta_max capped at 1), or 0 for the geometric test alone. */
NBODY_TREE_FN float nbody_rel_k(float alpha, float theta_max)
{
    const float widest = theta_max < 1.0f ? theta_max : 1.0f;
    return alpha > 0.0f && widest > 0.0f ? alpha / (widest * widest * widest) : 0.0f;
}

/* A group without a previous |a| opens at r_open times this: the fallback angle's distance. */
NBODY_TREE_FN float nbody_rel_fallback(float theta_max)
{
    const float widest = theta_max < 1.0f ? theta_max : 1.0f;
    return widest / NBODY_TREE_REL_FALLBACK > 1.0f ? widest / NBODY_TREE_REL_FALLBACK : 1.0f;
}

/* The error part of the test: bound 0 (geometric alone) or M r_open^3 <= bound d^5. */
NBODY_TREE_FN int nbody_rel_accepts(float mass, float open, float dist, float bound)
{
    return bound == 0.0f || mass * open * open * open <= bound * (dist * dist) * (dist * dist) * dist;
}

/* One cell: the cube of side 2 * half about (x, y, z), its level (the root is 0), its bodies. */
typedef struct NbodyTreeBox {
    float x, y, z, half;
    int level, bodies;
} NbodyTreeBox;

/* What the last force call did. */
typedef struct NbodyTreeStats {
    int n;            /* bodies */
    int cells;        /* cells of its tree */
    int depth;        /* deepest level that holds a cell (the root is 0) */
    double body_body; /* direct interactions per body */
    double body_cell; /* multipole interactions per body */
    double build_ms;  /* box, keys, sort, cells, multipoles (GPU: CUDA events; CPU: wall) */
    double walk_ms;   /* the walk and its sums (GPU: with the scatter back to the bodies' order) */
    /* The fast multipole method: its multipoles (upward pass; then not in build_ms), the
     * evaluation of the groups' local expansions at their bodies (downward pass; not in walk_ms),
     * and the cell-group expansions (M2L) evaluated, per body like body_cell. 0 for the tree. */
    double upward_ms, downward_ms;
    double body_group;
} NbodyTreeStats;

/* Every third bit of a 64-bit word from the low 21 bits of v, and back. */
NBODY_TREE_FN uint64_t nbody_spread3(uint32_t v)
{
    uint64_t x = v & 0x1fffffu;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

NBODY_TREE_FN uint32_t nbody_compact3(uint64_t x)
{
    x &= 0x1249249249249249ull;
    x = (x ^ (x >> 2)) & 0x10c30c30c30c30c3ull;
    x = (x ^ (x >> 4)) & 0x100f00f00f00f00full;
    x = (x ^ (x >> 8)) & 0x1f0000ff0000ffull;
    x = (x ^ (x >> 16)) & 0x1f00000000ffffull;
    x = (x ^ (x >> 32)) & 0x1fffffull;
    return (uint32_t)x;
}

/* The key of the deepest cell at integer coordinates (ix, iy, iz), each below 2^LEVELS. */
NBODY_TREE_FN uint64_t nbody_morton_key(uint32_t ix, uint32_t iy, uint32_t iz)
{
    return nbody_spread3(ix) << 2 | nbody_spread3(iy) << 1 | nbody_spread3(iz);
}

/* An acceleration being summed. */
typedef struct NbodyAccel {
    float x, y, z;
} NbodyAccel;

/* A cell's multipoles as the walk reads them: mass m at the centre of mass; the traceless
 * quadrupole Q = sum m_j (3 d_j d_j - |d_j|^2 I) and its trace part T = sum m_j |d_j|^2, d_j from
 * the centre of mass, given as t_eps2 = T eps^2.
 *
 * Softening. The direct sum uses the Plummer kernel g(r) = (r^2 + eps^2)^-1/2. A cell's term is
 * the gradient of the second-order Taylor expansion of sum_j -m_j g(|x - x_j|) about the centre
 * of mass with that same kernel, so at eps = 0 it is the classical monopole + quadrupole and for
 * eps > 0 it tends to the direct sum as the cell shrinks. With D = com - x and
 * u = 1 / (|D|^2 + eps^2):
 *   a = u^(3/2) D (m + 5/2 (D.Q.D - T eps^2) u^2) - u^(5/2) Q.D
 * The T eps^2 term is what softening adds: the softened kernel is not harmonic, so the trace that
 * a traceless Q drops does not vanish (the form with S = sum m_j d_j d_j, Q = 3S - T I, reads
 * a = D (m h^3 + h^5 (7.5 h^2 D.S.D - 1.5 T)) - 3 h^5 S.D, h = u^(1/2): the same).
 *
 * acc + the term, for D = (dx, dy, dz) and inv = u^(1/2), which each backend takes with its own
 * reciprocal square root. An accepted cell is never at distance 0, so inv is finite. */
NBODY_TREE_FN NbodyAccel nbody_cell_term(NbodyAccel acc, float dx, float dy, float dz, float inv, float m, float qxx,
                                         float qyy, float qzz, float qxy, float qxz, float qyz, float t_eps2)
{
    const float u = inv * inv, inv3 = u * inv;
    const float qx = NBODY_TREE_FMA(qxx, dx, NBODY_TREE_FMA(qxy, dy, qxz * dz));
    const float qy = NBODY_TREE_FMA(qxy, dx, NBODY_TREE_FMA(qyy, dy, qyz * dz));
    const float qz = NBODY_TREE_FMA(qxz, dx, NBODY_TREE_FMA(qyz, dy, qzz * dz));
    const float h = NBODY_TREE_FMA(dz, qz, NBODY_TREE_FMA(dy, qy, NBODY_TREE_FMA(dx, qx, -t_eps2)));
    const float g = inv3 * NBODY_TREE_FMA(2.5f * h, u * u, m);
    const float k = -inv3 * u;
    acc.x = NBODY_TREE_FMA(k, qx, NBODY_TREE_FMA(g, dx, acc.x));
    acc.y = NBODY_TREE_FMA(k, qy, NBODY_TREE_FMA(g, dy, acc.y));
    acc.z = NBODY_TREE_FMA(k, qz, NBODY_TREE_FMA(g, dz, acc.z));
    return acc;
}

#ifdef __cplusplus
}
#endif

#endif
