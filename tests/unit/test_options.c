/* The table of options (src/app/options.c): each row is whole (a spelling, somewhere to keep its
 * value, its help), no spelling names two rows, --help lists every option, and what the table
 * says is what the command line and the presets file do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_files.h"

#include "app/app.h"
#include "app/options.h"
#include "app/presets.h"
#include "util/params.h"

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static void every_row_is_whole(void **state)
{
    (void)state;
    int count;
    const AppOption *rows = app_options(&count);
    assert_true(count > 40);
    for (int i = 0; i < count; i++) {
        const AppOption *o = &rows[i];
        const char *name = app_option_name(o), *key = app_option_key(o);
        if (o->value.kind == OPTION_HEADING) {
            assert_non_null(o->help);
            continue;
        }
        if (!name && !key) fail_msg("row %d has neither an option nor a key", i);
        const char *what = name ? name : key;
        if (!option_store_fits(o->app.type, o->app.size) || !option_store_fits(o->preset.type, o->preset.size))
            fail_msg("%s is kept in a field of another size than its type's", what);
        if (name && (strncmp(name, "--", 2) != 0 || !o->help))
            fail_msg("%s: an option is spelt --name and has its help", what);
        if (name && o->value.kind != OPTION_HELP && o->app.type == OPTION_STORE_NONE && !o->to_app)
            fail_msg("%s: the command line keeps it nowhere", what);
        if (key && o->preset.type == OPTION_STORE_NONE && !o->preset_only)
            fail_msg("%s: a preset keeps it nowhere", what);
        /* A preset outlives the line inih read it from: it keeps a copy, not the text. */
        if (o->preset.type == OPTION_STORE_STRING) fail_msg("%s: a preset keeps a pointer into its file", what);
        if ((o->value.kind == OPTION_FLAG || o->value.kind == OPTION_HELP) && o->arg)
            fail_msg("%s takes no value but --help names one", what);
        if (name && o->value.kind != OPTION_FLAG && o->value.kind != OPTION_HELP && !o->arg)
            fail_msg("%s takes a value that --help does not name", what);
        if (o->value.kind == OPTION_CHOICE) {
            assert_true(o->value.first < o->value.end);
            for (int v = o->value.first; v < o->value.end; v++)
                if (!o->value.name_of(v) || same(o->value.name_of(v), "?")) fail_msg("%s: value %d has no name", what, v);
        }
        if (o->value.kind == OPTION_NUMBER) assert_true(o->value.min < o->value.max);
        /* No spelling names two rows. */
        for (int j = 0; j < i; j++) {
            const AppOption *p = &rows[j];
            const char *spellings[] = {app_option_name(o), o->short_name, o->other_name};
            for (size_t s = 0; s < 3; s++)
                if (same(spellings[s], app_option_name(p)) || same(spellings[s], p->short_name) ||
                    same(spellings[s], p->other_name))
                    fail_msg("%s names two rows", spellings[s]);
            if (same(key, app_option_key(p))) fail_msg("key %s names two rows", key);
        }
        if (name) assert_ptr_equal(app_option_named(name), o);
        if (o->short_name) assert_ptr_equal(app_option_named(o->short_name), o);
        if (key) assert_ptr_equal(app_option_keyed(key), o);
    }
    assert_null(app_option_named("--warp-speed"));
    assert_null(app_option_keyed("warp"));
}

/* A parameter of util/params.c's table is spelt as that table spells it, on both readers. */
static void parameters_take_the_tables_spellings(void **state)
{
    (void)state;
    for (int i = 0; i < PARAM_COUNT; i++) {
        const Param *p = params_get((ParamId)i);
        const AppOption *o = app_option_named(p->option);
        if (!o) fail_msg("%s is no option", p->option);
        assert_ptr_equal(app_option_keyed(p->key), o);
        assert_int_equal(o->value.kind, OPTION_PARAM);
        assert_int_equal(o->value.param, i);
    }
}

static char *help_text(void)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    app_print_usage(f);
    char *text = written_to(f);
    fclose(f);
    return text;
}

/* --help lists every option of the table with its help and what it takes. */
static void help_lists_every_option(void **state)
{
    (void)state;
    char *help = help_text();
    int count;
    const AppOption *rows = app_options(&count);
    for (int i = 0; i < count; i++) {
        const AppOption *o = &rows[i];
        const char *name = app_option_name(o);
        if (!name) continue;
        char line[96], first[96], values[256];
        snprintf(line, sizeof line, "%s%s%s%s%s", o->short_name ? o->short_name : "", o->short_name ? ", " : "", name,
                 o->arg ? " " : "", o->arg ? o->arg : "");
        snprintf(first, sizeof first, "%.*s", (int)strcspn(o->help, "\n"), o->help);
        if (!strstr(help, line) || !strstr(help, first)) fail_msg("--help lacks \"%s\" or \"%s\"", line, first);
        option_values_text(&o->value, values, sizeof values);
        if (!strstr(help, values)) fail_msg("--help does not say what %s takes: %s", name, values);
    }
    free(help);
}

