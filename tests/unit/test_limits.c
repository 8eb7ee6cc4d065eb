/* One set of limits: the command line, the presets file and a saved run's .ini take and refuse
 * the same values of every parameter; what the files say is never echoed raw to a terminal; a
 * TIPSY file whose numbers would overflow the run is refused on reading; --help and the README
 * give the ranges of the table. */
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
#include "app/options.h"
#include "app/presets.h"
#include "run/saved_run.h"
#include "scene/scene.h"
#include "scene/tipsy.h"
#include "util/params.h"

static char dir[] = "/tmp/starburst-limits-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return folder_make(dir);
}

static int teardown(void **state)
{
    (void)state;
    return folder_remove(dir);
}

static const char *write_file(const char *name, const char *text) { return write_file_in(dir, name, text); }

static int cli(const char *option, const char *value, char *err, size_t errlen)
{
    AppOptions o;
    app_default_options(&o);
    /* A plummer sphere takes a single body, so that -n is judged by its range alone; the
     * collision's own values go with the collision. */
    const bool collision = !strcmp(option, "--mass-ratio") || !strcmp(option, "--pericentre") ||
                           !strncmp(option, "--inclination", 13) || !strcmp(option, "--eccentricity") ||
                           !strcmp(option, "--separation");
    char *argv[] = {"starburst", "--scene", collision ? "collision" : "plummer", (char *)option, (char *)value, NULL};
    const int rc = app_parse_args(&o, 5, argv, err, errlen);
    /* Within the table's range, a pericentre can still lie beyond the pair's orbit: the scene's
     * own check, after the range's (test_encounters judges it). */
    return rc != 0 && strstr(err, "lies beyond") ? 0 : rc;
}

static int preset(const char *key, const char *value, char *err, size_t errlen)
{
    char text[256];
    snprintf(text, sizeof text, "[A]\nscene = plummer\n%s = %s\n", key, value);
    PresetList l;
    int rc = presets_load(write_file("limits.ini", text), &l, err, errlen);
    if (rc == 0) presets_free(&l);
    return rc;
}

/* A saved run of a few bodies whose .ini then says key = value (dt given where key is another). */
static int saved_run(const char *key, const char *value, char *err, size_t errlen)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/run.tipsy", dir);
    if (access(path, F_OK) != 0) {
        Bodies b;
        SceneInfo info;
        assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 16}, &b, &info, err, errlen), 0);
        const SavedRun run = {.params = {.dt = 0.01f, .damping = 1}, .steps_per_frame = 1};
        assert_int_equal(state_save(path, &b, &run, err, errlen), 0);
        bodies_free(&b);
    }
    char text[256];
    snprintf(text, sizeof text, "[run]\n%s%s = %s\n", strcmp(key, "dt") ? "dt = 0.01\n" : "", key, value);
    write_file("run.tipsy.ini", text);
    Bodies b;
    SavedRun r;
    int rc = state_load(path, &b, &r, err, errlen);
    if (rc == 0) bodies_free(&b);
    return rc;
}

/* Each edge of each range, and a step beyond it, through every reader of the parameter. */
static void every_reader_takes_the_same_range(void **state)
{
    (void)state;
    for (int i = 0; i < PARAM_COUNT; i++) {
        const Param *p = params_get((ParamId)i);
        const bool in_run_ini = i == PARAM_DT || i == PARAM_SOFTENING || i == PARAM_DAMPING || i == PARAM_THETA ||
                                i == PARAM_STEPS_PER_FRAME;
        const double step = p->whole ? 1 : (p->max - p->min) * 1e-3;
        const struct {
            double v;
            bool taken;
        } values[] = {
            {p->max, true},
            {p->max + step, false},
            {p->min_open ? p->min + step : p->min, true},
            {p->min_open ? p->min : p->min - step, false},
            {1e30, false},
        };
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            char text[64], err[512] = "";
            snprintf(text, sizeof text, "%.10g", values[k].v);
            const int expect = values[k].taken ? 0 : -1;
            if (p->option && cli(p->option, text, err, sizeof err) != expect)
                fail_msg("%s %s: command line: %s", p->option, text, err);
            if (p->option && !values[k].taken && !strstr(err, text))
                fail_msg("%s %s: \"%s\" does not show the value", p->option, text, err);
            if (preset(p->key, text, err, sizeof err) != expect) fail_msg("%s = %s: presets: %s", p->key, text, err);
            if (!values[k].taken && !strstr(err, p->key)) fail_msg("%s = %s: \"%s\" does not name it", p->key, text, err);
            if (in_run_ini && saved_run(p->key, text, err, sizeof err) != expect)
                fail_msg("%s = %s: saved run: %s", p->key, text, err);
            if (in_run_ini && !values[k].taken && !strstr(err, "too")) fail_msg("%s = %s: \"%s\"", p->key, text, err);
        }
    }
}

