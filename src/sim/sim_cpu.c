/* The CPU backend: OpenMP over target bodies, float arithmetic like the CUDA kernels, and the
 * f64 reference every force kernel is checked against. Forces come from the direct sum, the tree
 * (tree_cpu.c) or the fast multipole method (fmm_cpu.c). Positions are mirrored into SoA arrays
 * each step so the inner loop vectorises; after an advance they go to the GL buffer with
 * glBufferSubData (the only per-frame copy, and only on this backend). */
#include <GL/glew.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_backend.h"
#include "sim/fmm_expansion.h"
#include "sim/fmm_cpu.h"
#include "sim/tree_cpu.h"
#include "util/params.h"

typedef struct SimCpu {
    int n;
    int stars;              /* n less the halo centres, the last bodies */
    SimHalos halos;         /* halos as fields (count 0: none) */
    float *pos, *vel, *acc; /* 4n, 4n, 3n */
    float *x, *y, *z, *m;   /* SoA mirror of pos for the force loop */
    uint8_t *tag;
    float acc_softening;    /* softening the stored accelerations were computed with */
    SimForce force;         /* resolved: direct, tree or fmm */
    float theta;            /* the tree's (and the fmm's near field's) opening angle of the last advance */
    float alpha;            /* and the error-based test's alpha (0: the geometric test alone) */
    float theta_fmm;        /* the fmm's far angle, from the theta asked for */
    SimForce acc_force;     /* method, angles and alpha the stored accelerations were computed with */
    float acc_theta, acc_alpha, acc_theta_fmm;
    float acc_theta_asked;  /* and SimParams.theta, from which the angles follow */
    TreeCpu *tree;
    FmmCpu *fmm;
    TreeCpuStats tree_stats; /* of the last tree or fmm evaluation; zero after the direct sum */
    bool finite;            /* the last advance left finite positions and velocities */
    unsigned int position_vbo, speed_vbo;
    float *speed;
    int threads;
    char device[128];
} SimCpu;

/* One clone per instruction set; the loader picks the widest the processor has. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void force_rows(const float *x, const float *y, const float *z, const float *m, int n, float eps2,
                       float *acc3, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < n; i++) {
        const float xi = x[i], yi = y[i], zi = z[i];
        float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int j = 0; j < n; j++) {
            float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            /* Coincident bodies with no softening: r2 == 0; the self term must stay zero. */
            float inv = r2 > 0 ? 1.0f / sqrtf(r2) : 0.0f;
            float s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        acc3[3 * i] = ax;
        acc3[3 * i + 1] = ay;
        acc3[3 * i + 2] = az;
    }
}

/* The stars' forces on each other, then the halo fields' step (stars in the fields, the centres'
 * accelerations); the friction's force on each centre into fric (may be NULL). */
static void cpu_forces(SimCpu *c, float eps, float *acc3, double *fric)
{
    const int n = c->stars;
    if (c->force == SIM_FORCE_TREE &&
        tree_cpu_forces(c->tree, c->pos, n, eps, c->theta, c->alpha, c->threads, acc3, &c->tree_stats) == 0)
        goto fields;
    if (c->force == SIM_FORCE_FMM &&
        fmm_cpu_forces(c->fmm, c->pos, n, eps, c->theta, c->theta_fmm, c->alpha, c->threads, acc3, &c->tree_stats) == 0)
        goto fields;
    /* The direct sum; also where the tree runs out of memory, since it needs none. */
    memset(&c->tree_stats, 0, sizeof c->tree_stats);
    for (int i = 0; i < n; i++) {
        c->x[i] = c->pos[4 * i];
        c->y[i] = c->pos[4 * i + 1];
        c->z[i] = c->pos[4 * i + 2];
        c->m[i] = c->pos[4 * i + 3];
    }
    force_rows(c->x, c->y, c->z, c->m, n, eps * eps, acc3, c->threads);
fields:
    sim_halo_forces_cpu(&c->halos, c->pos, c->vel, n, eps, acc3, c->threads, fric);
}

