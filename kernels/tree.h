/* The GPU tree code (Barnes-Hut with quadrupoles, kernels/nbody_tree.cu) behind a small C API.
 *
 * A call of nbody_tree_forces takes n positions (float4: x, y, z, mass) in the caller's order and
 * writes n accelerations (ax, ay, az, 0) in that same order, G = 1, Plummer softening eps2. It
 * sorts a copy of the positions by Morton key inside the tree's own memory, builds the tree from
 * that copy, walks it, and scatters the results back to the caller's order; the caller's
 * positions are only read. All device memory is allocated by nbody_tree_create for max_n bodies;
 * a call allocates nothing.
 *
 * theta: the opening angle. A cell of side l whose centre of mass lies delta from its geometric
 * centre is opened for a group of bodies when the group's box comes nearer its centre of mass than
 * l / theta + delta; theta above 1 counts as 1 (so a cell that holds a body of the group is always
 * opened), theta 0 opens every cell (a direct sum).
 *
 * Same input, same output, bit for bit. A call is ordered on the stream it is given and does not
 * wait on the host: each level of the build is launched for the most cells it can hold and reads
 * its own count on the device. nbody_tree_stats and nbody_tree_boxes wait for the last call. */
#ifndef STARBURST_TREE_H
#define STARBURST_TREE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "tree_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NBODY_TREE_GROUP 32 /* at most this many bodies share one walk (a warp) */

typedef struct NbodyTree NbodyTree;

/* The device memory a tree for n bodies takes, in bytes: everything nbody_tree_create allocates
 * for max_n = n. Asks the current device for the sort's scratch size. */
size_t nbody_tree_bytes(int n);
/* The largest n with nbody_tree_bytes(n) <= bytes (0 when none fits). */
int nbody_tree_max_n(size_t bytes);

/* A tree for up to max_n bodies on the current device, or NULL with one line in err. */
NbodyTree *nbody_tree_create(int max_n, char *err, size_t errlen);
void nbody_tree_destroy(NbodyTree *t);

/* acc = forces(pos) for n <= max_n bodies (n = 0 does nothing). pos and acc are device arrays
 * of n float4 that must not overlap. eps2 below NBODY_MIN_EPS2 (kernels.h) is raised to it.
 * Returns the first CUDA error, or cudaErrorInvalidValue for n out of range. */
cudaError_t nbody_tree_forces(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float4 *acc,
                              cudaStream_t stream);

/* The same with the error-based opening test (tree_geometry.h) at theta_max and alpha: |a|min is
 * the smallest of the group's bodies in acc as it holds on entry (the previous call's
 * accelerations, read before they are replaced). alpha 0: nbody_tree_forces at theta_max. */
cudaError_t nbody_tree_forces_rel(NbodyTree *t, const float4 *pos, int n, float eps2, float theta_max, float alpha,
                                  float4 *acc, cudaStream_t stream);

/* Refit: from now on every `every`-th call rebuilds the tree (box, keys, sort, cells, groups) and
 * the calls between refit it: the multipoles recomputed over the last build's cells for the
 * bodies where they are now, each cell's opening distance taken from its bodies' bounding box
 * instead of its cube. Only the tree's calls refit (the fmm rebuilds), and only for the
 * same n and pos as the build. every <= 1: every call rebuilds (the default). The next call
 * rebuilds in any case: call it again where the bodies are replaced. */
void nbody_tree_set_rebuild(NbodyTree *t, int every);

/* One walk shared by several trees (docs/MULTI_GPU.md): from the next call on, the walk draws its
 * groups from *next, device memory that may be another device's reached by peer access (native
 * atomics), instead of a counter of its own. Trees built alike from the same bodies on several
 * devices, sharing one counter and writing into one acc, then walk each group once between them,
 * whichever device draws it: acc gets one tree's bits. The caller zeroes *next before any of them
 * walks (on every call) and waits for all before reading acc; each tree's counts (stats) are its
 * own groups'. NULL: the tree's own counter again. */
void nbody_tree_share_walk(NbodyTree *t, int *next);

/* The last call's tree and counts. Waits for that call to finish. */
void nbody_tree_stats(const NbodyTree *t, NbodyTreeStats *out);

/* The cells of levels 0 .. max_level of the last call's tree, the root first, then level by level:
 * the first cap of them into out (host memory); *total gets how many there are in all, *depth the
 * tree's deepest level (both 0 when no call has succeeded). Ordered after the last call on
 * stream, and waits for its copy. Takes a device buffer for cap cells on first use (kept, grown
 * when a larger cap asks). Returns the first CUDA error. */
cudaError_t nbody_tree_boxes(NbodyTree *t, int max_level, NbodyTreeBox *out, int cap, int *total, int *depth,
                             cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
