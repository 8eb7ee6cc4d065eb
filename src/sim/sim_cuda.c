/* The CUDA backend. Bodies stay on the device: positions in the GL vertex buffer when one is
 * given (registered once, mapped once per advance, updated in place) or in device memory of our
 * own; velocities and accelerations in device memory. A step is two launches, the drift and the
 * fused force + kick (three for the symmetric kernel, whose sums and kick are a launch of their
 * own). With halos as fields (kernels/halo_field.h) the last bodies are the halos' centres: the
 * force methods run over the stars before them, then the fields' step (kernels/halo_field.cu)
 * adds the halos' pull and moves the centres, and a kick of its own follows; the drift and the
 * kick take every body. The GL context must be current on the calling thread whenever a buffer is
 * given. A CUDA error in the hot path is kept for sim_error and stops the simulation; nothing is
 * printed and nothing aborts the program: the caller says what happened. */
#include <GL/glew.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "util/clock.h"
#include "util/params.h"
#include "kernels.h"
#include "tree.h"
#include "sim/sim_backend.h"
#include "sim/gpu_split.h"
#include "sim/sim_cuda_peers.h"

/* The energy summed a share at a time (cuda_energy_begin, cuda_energy_poll): the stars of a state
 * on the host copied to the device, the tiles queued a share a call behind the frame's steps, a share sized to take
 * about ENERGY_SHARE_MS of the device's time by the last share's, then the partials' copy. */
typedef struct CudaEnergy {
    float4 *pos, *vel;    /* the stars summed (n of them), on the device */
    int capacity;         /* the bodies pos and vel hold room for */
    double *partials;     /* the tiles' sums on the device (its own: sim_energy may run meanwhile) */
    double *host;         /* and on the host (pinned) */
    int host_tiles;       /* the tiles partials and host hold room for */
    int n, tiles, next;   /* stars summed (0: no sum under way), tiles in all, the next to queue */
    int share;            /* tiles a call */
    double eps2;
    cudaEvent_t start, stop; /* around the last share queued (and at the end, the copy) */
    bool queued;          /* a share in flight since the last call */
} CudaEnergy;

/* The state read without waiting (cuda_read_begin, cuda_read_landed): its copy to the host queued
 * behind the steps, into page-locked memory kept for it, the accelerations packed on the device. */
typedef struct CudaLanding {
    float *pos, *vel, *acc; /* page-locked: 4n, 4n and 3n floats */
    uint8_t *tags;
    int capacity;
    BodiesAccInfo acc_info;
    cudaEvent_t done;
    enum { LANDING_NONE, LANDING_QUEUED, LANDING_LANDED } state;
} CudaLanding;

typedef struct SimCuda {
    int n;
    int stars;            /* n less the halo centres, the last bodies: what the force methods take */
    SimHalos halos;       /* halos as fields (count 0: none) */
    NbodyHaloField *field; /* their device side, while there are some */
    int sm_count;
    char device_name[256];
    SimKernel kernel;
    SimPrecision precision;
    NbodyShape shape;
    cudaStream_t stream;
    float4 *pos; /* our own positions when no vertex buffer is given */
    float4 *vel, *acc;
    float4 *scratch; /* sim_accelerations' output, allocated on first use */
    float4 *pair_sums; /* the symmetric kernel's scratch, sized for the shape in use */
    size_t pair_sums_bytes;
    double *partials; /* the energy's tiles' sums (2 doubles a tile), made at the first energy */
    CudaEnergy energy;
    CudaLanding landing;
    cudaGraphicsResource_t res[2];
    int nres, res_pos, res_speed; /* indices into res, -1 when absent */
    uint8_t *tags;
    float acc_softening; /* softening of the stored accelerations; NAN = none yet */
    double map_ms;       /* the last advance's time in map and unmap */
    int *nonfinite;      /* device flag, set by a drift or kick that writes NaN or Inf */
    SimForce force;      /* direct (the kernel above) or tree */
    NbodyTree *tree;     /* the tree's memory, while it is the method */
    float acc_theta;     /* opening angle of the stored accelerations (tree), */
    float acc_alpha;     /* and the error-based test's alpha (0: geometric) */
    float acc_theta_asked; /* and SimParams.theta, from which acc_theta follows */
    int rebuild;         /* the tree's rebuild_every as last set (0: not set since the tree was made) */
    int diverged;        /* the flag after the last advance */
    long fail_after;     /* STARBURST_CUDA_FAIL_AFTER: advances before a failure is injected; 0 = never */
    cudaEvent_t steps_begin, steps_end; /* around the steps of an advance, on the GPU's clock */
    double gpu_ms;                      /* the last advance's steps alone; 0 = not measured */
    CudaStatus status; /* the first error; every later call of the backend then does nothing */
    SimPeers *peers;   /* the other GPUs a step is split across; NULL: this one alone */
    int gpus_used;     /* GPUs the last force call ran on */
    char gpus_note[320]; /* why fewer GPUs run than asked; "" where as many as asked */
    char peers_note[320]; /* what sim_peers_create said: fewer found than asked, one left out */
    bool choose;          /* --gpus all: the split kept only where it is measured to pay (choice) */
    GpuChoice choice;
    bool split_now;       /* this advance's calls split (peers there, and chosen) */
} SimCuda;

/* The simulation's kernel and precision as the kernels name them. */
static NbodyKernel sc_kernel(SimKernel k)
{
    switch (k) {
    case SIM_KERNEL_NAIVE: return NBODY_KERNEL_NAIVE;
    case SIM_KERNEL_REGISTERS: return NBODY_KERNEL_REGISTERS;
    case SIM_KERNEL_TILED: return NBODY_KERNEL_TILED;
    case SIM_KERNEL_TILED_UNROLLED: return NBODY_KERNEL_TILED_UNROLLED;
    case SIM_KERNEL_MTPB: return NBODY_KERNEL_MTPB;
    case SIM_KERNEL_SYMMETRIC: return NBODY_KERNEL_SYMMETRIC;
    default: return NBODY_KERNEL_DEFAULT;
    }
}

static NbodyPrecision sc_precision(SimPrecision p)
{
    return p == SIM_PRECISION_DOUBLE ? NBODY_PRECISION_DOUBLE : NBODY_PRECISION_FLOAT;
}

static bool sc_failed(const SimCuda *c) { return c->status.message[0] != '\0'; }

/* A failure of our own (not a CUDA call's), kept like one. */
static bool sc_fail(SimCuda *c, const char *msg)
{
    if (!sc_failed(c)) snprintf(c->status.message, sizeof c->status.message, "%s", msg);
    return false;
}

/* The device pointer of mapped resource idx, refused when the buffer is smaller than need. */
static bool sc_mapped(SimCuda *c, int idx, size_t need, const char *what, void **ptr)
{
    size_t size = 0;
    if (!CUDA_CHECK(&c->status, cudaGraphicsResourceGetMappedPointer(ptr, &size, c->res[idx]))) return false;
    if (size >= need) return true;
    char msg[160];
    snprintf(msg, sizeof msg, "%s buffer holds %zu bytes, %d bodies need %zu", what, size, c->n, need);
    return sc_fail(c, msg);
}

