#include "bench/bench_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gpu_split.h"
#include "util/output_path.h"
#include "util/params.h"

static void bench_usage(FILE *f)
{
    fputs("usage: starburst bench [options]\n"
          "Times every force kernel at several N (CUDA events, median of repeats, against the FP32 rate\n"
          "measured in the same run), then the Barnes-Hut tree against the symmetric direct sum, then the\n"
          "whole loop: steps/s and frames/s with rendering.\n"
          "  --csv FILE             also write the tables as CSV (the tree to FILE with -tree before .csv,\n"
          "                         the loop with -loop)\n"
          "  -n N[,N...]            body counts (default 4096,16384,65536,131072,1048576 for the kernels;\n"
          "                         16K to 256K by doubling, 1M, 4M and 8M for the tree, as many as fit)\n"
          "  --force F              tree: the tree's table alone: per N, the collision scene with the tree\n"
          "                         rebuilt every step (build, walk, ms per step, interactions a body),\n"
          "                         the direct step at the same N, the speedup, the force error against\n"
          "                         f64, and the crossover N; fmm: the same table of the fast multipole\n"
          "                         method (build, upward pass, interactions, downward pass, terms a\n"
          "                         body with the cell-group expansions), the CPU backend's alone;\n"
          "                         direct: the kernels and the loop, no tree\n",
          f);
    char theta[160];
    params_help_text(PARAM_THETA, theta, sizeof theta);
    fprintf(f, "  --theta X[,X...]       the tree's opening angle (%s); up to %d of them: a\n"
               "                         table each, then the fastest that holds the median error to %.0e and\n"
               "                         the 99th percentile to %.0e at each N (the loop takes the first);\n"
               "                         with --csv FILE.csv, charted as FILE-front.png\n",
            theta, BENCH_TREE_MAX_THETAS, BENCH_TREE_GOAL_MEDIAN, BENCH_TREE_GOAL_P99);
    fputs("  --alpha A              the tree opened by estimated error, as the program runs it (0 to 0.1;\n"
          "                         default 5e-4, or 0 where --theta is given: by the angle): a cell is\n"
          "                         taken only where its quadrupole's error stays within A times the\n"
          "                         smallest previous |a| of the bodies it acts on, within an angle of\n"
          "                         0.6 (kernels/tree_geometry.h); the fmm's near field too (with\n"
          "                         --force fmm it goes with --theta, the fmm's far angle)\n"
          "  --rebuild K            the GPU tree rebuilt every K steps and refitted between (default 1:\n"
          "                         rebuilt every step); a step's time is then a whole cycle's mean\n"
          "  --samples S            bodies in the tree's f64 force check (default 1000)\n"
          "  --kernel K[,K...]      naive, registers, tiled, tiled-unrolled, mtpb, symmetric, mtpb-f64\n"
          "                         (default all)\n"
          "  --repeats R            timed launches per cell (default 10)\n"
          "  --threads-per-body Q   mtpb threads per body (default: chosen)\n"
          "  --block-size B         mtpb threads per block (default: chosen)\n"
          "  --sweep                instead of the table (and the loop), the classic tuning experiments:\n"
          "                         every kernel against N (-n, default 1024 .. 1M), threads per block\n"
          "                         at N = 131072, threads per body at N = 1024, 4096, 16384. Each\n"
          "                         writes a PNG chart: FILE-n.png, FILE-block.png, FILE-q.png beside\n"
          "                         the CSVs FILE-n.csv, ... with --csv FILE.csv, else sweep-*.png here\n"
          "  --loop-n N             bodies in the whole loop (default 16384)\n"
          "  --steps K[,K...]       steps per frame in the whole loop (default 1,4,8,16)\n"
          "  --frames F             timed frames per loop row (default 300)\n"
          "  --size WxH             loop resolution (default 1920x1080)\n"
          "  --window               time the loop in a GLFW window (vsync off) instead of headless\n"
          "  --halo H               the loop's galaxies' halos: field (default, as the program's), live\n"
          "                         (bodies), or both (a table each)\n"
          "  --draw D[,D]           who draws the bodies in the loop, a row each: gl (point sprites),\n"
          "                         cuda (splatted by a kernel); default gl, and cuda with the CUDA backend\n"
          "  --backend B            backend of the loop and the tree: auto (default), cuda, cpu (with\n"
          "                         --force tree or fmm: the CPU's, 16K to 256K bodies; --force fmm\n"
          "                         runs on the CPU backend alone: on the GPU the tree is faster)\n"
          "  --gpus G[,G...]        the direct sum (--force tree: the tree) split across G GPUs of this\n"
          "                         host (1 to 8, or all), a row each, side by side: ms a step,\n"
          "                         interactions/s, speed-up and efficiency against 1, the share of the\n"
          "                         step the copy of the positions took; alone (with -n, default 1M and\n"
          "                         2M, the tree 1M and 16M, and --repeats)\n"
          "  --kernels-only, --loop-only\n"
          "                         (--loop-only with --force tree, fmm or direct: the loop with that\n"
          "                         method, at --theta)\n",
          f);
}

