/* The tree code: Barnes-Hut with quadrupoles, built afresh on every call from sorted Morton keys
 * (or, with nbody_tree_set_rebuild, on every k-th, the calls between refitting the last build's
 * cells: multipoles<true>).
 *
 * The idea. Bodies sorted by 63-bit Morton key (21 levels of octants) lie so that every cell of
 * the octree is a run of consecutive bodies sharing a key prefix. The tree is built level by
 * level: a cell of more than NBODY_TREE_LEAF bodies (above the deepest level) finds its children's
 * runs by binary search on the next key digit. Bodies that share a key, coincident ones included,
 * share a leaf at the deepest level at the latest, so the split always ends. Mass, centre of mass
 * and traceless quadrupole go bottom-up, level by level. Then groups of up to NBODY_TREE_GROUP
 * bodies, cut from the tree (groups_of), walk it together: a cell is accepted for the whole group
 * when the group's box stays at least l / theta + delta from the cell's centre of mass (delta: its
 * distance from the cell's geometric centre), and, with alpha, where the error-based test of
 * tree_geometry.h holds too; else opened; the accepted cells and the bodies of
 * opened leaves gather in lists in shared memory and are summed as dense tiles, the bodies with
 * the direct kernel's softened pair term. The keys, the cell limits and a cell's softened term
 * are the CPU tree's too: tree_geometry.h.
 *
 * The work split. Box: a grid-stride reduction, then one block. Keys, the gather of positions in
 * key order, the split of a level and the multipoles of a level: a thread per body or per cell.
 * The sort: cub::DeviceRadixSort (stable). A level's children are numbered by cub::DeviceScan;
 * each level's launches and scan are sized on the host for the most cells the level can hold
 * (8 a split cell of the level above, at most n / (LEAF + 1) of them) and read the level's real
 * first cell and count from the device, so the host never waits; the groups are numbered the same
 * way over the most cells the tree can hold. The walk: as many blocks as fit on the device at once,
 * each warp taking the next group from a counter, so that no SM idles while a few expensive
 * groups finish; a group of m bodies gives each body 32 / m lanes (rounded down to a power of two),
 * which split its lists between them. The warp tests up to 32 cells of its stack at a time, one a
 * lane, and the lists fill by ballot and warp scans. The result is scattered back to the
 * caller's order.
 *
 * Determinism. The sort is stable and the keys a function of the positions; every cell's children
 * and bodies are summed in a fixed order by one thread; a warp's traversal order and its lists
 * depend on the tree alone, and each lane sums its share of its body's terms in list order, the
 * shares meeting in a fixed butterfly; which warp takes a group does not matter. Floating-point
 * atomics are used nowhere (integer ones hand out groups and count interactions), so a call
 * repeats bit for bit.
 *
 * Memory. Cells at one level are disjoint and nonempty, and only cells of more than LEAF bodies
 * are split, so a tree of n bodies holds at most n leaves and n / (LEAF + 1) split cells a level
 * for each of the LEVELS levels that can split: the cell arrays are sized for that up front.
 *
 * One file: the build, the multipoles, the walk and the overlay's boxes share the device layout
 * (Layout) and its launch helpers, which a split would have to publish in a header of their own;
 * the geometry both trees share is tree_geometry.h. */
#include "cuda_check.h"
#include "kernels.h"
#include "nbody_common.cuh"
#include "tree.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

namespace {

using nbody::rsqrt_ftz;

constexpr int LEAF = NBODY_TREE_LEAF;
constexpr int LEVELS = NBODY_TREE_LEVELS;
constexpr int GROUP = NBODY_TREE_GROUP;
constexpr int KEY_BITS = 3 * LEVELS;
constexpr int BOX_BLOCKS = 256;
constexpr int THREADS = 256;

/* The walk: WALK_WARPS warps a block, each with its own stack and lists in shared memory. */
constexpr int WALK_WARPS = 4;
constexpr int STACK = 1024;
/* A round pops up to 32 cells and pushes at most 8 children of each: the stack grows by at most
 * 224. Above STACK_CALM the warp pops one cell a round, a depth-first walk that grows the stack
 * by at most 7 a level below the cell it started from (148 in all). So it never passes STACK. */
constexpr int STACK_CALM = STACK - 224 - 7 * LEVELS - 8;
constexpr int CELL_LIST = 64;                /* flushed at 32: < 32 before a round, + 32 */
constexpr int BODY_LIST = 32 + 32 * LEAF;    /* flushed at 32: < 32 before a round, + 32 leaves */
static_assert(GROUP == 32, "a group is a warp's bodies");
/* Below SMALL_GROUPS_BELOW bodies the groups hold at most SMALL_GROUP: with a few thousand groups
 * the walk waits on its slowest ones, and smaller groups split them (H200, collision, ms a walk at
 * group sizes 8 / 12 / 16 / 24 / 32: 64K 0.82 / 0.69 / 0.62 / 2.07 / 2.05, 256K 3.63 / 2.93 /
 * 2.42 / 2.21 / 1.93, 1M 16.5 / 12.9 / 10.4 / 9.2 / 7.7 for the walk of the fast multipole method
 * this file held until 2026-11-29, docs/FMM.md). */
constexpr int SMALL_GROUP = 16;
constexpr int SMALL_GROUPS_BELOW = 1 << 18;
static_assert(STACK_CALM > 32, "stack too small for the walk");

struct Root {
    float x, y, z, side; /* the cube that holds every body: its low corner and side */
};

/* The digit of the key that picks a child of a level-L cell (a cell at level L + 1). */
__device__ __forceinline__ int child_digit(uint64_t key, int level)
{
    return (int)((key >> (3 * (LEVELS - 1 - level))) & 7u);
}

/* The cube of the cell at `level` whose bodies share key's first 3 level digits: its centre and side. */
struct Cube {
    float x, y, z, side;
};

__device__ __forceinline__ Cube cell_cube(const Root &rt, uint64_t key, int level)
{
    const float l = rt.side / (float)(1 << level);
    const int shift = LEVELS - level;
    return Cube{rt.x + ((float)(nbody_compact3(key >> 2) >> shift) + 0.5f) * l,
                rt.y + ((float)(nbody_compact3(key >> 1) >> shift) + 0.5f) * l,
                rt.z + ((float)(nbody_compact3(key) >> shift) + 0.5f) * l, l};
}

/* Per block: min and max of x, y, z over a grid-stride share of the bodies. */
__global__ void box_partial(const float4 *__restrict__ pos, int n, float *__restrict__ partials)
{
    __shared__ float s[6][THREADS];
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float4 p = pos[i];
        lo[0] = fminf(lo[0], p.x);
        lo[1] = fminf(lo[1], p.y);
        lo[2] = fminf(lo[2], p.z);
        hi[0] = fmaxf(hi[0], p.x);
        hi[1] = fmaxf(hi[1], p.y);
        hi[2] = fmaxf(hi[2], p.z);
    }
    for (int k = 0; k < 3; k++) {
        s[k][threadIdx.x] = lo[k];
        s[3 + k][threadIdx.x] = hi[k];
    }
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            for (int k = 0; k < 3; k++) {
                s[k][threadIdx.x] = fminf(s[k][threadIdx.x], s[k][threadIdx.x + half]);
                s[3 + k][threadIdx.x] = fmaxf(s[3 + k][threadIdx.x], s[3 + k][threadIdx.x + half]);
            }
        __syncthreads();
    }
    if (threadIdx.x < 6) partials[6 * blockIdx.x + threadIdx.x] = s[threadIdx.x][0];
}