/* Maps the vertex buffers (one call for both) and returns the device pointers to use. */
static bool sc_map(SimCuda *c, float4 **pos, float **speed)
{
    *pos = c->pos;
    *speed = NULL;
    if (c->nres == 0) return true;
    if (!CUDA_CHECK(&c->status, cudaGraphicsMapResources(c->nres, c->res, c->stream))) return false;
    const size_t n = (size_t)c->n;
    if ((c->res_pos < 0 || sc_mapped(c, c->res_pos, n * sizeof(float4), "position", (void **)pos)) &&
        (c->res_speed < 0 || sc_mapped(c, c->res_speed, n * sizeof(float), "speed", (void **)speed)))
        return true;
    CUDA_CHECK(&c->status, cudaGraphicsUnmapResources(c->nres, c->res, c->stream));
    return false;
}

static void sc_unmap(SimCuda *c)
{
    if (c->nres) CUDA_CHECK(&c->status, cudaGraphicsUnmapResources(c->nres, c->res, c->stream));
}

/* The method the GPU runs for f: the fmm's request runs the tree, which is faster on the GPU at
 * every accuracy measured (docs/FMM.md); sim_force then reports the tree. */
static SimForce sc_resolve_force(SimForce f, int n)
{
    if (f == SIM_FORCE_FMM) return SIM_FORCE_TREE;
    if (f != SIM_FORCE_AUTO) return f;
    return n >= SIM_TREE_MIN_BODIES_CUDA ? SIM_FORCE_TREE : SIM_FORCE_DIRECT;
}

static bool sc_treelike(SimForce f) { return f == SIM_FORCE_TREE; }

/* The device memory of force method f's tree for n stars (0 for the direct sum). */
static size_t sc_tree_bytes(SimForce f, int n) { return f == SIM_FORCE_TREE ? nbody_tree_bytes(n) : 0; }

/* Why a call with more than one GPU asked for runs on one, where it is the method's doing. */
static void sc_gpus_why(SimCuda *c, const NbodyForces *f)
{
    if (!c->peers) return;
    if (!c->split_now) {
        if (c->choice.decided == 0)
            snprintf(c->gpus_note, sizeof c->gpus_note, "one GPU is the faster here: %.3g ms a step against %.3g on %d",
                     gpu_choice_median(&c->choice, false), gpu_choice_median(&c->choice, true),
                     sim_peers_gpus(c->peers));
        return;
    }
    if (sc_treelike(c->force)) sim_peers_tree_able(c->peers, c->gpus_note, sizeof c->gpus_note);
    else if (f->kernel != NBODY_KERNEL_SYMMETRIC)
        snprintf(c->gpus_note, sizeof c->gpus_note, "the %s kernel runs on one GPU: the direct sum is split across "
                 "GPUs with the symmetric kernel only", nbody_kernel_name(f->kernel));
}

/* A peer failed (why): the run goes on here alone, and says so. */
static void sc_peers_lost(SimCuda *c, const char *why)
{
    snprintf(c->gpus_note, sizeof c->gpus_note, "a GPU failed (%.240s): running on 1 GPU from here", why);
    sim_peers_destroy(c->peers);
    c->peers = NULL;
}

/* The tree's call: shared with the peers where there are some that can, else here alone. */
static cudaError_t sc_tree(SimCuda *c, const NbodyForces *f, float eps2, float th, float alpha)
{
    char why[256];
    if (c->peers && c->split_now && sim_peers_tree_able(c->peers, why, sizeof why)) {
        if (sim_peers_tree(c->peers, c->tree, f->pos, f->n, eps2, th, alpha, f->acc, c->stream, &c->status, why,
                           sizeof why)) {
            c->gpus_used = sim_peers_gpus(c->peers);
            snprintf(c->gpus_note, sizeof c->gpus_note, "%s", c->peers_note);
            return c->status.error;
        }
        sc_peers_lost(c, why);
    }
    sc_gpus_why(c, f);
    c->gpus_used = 1;
    /* Alone (--gpus all's choice, or the method): the walk draws from its own counter again. */
    nbody_tree_share_walk(c->tree, NULL);
    return nbody_tree_forces_rel(c->tree, f->pos, f->n, eps2, th, alpha, f->acc, c->stream); /* alpha 0: by th */
}

/* The direct sum: across the GPUs where there are peers and the symmetric kernel runs; a peer
 * that fails hands its part back, the call runs here alone and so do the calls after it. */
static bool sc_direct(SimCuda *c, const NbodyForces *f)
{
    if (c->peers && c->split_now && f->kernel == NBODY_KERNEL_SYMMETRIC) {
        char why[256];
        if (sim_peers_symmetric(c->peers, f, c->stream, &c->status, why, sizeof why)) {
            c->gpus_used = sim_peers_gpus(c->peers);
            snprintf(c->gpus_note, sizeof c->gpus_note, "%s", c->peers_note);
            return !sc_failed(c);
        }
        sc_peers_lost(c, why);
    }
    sc_gpus_why(c, f);
    c->gpus_used = 1;
    return CUDA_CHECK(&c->status, nbody_forces_launch(f, c->stream));
}

/* The accelerations of f->pos into f->acc, and the kick where f->vel is given: one fused launch of
 * the direct kernel; or the forces alone (the tree's call, or the direct kernel's where halos are
 * fields), the fields' step (which counts the friction's work in the kick to come), then the
 * kick of every body. False after a failure (kept). */
static bool sc_launch(SimCuda *c, const NbodyForces *f, float theta, float alpha)
{
    NbodyForces alone = *f;
    alone.vel = NULL;
    if (!sc_treelike(c->force)) {
        if (!c->field) return sc_direct(c, f);
        if (!sc_direct(c, &alone)) return false;
    } else {
        const float eps2 = (float)f->eps2, th = sim_opening_theta(c->force, theta, alpha);
        if (!CUDA_CHECK(&c->status, sc_tree(c, f, eps2, th, alpha)) || sc_failed(c)) return false;
    }
    const NbodyHaloKick kick = {f->half_kick, f->next_kick, f->damping};
    if (c->field && !CUDA_CHECK(&c->status, nbody_halo_forces_launch(c->field, f->pos, f->acc, c->vel, (float)f->eps2,
                                                                     f->vel ? &kick : NULL, c->stream)))
        return false;
    NbodyForces all = *f;
    all.n = c->n;
    return !f->vel || CUDA_CHECK(&c->status, nbody_kick_launch(&all, c->stream));
}

static NbodyForces sc_forces(const SimCuda *c, const float4 *pos, float softening)
{
    NbodyForces f = {
        .kernel = sc_kernel(c->kernel),
        .precision = sc_precision(c->precision),
        .shape = c->shape,
        .n = c->stars,
        .eps2 = (double)softening * softening,
        .pos = pos,
        .acc = c->acc,
        .damping = 1.0f,
        .pair_sums = c->pair_sums,
        .pair_sums_bytes = c->pair_sums_bytes,
    };
    return f;
}

/* The kernel the default stands for here; threads per body or a block size, mtpb's knobs, ask
 * for mtpb. */
static SimKernel sc_resolve(const SimCuda *c, SimKernel k, int q, int block)
{
    if (k == SIM_KERNEL_DEFAULT && (q > 0 || block > 0)) return SIM_KERNEL_MTPB;
    return sim_kernel_resolve(k, c->precision, c->stars, c->sm_count);
}

/* The symmetric kernel's least scratch for n stars: one part. */
static size_t sc_least_sums(long long n)
{
    return nbody_pair_sums_bytes(NBODY_KERNEL_SYMMETRIC, nbody_symmetric_shape((int)n, 1, 1), (int)n);
}

/* The launch shape for kernel k with the caller's threads per body and block size (0 = chosen).
 * sums_budget: device memory the symmetric kernel's scratch may take. */