static void cpu_publish(SimCpu *c)
{
    if (c->position_vbo) {
        glBindBuffer(GL_ARRAY_BUFFER, c->position_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(4 * (size_t)c->n * sizeof(float)), c->pos);
    }
    if (c->speed_vbo) {
        for (int i = 0; i < c->n; i++) {
            const float *v = c->vel + 4 * i;
            c->speed[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
        glBindBuffer(GL_ARRAY_BUFFER, c->speed_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)c->n * sizeof(float)), c->speed);
    }
    if (c->position_vbo || c->speed_vbo) glBindBuffer(GL_ARRAY_BUFFER, 0);
}

static void cpu_destroy(void *impl)
{
    SimCpu *c = impl;
    if (!c) return;
    free(c->pos);
    free(c->vel);
    free(c->acc);
    free(c->x);
    free(c->y);
    free(c->z);
    free(c->m);
    free(c->tag);
    free(c->speed);
    tree_cpu_destroy(c->tree);
    fmm_cpu_destroy(c->fmm);
    free(c);
}

/* The opening angles of method f for SimParams' theta and alpha, as an advance takes them. */
static void cpu_angles(SimForce f, float theta_asked, float alpha_asked, float *theta, float *alpha, float *theta_fmm)
{
    *alpha = alpha_asked > 0 ? alpha_asked : 0;
    *theta = sim_opening_theta(f, theta_asked, *alpha);
    *theta_fmm = fmm_theta(params_theta(theta_asked));
}

static int cpu_load(void *impl, const Bodies *b, char *err, size_t errlen)
{
    SimCpu *c = impl;
    memcpy(c->pos, b->pos, 4 * (size_t)c->n * sizeof(float));
    memcpy(c->vel, b->vel, 4 * (size_t)c->n * sizeof(float));
    memcpy(c->tag, b->tag, (size_t)c->n);
    if (b->acc && b->acc_info.backend == SIM_BACKEND_CPU) {
        /* This backend's own, as sim_read gave them: the run goes on as if never interrupted. */
        const BodiesAccInfo *a = &b->acc_info;
        memcpy(c->acc, b->acc, 3 * (size_t)c->n * sizeof(float));
        c->acc_softening = a->softening;
        c->acc_force = (SimForce)a->force;
        c->acc_theta_asked = a->theta;
        cpu_angles(c->acc_force, a->theta, a->alpha, &c->acc_theta, &c->acc_alpha, &c->acc_theta_fmm);
        c->theta = c->acc_theta, c->alpha = c->acc_alpha, c->theta_fmm = c->acc_theta_fmm;
    } else {
        c->acc_softening = NAN; /* recomputed by the next advance */
        /* Other bodies' accelerations are no estimate of these (the error-based test reads them). */
        memset(c->acc, 0, 3 * (size_t)c->n * sizeof(float));
    }
    memset(&c->tree_stats, 0, sizeof c->tree_stats);
    c->finite = true;
    cpu_publish(c);
    return 0;
}

static SimForce cpu_resolve_force(SimForce f, int n)
{
    if (f != SIM_FORCE_AUTO) return f;
    return n >= SIM_FMM_MIN_BODIES_CPU ? SIM_FORCE_FMM : SIM_FORCE_DIRECT;
}

double sim_cpu_step_estimate(SimForce force, int n, int threads, int *used, SimForce *resolved)
{
    const SimForce f = cpu_resolve_force(force, n);
    const int t = threads > 0 ? threads : omp_get_max_threads();
    const double nn = n > 1 ? n : 1, measured_threads = 2.0;
    const double at_two = f == SIM_FORCE_DIRECT ? SIM_CPU_DIRECT_S_PER_PAIR * nn * nn
                                                : (f == SIM_FORCE_TREE ? SIM_CPU_TREE_S_PER_NLOGN : SIM_CPU_FMM_S_PER_NLOGN) * nn * log2(nn);
    if (used) *used = t;
    if (resolved) *resolved = f;
    return at_two * measured_threads / t;
}

