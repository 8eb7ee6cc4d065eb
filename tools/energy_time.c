/* What the HUD's energy costs the run: the default collision (N bodies, 16,384 unless given) on the
 * CPU or CUDA backend, stepped STEPS steps a frame (1 unless given) for SECONDS, as a frame loop
 * steps it, with the energy measured
 *   none    not at all;
 *   loop    on the loop, as it was: sim_energy every max(0.25 s, 20 times its cost), the loop
 *           stopped meanwhile;
 *   worker  by run_measure_energy, as the program does now (on the CPU a thread on a copy of the
 *           state; on the GPU a share a frame beside the steps, and the host's part on a thread).
 * It prints steps/s, the measurements made, the longest time one loop's call took and the longest
 * frame.
 *
 *   cc -O2 -fopenmp -Isrc -Ikernels -c tools/energy_time.c -o build/energy_time.o
 *   c++ -fopenmp build/energy_time.o build/libstarburst_lib.a -lGLEW -lGL -lEGL -lglfw -lhdf5_serial \
 *       -linih -lm -lpthread [-L/usr/local/cuda/lib64 -lcudart] -o build/energy_time
 *   build/energy_time worker 30 [cpu|cuda] [N] [STEPS] */
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
    const bool cuda = argc > 3 && strcmp(argv[3], "cuda") == 0;
    const int n = argc > 4 ? atoi(argv[4]) : 16384, per_frame = argc > 5 ? atoi(argv[5]) : 1;
    if ((!none && !loop && strcmp(mode, "worker") != 0) || !(seconds > 0) || n <= 0 || per_frame <= 0) {
        fprintf(stderr, "usage: energy_time none|loop|worker [SECONDS] [cpu|cuda] [N] [STEPS]\n");
        return 2;
    }
    RunDesc d = {.source = {.scene = {.kind = SCENE_COLLISION}}, .backend = cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU};
    char err[256];
    Run *r = run_make(&d, err, sizeof err);
    if (!r || run_reset(r, SCENE_COLLISION, n, 1, SIM_KERNEL_DEFAULT, err, sizeof err) != 0) {
        fprintf(stderr, "energy_time: %s\n", err);
        return 1;
    }
    const SimParams p = run_start_params(r, 0.4f, 5e-4f);
    double longest = 0, next = 0, longest_frame = 0;
    int steps = 0, measured = 0;
    const double t0 = clock_seconds();
    while (clock_seconds() - t0 < seconds) {
        const double f0 = clock_seconds();
        run_advance(r, &p, per_frame);
        steps += per_frame;
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
        if (clock_seconds() - f0 > longest_frame) longest_frame = clock_seconds() - f0;
    }
    const double total = clock_seconds() - t0;
    printf("%s, %s, %d bodies, %d steps a frame, %.0f s: %.1f steps/s, %d energies measured, the longest call "
           "%.1f ms, the longest frame %.1f ms\n",
           mode, cuda ? "cuda" : "cpu", n, per_frame, total, steps / total, measured, 1e3 * longest,
           1e3 * longest_frame);
    run_destroy(r);
    return 0;
}