/* The root cube from the partial boxes, and the root cell: all n bodies, no children yet. */
__global__ void box_final(const float *__restrict__ partials, int blocks, int n, Root *root, int2 *range, int2 *kids,
                          int2 *levels)
{
    if (threadIdx.x != 0) return;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], partials[6 * b + k]);
            hi[k] = fmaxf(hi[k], partials[6 * b + 3 + k]);
        }
    for (int k = 0; k < 3; k++)
        if (!(lo[k] <= hi[k])) lo[k] = hi[k] = 0.0f; /* no finite coordinate */
    float side = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    /* A little room, so that the highest body's key stays inside; a point cloud gets a cube too. */
    side = fmaxf(side * 1.0001f, 1e-30f);
    *root = Root{lo[0], lo[1], lo[2], side};
    range[0] = make_int2(0, n);
    kids[0] = make_int2(-1, 0);
    levels[0] = make_int2(0, 1);
}

__global__ void morton_keys(const float4 *__restrict__ pos, int n, const Root *__restrict__ root,
                            unsigned long long *__restrict__ keys, int *__restrict__ index)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Root r = *root;
    const float scale = (float)(1 << LEVELS) / r.side, top = (float)((1 << LEVELS) - 1);
    float4 p = pos[i];
    /* fmaxf drops a NaN: a body with no place sorts to the low corner. */
    uint32_t ix = (uint32_t)fminf(fmaxf((p.x - r.x) * scale, 0.0f), top);
    uint32_t iy = (uint32_t)fminf(fmaxf((p.y - r.y) * scale, 0.0f), top);
    uint32_t iz = (uint32_t)fminf(fmaxf((p.z - r.z) * scale, 0.0f), top);
    keys[i] = nbody_morton_key(ix, iy, iz);
    index[i] = i;
}

__global__ void gather(const float4 *__restrict__ pos, const int *__restrict__ perm, int n, float4 *__restrict__ spos)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) spos[i] = pos[perm[i]];
}

/* bound[d] = first body of the run [b, e) whose child digit is >= d, for d = 0..8. */
__device__ __forceinline__ void child_bounds(const unsigned long long *__restrict__ keys, int b, int e, int level,
                                             int (&bound)[9])
{
    bound[0] = b;
    bound[8] = e;
#pragma unroll
    for (int d = 1; d < 8; d++) {
        int lo = bound[d - 1], hi = e;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (child_digit(keys[mid], level) < d)
                lo = mid + 1;
            else
                hi = mid;
        }
        bound[d] = lo;
    }
}

__device__ __forceinline__ bool splits(int2 range, int level) { return range.y > LEAF && level < LEVELS; }

/* Children each cell of a level will have; 0 past the level's cells (the launch is sized for the
 * most cells the level can hold, the scan runs over all of them). */
__global__ void split_count(const int2 *__restrict__ range, const unsigned long long *__restrict__ keys,
                            const int2 *__restrict__ levels, int level, int size, int *__restrict__ nkids)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= size) return;
    const int2 lv = levels[level];
    if (t >= lv.y) {
        nkids[t] = 0;
        return;
    }
    int2 r = range[lv.x + t];
    int kids = 0;
    if (splits(r, level)) {
        int bound[9];
        child_bounds(keys, r.x, r.x + r.y, level, bound);
#pragma unroll
        for (int d = 0; d < 8; d++) kids += bound[d + 1] > bound[d];
    }
    nkids[t] = kids;
}

/* Writes the children of a level's cells at next + offset, in digit order, and the next level's
 * place (its first cell and count). Children past capacity are not written (see Memory, top). */
__global__ void split_emit(int2 *__restrict__ range, int2 *__restrict__ kids, const unsigned long long *__restrict__ keys,
                           int2 *__restrict__ levels, int level, const int *__restrict__ nkids,
                           const int *__restrict__ offset, int capacity)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int2 lv = levels[level];
    const int first = lv.x, count = lv.y, next = first + count;
    /* The next level follows this one; an empty level leaves an empty one after it. */
    if (count == 0 && t == 0) levels[level + 1] = make_int2(next, 0);
    if (t >= count) return;
    if (t == count - 1) levels[level + 1] = make_int2(next, offset[t] + nkids[t]);
    const int c = first + t;
    int2 r = range[c];
    if (!splits(r, level) || nkids[t] == 0) {
        kids[c] = make_int2(-1, 0);
        return;
    }
    int bound[9];
    child_bounds(keys, r.x, r.x + r.y, level, bound);
    const int child = next + offset[t];
    kids[c] = make_int2(child, nkids[t]);
    int k = child;
#pragma unroll
    for (int d = 0; d < 8; d++) {
        if (bound[d + 1] == bound[d]) continue;
        if (k < capacity) {
            range[k] = make_int2(bound[d], bound[d + 1] - bound[d]);
            kids[k] = make_int2(-1, 0);
        }
        k++;
    }
}

/* The walk's groups. A cell of at most GROUP bodies whose parent has more is where a group
 * begins; consecutive such siblings merge while their bodies still fit in one group, so a group is
 * a run of bodies inside one parent cell: its box is never larger than that parent's, and a group
 * never straddles two distant parts of the key curve as a run cut at fixed counts can. A deepest
 * leaf of more than GROUP bodies (coincident ones) is cut into runs of GROUP. Every body is in
 * exactly one group. groups_of walks the children of cell c and calls emit(first, count) for each
 * group, in body order. */
template <typename Emit>
__device__ __forceinline__ void groups_of(int c, const int2 *__restrict__ range, const int2 *__restrict__ kids,
                                          int gmax, Emit emit)
{
    const int2 r = range[c];
    if (c == 0 && r.y <= gmax) { /* the root is a group of its own */
        emit(r.x, r.y);
        return;
    }
    if (r.y <= gmax) return; /* inside a group of its parent's */
    const int2 kd = kids[c];
    if (kd.x < 0) { /* a deepest leaf too full to split */
        for (int b = 0; b < r.y; b += gmax) emit(r.x + b, min(gmax, r.y - b));
        return;
    }
    int run_first = 0, run_count = 0;
    for (int k = kd.x; k < kd.x + kd.y; k++) {
        const int2 kr = range[k];
        if (kr.y > gmax) continue; /* its own children hold its groups */
        if (run_count > 0 && (run_count + kr.y > gmax || run_first + run_count != kr.x)) {
            emit(run_first, run_count);
            run_count = 0;
        }
        if (run_count == 0) run_first = kr.x;
        run_count += kr.y;
    }
    if (run_count > 0) emit(run_first, run_count);
}

/* The tree's cells: those up to the end of its deepest level (a level past the last is empty). */
__device__ __forceinline__ int cells_of(const int2 *__restrict__ levels)
{
    const int2 last = levels[LEVELS];
    return last.x + last.y;
}