void *sim_cpu_create(const SimDesc *desc, const Bodies *initial, char *err, size_t errlen)
{
    SimCpu *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    size_t n = (size_t)initial->n;
    c->n = initial->n;
    if (desc->halos) c->halos = *desc->halos;
    c->stars = c->n - c->halos.count;
    c->pos = malloc(4 * n * sizeof(float));
    c->vel = malloc(4 * n * sizeof(float));
    c->acc = calloc(3 * n, sizeof(float));
    c->x = malloc(n * sizeof(float));
    c->y = malloc(n * sizeof(float));
    c->z = malloc(n * sizeof(float));
    c->m = malloc(n * sizeof(float));
    c->tag = malloc(n);
    c->speed = malloc(n * sizeof(float));
    c->tree = tree_cpu_create();
    c->fmm = fmm_cpu_create();
    if (!c->pos || !c->vel || !c->acc || !c->x || !c->y || !c->z || !c->m || !c->tag || !c->speed || !c->tree ||
        !c->fmm)
        goto oom;
    c->force = cpu_resolve_force(desc->force, c->stars);
    c->theta = params_theta(0);
    c->theta_fmm = fmm_theta(c->theta);
    c->position_vbo = desc->position_vbo;
    c->speed_vbo = desc->speed_vbo;
    c->threads = desc->threads > 0 ? desc->threads : omp_get_max_threads();
    snprintf(c->device, sizeof c->device, "CPU, %d thread%s", c->threads, c->threads == 1 ? "" : "s");
    cpu_load(c, initial, err, errlen);
    return c;
oom:
    cpu_destroy(c);
    snprintf(err, errlen, "CPU backend: out of memory for %d bodies", initial->n);
    return NULL;
}

/* Adds to each centre's loss what a half kick of tau from its velocity now takes out through
 * friction force fric (nbody_halo_kick_loss). */
static void cpu_loss(SimCpu *c, const double *fric, double tau)
{
    for (int h = 0; h < c->halos.count; h++) {
        float *v = c->vel + 4 * (c->stars + h);
        v[3] += (float)nbody_halo_kick_loss(fric + 3 * h, v, c->acc + 3 * (c->stars + h), tau);
    }
}

/* The same for the half kick of next after this one of half, damped between. */
static void cpu_loss_after(SimCpu *c, const double *fric, float half, float damping, float next)
{
    for (int h = 0; h < c->halos.count; h++) {
        const float *v = c->vel + 4 * (c->stars + h), *a = c->acc + 3 * (c->stars + h);
        float w[3];
        for (int k = 0; k < 3; k++) w[k] = (v[k] + a[k] * half) * damping;
        c->vel[4 * (c->stars + h) + 3] += (float)nbody_halo_kick_loss(fric + 3 * h, w, a, next);
    }
}

static void cpu_advance(void *impl, const SimParams *p, int steps)
{
    SimCpu *c = impl;
    const int n = c->n;
    const float dt = p->dt, damping = p->damping;
    cpu_angles(c->force, p->theta, p->alpha, &c->theta, &c->alpha, &c->theta_fmm);
    /* The stored accelerations are those of the current positions unless the softening or the
     * force method changed. */
    if (!(c->acc_softening == p->softening) || c->acc_force != c->force ||
        (c->force != SIM_FORCE_DIRECT &&
         (c->acc_theta != c->theta || c->acc_alpha != c->alpha || c->acc_theta_fmm != c->theta_fmm))) {
        cpu_forces(c, p->softening, c->acc, NULL);
        c->acc_softening = p->softening;
    }
    c->acc_force = c->force;
    c->acc_theta = c->theta;
    c->acc_alpha = c->alpha;
    c->acc_theta_fmm = c->theta_fmm;
    c->acc_theta_asked = p->theta;
    /* The energy friction takes out goes with each centre (kernels/halo_field.h), counted kick by
     * kick: the opening one applies the last step's friction, found again in the stored
     * accelerations. */
    double fric[3 * NBODY_HALO_MAX];
    const int halos = c->halos.count;
    if (halos > 1) {
        sim_halo_stored_friction(&c->halos, c->pos, c->vel, c->acc, c->stars, p->softening, c->threads, fric);
        cpu_loss(c, fric, 0.5 * dt);
    }
    for (int s = 0; s < steps; s++) {
        /* Drift, with the opening half kick on the first step. */
        const float open = s == 0 ? 0.5f * dt : 0.0f;
        for (int i = 0; i < n; i++) {
            float *x = c->pos + 4 * i, *v = c->vel + 4 * i;
            const float *a = c->acc + 3 * i;
            for (int k = 0; k < 3; k++) {
                v[k] += a[k] * open;
                x[k] += v[k] * dt;
            }
        }
        cpu_forces(c, p->softening, c->acc, fric);
        /* This step's closing half kick, damping of the synchronised velocity, then the next
         * step's opening half kick (none after the last step: the next advance gives it). So k
         * advances of 1 step do the arithmetic of 1 advance of k. */
        const float half = 0.5f * dt, next = s == steps - 1 ? 0.0f : half;
        if (halos > 1) {
            cpu_loss(c, fric, half);
            if (next > 0) cpu_loss_after(c, fric, half, damping, next);
        }
        for (int i = 0; i < n; i++) {
            float *v = c->vel + 4 * i;
            const float *a = c->acc + 3 * i;
            for (int k = 0; k < 3; k++) v[k] = (v[k] + a[k] * half) * damping + a[k] * next;
        }
    }
    c->finite = true;
    for (int i = 0; i < 4 * n && c->finite; i++) c->finite = isfinite(c->pos[i]) && isfinite(c->vel[i]);
    cpu_publish(c);
}

