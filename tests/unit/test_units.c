/* Physical units: a value entered in Myr, pc or kpc is the model value the simulation gets, on the
 * command line, in a preset and through the parameter table; values read as a person reads them
 * (Myr up to 999, Gyr from 1000 Myr); a bad unit is refused with one line; a save keeps its scale. */
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

#include "test_files.h"

#include "app/app.h"
#include "app/presets.h"
#include "run/run.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/snapshot.h"
#include "util/params.h"
#include "util/units.h"

static char dir[] = "/tmp/starburst-units-XXXXXX";

static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) fail_msg("got %.9g, want %.9g", got, want);
}

/* The Milky-Way scale the galaxy scenes are built on: the circular speed at 8.2 kpc is 238 km/s. */
static void galaxy_scenes_carry_the_milky_way_scale(void **state)
{
    (void)state;
    Units u = scene_units(SCENE_COLLISION);
    assert_true(units_physical(&u));
    assert_close(u.kpc, UNITS_MW_DISK_SCALE_KPC, 1e-12);
    assert_close(u.myr, UNITS_MYR_PER_KPC_KMS * u.kpc / u.kms, 1e-12);
    assert_close(u.msun, u.kms * u.kms * u.kpc / UNITS_G_KPC_KMS2_MSUN, 1e-12);
    print_message("1 model time = %.3f Myr, length %.2f kpc, mass %.3g Msun, speed %.1f km/s\n", u.myr, u.kpc,
                  u.msun, u.kms);
    Units d = scene_units(SCENE_DISK);
    assert_memory_equal(&u, &d, sizeof u);
    Units p = scene_units(SCENE_PLUMMER);
    assert_false(units_physical(&p));
    /* The scene that is built says the same. */
    Bodies b;
    SceneInfo info;
    char err[256];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 64}, &b, &info, err, sizeof err), 0);
    assert_memory_equal(&info.units, &u, sizeof u);
    bodies_free(&b);
}

static void formatting_switches_from_myr_to_gyr_at_1000(void **state)
{
    (void)state;
    const Units u = units_from(1.0, UNITS_MYR_PER_KPC_KMS); /* one model time is one Myr */
    char buf[64];
    assert_string_equal(units_format_time(&u, 999, buf, sizeof buf), "999 Myr");
    assert_string_equal(units_format_time(&u, 999.6, buf, sizeof buf), "1.00 Gyr");
    assert_string_equal(units_format_time(&u, 1000, buf, sizeof buf), "1.00 Gyr");
    assert_string_equal(units_format_time(&u, 1234, buf, sizeof buf), "1.23 Gyr");
    assert_string_equal(units_format_time(&u, 120, buf, sizeof buf), "120 Myr");
    assert_string_equal(units_format_time(&u, 12.34, buf, sizeof buf), "12.3 Myr");
    assert_string_equal(units_format_time(&u, 0.16, buf, sizeof buf), "0.16 Myr");
    assert_string_equal(units_format_time(&u, 0.0353, buf, sizeof buf), "0.035 Myr");
    assert_string_equal(units_format_time(&u, 0, buf, sizeof buf), "0 Myr");
    assert_string_equal(units_format_length(&u, 4.2, buf, sizeof buf), "4.20 kpc");
    assert_string_equal(units_format_softening(&u, 0.2, buf, sizeof buf), "200 pc");
    const Units mw = scene_units(SCENE_COLLISION);
    units_format_mass(&mw, 1.0, buf, sizeof buf);
    assert_non_null(strstr(buf, "e10 Msun"));
    units_format_speed(&mw, 1.0, buf, sizeof buf);
    assert_non_null(strstr(buf, " km/s"));
    /* No scale: the model value alone. */
    const Units none = {0, 0, 0, 0};
    assert_string_equal(units_format_time(&none, 10, buf, sizeof buf), "10.000");
    assert_string_equal(units_format_length(&none, 4.2, buf, sizeof buf), "4.20");
}

