/* The tree bench. Everything goes through the sim API, as the program runs it: a step is
 * sim_advance of one step (drift, the tree built from scratch and walked, kick), timed on the
 * GPU's clock (CUDA events around the steps) or the wall clock (CPU backend). The direct sum is
 * timed the same way at the same N, on the same bodies, right after, so the speedup compares two
 * runs of the same step on the same machine a minute apart. A direct step is timed in full at every
 * N, so the table needs no extrapolation: at 8M bodies a symmetric step takes about 25 s on an
 * H100, timed once without a warm-up (the kernel is warm from the smaller N; the first advance of a
 * simulation also computes its opening forces, outside the CUDA events, which doubles its wall
 * time). Where a direct step is predicted to pass BENCH_TREE_DIRECT_MAX_S, its cell says so; the
 * prediction comes from the N before, or, for a first N far above the smallest, from a direct step
 * timed at 131,072 bodies (16,384 on the CPU) first. */
#include "bench/bench_tree.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_progress.h"
#include "sim/fmm_expansion.h"
#include "scene/scene.h"
#include "util/atomic_file.h"
#include "util/params.h"

/* Timed steps shrink so that a cell takes about this long: never below 3 for the tree, 1 for a
 * direct step. */
#define CELL_S 3.0
/* On the GPU a direct step predicted to take longer is timed without a warm-up: the kernel is
 * loaded and its time is the GPU's, apart from the opening force call. */
#define WARMUP_MAX_S 1.0

typedef struct Context {
    const BenchTreeOptions *o;
    SimBackend backend; /* resolved: CUDA or CPU */
    SimForce force;     /* tree or fmm */
    float theta, alpha;
    int rebuild;
    int samples, repeats;
    FILE *out;
    BenchProgress progress;
    AtomicFile *csv;
    bool titled;
    double direct_rate; /* interactions/s of the last direct step timed; 0 = none yet */
} Context;