/* An encounter's values: the scene takes the table's range, the one the command line and the
 * presets read, at each edge and a step beyond it; how the orbit's lengths go together is judged
 * before anything opens, on the command line and in a presets file that is named with the preset. */
static void an_encounter_is_judged_by_the_table_before_anything_opens(void **state)
{
    (void)state;
    const ParamId ids[] = {PARAM_MASS_RATIO,       PARAM_SEPARATION,    PARAM_PERICENTRE,   PARAM_ECCENTRICITY,
                           PARAM_PERICENTRE_ANGLE, PARAM_INCLINATION_A, PARAM_INCLINATION_B};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const Param *p = params_get(ids[i]);
        const double step = (p->max - p->min) * 1e-3;
        const struct {
            double v;
            bool taken;
        } values[] = {{p->max, true}, {p->max + step, false}, {p->min, true}, {p->min - step, false}};
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            /* An orbit that starts at its pericentre: every length and eccentricity goes with it. */
            SceneDesc d = {.kind = SCENE_COLLISION, .n = 6, .separation = 1000, .pericentre = 0.001f,
                           .eccentricity = 1};
            float *field = ids[i] == PARAM_MASS_RATIO       ? &d.mass_ratio
                           : ids[i] == PARAM_SEPARATION     ? &d.separation
                           : ids[i] == PARAM_PERICENTRE     ? &d.pericentre
                           : ids[i] == PARAM_ECCENTRICITY   ? &d.eccentricity
                           : ids[i] == PARAM_PERICENTRE_ANGLE ? &d.pericentre_angle
                           : ids[i] == PARAM_INCLINATION_A  ? &d.inclination_a
                                                            : &d.inclination_b;
            if (ids[i] == PARAM_ECCENTRICITY) d.separation = d.pericentre = 1;
            *field = (float)values[k].v;
            char err[256] = "";
            const int rc = scene_check(&d, err, sizeof err);
            if ((rc == 0) != values[k].taken) fail_msg("%s = %g: the scene says %d: %s", p->key, values[k].v, rc, err);
            if (rc != 0 && !strstr(err, p->key)) fail_msg("%s = %g: \"%s\" does not name it", p->key, values[k].v, err);
        }
    }
    char err[512] = "";
    char *argv[] = {"starburst", "--pericentre", "50", NULL};
    AppOptions o;
    app_default_options(&o);
    assert_int_equal(app_parse_args(&o, 3, argv, err, sizeof err), -1);
    assert_non_null(strstr(err, "pericentre = 50 lies beyond the separation"));
    char *kpc[] = {"starburst", "--pericentre", "5kpc", NULL};
    app_default_options(&o);
    if (app_parse_args(&o, 3, kpc, err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(o.scene.pericentre, 5 / scene_units(SCENE_COLLISION).kpc, 1e-6);
    PresetList l;
    assert_int_equal(presets_load(write_file("tight.ini", "[Tight]\neccentricity = 0.1\npericentre = 3\nseparation = 20\n"), &l, err,
                                  sizeof err), -1);
    assert_non_null(strstr(err, "tight.ini: [Tight]: "));
    assert_non_null(strstr(err, "lies beyond the apocentre"));
    if (presets_load(write_file("far.ini", "[Far]\npericentre = 5.2kpc\n"), &l, err, sizeof err) != 0) fail_msg("%s", err);
    assert_float_equal(l.items[0].scene.pericentre, 5.2 / scene_units(SCENE_COLLISION).kpc, 1e-6);
    presets_free(&l);
}

/* A body count below what the scene is built with is refused by the readers, not the scene. */
static void a_scene_gets_at_least_its_bodies(void **state)
{
    (void)state;
    AppOptions o;
    char err[512] = "";
    app_default_options(&o);
    char *one[] = {"starburst", "-n", "1", NULL};
    assert_int_equal(app_parse_args(&o, 3, one, err, sizeof err), -1);
    assert_non_null(strstr(err, "-n 1: the collision scene needs at least 6 bodies"));
    app_default_options(&o);
    char *disk[] = {"starburst", "--scene", "disk", "--bodies", "2", NULL};
    assert_int_equal(app_parse_args(&o, 5, disk, err, sizeof err), -1);
    assert_non_null(strstr(err, "at least 3"));
    app_default_options(&o);
    char *six[] = {"starburst", "-n", "6", NULL};
    assert_int_equal(app_parse_args(&o, 3, six, err, sizeof err), 0);

    PresetList l;
    assert_int_equal(presets_load(write_file("few.ini", "[Few]\nbodies = 3\n"), &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "[Few]: bodies = 3: the collision scene needs at least 6"));
    assert_int_equal(presets_load(write_file("few.ini", "[Few]\nbodies = 1\nscene = shell\n"), &l, err, sizeof err), 0);
    presets_free(&l);
}

static void a_folder_is_no_presets_file(void **state)
{
    (void)state;
    PresetList l;
    char err[512] = "";
    assert_int_equal(presets_load(dir, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "a folder, not a presets file"));
    assert_null(l.items);
}

static void assert_no_control_bytes(const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        if (*u < 0x20 || *u == 0x7f || *u >= 0x80) fail_msg("byte 0x%02x in \"%s\"", *u, s);
}

/* The bytes of a binary file come back escaped in the message that quotes them. */
static void file_bytes_are_never_echoed_raw(void **state)
{
    (void)state;
    static const char *const presets[] = {
        "[A]\ndt = \x1b[2J\x1b[31mred\n",
        "[A]\n\x1b]0;title\x07 = 1\n",
        "[A]\ncolor = \x9b" "31m\n",
        "[A]\nscene = \x01\x02\xff\n",
        "\x1b[5m = 1\n",
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        PresetList l;
        char err[512] = "";
        assert_int_equal(presets_load(write_file("binary.ini", presets[i]), &l, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_no_control_bytes(err);
    }
    char err[512] = "";
    assert_int_equal(saved_run("dt", "\x1b[2J", err, sizeof err), -1);
    assert_no_control_bytes(err);
    assert_non_null(strstr(err, "'\\e[2J'"));
    assert_int_equal(saved_run("\x1b[2J", "1", err, sizeof err), -1);
    assert_no_control_bytes(err);
    assert_int_equal(saved_run("force", "\x1b[2J", err, sizeof err), -1);
    assert_no_control_bytes(err);

    AppOptions o;
    app_default_options(&o);
    char *argv[] = {"starburst", "--scene", "\x1b[2J", NULL};
    assert_int_equal(app_parse_args(&o, 3, argv, err, sizeof err), -1);
    assert_no_control_bytes(err);
    char *unknown[] = {"starburst", "--\x1b[2J", NULL};
    assert_int_equal(app_parse_args(&o, 2, unknown, err, sizeof err), -1);
    assert_no_control_bytes(err);
}

/* Positions of 3e38 are finite floats, but their squared distances are not: the run would be
 * inf and NaN from its first step. */
static void numbers_that_overflow_a_run_are_refused(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    char err[512] = "", path[512];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_PLUMMER, .n = 16}, &b, &info, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/huge.tipsy", dir);
    for (int what = 0; what < 2; what++) {
        float *x = what == 0 ? b.pos : b.vel;
        const float keep = x[4 * 5 + 1];
        x[4 * 5 + 1] = 3e38f;
        assert_int_equal(tipsy_write(path, &b, 0, err, sizeof err), 0);
        x[4 * 5 + 1] = keep;
        Bodies back;
        double time;
        assert_int_equal(tipsy_read(path, &back, &time, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, what == 0 ? "a position beyond 1e18" : "a velocity beyond 1e18"));
        SavedRun r;
        assert_int_equal(state_load(path, &back, &r, err, sizeof err), -1);
        assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_TIPSY, .tipsy_path = path}, &back, &info, err,
                                     sizeof err),
                         -1);
        assert_non_null(strstr(err, "beyond 1e18"));
    }
    /* Large but within reach: read. */
    b.pos[4 * 5 + 1] = 1e17f;
    assert_int_equal(tipsy_write(path, &b, 0, err, sizeof err), 0);
    Bodies back;
    double time;
    assert_int_equal(tipsy_read(path, &back, &time, err, sizeof err), 0);
    bodies_free(&back);
    bodies_free(&b);
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