static int sc_shape(const SimCuda *c, SimKernel k, int q, int block, size_t sums_budget, NbodyShape *out, char *err,
                    size_t errlen)
{
    if (q < 0 || block < 0) {
        snprintf(err, errlen, "threads per body %d, block size %d: 0 chooses, negative is not a size", q, block);
        return -1;
    }
    NbodyShape s;
    if (k == SIM_KERNEL_SYMMETRIC) {
        s = nbody_symmetric_shape(c->stars, c->sm_count, sums_budget > 0 ? sums_budget : 1);
        if (q > 0) s.q = q;
        if (block > 0) s.block = block;
    } else if (k == SIM_KERNEL_MTPB) {
        s = nbody_choose_shape(c->stars, c->sm_count, sc_precision(c->precision), q, block);
    } else {
        if (q > 1) {
            snprintf(err, errlen, "%d threads per body: only the mtpb kernel splits a body across threads", q);
            return -1;
        }
        s = nbody_plain_shape(block);
    }
    if (nbody_shape_check(sc_kernel(k), sc_precision(c->precision), s, err, errlen) != 0) return -1;
    *out = s;
    return 0;
}

/* Makes the symmetric kernel's scratch fit kernel k at shape s (kept when large enough; the old
 * one kept too when the new one cannot be had). Returns 0, or -1 with err. */
static int sc_size_sums(SimCuda *c, SimKernel k, NbodyShape s, char *err, size_t errlen)
{
    const size_t need = nbody_pair_sums_bytes(sc_kernel(k), s, c->stars);
    if (need <= c->pair_sums_bytes) return 0;
    void *p = NULL;
    CudaStatus st = {0};
    if (!CUDA_CHECK(&st, cudaMalloc(&p, need))) {
        snprintf(err, errlen, "the %s kernel needs %.0f MiB of GPU memory for %d %s: %s", sim_kernel_name(k),
                 need / 1048576.0, c->stars, c->halos.count ? "stars" : "bodies", st.message);
        return -1;
    }
    cudaFree(c->pair_sums);
    c->pair_sums = p;
    c->pair_sums_bytes = need;
    return 0;
}

/* Writes positions and velocities of b to the device, and the speeds where a buffer takes them;
 * the accelerations b carries where they are this backend's (sim_read's), else zeros. */
static bool sc_upload(SimCuda *c, const Bodies *b)
{
    float4 *pos;
    float *speed;
    const bool carried = b->acc && b->acc_info.backend == SIM_BACKEND_CUDA;
    float4 *acc = NULL;
    size_t bytes = (size_t)c->n * sizeof(float4);
    if (carried && !(acc = malloc(bytes))) return sc_fail(c, "CUDA backend: out of host memory");
    for (int i = 0; carried && i < c->n; i++)
        acc[i] = (float4){.x = b->acc[3 * (size_t)i], .y = b->acc[3 * (size_t)i + 1], .z = b->acc[3 * (size_t)i + 2]};
    if (!sc_map(c, &pos, &speed)) {
        free(acc);
        return false;
    }
    /* Other bodies' accelerations are no estimate of these (the error-based test reads them). */
    bool ok = CUDA_CHECK(&c->status, cudaMemcpyAsync(pos, b->pos, bytes, cudaMemcpyHostToDevice, c->stream)) &&
              CUDA_CHECK(&c->status, cudaMemcpyAsync(c->vel, b->vel, bytes, cudaMemcpyHostToDevice, c->stream)) &&
              CUDA_CHECK(&c->status, carried ? cudaMemcpyAsync(c->acc, acc, bytes, cudaMemcpyHostToDevice, c->stream)
                                             : cudaMemsetAsync(c->acc, 0, bytes, c->stream));
    if (ok && speed) ok = CUDA_CHECK(&c->status, nbody_speed_launch(c->vel, speed, c->n, c->stream));
    sc_unmap(c);
    ok = CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream)) && ok;
    free(acc);
    if (!ok) return false;
    memcpy(c->tags, b->tag, (size_t)c->n);
    c->acc_softening = NAN;
    if (carried && b->acc_info.force == (int)c->force) {
        /* The run goes on from them as if never interrupted (another method's: computed again). */
        c->acc_softening = b->acc_info.softening;
        c->acc_alpha = b->acc_info.alpha;
        c->acc_theta_asked = b->acc_info.theta;
        c->acc_theta = sim_opening_theta(c->force, c->acc_theta_asked, c->acc_alpha);
    }
    c->rebuild = 0; /* other bodies: the next call builds (set again, which drops the last build) */
    gpu_choice_reset(&c->choice); /* and --gpus all times its two ways again */
    return true;
}

/* The CUDA device that runs the current GL context, or false with why naming the renderer. */
static bool sc_gl_device(int *device, char *why, size_t whylen)
{
    unsigned int count = 0;
    int devices[4];
    CudaStatus st = {0};
    if (CUDA_CHECK(&st, cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll)) && count > 0) {
        *device = devices[0];
        return true;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(why, whylen, "the OpenGL context runs on %s, not on a CUDA device (%s): CUDA-GL interop needs NVIDIA's "
                          "OpenGL driver",
             renderer ? renderer : "an unknown renderer", st.message[0] ? st.message : "no device listed");
    return false;
}

static void cuda_destroy(void *impl)
{
    SimCuda *c = impl;
    if (!c) return;
    sim_peers_destroy(c->peers);
    nbody_tree_destroy(c->tree);
    nbody_halo_field_destroy(c->field);
    for (int i = 0; i < c->nres; i++) cudaGraphicsUnregisterResource(c->res[i]);
    cudaFree(c->pos);
    cudaFree(c->vel);
    cudaFree(c->acc);
    cudaFree(c->scratch);
    cudaFree(c->pair_sums);
    cudaFree(c->partials);
    cudaFreeHost(c->landing.pos);
    cudaFreeHost(c->landing.vel);
    cudaFreeHost(c->landing.acc);
    free(c->landing.tags);
    if (c->landing.done) cudaEventDestroy(c->landing.done);
    cudaFree(c->energy.pos);
    cudaFree(c->energy.partials);
    cudaFree(c->energy.vel);
    cudaFreeHost(c->energy.host);
    if (c->energy.start) cudaEventDestroy(c->energy.start);
    if (c->energy.stop) cudaEventDestroy(c->energy.stop);
    cudaFree(c->nonfinite);
    if (c->steps_begin) cudaEventDestroy(c->steps_begin);
    if (c->steps_end) cudaEventDestroy(c->steps_end);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c->tags);
    free(c);
}

/* Device memory for n bodies, the last `halos` of them halo centres: velocities, accelerations,
 * our own positions without a buffer, the energy partial sums, the divergence flag, and for the
 * stars the symmetric kernel's least scratch, the tree and the fields' sums. */
static size_t sc_bytes(long long n, int halos, bool own_positions, SimKernel k, SimForce force)
{
    const long long stars = n - halos;
    size_t per_body = (own_positions ? 3 : 2) * sizeof(float4);
    size_t sums = k == SIM_KERNEL_SYMMETRIC && !sc_treelike(force) ? sc_least_sums(stars) : 0;
    size_t tree = sc_tree_bytes(force, (int)stars);
    size_t fields = halos > 0 ? nbody_halo_field_bytes((int)stars) : 0;
    return (size_t)n * per_body + 2 * sizeof(double) * (size_t)((n + 255) / 256) + sums + tree + fields;
}