/* "1,048,576". */
static const char *grouped(int n, char *buf, size_t len)
{
    char digits[16];
    const int d = snprintf(digits, sizeof digits, "%d", n);
    int o = 0;
    for (int i = 0; i < d && o + 2 < (int)len; i++) {
        if (i > 0 && (d - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

int bench_tree_default_ns(SimBackend backend, int *ns)
{
    int count = 0;
    for (int n = 16384; n <= 262144; n *= 2) ns[count++] = n;
    if (backend == SIM_BACKEND_CUDA) {
        ns[count++] = 1 << 20;
        ns[count++] = 4 << 20;
        ns[count++] = 8 << 20;
    }
    return count;
}

int bench_tree_crossover(const BenchTreeRow *rows, int count)
{
    int from = 0;
    for (int i = count - 1; i >= 0; i--) {
        const BenchTreeRow *r = &rows[i];
        if (!(r->step_ms > 0 && r->direct_ms > 0)) continue;
        if (!(r->step_ms < r->direct_ms)) break;
        from = r->n;
    }
    return from;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof *v, by_value);
    return diag_percentile(v, count, 0.5);
}

/* The last advance's step: the GPU's clock where there is one. */
static double last_step_ms(const Sim *s)
{
    const SimStats st = sim_stats(s);
    return st.gpu_ms > 0 ? st.gpu_ms : st.ms;
}

/* Medians of `repeats` advances of one step after `warmup` more, into row: the step (into
 * *step_ms) and, for the tree, its parts. repeats shrink so that the timed steps take about
 * CELL_S, going by the warm-up's step or else guess_ms (0 = no guess), but never below least. 0,
 * or -1 when the simulation stopped on an error. */
static int time_steps(Sim *s, const SimParams *p, int warmup, int repeats, int least, double guess_ms,
                      double *step_ms, BenchTreeRow *tree)
{
    for (int w = 0; w < warmup; w++) {
        sim_advance(s, p, 1);
        if (sim_error(s)) return -1;
        guess_ms = last_step_ms(s);
    }
    if (guess_ms > 0) {
        const int fit = (int)(CELL_S * 1e3 / guess_ms);
        if (fit < repeats) repeats = fit < least ? least : fit;
    }
    double *v = malloc(8 * (size_t)repeats * sizeof *v);
    if (!v) return -1;
    double *build = v + repeats, *walk = build + repeats, *bodies = walk + repeats, *cells = bodies + repeats;
    double *upward = cells + repeats, *downward = upward + repeats, *groups = downward + repeats;
    /* With a refit between builds a sample is a whole cycle's mean: one build and its refits. */
    const int cycle = p->rebuild_every > 1 ? p->rebuild_every : 1;
    for (int r = 0; r < repeats; r++) {
        v[r] = build[r] = walk[r] = bodies[r] = cells[r] = upward[r] = downward[r] = groups[r] = 0;
        for (int k = 0; k < cycle; k++) {
            sim_advance(s, p, 1);
            if (sim_error(s)) {
                free(v);
                return -1;
            }
            v[r] += last_step_ms(s) / cycle;
            SimTreeStats ts;
            sim_tree_stats(s, &ts);
            build[r] += ts.build_ms / cycle;
            walk[r] += ts.walk_ms / cycle;
            bodies[r] += ts.body_body / cycle;
            cells[r] += ts.body_cell / cycle;
            upward[r] += ts.upward_ms / cycle;
            downward[r] += ts.downward_ms / cycle;
            groups[r] += ts.body_group / cycle;
        }
    }
    *step_ms = median(v, repeats);
    if (tree) {
        tree->build_ms = median(build, repeats);
        tree->walk_ms = median(walk, repeats);
        tree->body_body = median(bodies, repeats);
        tree->body_cell = median(cells, repeats);
        tree->upward_ms = median(upward, repeats);
        tree->downward_ms = median(downward, repeats);
        tree->body_group = median(groups, repeats);
    }
    free(v);
    return 0;
}

/* The fast multipole method's title and header. */
static void print_fmm_title(Context *c, const char *device)
{
    char near[96] = "";
    if (c->alpha > 0)
        snprintf(near, sizeof near, "; near cells opened by estimated error within %.2g |a|, at most theta %.2f",
                 (double)c->alpha, (double)sim_opening_theta(SIM_FORCE_FMM, c->theta, c->alpha));
    fprintf(c->out,
            "\nFast multipole method (theta %.2f, theta_fmm %.3f, local expansions of order %d about each group%s)\n"
            "against the direct sum (%s): %s backend on %s.\n"
            "Collision scene, the tree rebuilt every step. ms/step: a whole step through the sim API (drift,\n"
            "forces, kick), the median of up to %d timed steps after a warm-up, on the %s. build: box, keys,\n"
            "sort, cells, groups; up: the multipoles (upward pass); inter: the walk, far cells expanded about\n"
            "each group (M2L), near cells and bodies summed; down: the expansions at the bodies (L2P).\n"
            "terms/body: body-body + body-cell + cell-group (M2L) terms a body. direct ms/step: a whole step of\n"
            "the direct sum at the same N in this run, timed in full; speedup = direct / fmm. err: |a - a_f64| /\n"
            "|a_f64| per body against the f64 direct sum on %d bodies spread over the system (on the CPU, %d\n"
            "threads).\n",
            c->theta, fmm_theta(c->theta), FMM_ORDER, near,
            c->backend == SIM_BACKEND_CUDA ? "the symmetric kernel" : "OpenMP, all pairs",
            sim_backend_name(c->backend), device, c->repeats,
            c->backend == SIM_BACKEND_CUDA ? "GPU's clock (CUDA events)" : "wall clock", c->samples,
            omp_get_max_threads());
    fprintf(c->out, "%9s %6s %6s %7s %6s %9s  %-24s %14s %8s  %9s %9s %9s\n", "N", "build", "up", "inter", "down",
            "ms/step", "terms/body (bb + bc + bg)", "direct ms/step", "speedup", "err med", "err p99", "err max");
}

/* The title and the header, once the device is known (from the first simulation). */
static void print_title(Context *c, const char *device)
{
    if (c->titled) return;
    c->titled = true;
    bench_progress_clear(&c->progress);
    if (c->force == SIM_FORCE_FMM) {
        print_fmm_title(c, device);
        fflush(c->out);
        return;
    }
    char opening[160];
    if (c->alpha > 0)
        snprintf(opening, sizeof opening, "opened by estimated error within %.2g |a|, at most theta %.2f",
                 (double)c->alpha, (double)sim_opening_theta(SIM_FORCE_TREE, c->theta, c->alpha));
    else
        snprintf(opening, sizeof opening, "theta %.2f", (double)c->theta);
    if (c->rebuild > 1 && c->backend == SIM_BACKEND_CUDA)
        snprintf(opening + strlen(opening), sizeof opening - strlen(opening),
                 "; rebuilt every %d steps, refitted between: a step is a cycle's mean", c->rebuild);
    fprintf(c->out,
            "\nBarnes-Hut tree (quadrupoles, %s) against the direct sum (%s): %s backend on %s.\n"
            "Collision scene, the tree rebuilt every step. ms/step: a whole step through the sim API (drift, tree\n"
            "build, walk, kick), the median of up to %d timed steps after a warm-up, on the %s%s.\n"
            "build, walk: the tree's parts of that step (box, keys, sort, cells, multipoles; the walk and its sums).\n"
            "inter/body: body-body + body-cell interactions a body. direct ms/step: a whole step of the direct sum\n"
            "at the same N in this run, timed in full; speedup = direct / tree. err: |a - a_f64| / |a_f64| per body\n"
            "against the f64 direct sum on %d bodies spread over the system (on the CPU, %d threads).\n",
            opening, c->backend == SIM_BACKEND_CUDA ? "the symmetric kernel" : "OpenMP, all pairs",
            sim_backend_name(c->backend), device, c->repeats,
            c->backend == SIM_BACKEND_CUDA ? "GPU's clock (CUDA events)" : "wall clock",
            c->backend == SIM_BACKEND_CUDA ? "; a direct step of over 1 s: 1 step, no warm-up" : "", c->samples,
            omp_get_max_threads());
    fprintf(c->out, "%9s %8s %8s %9s  %-22s %14s %8s  %9s %9s %9s\n", "N", "build ms", "walk ms", "ms/step",
            "inter/body (bb + bc)", "direct ms/step", "speedup", "err med", "err p99", "err max");
    fflush(c->out);
}

static void print_row(Context *c, const BenchTreeRow *r)
{
    char n[16], terms[64] = "", direct[24] = "", speedup[16] = "", err[3][16] = {"", "", ""};
    const bool fmm = c->force == SIM_FORCE_FMM;
    if (fmm && r->body_body + r->body_cell + r->body_group > 0)
        snprintf(terms, sizeof terms, "%.0f (%.0f + %.0f + %.1f)", r->body_body + r->body_cell + r->body_group,
                 r->body_body, r->body_cell, r->body_group);
    else if (r->body_body + r->body_cell > 0)
        snprintf(terms, sizeof terms, "%.0f (%.0f + %.0f)", r->body_body + r->body_cell, r->body_body, r->body_cell);
    if (r->direct_ms > 0) snprintf(direct, sizeof direct, "%.3f", r->direct_ms);
    if (r->direct_ms > 0 && r->step_ms > 0) snprintf(speedup, sizeof speedup, "%.2fx", r->direct_ms / r->step_ms);
    if (r->error.samples > 0) {
        snprintf(err[0], sizeof err[0], "%.2e", r->error.median);
        snprintf(err[1], sizeof err[1], "%.2e", r->error.p99);
        snprintf(err[2], sizeof err[2], "%.2e", r->error.worst);
    }
    bench_progress_clear(&c->progress);
    grouped(r->n, n, sizeof n);
    if (r->step_ms > 0 && fmm)
        fprintf(c->out, "%9s %6.2f %6.2f %7.2f %6.2f %9.2f  %-24s %14s %8s  %9s %9s %9s%s%s\n", n, r->build_ms,
                r->upward_ms, r->walk_ms, r->downward_ms, r->step_ms, terms, direct, speedup, err[0], err[1], err[2],
                r->note[0] ? "  " : "", r->note);
    else if (r->step_ms > 0)
        fprintf(c->out, "%9s %8.2f %8.2f %9.2f  %-22s %14s %8s  %9s %9s %9s%s%s\n", n, r->build_ms, r->walk_ms,
                r->step_ms, terms, direct, speedup, err[0], err[1], err[2], r->note[0] ? "  " : "", r->note);
    else
        fprintf(c->out, "%9s  %s\n", n, r->note);
    fflush(c->out);
    if (c->csv) {
        char clean[sizeof r->note];
        snprintf(clean, sizeof clean, "%s", r->note);
        for (char *ch = clean; *ch; ch++)
            if (*ch == ',' || *ch == '"') *ch = ';';
        atomic_file_printf(c->csv,
                           "%d,%.4f,%.4f,%.4f,%.1f,%.1f,%.4f,%.4f,%.4e,%.4e,%.4e,%d,%.3f,%s,%.4f,%.4f,%.2f,%s,%s\n", r->n, r->build_ms, r->walk_ms, r->step_ms, r->body_body, r->body_cell, r->direct_ms,
                           r->direct_ms > 0 && r->step_ms > 0 ? r->direct_ms / r->step_ms : 0, r->error.median,
                           r->error.p99, r->error.worst, r->error.samples, c->theta, sim_backend_name(c->backend),
                           r->upward_ms, r->downward_ms, r->body_group, sim_force_name(c->force), clean);
    }
}

static void cell(Context *c, const char *what, int n)
{
    char text[96];
    snprintf(text, sizeof text, "%s N=%d", what, n);
    bench_progress_step(&c->progress, text);
}

/* The tree (or the fmm) at n, then its error against f64: fills row. 0, or -1 with one line on
 * stderr. */
static int measure_tree(Context *c, Bodies *b, const SceneInfo *info, BenchTreeRow *row)
{
    char err[512];
    const char *method = c->force == SIM_FORCE_FMM ? "the fmm" : "the tree";
    Sim *s = sim_create(&(SimDesc){.backend = c->backend, .force = c->force}, b, err, sizeof err);
    if (!s) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: %s at N = %d: %s\n", method, b->n, err);
        return -1;
    }
    print_title(c, sim_device_name(s));
    const SimParams p = {.dt = info->dt, .softening = info->softening, .damping = 1, .theta = c->theta,
                         .alpha = c->alpha, .rebuild_every = c->rebuild};
    int rc = time_steps(s, &p, 1, c->repeats, 3, 0, &row->step_ms, row);
    if (rc == 0) {
        char what[64];
        snprintf(what, sizeof what, "f64 check of %d bodies,", c->samples);
        cell(c, what, b->n);
        sim_read(s, b);
        rc = diag_force_check(s, b, info->softening, c->samples, &row->error);
    }
    if (rc != 0 || sim_error(s)) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: %s at N = %d: %s\n", method, b->n, sim_error(s) ? sim_error(s) : "out of memory");
        rc = -1;
    }
    sim_destroy(s);
    return rc;
}

/* The direct sum (d) stepped on b: the median ms of up to `repeats` steps after `warmup` (time_steps,
 * guess_ms its guess) into *ms. 0, or -1 with one line on stderr. */
static int time_direct(Context *c, const SimDesc *d, const Bodies *b, const SceneInfo *info, int warmup, int repeats,
                       double guess_ms, double *ms)
{
    char err[512];
    Sim *s = sim_create(d, b, err, sizeof err);
    if (!s) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: the direct sum at N = %d: %s\n", b->n, err);
        return -1;
    }
    const SimParams p = {.dt = info->dt, .softening = info->softening, .damping = 1};
    const int rc = time_steps(s, &p, warmup, repeats, 1, guess_ms, ms, NULL);
    if (rc != 0) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: the direct sum at N = %d: %s\n", b->n, sim_error(s) ? sim_error(s) : "out of memory");
    }
    sim_destroy(s);
    return rc;
}

