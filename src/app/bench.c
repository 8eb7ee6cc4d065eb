/* The force-kernel bench: a table of interactions/s per kernel and N, and "% of peak" against
 * the FP32 rate an FMA kernel measures on the same card in the same run, at 12 FP32
 * instructions per interaction. The timing itself is CUDA (kernels/nbody_bench.cu); this file
 * only drives it and prints, so it builds without CUDA too. */
#include "app/bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#ifdef STARBURST_HAVE_CUDA
#include "kernels.h"
#endif

struct BenchTable {
    FILE *out;
    FILE *csv;
    bool csv_failed;
};

BenchTable *bench_table_open(FILE *out, const char *title, const char *csv_path, char *err, size_t errlen)
{
    BenchTable *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "bench: out of memory");
        return NULL;
    }
    t->out = out;
    if (csv_path) {
        t->csv = fopen(csv_path, "w");
        if (!t->csv) {
            snprintf(err, errlen, "bench: cannot write %s: %s", csv_path, strerror(errno));
            free(t);
            return NULL;
        }
        fprintf(t->csv, "name,n,shape,ms_per_step,force_ms,interactions_per_s,gflops,peak_fraction,note\n");
    }
    if (title) fprintf(out, "%s\n", title);
    fprintf(out, "%-16s %8s  %-12s %9s %9s  %14s %9s %7s  %s\n", "kernel", "N", "shape", "ms/step", "force ms",
            "interactions/s", "GFLOP/s", "% peak", "");
    return t;
}

void bench_table_row(BenchTable *t, const BenchRow *r)
{
    const char *shape = r->shape ? r->shape : "";
    const char *note = r->note ? r->note : "";
    if (r->interactions_per_s > 0) {
        char peak[16] = "";
        if (r->peak_fraction > 0) snprintf(peak, sizeof peak, "%.1f", 100.0 * r->peak_fraction);
        char force[16] = "";
        if (r->force_ms > 0) snprintf(force, sizeof force, "%.3f", r->force_ms);
        fprintf(t->out, "%-16s %8d  %-12s %9.3f %9s  %14.3e %9.0f %7s  %s\n", r->name, r->n, shape, r->ms, force,
                r->interactions_per_s, r->interactions_per_s * 20e-9, peak, note);
    } else {
        fprintf(t->out, "%-16s %8d  %-12s %s\n", r->name, r->n, shape, note);
    }
    fflush(t->out);
    if (t->csv) {
        /* Notes are free text: keep commas and quotes out of the CSV cell. */
        char clean[160];
        snprintf(clean, sizeof clean, "%s", note);
        for (char *c = clean; *c; c++)
            if (*c == ',' || *c == '"') *c = ';';
        if (fprintf(t->csv, "%s,%d,%s,%.6f,%.6f,%.6e,%.3f,%.4f,%s\n", r->name, r->n, shape, r->ms, r->force_ms,
                    r->interactions_per_s, r->interactions_per_s * 20e-9, r->peak_fraction, clean) < 0)
            t->csv_failed = true;
    }
}

int bench_table_close(BenchTable *t)
{
    if (!t) return 0;
    int rc = 0;
    if (t->csv && (fclose(t->csv) != 0 || t->csv_failed)) rc = -1;
    free(t);
    return rc;
}

#ifdef STARBURST_HAVE_CUDA

typedef struct BenchKernel {
    const char *name;
    SimKernel kernel;
    SimPrecision precision;
    double rate; /* interactions/s at the largest N timed so far; 0 = none yet */
} BenchKernel;

static const BenchKernel all_kernels[] = {
    {"naive", SIM_KERNEL_NAIVE, SIM_PRECISION_FLOAT, 0},
    {"registers", SIM_KERNEL_REGISTERS, SIM_PRECISION_FLOAT, 0},
    {"tiled", SIM_KERNEL_TILED, SIM_PRECISION_FLOAT, 0},
    {"tiled-unrolled", SIM_KERNEL_TILED_UNROLLED, SIM_PRECISION_FLOAT, 0},
    {"mtpb", SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT, 0},
    {"mtpb-f64", SIM_KERNEL_MTPB, SIM_PRECISION_DOUBLE, 0},
};
#define ALL_KERNELS ((int)(sizeof all_kernels / sizeof all_kernels[0]))

/* A ladder kernel whose call would pass this is left out of the table rather than timed. */
#define BENCH_MAX_CALL_S 2.0
/* Repeats shrink so that one cell takes about this long, but never below 3. */
#define BENCH_CELL_S 3.0

static void shape_text(NbodyShape s, SimKernel k, char *buf, size_t len)
{
    if (k == SIM_KERNEL_MTPB)
        snprintf(buf, len, "q%d b%d r%d", s.q, s.block, s.r);
    else
        snprintf(buf, len, "b%d", s.block);
}

static int time_cell(BenchTable *t, NbodyBench *b, BenchKernel *k, NbodyShape shape, int n, int repeats,
                     double peak, const char *name)
{
    double inter = (double)n * n;
    if (k->rate > 0 && inter / k->rate > BENCH_MAX_CALL_S) {
        char note[96];
        snprintf(note, sizeof note, "skipped: ~%.1f s per call (over %.0f s)", inter / k->rate, BENCH_MAX_CALL_S);
        bench_table_row(t, &(BenchRow){.name = name, .n = n, .note = note});
        return 0;
    }
    if (k->rate > 0) {
        int fit = (int)(BENCH_CELL_S / (inter / k->rate));
        if (fit < repeats) repeats = fit < 3 ? 3 : fit;
    }
    double force_ms = 0, step_ms = 0;
    cudaError_t e = nbody_bench_time(b, k->kernel, k->precision, shape, repeats, &force_ms, &step_ms);
    if (e != cudaSuccess) {
        fprintf(stderr, "bench: %s at N = %d: %s\n", name, n, cudaGetErrorString(e));
        return -1;
    }
    double rate = inter / (force_ms * 1e-3);
    k->rate = rate;
    char text[32];
    shape_text(shape, k->kernel, text, sizeof text);
    bench_table_row(t, &(BenchRow){.name = name,
                                   .n = n,
                                   .shape = text,
                                   .ms = step_ms,
                                   .force_ms = force_ms,
                                   .interactions_per_s = rate,
                                   .peak_fraction = rate / peak});
    return 0;
}

