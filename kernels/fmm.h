/* The GPU fast multipole method (kernels/nbody_tree.cu) behind a small C API: the tree code's
 * build and group walk (tree.h), with group-local expansions (fmm_expansion.h) for the cells far
 * from a whole group.
 *
 * A call builds the tree as nbody_tree_forces does, with each cell's radius about its centre of
 * mass; the upward pass gives each cell its mass, centre of mass, traceless quadrupole and trace.
 * Then each warp walks the tree for a group of up to NBODY_TREE_GROUP bodies (centre c_g, the
 * centre of its box; radius r_g, its farthest body from c_g). A cell C is
 *   far   when fmm_far(rho_C, r_g, |com_C - c_g|^2, theta_fmm): its multipoles go into the group's
 *         local expansion about c_g, once for the whole group (the lanes take one far cell each and
 *         keep their own partial expansion; the partial expansions meet in a fixed butterfly);
 *   near  when the tree's test accepts it (tree.h): a cell-body term for each body, as the tree;
 *   else  opened; the bodies of opened leaves give body-body terms, as the tree.
 * The downward pass adds each group's local expansion, evaluated at each body's offset from c_g.
 *
 * One number, theta, sets the accuracy: the tree's opening angle for the near cells, and
 * theta_fmm = fmm_theta(theta) (fmm_expansion.h, shared with the CPU) for the far test (below 256K
 * bodies, where a group holds at most 16 bodies, 0.7 times that: nbody_tree.cu says why). Same
 * input, same output, bit for bit; a call does not wait on the host, as for the tree.
 * nbody_tree_stats reports the last call, with the upward and downward passes and the far terms
 * (body_group: the far cells each body received through its group's expansion, per body). */
#ifndef STARBURST_FMM_H
#define STARBURST_FMM_H

#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device memory an FMM for n bodies takes (a tree's, the cells' radii and a local expansion
 * for each group), and the largest n that fits in bytes. */
size_t nbody_fmm_bytes(int n);
int nbody_fmm_max_n(size_t bytes);

/* A tree with the FMM's memory for up to max_n bodies, or NULL with one line in err. It runs
 * nbody_fmm_forces and nbody_tree_forces both; nbody_tree_destroy frees it, nbody_tree_stats and
 * nbody_tree_boxes read it. */
NbodyTree *nbody_fmm_create(int max_n, char *err, size_t errlen);

/* acc = forces(pos) for n <= max_n bodies by the FMM, as nbody_tree_forces says of the tree.
 * cudaErrorInvalidValue for n out of range or a tree made by nbody_tree_create. */
cudaError_t nbody_fmm_forces(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float4 *acc,
                             cudaStream_t stream);
/* The same with the far test's angle given apart (for measuring the pair; below 256K bodies it is
 * scaled as nbody_fmm_forces scales fmm_theta's). */
cudaError_t nbody_fmm_forces_at(NbodyTree *t, const float4 *pos, int n, float eps2, float theta, float theta_fmm,
                                float4 *acc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