/* Groups each cell starts; 0 past the tree's cells (the launch and the scan are sized for the most
 * cells a tree can have). */
__global__ void group_count(const int2 *__restrict__ range, const int2 *__restrict__ kids,
                            const int2 *__restrict__ levels, int size, int gmax, int *__restrict__ ngroups)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= size) return;
    if (c >= cells_of(levels)) {
        ngroups[c] = 0;
        return;
    }
    int count = 0;
    groups_of(c, range, kids, gmax, [&](int, int) { count++; });
    ngroups[c] = count;
}

__global__ void group_emit(const int2 *__restrict__ range, const int2 *__restrict__ kids,
                           const int2 *__restrict__ levels, int gmax, const int *__restrict__ ngroups,
                           const int *__restrict__ offset, int2 *__restrict__ groups, int *__restrict__ total)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int cells = cells_of(levels);
    if (c >= cells) return;
    if (c == cells - 1) *total = offset[c] + ngroups[c];
    int at = offset[c];
    groups_of(c, range, kids, gmax, [&](int first, int count) { groups[at++] = make_int2(first, count); });
}

/* A level's multipoles, from its bodies (leaves) or its children (already done, one level down):
 * com = (x, y, z, mass); q0 = (Qxx, Qyy, Qzz, Qxy), q1 = (Qxz, Qyz, r_open, T) with the traceless
 * Q = sum m (3 d d - |d|^2 I) and T = sum m |d|^2, d from the centre of mass, and
 * r_open = l max(1/theta, 1) + delta. */
/* REFIT: over the cells of the last build, whose bodies may have moved out of their cubes; each
 * cell's box (ext: low x y z, high x y z) gets its bodies' bounding box (a leaf's from its bodies,
 * a split cell's from its children's), and its opening distance is the improved test's for that
 * box instead of the cube: its longest side / theta + the centre of mass's distance from the box's
 * centre. */
template <bool REFIT>
__global__ void multipoles(const int2 *__restrict__ range, const int2 *__restrict__ kids,
                           const float4 *__restrict__ spos, const unsigned long long *__restrict__ keys,
                           const Root *__restrict__ root, const int2 *__restrict__ levels, int level,
                           float open_factor, float4 *__restrict__ com, float4 *__restrict__ q0,
                           float4 *__restrict__ q1, float *__restrict__ ext)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int2 lv = levels[level];
    if (t >= lv.y) return;
    const int c = lv.x + t;
    const int2 r = range[c], kd = kids[c];
    const Cube cube = cell_cube(*root, keys[r.x], level);
    const float l = cube.side, gx = cube.x, gy = cube.y, gz = cube.z;
    /* Moments about the first body (or child): coincident bodies get their own point as centre of
     * mass, exactly, and far from the origin the sums keep their digits. */
    const bool leaf = kd.x < 0;
    const int start = leaf ? r.x : kd.x, end = leaf ? r.x + r.y : kd.x + kd.y;
    const float4 o = leaf ? spos[start] : com[start];
    float m = 0.0f, sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int j = start; j < end; j++) {
        float4 p = leaf ? spos[j] : com[j];
        m += p.w;
        sx = fmaf(p.w, p.x - o.x, sx);
        sy = fmaf(p.w, p.y - o.y, sy);
        sz = fmaf(p.w, p.z - o.z, sz);
    }
    float cx = gx, cy = gy, cz = gz;
    if (m > 0.0f) {
        cx = o.x + sx / m;
        cy = o.y + sy / m;
        cz = o.z + sz / m;
    }
    float qxx = 0.0f, qyy = 0.0f, qzz = 0.0f, qxy = 0.0f, qxz = 0.0f, qyz = 0.0f, trace = 0.0f;
    for (int j = start; j < end; j++) {
        float4 p = leaf ? spos[j] : com[j];
        float dx = p.x - cx, dy = p.y - cy, dz = p.z - cz;
        float d2 = dx * dx + dy * dy + dz * dz;
        qxx += p.w * (3.0f * dx * dx - d2);
        qyy += p.w * (3.0f * dy * dy - d2);
        qzz += p.w * (3.0f * dz * dz - d2);
        qxy += p.w * 3.0f * dx * dy;
        qxz += p.w * 3.0f * dx * dz;
        qyz += p.w * 3.0f * dy * dz;
        trace = fmaf(p.w, d2, trace);
        if (!leaf) {
            float4 a = q0[j], b = q1[j];
            qxx += a.x;
            qyy += a.y;
            qzz += a.z;
            qxy += a.w;
            qxz += b.x;
            qyz += b.y;
            trace += b.w;
        }
    }
    const float delta = sqrtf((cx - gx) * (cx - gx) + (cy - gy) * (cy - gy) + (cz - gz) * (cz - gz));
    float open = l * open_factor + delta;
    if (REFIT) {
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int j = start; j < end; j++) {
            if (leaf) {
                const float4 p = spos[j];
                lo[0] = fminf(lo[0], p.x), lo[1] = fminf(lo[1], p.y), lo[2] = fminf(lo[2], p.z);
                hi[0] = fmaxf(hi[0], p.x), hi[1] = fmaxf(hi[1], p.y), hi[2] = fmaxf(hi[2], p.z);
            } else {
                const float *e = ext + 6 * (size_t)j;
                for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], e[k]), hi[k] = fmaxf(hi[k], e[3 + k]);
            }
        }
        float *e = ext + 6 * (size_t)c;
        for (int k = 0; k < 3; k++) e[k] = lo[k], e[3 + k] = hi[k];
        const float side = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
        const float bx = 0.5f * (lo[0] + hi[0]), by = 0.5f * (lo[1] + hi[1]), bz = 0.5f * (lo[2] + hi[2]);
        open = side * open_factor + sqrtf((cx - bx) * (cx - bx) + (cy - by) * (cy - by) + (cz - bz) * (cz - bz));
    }
    com[c] = make_float4(cx, cy, cz, m);
    q0[c] = make_float4(qxx, qyy, qzz, qxy);
    q1[c] = make_float4(qxz, qyz, open, trace);
}

/* The direct kernel's softened pair term. */
__device__ __forceinline__ void body_term(float4 p, float px, float py, float pz, float eps2, float &ax, float &ay,
                                          float &az)
{
    float dx = p.x - px, dy = p.y - py, dz = p.z - pz;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    float inv = rsqrt_ftz(r2);
    float s = p.w * inv * inv * inv;
    ax = fmaf(dx, s, ax);
    ay = fmaf(dy, s, ay);
    az = fmaf(dz, s, az);
}

/* A cell's term (tree_geometry.h) from a tile: c = (com, mass), a = (Qxx, Qyy, Qzz, Qxy),
 * b = (Qxz, Qyz, -, T eps2). */
__device__ __forceinline__ void cell_term(float4 c, float4 a, float4 b, float px, float py, float pz, float eps2,
                                          float &ax, float &ay, float &az)
{
    float dx = c.x - px, dy = c.y - py, dz = c.z - pz;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    NbodyAccel s = nbody_cell_term(NbodyAccel{ax, ay, az}, dx, dy, dz, rsqrt_ftz(r2), c.w, a.x, a.y, a.z, a.w, b.x,
                                   b.y, b.w);
    ax = s.x;
    ay = s.y;
    az = s.z;
}