static int int_list(const char *opt, const char *s, int *out, int cap, int lo, int hi, char *err, size_t errlen)
{
    int count = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < lo || v > hi || (*end && *end != ',') || count == cap) {
            if (cap == 1) snprintf(err, errlen, "bench: %s: '%s' is not a whole number from %d to %d", opt, s, lo, hi);
            else snprintf(err, errlen, "bench: %s: '%s' is not a list of whole numbers from %d to %d", opt, s, lo, hi);
            return -1;
        }
        out[count++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (count == 0) snprintf(err, errlen, "bench: %s: empty list", opt);
    return count ? count : -1;
}

int bench_parse_args(BenchCli *b, int argc, char **argv, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->run_kernels = b->run_tree = b->run_loop = true;
    b->tree.alpha = -1; /* the program's default, unless --theta asks for the angle */
    bool theta_given = false;
    const char *force = NULL;    /* --force as given */
    const char *conflict = NULL; /* an option that names another part of the bench */
    static const int default_steps[] = {1, 4, 8, 16};
    memcpy(b->steps, default_steps, sizeof default_steps);
    b->loop.steps_per_frame = b->steps;
    b->loop.steps_count = 4;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
#define NEXT()                                                                                     \
    do {                                                                                           \
        if (i + 1 >= argc) {                                                                       \
            snprintf(err, errlen, "bench: %s needs a value", opt);                                 \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)
        int one;
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
            bench_usage(stdout);
            return 1;
        } else if (!strcmp(opt, "--csv")) {
            NEXT();
            b->csv_path = argv[++i];
        } else if (!strcmp(opt, "-n")) {
            NEXT();
            int c = int_list(opt, argv[++i], b->ns, 16, 1, 64 << 20, err, errlen);
            if (c < 0) return -1;
            b->kernels.ns = b->ns;
            b->kernels.ns_count = c;
        } else if (!strcmp(opt, "--force")) {
            NEXT();
            const char *v = argv[++i];
            if (strcmp(v, "tree") != 0 && strcmp(v, "fmm") != 0 && strcmp(v, "direct") != 0) {
                snprintf(err, errlen, "bench: --force: '%s' is not a force method to bench: tree, fmm, direct", v);
                return -1;
            }
            force = v;
        } else if (!strcmp(opt, "--theta")) {
            NEXT();
            char list[128], why[200];
            snprintf(list, sizeof list, "%s", argv[++i]);
            int c = 0;
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                double v;
                if (params_parse(PARAM_THETA, "--theta", t, &v, why, sizeof why) != 0) {
                    snprintf(err, errlen, "bench: %s", why);
                    return -1;
                }
                if (c == BENCH_TREE_MAX_THETAS) {
                    snprintf(err, errlen, "bench: --theta: '%s' names more than %d angles", argv[i],
                             BENCH_TREE_MAX_THETAS);
                    return -1;
                }
                b->thetas[c++] = (float)v;
            }
            if (c == 0) {
                snprintf(err, errlen, "bench: --theta: empty list");
                return -1;
            }
            theta_given = true;
            b->tree.theta = b->thetas[0];
            b->tree.thetas = c > 1 ? b->thetas : NULL;
            b->tree.thetas_count = c > 1 ? c : 0;
        } else if (!strcmp(opt, "--alpha")) {
            NEXT();
            char *end;
            errno = 0;
            const double v = strtod(argv[++i], &end);
            if (end == argv[i] || *end || errno || !(v >= 0 && v <= 0.1)) {
                snprintf(err, errlen, "bench: --alpha: '%s' is not a number from 0 to 0.1", argv[i]);
                return -1;
            }
            b->tree.alpha = (float)v;
        } else if (!strcmp(opt, "--rebuild")) {
            NEXT();
            int k;
            if (int_list(opt, argv[++i], &k, 1, 1, 1000, err, errlen) != 1) return -1;
            b->tree.rebuild_every = k;
        } else if (!strcmp(opt, "--kernel")) {
            NEXT();
            snprintf(b->kernel_text, sizeof b->kernel_text, "%s", argv[++i]);
            int c = 0;
            for (char *save = NULL, *k = strtok_r(b->kernel_text, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
                if (c == 8 || (sim_kernel_from_name(k) < 0 && strcmp(k, "mtpb-f64") != 0)) {
                    /* The names the ladder knows, as sim.h names them, and the f64 rung. */
                    char names[160] = "";
                    for (int n = SIM_KERNEL_NAIVE; n < SIM_KERNEL_COUNT; n++)
                        snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ",
                                 sim_kernel_name((SimKernel)n));
                    snprintf(err, errlen, "bench: --kernel: '%s' is not a kernel: %smtpb-f64", k, names);
                    return -1;
                }
                b->kernel_names[c++] = k;
            }
            b->kernels.kernels = b->kernel_names;
            b->kernels.kernels_count = c;
        } else if (!strcmp(opt, "--repeats") || !strcmp(opt, "--threads-per-body") || !strcmp(opt, "--block-size") ||
                   !strcmp(opt, "--loop-n") || !strcmp(opt, "--frames") || !strcmp(opt, "--samples")) {
            NEXT();
            int hi = !strcmp(opt, "--threads-per-body") ? 32 : !strcmp(opt, "--block-size") ? 1024 : 64 << 20;
            if (int_list(opt, argv[++i], &one, 1, 1, hi, err, errlen) != 1) return -1;
            if (!strcmp(opt, "--repeats")) b->kernels.repeats = b->tree.repeats = one;
            if (!strcmp(opt, "--samples")) b->tree.samples = one;
            if (!strcmp(opt, "--threads-per-body")) b->kernels.threads_per_body = one;
            if (!strcmp(opt, "--block-size")) b->kernels.block_size = one;
            if (!strcmp(opt, "--loop-n")) b->loop.n = one;
            if (!strcmp(opt, "--frames")) b->loop.frames = one;
        } else if (!strcmp(opt, "--steps")) {
            NEXT();
            int c = int_list(opt, argv[++i], b->steps, 8, 1, 1024, err, errlen);
            if (c < 0) return -1;
            b->loop.steps_count = c;
        } else if (!strcmp(opt, "--size")) {
            NEXT();
            int w, h;
            char tail;
            if (sscanf(argv[++i], "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384) {
                snprintf(err, errlen, "bench: --size: '%s' is not a size like 1920x1080", argv[i]);
                return -1;
            }
            b->loop.width = w;
            b->loop.height = h;
        } else if (!strcmp(opt, "--backend")) {
            NEXT();
            const char *v = argv[++i];
            if (!strcmp(v, "auto")) b->loop.backend = SIM_BACKEND_AUTO;
            else if (!strcmp(v, "cuda")) b->loop.backend = SIM_BACKEND_CUDA;
            else if (!strcmp(v, "cpu")) b->loop.backend = SIM_BACKEND_CPU;
            else {
                snprintf(err, errlen, "bench: --backend: '%s' is not a backend: auto, cuda, cpu", v);
                return -1;
            }
            b->tree.backend = b->loop.backend;
        } else if (!strcmp(opt, "--halo")) {
            NEXT();
            const char *v = argv[++i];
            const bool both = !strcmp(v, "both");
            const int h = both ? SCENE_HALO_FIELD : scene_halo_from_name(v);
            if (h != SCENE_HALO_FIELD && h != SCENE_HALO_LIVE) {
                snprintf(err, errlen, "bench: --halo: '%s' is not a halo mode: field, live, both", v);
                return -1;
            }
            b->loop.halos[0] = (SceneHalo)h;
            b->loop.halos[1] = SCENE_HALO_LIVE;
            b->loop.halos_count = both ? 2 : 1;
        } else if (!strcmp(opt, "--draw")) {
            NEXT();
            char list[32];
            snprintf(list, sizeof list, "%s", argv[++i]);
            b->loop.draws_count = 0;
            for (char *save = NULL, *d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
                const RenderDraw w = !strcmp(d, "gl") ? RENDER_DRAW_GL : !strcmp(d, "cuda") ? RENDER_DRAW_CUDA : RENDER_DRAW_COUNT;
                if (w == RENDER_DRAW_COUNT || b->loop.draws_count == RENDER_DRAW_COUNT) {
                    snprintf(err, errlen, "bench: --draw: '%s' is not a list of gl, cuda", argv[i]);
                    return -1;
                }
                b->loop.draws[b->loop.draws_count++] = w;
            }
        } else if (!strcmp(opt, "--gpus")) {
            NEXT();
            char list[64], why[200];
            snprintf(list, sizeof list, "%s", argv[++i]);
            b->gpus.counts_count = 0;
            for (char *save = NULL, *g = strtok_r(list, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
                int count;
                if (gpu_count_parse(g, &count, why, sizeof why) != 0) {
                    snprintf(err, errlen, "bench: %s", why);
                    return -1;
                }
                if (b->gpus.counts_count == BENCH_GPUS_MAX_COUNTS) {
                    snprintf(err, errlen, "bench: --gpus: '%s' names more than %d counts", argv[i],
                             BENCH_GPUS_MAX_COUNTS);
                    return -1;
                }
                b->gpus.counts[b->gpus.counts_count++] = count;
            }
            if (b->gpus.counts_count == 0) {
                snprintf(err, errlen, "bench: --gpus: empty list");
                return -1;
            }
            b->run_gpus = true;
        } else if (!strcmp(opt, "--sweep")) {
            b->kernels.sweep = true;
        } else if (!strcmp(opt, "--window")) {
            b->loop.window = true;
        } else if (!strcmp(opt, "--kernels-only")) {
            b->run_loop = b->run_tree = false;
            conflict = opt;
        } else if (!strcmp(opt, "--loop-only")) {
            b->run_kernels = b->run_tree = false;
            conflict = opt;
        } else {
            snprintf(err, errlen, "bench: unknown option '%s' (see starburst bench --help)", opt);
            return -1;
        }
#undef NEXT
    }
    if (b->run_gpus) {
        if ((force && strcmp(force, "direct") != 0 && strcmp(force, "tree") != 0) || conflict || b->kernels.sweep) {
            snprintf(err, errlen, "bench: --gpus times the direct sum (or --force tree) across GPUs alone: it does "
                                  "not go with %s",
                     force ? "--force fmm" : conflict ? conflict : "--sweep");
            return -1;
        }
        b->gpus.force = force && !strcmp(force, "tree") ? SIM_FORCE_TREE : SIM_FORCE_DIRECT;
        b->run_kernels = b->run_tree = b->run_loop = false;
        b->gpus.ns = b->kernels.ns;
        b->gpus.ns_count = b->kernels.ns_count;
        b->gpus.repeats = b->kernels.repeats;
        return 0;
    }
    /* The fmm takes both: theta its far angle, alpha its near cells (as the program does). */
    if (theta_given && b->tree.alpha > 0 && !(force && !strcmp(force, "fmm"))) {
        snprintf(err, errlen, "bench: --theta opens the tree by the angle, --alpha by estimated error: one of them");
        return -1;
    }
    /* The CPU's tree is built afresh every step: a rebuild cycle is the GPU tree's alone. */
    if (b->tree.rebuild_every > 1 && b->tree.backend == SIM_BACKEND_CPU) {
        snprintf(err, errlen, "bench: --rebuild %d: the CPU's tree and fmm are rebuilt every step; --rebuild is "
                              "the GPU tree's (--backend cuda or auto)",
                 b->tree.rebuild_every);
        return -1;
    }
    if (b->tree.rebuild_every > 1 && force && !strcmp(force, "fmm")) {
        snprintf(err, errlen, "bench: --rebuild %d: the fmm runs on the CPU, rebuilt every step; --rebuild is the "
                              "GPU tree's",
                 b->tree.rebuild_every);
        return -1;
    }
    if (b->tree.alpha < 0) b->tree.alpha = theta_given ? 0.0f : params_alpha(-1);
    b->loop.alpha = b->tree.alpha;
    if (b->kernels.sweep && !b->run_kernels) {
        snprintf(err, errlen, "bench: --sweep times the kernels: it does not go with --loop-only");
        return -1;
    }
    if (b->kernels.kernels) b->run_tree = false; /* the kernels named are the table */
    if (b->kernels.sweep) b->run_loop = b->run_tree = false;
    if (b->kernels.sweep) conflict = "--sweep";
    else if (b->kernels.kernels && !conflict) conflict = "--kernel";
    if (force && !strcmp(force, "fmm")) {
        /* The fmm is the CPU backend's alone: on the GPU the tree is faster (docs/FMM.md). */
        if (b->tree.backend == SIM_BACKEND_CUDA) {
            snprintf(err, errlen, "bench: --force fmm runs on the CPU backend alone (--backend cpu): on the GPU "
                                  "the tree is faster at every accuracy measured");
            return -1;
        }
        b->tree.backend = b->loop.backend = SIM_BACKEND_CPU;
    }
    if (force && conflict && !strcmp(conflict, "--loop-only")) {
        /* The whole loop with the method named. */
        b->loop.force = !strcmp(force, "fmm")    ? SIM_FORCE_FMM
                        : !strcmp(force, "tree") ? SIM_FORCE_TREE
                                                 : SIM_FORCE_DIRECT;
        b->loop.theta = b->tree.theta;
        b->loop.alpha = b->tree.alpha;
        b->loop.rebuild_every = b->tree.rebuild_every;
        return 0;
    }
    if (force && !strcmp(force, "direct")) b->run_tree = false;
    if (force && (!strcmp(force, "tree") || !strcmp(force, "fmm"))) {
        if (conflict) {
            snprintf(err, errlen, "bench: --force %s times the %s alone: it does not go with %s", force, force,
                     conflict);
            return -1;
        }
        b->run_kernels = b->run_loop = false;
        b->run_tree = true;
        b->tree.force = !strcmp(force, "fmm") ? SIM_FORCE_FMM : SIM_FORCE_TREE;
    }
    if (b->kernels.ns) {
        b->tree.ns = b->ns;
        b->tree.ns_count = b->kernels.ns_count;
    }
    return 0;
}

