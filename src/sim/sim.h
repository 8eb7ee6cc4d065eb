/* The simulation: a backend-neutral API over the CPU (OpenMP) and CUDA backends.
 *
 * Physics: G = 1, Plummer softening, a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)
 * (the self term is zero). Kick-drift-kick leapfrog: an advance of k steps opens with a half
 * kick from the stored accelerations, runs k x [drift, force + kick] with full kicks between
 * steps and a closing half kick, so positions and velocities are synchronised whenever
 * sim_advance returns. Damping d (1 = off) multiplies each velocity once per step, when it is
 * synchronised with the positions: a kick between steps is v = (v + a dt/2) d + a dt/2, the
 * closing one v = (v + a dt/2) d. So k advances of 1 step do the arithmetic of 1 advance of k
 * steps, and the damping a user sees does not depend on the steps per frame.
 *
 * Positions live in the GL vertex buffer given as SimDesc.position_vbo (n float4: x, y, z,
 * mass); with position_vbo = 0 the simulation keeps them itself (tests, benchmarks). */
#ifndef STARBURST_SIM_H
#define STARBURST_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/bodies.h"
#include "sim/halo.h"
#include "tree_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Sim Sim;

typedef enum SimBackend {
    SIM_BACKEND_AUTO = 0, /* CUDA where a device drives the GL context, else CPU */
    SIM_BACKEND_CPU,
    SIM_BACKEND_CUDA,
} SimBackend;

/* The force-kernel ladder of the CUDA backend; the CPU backend has one kernel. */
typedef enum SimKernel {
    SIM_KERNEL_DEFAULT = 0, /* the fastest for the run: see sim_kernel_resolve */
    SIM_KERNEL_NAIVE,
    SIM_KERNEL_REGISTERS,
    SIM_KERNEL_TILED,
    SIM_KERNEL_TILED_UNROLLED,
    SIM_KERNEL_MTPB,
    SIM_KERNEL_SYMMETRIC,
    SIM_KERNEL_COUNT
} SimKernel;

/* How forces are summed. Direct: all N^2 pairs (the CUDA kernel ladder, or the CPU loop). Tree:
 * Barnes-Hut with quadrupoles, O(N log N), with the opening angle SimParams.theta (the CPU's in
 * sim/tree_cpu.c, the GPU's in kernels/nbody_tree.cu). FMM: the fast multipole method, the
 * tree with far cells acting on groups of bodies through local expansions (docs/FMM.md; the
 * CPU's in sim/fmm_cpu.c), with the same SimParams.theta: the CPU backend's alone, the CUDA
 * backend runs the tree for it (faster there at every accuracy measured; sim_force says so).
 * Auto: on the CPU backend the fast multipole method from SIM_FMM_MIN_BODIES_CPU bodies, direct
 * below; on the CUDA one the tree from SIM_TREE_MIN_BODIES_CUDA bodies, direct below. */
typedef enum SimForce {
    SIM_FORCE_AUTO = 0,
    SIM_FORCE_DIRECT,
    SIM_FORCE_TREE,
    SIM_FORCE_FMM,
    SIM_FORCE_COUNT
} SimForce;

/* The tree's CPU crossover (auto takes the fast multipole method on the CPU, from
 * SIM_FMM_MIN_BODIES_CPU): from here on the tree is the faster. Measured on this project's 2-core CI
 * machine (2 OpenMP threads, AVX-512, a shared host under a load of 6 to 7), Plummer sphere,
 * default theta, the fastest of 5 steps (STARBURST_TREE_TIMINGS=262144 tests/test_tree): ms per
 * step direct vs tree 8K 15 vs 24, 16K 60 vs 74, 32K 310 vs 154, 64K 1437 vs 365, 128K 5916 vs
 * 869, 256K 27554 vs 1396; an earlier run gave 8K 23 vs 21 and 16K 84 vs 56. So the two meet
 * between 8K and 16K; at a tie the exact sum wins. */
#define SIM_TREE_MIN_BODIES_CPU 16384
/* Where --force auto takes the fast multipole method on the CPU. Against the vectorised direct sum
 * the two meet between 1,024 and 2,048 bodies (two cores of a quiet Xeon, whole steps of the
 * collision, `starburst bench --backend cpu --force fmm`: direct against fmm 0.23 against 0.30 ms
 * at 1,024, 0.96 against 0.84 at 2,048, 3.6 against 2.6 at 4,096; docs/FMM.md). Below 2,048 either
 * takes under a millisecond, so the fmm is taken from 1,024 as before. */
