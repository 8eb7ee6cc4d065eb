/* The force-kernel bench: a table of interactions/s per kernel and N (N^2 per step, whichever
 * way a kernel gets them), and "% of peak": the FP32 instructions the kernel issues per second
 * (12 per interaction; 8 for symmetric, which evaluates each pair once for both bodies) against
 * the FP32 rate an FMA kernel measures on the same card in the same run. The sweep repeats the classic tuning experiments of the direct
 * N-body kernel (rate against N, threads per block, threads per body) and draws each as a chart.
 * The timing itself is CUDA (kernels/nbody_bench.cu); this file only drives it, prints and
 * draws, so it builds without CUDA too. */
#include "bench/bench.h"
#include "bench/bench_progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/context.h"
#include "sim/sim.h"
#include "util/atomic_file.h"
#ifdef STARBURST_HAVE_CUDA
#include "kernels.h"
#endif

struct BenchTable {
    FILE *out;
    AtomicFile *csv; /* replaces an older CSV only when the table is complete */
};

BenchTable *bench_table_open(FILE *out, const char *title, const char *csv_path, char *err, size_t errlen)
{
    BenchTable *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->out = out;
    if (csv_path) {
        char why[512];
        t->csv = atomic_file_open(csv_path, why, sizeof why);
        if (!t->csv) {
            snprintf(err, errlen, "%s", why);
            free(t);
            return NULL;
        }
        atomic_file_printf(t->csv, "name,n,shape,ms_per_step,force_ms,interactions_per_s,gflops,peak_fraction,note\n");
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
        atomic_file_printf(t->csv, "%s,%d,%s,%.6f,%.6f,%.6e,%.3f,%.4f,%s\n", r->name, r->n, shape, r->ms,
                           r->force_ms, r->interactions_per_s, r->interactions_per_s * 20e-9, r->peak_fraction,
                           clean);
    }
}

int bench_table_close(BenchTable *t)
{
    if (!t) return 0;
    int rc = 0;
    char why[512];
    if (t->csv && atomic_file_commit(t->csv, why, sizeof why) != 0) rc = -1;
    free(t);
    return rc;
}

bool bench_sweep_paths(const char *csv_path, const char *what, char *csv, char *png, size_t len)
{
    if (!csv_path) {
        if (len) csv[0] = '\0';
        return snprintf(png, len, "sweep-%s.png", what) < (int)len;
    }
    /* The extension is the last dot of the file name, not of a folder, nor a hidden file's first. */
    const char *slash = strrchr(csv_path, '/'), *name = slash ? slash + 1 : csv_path;
    const char *dot = strrchr(name, '.');
    if (dot == name) dot = NULL;
    int stem = dot ? (int)(dot - csv_path) : (int)strlen(csv_path);
    return snprintf(csv, len, "%.*s-%s%s", stem, csv_path, what, dot ? dot : ".csv") < (int)len &&
           snprintf(png, len, "%.*s-%s.png", stem, csv_path, what) < (int)len;
}

int bench_chart_png(const Chart *chart, const char *path, char *err, size_t errlen)
{
    char why[512];
    RenderContext *ctx = render_context_create(
        &(RenderContextDesc){.headless = true, .width = BENCH_CHART_WIDTH, .height = BENCH_CHART_HEIGHT}, why,
        sizeof why);
    if (!ctx) {
        snprintf(err, errlen, "bench: no chart %.200s: %.250s", path, why);
        return -1;
    }
    int rc = chart_render_png(chart, path, BENCH_CHART_WIDTH, BENCH_CHART_HEIGHT, err, errlen);
    render_context_destroy(ctx);
    return rc;
}

#ifdef STARBURST_HAVE_CUDA

typedef struct BenchKernel {
    const char *name;
    NbodyKernel kernel;
    NbodyPrecision precision;
    double rate; /* interactions/s at the largest N timed so far; 0 = none yet */
} BenchKernel;