static void suffixed_values_read_back_in_model_units(void **state)
{
    (void)state;
    const Units u = scene_units(SCENE_COLLISION);
    static const struct {
        const char *text;
        UnitDim dim;
        double physical; /* in Myr or kpc */
    } cases[] = {
        {"0.2Myr", UNIT_TIME, 0.2},   {"0.2 Myr", UNIT_TIME, 0.2},  {"1Gyr", UNIT_TIME, 1000},
        {"200pc", UNIT_LENGTH, 0.2},  {"1.5kpc", UNIT_LENGTH, 1.5}, {"1.5 KPC", UNIT_LENGTH, 1.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v = -1;
        bool had = false;
        char err[256] = "";
        if (units_parse(cases[i].text, cases[i].dim, &u, &v, &had, err, sizeof err) != 0)
            fail_msg("%s: %s", cases[i].text, err);
        assert_true(had);
        const double unit = cases[i].dim == UNIT_TIME ? u.myr : u.kpc;
        assert_close(v * unit, cases[i].physical, 1e-12);
    }
    double v;
    bool had = true;
    char err[256];
    assert_int_equal(units_parse("80 km/s", UNIT_SPEED, &u, &v, NULL, err, sizeof err), 0);
    assert_close(v * u.kms, 80, 1e-12);
    assert_int_equal(units_parse("0.25", UNIT_TIME, &u, &v, &had, err, sizeof err), 0);
    assert_false(had);
    assert_true(v == 0.25);
    /* A bad unit, a unit of another kind and a unit without a scale: refused. */
    assert_int_equal(units_parse("0.2parsec", UNIT_LENGTH, &u, &v, NULL, err, sizeof err), -1);
    assert_int_equal(units_parse("0.2kpc", UNIT_TIME, &u, &v, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "Myr"));
    const Units none = {0, 0, 0, 0};
    assert_int_equal(units_parse("0.2Myr", UNIT_TIME, &none, &v, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no physical scale"));
}

/* The parameter table takes units for dt and softening only, and checks the converted value
 * against the range in model units. */
static void the_parameter_table_converts_and_checks(void **state)
{
    (void)state;
    const Units u = scene_units(SCENE_COLLISION);
    double v;
    char err[256] = "";
    assert_int_equal(params_parse_in(PARAM_DT, &u, "dt", "0.2Myr", &v, err, sizeof err), 0);
    assert_close(v, 0.2 / u.myr, 1e-12);
    assert_int_equal(params_parse_in(PARAM_SOFTENING, &u, "softening", "0.2kpc", &v, err, sizeof err), 0);
    assert_close(v, 0.2 / u.kpc, 1e-12);
    /* 1 Gyr is beyond dt's range of at most 10 model times (about 110 Myr). */
    assert_int_equal(params_parse_in(PARAM_DT, &u, "--dt", "1Gyr", &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "--dt: '1Gyr' is too large"));
    assert_int_equal(params_parse_in(PARAM_DT, &u, "--dt", "0.2parsec", &v, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "--dt: '0.2parsec' does not end in a unit of time"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(params_parse_in(PARAM_THETA, &u, "--theta", "0.5Myr", &v, err, sizeof err), -1);
    assert_int_equal(params_parse(PARAM_DT, "--dt", "0.2Myr", &v, err, sizeof err), -1);
}

#define ARGS(...) (int)(sizeof((const char *[]){"starburst", __VA_ARGS__}) / sizeof(char *)), \
                  (char **)(const char *[]){"starburst", __VA_ARGS__}

static void the_command_line_takes_units(void **state)
{
    (void)state;
    const Units u = scene_units(SCENE_COLLISION);
    AppOptions o;
    char err[256] = "";
    app_default_options(&o);
    /* --scene after --dt: the value waits for the scene's scale. */
    if (app_parse_args(&o, ARGS("--dt", "0.2Myr", "--softening=200pc", "--scene", "disk"), err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_float_equal(o.dt, (float)(0.2 / u.myr), 1e-9);
    assert_float_equal(o.softening, (float)(0.2 / u.kpc), 1e-9);
    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, ARGS("--dt", "0.2parsec"), err, sizeof err), -1);
    assert_non_null(strstr(err, "--dt: '0.2parsec'"));
    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, ARGS("--scene", "plummer", "--dt", "0.2Myr"), err, sizeof err), -1);
    assert_non_null(strstr(err, "no physical scale"));
    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, ARGS("--scene", "plummer", "--dt", "0.02"), err, sizeof err), 0);
    assert_float_equal(o.dt, 0.02f, 0);
}

static void a_preset_takes_units(void **state)
{
    (void)state;
    const Units u = scene_units(SCENE_COLLISION);
    const char *path = write_file_in(dir, "p.ini", "[A]\nscene = disk\ndt = 0.5 Myr\nsoftening = 0.2kpc\n"
                                                    "[B]\nsoftening = 150pc\n");
    PresetList l;
    char err[512] = "";
    if (presets_load(path, &l, err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(l.items[0].dt, (float)(0.5 / u.myr), 1e-9);
    assert_float_equal(l.items[0].softening, (float)(0.2 / u.kpc), 1e-9);
    assert_float_equal(l.items[1].softening, (float)(0.15 / u.kpc), 1e-9);
    presets_free(&l);
    path = write_file_in(dir, "q.ini", "[A]\nscene = plummer\ndt = 0.5Myr\n");
    assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, ":3: dt = '0.5Myr'"));
    /* The scene after a value with a unit would change the scale it was read on. */
    path = write_file_in(dir, "s.ini", "[A]\ndt = 0.5Myr\nscene = plummer\n");
    assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, ":3: scene = 'plummer' comes after a value with a unit"));
    path = write_file_in(dir, "t.ini", "[A]\ndt = 0.05\nscene = plummer\n[B]\ndt = 0.5Myr\n[C]\nscene = disk\n");
    if (presets_load(path, &l, err, sizeof err) != 0) fail_msg("%s", err);
    presets_free(&l);
    path = write_file_in(dir, "r.ini", "[A]\nsoftening = 3 furlongs\n");
    assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
    assert_null(strchr(err, '\n'));
}

