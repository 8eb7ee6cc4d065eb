/* Backend choice and the parts common to every backend: counters, names, timing. */
#include "sim/sim.h"
#include "util/clock.h"
#include "util/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_backend.h"

struct Sim {
    const SimBackendImpl *impl;
    void *state;
    SimBackend backend;
    SimKernel kernel;
    SimPrecision precision;
    SimForce force; /* resolved */
    int n;
    int stars; /* n less the halo centres */
    SimHalos halos;
    SimStats stats;
    unsigned long long serial; /* this state's: new at each create and load */
};

/* The serials given so far (sim_state_serial). */
static unsigned long long serials;

static const char *const force_names[SIM_FORCE_COUNT] = {
    [SIM_FORCE_AUTO] = "auto",
    [SIM_FORCE_DIRECT] = "direct",
    [SIM_FORCE_TREE] = "tree",
    [SIM_FORCE_FMM] = "fmm",
};

const char *sim_force_name(SimForce f) { return (f >= 0 && f < SIM_FORCE_COUNT) ? force_names[f] : "?"; }

int sim_force_from_name(const char *name)
{
    for (int f = 0; f < SIM_FORCE_COUNT; f++)
        if (strcmp(name, force_names[f]) == 0) return f;
    return -1;
}

float sim_opening_theta(SimForce f, float theta, float alpha)
{
    return (f == SIM_FORCE_TREE || f == SIM_FORCE_FMM) && alpha > 0 ? NBODY_TREE_REL_THETA : params_theta(theta);
}

static SimForce backend_force(const Sim *s) { return s->impl->force ? s->impl->force(s->state) : SIM_FORCE_DIRECT; }

static const char *const kernel_names[SIM_KERNEL_COUNT] = {
    [SIM_KERNEL_DEFAULT] = "default",
    [SIM_KERNEL_NAIVE] = "naive",
    [SIM_KERNEL_REGISTERS] = "registers",
    [SIM_KERNEL_TILED] = "tiled",
    [SIM_KERNEL_TILED_UNROLLED] = "tiled-unrolled",
    [SIM_KERNEL_MTPB] = "mtpb",
    [SIM_KERNEL_SYMMETRIC] = "symmetric",
};

/* On an H200 (132 SMs) mtpb is the faster up to 4,096 bodies and symmetric from 6,144 on. */
SimKernel sim_kernel_resolve(SimKernel k, SimPrecision precision, int n, int sm_count)
{
    if (k != SIM_KERNEL_DEFAULT) return k;
    if (precision == SIM_PRECISION_DOUBLE || (long long)n < (long long)SIM_SYMMETRIC_MIN_PER_SM * sm_count)
        return SIM_KERNEL_MTPB;
    return SIM_KERNEL_SYMMETRIC;
}

const char *sim_kernel_name(SimKernel k)
{
    return (k >= 0 && k < SIM_KERNEL_COUNT) ? kernel_names[k] : "?";
}

int sim_kernel_from_name(const char *name)
{
    for (int k = SIM_KERNEL_NAIVE; k < SIM_KERNEL_COUNT; k++)
        if (strcmp(name, kernel_names[k]) == 0) return k;
    return -1;
}

const char *sim_backend_name(SimBackend b)
{
    switch (b) {
    case SIM_BACKEND_CPU: return "cpu";
    case SIM_BACKEND_CUDA: return "cuda";
    default: return "auto";
    }
}

#ifdef STARBURST_HAVE_CUDA
bool sim_cuda_available(char *why, size_t whylen) { return sim_cuda_probe(why, whylen); }
bool sim_cuda_gl_usable(char *why, size_t whylen) { return sim_cuda_gl_probe(why, whylen); }
#else
static bool no_cuda(char *why, size_t whylen)
{
    snprintf(why, whylen, "this build has no CUDA backend");
    return false;
}
bool sim_cuda_available(char *why, size_t whylen) { return no_cuda(why, whylen); }
bool sim_cuda_gl_usable(char *why, size_t whylen) { return no_cuda(why, whylen); }
#endif

int sim_check(const SimDesc *desc, int n, char *err, size_t errlen)
{
    if (n < 1) {
        snprintf(err, errlen, "a simulation needs at least one body");
        return -1;
    }
    if (desc->backend == SIM_BACKEND_CPU) return 0;
#ifdef STARBURST_HAVE_CUDA
    char why[256];
    if (sim_cuda_probe(why, sizeof why)) return sim_cuda_check(desc, n, err, errlen);
    if (desc->backend == SIM_BACKEND_AUTO) return 0;
    snprintf(err, errlen, "CUDA backend unavailable: %s", why);
    return -1;
#else
    if (desc->backend == SIM_BACKEND_AUTO) return 0;
    snprintf(err, errlen, "CUDA backend unavailable: this build has no CUDA backend");
    return -1;
#endif
}