#define SIM_FMM_MIN_BODIES_CPU 1024
/* The CUDA crossover, from the H100 (docs/TREE.md, docs/PERFORMANCE.md): ms per step of the
 * symmetric direct kernel vs the tree's force call, 64K 1.58 vs 2.10, 256K ~25 vs 5.91; the
 * direct kernel's 131,072 takes 6.25. `starburst bench --force tree` times both whole steps
 * through this API and prints the crossover this is to be set from. */
#define SIM_TREE_MIN_BODIES_CUDA 131072

typedef enum SimPrecision {
    SIM_PRECISION_FLOAT = 0,
    SIM_PRECISION_DOUBLE,
} SimPrecision;

/* Zero fields mean "default". */
typedef struct SimDesc {
    SimBackend backend;
    SimKernel kernel;
    SimPrecision precision;
    int threads_per_body;      /* q of the mtpb kernel; 0 = chosen from N and the SM count */
    int block_size;            /* threads per block; 0 = chosen */
    unsigned int position_vbo; /* GL buffer of n float4; 0 = positions owned by the simulation */
    unsigned int speed_vbo;    /* optional GL buffer of n floats, refreshed with |v| each advance */
    int threads;               /* CPU backend: OpenMP threads, 0 = all */
    SimForce force;            /* 0 = auto */
    int gpus;                  /* CUDA: GPUs of the host a step is split across (0 or 1 = one, -1 =
                                  all; docs/MULTI_GPU.md): the symmetric kernel's tasks or the
                                  tree's walk; the CPU ignores it */
    const SimHalos *halos;     /* halos as fields (copied; NULL or count 0: none): the last
                                  halos->count bodies are their centres, which feel the stars, each
                                  other and friction; the others, the stars, feel each other and
                                  every halo's field (kernels/halo_field.h) */
} SimDesc;

typedef struct SimParams {
    float dt;
    float softening;
    float damping; /* velocity factor per step; 1 = conservative */
    float theta;   /* tree opening angle; 0 = the parameter table's default
                      (params_theta, util/params.h); ignored by the direct sum, and by the tree
                      while it opens by error (the fmm's far angle takes it always) */
    float alpha;   /* > 0: the tree (and the fmm's near field) opens by estimated error
                      (kernels/tree_geometry.h) within its widest angle NBODY_TREE_REL_THETA;
                      0: by the angle theta. */
    int rebuild_every; /* the GPU tree: rebuilt every this many force calls, refitted between
                          (nbody_tree_set_rebuild); 0 or 1: rebuilt every call. The CPU ignores it.
                          sim_load starts the cycle again, so only with 0 or 1 (the viewer's) does a
                          loaded run go on bit for bit. */
} SimParams;

/* The angle force method f opens cells within for theta and alpha (SimParams): the widest angle
 * NBODY_TREE_REL_THETA for the tree by error (and the fmm's near field by error: its far angle
 * stays fmm_theta(theta)), else theta (0: the default). */
float sim_opening_theta(SimForce f, float theta, float alpha);

typedef struct SimStats {
    double ms;                 /* wall time of the last sim_advance */
    int steps;                 /* steps in the last sim_advance */
    double interactions_per_s; /* interactions evaluated * steps / time (N^2 a step when direct) */
    double gflops;             /* 20 flops per interaction */
    long long total_steps;     /* since creation or the last sim_load */
    double time;               /* simulated time since then */
    double map_ms;             /* of ms: mapping and unmapping the GL buffers (CUDA backend) */
    double gpu_ms;             /* the steps alone, timed on the GPU (CUDA backend; else 0) */
    double kernel_interactions_per_s; /* N^2 * steps / gpu_ms, or interactions_per_s without it */
    double interactions_per_body; /* tree: body-body + body-cell interactions per body in the last
                                     step; 0 for the direct sum */
} SimStats;

/* The tree's last force call (the last step's, after an advance): bodies, cells, depth,
 * interactions per body and the times of build and walk, as both backends' trees report them. */
typedef NbodyTreeStats SimTreeStats;

