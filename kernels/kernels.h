/* C launchers for the CUDA kernels: the force ladder, the leapfrog drift, energy, and the timing
 * core of the bench. Every launcher returns the launch's cudaError_t (taken through CUDA_CHECK,
 * cuda_check.h), so a caller checks one value; none synchronises unless it says so. Nothing here
 * includes src/: the simulation maps its own kernel and precision names onto these.
 *
 * Body arrays are n float4: positions (x, y, z, mass), velocities (vx, vy, vz, 0; a halo centre's
 * w: the energy friction took out, halo_field.h), accelerations (ax, ay, az, 0). Softening below NBODY_MIN_EPS2 is raised to it: the self term and zero-mass
 * padding then compute 0 * finite instead of 0 * inf. */
#ifndef STARBURST_KERNELS_H
#define STARBURST_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "halo_field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NBODY_MIN_EPS2 1e-24f

/* The force ladder, in the order of the tuning story (nbody_forces.cu says what each step adds). */
typedef enum NbodyKernel {
    NBODY_KERNEL_DEFAULT = 0, /* mtpb */
    NBODY_KERNEL_NAIVE,
    NBODY_KERNEL_REGISTERS,
    NBODY_KERNEL_TILED,
    NBODY_KERNEL_TILED_UNROLLED,
    NBODY_KERNEL_MTPB,
    NBODY_KERNEL_SYMMETRIC,
    NBODY_KERNEL_COUNT
} NbodyKernel;

typedef enum NbodyPrecision {
    NBODY_PRECISION_FLOAT = 0,
    NBODY_PRECISION_DOUBLE, /* the mtpb kernel in fp64 arithmetic */
} NbodyPrecision;

/* "default", "naive", "registers", "tiled", "tiled-unrolled", "mtpb", "symmetric"; "?" when out of
 * range. */
const char *nbody_kernel_name(NbodyKernel k);

/* Launch shape. q: threads per body (mtpb: 1, 2, 4, ..., 32; other kernels: 1). block: threads
 * per block, a power of two from 32 to 1024 and at least q. r: bodies per thread (mtpb: 1 or 2;
 * symmetric: 8). parts: the symmetric kernel's split of the bodies (1 to 64; 0 elsewhere). */
typedef struct NbodyShape {
    int q, block, r, parts;
} NbodyShape;

/* One force launch: a = forces(pos); acc = a; then, where vel is given, the kick
 * v = (v + a half_kick) damping + a next_kick: the step's closing half kick, damping of the
 * velocity synchronised with the positions, and the next step's opening half kick (0 when the
 * next drift gives it); where speed is given, speed = |v|; where nonfinite is given, a kick that
 * writes a non-finite velocity sets *nonfinite = 1. vel = NULL stores a alone. */
typedef struct NbodyForces {
    NbodyKernel kernel;       /* NBODY_KERNEL_DEFAULT = mtpb */
    NbodyPrecision precision; /* DOUBLE runs the fp64 mtpb kernel (kernel must be mtpb) */
    NbodyShape shape;
    int n;
    double eps2; /* the fp64 kernel takes it as it is, the float ones rounded to float */
    const float4 *pos;
    float4 *acc;
    double *acc64; /* fp64 only: where given, also a in double (3 per body), as summed */
    float4 *vel;
    float half_kick, next_kick, damping;
    float *speed;
    int *nonfinite;
    float4 *pair_sums; /* the symmetric kernel's scratch: nbody_pair_sums_bytes of device memory */
    size_t pair_sums_bytes;
} NbodyForces;

cudaError_t nbody_forces_launch(const NbodyForces *f, cudaStream_t stream);

/* The shape the mtpb kernel runs at for n bodies on sm_count multiprocessors: enough threads
 * per body to give every multiprocessor enough warps, the least tail imbalance, and two bodies
 * per thread where the bodies alone fill the GPU. q or block > 0 are kept as given (check the
 * result with nbody_shape_check). Pure arithmetic: needs no device. */
NbodyShape nbody_choose_shape(int n, int sm_count, NbodyPrecision precision, int q, int block);
/* Checks a shape for a kernel and precision; returns 0, or -1 with one line in err. */
int nbody_shape_check(NbodyKernel kernel, NbodyPrecision precision, NbodyShape shape, char *err, size_t errlen);
/* The symmetric kernel's shape for n bodies: the number of parts that balances its tasks best
 * over sm_count multiprocessors, with pair sums of at most max_bytes (0 = no limit; one part
 * always qualifies). Pure arithmetic: needs no device. */
NbodyShape nbody_symmetric_shape(int n, int sm_count, size_t max_bytes);
/* The device scratch a launch of kernel with shape needs for n bodies (the symmetric kernel's
 * pair sums, (parts + 1) parts B float4); 0 for the other kernels. */
size_t nbody_pair_sums_bytes(NbodyKernel kernel, NbodyShape shape, int n);
/* The symmetric kernel in pieces, for a launch split across devices (docs/MULTI_GPU.md): its
 * tasks (pairs of parts, parts (parts + 1) / 2 of them, the off-diagonal ones first), a range of
 * them launched on the stream's device, and the end of the launch, the slots summed and the kick.
 * A range reads f->pos and writes f->pair_sums, which may be another device's memory reached by
 * peer access; every range's sums must be in place before the finish. Running all tasks in any
 * split and then the finish gives nbody_forces_launch's bits. f->kernel must be symmetric. */