/* Device memory for the bodies and the launch shape of c's kernel: 0, or -1 with err naming
 * the largest N that fits or what is wrong with the shape. */
static int sc_plan(SimCuda *c, const SimDesc *desc, bool own_positions, char *err, size_t errlen)
{
    size_t free_bytes = 0, total_bytes = 0;
    CudaStatus st = {0};
    if (!CUDA_CHECK(&st, cudaMemGetInfo(&free_bytes, &total_bytes))) {
        snprintf(err, errlen, "%s", st.message);
        return -1;
    }
    /* STARBURST_GPU_MEMORY_MIB stands in for a smaller GPU, so the refusal can be tested. */
    const char *limit = getenv("STARBURST_GPU_MEMORY_MIB");
    if (limit && atof(limit) > 0 && atof(limit) * 1048576.0 < (double)free_bytes)
        free_bytes = (size_t)(atof(limit) * 1048576.0);
    size_t usable = free_bytes / 10 * 9;
    const int halos = c->halos.count;
    const size_t need = sc_bytes(c->n, halos, own_positions, c->kernel, c->force);
    if (need > usable) {
        /* The largest count of stars whose buffers fit: sc_bytes grows with it (auto's tree from its
         * crossover on only adds), so bisect. */
        long long lo = 0, hi = (long long)(usable / (2 * sizeof(float4))) + 1;
        while (hi - lo > 1) {
            long long mid = lo + (hi - lo) / 2;
            if (sc_bytes(mid + halos, halos, own_positions, c->kernel, sc_resolve_force(desc->force, (int)mid)) <=
                usable)
                lo = mid;
            else hi = mid;
        }
        if (halos > 0)
            snprintf(err, errlen,
                     "%d stars and %d halo centres need %.0f MiB of GPU memory, %s has %.0f MiB free: at most %lld "
                     "stars fit",
                     c->stars, halos, need / 1048576.0, c->device_name, free_bytes / 1048576.0, lo);
        else
            snprintf(err, errlen,
                     "%d bodies need %.0f MiB of GPU memory, %s has %.0f MiB free: at most %lld bodies fit", c->n,
                     need / 1048576.0, c->device_name, free_bytes / 1048576.0, lo);
        return -1;
    }
    /* The symmetric kernel's scratch may take what the bodies leave. */
    const size_t sums_budget = usable - need + (c->kernel == SIM_KERNEL_SYMMETRIC ? sc_least_sums(c->stars) : 0);
    return sc_shape(c, c->kernel, desc->threads_per_body, desc->block_size, sums_budget, &c->shape, err, errlen);
}

void *sim_cuda_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen)
{
    SimCuda *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "CUDA backend: out of memory");
        return NULL;
    }
    c->n = initial->n;
    if (desc->halos) c->halos = *desc->halos;
    c->stars = c->n - c->halos.count;
    c->force = sc_resolve_force(desc->force, c->stars);
    c->res_pos = c->res_speed = -1;
    c->acc_softening = NAN;
    const bool interop = desc->position_vbo != 0 || desc->speed_vbo != 0;

    /* With a GL buffer, run on the device that drives the GL context. */
    int device = 0;
    if (interop) {
        if (!sc_gl_device(&device, err, errlen)) {
            cuda_destroy(c);
            return NULL;
        }
        if (!CUDA_CHECK(&c->status, cudaSetDevice(device))) goto fail;
    } else if (!CUDA_CHECK(&c->status, cudaGetDevice(&device))) {
        goto fail;
    }
    struct cudaDeviceProp prop;
    if (!CUDA_CHECK(&c->status, cudaGetDeviceProperties(&prop, device))) goto fail;
    snprintf(c->device_name, sizeof c->device_name, "%s", prop.name);
    c->sm_count = prop.multiProcessorCount;

    c->kernel = sc_resolve(c, desc->kernel, desc->threads_per_body, desc->block_size);
    c->precision = desc->precision;

    const bool own_positions = desc->position_vbo == 0;
    const char *fail_after = getenv("STARBURST_CUDA_FAIL_AFTER");
    c->fail_after = fail_after ? atol(fail_after) : 0;
    if (sc_plan(c, desc, own_positions, err, errlen) != 0) {
        cuda_destroy(c);
        return NULL;
    }

    const size_t bytes = (size_t)c->n * sizeof(float4);
    if (!CUDA_CHECK(&c->status, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking))) goto fail;
    if (!CUDA_CHECK(&c->status, cudaEventCreate(&c->steps_begin))) goto fail;
    if (!CUDA_CHECK(&c->status, cudaEventCreate(&c->steps_end))) goto fail;
    if (own_positions && !CUDA_CHECK(&c->status, cudaMalloc((void **)&c->pos, bytes))) goto fail;
    if (!CUDA_CHECK(&c->status, cudaMalloc((void **)&c->vel, bytes))) goto fail;
    if (!CUDA_CHECK(&c->status, cudaMalloc((void **)&c->acc, bytes))) goto fail;
    if (sc_size_sums(c, c->kernel, c->shape, c->status.message, sizeof c->status.message) != 0) goto fail;
    if (!CUDA_CHECK(&c->status, cudaMalloc((void **)&c->nonfinite, sizeof(int)))) goto fail;
    c->tags = malloc((size_t)c->n);
    if (!c->tags) {
        sc_fail(c, "CUDA backend: out of host memory");
        goto fail;
    }
    if (sc_treelike(c->force)) {
        char why[256];
        if (!(c->tree = nbody_tree_create(c->stars, why, sizeof why))) {
            sc_fail(c, why);
            goto fail;
        }
    }
    if (c->halos.count > 0) {
        char why[256];
        if (!(c->field = nbody_halo_field_create(&c->halos, c->stars, why, sizeof why))) {
            sc_fail(c, why);
            goto fail;
        }
    }

    if (desc->position_vbo) {
        c->res_pos = c->nres;
        if (!CUDA_CHECK(&c->status, cudaGraphicsGLRegisterBuffer(&c->res[c->nres++], desc->position_vbo,
                                                                 cudaGraphicsRegisterFlagsNone)))
            goto fail;
    }
    if (desc->speed_vbo) {
        c->res_speed = c->nres;
        if (!CUDA_CHECK(&c->status, cudaGraphicsGLRegisterBuffer(&c->res[c->nres++], desc->speed_vbo,
                                                                 cudaGraphicsRegisterFlagsNone)))
            goto fail;
    }
    if (!sc_upload(c, initial)) goto fail;
    c->gpus_used = 1;
    c->choose = desc->gpus < 0;
    gpu_choice_reset(&c->choice);
    c->split_now = true;
    if (desc->gpus != 0 && desc->gpus != 1)
        c->peers = sim_peers_create(device, desc->gpus, c->stars, c->peers_note, sizeof c->peers_note);
    /* Until the first step: the GPUs it will run on. */
    char why[256];
    if (c->peers && (sc_treelike(c->force) ? sim_peers_tree_able(c->peers, why, sizeof why)
                                           : c->kernel == SIM_KERNEL_SYMMETRIC))
        c->gpus_used = sim_peers_gpus(c->peers);
    snprintf(c->gpus_note, sizeof c->gpus_note, "%s", c->peers_note);
    return c;
fail:
    if (c->nres > 0 && c->res[c->nres - 1] == NULL) c->nres--;
    snprintf(err, errlen, "%s", c->status.message);
    cuda_destroy(c);
    return NULL;
}

