/* bench --gpus: one GPU against several, a row each (bench_gpus.h). */
#include "bench/bench_gpus.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "sim/gpu_split.h"
#include "sim/sim.h"
#include "util/atomic_file.h"
#include "util/params.h"

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct GpusRow {
    int used;
    double ms, exchange_ms;
} GpusRow;

/* One row: `repeats` advances of one step after the warm-up, each on the GPU's clock; the median
 * step and its exchange. The warm-up is one advance, or for `all` (gpus -1) the advances its choice
 * times (gpu_split.h), so that the row times the way kept. 0, or -1 with one line on stderr. */
static int time_row(SimForce force, const Bodies *b, const SceneInfo *info, int gpus, int repeats, GpusRow *row)
{
    char err[512];
    const SimDesc d = {.backend = SIM_BACKEND_CUDA, .force = force, .kernel = SIM_KERNEL_SYMMETRIC, .gpus = gpus};
    Sim *s = sim_create(&d, b, err, sizeof err);
    if (!s) {
        fprintf(stderr, "bench: --gpus %d at N = %d: %s\n", gpus, b->n, err);
        return -1;
    }
    const SimParams p = {.dt = info->dt, .softening = info->softening, .damping = 1,
                         .alpha = force == SIM_FORCE_TREE ? params_alpha(-1) : 0};
    double *ms = calloc((size_t)repeats * 2, sizeof *ms), *exchange = ms + repeats;
    int rc = ms ? 0 : -1;
    const int warmup = gpus < 0 ? 2 * (GPU_CHOICE_SAMPLES + 1) : 1;
    for (int w = 0; w < warmup; w++) sim_advance(s, &p, 1);
    for (int r = 0; rc == 0 && r < repeats; r++) {
        sim_advance(s, &p, 1);
        if (sim_error(s)) break;
        ms[r] = sim_stats(s).gpu_ms;
        row->used = sim_gpus(s, &exchange[r]);
    }
    if (sim_error(s) || !ms) {
        fprintf(stderr, "bench: --gpus %d at N = %d: %s\n", gpus, b->n, ms ? sim_error(s) : "out of memory");
        rc = -1;
    } else {
        qsort(ms, (size_t)repeats, sizeof *ms, by_value);
        qsort(exchange, (size_t)repeats, sizeof *exchange, by_value);
        row->ms = ms[repeats / 2];
        row->exchange_ms = exchange[repeats / 2];
        if (sim_gpus_note(s)[0]) fprintf(stderr, "bench: --gpus %d: %s\n", gpus, sim_gpus_note(s));
    }
    free(ms);
    sim_destroy(s);
    return rc;
}

int bench_gpus_run(const BenchGpusOptions *o)
{
    FILE *out = o->out ? o->out : stdout;
    char why[256];
    if (!sim_cuda_available(why, sizeof why)) {
        fprintf(stderr, "bench: --gpus: %s\n", why);
        return 2;
    }
    const bool tree = o->force == SIM_FORCE_TREE;
    static const int direct_ns[] = {1 << 20, 2 << 20}, tree_ns[] = {1 << 20, 16 << 20};
    const int *ns = o->ns ? o->ns : tree ? tree_ns : direct_ns;
    const int ns_count = o->ns ? o->ns_count : 2;
    const int repeats = o->repeats > 0 ? o->repeats : 5;
    AtomicFile *csv = NULL;
    if (o->csv_path) {
        csv = atomic_file_open(o->csv_path, why, sizeof why);
        if (!csv) {
            fprintf(stderr, "bench: %s\n", why);
            return 1;
        }
        atomic_file_printf(csv, "n,gpus_asked,gpus,step_ms,interactions_per_s,speedup,efficiency,exchange_ms,exchange_share\n");
    }
    int rc = 0;
    bool titled = false;
    for (int i = 0; i < ns_count && rc == 0; i++) {
        Bodies b;
        SceneInfo info;
        char err[512];
        if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = ns[i], .seed = 1}, &b, &info, err, sizeof err) != 0) {
            fprintf(stderr, "bench: the collision scene of %d %s: %s\n", ns[i], ns[i] == 1 ? "body" : "bodies", err);
            rc = -1;
            break;
        }
        double one_ms = 0;
        for (int k = 0; k < o->counts_count && rc == 0; k++) {
            GpusRow row = {0};
            rc = time_row(tree ? SIM_FORCE_TREE : SIM_FORCE_DIRECT, &b, &info, o->counts[k], repeats, &row);
            if (rc != 0) break;
            if (row.used == 1) one_ms = row.ms;
            if (!titled) {
                if (tree)
                    fprintf(out, "\nThe tree across GPUs (each GPU builds it, the walk's groups shared out; opened by\n"
                                 "estimated error within %.2g |a|; the same bits on any count): collision scene.\n",
                            (double)params_alpha(-1));
                else
                    fprintf(out, "\nThe direct sum across GPUs (the symmetric kernel's tasks shared out; the same bits on\n"
                                 "any count): collision scene.\n");
                fprintf(out, "ms/step: a whole step through the sim API (drift, forces, kick), the median of %d after a\n"
                             "warm-up, on the first GPU's clock. interactions/s: N^2 a step%s.\n"
                             "speed-up and efficiency: against the 1-GPU row of the same N. exchange: the copy of the\n"
                             "positions to the other GPUs, its ms and share of the step. all: N, the GPUs it kept.\n",
                        repeats, tree ? " (the N^2 the tree stands for)" : "");
                fprintf(out, "%10s %7s %10s %14s %9s %11s %12s %9s\n", "N", "GPUs", "ms/step", "interactions/s",
                        "speed-up", "efficiency", "exchange ms", "share");
                titled = true;
            }
            const double rate = (double)b.n * b.n / (row.ms * 1e-3);
            const double speedup = one_ms > 0 ? one_ms / row.ms : 0;
            char su[16] = "", eff[16] = "";
            if (speedup > 0) {
                snprintf(su, sizeof su, "%.2fx", speedup);
                snprintf(eff, sizeof eff, "%.0f %%", 100 * speedup / row.used);
            }
            char used[16]; /* `all` says what it kept */
            snprintf(used, sizeof used, o->counts[k] < 0 ? "all: %d" : "%d", row.used);
            fprintf(out, "%10d %7s %10.2f %14.3e %9s %11s %12.3f %8.2f%%\n", b.n, used, row.ms, rate, su, eff,
                    row.exchange_ms, 100 * row.exchange_ms / row.ms);
            fflush(out);
            if (csv)
                atomic_file_printf(csv, "%d,%d,%d,%.4f,%.4e,%.4f,%.4f,%.4f,%.5f\n", b.n, o->counts[k], row.used, row.ms, rate, speedup,
                                   speedup / row.used, row.exchange_ms, row.exchange_ms / row.ms);
        }
        bodies_free(&b);
    }
    if (csv) {
        if (rc == 0 && atomic_file_commit(csv, why, sizeof why) != 0) {
            fprintf(stderr, "bench: %s\n", why);
            rc = -1;
        } else if (rc != 0) {
            atomic_file_abort(csv);
        }
    }
    return rc == 0 ? 0 : 1;
}
