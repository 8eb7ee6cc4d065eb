/* The C side of run.advance's overhead: STEPS steps of the 16K collision on the CPU through
 * libstarburst, in CALLS calls of STEPS / CALLS (advance.py times the same from Python).
 *   cc -O2 advance.c -Iinclude -Lbuild -lstarburst -Wl,-rpath,$PWD/build -o advance && ./advance 50 50 */
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
    const int steps = argc > 1 ? atoi(argv[1]) : 50, calls = argc > 2 ? atoi(argv[2]) : 1;
    char err[512];
    StarburstRun *r;
    const StarburstDesc d = {.scene = "collision", .n = 16384, .seed = 1, .backend = "cpu"};
    if (calls < 1 || starburst_make(&d, &r, err, sizeof err) != STARBURST_OK) {
        fprintf(stderr, "advance: %s\n", calls < 1 ? "CALLS is at least 1" : err);
        return 1;
    }
    starburst_advance(r, 1); /* the first step computes the first accelerations */
    const double t0 = seconds();
    for (int c = 0; c < calls; c++) starburst_advance(r, steps / calls);
    printf("C: %d steps in %d calls: %.3f s\n", steps / calls * calls, calls, seconds() - t0);
    starburst_destroy(r);
    return 0;
}
