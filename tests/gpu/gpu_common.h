/* Helpers the GPU tests share: skipping where no CUDA device exists, seeded random systems and
 * the galaxy model. Include after <cmocka.h>. */
#ifndef STARBURST_GPU_COMMON_H
#define STARBURST_GPU_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/tipsy.h"
#include "sim/sim.h"
#include "test_rng.h"
#include "test_skip.h"

/* Skips the calling test where CUDA cannot run. */
static inline void gpu_require_cuda(void)
{
    char why[256] = "";
    if (!sim_cuda_available(why, sizeof why)) {
        print_message("skipped: %s\n", why);
        test_skip();
    }
}

/* n bodies uniform in the unit ball, masses in [0.5, 1.5) / n, velocities uniform in [-0.5, 0.5). */
static inline void gpu_random_ball(Bodies *b, int n, uint64_t seed)
{
    if (bodies_alloc(b, n) != 0) fail_msg("out of memory for %d bodies", n);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        double x, y, z;
        do {
            x = 2 * rng_uniform(&s) - 1;
            y = 2 * rng_uniform(&s) - 1;
            z = 2 * rng_uniform(&s) - 1;
        } while (x * x + y * y + z * z > 1);
        float *p = b->pos + 4 * i, *v = b->vel + 4 * i;
        p[0] = (float)x;
        p[1] = (float)y;
        p[2] = (float)z;
        p[3] = (float)((0.5 + rng_uniform(&s)) / n);
        for (int k = 0; k < 3; k++) v[k] = (float)(rng_uniform(&s) - 0.5);
    }
}

/* The first n bodies of galaxy_20K.bin from $STARBURST_DATA (all of them when n exceeds it). */
static inline void gpu_galaxy(Bodies *b, int n)
{
    const char *dir = getenv("STARBURST_DATA");
    char path[1024], err[256] = "";
    snprintf(path, sizeof path, "%s/galaxy_20K.bin", dir ? dir : STARBURST_SOURCE_DIR "/../shared/data");
    Bodies all;
    double time;
    if (tipsy_read(path, &all, &time, err, sizeof err) != 0) fail_msg("%s", err);
    if (n > all.n) n = all.n;
    if (bodies_alloc(b, n) != 0) fail_msg("out of memory for %d bodies", n);
    for (int i = 0; i < 4 * n; i++) {
        b->pos[i] = all.pos[i];
        b->vel[i] = all.vel[i];
    }
    for (int i = 0; i < n; i++) b->tag[i] = all.tag[i];
    bodies_free(&all);
}

/* The state of s with its stored accelerations into out (allocated here on first use). */
static inline void gpu_read_all(Sim *s, Bodies *out, int n)
{
    if (!out->pos && bodies_alloc(out, n) != 0) fail_msg("out of memory for %d bodies", n);
    if (!out->acc && bodies_alloc_acc(out) != 0) fail_msg("out of memory for %d accelerations", n);
    sim_read(s, out);
    if (sim_error(s)) fail_msg("%s", sim_error(s));
}

/* The bodies of a and b (as many) whose position or velocity differ in any bit. */
static inline int gpu_bodies_differing(const Bodies *a, const Bodies *b)
{
    int differ = 0;
    for (int i = 0; i < a->n; i++)
        differ += memcmp(a->pos + 4 * i, b->pos + 4 * i, 4 * sizeof(float)) != 0 ||
                  memcmp(a->vel + 4 * i, b->vel + 4 * i, 4 * sizeof(float)) != 0;
    return differ;
}

/* Total momentum sum m v of the state in b (sim_read), and the sum of m |v| that measures its drift. */
static inline void gpu_momentum(const Bodies *b, double p[3], double *scale)
{
    p[0] = p[1] = p[2] = *scale = 0;
    for (int i = 0; i < b->n; i++) {
        const double m = b->pos[4 * i + 3];
        const float *v = b->vel + 4 * i;
        for (int k = 0; k < 3; k++) p[k] += m * v[k];
        *scale += m * sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    }
}

static inline Sim *gpu_sim(const Bodies *b, SimKernel kernel, SimPrecision precision)
{
    char err[256] = "";
    SimDesc d = {.backend = SIM_BACKEND_CUDA, .kernel = kernel, .precision = precision};
    Sim *s = sim_create(&d, b, err, sizeof err);
    if (!s) fail_msg("sim_create (cuda, %s): %s", sim_kernel_name(kernel), err);
    return s;
}

#endif