static void cpu_read(void *impl, Bodies *out)
{
    SimCpu *c = impl;
    memcpy(out->pos, c->pos, 4 * (size_t)c->n * sizeof(float));
    memcpy(out->vel, c->vel, 4 * (size_t)c->n * sizeof(float));
    memcpy(out->tag, c->tag, (size_t)c->n);
    if (!out->acc) return;
    memcpy(out->acc, c->acc, 3 * (size_t)c->n * sizeof(float));
    out->acc_info = (BodiesAccInfo){.backend = SIM_BACKEND_CPU,
                                    .force = c->acc_force,
                                    .softening = c->acc_softening,
                                    .theta = c->acc_theta_asked,
                                    .alpha = c->acc_alpha};
}

static int cpu_read_positions(void *impl, float *pos4, uint8_t *tags)
{
    const SimCpu *c = impl;
    memcpy(pos4, c->pos, 4 * (size_t)c->n * sizeof(float));
    memcpy(tags, c->tag, (size_t)c->n);
    return 0;
}

static int cpu_read_xyz(void *impl, bool velocities, float *xyz)
{
    const SimCpu *c = impl;
    bodies_xyz(velocities ? c->vel : c->pos, c->n, xyz);
    return 0;
}

SimEnergy sim_energy_fields(const Bodies *b, const SimHalos *halos, float softening, int threads)
{
    const int stars = b->n - halos->count;
    double kin = 0;
    for (int i = stars; i < b->n; i++) {
        const float *xi = b->pos + 4 * (size_t)i, *vi = b->vel + 4 * (size_t)i;
        kin += 0.5 * xi[3] * ((double)vi[0] * vi[0] + (double)vi[1] * vi[1] + (double)vi[2] * vi[2]);
    }
    return (SimEnergy){.kinetic = kin,
                       .potential = sim_halo_potential_energy(halos, b->pos, stars, softening, threads),
                       .friction = sim_halo_friction_loss(halos, b->vel, stars)};
}

SimEnergy sim_energy_of(const Bodies *b, const SimHalos *halos, float softening, int threads)
{
    const int stars = b->n - halos->count;
    const float *pos = b->pos, *vel = b->vel;
    if (threads <= 0) threads = omp_get_max_threads();
    const double eps2 = (double)softening * softening;
    double kin = 0, pot = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : kin, pot) num_threads(threads)
    for (int i = 0; i < stars; i++) {
        const float *xi = pos + 4 * i, *vi = vel + 4 * i;
        kin += 0.5 * xi[3] * ((double)vi[0] * vi[0] + (double)vi[1] * vi[1] + (double)vi[2] * vi[2]);
        double phi = 0;
        for (int j = i + 1; j < stars; j++) {
            const float *xj = pos + 4 * j;
            double dx = (double)xj[0] - xi[0], dy = (double)xj[1] - xi[1], dz = (double)xj[2] - xi[2];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (r2 > 0) phi += xj[3] / sqrt(r2);
        }
        pot -= xi[3] * phi;
    }
    const SimEnergy f = sim_energy_fields(b, halos, softening, threads);
    return (SimEnergy){.kinetic = kin + f.kinetic, .potential = pot + f.potential, .friction = f.friction};
}

static SimEnergy cpu_energy(void *impl, float softening)
{
    SimCpu *c = impl;
    const Bodies b = {.n = c->n, .pos = c->pos, .vel = c->vel};
    return sim_energy_of(&b, &c->halos, softening, c->threads);
}

