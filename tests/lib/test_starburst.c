/* The C API of libstarburst (include/starburst.h), linked as another program links it: a run made,
 * set, advanced, read, written back, measured, saved, loaded and opened, its refusals a code and the program's line
 * with the run left as it was. The Python package's tests (python/tests) check the same calls
 * against the program's own output; these run under the sanitizers too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "starburst.h"

#define BODIES 256

static StarburstRun *make(const char *scene, const char *force)
{
    char err[512] = "";
    StarburstRun *r = NULL;
    const StarburstDesc d = {.scene = scene, .n = BODIES, .seed = 4, .backend = "cpu", .force = force};
    if (starburst_make(&d, &r, err, sizeof err) != STARBURST_OK) fail_msg("%s", err);
    assert_non_null(r);
    return r;
}

static void a_bad_description_gives_the_programs_line_and_no_run(void **state)
{
    (void)state;
    char err[512];
    StarburstRun *r = (StarburstRun *)1;
    assert_int_equal(starburst_make(&(StarburstDesc){.scene = "nope"}, &r, err, sizeof err), STARBURST_ERR_VALUE);
    assert_null(r);
    assert_string_equal(err, "--scene: 'nope' is not a scene: collision, disk, plummer, shell, random");
    assert_int_equal(starburst_make(&(StarburstDesc){.n = 3, .backend = "cpu"}, &r, err, sizeof err),
                     STARBURST_ERR_VALUE);
    assert_string_equal(err, "-n 3: the collision scene needs at least 6 bodies");
    assert_int_equal(starburst_load("/nonexistent/run.tipsy", "cpu", NULL, &r, err, sizeof err), STARBURST_ERR_FILE);
    assert_null(r);
    assert_non_null(strstr(err, "/nonexistent/run.tipsy"));
}

static void a_parameter_is_set_in_range_and_refused_outside_it(void **state)
{
    (void)state;
    StarburstRun *r = make("plummer", "direct");
    const double dt = starburst_get(r, "dt");
    assert_true(dt > 0);
    assert_int_equal(starburst_set(r, "dt", "-1"), STARBURST_ERR_VALUE);
    assert_string_equal(starburst_error(r), "--dt: '-1' is too small: expected more than 0, at most 10 (model time units)");
    assert_true(starburst_get(r, "dt") == dt);
    assert_int_equal(starburst_set(r, "--dt", "0.002"), STARBURST_OK);
    assert_true(starburst_get(r, "dt") == (double)0.002f);
    /* The Plummer sphere has no physical scale: a unit is refused. */
    assert_int_equal(starburst_set(r, "dt", "0.2Myr"), STARBURST_ERR_VALUE);
    assert_int_equal(starburst_set(r, "mass", "1"), STARBURST_ERR_VALUE);
    assert_true(isnan(starburst_get(r, "mass")));
    starburst_destroy(r);
}

static void steps_move_the_clock_and_the_bodies(void **state)
{
    (void)state;
    StarburstRun *r = make("plummer", "direct");
    const int n = starburst_count(r);
    assert_int_equal(n, BODIES);
    float *before = malloc(3 * sizeof(float) * n), *after = malloc(3 * sizeof(float) * n);
    assert_int_equal(starburst_read(r, before, NULL, NULL, NULL), STARBURST_OK);
    double k0, p0;
    starburst_energy(r, &k0, &p0, NULL);
    assert_int_equal(starburst_advance(r, 10), STARBURST_OK);
    assert_int_equal(starburst_step(r), 10);
    assert_true(fabs(starburst_time(r) - 10 * starburst_get(r, "dt")) < 1e-6);
    assert_int_equal(starburst_read(r, after, NULL, NULL, NULL), STARBURST_OK);
    assert_memory_not_equal(before, after, 3 * sizeof(float) * n);
    double k1, p1;
    starburst_energy(r, &k1, &p1, NULL);
    assert_true(fabs((k1 + p1) - (k0 + p0)) < 1e-3 * fabs(k0 + p0));
    assert_int_equal(starburst_advance(r, -1), STARBURST_ERR_VALUE);
    assert_int_equal(starburst_step(r), 10);
    free(before);
    free(after);
    starburst_destroy(r);
}

static void bodies_written_back_read_back_and_a_bad_one_is_refused(void **state)
{
    (void)state;
    StarburstRun *r = make("collision", NULL);
    const int n = starburst_count(r);
    float *pos = malloc(3 * sizeof(float) * n), *vel = malloc(3 * sizeof(float) * n), *m = malloc(sizeof(float) * n);
    float *got = malloc(3 * sizeof(float) * n);
    uint8_t *tag = malloc((size_t)n);
    assert_int_equal(starburst_read(r, pos, vel, m, tag), STARBURST_OK);
    assert_int_equal(tag[n - 1] & 3, 2); /* a halo field's centre, last */
    for (int i = 0; i < 3 * n; i++) pos[i] += 1.0f;
    assert_int_equal(starburst_write(r, pos, NULL, NULL), STARBURST_OK);
    assert_int_equal(starburst_read(r, got, NULL, NULL, NULL), STARBURST_OK);
    assert_memory_equal(got, pos, 3 * sizeof(float) * n);
    m[5] = -1;
    assert_int_equal(starburst_write(r, NULL, NULL, m), STARBURST_ERR_VALUE);
    assert_string_equal(starburst_error(r), "set_bodies: body 5 has a negative mass");
    assert_int_equal(starburst_read(r, got, NULL, NULL, NULL), STARBURST_OK);
    assert_memory_equal(got, pos, 3 * sizeof(float) * n);
    free(pos);
    free(vel);
    free(m);
    free(got);
    free(tag);
    starburst_destroy(r);
}