static int sweep(BenchTable *t, NbodyBench *b, int n, int repeats, double peak)
{
    static const int blocks[] = {128, 256, 512};
    BenchKernel k = {"mtpb", SIM_KERNEL_MTPB, SIM_PRECISION_FLOAT, 0};
    for (int r = 1; r <= 2; r++)
        for (int bi = 0; bi < 3; bi++)
            for (int q = 1; q <= 32; q *= 2) {
                NbodyShape s = {q, blocks[bi], r};
                k.rate = 0;
                if (time_cell(t, b, &k, s, n, repeats, peak, "mtpb sweep") != 0) return -1;
            }
    return 0;
}

static int run(const BenchOptions *o)
{
    static const int default_ns[] = {4096, 16384, 65536, 131072, 1048576};
    const int *ns = o->ns ? o->ns : default_ns;
    int ns_count = o->ns ? o->ns_count : (int)(sizeof default_ns / sizeof default_ns[0]);
    int repeats = o->repeats > 0 ? o->repeats : 10;

    BenchKernel kernels[ALL_KERNELS];
    int nk = 0;
    if (!o->kernels) {
        memcpy(kernels, all_kernels, sizeof all_kernels);
        nk = ALL_KERNELS;
    } else {
        for (int i = 0; i < o->kernels_count && nk < ALL_KERNELS; i++) {
            int found = -1;
            for (int j = 0; j < ALL_KERNELS; j++)
                if (strcmp(o->kernels[i], all_kernels[j].name) == 0) found = j;
            if (found < 0) {
                fprintf(stderr, "bench: unknown kernel '%s' (naive, registers, tiled, tiled-unrolled, mtpb, mtpb-f64)\n",
                        o->kernels[i]);
                return 1;
            }
            kernels[nk++] = all_kernels[found];
        }
    }
    for (int i = 0; i < ns_count; i++) {
        if (ns[i] < 1) {
            fprintf(stderr, "bench: N = %d: a bench needs at least one body\n", ns[i]);
            return 1;
        }
    }

    char device[256];
    int sms = 0;
    double fp32 = 0;
    cudaError_t e = nbody_device_info(device, sizeof device, &sms);
    if (e == cudaSuccess) e = nbody_bench_fp32_peak(&fp32);
    if (e != cudaSuccess) {
        fprintf(stderr, "bench: %s\n", cudaGetErrorString(e));
        return 1;
    }
    const double peak = fp32 / 12.0;
    char title[768];
    snprintf(title, sizeof title,
             "Force kernels on %s (%d SMs). Each cell: median of up to %d timed launches after a warm-up.\n"
             "FP32 rate measured by an FFMA kernel: %.3e instructions/s. Peak interactions/s assumes 12 FP32\n"
             "instructions per interaction: %.3e. GFLOP/s counts 20 flops per interaction. ms/step = drift +\n"
             "force + kick; force ms = the fused force + kick kernel, which interactions/s is taken from.\n"
             "Kernels whose call would take over %.0f s at an N are skipped there.",
             device, sms, repeats, fp32, peak, BENCH_MAX_CALL_S);
    char err[256];
    BenchTable *t = bench_table_open(stdout, title, o->csv_path, err, sizeof err);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < ns_count && rc == 0; i++) {
        const int n = ns[i];
        NbodyBench *b = NULL;
        e = nbody_bench_create(&b, n, 1u + (unsigned)i);
        if (e != cudaSuccess) {
            fprintf(stderr, "bench: N = %d: %s\n", n, cudaGetErrorString(e));
            rc = 1;
            break;
        }
        for (int k = 0; k < nk && rc == 0; k++) {
            NbodyShape shape;
            if (kernels[k].kernel == SIM_KERNEL_MTPB)
                shape = nbody_choose_shape(n, sms, kernels[k].precision, o->threads_per_body, o->block_size);
            else
                shape = nbody_plain_shape(0);
            if (nbody_shape_check(kernels[k].kernel, kernels[k].precision, shape, err, sizeof err) != 0) {
                fprintf(stderr, "bench: %s: %s\n", kernels[k].name, err);
                rc = 1;
                break;
            }
            rc = time_cell(t, b, &kernels[k], shape, n, repeats, peak, kernels[k].name) ? 1 : 0;
        }
        if (rc == 0 && o->sweep) rc = sweep(t, b, n, repeats, peak) ? 1 : 0;
        nbody_bench_destroy(b);
    }
    if (bench_table_close(t) != 0 && rc == 0) {
        fprintf(stderr, "bench: could not write %s completely\n", o->csv_path);
        rc = 1;
    }
    return rc;
}

#endif

int bench_run(const BenchOptions *o)
{
#ifdef STARBURST_HAVE_CUDA
    char why[256];
    if (!sim_cuda_available(why, sizeof why)) {
        fprintf(stderr, "bench needs the CUDA backend: %s\n", why);
        return 2;
    }
    return run(o);
#else
    (void)o;
    fprintf(stderr, "bench needs the CUDA backend\n");
    return 2;
#endif
}