static void cuda_advance(void *impl, const SimParams *p, int steps)
{
    SimCuda *c = impl;
    if (sc_failed(c) || steps <= 0) return;
    /* A failing CUDA call, on demand, so that the hand-over to the CPU can be tested. */
    if (c->fail_after > 0 && --c->fail_after == 0) {
        sc_fail(c, "cuda: injected failure (STARBURST_CUDA_FAIL_AFTER)");
        return;
    }
    float4 *pos;
    float *speed;
    double t0 = (1e3 * clock_seconds());
    bool mapped = sc_map(c, &pos, &speed);
    c->map_ms = (1e3 * clock_seconds()) - t0;
    if (mapped) {
        NbodyForces f = sc_forces(c, pos, p->softening);
        bool ok = true;
        c->split_now = !c->choose || gpu_choice_split(&c->choice);
        /* Trees shared with peers rebuild every call: a refit would let them drift apart. */
        const int rebuild = p->rebuild_every > 1 && !c->peers ? p->rebuild_every : 1;
        if (c->tree && c->rebuild != rebuild) {
            nbody_tree_set_rebuild(c->tree, rebuild);
            c->rebuild = rebuild;
        }
        /* The stored accelerations are those of the current positions unless softening (or the
         * tree's opening angle) changed. */
        const float alpha = p->alpha > 0 ? p->alpha : 0;
        const bool theta_changed =
            sc_treelike(c->force) && (c->acc_theta != sim_opening_theta(c->force, p->theta, alpha) || c->acc_alpha != alpha);
        if (!(c->acc_softening == p->softening) || theta_changed) {
            ok = sc_launch(c, &f, p->theta, alpha);
            if (ok) {
                c->acc_softening = p->softening;
                c->acc_theta = sim_opening_theta(c->force, p->theta, alpha);
                c->acc_theta_asked = p->theta;
                c->acc_alpha = alpha;
            }
        }
        f.vel = c->vel;
        f.damping = p->damping;
        /* Every drift and kick of the advance raises the flag where it writes NaN or Inf, in any body. */
        f.nonfinite = c->nonfinite;
        c->gpu_ms = 0;
        if (ok) ok = CUDA_CHECK(&c->status, cudaMemsetAsync(c->nonfinite, 0, sizeof(int), c->stream));
        if (ok) ok = CUDA_CHECK(&c->status, cudaEventRecord(c->steps_begin, c->stream));
        /* The energy friction takes out goes with each centre (kernels/halo_field.h), counted kick by
         * kick: the opening one applies the last step's friction, found again in the stored
         * accelerations. */
        if (ok && c->field)
            ok = CUDA_CHECK(&c->status, nbody_halo_opening_loss_launch(c->field, pos, c->acc, c->vel, (float)f.eps2,
                                                                       0.5f * p->dt, c->stream));
        for (int s = 0; ok && s < steps; s++) {
            const bool last = s == steps - 1;
            /* The first drift of an advance also gives the opening half kick. */
            const float open = s == 0 ? 0.5f * p->dt : 0.0f;
            ok = CUDA_CHECK(&c->status,
                            nbody_drift_launch(pos, c->vel, c->acc, c->n, p->dt, open, c->nonfinite, c->stream));
            /* The kick joins this step's closing half kick to the next step's opening one, damping
             * the synchronised velocity between them; the last leaves the opening to the next advance. */
            f.half_kick = 0.5f * p->dt;
            f.next_kick = last ? 0.0f : 0.5f * p->dt;
            f.speed = last ? speed : NULL;
            if (ok) ok = sc_launch(c, &f, p->theta, alpha);
        }
        bool timed = ok && CUDA_CHECK(&c->status, cudaEventRecord(c->steps_end, c->stream));
        if (ok)
            CUDA_CHECK(&c->status,
                       cudaMemcpyAsync(&c->diverged, c->nonfinite, sizeof(int), cudaMemcpyDeviceToHost, c->stream));
        /* The steps finish first, so the unmap is timed alone. */
        CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream));
        float elapsed = 0;
        if (timed && CUDA_CHECK(&c->status, cudaEventElapsedTime(&elapsed, c->steps_begin, c->steps_end)))
            c->gpu_ms = elapsed;
        /* --gpus all: this advance times its mode (where the peers ran, or the primary alone). */
        if (c->choose && c->peers && ok && (c->gpus_used > 1) == c->split_now &&
            gpu_choice_record(&c->choice, c->split_now, c->gpu_ms / steps) && c->choice.decided == 1)
            snprintf(c->gpus_note, sizeof c->gpus_note, "%s", c->peers_note);
        t0 = (1e3 * clock_seconds());
        sc_unmap(c);
        CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream));
        c->map_ms += (1e3 * clock_seconds()) - t0;
    }
}

static void cuda_read(void *impl, Bodies *out)
{
    SimCuda *c = impl;
    memcpy(out->tag, c->tags, (size_t)c->n);
    if (out->acc) out->acc_info = (BodiesAccInfo){0};
    if (sc_failed(c)) return;
    float4 *pos;
    float *speed;
    const size_t bytes = (size_t)c->n * sizeof(float4);
    float4 *acc = out->acc ? malloc(bytes) : NULL;
    if (sc_map(c, &pos, &speed)) {
        CUDA_CHECK(&c->status, cudaMemcpyAsync(out->pos, pos, bytes, cudaMemcpyDeviceToHost, c->stream));
        CUDA_CHECK(&c->status, cudaMemcpyAsync(out->vel, c->vel, bytes, cudaMemcpyDeviceToHost, c->stream));
        if (acc) CUDA_CHECK(&c->status, cudaMemcpyAsync(acc, c->acc, bytes, cudaMemcpyDeviceToHost, c->stream));
        sc_unmap(c);
        CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream));
    }
    /* Without host memory for them, none carried: a load computes them again. */
    if (acc && !sc_failed(c)) {
        for (int i = 0; i < c->n; i++) {
            out->acc[3 * (size_t)i] = acc[i].x;
            out->acc[3 * (size_t)i + 1] = acc[i].y;
            out->acc[3 * (size_t)i + 2] = acc[i].z;
        }
        out->acc_info = (BodiesAccInfo){.backend = SIM_BACKEND_CUDA,
                                        .force = c->force,
                                        .softening = c->acc_softening,
                                        .theta = c->acc_theta_asked,
                                        .alpha = c->acc_alpha};
    }
    free(acc);
}

