/* Helpers the GPU tests share: skipping where no CUDA device exists, seeded random systems and
 * the galaxy model. Include after <cmocka.h>. */
#ifndef STARBURST_GPU_COMMON_H
#define STARBURST_GPU_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

static inline Sim *gpu_sim(const Bodies *b, SimKernel kernel, SimPrecision precision)
{
    char err[256] = "";
    SimDesc d = {.backend = SIM_BACKEND_CUDA, .kernel = kernel, .precision = precision};
    Sim *s = sim_create(&d, b, err, sizeof err);
    if (!s) fail_msg("sim_create (cuda, %s): %s", sim_kernel_name(kernel), err);
    return s;
}

#endif