static const BenchKernel all_kernels[] = {
    {"naive", NBODY_KERNEL_NAIVE, NBODY_PRECISION_FLOAT, 0},
    {"registers", NBODY_KERNEL_REGISTERS, NBODY_PRECISION_FLOAT, 0},
    {"tiled", NBODY_KERNEL_TILED, NBODY_PRECISION_FLOAT, 0},
    {"tiled-unrolled", NBODY_KERNEL_TILED_UNROLLED, NBODY_PRECISION_FLOAT, 0},
    {"mtpb", NBODY_KERNEL_MTPB, NBODY_PRECISION_FLOAT, 0},
    {"symmetric", NBODY_KERNEL_SYMMETRIC, NBODY_PRECISION_FLOAT, 0},
    {"mtpb-f64", NBODY_KERNEL_MTPB, NBODY_PRECISION_DOUBLE, 0},
};
#define ALL_KERNELS ((int)(sizeof all_kernels / sizeof all_kernels[0]))

/* A ladder kernel whose call would pass this is left out of the table rather than timed. */
#define BENCH_MAX_CALL_S 2.0
/* Repeats shrink so that one cell takes about this long, but never below 3. */
#define BENCH_CELL_S 3.0

static void shape_text(NbodyShape s, NbodyKernel k, char *buf, size_t len)
{
    if (k == NBODY_KERNEL_MTPB)
        snprintf(buf, len, "q%d b%d r%d", s.q, s.block, s.r);
    else if (k == NBODY_KERNEL_SYMMETRIC)
        snprintf(buf, len, "%d parts b%d", s.parts, s.block);
    else
        snprintf(buf, len, "b%d", s.block);
}

/* Shows a cell on the progress line: "mtpb N=131072, q8 b256 r1". */
static void cell_begins(BenchProgress *progress, const char *name, int n, const char *shape)
{
    char what[96];
    snprintf(what, sizeof what, "%s N=%d, %s", name, n, shape);
    bench_progress_step(progress, what);
}