static int cuda_read_begin(void *impl)
{
    SimCuda *c = impl;
    CudaLanding *l = &c->landing;
    l->state = LANDING_NONE;
    if (sc_failed(c)) return -1;
    const size_t n = (size_t)c->n, bytes = n * sizeof(float4);
    bool ok = true;
    if (l->capacity < c->n) {
        cudaFreeHost(l->pos);
        cudaFreeHost(l->vel);
        cudaFreeHost(l->acc);
        free(l->tags);
        *l = (CudaLanding){.done = l->done};
        ok = CUDA_CHECK(&c->status, cudaMallocHost((void **)&l->pos, bytes)) &&
             CUDA_CHECK(&c->status, cudaMallocHost((void **)&l->vel, bytes)) &&
             CUDA_CHECK(&c->status, cudaMallocHost((void **)&l->acc, 3 * n * sizeof(float))) &&
             ((l->tags = malloc(n)) != NULL || sc_fail(c, "CUDA backend: out of host memory"));
        if (ok) l->capacity = c->n;
    }
    if (ok && !l->done) ok = CUDA_CHECK(&c->status, cudaEventCreateWithFlags(&l->done, cudaEventDisableTiming));
    if (ok && !c->scratch) ok = CUDA_CHECK(&c->status, cudaMalloc((void **)&c->scratch, bytes));
    float4 *pos;
    float *speed;
    if (!ok || !sc_map(c, &pos, &speed)) return -1;
    CUDA_CHECK(&c->status, cudaMemcpyAsync(l->pos, pos, bytes, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(&c->status, cudaMemcpyAsync(l->vel, c->vel, bytes, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(&c->status, nbody_pack_xyz_launch(c->acc, (float *)c->scratch, c->n, c->stream));
    CUDA_CHECK(&c->status, cudaMemcpyAsync(l->acc, c->scratch, 3 * n * sizeof(float), cudaMemcpyDeviceToHost, c->stream));
    sc_unmap(c);
    CUDA_CHECK(&c->status, cudaEventRecord(l->done, c->stream));
    if (sc_failed(c)) return -1;
    memcpy(l->tags, c->tags, n);
    l->acc_info = (BodiesAccInfo){.backend = SIM_BACKEND_CUDA,
                                  .force = c->force,
                                  .softening = c->acc_softening,
                                  .theta = c->acc_theta_asked,
                                  .alpha = c->acc_alpha};
    l->state = LANDING_QUEUED;
    return 0;
}

static int cuda_read_landed(void *impl, SimLanding *out)
{
    SimCuda *c = impl;
    CudaLanding *l = &c->landing;
    if (l->state == LANDING_NONE || sc_failed(c)) return -1;
    if (l->state == LANDING_QUEUED) {
        const cudaError_t q = cudaEventQuery(l->done);
        if (q == cudaErrorNotReady) return 0;
        if (!CUDA_CHECK(&c->status, q)) {
            l->state = LANDING_NONE;
            return -1;
        }
        l->state = LANDING_LANDED;
    }
    *out = (SimLanding){.n = c->n, .pos = l->pos, .vel = l->vel, .acc = l->acc, .tags = l->tags,
                        .acc_info = l->acc_info};
    return 1;
}

static int cuda_read_positions(void *impl, float *pos4, uint8_t *tags)
{
    SimCuda *c = impl;
    if (sc_failed(c)) return -1;
    memcpy(tags, c->tags, (size_t)c->n);
    float4 *pos;
    float *speed;
    if (sc_map(c, &pos, &speed)) {
        CUDA_CHECK(&c->status, cudaMemcpyAsync(pos4, pos, (size_t)c->n * sizeof(float4), cudaMemcpyDeviceToHost,
                                               c->stream));
        sc_unmap(c);
        CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream));
    }
    return sc_failed(c) ? -1 : 0;
}

/* Our own positions alone (a vertex buffer's are GL's, mapped only within a call), on the current
 * device. */
static int cuda_device_positions(void *impl, const float **pos4, uint8_t *tags)
{
    SimCuda *c = impl;
    struct cudaPointerAttributes at;
    int current = -1;
    if (sc_failed(c) || !c->pos || cudaGetDevice(&current) != cudaSuccess ||
        cudaPointerGetAttributes(&at, c->pos) != cudaSuccess || at.device != current) {
        (void)cudaGetLastError();
        return -1;
    }
    if (!CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream))) return -1;
    memcpy(tags, c->tags, (size_t)c->n);
    *pos4 = (const float *)c->pos;
    return 0;
}

/* One column packed on the device (n x 3 floats) and copied once into the caller's memory. */
static int cuda_read_xyz(void *impl, bool velocities, float *xyz)
{
    SimCuda *c = impl;
    if (sc_failed(c)) return -1;
    const size_t bytes = (size_t)c->n * 3 * sizeof(float);
    /* Packed into the accelerations' scratch (n float4, made here at the first read and kept): a
     * read allocates nothing, and its one copy is a cudaMemcpy's of the same bytes. */
    if (!c->scratch && cudaMalloc((void **)&c->scratch, (size_t)c->n * sizeof(float4)) != cudaSuccess) {
        (void)cudaGetLastError(); /* out of device memory: sim_read serves */
        c->scratch = NULL;
        return -1;
    }
    float *packed = (float *)c->scratch;
    float4 *pos;
    float *speed;
    if (sc_map(c, &pos, &speed)) {
        CUDA_CHECK(&c->status, nbody_pack_xyz_launch(velocities ? c->vel : pos, packed, c->n, c->stream));
        sc_unmap(c);
        CUDA_CHECK(&c->status, cudaMemcpyAsync(xyz, packed, bytes, cudaMemcpyDeviceToHost, c->stream));
        CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream));
    }
    return sc_failed(c) ? -1 : 0;
}

static int cuda_load(void *impl, const Bodies *b, char *err, size_t errlen)
{
    SimCuda *c = impl;
    c->diverged = 0;
    if (sc_failed(c) || !sc_upload(c, b)) {
        snprintf(err, errlen, "%s", c->status.message);
        return -1;
    }
    return 0;
}

/* The room for the energy's partial sums, made at the first energy asked. */
static bool sc_partials(SimCuda *c)
{
    return c->partials ||
           CUDA_CHECK(&c->status, cudaMalloc((void **)&c->partials, 2 * sizeof(double) * (size_t)nbody_energy_tiles(c->stars)));
}

/* The pairs of stars and their kinetic energy on the device; with halos as fields, the centres'
 * kinetic energy, the fields' potential and what friction took out on the host, from the bodies
 * copied there (sim_energy_fields). */
static SimEnergy cuda_energy(void *impl, float softening)
{
    SimCuda *c = impl;
    SimEnergy e = {.kinetic = NAN, .potential = NAN};
    float4 *pos;
    float *speed;
    const size_t bytes = (size_t)c->n * sizeof(float4);
    float4 *hpos = NULL, *hvel = NULL;
    if (c->field && (!(hpos = malloc(bytes)) || !(hvel = malloc(bytes)))) {
        sc_fail(c, "CUDA backend: out of host memory");
        free(hpos);
        return e;
    }
    if (!sc_failed(c) && sc_partials(c) && sc_map(c, &pos, &speed)) {
        double k, u;
        const double eps2 = (double)softening * softening;
        bool ok = CUDA_CHECK(&c->status, nbody_energy(pos, c->vel, c->stars, eps2, c->partials, c->stream, &k, &u));
        if (ok && c->field)
            ok = CUDA_CHECK(&c->status, cudaMemcpyAsync(hpos, pos, bytes, cudaMemcpyDeviceToHost, c->stream)) &&
                 CUDA_CHECK(&c->status, cudaMemcpyAsync(hvel, c->vel, bytes, cudaMemcpyDeviceToHost, c->stream));
        sc_unmap(c);
        ok = CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream)) && ok;
        if (ok) {
            e = (SimEnergy){.kinetic = k, .potential = u};
            if (c->field) {
                const Bodies b = {.n = c->n, .pos = (float *)hpos, .vel = (float *)hvel};
                const SimEnergy f = sim_energy_fields(&b, &c->halos, softening, omp_get_max_threads());
                e = (SimEnergy){.kinetic = k + f.kinetic, .potential = u + f.potential, .friction = f.friction};
            }
        }
    }
    free(hpos);
    free(hvel);
    return e;
}

/* A share of the energy's tiles takes about this much of the device's time: beside a frame's steps
 * at 60 frames a second, a few per cent of the frame. */
#define ENERGY_SHARE_MS 1.0
/* The first share, before one is timed: pairs of stars. */
#define ENERGY_FIRST_SHARE_PAIRS (1 << 28)