static int parse(AppOptions *o, char *err, size_t errlen, int argc, const char **argv)
{
    app_default_options(o);
    return app_parse_args(o, argc, (char **)argv, err, errlen);
}

#define PARSE(o, err, ...)                                                                         \
    parse(o, err, sizeof err, (int)(sizeof((const char *[]){"starburst", __VA_ARGS__}) / sizeof(char *)), \
          (const char *[]){"starburst", __VA_ARGS__})

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
    assert_int_equal(PARSE(&o, err, "--scene", "plummer", "--pericentre", "8kpc"), -1);
    assert_non_null(strstr(err, "--pericentre: '8kpc' has a unit, but this run has no physical scale"));
    assert_int_equal(PARSE(&o, err, "--cycle", "0.5"), -1);
    assert_non_null(strstr(err, "--cycle: '0.5' is too small: expected 1 to 3600 (seconds)"));
    assert_int_equal(PARSE(&o, err, "--frames", "1.5"), -1);
    assert_non_null(strstr(err, "--frames: '1.5' is not a whole number"));
    assert_int_equal(PARSE(&o, err, "--follow", "c"), -1);
    assert_non_null(strstr(err, "--follow: 'c' is not one of none, a, b, all"));
}

static char dir[] = "/tmp/starburst-options-XXXXXX";

static int setup(void **state) { return folder_make(dir); }

static int teardown(void **state) { return folder_remove(dir); }

/* Every key a preset can hold, written by presets_append and read back as it was. */
static void every_key_round_trips(void **state)
{
    (void)state;
    Preset p = {.name = "All", .scene = {.kind = SCENE_DISK, .n = 5000, .seed = 12345678901234ull, .mass_ratio = 0.5f,
                                         .separation = 40, .pericentre_angle = -30, .inclination_a = 10,
                                         .inclination_b = 0, .set = SCENE_SET_INCLINATION_B},
                .about = "a caption", .cite = "a source", .dt = 0.02f, .softening = 0.1f, .damping = 0.99f,
                .theta = 0.5f, .steps_per_frame = 3, .exposure = 2, .point_size = 1.5f, .color_mode = COLOR_BY_SPEED,
                .camera_yaw = 20, .camera_pitch = -10, .camera_distance = 1.5f, .auto_rotate = false,
                .force = SIM_FORCE_FMM};
    p.scene.galaxy[0].disk_scale = 1.5f;
    p.scene.galaxy[1].halo_cut = 80;
    p.set = PRESET_DT | PRESET_SOFTENING | PRESET_DAMPING | PRESET_STEPS | PRESET_EXPOSURE | PRESET_POINT_SIZE |
            PRESET_COLOR | PRESET_CAMERA | PRESET_AUTO_ROTATE | PRESET_FORCE | PRESET_CUDA | PRESET_THETA;
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/all.ini", dir);
    assert_int_equal(presets_append(path, &p, err, sizeof err), 0);
    PresetList l;
    if (presets_load(path, &l, err, sizeof err) != 0) fail_msg("%s", err);
    const Preset *q = presets_find(&l, "All");
    assert_non_null(q);
    assert_memory_equal(&q->scene, &p.scene, sizeof p.scene);
    assert_string_equal(q->about, p.about);
    assert_string_equal(q->cite, p.cite);
    assert_true(q->dt == p.dt && q->softening == p.softening && q->damping == p.damping && q->theta == p.theta);
    assert_true(q->steps_per_frame == p.steps_per_frame && q->exposure == p.exposure && q->point_size == p.point_size);
    assert_true(q->color_mode == p.color_mode && q->auto_rotate == p.auto_rotate && q->force == p.force);
    assert_true(q->camera_yaw == p.camera_yaw && q->camera_pitch == p.camera_pitch &&
                q->camera_distance == p.camera_distance);
    assert_int_equal(q->set, p.set);
    presets_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_whole),
        cmocka_unit_test(parameters_take_the_tables_spellings),
        cmocka_unit_test(help_lists_every_option),
        cmocka_unit_test(command_line_follows_the_table),
        cmocka_unit_test(every_key_round_trips),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
