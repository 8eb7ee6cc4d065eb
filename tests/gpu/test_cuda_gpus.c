/* The direct sum and the tree across the GPUs of one host (docs/MULTI_GPU.md): the same bits on
 * two GPUs as on one, --gpus all keeping the split only where it is faster, a GPU that fails
 * mid-run handing its part back with nothing lost, halos as fields (the stars' forces split, the
 * fields' step on the primary), and one line wherever fewer GPUs run than were asked for. Where the host has one GPU the split runs as two streams of it
 * (STARBURST_PEERS_ON_ONE_GPU): the same arithmetic and bits, peer access untested. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "gpu_common.h"
#include "scene/scene.h"

static Sim *method_sim(const Bodies *b, SimForce force, int gpus)
{
    char err[256] = "";
    const SimDesc d = {.backend = SIM_BACKEND_CUDA, .force = force, .kernel = SIM_KERNEL_SYMMETRIC, .gpus = gpus};
    Sim *s = sim_create(&d, b, err, sizeof err);
    if (!s) fail_msg("sim_create (cuda, %s, %d GPUs): %s", sim_force_name(force), gpus, err);
    return s;
}

static Sim *direct_sim(const Bodies *b, int gpus) { return method_sim(b, SIM_FORCE_DIRECT, gpus); }

/* The GPUs a run that asks for all of them takes, after one step. */
static int gpus_found(void)
{
    Bodies b;
    gpu_random_ball(&b, 4096, 3);
    Sim *s = direct_sim(&b, -1);
    sim_advance(s, &(SimParams){.dt = 0.001f, .softening = 0.05f, .damping = 1}, 1);
    const int g = sim_gpus(s, NULL);
    sim_destroy(s);
    bodies_free(&b);
    return g;
}

/* Two GPUs where the host has them; else the split runs on one GPU as two streams of it
 * (STARBURST_PEERS_ON_ONE_GPU), which tests its arithmetic and bits but not peer access. Undone
 * by one_gpu_done. */
static void two_gpus_or_streams(void)
{
    gpu_require_cuda();
    const int g = gpus_found();
    if (g < 2) {
        print_message("one GPU: the split runs as two streams of it (peer access untested)\n");
        setenv("STARBURST_PEERS_ON_ONE_GPU", "1", 1);
    }
}

static void one_gpu_done(void) { unsetenv("STARBURST_PEERS_ON_ONE_GPU"); }

/* Runs a and b for `advances` advances of `steps` steps and asserts their bodies equal bit for bit
 * (the tree opened by estimated error, which reads the last step's accelerations). */
static void assert_same_run(Sim *a, Sim *b, int n, int advances, int steps)
{
    const SimParams p = {.dt = 0.002f, .softening = 0.05f, .damping = 1, .alpha = 5e-4f};
    for (int k = 0; k < advances; k++) {
        sim_advance(a, &p, steps);
        sim_advance(b, &p, steps);
    }
    assert_null(sim_error(a));
    assert_null(sim_error(b));
    Bodies x, y;
    assert_int_equal(bodies_alloc(&x, n), 0);
    assert_int_equal(bodies_alloc(&y, n), 0);
    sim_read(a, &x);
    sim_read(b, &y);
    assert_memory_equal(x.pos, y.pos, 4 * sizeof(float) * (size_t)n);
    assert_memory_equal(x.vel, y.vel, 4 * sizeof(float) * (size_t)n);
    bodies_free(&x);
    bodies_free(&y);
}

static void two_gpus_give_one_gpus_bits(void **state)
{
    two_gpus_or_streams();
    /* A size the parts divide and one they do not (the last part padded). */
    const int sizes[] = {65536, 100003};
    for (int i = 0; i < 2; i++) {
        Bodies b;
        gpu_random_ball(&b, sizes[i], 11 + (uint64_t)i);
        Sim *one = direct_sim(&b, 1), *two = direct_sim(&b, 2);
        assert_same_run(one, two, b.n, 5, 3);
        double exchange = -1;
        assert_int_equal(sim_gpus(two, &exchange), 2);
        assert_int_equal(sim_gpus(one, NULL), 1);
        assert_true(exchange > 0);
        assert_string_equal(sim_gpus_note(two), "");
        print_message("%d bodies: 15 steps on two GPUs equal one GPU's bit for bit; the last copy of the "
                      "positions %.3f ms\n", b.n, exchange);
        sim_destroy(one);
        sim_destroy(two);
        bodies_free(&b);
    }
    one_gpu_done();
}