typedef struct SimEnergy {
    double kinetic, potential; /* summed in double; potential with the run's softening, the halo
                                  fields' share (stars in halos, halo on halo) included */
    double friction;           /* what the halo fields' friction has taken out of the run so far
                                  (kernels/halo_field.h; 0 without fields): conserved is
                                  kinetic + potential + friction */
} SimEnergy;

/* Creates a simulation of `initial` (copied). On failure returns NULL and writes one line to
 * err. A CUDA request that cannot be met fails; SIM_BACKEND_AUTO falls back to the CPU. */
Sim *sim_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen);
void sim_destroy(Sim *s);

/* The CPU backend's time a step, measured on this project's 2-core CI machine (2 OpenMP threads,
 * the collision scene, a shared host with a window test beside it): the fmm (auto's from
 * SIM_FMM_MIN_BODIES_CPU) and the tree as c N log2 N, the direct sum as c N^2. Measured by
 * `starburst bench --backend cpu --force fmm -n 16384,65536,262144 --repeats 3` (fmm ms a step
 * 54.8, 183.9, 1053; direct 108, 1028, 19618) and `starburst --headless --backend cpu [--force
 * tree] -n N --frames 3 --size 64x64` (its "3 steps in" line: fmm 3.31 s at 262,144 and 14.01 s at
 * 1,048,576; tree 15.11 s at 1,048,576). The fmm's c: 2.23e-7 s at 262,144 and at 1,048,576
 * alike (at 16K and 64K the step is quicker than N log N, the bodies in cache); the tree's 2.40e-7
 * at 1,048,576; the direct sum's 2.85e-10 s a pair at 262,144. Extrapolated, 16,777,216 bodies
 * take about 90 s a step by the fmm on 2 threads. */
#define SIM_CPU_FMM_S_PER_NLOGN 2.23e-7
#define SIM_CPU_TREE_S_PER_NLOGN 2.40e-7
#define SIM_CPU_DIRECT_S_PER_PAIR 2.85e-10
/* Where the viewer warns that the CPU will be slow: an estimated second or more a step, a frame a
 * second at best (from 262,144 bodies by the fmm on 2 threads). */
#define SIM_CPU_SLOW_STEP_S 1.0
/* The CPU backend's estimated seconds a step at n bodies by `force` (auto as the backend resolves
 * it), from the figures above scaled to `threads` OpenMP threads (0: this machine's); *used gets
 * the count taken and *resolved the method. */
double sim_cpu_step_estimate(SimForce force, int n, int threads, int *used, SimForce *resolved);

/* Advances `steps` steps; positions end in the VBO. steps <= 0 does nothing. */
void sim_advance(Sim *s, const SimParams *p, int steps);
SimStats sim_stats(const Sim *s);
/* Copies positions, velocities and tags into out (allocated by the caller with bodies_alloc) and,
 * where out->acc is allocated (bodies_alloc_acc), the accelerations the next step reads, with what
 * computed them (out->acc_info). */
void sim_read(Sim *s, Bodies *out);
/* Positions (velocities with `velocities`) alone, n x 3 floats into xyz, without the rest of the
 * state: on CUDA packed on the device and copied once (a script reading 16M positions). 0, or -1
 * (out of memory, or the backend stopped: sim_error says why). */
int sim_read_xyz(Sim *s, bool velocities, float *xyz);
/* Positions (n float4: x, y, z, mass) and tags alone, what a picture needs: one copy from the
 * device on CUDA, not the velocities and accelerations sim_read brings too. 0, or -1 where the
 * backend stopped. */
int sim_read_positions(Sim *s, float *pos4, uint8_t *tags);
/* The positions (n float4: x, y, z, mass) where they lie on the current CUDA device, written (no
 * step in flight), for a reader there (a picture's copy into its vertex buffer), and the tags
 * into tags (n); 0, or -1 (*pos4 NULL) where they are not: the CPU backend, a GPU other than the
 * current one, a backend stopped. The pointer holds until the next call into the simulation. */
int sim_device_positions(Sim *s, const float **pos4, uint8_t *tags);
/* Replaces the state with b (same n); resets counters. Where b carries this backend's accelerations
 * (b->acc as sim_read gave them), the next step reads them as the run never interrupted would have,
 * so it goes on bit for bit; without them the next step computes them first (the error-based
 * opening test then has no previous |a|: the fallback angle). Returns 0 or -1 with err. */