/* The direct sum's rate (interactions/s) measured at 131,072 bodies of the collision scene (16,384
 * on the CPU), for a run whose first N is far above it: without it the first direct step would be
 * timed whatever its length (at 16M bodies a symmetric step takes minutes). 0, or -1 on an error. */
static int probe_direct_rate(Context *c, const SimDesc *d)
{
    const int probe_n = c->backend == SIM_BACKEND_CUDA ? 131072 : 16384;
    char err[512];
    Bodies b;
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = probe_n, .seed = 1}, &b, &info, err, sizeof err) != 0) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: the collision scene of %d %s: %s\n", probe_n, probe_n == 1 ? "body" : "bodies", err);
        return -1;
    }
    double ms = 0;
    const int rc = time_direct(c, d, &b, &info, 1, 3, 0, &ms);
    if (rc == 0 && ms > 0) c->direct_rate = (double)probe_n * probe_n / (ms * 1e-3);
    bodies_free(&b);
    return rc;
}

/* The direct sum's step at n, or a note that says why it was not timed. 0, or -1 on an error. */
static int measure_direct(Context *c, const Bodies *b, const SceneInfo *info, BenchTreeRow *row)
{
    const double n2 = (double)b->n * b->n;
    const SimDesc d = {.backend = c->backend,
                       .force = SIM_FORCE_DIRECT,
                       .kernel = c->backend == SIM_BACKEND_CUDA ? SIM_KERNEL_SYMMETRIC : SIM_KERNEL_DEFAULT};
    char err[512];
    if (sim_check(&d, b->n, err, sizeof err) != 0) {
        snprintf(row->note, sizeof row->note, "direct not run: %.170s", err);
        return 0;
    }
    if (c->direct_rate == 0 && b->n > (c->backend == SIM_BACKEND_CUDA ? 4 * 131072 : 4 * 16384) &&
        probe_direct_rate(c, &d) != 0)
        return -1;
    const double predicted_s = c->direct_rate > 0 ? n2 / c->direct_rate : 0;
    if (predicted_s > BENCH_TREE_DIRECT_MAX_S) {
        snprintf(row->note, sizeof row->note, "direct not timed: ~%.0f s a step (over %.0f s)", predicted_s,
                 BENCH_TREE_DIRECT_MAX_S);
        return 0;
    }
    const bool warm = !(c->backend == SIM_BACKEND_CUDA && predicted_s > WARMUP_MAX_S);
    const int rc = time_direct(c, &d, b, info, warm ? 1 : 0, c->repeats, predicted_s * 1e3, &row->direct_ms);
    if (rc == 0) c->direct_rate = n2 / (row->direct_ms * 1e-3);
    return rc;
}

