/* What the HUD's energy costs the run on the CPU backend: the default collision stepped one step at
 * a time for SECONDS, as a frame loop steps it, with the energy measured
 *   none    not at all;
 *   loop    on the loop, as it was: sim_energy every max(0.25 s, 20 times its cost), the loop
 *           stopped meanwhile;
 *   worker  by run_measure_energy, as the program does now (a thread on a copy of the state).
 * It prints steps/s, the measurements made and the longest time one loop's call took.
 *
 *   cc -O2 -fopenmp -Isrc -Ikernels -c tools/energy_time.c -o build/energy_time.o
 *   c++ -fopenmp build/energy_time.o build/libstarburst_lib.a -lGLEW -lGL -lEGL -lglfw -lhdf5_serial \
 *       -linih -lm -lpthread [-L/usr/local/cuda/lib64 -lcudart] -o build/energy_time
 *   build/energy_time worker 30 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "util/clock.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "worker";
    const double seconds = argc > 2 ? atof(argv[2]) : 30;
    const bool none = strcmp(mode, "none") == 0, loop = strcmp(mode, "loop") == 0;
    if ((!none && !loop && strcmp(mode, "worker") != 0) || !(seconds > 0)) {
        fprintf(stderr, "usage: energy_time none|loop|worker [SECONDS]\n");
        return 2;
    }
    RunDesc d = {.source = {.scene = {.kind = SCENE_COLLISION}}, .backend = SIM_BACKEND_CPU};
    char err[256];
    Run *r = run_make(&d, err, sizeof err);
    if (!r || run_reset(r, SCENE_COLLISION, 16384, 1, SIM_KERNEL_DEFAULT, err, sizeof err) != 0) {
        fprintf(stderr, "energy_time: %s\n", err);
        return 1;
    }
    const SimParams p = run_start_params(r, 0.4f, 5e-4f);
    double longest = 0, next = 0;
    int steps = 0, measured = 0;
    const double t0 = clock_seconds();
    while (clock_seconds() - t0 < seconds) {
        run_advance(r, &p, 1);
        steps++;
        const double a = clock_seconds();
        if (loop && a >= next) {
            const SimEnergy e = sim_energy(run_sim(r), p.softening);
            measured += e.kinetic != 0;
            const double cost = clock_seconds() - a;
            next = clock_seconds() + (20 * cost > 0.25 ? 20 * cost : 0.25);
        } else if (!loop && !none) {
            measured += run_measure_energy(r, p.softening, a);
        }
        const double took = clock_seconds() - a;
        if (took > longest) longest = took;
    }
    const double total = clock_seconds() - t0;
    printf("%s, %.0f s: %.1f steps/s, %d energies measured, the longest call %.1f ms\n", mode, total, steps / total,
           measured, 1e3 * longest);
    run_destroy(r);
    return 0;
}