/* Exclusive prefix sum of v over the warp; total gets the sum. */
__device__ __forceinline__ int warp_scan(int v, int lane, int &total)
{
    int x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    total = __shfl_sync(0xffffffffu, x, 31);
    return x - v;
}

struct WalkShared {
    int stack[WALK_WARPS][STACK];
    int cells[WALK_WARPS][CELL_LIST];
    int bodies[WALK_WARPS][BODY_LIST];
    float4 cell_tile[WALK_WARPS][3][32];
    float4 body_tile[WALK_WARPS][32];
};

/* A lane's body, its sums, and the share of each list it sums: a group of m bodies gives each body
 * q lanes, the largest power of two with m q <= 32, and lane sub (0 .. q - 1) of a body sums the
 * terms sub, sub + q, ... of every tile; their partial sums meet at the end in a fixed order. So
 * a small group keeps the warp's lanes busy. */
struct Own {
    float x, y, z;
    float ax, ay, az;
    int sub, shift; /* q = 1 << shift */
};

/* Sums positions[list[0..count)] (list = NULL: positions[0..count)) into the lane's body, a tile
 * of 32 at a time. */
__device__ __forceinline__ void sum_bodies(const float4 *__restrict__ spos, const int *list, int first, int count,
                                           float4 *tile, int lane, float eps2, Own &o)
{
    const int q = 1 << o.shift;
    for (int base = 0; base < count; base += 32) {
        const int j = base + lane;
        if (j < count) tile[lane] = spos[list ? list[j] : first + j];
        __syncwarp();
        const float4 *t = tile + o.sub, *end = tile + min(32, count - base);
#pragma unroll 8
        for (; t < end; t += q) body_term(*t, o.x, o.y, o.z, eps2, o.ax, o.ay, o.az);
        __syncwarp();
    }
}

/* The tile keeps T eps2 in place of r_open, which the sums do not need. */
__device__ __forceinline__ void sum_cells(const float4 *__restrict__ com, const float4 *__restrict__ q0,
                                          const float4 *__restrict__ q1, const int *list, int count,
                                          float4 (*tile)[32], int lane, float eps2, Own &o)
{
    const int q = 1 << o.shift;
    for (int base = 0; base < count; base += 32) {
        const int j = base + lane;
        if (j < count) {
            const int c = list[j];
            const float4 b = q1[c];
            tile[0][lane] = com[c];
            tile[1][lane] = q0[c];
            tile[2][lane] = make_float4(b.x, b.y, 0.0f, b.w * eps2);
        }
        __syncwarp();
        const int m = min(32, count - base);
#pragma unroll 4
        for (int t = o.sub; t < m; t += q) cell_term(tile[0][t], tile[1][t], tile[2][t], o.x, o.y, o.z, eps2, o.ax, o.ay, o.az);
        __syncwarp();
    }
}

/* The error-based opening test (tree_geometry.h): k = alpha / theta_max^3 (0: the geometric test
 * alone), and the scale of r_open for a group without a previous |a| (the fallback angle's). */
struct Opening {
    float k;
    float fallback;
};

/* One group: the bodies first .. first + members - 1. */
__device__ __forceinline__ void walk_group(const float4 *__restrict__ spos, const int *__restrict__ perm, int first, int members, const int2 *__restrict__ range,
                                           const int2 *__restrict__ kids, const float4 *__restrict__ com,
                                           const float4 *__restrict__ q0, const float4 *__restrict__ q1, float eps2,
                                           Opening op, float4 *__restrict__ acc, WalkShared &sh, int warp,
                                           int lane, long long (&sums)[2])
{
    /* Lanes past the group's bodies hold its first body again: in the box, summed, not written. */
    Own own;
    own.shift = 0;
    while (members << (own.shift + 1) <= 32) own.shift++;
    own.sub = lane & ((1 << own.shift) - 1);
    const int slot = lane >> own.shift;
    const float4 p = spos[first + (slot < members ? slot : 0)];
    own.x = p.x;
    own.y = p.y;
    own.z = p.z;
    own.ax = own.ay = own.az = 0.0f;
    /* The error-based test's bound: k times the group's smallest previous |a| (read before this
     * group writes its own), or the geometric test at r_open times op.fallback. */
    float err_bound = 0.0f, open_scale = 1.0f;
    if (op.k > 0.0f) {
        const float4 prev = acc[perm[first + (slot < members ? slot : 0)]];
        float amin = sqrtf(prev.x * prev.x + prev.y * prev.y + prev.z * prev.z);
        if (!(amin < INFINITY)) amin = 0.0f; /* NaN or infinite: no previous |a| */
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) amin = fminf(amin, __shfl_xor_sync(0xffffffffu, amin, o));
        if (amin > 0.0f)
            err_bound = op.k * amin;
        else
            open_scale = op.fallback;
    }
    float lo[3] = {p.x, p.y, p.z}, hi[3] = {p.x, p.y, p.z};
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
#pragma unroll
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], o));
            hi[k] = fmaxf(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], o));
        }
    const float bx = 0.5f * (lo[0] + hi[0]), by = 0.5f * (lo[1] + hi[1]), bz = 0.5f * (lo[2] + hi[2]);
    const float hx = 0.5f * (hi[0] - lo[0]), hy = 0.5f * (hi[1] - lo[1]), hz = 0.5f * (hi[2] - lo[2]);

    int *stack = sh.stack[warp], *cells = sh.cells[warp], *bodies = sh.bodies[warp];
    long long cell_terms = 0, body_terms = 0;
    int depth = 1, ncells = 0, nbodies = 0;
    if (lane == 0) stack[0] = 0;
    __syncwarp();
    while (depth > 0) {
        const int take = depth > STACK_CALM ? 1 : min(32, depth);
        int c = -1;
        if (lane < take) c = stack[depth - take + lane];
        __syncwarp();
        depth -= take;
        bool accept = false, big = false;
        int push = 0, child = 0, leaf_bodies = 0;
        int2 r = make_int2(0, 0);
        if (c >= 0) {
            const float4 cm = com[c];
            const float open = q1[c].z;
            const float dx = fmaxf(fabsf(cm.x - bx) - hx, 0.0f);
            const float dy = fmaxf(fabsf(cm.y - by) - hy, 0.0f);
            const float dz = fmaxf(fabsf(cm.z - bz) - hz, 0.0f);
            /* Distances, not their squares (a tiny cube's would underflow to 0), and a tie opens:
             * where l is below the coordinates' rounding, r_open rounds to delta, which a cell
             * holding the group's own bodies can equal. */
            const float dist = sqrtf(dx * dx + dy * dy + dz * dz);
            if (!(dist <= open * open_scale) && nbody_rel_accepts(cm.w, open, dist, err_bound)) {
                accept = true;
            } else {
                const int2 kd = kids[c];
                r = range[c];
                if (kd.x >= 0) {
                    child = kd.x;
                    push = kd.y;
                } else if (r.y <= LEAF) {
                    leaf_bodies = r.y;
                } else {
                    big = true;
                }
            }
        }
        const unsigned accepted = __ballot_sync(0xffffffffu, accept);
        if (accept) cells[ncells + __popc(accepted & ((1u << lane) - 1u))] = c;
        ncells += __popc(accepted);
        int total;
        int at = warp_scan(push, lane, total);
        for (int k = 0; k < push; k++) stack[depth + at + k] = child + k;
        depth += total;
        at = warp_scan(leaf_bodies, lane, total);
        for (int k = 0; k < leaf_bodies; k++) bodies[nbodies + at + k] = r.x + k;
        nbodies += total;
        __syncwarp();
        /* Leaves of the deepest level can hold any number of bodies: summed at once, in lane order. */
        for (unsigned m = __ballot_sync(0xffffffffu, big); m; m &= m - 1) {
            const int src = __ffs(m) - 1;
            const int b = __shfl_sync(0xffffffffu, r.x, src), cnt = __shfl_sync(0xffffffffu, r.y, src);
            sum_bodies(spos, nullptr, b, cnt, sh.body_tile[warp], lane, eps2, own);
            body_terms += cnt;
        }
        if (ncells >= 32) {
            sum_cells(com, q0, q1, cells, ncells, sh.cell_tile[warp], lane, eps2, own);
            cell_terms += ncells;
            ncells = 0;
        }
        if (nbodies >= 32) {
            sum_bodies(spos, bodies, 0, nbodies, sh.body_tile[warp], lane, eps2, own);
            body_terms += nbodies;
            nbodies = 0;
        }
    }
    sum_cells(com, q0, q1, cells, ncells, sh.cell_tile[warp], lane, eps2, own);
    sum_bodies(spos, bodies, 0, nbodies, sh.body_tile[warp], lane, eps2, own);
    cell_terms += ncells;
    body_terms += nbodies;
    for (int o = 1; o < 1 << own.shift; o <<= 1) {
        own.ax += __shfl_xor_sync(0xffffffffu, own.ax, o);
        own.ay += __shfl_xor_sync(0xffffffffu, own.ay, o);
        own.az += __shfl_xor_sync(0xffffffffu, own.az, o);
    }
    if (own.sub == 0 && slot < members) acc[perm[first + slot]] = make_float4(own.ax, own.ay, own.az, 0.0f);
    sums[0] += body_terms * members;
    sums[1] += cell_terms * members;
    __syncwarp();
}