/* One N: three cells (the tree, its f64 check and, with_direct, the direct sum). 0, or -1 on an
 * error. */
static int measure(Context *c, int n, BenchTreeRow *row, bool with_direct)
{
    memset(row, 0, sizeof *row);
    row->n = n;
    cell(c, sim_force_name(c->force), n);
    char err[512];
    if (sim_check(&(SimDesc){.backend = c->backend, .force = c->force}, n, err, sizeof err) != 0) {
        snprintf(row->note, sizeof row->note, "not run: %.180s", err);
        cell(c, "(not run) f64 check", n);
        cell(c, "(not run) direct", n);
        return 0;
    }
    Bodies b;
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 1}, &b, &info, err, sizeof err) != 0) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "bench: the collision scene of %d %s: %s\n", n, n == 1 ? "body" : "bodies", err);
        return -1;
    }
    int rc = measure_tree(c, &b, &info, row);
    if (rc == 0 && with_direct) {
        cell(c, c->backend == SIM_BACKEND_CUDA ? "symmetric" : "direct", n);
        rc = measure_direct(c, &b, &info, row);
    }
    bodies_free(&b);
    return rc;
}

static void print_crossover(Context *c, const BenchTreeRow *rows, int count)
{
    const bool cuda = c->backend == SIM_BACKEND_CUDA, fmm = c->force == SIM_FORCE_FMM;
    const char *method = fmm ? "fmm" : "tree";
    const int from = bench_tree_crossover(rows, count);
    char a[16], b[16];
    const BenchTreeRow *at = NULL, *below = NULL, *largest = NULL;
    for (int i = 0; i < count; i++) {
        if (!(rows[i].step_ms > 0 && rows[i].direct_ms > 0)) continue;
        largest = &rows[i];
        if (rows[i].n == from) at = &rows[i];
        if (from && rows[i].n < from) below = &rows[i];
    }
    bench_progress_clear(&c->progress);
    if (!largest) {
        fprintf(c->out, "Crossover: not found, no N had both steps timed.\n");
    } else if (!at) {
        fprintf(c->out, "Crossover: not found: the direct step was the faster at N = %s (%.3f ms against the %s's\n"
                        "%.3f ms), the largest N where both were timed.\n",
                grouped(largest->n, a, sizeof a), largest->direct_ms, method, largest->step_ms);
    } else if (!below) {
        fprintf(c->out, "Crossover: the %s's step is the faster from N = %s on, the smallest N timed (%.3f ms\n"
                        "against %.3f ms direct): it lies lower.\n",
                method, grouped(at->n, a, sizeof a), at->step_ms, at->direct_ms);
    } else {
        fprintf(c->out, "Crossover: the %s's step is the faster from N = %s on (%.3f ms against %.3f ms direct);\n"
                        "at N = %s the direct step was (%.3f ms against the %s's %.3f ms).\n",
                method, grouped(at->n, a, sizeof a), at->step_ms, at->direct_ms, grouped(below->n, b, sizeof b),
                below->direct_ms, method, below->step_ms);
    }
    if (fmm && !cuda)
        fprintf(c->out, "SIM_FMM_MIN_BODIES_CPU (src/sim/sim.h) is %s.\n",
                grouped(SIM_FMM_MIN_BODIES_CPU, a, sizeof a));
    else
        fprintf(c->out, "%s (src/sim/sim.h) is %s.\n", cuda ? "SIM_TREE_MIN_BODIES_CUDA" : "SIM_TREE_MIN_BODIES_CPU",
                grouped(cuda ? SIM_TREE_MIN_BODIES_CUDA : SIM_TREE_MIN_BODIES_CPU, a, sizeof a));
}