static int cuda_energy_begin(void *impl, const Bodies *of, float softening)
{
    SimCuda *c = impl;
    CudaEnergy *e = &c->energy;
    e->n = 0;
    if (sc_failed(c) || !of || of->n != c->n) return -1;
    const int n = c->stars, tiles = nbody_energy_tiles(n);
    const size_t bytes = (size_t)n * sizeof(float4);
    bool ok = true;
    if (e->capacity < n) {
        cudaFree(e->pos);
        cudaFree(e->vel);
        e->pos = e->vel = NULL;
        e->capacity = 0;
        ok = CUDA_CHECK(&c->status, cudaMalloc((void **)&e->pos, bytes)) &&
             CUDA_CHECK(&c->status, cudaMalloc((void **)&e->vel, bytes));
        if (ok) e->capacity = n;
    }
    if (ok && e->host_tiles < tiles) {
        cudaFreeHost(e->host);
        cudaFree(e->partials);
        e->host = NULL;
        e->partials = NULL;
        e->host_tiles = 0;
        ok = CUDA_CHECK(&c->status, cudaMallocHost((void **)&e->host, 2 * sizeof(double) * (size_t)tiles)) &&
             CUDA_CHECK(&c->status, cudaMalloc((void **)&e->partials, 2 * sizeof(double) * (size_t)tiles));
        if (ok) e->host_tiles = tiles;
    }
    if (ok && !e->start)
        ok = CUDA_CHECK(&c->status, cudaEventCreate(&e->start)) && CUDA_CHECK(&c->status, cudaEventCreate(&e->stop));
    if (ok)
        ok = CUDA_CHECK(&c->status, cudaMemcpyAsync(e->pos, of->pos, bytes, cudaMemcpyHostToDevice, c->stream)) &&
             CUDA_CHECK(&c->status, cudaMemcpyAsync(e->vel, of->vel, bytes, cudaMemcpyHostToDevice, c->stream));
    if (!ok || sc_failed(c)) return -1;
    if (e->share <= 0) /* pairs a tile: about n^2 / tiles */
        e->share = (int)fmin(fmax(ENERGY_FIRST_SHARE_PAIRS * (double)tiles / ((double)n * n + 1), 1.0), (double)tiles);
    e->n = n;
    e->tiles = tiles;
    e->next = 0;
    e->eps2 = (double)softening * softening;
    e->queued = false;
    return 0;
}

static int cuda_energy_poll(void *impl, SimEnergy *stars)
{
    SimCuda *c = impl;
    CudaEnergy *e = &c->energy;
    if (e->n == 0 || sc_failed(c)) return -1;
    if (e->queued) {
        const cudaError_t q = cudaEventQuery(e->stop);
        if (q == cudaErrorNotReady) return 0;
        e->queued = false;
        if (!CUDA_CHECK(&c->status, q)) {
            e->n = 0;
            return -1;
        }
        if (e->next == e->tiles) { /* the last share and the partials' copy are done */
            *stars = (SimEnergy){0};
            nbody_energy_total(e->host, e->n, &stars->kinetic, &stars->potential);
            e->n = 0;
            return 1;
        }
        float ms = 0;
        if (cudaEventElapsedTime(&ms, e->start, e->stop) == cudaSuccess && ms > 0)
            e->share = (int)fmin(fmax(e->share * ENERGY_SHARE_MS / ms, 1.0), (double)e->tiles);
    }
    const int count = e->share < e->tiles - e->next ? e->share : e->tiles - e->next;
    bool ok = CUDA_CHECK(&c->status, cudaEventRecord(e->start, c->stream)) &&
              CUDA_CHECK(&c->status, nbody_energy_part(e->pos, e->vel, e->n, e->eps2, e->next, count, e->partials, c->stream));
    e->next += count;
    if (ok && e->next == e->tiles)
        ok = CUDA_CHECK(&c->status, cudaMemcpyAsync(e->host, e->partials, 2 * sizeof(double) * (size_t)e->tiles,
                                                    cudaMemcpyDeviceToHost, c->stream));
    ok = ok && CUDA_CHECK(&c->status, cudaEventRecord(e->stop, c->stream));
    if (!ok) {
        e->n = 0;
        return -1;
    }
    e->queued = true;
    return 0;
}

static void cuda_accelerations(void *impl, float softening, float *acc3)
{
    SimCuda *c = impl;
    const size_t bytes = (size_t)c->n * sizeof(float4);
    float4 *host = malloc(bytes);
    float4 *pos;
    float *speed;
    bool ok = host != NULL || sc_fail(c, "CUDA backend: out of host memory");
    if (ok && !c->scratch) ok = CUDA_CHECK(&c->status, cudaMalloc((void **)&c->scratch, bytes));
    if (ok && !sc_failed(c) && sc_map(c, &pos, &speed)) {
        NbodyForces f = sc_forces(c, pos, softening);
        f.acc = c->scratch;
        /* Poisoned with NaN so an element the kernel skips cannot pass for a result; the tree's
         * error-based test reads the previous accelerations there instead: the run's stored ones. */
        const bool rel = c->force == SIM_FORCE_TREE && c->acc_alpha > 0;
        ok = CUDA_CHECK(&c->status, rel ? cudaMemcpyAsync(c->scratch, c->acc, bytes, cudaMemcpyDeviceToDevice, c->stream)
                                        : cudaMemsetAsync(c->scratch, 0xff, bytes, c->stream)) &&
             sc_launch(c, &f, c->acc_theta, c->acc_alpha) &&
             CUDA_CHECK(&c->status, cudaMemcpyAsync(host, c->scratch, bytes, cudaMemcpyDeviceToHost, c->stream));
        sc_unmap(c);
        ok = CUDA_CHECK(&c->status, cudaStreamSynchronize(c->stream)) && ok;
    } else {
        ok = false;
    }
    for (int i = 0; i < c->n; i++) {
        acc3[3 * i] = ok ? host[i].x : NAN;
        acc3[3 * i + 1] = ok ? host[i].y : NAN;
        acc3[3 * i + 2] = ok ? host[i].z : NAN;
    }
    free(host);
}

static int cuda_set_kernel(void *impl, SimKernel k, int q, int block, char *err, size_t errlen)
{
    SimCuda *c = impl;
    NbodyShape s;
    k = sc_resolve(c, k, q, block);
    size_t free_bytes = 0, total_bytes = 0;
    CudaStatus st = {0};
    if (!CUDA_CHECK(&st, cudaMemGetInfo(&free_bytes, &total_bytes))) free_bytes = 0;
    if (sc_shape(c, k, q, block, free_bytes / 10 * 9, &s, err, errlen) != 0) return -1;
    if (sc_size_sums(c, k, s, err, errlen) != 0) return -1;
    c->kernel = k;
    c->shape = s;
    gpu_choice_reset(&c->choice);
    return 0;
}

static void cuda_launch_shape(const void *impl, int *q, int *block)
{
    const SimCuda *c = impl;
    *q = c->shape.q;
    *block = c->shape.block;
}

static SimKernel cuda_kernel(const void *impl) { return ((const SimCuda *)impl)->kernel; }
static const char *cuda_device_name(const void *impl) { return ((const SimCuda *)impl)->device_name; }
static double cuda_map_ms(const void *impl) { return ((const SimCuda *)impl)->map_ms; }
static double cuda_gpu_ms(const void *impl) { return ((const SimCuda *)impl)->gpu_ms; }

