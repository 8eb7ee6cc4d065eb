/* The table of options (src/app/options.c): each row is whole (a spelling, somewhere to keep its
 * value, its help), no spelling names two rows, a parameter is spelt as the parameter table spells
 * it, and every key a preset holds is written and read back as it was. (test_cli and test_limits
 * check the command line and --help against it.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_files.h"

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
        const AppOption *o = p->option ? app_option_named(p->option) : app_option_keyed(p->key);
        if (!o) fail_msg("%s is no option or key", p->key);
        assert_ptr_equal(app_option_keyed(p->key), o);
        assert_true(p->option ? app_option_name(o) != NULL : app_option_name(o) == NULL);
        assert_int_equal(o->value.kind, OPTION_PARAM);
        assert_int_equal(o->value.param, i);
    }
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
        cmocka_unit_test(every_key_round_trips),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