/* For each N, every angle's step and errors, and the fastest angle that meets the goal. */
static void print_front(Context *c, const float *thetas, int tcount, BenchTreeRow rows[][BENCH_TREE_MAX_NS],
                        int count)
{
    bench_progress_clear(&c->progress);
    fprintf(c->out, "\nAccuracy front: the fastest angle whose median error is at most %.0e and 99th percentile at\n"
                    "most %.0e.\n",
            BENCH_TREE_GOAL_MEDIAN, BENCH_TREE_GOAL_P99);
    for (int i = 0; i < count; i++) {
        char n[16];
        fprintf(c->out, "%9s ", grouped(rows[0][i].n, n, sizeof n));
        int best = -1;
        for (int t = 0; t < tcount; t++) {
            const BenchTreeRow *r = &rows[t][i];
            if (!(r->step_ms > 0 && r->error.samples > 0)) {
                fprintf(c->out, " theta %.2f: not measured;", (double)thetas[t]);
                continue;
            }
            const bool meets = r->error.median <= BENCH_TREE_GOAL_MEDIAN && r->error.p99 <= BENCH_TREE_GOAL_P99;
            fprintf(c->out, " theta %.2f: %.2f ms, %.2e / %.2e%s;", (double)thetas[t], r->step_ms, r->error.median,
                    r->error.p99, meets ? "" : " (misses)");
            if (meets && (best < 0 || r->step_ms < rows[best][i].step_ms)) best = t;
        }
        if (best >= 0) fprintf(c->out, " fastest that meets: theta %.2f\n", (double)thetas[best]);
        else fprintf(c->out, " none meets\n");
    }
    fflush(c->out);
}

