/* Command-line parsing: good values land in the options, bad ones are refused with a line that
 * names the option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/app.h"

static int parse(AppOptions *o, char *err, size_t errlen, int argc, const char **argv)
{
    app_default_options(o);
    return app_parse_args(o, argc, (char **)argv, err, errlen);
}

#define PARSE(o, err, ...)                                                                         \
    parse(o, err, sizeof err, (int)(sizeof((const char *[]){"starburst", __VA_ARGS__}) / sizeof(char *)), \
          (const char *[]){"starburst", __VA_ARGS__})

static void defaults_are_the_collision_scene(void **state)
{
    AppOptions o;
    app_default_options(&o);
    assert_int_equal(o.scene.kind, SCENE_COLLISION);
    assert_int_equal(o.backend, SIM_BACKEND_AUTO);
    assert_int_equal(o.kernel, SIM_KERNEL_DEFAULT);
    assert_true(o.dt < 0 && o.softening < 0 && o.damping < 0); /* the scene decides */
    assert_false(o.headless);
}

static void good_values_are_taken(void **state)
{
    AppOptions o;
    char err[256] = "";
    int rc = PARSE(&o, err, "--scene", "plummer", "-n", "2048", "--seed=7", "--dt", "0.002", "--softening", "0",
                   "--damping", "0.995", "--backend", "cuda", "--kernel", "mtpb", "--headless", "--frames", "60",
                   "--size", "640x360", "--screenshot", "x.png", "--color", "speed", "--steps-per-frame", "8",
                   "--threads-per-body", "4", "--block-size", "128", "--precision", "double", "--measure-ladder");
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_int_equal(o.scene.kind, SCENE_PLUMMER);
    assert_int_equal(o.scene.n, 2048);
    assert_int_equal(o.scene.seed, 7);
    assert_float_equal(o.dt, 0.002f, 1e-9);
    assert_float_equal(o.softening, 0.0f, 0);
    assert_float_equal(o.damping, 0.995f, 1e-7);
    assert_int_equal(o.backend, SIM_BACKEND_CUDA);
    assert_int_equal(o.kernel, SIM_KERNEL_MTPB);
    assert_true(o.measure_ladder);
    assert_true(o.headless);
    assert_int_equal(o.frames, 60);
    assert_int_equal(o.width, 640);
    assert_int_equal(o.height, 360);
    assert_string_equal(o.screenshot, "x.png");
    assert_int_equal(o.color_mode, COLOR_BY_SPEED);
    assert_int_equal(o.steps_per_frame, 8);
    assert_int_equal(o.threads_per_body, 4);
    assert_int_equal(o.block_size, 128);
    assert_int_equal(o.precision, SIM_PRECISION_DOUBLE);
}