Sim *sim_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen)
{
    SimDesc d = *desc;
    if (initial->n < 1) {
        snprintf(err, errlen, "a simulation needs at least one body");
        return NULL;
    }

    if (d.force < 0 || d.force >= SIM_FORCE_COUNT) {
        snprintf(err, errlen, "unknown force method %d", (int)d.force);
        return NULL;
    }
    const int halos = d.halos ? d.halos->count : 0;
    if (halos < 0 || halos > NBODY_HALO_MAX || initial->n - halos < 1) {
        snprintf(err, errlen, "%d halo fields for %d bodies: 0 to %d, and a star besides, are possible", halos,
                 initial->n, NBODY_HALO_MAX);
        return NULL;
    }
    Sim *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->n = initial->n;
    s->stars = initial->n - halos;
    s->serial = ++serials;
    if (halos > 0) s->halos = *d.halos;
    d.halos = halos > 0 ? &s->halos : NULL;
    s->kernel = sim_kernel_resolve(d.kernel, d.precision, initial->n, 0);
    s->precision = d.precision;
#ifdef STARBURST_HAVE_CUDA
    if (d.backend == SIM_BACKEND_CUDA || d.backend == SIM_BACKEND_AUTO) {
        char why[256] = "";
        if (sim_cuda_probe(why, sizeof why)) {
            s->state = sim_cuda_create(&d, initial, err, errlen);
            if (s->state) {
                s->impl = &sim_cuda_impl;
                s->backend = SIM_BACKEND_CUDA;
                s->kernel = s->impl->kernel(s->state);
                s->force = backend_force(s);
                return s;
            }
            /* A usable device that cannot run this is an error to report, not a reason to
             * change backends behind the user's back. */
            goto fail;
        } else if (d.backend == SIM_BACKEND_CUDA) {
            snprintf(err, errlen, "CUDA backend unavailable: %s", why);
            goto fail;
        }
    }
#else
    if (d.backend == SIM_BACKEND_CUDA) {
        snprintf(err, errlen, "CUDA backend unavailable: this build has no CUDA backend");
        goto fail;
    }
#endif
    s->state = sim_cpu_create(&d, initial, err, errlen);
    if (!s->state) goto fail;
    s->impl = &sim_cpu_impl;
    s->backend = SIM_BACKEND_CPU;
    s->force = backend_force(s);
    return s;
fail:
    free(s);
    return NULL;
}

void sim_destroy(Sim *s)
{
    if (!s) return;
    s->impl->destroy(s->state);
    free(s);
}

void sim_advance(Sim *s, const SimParams *p, int steps)
{
    if (steps <= 0) return;
    double t0 = (1e3 * clock_seconds());
    s->impl->advance(s->state, p, steps);
    double ms = (1e3 * clock_seconds()) - t0;
    const double per_body = s->impl->interactions_per_body ? s->impl->interactions_per_body(s->state) : 0;
    double inter = (double)s->stars * (double)s->stars * steps;
    s->stats.interactions_per_body = per_body;
    s->stats.ms = ms;
    s->stats.steps = steps;
    const double evaluated = per_body > 0 ? per_body * s->stars * steps : inter;
    s->stats.interactions_per_s = ms > 0 ? evaluated / (ms * 1e-3) : 0;
    s->stats.gflops = s->stats.interactions_per_s * 20e-9;
    s->stats.map_ms = s->impl->map_ms ? s->impl->map_ms(s->state) : 0;
    s->stats.gpu_ms = s->impl->gpu_ms ? s->impl->gpu_ms(s->state) : 0;
    s->stats.kernel_interactions_per_s =
        s->stats.gpu_ms > 0 ? inter / (s->stats.gpu_ms * 1e-3) : s->stats.interactions_per_s;
    s->stats.total_steps += steps;
    s->stats.time += (double)p->dt * steps;
}

SimStats sim_stats(const Sim *s) { return s->stats; }
void sim_read(Sim *s, Bodies *out) { s->impl->read(s->state, out); }

int sim_read_positions(Sim *s, float *pos4, uint8_t *tags)
{
    return s->impl->read_positions(s->state, pos4, tags);
}

int sim_device_positions(Sim *s, const float **pos4, uint8_t *tags)
{
    *pos4 = NULL;
    return s->impl->device_positions ? s->impl->device_positions(s->state, pos4, tags) : -1;
}

int sim_read_xyz(Sim *s, bool velocities, float *xyz)
{
    if (s->impl->read_xyz && s->impl->read_xyz(s->state, velocities, xyz) == 0) return 0;
    if (sim_error(s)) return -1;
    Bodies b;
    if (bodies_alloc(&b, s->n) != 0) return -1;
    sim_read(s, &b);
    bodies_xyz(velocities ? b.vel : b.pos, b.n, xyz);
    bodies_free(&b);
    return sim_error(s) ? -1 : 0;
}

