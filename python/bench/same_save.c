/* A run through libstarburst saved as the program saves it: FRAMES frames of STEPS steps of the
 * SCENE of N bodies (seed 3) on BACKEND, then saved to OUT, for a `cmp` against the program's own
 *   starburst --headless --backend BACKEND --scene SCENE -n N --seed 3 --frames FRAMES \
 *             --steps-per-frame STEPS --save OUT2
 * (the GPU's check that a run from the library is the program's, bit for bit; python.package
 * checks the same on the CPU). It also times reading the positions back (the bytes of N float4s).
 *   cc -O2 same_save.c -Iinclude -Lbuild -lstarburst -o same_save
 *   ./same_save cuda collision 131072 4 5 lib.tipsy */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "starburst.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: same_save BACKEND SCENE N FRAMES STEPS OUT\n");
        return 2;
    }
    const int n = atoi(argv[3]), frames = atoi(argv[4]), steps = atoi(argv[5]);
    char err[512];
    StarburstRun *r;
    const StarburstDesc d = {.scene = argv[2], .n = n, .seed = 3, .backend = argv[1]};
    if (starburst_make(&d, &r, err, sizeof err) != STARBURST_OK) {
        fprintf(stderr, "same_save: %s\n", err);
        return 1;
    }
    if (starburst_set(r, "steps_per_frame", argv[5]) != STARBURST_OK) { /* the save says it */
        fprintf(stderr, "same_save: %s\n", starburst_error(r));
        return 1;
    }
    const double t0 = seconds();
    for (int f = 0; f < frames; f++)
        if (starburst_advance(r, steps) != STARBURST_OK) {
            fprintf(stderr, "same_save: %s\n", starburst_error(r));
            return 1;
        }
    const double t1 = seconds();
    const int count = starburst_count(r);
    float *pos = malloc(sizeof(float) * 3 * (size_t)count);
    const double t2 = seconds();
    const int got = pos ? starburst_read(r, pos, NULL, NULL, NULL) : -1;
    const double t3 = seconds();
    printf("same_save: %d bodies, %d frames of %d steps in %.3f s; positions read in %.3f ms\n", count, frames, steps,
           t1 - t0, 1e3 * (t3 - t2));
    if (got != STARBURST_OK || starburst_save(r, argv[6]) != STARBURST_OK) {
        fprintf(stderr, "same_save: %s\n", starburst_error(r));
        return 1;
    }
    free(pos);
    starburst_destroy(r);
    return 0;
}