static bool cuda_device_memory(const void *impl, size_t *free_bytes, size_t *total_bytes)
{
    CudaStatus st = {0};
    return CUDA_CHECK(&st, cudaMemGetInfo(free_bytes, total_bytes));
}

static int cuda_gpus(const void *impl, double *exchange_ms)
{
    const SimCuda *c = impl;
    if (exchange_ms) *exchange_ms = c->gpus_used > 1 ? sim_peers_exchange_ms(c->peers) : 0;
    return c->gpus_used;
}
static const char *cuda_gpus_note(const void *impl) { return ((const SimCuda *)impl)->gpus_note; }

static bool cuda_finite(const void *impl) { return !((const SimCuda *)impl)->diverged; }

static const char *cuda_error(const void *impl)
{
    const SimCuda *c = impl;
    return sc_failed(c) ? c->status.message : NULL;
}

bool sim_cuda_probe(char *why, size_t whylen)
{
    int count = 0;
    CudaStatus st = {0};
    if (!CUDA_CHECK(&st, cudaGetDeviceCount(&count)) || count == 0) {
        /* Without NVIDIA's driver the runtime says "driver version is insufficient": say what it means. */
        if (st.error == cudaSuccess) snprintf(why, whylen, "no NVIDIA GPU found");
        else cuda_status_reason(&st, why, whylen);
        return false;
    }
    if (!CUDA_CHECK(&st, nbody_kernels_check())) {
        int dev = 0;
        struct cudaDeviceProp p;
        CudaStatus pst = {0};
        if (CUDA_CHECK(&pst, cudaGetDevice(&dev)) && CUDA_CHECK(&pst, cudaGetDeviceProperties(&p, dev)))
            snprintf(why, whylen, "the kernels cannot run on %s, compute capability %d.%d (%s)", p.name, p.major,
                     p.minor, st.message);
        else
            snprintf(why, whylen, "the kernels cannot run here (%s)", st.message);
        return false;
    }
    return true;
}

/* A switch to the tree takes its memory now; a switch to the direct sum gives it back. */
static int cuda_set_force(void *impl, SimForce f, char *err, size_t errlen)
{
    SimCuda *c = impl;
    f = sc_resolve_force(f, c->stars);
    if (sc_treelike(f) && !c->tree) {
        size_t free_bytes = 0, total_bytes = 0;
        CudaStatus st = {0};
        if (!CUDA_CHECK(&st, cudaMemGetInfo(&free_bytes, &total_bytes))) free_bytes = 0;
        const size_t need = sc_tree_bytes(f, c->stars);
        if (need > free_bytes / 10 * 9) {
            snprintf(err, errlen, "the tree for %d %s needs %.0f MiB of GPU memory, %.0f MiB are free", c->stars,
                     c->halos.count ? "stars" : "bodies", need / 1048576.0, free_bytes / 1048576.0);
            return -1;
        }
        if (!(c->tree = nbody_tree_create(c->stars, err, errlen))) return -1;
        c->rebuild = 0;
    }
    if (!sc_treelike(f)) {
        nbody_tree_destroy(c->tree);
        c->tree = NULL;
        sim_peers_tree_release(c->peers);
    }
    c->force = f;
    c->acc_softening = NAN; /* the next advance starts from this method's accelerations */
    gpu_choice_reset(&c->choice);
    return 0;
}

static SimForce cuda_force(const void *impl) { return ((const SimCuda *)impl)->force; }

static double cuda_interactions_per_body(const void *impl)
{
    const SimCuda *c = impl;
    if (!sc_treelike(c->force) || !c->tree || sc_failed(c)) return 0;
    NbodyTreeStats st;
    nbody_tree_stats(c->tree, &st);
    if (c->gpus_used > 1) sim_peers_tree_counts(c->peers, &st);
    return st.body_body + st.body_cell + st.body_group;
}

static bool cuda_tree_stats(const void *impl, SimTreeStats *out)
{
    const SimCuda *c = impl;
    if (!sc_treelike(c->force) || !c->tree || sc_failed(c)) return false;
    SimTreeStats st;
    nbody_tree_stats(c->tree, &st);
    if (c->gpus_used > 1) sim_peers_tree_counts(c->peers, &st);
    if (!(st.body_body + st.body_cell + st.body_group > 0)) return false; /* no timed call yet */
    *out = st;
    return true;
}

/* The cells come from the device as they are: SimTreeBox is the tree's own record. */
static int cuda_tree_boxes(void *impl, int max_level, SimTreeBox *out, int cap, int *depth)
{
    SimCuda *c = impl;
    if (!sc_treelike(c->force) || !c->tree || sc_failed(c)) return 0;
    int total = 0;
    if (!CUDA_CHECK(&c->status, nbody_tree_boxes(c->tree, max_level, out, cap, &total, depth, c->stream))) total = 0;
    return total;
}

const SimBackendImpl sim_cuda_impl = {
    .destroy = cuda_destroy,
    .advance = cuda_advance,
    .read = cuda_read,
    .read_xyz = cuda_read_xyz,
    .read_positions = cuda_read_positions,
    .device_positions = cuda_device_positions,
    .load = cuda_load,
    .read_begin = cuda_read_begin,
    .read_landed = cuda_read_landed,
    .energy = cuda_energy,
    .energy_begin = cuda_energy_begin,
    .energy_poll = cuda_energy_poll,
    .accelerations = cuda_accelerations,
    .set_kernel = cuda_set_kernel,
    .launch_shape = cuda_launch_shape,
    .kernel = cuda_kernel,
    .device_name = cuda_device_name,
    .map_ms = cuda_map_ms,
    .gpu_ms = cuda_gpu_ms,
    .error = cuda_error,
    .finite = cuda_finite,
    .device_memory = cuda_device_memory,
    .set_force = cuda_set_force,
    .force = cuda_force,
    .interactions_per_body = cuda_interactions_per_body,
    .tree_boxes = cuda_tree_boxes,
    .tree_stats = cuda_tree_stats,
    .gpus = cuda_gpus,
    .gpus_note = cuda_gpus_note,
};

bool sim_cuda_gl_probe(char *why, size_t whylen)
{
    int device = 0;
    return sc_gl_device(&device, why, whylen);
}

int sim_cuda_check(const SimDesc *desc, int n, char *err, size_t errlen)
{
    const int halos = desc->halos ? desc->halos->count : 0;
    if (halos < 0 || halos > NBODY_HALO_MAX || n - halos < 1) {
        snprintf(err, errlen, "%d halo fields for %d bodies: 0 to %d, and a star besides, are possible", halos, n,
                 NBODY_HALO_MAX);
        return -1;
    }
    SimCuda c = {.n = n, .stars = n - halos, .precision = desc->precision,
                 .force = sc_resolve_force(desc->force, n - halos)};
    if (halos > 0) c.halos = *desc->halos;
    int device = 0;
    struct cudaDeviceProp prop;
    if (!CUDA_CHECK(&c.status, cudaGetDevice(&device)) ||
        !CUDA_CHECK(&c.status, cudaGetDeviceProperties(&prop, device))) {
        snprintf(err, errlen, "%s", c.status.message);
        return -1;
    }
    snprintf(c.device_name, sizeof c.device_name, "%s", prop.name);
    c.sm_count = prop.multiProcessorCount;
    c.kernel = sc_resolve(&c, desc->kernel, desc->threads_per_body, desc->block_size);
    return sc_plan(&c, desc, desc->position_vbo == 0, err, errlen);
}