/* "FILE-part.csv" beside --csv FILE.csv (its extension kept, ".csv" where it has none) in buf;
 * NULL without --csv or where it does not fit. */
static const char *csv_beside(const char *path, const char *part, char *buf, size_t len)
{
    if (!path) return NULL;
    const char *dot = strrchr(path, '.');
    const int stem = dot ? (int)(dot - path) : (int)strlen(path);
    return snprintf(buf, len, "%.*s-%s%s", stem, path, part, dot ? dot : ".csv") < (int)len ? buf : NULL;
}

int bench_cli_run(BenchCli *b)
{
    int status = 0;
    if (b->run_gpus) {
        char csv[4096];
        b->gpus.csv_path = csv_beside(b->csv_path, "gpus", csv, sizeof csv);
        return bench_gpus_run(&b->gpus);
    }
    if (b->run_kernels) {
        b->kernels.csv_path = b->csv_path;
        status = bench_run(&b->kernels);
        if (status != 0) return status;
    }
    if (b->run_tree) {
        char csv[4096], png[4096], front_csv[4096], front_png[4096];
        if (b->csv_path && (!bench_sweep_paths(b->csv_path, "tree", csv, png, sizeof csv) ||
                            !bench_sweep_paths(b->csv_path, "front", front_csv, front_png, sizeof front_csv))) {
            fprintf(stderr, "bench: --csv: the path '%s' is too long\n", b->csv_path);
            return 1;
        }
        b->tree.csv_path = b->csv_path ? csv : NULL;
        b->tree.front_png = b->csv_path ? front_png : NULL;
        status = bench_tree_run(&b->tree);
        if (status != 0) return status;
    }
    if (b->run_loop) {
        char csv[4096];
        status = bench_loop_run(&b->loop, csv_beside(b->csv_path, "loop", csv, sizeof csv));
    }
    return status;
}

int bench_main(int argc, char **argv)
{
    BenchCli b;
    char err[512] = "";
    int rc = bench_parse_args(&b, argc, argv, err, sizeof err);
    if (rc == 1) return 0;
    /* The CSVs lie beside --csv, in its folder: one that cannot take them is said before a run of
     * minutes, not after it. */
    char why[400];
    if (rc == 0 && b.csv_path && output_path_check(b.csv_path, false, why, sizeof why) != 0) {
        char quoted[160];
        snprintf(err, sizeof err, "bench: --csv: '%s' %s", params_quote(b.csv_path, quoted, sizeof quoted), why);
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "starburst: %s\n", err);
        return 2;
    }
    return bench_cli_run(&b);
}