static void a_save_loads_and_goes_on_bit_for_bit(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-lib-XXXXXX", path[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.tipsy", dir);
    StarburstRun *a = make("plummer", "fmm");
    assert_int_equal(starburst_advance(a, 4), STARBURST_OK);
    assert_int_equal(starburst_save(a, path), STARBURST_OK);
    StarburstRun *b = NULL;
    if (starburst_load(path, "cpu", "fmm", &b, err, sizeof err) != STARBURST_OK) fail_msg("%s", err);
    assert_int_equal(starburst_step(b), 4);
    assert_true(starburst_time(b) == starburst_time(a));
    assert_true(starburst_get(b, "dt") == starburst_get(a, "dt"));
    assert_int_equal(starburst_advance(a, 3), STARBURST_OK);
    assert_int_equal(starburst_advance(b, 3), STARBURST_OK);
    float pa[3 * BODIES], pb[3 * BODIES];
    starburst_read(a, pa, NULL, NULL, NULL);
    starburst_read(b, pb, NULL, NULL, NULL);
    assert_memory_equal(pa, pb, sizeof pa);
    assert_int_equal(starburst_save(a, "/nonexistent/x.tipsy"), STARBURST_ERR_FILE);
    assert_true(strlen(starburst_error(a)) > 0);
    starburst_destroy(a);
    starburst_destroy(b);
    const char *ext[] = {"", ".acc", ".ini", ".param"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/run.tipsy%s", dir, ext[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void each_galaxy_is_measured_and_a_figure_it_cannot_give_is_nan(void **state)
{
    (void)state;
    char err[512];
    StarburstRun *r = NULL;
    const StarburstDesc d = {.scene = "collision", .n = 1024, .seed = 4, .backend = "cpu"};
    if (starburst_make(&d, &r, err, sizeof err) != STARBURST_OK) fail_msg("%s", err);
    StarburstMeasure m[2];
    int count = 0;
    assert_int_equal(starburst_measure(r, 0, 0, 0, m, &count), STARBURST_OK);
    assert_int_equal(count, 2);
    for (int g = 0; g < 2; g++) {
        assert_int_equal(m[g].galaxy, g);
        assert_true(m[g].bodies[0] > 0 && m[g].half_mass_radius[0] > 0 && m[g].field == 1);
        assert_true(m[g].ring[0] == 2 && m[g].ring[1] == 3 && m[g].beyond == 22.5);
        assert_true(m[g].virial > 0.5 && m[g].virial < 2);
        assert_true(m[g].softening == starburst_get(r, "softening"));
    }
    /* An annulus beyond every disk body: no dispersion there. */
    assert_int_equal(starburst_measure(r, 500, 600, 0, m, &count), STARBURST_OK);
    assert_int_equal(m[0].ring_bodies, 0);
    assert_true(isnan(m[0].sigma_r) && isnan(m[0].fourier[2]));
    assert_int_equal(starburst_measure(r, 3, 2, 0, m, &count), STARBURST_ERR_VALUE);
    assert_int_equal(count, 0);
    assert_non_null(strstr(starburst_error(r), "not an annulus"));
    starburst_destroy(r);
}

static void a_save_opens_as_a_series_and_a_later_field_state_does_not_export(void **state)
{
    (void)state;
    char dir[] = "/tmp/starburst-lib-XXXXXX", path[256], out[300], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.tipsy", dir);
    StarburstRun *a = make("collision", NULL);
    assert_int_equal(starburst_advance(a, 2), STARBURST_OK);
    assert_int_equal(starburst_save(a, path), STARBURST_OK);
    StarburstRun *b = NULL;
    if (starburst_open(path, "cpu", NULL, &b, err, sizeof err) != STARBURST_OK) fail_msg("%s", err);
    assert_int_equal(starburst_count(b), starburst_count(a));
    float pa[3 * (BODIES + 2)], pb[3 * (BODIES + 2)];
    assert_true(starburst_count(a) <= BODIES + 2);
    starburst_read(a, pa, NULL, NULL, NULL);
    starburst_read(b, pb, NULL, NULL, NULL);
    assert_memory_equal(pa, pb, 3 * sizeof(float) * (size_t)starburst_count(a));
    snprintf(out, sizeof out, "%s/swift", dir);
    assert_int_equal(starburst_export_swift(a, out, NULL, 0), STARBURST_ERR_FILE);
    assert_non_null(strstr(starburst_error(a), "halos are fields"));
    assert_int_equal(access(out, F_OK), -1);
    starburst_destroy(b);
    assert_int_equal(starburst_open("/nonexistent.bin", "cpu", NULL, &b, err, sizeof err), STARBURST_ERR_FILE);
    assert_null(b);
    assert_string_equal(err, "--open: /nonexistent.bin: no such file or folder");
    starburst_destroy(a);
    const char *ext[] = {"", ".acc", ".ini", ".param"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/run.tipsy%s", dir, ext[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    assert_int_equal(starburst_version() >> 16, STARBURST_VERSION_MAJOR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bad_description_gives_the_programs_line_and_no_run),
        cmocka_unit_test(a_parameter_is_set_in_range_and_refused_outside_it),
        cmocka_unit_test(steps_move_the_clock_and_the_bodies),
        cmocka_unit_test(bodies_written_back_read_back_and_a_bad_one_is_refused),
        cmocka_unit_test(a_save_loads_and_goes_on_bit_for_bit),
        cmocka_unit_test(each_galaxy_is_measured_and_a_figure_it_cannot_give_is_nan),
        cmocka_unit_test(a_save_opens_as_a_series_and_a_later_field_state_does_not_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