/* Each warp takes groups in turn from a counter until none is left (a warp's time then follows
 * the work it draws, not a fixed share); acc written in the caller's order. */
__global__ void __launch_bounds__(32 * WALK_WARPS)
    walk(const float4 *__restrict__ spos, const int *__restrict__ perm, const int2 *__restrict__ groups,
         const int *__restrict__ ngroups, int *__restrict__ next_group, const int2 *__restrict__ range,
         const int2 *__restrict__ kids, const float4 *__restrict__ com, const float4 *__restrict__ q0,
         const float4 *__restrict__ q1, float eps2, Opening op, float4 *__restrict__ acc,
         unsigned long long *__restrict__ counts)
{
    __shared__ WalkShared sh;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int total_groups = *ngroups;
    long long sums[2] = {0, 0};
    for (;;) {
        int g = 0;
        /* System scope: with nbody_tree_share_walk the counter is shared with other devices. */
        if (lane == 0) g = atomicAdd_system(next_group, 1);
        g = __shfl_sync(0xffffffffu, g, 0);
        if (g >= total_groups) break;
        const int2 grp = groups[g];
        walk_group(spos, perm, grp.x, grp.y, range, kids, com, q0, q1, eps2, op, acc, sh, warp, lane, sums);
    }
    if (lane == 0)
        for (int k = 0; k < 2; k++) atomicAdd(&counts[k], (unsigned long long)sums[k]);
}

int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }

long long max_cells(int n) { return (long long)n + (long long)LEVELS * (n / (LEAF + 1)) + 1; }

/* One allocation, carved into the arrays below: sizes in a fixed order, each 256-byte aligned. */
struct Layout {
    size_t keys, index, spos, box, root, range, kids, com, q0, q1, nkids, offset, groups, count, counts, temp;
    size_t levels, ext;
    size_t total;
};

size_t align_up(size_t b) { return (b + 255) / 256 * 256; }

cudaError_t layout_for(int n, Layout *l)
{
    const size_t cells = (size_t)max_cells(n);
    size_t sort_bytes = 0, scan_bytes = 0;
    cub::DoubleBuffer<unsigned long long> kb(nullptr, nullptr);
    cub::DoubleBuffer<int> vb(nullptr, nullptr);
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kb, vb, n, 0, KEY_BITS)) ||
        !CUDA_CHECK(&st, cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (int *)nullptr, (int *)nullptr, (int)cells)))
        return st.error;
    l->keys = align_up(2 * (size_t)n * sizeof(unsigned long long));
    l->index = align_up(2 * (size_t)n * sizeof(int));
    l->spos = align_up((size_t)n * sizeof(float4));
    l->box = align_up(6 * BOX_BLOCKS * sizeof(float));
    l->root = align_up(sizeof(Root));
    l->range = align_up(cells * sizeof(int2));
    l->kids = align_up(cells * sizeof(int2));
    l->com = l->q0 = l->q1 = align_up(cells * sizeof(float4));
    l->nkids = l->offset = align_up(cells * sizeof(int)); /* per cell of a level, or of the tree */
    l->groups = align_up((size_t)n * sizeof(int2));     /* at most one a body */
    l->count = align_up(3 * sizeof(int)); /* next level's cells, groups, groups taken */
    l->counts = align_up(2 * sizeof(unsigned long long));
    l->levels = align_up((LEVELS + 2) * sizeof(int2));
    l->ext = align_up(6 * cells * sizeof(float)); /* the refit's box of each cell */
    l->temp = align_up(sort_bytes > scan_bytes ? sort_bytes : scan_bytes);
    l->total = l->keys + l->index + l->spos + l->box + l->root + l->range + l->kids + l->com + l->q0 + l->q1 +
               l->nkids + l->offset + l->groups + l->count + l->counts + l->temp + l->levels + l->ext;
    return cudaSuccess;
}

constexpr int EVENTS = 5;

/* What a force call's launches depend on: with the same, a captured call is replayed. */
struct GraphArgs {
    const float4 *pos;
    float4 *acc;
    int n;
    float eps2, theta, alpha;
    bool refit;
    cudaStream_t stream;
    int *shared_next; /* nbody_tree_share_walk's counter, or NULL */
};

bool same_args(const GraphArgs &a, const GraphArgs &b)
{
    return a.pos == b.pos && a.acc == b.acc && a.n == b.n && a.eps2 == b.eps2 && a.theta == b.theta &&
           a.alpha == b.alpha && a.refit == b.refit && a.shared_next == b.shared_next &&
           a.stream == b.stream;
}

} // namespace