int sim_load(Sim *s, const Bodies *b, char *err, size_t errlen);
/* Total energy with softening eps (O(N^2), in double on the backend that holds the data). */
SimEnergy sim_energy(Sim *s, float softening);
/* The same sums as the CPU backend's sim_energy, of a state held elsewhere: b's positions and
 * velocities (n float4s, the halos' centres last) in the fields of halos, on `threads` OpenMP
 * threads (0: all). */
SimEnergy sim_energy_of(const Bodies *b, const SimHalos *halos, float softening, int threads);
/* The state read without holding up the caller, where the backend offers it (the CUDA backend's):
 * sim_read_begin queues its copy to the host behind the steps queued, into memory the backend
 * keeps; sim_read_landed is 1 once it has landed, with *out naming it (what sim_read writes: n
 * bodies' positions and velocities as float4s, their accelerations as 3 floats and what computed
 * them, the tags), which holds until the next sim_read_begin or sim_destroy and may be read from
 * any thread meanwhile; 0 while it has not; -1 where nothing is being read, the backend stopped or
 * it has no such read (sim_read serves). */
typedef struct SimLanding {
    int n;
    const float *pos, *vel, *acc;
    const uint8_t *tags;
    BodiesAccInfo acc_info;
} SimLanding;
int sim_read_begin(Sim *s);
int sim_read_landed(Sim *s, SimLanding *out);
/* A number that changes whenever the state is replaced (sim_create, sim_load) and never repeats in
 * the process: a read begun on one state is not taken for another's. */
unsigned long long sim_state_serial(const Sim *s);
/* The stars' energy summed a share at a time beside the steps, where the backend offers it (the
 * CUDA backend's): sim_energy_begin copies the stars of `of` (a state on the host, n bodies, the
 * halos' centres last: the run's copy) to the device and starts the sums; each sim_energy_poll
 * then queues a share of about a millisecond of the device's time behind the steps queued, and is
 * 1 once they are all done, with the stars' kinetic energy and their pairs' potential in *stars
 * (sim_energy_fields gives the rest); 0 while not, -1 where nothing is being summed or it failed.
 * A later begin starts again. sim_energy_begin is -1 where the backend has none. */
int sim_energy_begin(Sim *s, const Bodies *of, float softening);
int sim_energy_poll(Sim *s, SimEnergy *stars);
bool sim_energy_shares(const Sim *s);
/* The energy sim_energy_of adds to the stars': the halos' centres' kinetic energy, the fields'
 * potential and what their friction has taken out (0 without fields). */
SimEnergy sim_energy_fields(const Bodies *b, const SimHalos *halos, float softening, int threads);
/* Writes the accelerations of the current positions (3n floats) with the active kernel and force
 * method (the tree with the last advance's theta and alpha; the error-based test reads the run's
 * stored accelerations as the previous ones), with halos as fields the fields' step too: what a
 * step stores (the stars' pull on each other and the fields', the centres' in full). */
void sim_accelerations(Sim *s, float softening, float *acc3);

/* The error that stopped the simulation (a failing CUDA call, say), or NULL while it runs. After
 * an error sim_advance does nothing; the caller may carry on with another backend. The
 * simulation prints nothing: showing the error is the caller's part. */
const char *sim_error(const Sim *s);
/* True when the last advance left NaN or Inf in the position or velocity of any body (softening
 * 0 with a huge dt, say): known after the very advance that made it, before the next step's
 * forces spread it to every body. False after sim_load. */
bool sim_diverged(const Sim *s);
/* The GPUs the last step ran on (before the first step, those it will run on; 1 on the CPU): more
 * than one only for the tree and the direct sum's symmetric kernel, with SimDesc.gpus asking.
 * exchange_ms (may be NULL): the last step's copy of the positions to the other GPUs, the
 * longest, on their clocks (0 on one). */
int sim_gpus(const Sim *s, double *exchange_ms);
/* Why fewer GPUs run than SimDesc.gpus asked for (fewer found, no peer access, a GPU that failed
 * mid-run, a method that runs on one), one line; "" where as many run as asked. Changes as the
 * run goes: a caller shows it when it changes. */
