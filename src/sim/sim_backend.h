/* The table of functions each backend fills; sim.c dispatches through it. */
#ifndef STARBURST_SIM_BACKEND_H
#define STARBURST_SIM_BACKEND_H

#include "sim/sim.h"

typedef struct SimBackendImpl {
    void (*destroy)(void *impl);
    void (*advance)(void *impl, const SimParams *p, int steps);
    void (*read)(void *impl, Bodies *out);
    /* Optional: positions (velocities with `velocities`) as n x 3 floats into xyz; 0, or -1 where
     * they cannot be read (sim_read then serves). */
    int (*read_xyz)(void *impl, bool velocities, float *xyz);
    /* Positions as the vertex buffer holds them (n float4) and tags; 0, or -1 where the backend
     * stopped. */
    int (*read_positions)(void *impl, float *pos4, uint8_t *tags);
    /* Optional: the positions where they are on the current CUDA device (n float4, written) and the
     * tags into tags; 0, or -1 where they are not (sim_device_positions). */
    int (*device_positions)(void *impl, const float **pos4, uint8_t *tags);
    int (*load)(void *impl, const Bodies *b, char *err, size_t errlen);
    /* Optional: the state read without waiting (sim_read_begin, sim_read_landed). */
    int (*read_begin)(void *impl);
    int (*read_landed)(void *impl, SimLanding *out);
    SimEnergy (*energy)(void *impl, float softening);
    /* Optional: the stars' energy a share at a time (sim_energy_begin, sim_energy_poll). */
    int (*energy_begin)(void *impl, const Bodies *of, float softening);
    int (*energy_poll)(void *impl, SimEnergy *stars);
    void (*accelerations)(void *impl, float softening, float *acc3);
    int (*set_kernel)(void *impl, SimKernel k, int q, int block, char *err, size_t errlen);
    void (*launch_shape)(const void *impl, int *q, int *block);
    /* Optional: the kernel in use, where the backend resolves SIM_KERNEL_DEFAULT itself. */
    SimKernel (*kernel)(const void *impl);
    const char *(*device_name)(const void *impl);
    /* Optional: ms the last advance spent mapping and unmapping GL buffers. */
    double (*map_ms)(const void *impl);
    /* Optional: ms the last advance's steps took on the device's own clock. */
    double (*gpu_ms)(const void *impl);
    /* Optional: the error that stopped the backend, or NULL while it runs. */
    const char *(*error)(const void *impl);
    /* False when the last advance left a non-finite position or velocity. */
    bool (*finite)(const void *impl);
    /* Sets the force method (auto resolved by the backend); 0, or -1 with err. */
    int (*set_force)(void *impl, SimForce f, char *err, size_t errlen);
    /* Optional: the method in use; direct without it. */
    SimForce (*force)(const void *impl);
    /* Optional: interactions per body in the last step of the tree; 0 without it. */
    double (*interactions_per_body)(const void *impl);
    /* Optional: the tree's last force call; false when there is none. */
    bool (*tree_stats)(const void *impl, SimTreeStats *out);
    /* Optional: the device's free and total memory in bytes; false when unknown. */
    bool (*device_memory)(const void *impl, size_t *free_bytes, size_t *total_bytes);
    /* Optional: the GPUs the last step ran on, and why fewer than asked (sim_gpus, sim_gpus_note). */
    int (*gpus)(const void *impl, double *exchange_ms);
    const char *(*gpus_note)(const void *impl);
    /* Optional: the cells of the last tree, as sim_tree_boxes says; 0 without it. */
    int (*tree_boxes)(void *impl, int max_level, SimTreeBox *out, int cap, int *depth);
} SimBackendImpl;

/* What a backend without a tree says when asked for one. */

/* Each returns an opaque state, or NULL with a message. */
void *sim_cpu_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen);
extern const SimBackendImpl sim_cpu_impl;

#ifdef STARBURST_HAVE_CUDA
void *sim_cuda_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen);
bool sim_cuda_probe(char *why, size_t whylen);
bool sim_cuda_gl_probe(char *why, size_t whylen);
int sim_cuda_check(const SimDesc *desc, int n, char *err, size_t errlen);
extern const SimBackendImpl sim_cuda_impl;
#endif

#endif
