/* The other GPUs of the host in a CUDA simulation (docs/MULTI_GPU.md): the direct sum's
 * symmetric kernel split by its tasks, and the tree's walk shared, across the simulation's GPU
 * (the primary, which holds the bodies and, with a window, drives the GL context) and its peers.
 *
 * A split force call: the primary's positions go to every peer (a peer copy, after the drift that
 * wrote them); each GPU runs its run of tasks (gpu_split_tasks), the peers writing their sums
 * into the primary's slots by peer access; the primary waits for the peers, then sums the slots
 * and kicks as on one GPU. The bits are the one-GPU launch's. Velocities, accelerations and the
 * drift stay on the primary alone: nothing but positions and sums crosses between GPUs. */
#ifndef STARBURST_SIM_CUDA_PEERS_H
#define STARBURST_SIM_CUDA_PEERS_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "kernels.h"
#include "tree.h"

typedef struct SimPeers SimPeers;

/* The GPUs a run of n bodies can take beside `primary`, of the `want` it asks for in all (-1 =
 * every GPU found): NULL where none can be had, with one line in note saying why (fewer GPUs
 * than asked, no peer access, memory; empty where want is 1). A non-NULL result may hold fewer
 * than asked; note then says why. Leaves the current device as it found it. */
SimPeers *sim_peers_create(int primary, int want, int n, char *note, size_t notelen);
void sim_peers_destroy(SimPeers *p);
/* The GPUs in all, the primary's included. */
int sim_peers_gpus(const SimPeers *p);

/* f's symmetric launch split across the primary (on `stream`, the current device) and the peers;
 * f->pos on the primary, already written on stream. True when the peers took their part (the
 * primary's calls then report into *primary, as the simulation's own); false with one line in
 * why when a peer failed: nothing of the launch is left running and the caller runs it alone. */
bool sim_peers_symmetric(SimPeers *p, const NbodyForces *f, cudaStream_t stream, CudaStatus *primary, char *why,
                         size_t whylen);

/* The tree's force call shared (docs/MULTI_GPU.md): every GPU builds the same tree from the same
 * positions (copied to the peers as above) and the walks draw groups from one counter on the
 * primary, writing their bodies' accelerations into acc there (nbody_tree_share_walk): the bits
 * of mine's call alone. mine is the primary's tree; the peers' are made on first use. The trees
 * rebuild every call (a refit would let them drift apart). True when the peers took their part
 * (mine's call then reports into *primary); false with why when a peer failed, mine's walk its
 * own again and nothing of the call left running: the caller runs it alone. Needs
 * sim_peers_tree_able. */
bool sim_peers_tree_able(const SimPeers *p, char *why, size_t whylen);
bool sim_peers_tree(SimPeers *p, NbodyTree *mine, const float4 *pos, int n, float eps2, float theta, float alpha,
                    float4 *acc, cudaStream_t stream, CudaStatus *primary, char *why, size_t whylen);
/* Adds the peers' interactions a body of their last call to add (body_body, body_cell). */
void sim_peers_tree_counts(const SimPeers *p, NbodyTreeStats *add);
/* Frees the peers' trees (the method is no longer the tree). */
void sim_peers_tree_release(SimPeers *p);

/* The last split call's position copies, on the peers' clocks: the longest, in ms (0 before). */
double sim_peers_exchange_ms(const SimPeers *p);

#endif