static void the_tree_on_two_gpus_gives_one_gpus_bits(void **state)
{
    two_gpus_or_streams();
    /* The shared walk hands groups out dynamically: the bits must not depend on who took which. */
    Bodies b;
    gpu_random_ball(&b, 200000, 51);
    Sim *one = method_sim(&b, SIM_FORCE_TREE, 1), *two = method_sim(&b, SIM_FORCE_TREE, 2);
    assert_same_run(one, two, b.n, 5, 3);
    assert_int_equal(sim_gpus(two, NULL), 2);
    assert_string_equal(sim_gpus_note(two), "");
    SimTreeStats a, c;
    assert_true(sim_tree_stats(one, &a));
    assert_true(sim_tree_stats(two, &c));
    /* Every group walked once between the two: the same interactions. */
    const double x = a.body_body + a.body_cell, y = c.body_body + c.body_cell;
    assert_true(fabs(x - y) <= 1e-9 * x);
    print_message("the tree, %d bodies: 15 steps on two GPUs equal one GPU's bit for bit, %.0f interactions a "
                  "body both\n", b.n, y);
    sim_destroy(one);
    sim_destroy(two);
    bodies_free(&b);
    one_gpu_done();
}

/* Halos as fields: the stars' forces split across the GPUs, the fields' step and the kick on the
 * primary; the bits of one GPU, the centres' friction work (their velocity w) too. */
static void field_halos_on_two_gpus_give_one_gpus_bits(void **state)
{
    gpu_require_cuda();
    Bodies b;
    SceneInfo info;
    char err[256] = "";
    const SceneDesc scene = {.kind = SCENE_COLLISION, .n = 65536, .seed = 5, .halo = SCENE_HALO_FIELD,
                             .separation = 8}; /* each centre inside the other's halo: friction works */
    if (scene_build(&scene, &b, &info, err, sizeof err) != 0) fail_msg("scene_build: %s", err);
    const SimForce methods[] = {SIM_FORCE_DIRECT, SIM_FORCE_TREE};
    for (int m = 0; m < 2; m++) {
        two_gpus_or_streams();
        Sim *s[2];
        for (int g = 0; g < 2; g++) {
            const SimDesc d = {.backend = SIM_BACKEND_CUDA, .force = methods[m], .kernel = SIM_KERNEL_SYMMETRIC,
                               .gpus = g + 1, .halos = &info.halos};
            if (!(s[g] = sim_create(&d, &b, err, sizeof err))) fail_msg("sim_create (%d GPUs): %s", g + 1, err);
        }
        assert_same_run(s[0], s[1], b.n, 5, 3);
        assert_int_equal(sim_gpus(s[1], NULL), 2);
        print_message("%s, %d stars and %d halo fields: 15 steps on two GPUs equal one GPU's bit for bit\n",
                      sim_force_name(methods[m]), scene.n, info.halos.count);
        sim_destroy(s[0]);
        sim_destroy(s[1]);
        one_gpu_done();
    }
    bodies_free(&b);
}

static void a_failing_gpu_hands_its_part_back(void **state)
{
    const SimForce methods[] = {SIM_FORCE_DIRECT, SIM_FORCE_TREE};
    for (int m = 0; m < 2; m++) {
        two_gpus_or_streams();
        Bodies b;
        gpu_random_ball(&b, 32768, 21);
        setenv("STARBURST_PEER_FAIL_AFTER", "7", 1);
        Sim *two = method_sim(&b, methods[m], 2);
        unsetenv("STARBURST_PEER_FAIL_AFTER");
        one_gpu_done();
        Sim *one = method_sim(&b, methods[m], 1);
        /* 12 steps: the 7th split call fails (the first advance's opening forces are one), the run
         * goes on alone, and its bodies are those of the run that was alone throughout. */
        assert_same_run(one, two, b.n, 4, 3);
        assert_int_equal(sim_gpus(two, NULL), 1);
        print_message("%s: note: %s\n", sim_force_name(methods[m]), sim_gpus_note(two));
        assert_non_null(strstr(sim_gpus_note(two), "a GPU failed"));
        assert_non_null(strstr(sim_gpus_note(two), "running on 1 GPU"));
        sim_destroy(one);
        sim_destroy(two);
        bodies_free(&b);
    }
}