const char *sim_gpus_note(const Sim *s);
/* Free and total memory of the device the simulation runs on; false for the CPU backend. */
bool sim_device_memory(const Sim *s, size_t *free_bytes, size_t *total_bytes);
SimBackend sim_backend(const Sim *s);
int sim_count(const Sim *s);
/* The halos as fields (count 0: none); their centres are the last count bodies. */
const SimHalos *sim_halos(const Sim *s);
const char *sim_device_name(const Sim *s);
/* Chooses another force kernel (or launch shape) while running. Returns 0, or -1 with err. */
int sim_set_kernel(Sim *s, SimKernel k, int threads_per_body, int block_size, char *err, size_t errlen);
SimKernel sim_kernel(const Sim *s);
/* Launch shape in use (0 where not applicable). */
void sim_launch_shape(const Sim *s, int *threads_per_body, int *block_size);

/* The force method in use (never SIM_FORCE_AUTO). */
SimForce sim_force(const Sim *s);
/* Switches the force method while running (auto resolves by N and backend). Returns 0, or -1
 * with one line in err (the CUDA backend's tree needs device memory it may not find). */
int sim_set_force(Sim *s, SimForce f, char *err, size_t errlen);
/* The tree's last force call; false (and *out zeroed) when the tree is not the method or has not
 * run since it became the method. */
bool sim_tree_stats(const Sim *s, SimTreeStats *out);
/* "auto", "direct", "tree", "fmm"; sim_force_from_name gives -1 when unknown. */
const char *sim_force_name(SimForce f);
int sim_force_from_name(const char *name);

/* One cell of the tree: the cube of side 2 * half about (x, y, z), its level (the root is 0) and
 * the bodies it holds. */
typedef NbodyTreeBox SimTreeBox;
/* The cells of levels 0 .. max_level of the tree that the last force evaluation built, the root
 * first, then level by level. Writes the first cap of them (at most) into out and returns how many
 * there are in all, so that a caller can size out; 0 while the direct sum runs or before the
 * first step. depth (may be NULL) gets the deepest level of that tree (0 when there is none).
 * The CUDA backend copies the cells from the device: a call waits for the last step. */
int sim_tree_boxes(Sim *s, int max_level, SimTreeBox *out, int cap, int *depth);

const char *sim_backend_name(SimBackend b);
const char *sim_kernel_name(SimKernel k);
/* The kernel SIM_KERNEL_DEFAULT stands for (any other kernel as it is): mtpb in double precision
 * and below SIM_SYMMETRIC_MIN_PER_SM bodies per multiprocessor, where its threads per body fill
 * the GPU better; symmetric otherwise. sm_count 0 = unknown (symmetric in float). */
#define SIM_SYMMETRIC_MIN_PER_SM 40
SimKernel sim_kernel_resolve(SimKernel k, SimPrecision precision, int n, int sm_count);
/* Parses "naive", "registers", "tiled", "tiled-unrolled", "mtpb", "symmetric"; -1 when unknown. */
int sim_kernel_from_name(const char *name);
/* True when a CUDA device is usable from this build. */
bool sim_cuda_available(char *why, size_t whylen);
/* True when the current GL context runs on a CUDA device, so that the CUDA backend can update
 * its vertex buffer in place (NVIDIA's OpenGL driver); else why says what runs the context. */
bool sim_cuda_gl_usable(char *why, size_t whylen);
/* Checks before anything is created that desc can run n bodies: the kernel, precision and launch
 * shape go together, and (CUDA) the device holds them. 0, or -1 with one line in err naming the
 * problem ("block size 96: a power of two from 32 to 1024 is needed", "... at most N bodies
 * fit"). Positions count as the GL buffer's where desc->position_vbo is nonzero (nothing is
 * created: any nonzero value does). */
int sim_check(const SimDesc *desc, int n, char *err, size_t errlen);

/* The f64 reference: accelerations of n bodies (pos4 as in Bodies) into acc3 (3n doubles). */
void sim_reference_accelerations(const float *pos4, int n, double softening, double *acc3);
/* The same for `count` target bodies (indices; NULL = the first count) from all n, into acc3 (3 per
 * target): a reference for large N at the cost of a sample. */
void sim_reference_subset(const float *pos4, int n, double softening, const int *targets, int count, double *acc3);

#ifdef __cplusplus
}
#endif

#endif