/* Each value is fine alone; together the kernels cannot run them. */
static void combinations_the_kernels_cannot_run_are_refused(void **state)
{
    static const struct {
        const char *args[4];
        const char *says;
    } cases[] = {
        {{"--backend", "cpu", "--kernel", "mtpb"}, "the CPU backend has one kernel"},
        {{"--backend", "cpu", "--precision", "double"}, "the CPU backend has one kernel"},
        {{"--kernel", "tiled", "--threads-per-body", "4"}, "only the mtpb kernel splits a body"},
        {{"--precision", "double", "--kernel", "symmetric"}, "only the mtpb kernel runs in double"},
        {{"--kernel", "symmetric", "--block-size", "128"}, "the symmetric kernel runs blocks of its own size"},
        {{"--backend", "cpu", "--gpus", "2"}, "--gpus splits the CUDA backend's steps"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        AppOptions o;
        char err[256] = "";
        int rc = PARSE(&o, err, cases[i].args[0], cases[i].args[1], cases[i].args[2], cases[i].args[3]);
        assert_int_equal(rc, -1);
        if (!strstr(err, cases[i].says)) fail_msg("%s %s %s %s: '%s'", cases[i].args[0], cases[i].args[1],
                                                   cases[i].args[2], cases[i].args[3], err);
    }
    /* What they can run is taken. */
    AppOptions o;
    char err[256] = "";
    assert_int_equal(PARSE(&o, err, "--kernel", "symmetric", "--block-size", "256"), 0);
    assert_int_equal(PARSE(&o, err, "--threads-per-body", "8"), 0);
    assert_int_equal(PARSE(&o, err, "--block-size", "96"), -1);
    assert_non_null(strstr(err, "power of two"));
    /* --gpus: a count or all, kept as the app's number (all: APP_GPUS_ALL). */
    assert_int_equal(PARSE(&o, err, "--gpus", "2"), 0);
    assert_int_equal(o.gpus, 2);
    assert_int_equal(PARSE(&o, err, "--gpus", "all"), 0);
    assert_int_equal(o.gpus, APP_GPUS_ALL);
    assert_int_equal(PARSE(&o, err, "--backend", "cpu", "--gpus", "1"), 0);
}

static void tipsy_options_pick_the_file_scenes(void **state)
{
    AppOptions o;
    char err[256] = "";
    assert_int_equal(PARSE(&o, err, "--tipsy-collide", "g.bin"), 0);
    assert_int_equal(o.scene.kind, SCENE_TIPSY_COLLIDE);
    assert_string_equal(o.scene.tipsy_path, "g.bin");
    assert_int_equal(PARSE(&o, err, "--tipsy", "h.bin"), 0);
    assert_int_equal(o.scene.kind, SCENE_TIPSY);
}

/* Each bad value is refused, and the message names the option and the value. */
static void bad_values_are_refused(void **state)
{
    static const char *cases[][3] = {
        {"-n", "-5", "-n"},
        {"-n", "0", "-n"},
        {"-n", "12abc", "-n"},
        {"-n", "99999999999", "-n"},
        {"--dt", "0", "--dt"},
        {"--dt", "nan", "--dt"},
        {"--dt", "inf", "--dt"},
        {"--dt", "-0.1", "--dt"},
        {"--softening", "-1", "--softening"},
        {"--damping", "0", "--damping"},
        {"--damping", "1.5", "--damping"},
        {"--scene", "spiral", "--scene"},
        {"--backend", "opencl", "--backend"},
        {"--kernel", "fast", "--kernel"},
        {"--size", "100", "--size"},
        {"--size", "0x100", "--size"},
        {"--threads-per-body", "3", "--threads-per-body"},
        {"--block-size", "100", "--block-size"},
        {"--frames", "-1", "--frames"},
        {"--seed", "-3", "--seed"},
        {"--color", "rainbow", "--color"},
        {"--precision", "half", "--precision"},
        {"--gpus", "0", "--gpus"},
        {"--gpus", "9", "--gpus"},
        {"--gpus", "two", "--gpus"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        AppOptions o;
        char err[256] = "";
        int rc = PARSE(&o, err, cases[i][0], cases[i][1]);
        if (rc != -1) fail_msg("%s %s was accepted", cases[i][0], cases[i][1]);
        assert_non_null(strstr(err, cases[i][2]));
        assert_non_null(strstr(err, cases[i][1]));
        assert_null(strchr(err, '\n'));
    }
}

static void unknown_and_incomplete_options_are_refused(void **state)
{
    AppOptions o;
    char err[256] = "";
    assert_int_equal(PARSE(&o, err, "--warp-speed"), -1);
    assert_non_null(strstr(err, "--warp-speed"));
    assert_int_equal(PARSE(&o, err, "--dt"), -1);
    assert_non_null(strstr(err, "needs a value"));
    assert_int_equal(PARSE(&o, err, "--headless=yes"), -1);
    assert_int_equal(PARSE(&o, err, "stray"), -1);
}

/* What a row does besides its store, and a length with its unit on the command line. */
static void command_line_follows_the_table(void **state)
{
    (void)state;
    AppOptions o;
    char err[256] = "";
    assert_int_equal(PARSE(&o, err, "--lecture", "--no-vsync", "--follow", "b", "--colour", "speed",
                           "--inclination-b", "0", "--timeline-mb", "0", "--seed", "18446744073709551615"), 0);
    assert_true(o.lecture && o.fullscreen);
    assert_false(o.vsync);
    assert_int_equal(o.follow, 2);
    assert_int_equal(o.color_mode, COLOR_BY_SPEED);
    assert_true(o.scene.set & SCENE_SET_INCLINATION_B);
    assert_true(o.timeline_mb == 0);
    assert_true(o.scene.seed == UINT64_MAX);
    /* A pericentre with its unit, on the collision's scale, whatever comes after it. */
    const Units u = scene_units(SCENE_COLLISION);
    assert_int_equal(PARSE(&o, err, "--pericenter", "8kpc", "--scene", "collision"), 0);
    assert_float_equal(o.scene.pericentre, 8 / u.kpc, 1e-5);
    assert_int_equal(PARSE(&o, err, "--scene", "plummer", "--softening", "8kpc"), -1);
    assert_non_null(strstr(err, "--softening: '8kpc' has a unit, but this run has no physical scale"));
    /* A collision's value for a scene that is none: refused as such, before its unit is read. */
    assert_int_equal(PARSE(&o, err, "--scene", "plummer", "--pericentre", "8kpc"), -1);
    assert_non_null(strstr(err, "--pericentre: the plummer scene takes no --pericentre: it shapes a collision"));
    assert_int_equal(PARSE(&o, err, "--cycle", "0.5"), -1);
    assert_non_null(strstr(err, "--cycle: '0.5' is too small: expected 1 to 3600 (seconds)"));
    assert_int_equal(PARSE(&o, err, "--frames", "1.5"), -1);
    assert_non_null(strstr(err, "--frames: '1.5' is not a whole number"));
    assert_int_equal(PARSE(&o, err, "--follow", "c"), -1);
    assert_non_null(strstr(err, "--follow: 'c' is not one of none, a, b, all"));
}

/* One start, and what makes bodies only beside a start that makes them: the pairs a run would
 * otherwise take one of silently are refused, each with a line naming both; those that go
 * together are taken. */
static void starts_that_do_not_go_together_are_refused(void **state)
{
    AppOptions o;
    char err[512];
    static const struct {
        const char *args[4];
        const char *says;
    } refused[] = {
        {{"--load", "k.tipsy", "--preset", "Collision"}, "--load: a saved run is the run's start; it goes with none of --preset"},
        {{"--preset", "Collision", "--load", "k.tipsy"}, "--load: a saved run is the run's start; it goes with none of --preset"},
        {{"--tipsy", "g.bin", "--scene", "disk"}, "--tipsy: a TIPSY file is the run's start; it goes with none of --scene"},
        {{"--tipsy-collide", "g.bin", "--tipsy", "h.bin"}, "--tipsy: a TIPSY file is the run's start; it goes with none of --tipsy-collide"},
        {{"--load", "k.tipsy", "--bodies", "100"}, "--bodies: a saved run (--load) takes no --bodies"},
        {{"--load", "k.tipsy", "--seed", "9"}, "--seed: a saved run (--load) takes no --seed"},
        {{"--scene", "disk", "--inclination-a", "30"}, "--inclination-a: the disk scene takes no --inclination-a"},
        {{"--mass-ratio", "3", "--scene", "plummer"}, "--mass-ratio: the plummer scene takes no --mass-ratio"},
        {{"--preset", "Collision", "--mass-ratio", "3"}, "--mass-ratio: a preset (--preset) takes no --mass-ratio"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *const *a = refused[i].args;
        assert_int_equal(PARSE(&o, err, a[0], a[1], a[2], a[3]), -1);
        if (!strstr(err, refused[i].says) || strchr(err, '\n'))
            fail_msg("%s %s %s %s: '%s' does not say '%s'", a[0], a[1], a[2], a[3], err, refused[i].says);
    }
    assert_int_equal(PARSE(&o, err, "--scene", "collision", "--mass-ratio", "3", "--seed", "4", "-n", "600"), 0);
    assert_int_equal(PARSE(&o, err, "--tipsy-collide", "g.bin", "--mass-ratio", "3", "--inclination-b", "10"), 0);
    assert_int_equal(PARSE(&o, err, "--tipsy", "g.bin", "-n", "100", "--seed", "2"), 0);
    assert_int_equal(PARSE(&o, err, "--scene", "plummer", "-n", "100", "--seed", "2"), 0);
    assert_int_equal(PARSE(&o, err, "--preset", "Collision", "-n", "2048", "--dt", "0.01"), 0);
    assert_int_equal(PARSE(&o, err, "--scene", "disk", "--scene", "plummer"), 0); /* one start, the last taken */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_the_collision_scene),
        cmocka_unit_test(good_values_are_taken),
        cmocka_unit_test(combinations_the_kernels_cannot_run_are_refused),
        cmocka_unit_test(tipsy_options_pick_the_file_scenes),
        cmocka_unit_test(bad_values_are_refused),
        cmocka_unit_test(unknown_and_incomplete_options_are_refused),
        cmocka_unit_test(command_line_follows_the_table),
        cmocka_unit_test(starts_that_do_not_go_together_are_refused),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