/* Times one cell and prints its row; *rate = interactions/s, or 0 where skipped. */
static int time_cell(BenchTable *t, BenchProgress *progress, NbodyBench *b, BenchKernel *k, NbodyShape shape, int n,
                     int repeats, double peak, const char *name, double *rate)
{
    double inter = (double)n * n;
    *rate = 0;
    char text[32];
    shape_text(shape, k->kernel, text, sizeof text);
    cell_begins(progress, name, n, text);
    if (k->rate > 0 && inter / k->rate > BENCH_MAX_CALL_S) {
        bench_progress_clear(progress);
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
    bench_progress_clear(progress);
    if (e != cudaSuccess) {
        fprintf(stderr, "bench: %s at N = %d: %s\n", name, n, cudaGetErrorString(e));
        return -1;
    }
    *rate = inter / (force_ms * 1e-3);
    k->rate = *rate;
    bench_table_row(t, &(BenchRow){.name = name,
                                   .n = n,
                                   .shape = text,
                                   .ms = step_ms,
                                   .force_ms = force_ms,
                                   .interactions_per_s = *rate,
                                   .peak_fraction = *rate / peak * (k->kernel == NBODY_KERNEL_SYMMETRIC ? 8.0 / 12.0 : 1.0)});
    return 0;
}

/* The default launch shape of kernel k at n bodies (the options' q and block where given). */
static NbodyShape default_shape(const BenchOptions *o, const BenchKernel *k, int n, int sms)
{
    if (k->kernel == NBODY_KERNEL_MTPB) return nbody_choose_shape(n, sms, k->precision, o->threads_per_body, o->block_size);
    if (k->kernel == NBODY_KERNEL_SYMMETRIC) return nbody_symmetric_shape(n, sms, 0);
    return nbody_plain_shape(0);
}

/* ---- the sweep ---- */

#define SWEEP_POINTS 32
#define SWEEP_BLOCK_N 131072
/* Threads per block, and threads per body, each doubling from the first to the last. */
#define SWEEP_BLOCK_FIRST 32
#define SWEEP_BLOCK_LAST 1024
#define SWEEP_Q_FIRST 1
#define SWEEP_Q_LAST 32
static const int sweep_q_ns[] = {1024, 4096, 16384};
#define SWEEP_Q_NS ((int)(sizeof sweep_q_ns / sizeof sweep_q_ns[0]))

typedef struct SweepSeries {
    char name[48];
    int color; /* ChartSeries.color: a kernel keeps its colour in every chart */
    double x[SWEEP_POINTS], y[SWEEP_POINTS];
    int count;
} SweepSeries;

/* One experiment: its table and CSV, the series measured, then its chart. */
typedef struct Experiment {
    BenchTable *table;
    SweepSeries series[CHART_MAX_SERIES];
    int series_count;
    char csv[4096], png[4096];
} Experiment;

typedef struct SweepContext {
    const BenchOptions *o;
    const BenchKernel *kernels;
    int nk;
    int sms, repeats;
    double peak;
    BenchProgress *progress;
    char subtitle[384];
    char peak_label[96];
} SweepContext;

static SweepSeries *experiment_series(Experiment *e, const char *name, int color)
{
    for (int i = 0; i < e->series_count; i++)
        if (strcmp(e->series[i].name, name) == 0) return &e->series[i];
    if (e->series_count == CHART_MAX_SERIES) return NULL;
    SweepSeries *s = &e->series[e->series_count++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->color = color;
    return s;
}

/* The chart colour of a kernel: 1 + its place in the ladder. */
static int kernel_color(const BenchKernel *k)
{
    for (int i = 0; i < ALL_KERNELS; i++)
        if (strcmp(all_kernels[i].name, k->name) == 0) return 1 + i;
    return 0;
}

static void experiment_add(Experiment *e, const char *series, int color, double x, double rate)
{
    SweepSeries *s = experiment_series(e, series, color);
    if (!s || rate <= 0 || s->count == SWEEP_POINTS) return;
    s->x[s->count] = x;
    s->y[s->count++] = rate;
}

static int experiment_open(Experiment *e, const SweepContext *c, const char *what, const char *title)
{
    memset(e, 0, sizeof *e);
    if (!bench_sweep_paths(c->o->csv_path, what, e->csv, e->png, sizeof e->csv)) {
        fprintf(stderr, "bench: --csv: the path '%s' is too long\n", c->o->csv_path);
        return -1;
    }
    char err[512];
    printf("\n");
    e->table = bench_table_open(stdout, title, e->csv[0] ? e->csv : NULL, err, sizeof err);
    if (!e->table) {
        fprintf(stderr, "bench: %s\n", err);
        return -1;
    }
    return 0;
}

/* Closes the table and draws the chart of what was measured. 0; -1 when the CSV could not be
 * written; 1 when only the chart could not be drawn (the sweep goes on, and fails at its end). */
static int experiment_close(Experiment *e, Chart *chart)
{
    if (bench_table_close(e->table) != 0) {
        fprintf(stderr, "bench: could not write %s completely\n", e->csv);
        return -1;
    }
    for (int i = 0; i < e->series_count; i++)
        chart->series[i] = (ChartSeries){e->series[i].name, e->series[i].x, e->series[i].y, e->series[i].count,
                                           e->series[i].color};
    chart->series_count = e->series_count;
    char err[512];
    if (bench_chart_png(chart, e->png, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("Chart: %s%s%s\n", e->png, e->csv[0] ? ", CSV: " : "", e->csv);
    return 0;
}

/* A launch shape the kernel cannot take: its cell passes with a row that says why. */
static void not_run_cell(const SweepContext *c, BenchTable *t, const BenchKernel *k, NbodyShape s, int n,
                         const char *why)
{
    char text[32], note[200];
    shape_text(s, k->kernel, text, sizeof text);
    cell_begins(c->progress, k->name, n, text);
    bench_progress_clear(c->progress);
    snprintf(note, sizeof note, "not run: %s", why);
    bench_table_row(t, &(BenchRow){.name = k->name, .n = n, .note = note});
}

/* A timing error stops the sweep; a chart that could not be drawn does not. */
static int experiment_status(int timing, int close)
{
    return timing != 0 || close < 0 ? -1 : close;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The body counts of experiment (a), smallest first; returns how many. */
static int sweep_ns(const BenchOptions *o, int ns[SWEEP_POINTS])
{
    static const int default_ns[] = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576};
    int count = o->ns ? (o->ns_count < SWEEP_POINTS ? o->ns_count : SWEEP_POINTS)
                      : (int)(sizeof default_ns / sizeof default_ns[0]);
    memcpy(ns, o->ns ? o->ns : default_ns, sizeof(int) * (size_t)count);
    qsort(ns, (size_t)count, sizeof *ns, by_int);
    return count;
}

/* (a) Every kernel against N, smallest first, so that each kernel's rate at one N predicts
 * its time at the next and the slow ones are skipped before they take minutes. */
static int sweep_n(const SweepContext *c)
{
    int ns[SWEEP_POINTS];
    const int count = sweep_ns(c->o, ns);
    BenchKernel kernels[ALL_KERNELS];
    memcpy(kernels, c->kernels, sizeof(BenchKernel) * (size_t)c->nk);

    Experiment e;
    if (experiment_open(&e, c, "n", "Every kernel against N (its default launch shape).") != 0) return -1;
    int rc = 0;
    for (int k = 0; k < c->nk; k++) experiment_series(&e, kernels[k].name, kernel_color(&kernels[k])); /* legend in ladder order */
    for (int i = 0; i < count && rc == 0; i++) {
        NbodyBench *b = NULL;
        cudaError_t err = nbody_bench_create(&b, ns[i], 1u + (unsigned)i);
        if (err != cudaSuccess) {
            fprintf(stderr, "bench: N = %d: %s\n", ns[i], cudaGetErrorString(err));
            rc = -1;
            break;
        }
        for (int k = 0; k < c->nk && rc == 0; k++) {
            double rate;
            rc = time_cell(e.table, c->progress, b, &kernels[k], default_shape(c->o, &kernels[k], ns[i], c->sms),
                           ns[i], c->repeats, c->peak, kernels[k].name, &rate);
            experiment_add(&e, kernels[k].name, kernel_color(&kernels[k]), ns[i], rate);
        }
        nbody_bench_destroy(b);
    }
    Chart chart = {.title = "Force kernels against N",
                   .subtitle = c->subtitle,
                   .x = {"bodies (N)", CHART_LOG2},
                   .y = {"interactions/s", CHART_LOG10},
                   .reference = c->peak,
                   .reference_label = c->peak_label};
    return experiment_status(rc, experiment_close(&e, &chart));
}

/* The kernels whose threads per block experiment (b) varies: those that tile (symmetric's
 * blocks are fixed by its design). */
static bool block_sweeps(const BenchKernel *k)
{
    return k->kernel != NBODY_KERNEL_NAIVE && k->kernel != NBODY_KERNEL_REGISTERS && k->kernel != NBODY_KERNEL_SYMMETRIC;
}

/* (b) Threads per block at N = 131,072, for the kernels that tile (mtpb at its best q there). */
static int sweep_block(const SweepContext *c)
{
    Experiment e;
    char title[128];
    snprintf(title, sizeof title, "Threads per block at N = %d.", SWEEP_BLOCK_N);
    if (experiment_open(&e, c, "block", title) != 0) return -1;
    NbodyBench *b = NULL;
    cudaError_t err = nbody_bench_create(&b, SWEEP_BLOCK_N, 7u);
    int rc = 0;
    if (err != cudaSuccess) {
        fprintf(stderr, "bench: N = %d: %s\n", SWEEP_BLOCK_N, cudaGetErrorString(err));
        rc = -1;
    }
    for (int k = 0; k < c->nk && rc == 0; k++) {
        BenchKernel kernel = c->kernels[k];
        if (!block_sweeps(&kernel)) continue;
        for (int block = SWEEP_BLOCK_FIRST; block <= SWEEP_BLOCK_LAST && rc == 0; block *= 2) {
            NbodyShape s = kernel.kernel == NBODY_KERNEL_MTPB
                               ? nbody_choose_shape(SWEEP_BLOCK_N, c->sms, kernel.precision, c->o->threads_per_body, block)
                               : nbody_plain_shape(block);
            char why[160];
            if (nbody_shape_check(kernel.kernel, kernel.precision, s, why, sizeof why) != 0) {
                not_run_cell(c, e.table, &kernel, s, SWEEP_BLOCK_N, why);
                continue;
            }
            double rate;
            rc = time_cell(e.table, c->progress, b, &kernel, s, SWEEP_BLOCK_N, c->repeats, c->peak, kernel.name,
                           &rate);
            experiment_add(&e, kernel.name, kernel_color(&kernel), block, rate);
        }
    }
    nbody_bench_destroy(b);
    snprintf(title, sizeof title, "Threads per block at N = %d,%03d", SWEEP_BLOCK_N / 1000, SWEEP_BLOCK_N % 1000);
    Chart chart = {.title = title,
                   .subtitle = c->subtitle,
                   .x = {"threads per block", CHART_LOG2},
                   .y = {"interactions/s", CHART_LINEAR},
                   .reference = c->peak,
                   .reference_label = c->peak_label};
    return experiment_status(rc, experiment_close(&e, &chart));
}

/* (c) Threads per body at small N, where one thread per body leaves most of the GPU idle: the
 * block size fixed (256, or --block-size), one body per thread. */
static int sweep_q(const SweepContext *c)
{
    const int *ns = sweep_q_ns;
    const int block = c->o->block_size > 0 ? c->o->block_size : 256;
    Experiment e;
    char title[160];
    snprintf(title, sizeof title, "Threads per body (q) at small N; %d threads per block, one body per thread.", block);
    if (experiment_open(&e, c, "q", title) != 0) return -1;
    int rc = 0;
    for (int i = 0; i < SWEEP_Q_NS && rc == 0; i++) {
        NbodyBench *b = NULL;
        cudaError_t err = nbody_bench_create(&b, ns[i], 11u + (unsigned)i);
        if (err != cudaSuccess) {
            fprintf(stderr, "bench: N = %d: %s\n", ns[i], cudaGetErrorString(err));
            rc = -1;
            break;
        }
        for (int k = 0; k < c->nk && rc == 0; k++) {
            BenchKernel kernel = c->kernels[k];
            if (kernel.kernel != NBODY_KERNEL_MTPB) continue;
            char series[48];
            snprintf(series, sizeof series, "%sN = %d", kernel.precision == NBODY_PRECISION_DOUBLE ? "f64, " : "", ns[i]);
            for (int q = SWEEP_Q_FIRST; q <= SWEEP_Q_LAST && rc == 0; q *= 2) {
                NbodyShape s = {q, block, 1, 0};
                char why[160];
                if (nbody_shape_check(kernel.kernel, kernel.precision, s, why, sizeof why) != 0) {
                    not_run_cell(c, e.table, &kernel, s, ns[i], why);
                    continue;
                }
                double rate;
                rc = time_cell(e.table, c->progress, b, &kernel, s, ns[i], c->repeats, c->peak, kernel.name, &rate);
                experiment_add(&e, series, 0, q, rate);
            }
        }
        nbody_bench_destroy(b);
    }
    char x_label[96];
    snprintf(x_label, sizeof x_label, "threads per body, q (%d threads per block)", block);
    Chart chart = {.title = "Threads per body at small N",
                   .subtitle = c->subtitle,
                   .x = {x_label, CHART_LOG2},
                   .y = {"interactions/s", CHART_LOG10}};
    return experiment_status(rc, experiment_close(&e, &chart));
}

/* How many doublings take first to last, both counted: 32 .. 1024 is 6. */
static int doublings(int first, int last)
{
    int count = 0;
    for (int v = first; v <= last; v *= 2) count++;
    return count;
}

/* The cells the three experiments visit, as their loops go, for the progress line. */
static int sweep_cells(const SweepContext *c)
{
    int ns[SWEEP_POINTS];
    int cells = sweep_ns(c->o, ns) * c->nk;
    for (int k = 0; k < c->nk; k++) {
        if (block_sweeps(&c->kernels[k])) cells += doublings(SWEEP_BLOCK_FIRST, SWEEP_BLOCK_LAST);
        if (c->kernels[k].kernel == NBODY_KERNEL_MTPB) cells += SWEEP_Q_NS * doublings(SWEEP_Q_FIRST, SWEEP_Q_LAST);
    }
    return cells;
}

static int sweep(const BenchOptions *o, const BenchKernel *kernels, int nk, const char *device, int sms,
                 double peak, int repeats)
{
    BenchProgress progress;
    SweepContext c = {.o = o, .kernels = kernels, .nk = nk, .sms = sms, .repeats = repeats, .peak = peak,
                      .progress = &progress};
    snprintf(c.subtitle, sizeof c.subtitle, "%s, %d SMs: force + kick launches, median of up to %d runs",
             device, sms, repeats);
    char rate[32];
    snprintf(rate, sizeof rate, "%.2e", peak);
    snprintf(c.peak_label, sizeof c.peak_label, "FP32 peak at 12 instructions per interaction: %s/s", rate);
    int (*const experiments[])(const SweepContext *) = {sweep_n, sweep_block, sweep_q};
    int rc = 0;
    bench_progress_begin(&progress, stderr, sweep_cells(&c));
    for (int i = 0; i < 3 && rc >= 0; i++) {
        int r = experiments[i](&c);
        rc = r < 0 ? r : (rc ? rc : r);
    }
    bench_progress_clear(&progress);
    return rc;
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
        /* The sweep is about the FP32 ladder: mtpb-f64 (the last) only when asked for. */
        nk = o->sweep ? ALL_KERNELS - 1 : ALL_KERNELS;
        memcpy(kernels, all_kernels, sizeof(BenchKernel) * (size_t)nk);
    } else {
        for (int i = 0; i < o->kernels_count && nk < ALL_KERNELS; i++) {
            int found = -1;
            for (int j = 0; j < ALL_KERNELS; j++)
                if (strcmp(o->kernels[i], all_kernels[j].name) == 0) found = j;
            if (found < 0) {
                fprintf(stderr, "bench: unknown kernel '%s' (naive, registers, tiled, tiled-unrolled, mtpb, symmetric, "
                        "mtpb-f64)\n",
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
    char title[1024];
    snprintf(title, sizeof title,
             "Force kernels on %s (%d SMs). Each cell: median of up to %d timed launches after a warm-up.\n"
             "FP32 rate measured by an FFMA kernel: %.3e instructions/s. Peak interactions/s assumes 12 FP32\n"
             "instructions per interaction: %.3e. Interactions are N^2 per step; symmetric evaluates each pair\n"
             "once for both bodies (8 FP32 instructions per interaction), and its %% peak counts those.\n"
             "GFLOP/s counts 20 flops per interaction. ms/step = drift + force + kick; force ms = the force +\n"
             "kick launches, which interactions/s is taken from.\n"
             "Kernels whose call would take over %.0f s at an N are skipped there.",
             device, sms, repeats, fp32, peak, BENCH_MAX_CALL_S);
    if (o->sweep) {
        printf("%s\n", title);
        return sweep(o, kernels, nk, device, sms, peak, repeats) ? 1 : 0;
    }
    char err[256];
    BenchTable *t = bench_table_open(stdout, title, o->csv_path, err, sizeof err);
    if (!t) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    int rc = 0;
    BenchProgress progress;
    bench_progress_begin(&progress, stderr, ns_count * nk);
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
            NbodyShape shape = default_shape(o, &kernels[k], n, sms);
            if (nbody_shape_check(kernels[k].kernel, kernels[k].precision, shape, err, sizeof err) != 0) {
                fprintf(stderr, "bench: %s: %s\n", kernels[k].name, err);
                rc = 1;
                break;
            }
            double rate;
            rc = time_cell(t, &progress, b, &kernels[k], shape, n, repeats, peak, kernels[k].name, &rate) ? 1 : 0;
        }
        nbody_bench_destroy(b);
    }
    bench_progress_clear(&progress);
    if (bench_table_close(t) != 0 && rc == 0) {
        fprintf(stderr, "bench: could not write %s completely\n", o->csv_path);
        rc = 1;
    }
    return rc;
}

#endif

int bench_run(const BenchOptions *o)
{
    char why[256];
    if (!sim_cuda_available(why, sizeof why)) {
        if (o->sweep)
            fprintf(stderr, "bench --sweep: cannot time the force kernels without CUDA (%s)\n", why);
        else
            fprintf(stderr, "bench: cannot time the force kernels without CUDA (%s); starburst bench --loop-only "
                            "times the whole loop on the CPU backend\n", why);
        return 2;
    }
#ifdef STARBURST_HAVE_CUDA
    return run(o);
#else
    return 2; /* sim_cuda_available said no */
#endif
}