int sim_load(Sim *s, const Bodies *b, char *err, size_t errlen)
{
    if (b->n != s->n) {
        snprintf(err, errlen, "state holds %d bodies, simulation has %d", b->n, s->n);
        return -1;
    }
    if (s->impl->load(s->state, b, err, errlen) != 0) return -1;
    memset(&s->stats, 0, sizeof s->stats);
    s->serial = ++serials;
    return 0;
}

SimEnergy sim_energy(Sim *s, float softening) { return s->impl->energy(s->state, softening); }

int sim_energy_begin(Sim *s, const Bodies *of, float softening)
{
    return s->impl->energy_begin ? s->impl->energy_begin(s->state, of, softening) : -1;
}

unsigned long long sim_state_serial(const Sim *s) { return s->serial; }

int sim_read_begin(Sim *s) { return s->impl->read_begin ? s->impl->read_begin(s->state) : -1; }

int sim_read_landed(Sim *s, SimLanding *out) { return s->impl->read_landed ? s->impl->read_landed(s->state, out) : -1; }

bool sim_energy_shares(const Sim *s) { return s->impl->energy_begin != NULL; }

int sim_energy_poll(Sim *s, SimEnergy *stars) { return s->impl->energy_poll ? s->impl->energy_poll(s->state, stars) : -1; }

void sim_accelerations(Sim *s, float softening, float *acc3)
{
    s->impl->accelerations(s->state, softening, acc3);
}

SimBackend sim_backend(const Sim *s) { return s->backend; }
bool sim_device_memory(const Sim *s, size_t *free_bytes, size_t *total_bytes)
{
    return s->impl->device_memory && s->impl->device_memory(s->state, free_bytes, total_bytes);
}

int sim_gpus(const Sim *s, double *exchange_ms)
{
    if (exchange_ms) *exchange_ms = 0;
    return s->impl->gpus ? s->impl->gpus(s->state, exchange_ms) : 1;
}
const char *sim_gpus_note(const Sim *s) { return s->impl->gpus_note ? s->impl->gpus_note(s->state) : ""; }
bool sim_diverged(const Sim *s) { return s->impl->finite && !s->impl->finite(s->state); }
const char *sim_error(const Sim *s) { return s->impl->error ? s->impl->error(s->state) : NULL; }
int sim_count(const Sim *s) { return s->n; }
const SimHalos *sim_halos(const Sim *s) { return &s->halos; }
const char *sim_device_name(const Sim *s) { return s->impl->device_name(s->state); }
SimKernel sim_kernel(const Sim *s) { return s->kernel; }
SimForce sim_force(const Sim *s) { return s->force; }

bool sim_tree_stats(const Sim *s, SimTreeStats *out)
{
    memset(out, 0, sizeof *out);
    return (s->force == SIM_FORCE_TREE || s->force == SIM_FORCE_FMM) && s->impl->tree_stats &&
           s->impl->tree_stats(s->state, out);
}

int sim_set_force(Sim *s, SimForce f, char *err, size_t errlen)
{
    if (f < 0 || f >= SIM_FORCE_COUNT) {
        snprintf(err, errlen, "unknown force method %d", (int)f);
        return -1;
    }
    if (s->impl->set_force(s->state, f, err, errlen) != 0) return -1;
    s->force = backend_force(s);
    return 0;
}

int sim_tree_boxes(Sim *s, int max_level, SimTreeBox *out, int cap, int *depth)
{
    int deepest = 0, total = 0;
    if ((s->force == SIM_FORCE_TREE || s->force == SIM_FORCE_FMM) && s->impl->tree_boxes && max_level >= 0)
        total = s->impl->tree_boxes(s->state, max_level, out, cap < 0 ? 0 : cap, &deepest);
    if (depth) *depth = total > 0 ? deepest : 0;
    return total;
}

int sim_set_kernel(Sim *s, SimKernel k, int threads_per_body, int block_size, char *err, size_t errlen)
{
    if (k < 0 || k >= SIM_KERNEL_COUNT) {
        snprintf(err, errlen, "unknown kernel %d", (int)k);
        return -1;
    }
    if (s->impl->set_kernel(s->state, k, threads_per_body, block_size, err, errlen) != 0) return -1;
    s->kernel = s->impl->kernel ? s->impl->kernel(s->state) : sim_kernel_resolve(k, s->precision, s->n, 0);
    return 0;
}

void sim_launch_shape(const Sim *s, int *threads_per_body, int *block_size)
{
    *threads_per_body = 0;
    *block_size = 0;
    s->impl->launch_shape(s->state, threads_per_body, block_size);
}