int nbody_symmetric_tasks(NbodyShape shape);
cudaError_t nbody_symmetric_tasks_launch(const NbodyForces *f, int first, int count, cudaStream_t stream);
cudaError_t nbody_symmetric_finish_launch(const NbodyForces *f, cudaStream_t stream);
/* The shape of a non-mtpb kernel: q = 1, r = 1, block as given or 256. */
NbodyShape nbody_plain_shape(int block);

/* v += a half_kick (skipped when half_kick = 0), then x += v dt; mass untouched. Where nonfinite
 * is given, a non-finite position written sets *nonfinite = 1. */
cudaError_t nbody_drift_launch(float4 *pos, float4 *vel, const float4 *acc, int n, float dt, float half_kick,
                               int *nonfinite, cudaStream_t stream);
/* out[3i .. 3i+2] = (x, y, z) of v[i]: a column of float4s packed as the caller's n x 3 arrays. */
cudaError_t nbody_pack_xyz_launch(const float4 *v, float *out, int n, cudaStream_t stream);
/* speed[i] = |v_i|. */
cudaError_t nbody_speed_launch(const float4 *vel, float *speed, int n, cudaStream_t stream);
/* The kick of NbodyForces alone, from the accelerations f->acc holds: for a force method that
 * writes accelerations without kicking (the tree, kernels/tree.h). Uses n, acc, vel, half_kick,
 * next_kick, damping, speed and nonfinite. */
cudaError_t nbody_kick_launch(const NbodyForces *f, cudaStream_t stream);

/* Halos as fields (halo_field.h, halo_field.cu): the stars are bodies 0 .. n_stars - 1, the halo
 * centres the count bodies after them. A field object holds the halos on the device and the
 * scratch of their sums for n_stars stars; nbody_halo_field_bytes says how much device memory. */
typedef struct NbodyHaloField NbodyHaloField;
size_t nbody_halo_field_bytes(int n_stars);
/* The halos (count 1 to NBODY_HALO_MAX) for n_stars stars on the current device, or NULL with one
 * line in err. */
NbodyHaloField *nbody_halo_field_create(const NbodyHalos *halos, int n_stars, char *err, size_t errlen);
void nbody_halo_field_destroy(NbodyHaloField *h);
/* The kick that follows a fields' step, as NbodyForces gives it. */
typedef struct NbodyHaloKick {
    float half_kick, next_kick, damping;
} NbodyHaloKick;
/* The fields' step after the stars' own forces (acc holds them): every halo's pull added to each
 * star's acceleration, eps2 softened as the CPU's (no NBODY_MIN_EPS2), and the centres'
 * accelerations written (the stars' reaction, summed in a fixed order: the same bits every call;
 * the halos' mutual pull; friction, at the centres' velocities in vel). Where kick is given, the
 * energy that kick takes out through friction is added to each centre's vel.w (the closing half
 * kick and, where next_kick > 0, the next step's opening one). */
cudaError_t nbody_halo_forces_launch(const NbodyHaloField *h, const float4 *pos, float4 *acc, float4 *vel,
                                     float eps2, const NbodyHaloKick *kick, cudaStream_t stream);
/* The energy an advance's opening half kick of tau takes out through friction, from the stored
 * accelerations in acc (their friction found again as the centres' accelerations less gravity's),
 * added to each centre's vel.w. Reads acc; nothing without two halos and friction. */
cudaError_t nbody_halo_opening_loss_launch(const NbodyHaloField *h, const float4 *pos, const float4 *acc,
                                           float4 *vel, float eps2, float tau, cudaStream_t stream);

/* The energy in double, -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2) with G = 1 and the kinetic energy,
 * summed in tiles (256 rows by up to a sixteenth of the bodies' columns) so that it can be made a
 * share at a time: nbody_energy_tiles(n) of them, each writing 2 doubles of partials. */
int nbody_energy_tiles(int n);
/* Tiles [first, first + count) queued on stream. */
cudaError_t nbody_energy_part(const float4 *pos, const float4 *vel, int n, double eps2, int first, int count,
                              double *partials, cudaStream_t stream);
/* Every tile's partials (on the host) added in the tiles' order: the same sums whatever shares
 * they were made in. */
void nbody_energy_total(const double *partials, int n, double *kinetic, double *potential);
/* Every tile at once; partials: device scratch of 2 * nbody_energy_tiles(n) doubles. Synchronises
 * the stream. */
cudaError_t nbody_energy(const float4 *pos, const float4 *vel, int n, double eps2, double *partials,
                         cudaStream_t stream, double *kinetic, double *potential);

/* cudaSuccess when this build holds kernels the current device can run; otherwise the error
 * (cudaErrorNoKernelImageForDevice, ...). */
cudaError_t nbody_kernels_check(void);

/* The bench's timing core: n bodies of a fixed random ball on the current device. */
typedef struct NbodyBench NbodyBench;
cudaError_t nbody_bench_create(NbodyBench **b, int n, unsigned seed);
void nbody_bench_destroy(NbodyBench *b);
/* Median over `repeats` timed launches, after a warm-up, of the force + kick launches
 * (force_ms) and of a whole step, drift + force + kick (step_ms). */
cudaError_t nbody_bench_time(NbodyBench *b, NbodyKernel kernel, NbodyPrecision precision, NbodyShape shape,
                             int repeats, double *force_ms, double *step_ms);
/* FP32 instructions per second the device sustains on independent FFMA chains. */
cudaError_t nbody_bench_fp32_peak(double *fp32_instr_per_s);
cudaError_t nbody_device_info(char *name, size_t namelen, int *sm_count);

#ifdef __cplusplus
}
#endif

#endif