static void a_save_keeps_its_scale(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    char err[512] = "", path[256];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = 256}, &b, &info, err, sizeof err), 0);
    SavedRun r = {.params = {.dt = info.dt, .softening = info.softening, .damping = 1},
                  .steps_per_frame = 1,
                  .units = info.units,
                  .period = info.period};
    snprintf(path, sizeof path, "%s/scaled.tipsy", dir);
    assert_int_equal(state_save(path, &b, &r, err, sizeof err), 0);
    SavedRun back;
    Bodies loaded;
    if (state_load(path, &loaded, &back, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(back.units.kpc == info.units.kpc && back.units.kms == info.units.kms);
    assert_close(back.units.myr, info.units.myr, 1e-15);
    assert_close(back.units.msun, info.units.msun, 1e-15);
    assert_true(back.period == info.period);
    bodies_free(&loaded);
    /* A run in model units saves none, and loads without a scale. */
    r.units = (Units){0, 0, 0, 0};
    r.period = 0;
    snprintf(path, sizeof path, "%s/plain.tipsy", dir);
    assert_int_equal(state_save(path, &b, &r, err, sizeof err), 0);
    if (state_load(path, &loaded, &back, err, sizeof err) != 0) fail_msg("%s", err);
    assert_false(units_physical(&back.units));
    bodies_free(&loaded);
    bodies_free(&b);
}

/* A saved run and a series are read on their own scale, before the options that take a unit: a
 * save's [units] converts --dt 0.2Myr; a save in model units alone, opened as a series, has none,
 * so a unit is refused as on a Plummer sphere, and the run shows model units. */
static void a_saved_run_or_a_series_gives_its_scale(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    char err[512] = "", scaled[256], plain[256];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_DISK, .n = 64}, &b, &info, err, sizeof err), 0);
    SavedRun r = {.params = {.dt = info.dt, .softening = info.softening, .damping = 1}, .steps_per_frame = 1,
                  .units = info.units};
    snprintf(scaled, sizeof scaled, "%s/load-scaled.tipsy", dir);
    assert_int_equal(state_save(scaled, &b, &r, err, sizeof err), 0);
    r.units = (Units){0, 0, 0, 0};
    snprintf(plain, sizeof plain, "%s/open-plain.tipsy", dir);
    assert_int_equal(state_save(plain, &b, &r, err, sizeof err), 0);
    bodies_free(&b);

    AppOptions o;
    app_default_options(&o);
    if (app_parse_args(&o, ARGS("--load", scaled, "--dt", "0.2Myr"), err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(o.dt, (float)(0.2 / info.units.myr), 1e-9);
    assert_true(o.scale.kpc == info.units.kpc && o.scale.kms == info.units.kms);
    app_default_options(&o);
    if (app_parse_args(&o, ARGS("--open", scaled, "--softening", "200pc"), err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(o.softening, (float)(0.2 / info.units.kpc), 1e-9);
    app_options_free(&o);

    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, ARGS("--open", plain, "--dt", "0.2Myr"), err, sizeof err), -1);
    assert_non_null(strstr(err, "--dt: '0.2Myr' has a unit, but this run has no physical scale"));
    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, ARGS("--load", plain, "--dt", "0.2Myr"), err, sizeof err), -1);
    assert_non_null(strstr(err, "no physical scale"));
    app_default_options(&o);
    if (app_parse_args(&o, ARGS("--open", plain), err, sizeof err) != 0) fail_msg("%s", err);
    assert_false(units_physical(&o.scale));
    /* The run made on the series the parser opened takes it (its files listed once) and shows what
     * the parser read on. */
    assert_non_null(o.series);
    const SnapshotSeries *parsed = o.series;
    const Units galaxy = scene_units(SCENE_COLLISION);
    Run *run = run_make(&(RunDesc){.open_path = plain, .series = o.series, .open_units = galaxy}, err, sizeof err);
    o.series = NULL;
    if (!run) fail_msg("%s", err);
    assert_ptr_equal(run_series(run), parsed);
    const Units shown = series_units(run_series(run));
    assert_false(units_physical(&shown));
    run_destroy(run);
    run = run_make(&(RunDesc){.open_path = scaled, .open_units = galaxy}, err, sizeof err);
    if (!run) fail_msg("%s", err);
    const Units saved = series_units(run_series(run));
    assert_true(saved.kpc == info.units.kpc && saved.kms == info.units.kms);
    run_destroy(run);

    /* A save's .ini takes a unit as the command line does, on the scale its [units] give after it. */
    char text[256], hand[256];
    snprintf(text, sizeof text, "[run]\ndt = 0.2Myr\nsoftening = 100 pc\n[units]\nkpc = %.17g\nkms = %.17g\n",
             info.units.kpc, info.units.kms);
    write_file_in(dir, "hand.tipsy.ini", text);
    snprintf(hand, sizeof hand, "%s/hand.tipsy", dir);
    SavedRun read;
    if (state_read_settings(hand, &read, err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(read.params.dt, (float)(0.2 / info.units.myr), 1e-9);
    assert_float_equal(read.params.softening, (float)(0.1 / info.units.kpc), 1e-9);
    write_file_in(dir, "hand.tipsy.ini", "[run]\ndt = 0.2Myr\n");
    assert_int_equal(state_read_settings(hand, &read, err, sizeof err), -1);
    assert_non_null(strstr(err, "hand.tipsy.ini: dt = '0.2Myr' has a unit, but this run has no physical scale"));
}

static int make_dir(void **state)
{
    (void)state;
    return folder_make(dir);
}

static int remove_dir(void **state)
{
    (void)state;
    return folder_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(galaxy_scenes_carry_the_milky_way_scale),
        cmocka_unit_test(formatting_switches_from_myr_to_gyr_at_1000),
        cmocka_unit_test(suffixed_values_read_back_in_model_units),
        cmocka_unit_test(the_parameter_table_converts_and_checks),
        cmocka_unit_test(the_command_line_takes_units),
        cmocka_unit_test(a_preset_takes_units),
        cmocka_unit_test(a_save_keeps_its_scale),
        cmocka_unit_test(a_saved_run_or_a_series_gives_its_scale),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