struct NbodyTree {
    int max_n;
    long long max_cells;
    void *memory;
    unsigned long long *keys[2];
    int *index[2];
    float4 *spos;
    float *box;
    Root *root;
    int2 *range, *kids;
    float4 *com, *q0, *q1;
    int *nkids, *offset, *count;
    int2 *groups;
    int walk_blocks; /* blocks of the walk that fit on the device at once */
    unsigned long long *counts;
    void *temp;
    size_t temp_bytes;
    int2 *levels;      /* each level's first cell and count, on the device */
    float *ext;        /* the refit's box of each cell: low x y z, high x y z */
    /* Refit: every rebuild_every-th call rebuilds the tree, the calls between recompute the
     * multipoles over its cells (the same bodies at new places: n and pos as at the build, perm
     * the build's order); since_build counts them, built says a build is there to refit. */
    int rebuild_every, since_build, built_n;
    const float4 *built_pos;
    const int *perm;
    bool built;
    int2 *host_levels; /* pinned: the last call's, copied back within it */
    /* start, levels built, multipoles, groups, walk */
    cudaEvent_t events[EVENTS];
    /* the last call */
    int n;
    bool timed;
    /* The last call's launch size for each level, and its sorted keys for nbody_tree_boxes (which
     * reads the levels from host_levels); the boxes' device buffer, allocated on first use. */
    int level_size[LEVELS + 2];
    const unsigned long long *sorted_keys;
    NbodyTreeBox *boxes;
    int boxes_cap;
    /* The call's launches as a CUDA graph, replayed while its arguments stay those it was captured
     * with (a step's ~130 small launches become one): graph_args are the captured call's,
     * last_args the call before's (a call is captured when it repeats the one before it, so
     * arguments that change every call are never captured); graph_off after a capture failed. */
    cudaGraphExec_t graph;
    GraphArgs graph_args, last_args;
    bool graph_off;
    /* nbody_tree_share_walk: the counter the walk draws its groups from, shared with the trees of
     * other GPUs and zeroed by the caller; NULL: the tree's own (count + 2), zeroed by each call. */
    int *shared_next;
};

namespace {

size_t tree_bytes(int n)
{
    Layout l = {};
    if (n < 1 || layout_for(n, &l) != cudaSuccess) return 0;
    return l.total;
}

int tree_max_n(size_t bytes)
{
    int lo = 0, hi = 1 << 28; /* the cell count stays an int */
    if (tree_bytes(hi) <= bytes) return hi;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        size_t b = tree_bytes(mid);
        if (b > 0 && b <= bytes)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

} // namespace

extern "C" size_t nbody_tree_bytes(int n) { return tree_bytes(n); }
extern "C" int nbody_tree_max_n(size_t bytes) { return tree_max_n(bytes); }

extern "C" void nbody_tree_destroy(NbodyTree *t)
{
    if (!t) return;
    cudaFree(t->memory);
    cudaFree(t->boxes);
    cudaFreeHost(t->host_levels);
    if (t->graph) cudaGraphExecDestroy(t->graph);
    for (int k = 0; k < EVENTS; k++)
        if (t->events[k]) cudaEventDestroy(t->events[k]);
    free(t);
}

namespace {

NbodyTree *tree_create(int max_n, char *err, size_t errlen)
{
    const char *what = "tree";
    if (max_n < 1 || max_n > (1 << 28)) {
        snprintf(err, errlen, "%s: %d bodies: a tree holds 1 to %d", what, max_n, 1 << 28);
        return NULL;
    }
    NbodyTree *t = (NbodyTree *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "%s: out of host memory", what);
        return NULL;
    }
    CudaStatus st = {};
    Layout l = {};
    bool ok = CUDA_CHECK(&st, layout_for(max_n, &l)) && CUDA_CHECK(&st, cudaMalloc(&t->memory, l.total)) &&
              CUDA_CHECK(&st, cudaMallocHost((void **)&t->host_levels, (LEVELS + 2) * sizeof(int2)));
    for (int k = 0; ok && k < EVENTS; k++) ok = CUDA_CHECK(&st, cudaEventCreate(&t->events[k]));
    if (!ok) {
        snprintf(err, errlen, "%s for %d bodies (%.1f MiB): %s", what, max_n, l.total / 1048576.0, st.message);
        nbody_tree_destroy(t);
        return NULL;
    }
    char *at = (char *)t->memory;
    t->keys[0] = (unsigned long long *)at;
    t->keys[1] = t->keys[0] + max_n;
    at += l.keys;
    t->index[0] = (int *)at;
    t->index[1] = t->index[0] + max_n;
    at += l.index;
    t->spos = (float4 *)at;
    at += l.spos;
    t->box = (float *)at;
    at += l.box;
    t->root = (Root *)at;
    at += l.root;
    t->range = (int2 *)at;
    at += l.range;
    t->kids = (int2 *)at;
    at += l.kids;
    t->com = (float4 *)at;
    at += l.com;
    t->q0 = (float4 *)at;
    at += l.q0;
    t->q1 = (float4 *)at;
    at += l.q1;
    t->nkids = (int *)at;
    at += l.nkids;
    t->offset = (int *)at;
    at += l.offset;
    t->groups = (int2 *)at;
    at += l.groups;
    t->count = (int *)at;
    at += l.count;
    t->counts = (unsigned long long *)at;
    at += l.counts;
    t->levels = (int2 *)at;
    at += l.levels;
    t->ext = (float *)at;
    at += l.ext;
    t->temp = at;
    t->temp_bytes = l.temp;
    t->max_n = max_n;
    t->max_cells = max_cells(max_n);
    int device = 0, sms = 0, per_sm = 0;
    if (!CUDA_CHECK(&st, cudaGetDevice(&device)) ||
        !CUDA_CHECK(&st, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) ||
        !CUDA_CHECK(&st, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk,
                                                                        32 * WALK_WARPS, 0))) {
        snprintf(err, errlen, "%s: %s", what, st.message);
        nbody_tree_destroy(t);
        return NULL;
    }
    t->walk_blocks = sms * (per_sm > 0 ? per_sm : 1);
    t->rebuild_every = 1;
    /* STARBURST_NO_GRAPHS=1: every call launches its kernels (to time the graphs against). */
    const char *no_graphs = getenv("STARBURST_NO_GRAPHS");
    t->graph_off = no_graphs && *no_graphs && strcmp(no_graphs, "0") != 0;
    return t;
}

} // namespace

extern "C" NbodyTree *nbody_tree_create(int max_n, char *err, size_t errlen)
{
    return tree_create(max_n, err, errlen);
}