static void fewer_gpus_than_asked_say_so(void **state)
{
    gpu_require_cuda();
    const int found = gpus_found();
    if (found + 1 > 8) {
        print_message("skipped: %d GPUs, no count above them to ask for\n", found);
        test_skip();
    }
    Bodies b;
    gpu_random_ball(&b, 8192, 31);
    Sim *s = direct_sim(&b, found + 1);
    sim_advance(s, &(SimParams){.dt = 0.001f, .softening = 0.05f, .damping = 1}, 2);
    assert_null(sim_error(s));
    assert_int_equal(sim_gpus(s, NULL), found);
    char want[96];
    snprintf(want, sizeof want, "%d GPUs asked for, %d found: running on %d", found + 1, found, found);
    print_message("note: %s\n", sim_gpus_note(s));
    assert_non_null(strstr(sim_gpus_note(s), want));
    sim_destroy(s);
    bodies_free(&b);
}

/* --gpus all times both ways in its first advances and keeps the faster; the bits are one GPU's
 * throughout, and the run says which it kept. */
static void all_keeps_the_faster_way(void **state)
{
    const SimForce methods[] = {SIM_FORCE_DIRECT, SIM_FORCE_TREE};
    for (int m = 0; m < 2; m++) {
        two_gpus_or_streams();
        Bodies b;
        gpu_random_ball(&b, m == 0 ? 65536 : 262144, 61);
        Sim *all = method_sim(&b, methods[m], -1);
        one_gpu_done();
        Sim *one = method_sim(&b, methods[m], 1);
        /* 10 advances: the choice takes 8 (a first and 3 timed of each way). */
        assert_same_run(one, all, b.n, 10, 2);
        const int g = sim_gpus(all, NULL);
        const char *note = sim_gpus_note(all);
        print_message("%s, %d bodies, --gpus all: %d GPU%s kept%s%s\n", sim_force_name(methods[m]), b.n, g,
                      g > 1 ? "s" : "", note[0] ? ": " : "", note);
        if (g == 1) assert_non_null(strstr(note, "one GPU is the faster here"));
        else assert_string_equal(note, "");
        sim_destroy(one);
        sim_destroy(all);
        bodies_free(&b);
    }
}

static void other_kernels_run_on_one(void **state)
{
    two_gpus_or_streams();
    Bodies b;
    gpu_random_ball(&b, 16384, 41);
    char err[256] = "";
    Sim *s = method_sim(&b, SIM_FORCE_TREE, 2);
    one_gpu_done();
    const SimParams p = {.dt = 0.001f, .softening = 0.05f, .damping = 1};
    sim_advance(s, &p, 2);
    assert_int_equal(sim_gpus(s, NULL), 2);
    /* Switched to the direct sum with mtpb: one GPU, and why; with the symmetric kernel: two. */
    assert_int_equal(sim_set_force(s, SIM_FORCE_DIRECT, err, sizeof err), 0);
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_MTPB, 0, 0, err, sizeof err), 0);
    sim_advance(s, &p, 2);
    assert_int_equal(sim_gpus(s, NULL), 1);
    print_message("mtpb: note: %s\n", sim_gpus_note(s));
    assert_non_null(strstr(sim_gpus_note(s), "symmetric kernel"));
    assert_int_equal(sim_set_kernel(s, SIM_KERNEL_SYMMETRIC, 0, 0, err, sizeof err), 0);
    sim_advance(s, &p, 2);
    assert_int_equal(sim_gpus(s, NULL), 2);
    assert_string_equal(sim_gpus_note(s), "");
    /* And back to the tree: its peers' trees made again. */
    assert_int_equal(sim_set_force(s, SIM_FORCE_TREE, err, sizeof err), 0);
    sim_advance(s, &p, 2);
    assert_int_equal(sim_gpus(s, NULL), 2);
    assert_null(sim_error(s));
    sim_destroy(s);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_gpus_give_one_gpus_bits),
        cmocka_unit_test(the_tree_on_two_gpus_gives_one_gpus_bits),
        cmocka_unit_test(field_halos_on_two_gpus_give_one_gpus_bits),
        cmocka_unit_test(a_failing_gpu_hands_its_part_back),
        cmocka_unit_test(fewer_gpus_than_asked_say_so),
        cmocka_unit_test(all_keeps_the_faster_way),
        cmocka_unit_test(other_kernels_run_on_one),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