/* The front as a chart: for each N (the first CHART_MAX_SERIES) its measured angles as points of
 * median error against ms a step, in order of time; the goal's median dashed. 0, or -1 with one
 * line on stderr. */
static int chart_front(Context *c, const float *thetas, int tcount, BenchTreeRow rows[][BENCH_TREE_MAX_NS],
                       int count, const char *png)
{
    static double x[CHART_MAX_SERIES][BENCH_TREE_MAX_THETAS], y[CHART_MAX_SERIES][BENCH_TREE_MAX_THETAS];
    static char names[CHART_MAX_SERIES][48];
    char subtitle[160], n[16];
    snprintf(subtitle, sizeof subtitle, "%s, %s backend, angles %.2f to %.2f: each point an angle",
             c->force == SIM_FORCE_FMM ? "fast multipole method" : "Barnes-Hut tree", sim_backend_name(c->backend),
             (double)thetas[0], (double)thetas[tcount - 1]);
    Chart ch = {.title = "Time against force error",
                .subtitle = subtitle,
                .x = {"ms a step", CHART_LOG10},
                .y = {"median relative force error", CHART_LOG10},
                .reference = BENCH_TREE_GOAL_MEDIAN,
                .reference_label = "goal"};
    for (int i = 0; i < count && ch.series_count < CHART_MAX_SERIES; i++) {
        const int k = ch.series_count;
        int m = 0;
        for (int t = 0; t < tcount; t++) {
            const BenchTreeRow *r = &rows[t][i];
            if (!(r->step_ms > 0 && r->error.samples > 0)) continue;
            int at = m++; /* insertion by time */
            while (at > 0 && x[k][at - 1] > r->step_ms) {
                x[k][at] = x[k][at - 1];
                y[k][at] = y[k][at - 1];
                at--;
            }
            x[k][at] = r->step_ms;
            y[k][at] = r->error.median;
        }
        if (m == 0) continue;
        snprintf(names[k], sizeof names[k], "N = %s", grouped(rows[0][i].n, n, sizeof n));
        ch.series[k] = (ChartSeries){names[k], x[k], y[k], m, 0};
        ch.series_count++;
    }
    char err[512];
    if (bench_chart_png(&ch, png, err, sizeof err) != 0) {
        bench_progress_clear(&c->progress);
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    fprintf(c->out, "The front charted: %s\n", png);
    return 0;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int bench_tree_run(const BenchTreeOptions *o)
{
    Context c = {.o = o,
                 .backend = o->backend,
                 .force = o->force == SIM_FORCE_FMM ? SIM_FORCE_FMM : SIM_FORCE_TREE,
                 .theta = params_theta(o->theta),
                 .alpha = o->alpha > 0 ? o->alpha : 0,
                 .rebuild = o->rebuild_every > 1 ? o->rebuild_every : 1,
                 .samples = o->samples > 0 ? o->samples : BENCH_TREE_SAMPLES,
                 .repeats = o->repeats > 0 ? o->repeats : 10,
                 .out = o->out ? o->out : stdout};
    char why[256];
    if (c.backend != SIM_BACKEND_CPU && !sim_cuda_available(why, sizeof why)) {
        if (c.backend == SIM_BACKEND_CUDA)
            fprintf(stderr, "bench: --backend cuda: %s\n", why);
        else
            fprintf(stderr, "bench: cannot time the GPU tree without CUDA (%s); starburst bench --force tree "
                            "--backend cpu times the CPU's tree\n", why);
        return 2;
    }
    if (c.backend == SIM_BACKEND_AUTO) c.backend = SIM_BACKEND_CUDA;

    /* Smallest first, each once: the direct rate at one N predicts the next N's step. */
    int ns[BENCH_TREE_MAX_NS];
    int count = 0;
    if (o->ns) {
        for (int i = 0; i < o->ns_count && count < BENCH_TREE_MAX_NS; i++) ns[count++] = o->ns[i];
    } else {
        count = bench_tree_default_ns(c.backend, ns);
    }
    qsort(ns, (size_t)count, sizeof *ns, by_int);
    int unique = 0;
    for (int i = 0; i < count; i++)
        if (unique == 0 || ns[i] != ns[unique - 1]) ns[unique++] = ns[i];
    count = unique;

    if (o->csv_path) {
        c.csv = atomic_file_open(o->csv_path, why, sizeof why);
        if (!c.csv) {
            fprintf(stderr, "bench: %s\n", why);
            return 1;
        }
        atomic_file_printf(c.csv, "n,build_ms,walk_ms,step_ms,body_body,body_cell,direct_step_ms,speedup,err_median,"
                                  "err_p99,err_max,samples,theta,backend,upward_ms,downward_ms,body_group,force,"
                                  "note\n");
    }
    /* The angles: a table each, the direct sum timed in the first (it has no angle) and shown again
     * in the others. */
    float one = c.theta;
    const float *thetas = o->thetas_count > 1 ? o->thetas : &one;
    const int tcount = o->thetas_count > 1 ? o->thetas_count : 1;
    static BenchTreeRow rows[BENCH_TREE_MAX_THETAS][BENCH_TREE_MAX_NS];
    bench_progress_begin(&c.progress, o->progress ? o->progress : stderr, (2 * tcount + 1) * count);
    int rc = 0;
    for (int t = 0; t < tcount && rc == 0; t++) {
        c.theta = params_theta(thetas[t]);
        c.titled = false;
        for (int i = 0; i < count && rc == 0; i++) {
            rc = measure(&c, ns[i], &rows[t][i], t == 0);
            if (rc == 0 && t > 0) rows[t][i].direct_ms = rows[0][i].direct_ms;
            if (rc == 0) {
                if (!c.titled) print_title(&c, "(no simulation created)");
                print_row(&c, &rows[t][i]);
            }
        }
        if (rc == 0) print_crossover(&c, rows[t], count);
    }
    if (rc == 0 && tcount > 1) {
        print_front(&c, thetas, tcount, rows, count);
        if (o->front_png && chart_front(&c, thetas, tcount, rows, count, o->front_png) != 0) rc = -1;
    }
    bench_progress_clear(&c.progress);
    if (c.csv) {
        if (rc == 0 && atomic_file_commit(c.csv, why, sizeof why) != 0) {
            fprintf(stderr, "bench: %s\n", why);
            rc = -1;
        } else if (rc != 0) {
            atomic_file_abort(c.csv);
        }
    }
    return rc == 0 ? 0 : 1;
}