static void cpu_accelerations(void *impl, float softening, float *acc3)
{
    SimCpu *c = impl;
    /* The error-based test reads the previous accelerations: the run's stored ones. */
    if (c->alpha > 0) memcpy(acc3, c->acc, 3 * (size_t)c->n * sizeof(float));
    cpu_forces(c, softening, acc3, NULL);
}

static int cpu_set_kernel(void *impl, SimKernel k, int q, int block, char *err, size_t errlen)
{
    /* The CPU backend has one kernel; the choice is remembered for a later CUDA run. */
    return 0;
}

static void cpu_launch_shape(const void *impl, int *q, int *block) {}

static int cpu_set_force(void *impl, SimForce f, char *err, size_t errlen)
{
    SimCpu *c = impl;
    c->force = cpu_resolve_force(f, c->stars);
    return 0;
}

static SimForce cpu_force(const void *impl) { return ((const SimCpu *)impl)->force; }
/* The tree holds the cells of the last tree (or fmm) evaluation: none while the stored
 * accelerations come from the direct sum. */
static int cpu_tree_boxes(void *impl, int max_level, SimTreeBox *out, int cap, int *depth)
{
    const SimCpu *c = impl;
    if (c->acc_force == SIM_FORCE_TREE) return tree_cpu_boxes(c->tree, max_level, out, cap, depth);
    if (c->acc_force == SIM_FORCE_FMM) return tree_cpu_boxes(fmm_cpu_tree(c->fmm), max_level, out, cap, depth);
    return 0;
}

static double cpu_interactions_per_body(const void *impl)
{
    const SimCpu *c = impl;
    const TreeCpuStats *t = &c->tree_stats;
    return (double)(t->body_body + t->body_cell + t->body_group) / c->stars;
}

static bool cpu_tree_stats(const void *impl, SimTreeStats *out)
{
    const SimCpu *c = impl;
    const TreeCpuStats *t = &c->tree_stats;
    if (t->body_body + t->body_cell + t->body_group == 0) return false;
    *out = (SimTreeStats){.n = c->stars,
                          .cells = t->cells,
                          .depth = t->depth,
                          .build_ms = t->build_ms,
                          .walk_ms = t->walk_ms,
                          .upward_ms = t->upward_ms,
                          .downward_ms = t->downward_ms,
                          .body_body = (double)t->body_body / c->stars,
                          .body_cell = (double)t->body_cell / c->stars,
                          .body_group = (double)t->body_group / c->stars};
    return true;
}

static const char *cpu_device_name(const void *impl) { return ((const SimCpu *)impl)->device; }
static bool cpu_finite(const void *impl) { return ((const SimCpu *)impl)->finite; }

const SimBackendImpl sim_cpu_impl = {
    .destroy = cpu_destroy,
    .advance = cpu_advance,
    .read = cpu_read,
    .read_xyz = cpu_read_xyz,
    .read_positions = cpu_read_positions,
    .load = cpu_load,
    .energy = cpu_energy,
    .accelerations = cpu_accelerations,
    .set_kernel = cpu_set_kernel,
    .launch_shape = cpu_launch_shape,
    .device_name = cpu_device_name,
    .finite = cpu_finite,
    .set_force = cpu_set_force,
    .force = cpu_force,
    .interactions_per_body = cpu_interactions_per_body,
    .tree_boxes = cpu_tree_boxes,
    .tree_stats = cpu_tree_stats,
};

void sim_reference_subset(const float *pos4, int n, double softening, const int *targets, int count, double *acc3)
{
    const double eps2 = softening * softening;
#pragma omp parallel for schedule(static)
    for (int t = 0; t < count; t++) {
        const int i = targets ? targets[t] : t;
        const double xi = pos4[4 * i], yi = pos4[4 * i + 1], zi = pos4[4 * i + 2];
        double ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; j++) {
            double dx = pos4[4 * j] - xi, dy = pos4[4 * j + 1] - yi, dz = pos4[4 * j + 2] - zi;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (r2 <= 0) continue;
            double inv = 1.0 / sqrt(r2);
            double s = pos4[4 * j + 3] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        acc3[3 * t] = ax;
        acc3[3 * t + 1] = ay;
        acc3[3 * t + 2] = az;
    }
}

void sim_reference_accelerations(const float *pos4, int n, double softening, double *acc3)
{
    sim_reference_subset(pos4, n, softening, NULL, n, acc3);
}