/* Every key of the README's table is in --help's list of keys; --help gives each range of the
 * table and the presets file the program really looks for. */
static void help_lists_every_key_and_range(void **state)
{
    (void)state;
    char *help = help_text();
    char *keys = strstr(help, "Keys:");
    assert_non_null(keys);
    /* One line of words, each between spaces: the list wraps over several lines. */
    char flat[2048] = " ";
    size_t at = 1;
    for (const char *s = keys; *s && at + 2 < sizeof flat; s++) {
        const char c = *s == '\n' || *s == ',' ? ' ' : *s;
        if (c != ' ' || flat[at - 1] != ' ') flat[at++] = c;
    }
    flat[at++] = ' ';
    flat[at] = '\0';

    char readme_path[1024];
    snprintf(readme_path, sizeof readme_path, "%s/README.md", STARBURST_SOURCE_DIR);
    long size;
    char *readme = read_file(readme_path, &size);
    assert_non_null(readme);
    const char *table = strstr(readme, "| input | does |");
    assert_non_null(table);
    int checked = 0;
    for (const char *line = strchr(table, '\n') + 1; line[0] == '|'; line = strchr(line, '\n') + 1) {
        char cell[64];
        if (sscanf(line, "| %63[^|]|", cell) != 1 || strstr(cell, "drag") || strstr(cell, "wheel") || cell[0] == '-')
            continue;
        for (size_t n = strlen(cell); n > 0 && cell[n - 1] == ' '; n--) cell[n - 1] = '\0';
        char *and = strstr(cell, " and ");
        if (and) memmove(and + 1, and + 5, strlen(and + 5) + 1); /* "[ and ]" is "[ ]" in --help */
        char word[80];
        snprintf(word, sizeof word, " %s ", cell);
        if (!strstr(flat, word)) fail_msg("the README's key '%s' is not in --help's keys: %s", cell, flat);
        checked++;
    }
    assert_true(checked >= 20);

    for (int i = 0; i < PARAM_COUNT; i++) {
        char range[160];
        if (!params_get((ParamId)i)->option) continue; /* a presets key alone */
        params_help_text((ParamId)i, range, sizeof range);
        if (!strstr(help, range)) fail_msg("--help does not give %s's range: %s", params_get((ParamId)i)->key, range);
    }
    assert_null(strstr(help, "(default: assets/presets.ini)"));
    assert_non_null(strstr(help, "build/../assets"));
    free(readme);
    free(help);
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

/* The README's table of parameters says what the table says. */
static void readme_gives_the_tables_ranges(void **state)
{
    (void)state;
    char readme_path[1024];
    snprintf(readme_path, sizeof readme_path, "%s/README.md", STARBURST_SOURCE_DIR);
    long size;
    char *readme = read_file(readme_path, &size);
    assert_non_null(readme);
    for (int i = 0; i < PARAM_COUNT; i++) {
        const Param *p = params_get((ParamId)i);
        char option[64], key[64], range[96];
        /* A presets key alone has no option: "| — | `separation` |". */
        if (p->option) snprintf(option, sizeof option, "\n| `%s` |", p->option);
        else snprintf(option, sizeof option, "\n| — | `%s` |", p->key);
        snprintf(key, sizeof key, "`%s`", p->key);
        params_range_text((ParamId)i, range, sizeof range);
        const char *row = strstr(readme, option);
        const char *end = row ? strchr(row + 1, '\n') : NULL;
        if (!row || !end) fail_msg("README: no row for %s", p->key);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(end - row - 1), row + 1);
        if (!strstr(line, key) || !strstr(line, range)) fail_msg("README: %s's row \"%s\" lacks %s or %s", p->key,
                                                                 line, key, range);
    }
    free(readme);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_reader_takes_the_same_range),
        cmocka_unit_test(an_encounter_is_judged_by_the_table_before_anything_opens),
        cmocka_unit_test(a_scene_gets_at_least_its_bodies),
        cmocka_unit_test(a_folder_is_no_presets_file),
        cmocka_unit_test(file_bytes_are_never_echoed_raw),
        cmocka_unit_test(numbers_that_overflow_a_run_are_refused),
        cmocka_unit_test(help_lists_every_key_and_range),
        cmocka_unit_test(help_lists_every_option),
        cmocka_unit_test(readme_gives_the_tables_ranges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