namespace {

/* Records phase event k; while capturing as a node of the graph (the flag is for captures only),
 * so that a replay records it too. */
bool mark(NbodyTree *t, int k, cudaStream_t stream, bool capturing, CudaStatus *st)
{
    return CUDA_CHECK(st, cudaEventRecordWithFlags(t->events[k], stream,
                                                   capturing ? cudaEventRecordExternal : cudaEventRecordDefault));
}

/* The launches of a force call, on stream (eps2 already bounded below); capturing: into a graph. */
cudaError_t tree_enqueue(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float alpha, bool refit, float4 *acc, cudaStream_t stream, bool capturing)
{
    CudaStatus st = {};
    if (!mark(t, 0, stream, capturing, &st)) return st.error;
    const float open_factor = theta < 1.0f ? 1.0f / theta : 1.0f; /* theta 0: infinity, every cell opens */
    const int gmax = n < SMALL_GROUPS_BELOW ? SMALL_GROUP : GROUP;
    /* alpha > 0: theta is the widest angle (tree_geometry.h's error-based test). */
    const Opening op = {nbody_rel_k(alpha, theta), nbody_rel_fallback(theta)};
    int *ngroups = t->count + 1, *next_group = t->shared_next ? t->shared_next : t->count + 2;
    /* A shared counter is zeroed by the caller, before any of the trees sharing it walks. */
    const size_t next_bytes = t->shared_next ? 0 : sizeof(int);
    if (refit) {
        /* The last build's cells, order and groups; the bodies where they are now. */
        gather<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(pos, t->perm, n, t->spos);
        if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 1, stream, capturing, &st)) return st.error;
        for (int level = LEVELS; level >= 0; level--)
            multipoles<true><<<blocks_for(t->level_size[level], THREADS), THREADS, 0, stream>>>(
                t->range, t->kids, t->spos, t->sorted_keys, t->root, t->levels, level, open_factor, t->com, t->q0,
                t->q1, t->ext);
        if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 2, stream, capturing, &st) ||
            !mark(t, 3, stream, capturing, &st) ||
            !CUDA_CHECK(&st, cudaMemsetAsync(t->counts, 0, 2 * sizeof(unsigned long long), stream)) ||
            (next_bytes && !CUDA_CHECK(&st, cudaMemsetAsync(next_group, 0, next_bytes, stream))))
            return st.error;
        walk<<<t->walk_blocks, 32 * WALK_WARPS, 0, stream>>>(t->spos, t->perm, t->groups, ngroups, next_group, t->range,
                                                             t->kids, t->com, t->q0, t->q1, eps2, op, acc, t->counts);
        if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 4, stream, capturing, &st)) return st.error;
        return cudaSuccess;
    }
    const int boxes = min(BOX_BLOCKS, blocks_for(n, THREADS));
    box_partial<<<boxes, THREADS, 0, stream>>>(pos, n, t->box);
    box_final<<<1, 32, 0, stream>>>(t->box, boxes, n, t->root, t->range, t->kids, t->levels);
    morton_keys<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(pos, n, t->root, t->keys[0], t->index[0]);
    if (!CUDA_CHECK(&st, cudaGetLastError())) return st.error;
    cub::DoubleBuffer<unsigned long long> kb(t->keys[0], t->keys[1]);
    cub::DoubleBuffer<int> vb(t->index[0], t->index[1]);
    size_t temp = t->temp_bytes;
    if (!CUDA_CHECK(&st, cub::DeviceRadixSort::SortPairs(t->temp, temp, kb, vb, n, 0, KEY_BITS, stream)))
        return st.error;
    const unsigned long long *keys = kb.Current();
    const int *perm = vb.Current();
    gather<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(pos, perm, n, t->spos);
    if (!CUDA_CHECK(&st, cudaGetLastError())) return st.error;

    /* The tree, level by level, with no wait on the host: each level's launches and scan are sized
     * for the most cells it can hold (see Memory, top), and read its place from t->levels. */
    long long size = 1;
    for (int level = 0; level < LEVELS; level++) {
        const int count = (int)size;
        split_count<<<blocks_for(count, THREADS), THREADS, 0, stream>>>(t->range, keys, t->levels, level, count,
                                                                        t->nkids);
        temp = t->temp_bytes;
        if (!CUDA_CHECK(&st, cudaGetLastError()) ||
            !CUDA_CHECK(&st, cub::DeviceScan::ExclusiveSum(t->temp, temp, t->nkids, t->offset, count, stream)))
            return st.error;
        split_emit<<<blocks_for(count, THREADS), THREADS, 0, stream>>>(t->range, t->kids, keys, t->levels, level,
                                                                       t->nkids, t->offset, (int)t->max_cells);
        if (!CUDA_CHECK(&st, cudaGetLastError())) return st.error;
        t->level_size[level] = count;
        /* Split cells are disjoint runs of more than LEAF bodies, each with at most 8 children. */
        size = 8 * std::min(size, (long long)(n / (LEAF + 1)));
        size = std::max(1LL, std::min(size, (long long)n));
    }
    t->level_size[LEVELS] = (int)size;
    if (!CUDA_CHECK(&st, cudaMemcpyAsync(t->host_levels, t->levels, (LEVELS + 2) * sizeof(int2),
                                         cudaMemcpyDeviceToHost, stream)))
        return st.error;
    if (!mark(t, 1, stream, capturing, &st)) return st.error;
    for (int level = LEVELS; level >= 0; level--)
        multipoles<false><<<blocks_for(t->level_size[level], THREADS), THREADS, 0, stream>>>(
            t->range, t->kids, t->spos, keys, t->root, t->levels, level, open_factor, t->com, t->q0, t->q1,
            nullptr);
    if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 2, stream, capturing, &st)) return st.error;
    /* The walk's groups, numbered over every cell of the tree. */
    long long most = 0; /* the most cells this tree can have */
    for (int level = 0; level <= LEVELS; level++) most += t->level_size[level];
    const int cells = (int)std::min(most, t->max_cells);
    group_count<<<blocks_for(cells, THREADS), THREADS, 0, stream>>>(t->range, t->kids, t->levels, cells, gmax,
                                                                    t->nkids);
    temp = t->temp_bytes;
    if (!CUDA_CHECK(&st, cudaGetLastError()) ||
        !CUDA_CHECK(&st, cub::DeviceScan::ExclusiveSum(t->temp, temp, t->nkids, t->offset, cells, stream)))
        return st.error;
    group_emit<<<blocks_for(cells, THREADS), THREADS, 0, stream>>>(t->range, t->kids, t->levels, gmax, t->nkids,
                                                                   t->offset, t->groups, ngroups);
    if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 3, stream, capturing, &st) ||
        !CUDA_CHECK(&st, cudaMemsetAsync(t->counts, 0, 2 * sizeof(unsigned long long), stream)) ||
        (next_bytes && !CUDA_CHECK(&st, cudaMemsetAsync(next_group, 0, next_bytes, stream))))
        return st.error;
    walk<<<t->walk_blocks, 32 * WALK_WARPS, 0, stream>>>(t->spos, perm, t->groups, ngroups, next_group, t->range,
                                                         t->kids, t->com, t->q0, t->q1, eps2, op, acc, t->counts);
    if (!CUDA_CHECK(&st, cudaGetLastError()) || !mark(t, 4, stream, capturing, &st)) return st.error;
    t->sorted_keys = keys;
    t->perm = perm;
    return cudaSuccess;
}

/* Captures the call's launches into t->graph; false (and graphs off for good) where the stream or
 * the driver cannot. */
