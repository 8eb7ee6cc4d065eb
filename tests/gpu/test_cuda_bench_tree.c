/* The tree's bench and the live force error on the CUDA backend, at small N: the bench's rows
 * (the GPU's tree timed on the GPU's clock, the symmetric step beside it, the error against f64)
 * and the live check of a running GPU tree and of the symmetric kernel, its result waited for on
 * the worker's condition. Skips without a CUDA device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_tree_rows.h"
#include "test_files.h"
#include "test_skip.h"

#include "gpu_common.h"

#include "bench/bench_tree.h"
#include "scene/scene.h"
#include "sim/force_watch.h"

static void bench_rows_on_the_gpu(void **state)
{
    gpu_require_cuda();
    const int ns[] = {16384, 65536};
    char dir[] = "/tmp/bench-tree-gpu-XXXXXX", csv[64];
    assert_non_null(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/tree.csv", dir);
    FILE *out = tmpfile();
    assert_non_null(out);
    const BenchTreeOptions o = {.ns = ns, .ns_count = 2, .backend = SIM_BACKEND_CUDA, .samples = 500, .repeats = 5,
                                .csv_path = csv, .out = out};
    assert_int_equal(bench_tree_run(&o), 0);
    char *table = written_to(out);
    print_message("%s", table);
    assert_non_null(strstr(table, "cuda backend"));
    assert_non_null(strstr(table, "SIM_TREE_MIN_BODIES_CUDA (src/sim/sim.h) is"));
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    for (int i = 0; i < 2; i++) {
        const TreeRow r = next_tree_row(f);
        assert_int_equal(r.n, ns[i]);
        /* The step holds the build and the walk; the terms a body are a fraction of N. */
        assert_true(r.build > 0 && r.walk > 0 && r.step >= 0.9 * (r.build + r.walk));
        assert_true(r.bb > 0 && r.bc > 0 && r.bb + r.bc < r.n);
        assert_true(r.direct > 0 && r.speedup > 0);
        assert_int_equal(r.samples, 500);
        assert_true(r.med > 0 && r.med <= r.p99 && r.p99 < 1e-3 && r.worst >= r.p99);
    }
    fclose(f);
    free(table);
    fclose(out);
    unlink(csv);
    rmdir(dir);
}

/* A running simulation measured live, as the Diagnostics section does. */
static ForceCheck live(SimForce force, int n)
{
    char err[256] = "";
    Bodies b;
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = n, .seed = 4}, &b, &info, err, sizeof err) != 0)
        fail_msg("%s", err);
    Sim *s = sim_create(&(SimDesc){.backend = SIM_BACKEND_CUDA, .force = force}, &b, err, sizeof err);
    if (!s) fail_msg("%s", err);
    ForceWatch *w = force_watch_create(err, sizeof err);
    assert_non_null(w);
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1, .theta = 0.4f};
    sim_advance(s, &p, 3);
    if (bodies_alloc_acc(&b) != 0) fail_msg("out of memory");
    sim_read(s, &b);
    assert_int_equal(force_watch_start(w, &b, NULL, 256), 0);
    ForceCheck f;
    assert_true(force_watch_wait(w, &f));
    print_message("%s, N %d, 256 bodies: median %.3g, 99%% %.3g, max %.3g\n", sim_force_name(force), n, f.median,
                  f.p99, f.worst);
    force_watch_destroy(w);
    sim_destroy(s);
    bodies_free(&b);
    return f;
}

static void live_error_of_the_gpu_methods(void **state)
{
    gpu_require_cuda();
    const ForceCheck direct = live(SIM_FORCE_DIRECT, 16384);
    assert_true(direct.median < 1e-5 && direct.p99 < 1e-3);
    const ForceCheck tree = live(SIM_FORCE_TREE, 262144);
    assert_true(tree.median > 1e-6 && tree.p99 < 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bench_rows_on_the_gpu),
        cmocka_unit_test(live_error_of_the_gpu_methods),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