bool capture(NbodyTree *t, const GraphArgs &a)
{
    if (t->graph) cudaGraphExecDestroy(t->graph);
    t->graph = nullptr;
    cudaGraph_t g = nullptr;
    if (cudaStreamBeginCapture(a.stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        t->graph_off = true;
        return false;
    }
    const cudaError_t e =
        tree_enqueue(t, a.pos, a.n, a.eps2, a.theta, a.alpha, a.refit, a.acc, a.stream, true);
    const cudaError_t end = cudaStreamEndCapture(a.stream, &g);
    if (e == cudaSuccess && end == cudaSuccess && cudaGraphInstantiate(&t->graph, g, 0) == cudaSuccess) {
        t->graph_args = a;
    } else {
        t->graph = nullptr;
        t->graph_off = true;
        cudaGetLastError(); /* the capture's error is not the call's: it runs without a graph */
    }
    if (g) cudaGraphDestroy(g);
    return t->graph != nullptr;
}

/* The tree's force call. On a stream of
 * its own a call that repeats the one before is captured as a graph and replayed from then on;
 * on the legacy stream (0), which cannot be captured, each call launches its kernels. */
cudaError_t tree_forces(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float alpha, float4 *acc,
                        cudaStream_t stream)
{
    if (!t || n < 0 || n > t->max_n || !(theta >= 0.0f) || !(alpha >= 0.0f))
        return cudaErrorInvalidValue;
    t->n = n;
    t->timed = false;
    if (n == 0) return cudaSuccess;
    if (!(eps2 >= NBODY_MIN_EPS2)) eps2 = NBODY_MIN_EPS2;
    /* A refit only where the last build holds these bodies, and the build not rebuild_every old. */
    const bool refit = t->rebuild_every > 1 && t->built && n == t->built_n && pos == t->built_pos &&
                       t->since_build < t->rebuild_every;
    const GraphArgs a = {pos, acc, n, eps2, theta, alpha, refit, stream, t->shared_next};
    const bool repeat = same_args(a, t->last_args);
    t->last_args = a;
    cudaError_t e = cudaSuccess;
    bool launched = false;
    if (stream && !t->graph_off) {
        const bool captured = t->graph && same_args(a, t->graph_args);
        if (captured || (repeat && capture(t, a))) {
            e = cudaGraphLaunch(t->graph, stream);
            launched = true;
        }
    }
    if (!launched) e = tree_enqueue(t, pos, n, eps2, theta, alpha, refit, acc, stream, false);
    t->timed = e == cudaSuccess;
    /* The build's state: what a later call may refit (a failed call leaves none). */
    t->built = e == cudaSuccess;
    if (!refit) {
        t->built_n = n;
        t->built_pos = pos;
        t->since_build = 0;
    }
    t->since_build++;
    return e;
}

} // namespace

extern "C" cudaError_t nbody_tree_forces(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float4 *acc,
                                         cudaStream_t stream)
{
    return tree_forces(t, pos, n, eps2, theta, 0.0f, acc, stream);
}

extern "C" void nbody_tree_share_walk(NbodyTree *t, int *next)
{
    if (t) t->shared_next = next;
}

extern "C" void nbody_tree_set_rebuild(NbodyTree *t, int every)
{
    if (!t) return;
    t->rebuild_every = every > 1 ? every : 1;
    t->built = false; /* the next call builds */
}

extern "C" cudaError_t nbody_tree_forces_rel(NbodyTree *t, const float4 *pos, int n, float eps2, float theta_max,
                                             float alpha, float4 *acc, cudaStream_t stream)
{
    return tree_forces(t, pos, n, eps2, theta_max, alpha, acc, stream);
}

namespace {

/* The last call's cell count and deepest level, from its levels as copied back within the call (the
 * caller has waited for it). */
void tree_shape(const NbodyTree *t, int *cells, int *depth)
{
    const int2 *lv = t->host_levels;
    *cells = lv[LEVELS].x + lv[LEVELS].y;
    *depth = 0;
    for (int level = 1; level <= LEVELS; level++)
        if (lv[level].y > 0) *depth = level;
}

} // namespace

extern "C" void nbody_tree_stats(const NbodyTree *t, NbodyTreeStats *out)
{
    *out = NbodyTreeStats{};
    if (!t) return;
    out->n = t->n;
    if (!t->timed) return;
    unsigned long long counts[2] = {0, 0};
    float ms[EVENTS - 1] = {0.0f}; /* between consecutive events */
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, cudaEventSynchronize(t->events[EVENTS - 1])) ||
        !CUDA_CHECK(&st, cudaMemcpy(counts, t->counts, sizeof counts, cudaMemcpyDeviceToHost)))
        return;
    tree_shape(t, &out->cells, &out->depth);
    for (int k = 0; k < EVENTS - 1; k++)
        if (!CUDA_CHECK(&st, cudaEventElapsedTime(&ms[k], t->events[k], t->events[k + 1]))) return;
    out->body_body = (double)counts[0] / t->n;
    out->body_cell = (double)counts[1] / t->n;
    /* The build counts its multipoles in. */
    out->build_ms = ms[0] + ms[1] + ms[2];
    out->walk_ms = ms[3];
}

/* The cells as boxes, for a picture of the tree. */
namespace {

/* A level's cells: the cube of each, placed as multipoles() places it (from its first body's key),
 * its level and its bodies. */
__global__ void cell_boxes(const int2 *__restrict__ range, const unsigned long long *__restrict__ keys,
                           const Root *__restrict__ root, int first, int count, int level, NbodyTreeBox *__restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const int2 r = range[first + t];
    const Cube cube = cell_cube(*root, keys[r.x], level);
    NbodyTreeBox b;
    b.x = cube.x;
    b.y = cube.y;
    b.z = cube.z;
    b.half = 0.5f * cube.side;
    b.level = level;
    b.bodies = r.y;
    out[first + t] = b;
}

} // namespace

extern "C" cudaError_t nbody_tree_boxes(NbodyTree *t, int max_level, NbodyTreeBox *out, int cap, int *total,
                                        int *depth, cudaStream_t stream)
{
    *total = *depth = 0;
    if (!t || cap < 0 || (cap > 0 && !out)) return cudaErrorInvalidValue;
    if (!t->timed || max_level < 0) return cudaSuccess;
    CudaStatus st = {};
    if (!CUDA_CHECK(&st, cudaEventSynchronize(t->events[EVENTS - 1]))) return st.error;
    int cells = 0, deepest = 0;
    tree_shape(t, &cells, &deepest);
    const int2 *lv = t->host_levels;
    const int last = max_level < deepest ? max_level : deepest;
    *total = lv[last].x + lv[last].y;
    *depth = deepest;
    const int count = *total < cap ? *total : cap;
    if (count == 0) return cudaSuccess;
    if (count > t->boxes_cap) {
        cudaFree(t->boxes);
        t->boxes = NULL;
        t->boxes_cap = 0;
        if (!CUDA_CHECK(&st, cudaMalloc((void **)&t->boxes, (size_t)count * sizeof(NbodyTreeBox)))) return st.error;
        t->boxes_cap = count;
    }
    for (int level = 0; level <= last && lv[level].x < count; level++) {
        const int first = lv[level].x, size = min(lv[level].y, count - first);
        cell_boxes<<<blocks_for(size, THREADS), THREADS, 0, stream>>>(t->range, t->sorted_keys, t->root, first, size,
                                                                      level, t->boxes);
    }
    if (!CUDA_CHECK(&st, cudaGetLastError()) ||
        !CUDA_CHECK(&st, cudaMemcpyAsync(out, t->boxes, (size_t)count * sizeof(NbodyTreeBox), cudaMemcpyDeviceToHost,
                                         stream)) ||
        !CUDA_CHECK(&st, cudaStreamSynchronize(stream)))
        return st.error;
    return cudaSuccess;
}
