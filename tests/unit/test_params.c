/* The table of parameters: every range is one a run can take, every default lies in its range,
 * a value is read and refused with one line naming it, its value and its range, and what is
 * shown of a value never puts a control byte on the terminal. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tree_geometry.h"
#include "util/params.h"

static void every_default_lies_in_its_range(void **state)
{
    (void)state;
    for (int i = 0; i < PARAM_COUNT; i++) {
        const Param *p = params_get((ParamId)i);
        assert_non_null(p);
        assert_true(p->min < p->max);
        if (!params_in_range((ParamId)i, p->fallback)) fail_msg("%s: default %g outside its range", p->key, p->fallback);
        assert_int_equal(params_find(p->key), i);
        if (p->option) assert_int_equal(strncmp(p->option, "--", 2), 0); /* else a presets key alone */
        assert_non_null(p->unit);
    }
    assert_int_equal(params_find("warp"), -1);
    assert_null(params_get(PARAM_COUNT));
}

/* The opening angle's default is the table's, 0.4, the one both trees are measured at: a zero
 * theta resolves to it, any other stays. */
static void theta_resolves_to_the_tables_default(void **state)
{
    (void)state;
    assert_true(params_theta(0) == 0.4f);
    assert_true(params_theta(0) == (float)params_get(PARAM_THETA)->fallback);
    assert_true(params_theta(-1) == params_theta(0));
    assert_true(params_theta(0.7f) == 0.7f);
}

/* The tree's error-based test: the table's default is the trees' own alpha (kernels/tree_geometry.h),
 * a negative alpha resolves to it, 0 (by the angle) and any other stay. */
static void alpha_resolves_to_the_trees_default(void **state)
{
    (void)state;
    assert_true(params_alpha(-1) == NBODY_TREE_REL_ALPHA);
    assert_true(params_alpha(-1) == (float)params_get(PARAM_ALPHA)->fallback);
    assert_true(params_alpha(0) == 0);
    assert_true(params_alpha(2e-3f) == 2e-3f);
    assert_true(params_in_range(PARAM_ALPHA, 0) && params_in_range(PARAM_ALPHA, 0.01));
    assert_false(params_in_range(PARAM_ALPHA, -1e-9) || params_in_range(PARAM_ALPHA, 0.0101));
    /* As a source gives it: its alpha, else 0 (by the angle) beside a theta given alone, else none. */
    assert_true(params_alpha_given(2e-3f, 0.5f) == 2e-3f && params_alpha_given(0, 0) == 0);
    assert_true(params_alpha_given(-1, 0.5f) == 0 && params_alpha_given(-1, 0) < 0);
}

static void values_in_range_are_read(void **state)
{
    (void)state;
    static const struct {
        ParamId id;
        const char *text;
        double value;
    } cases[] = {
        {PARAM_DT, "0.01", 0.01},          {PARAM_DT, "10", 10},           {PARAM_SOFTENING, "0", 0},
        {PARAM_DAMPING, "1", 1},           {PARAM_THETA, "0.05", 0.05},    {PARAM_THETA, "1.5", 1.5},
        {PARAM_MASS_RATIO, "0.05", 0.05},  {PARAM_MASS_RATIO, "20", 20},   {PARAM_BODIES, "67108864", 67108864},
        {PARAM_BODIES, "+6", 6},           {PARAM_BODIES, "1e3", 1000},           {PARAM_STEPS_PER_FRAME, "1", 1}, {PARAM_EXPOSURE, "1000", 1000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1;
        char err[256] = "";
        if (params_parse(cases[i].id, "x", cases[i].text, &v, err, sizeof err) != 0)
            fail_msg("%s: %s", cases[i].text, err);
        assert_true(v == cases[i].value);
    }
}

/* Each refusal says what is wrong in words: too large, too small, not whole, not a number. */
static void values_out_of_range_say_why(void **state)
{
    (void)state;
    static const struct {
        ParamId id;
        const char *label, *text, *says, *range;
    } cases[] = {
        {PARAM_BODIES, "-n", "99999999999999999999", "is too large", "1 to 67108864"},
        {PARAM_BODIES, "-n", "67108865", "is too large", "1 to 67108864"},
        {PARAM_BODIES, "-n", "0", "is too small", "1 to 67108864"},
        {PARAM_BODIES, "-n", "-99999999999999999999", "is too small", "1 to 67108864"},
        {PARAM_BODIES, "bodies", "1.5", "is not a whole number", "1 to 67108864"},
        {PARAM_BODIES, "bodies", "0x10", "is not a whole number", "1 to 67108864"},
        {PARAM_DT, "--dt", "1e30", "is too large", "more than 0, at most 10 (model time units)"},
        {PARAM_DT, "--dt", "1e400", "is too large", "more than 0, at most 10"},
        {PARAM_DT, "--dt", "-1e400", "is too small", "more than 0, at most 10"},
        {PARAM_DT, "dt", "0", "is too small", "more than 0, at most 10"},
        {PARAM_DT, "dt", "nan", "is not a finite number", "more than 0"},
        {PARAM_DT, "dt", "fast", "is not a number", "more than 0"},
        {PARAM_DT, "dt", "", "is not a number", "more than 0"},
        {PARAM_DAMPING, "damping", "1.01", "is too large", "more than 0, at most 1"},
        {PARAM_THETA, "--theta", "0.01", "is too small", "0.05 to 1.5"},
        {PARAM_MASS_RATIO, "--mass-ratio", "100", "is too large", "0.05 to 20"},
        {PARAM_STEPS_PER_FRAME, "steps_per_frame", "2000", "is too large", "1 to 1024"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = 12345;
        char err[256] = "";
        assert_int_equal(params_parse(cases[i].id, cases[i].label, cases[i].text, &v, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_true(v == 12345);
        assert_int_equal(strncmp(err, cases[i].label, strlen(cases[i].label)), 0);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", cases[i].text);
        if (!strstr(err, quoted) || !strstr(err, cases[i].says) || !strstr(err, cases[i].range))
            fail_msg("%s %s: \"%s\" lacks %s, %s or %s", cases[i].label, cases[i].text, err, quoted, cases[i].says,
                     cases[i].range);
        assert_null(strchr(err, '\n'));
    }
    /* An option is followed by a colon, a key by " = ", as each is written. */
    char err[256];
    double v;
    params_parse(PARAM_DT, "--dt", "20", &v, err, sizeof err);
    assert_non_null(strstr(err, "--dt: '20' is too large"));
    params_parse(PARAM_DT, "dt", "20", &v, err, sizeof err);
    assert_non_null(strstr(err, "dt = '20' is too large"));
}

static void a_value_is_checked_against_the_same_range(void **state)
{
    (void)state;
    char err[256] = "";
    assert_int_equal(params_check(PARAM_MASS_RATIO, 1, err, sizeof err), 0);
    assert_int_equal(params_check(PARAM_MASS_RATIO, 100, err, sizeof err), -1);
    assert_non_null(strstr(err, "mass_ratio = 100 is too large"));
    assert_non_null(strstr(err, "0.05 to 20"));
    assert_int_equal(params_check(PARAM_DT, INFINITY, err, sizeof err), -1);
    assert_non_null(strstr(err, "dt = inf is not a finite number"));
    assert_int_equal(params_check(PARAM_BODIES, 2.5, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a whole number"));
    assert_false(params_in_range(PARAM_DAMPING, 0));
    assert_true(params_in_range(PARAM_SOFTENING, 0));
}

static void help_gives_range_and_default(void **state)
{
    (void)state;
    char buf[160];
    params_help_text(PARAM_THETA, buf, sizeof buf);
    assert_string_equal(buf, "0.05 to 1.5; default 0.4");
    params_help_text(PARAM_DT, buf, sizeof buf);
    assert_string_equal(buf, "more than 0, at most 10; default the scene's");
    params_range_text(PARAM_BODIES, buf, sizeof buf);
    assert_string_equal(buf, "1 to 67108864");
}

/* No byte below 0x20, DEL or C1 control comes back, nor a byte that is no UTF-8 character. */
static void assert_printable(const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        if (*u < 0x20 || *u == 0x7f || (*u == 0xc2 && u[1] >= 0x80 && u[1] < 0xa0) || *u == 0xff)
            fail_msg("byte 0x%02x at %d in \"%s\"", *u, (int)(u - (const unsigned char *)s), s);
}

static void quoting_escapes_what_a_terminal_would_act_on(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain 0.5", "plain 0.5"},
        {"\x1b[2J\x1b[31mred", "\\e[2J\\e[31mred"},
        {"a\nb\tc\rd", "a\\nb\\tc\\rd"},
        {"\x01\x7f", "\\x01\\x7f"},
        {"back\\slash", "back\\\\slash"},
        {"galaxy \xc3\xa9t\xc3\xa9 \xe2\x98\x85", "galaxy \xc3\xa9t\xc3\xa9 \xe2\x98\x85"}, /* UTF-8 text stays */
        {"\xc2\x9b" "31m", "\\xc2\\x9b31m"},   /* C1 CSI, written as UTF-8 */
        {"\x9b" "31m", "\\x9b31m"},            /* C1 CSI as one byte */
        {"\xff\xfe", "\\xff\\xfe"},
        {"\xe2\x98", "\\xe2\\x98"},            /* a character cut short */
        {"\xc0\xaf", "\\xc0\\xaf"},            /* an overlong '/' */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        params_quote(cases[i].in, buf, sizeof buf);
        assert_string_equal(buf, cases[i].out);
        assert_printable(buf);
    }
    /* Too long: cut, marked with "...", still within the buffer. */
    char small[12];
    params_quote("0123456789abcdef", small, sizeof small);
    assert_string_equal(small, "01234567...");
    params_quote("\x1b\x1b\x1b\x1b\x1b\x1b", small, sizeof small);
    assert_string_equal(small, "\\e\\e\\e\\e...");
    params_quote("0123456789a", small, sizeof small);
    assert_string_equal(small, "0123456789a");
}

/* A value nearer 0 than a float holds would be kept as 0, "not given", and run at the default: it
 * is refused as out of range, with or without a unit; a number in hexadecimal is refused in a
 * quantity as in a whole number. Each through the table's reader and an option's. */
static void underflow_and_hexadecimal_are_refused(void **state)
{
    (void)state;
    const Units mw = units_from(UNITS_MW_DISK_SCALE_KPC, 300);
    const OptionSpec span = {.kind = OPTION_NUMBER, .min = 0, .min_open = true, .max = 1e12, .dim = UNIT_TIME};
    const struct {
        const char *text, *why;
    } refused[] = {
        {"1e-50", "is too near 0 to hold"},   {"1e-320", "is too near 0 to hold"},
        {"1e-300Myr", "is too near 0 to hold"}, {"1e-400", "is too"},
        {"0x10Myr", "is not a decimal number"}, {"0x10", "is not a decimal number"},
        {"0x1p-3", "is not a decimal number"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char err[256] = "";
        double v = -1;
        if (params_parse_in(PARAM_DT, &mw, "--dt", refused[i].text, &v, err, sizeof err) != -1)
            fail_msg("--dt %s taken as %g", refused[i].text, v);
        if (!strstr(err, "--dt: '") || !strstr(err, refused[i].why) || !strstr(err, "expected more than 0"))
            fail_msg("--dt %s: %s", refused[i].text, err);
        OptionValue o;
        if (option_read(&span, &mw, "--span", refused[i].text, &o, err, sizeof err) != -1)
            fail_msg("--span %s taken as %g", refused[i].text, o.number);
        if (!strstr(err, "--span: '") || !strstr(err, refused[i].why)) fail_msg("--span %s: %s", refused[i].text, err);
    }
    /* A softening may be 0, but not a value that would turn into it. */
    char err[256];
    double v;
    assert_int_equal(params_parse_in(PARAM_SOFTENING, &mw, "--softening", "1e-40", &v, err, sizeof err), -1);
    assert_int_equal(params_parse_in(PARAM_SOFTENING, &mw, "--softening", "0", &v, err, sizeof err), 0);
    assert_true(v == 0);
    assert_int_equal(params_check(PARAM_DT, 1e-50, err, sizeof err), -1);
    assert_non_null(strstr(err, "dt = 1e-50 is too near 0 to hold"));
    /* The smallest values a float holds are taken, in model units and with a unit. */
    assert_int_equal(params_parse_in(PARAM_DT, &mw, "--dt", "1e-30", &v, err, sizeof err), 0);
    assert_true(v == 1e-30);
    assert_int_equal(params_parse_in(PARAM_DT, &mw, "--dt", "1e-20Myr", &v, err, sizeof err), 0);
    assert_true(v > 0 && (float)v > 0);
}

/* A value typed into the panel: brought into the table's range and said, never refused for its
 * size; a unit read as the command line reads it; what is no number is refused and changes nothing. */
static void typed_values_fit_the_range(void **state)
{
    (void)state;
    static const OptionSpec steps = {.kind = OPTION_PARAM, .param = PARAM_STEPS_PER_FRAME},
                     point = {.kind = OPTION_PARAM, .param = PARAM_POINT_SIZE},
                     exposure = {.kind = OPTION_PARAM, .param = PARAM_EXPOSURE},
                     softening = {.kind = OPTION_PARAM, .param = PARAM_SOFTENING},
                     dt = {.kind = OPTION_PARAM, .param = PARAM_DT},
                     /* the cycle's seconds, as --cycle takes them */
                     cycle = {.kind = OPTION_NUMBER, .min = 1, .max = 3600, .unit = "seconds"};
    static const struct {
        const OptionSpec *spec;
        const char *name, *text;
        double least, want;
        int rc;
        const char *says;
    } cases[] = {
        {&steps, "steps/frame", "-3", 1, 1, 1, "steps/frame -3 is below the range 1 to 1024: set to 1"},
        {&steps, "steps/frame", "0", 1, 1, 1, "is below the range 1 to 1024: set to 1"},
        {&steps, "steps/frame", "5000", 1, 1024, 1, "steps/frame 5000 is above the range 1 to 1024: set to 1024"},
        {&steps, "steps/frame", "2.6", 1, 3, 1, "steps/frame 2.6 is not a whole number: set to 3"},
        {&steps, "steps/frame", "1e999", 1, 1024, 1, "is above the range"},
        {&steps, "steps/frame", "17", 1, 17, 0, ""},
        {&point, "point size", "0", 0.25, 0.25, 1, "point size 0 is below the range more than 0, at most 64: set to 0.25"},
        {&point, "point size", "-2", 0.25, 0.25, 1, "is below the range"},
        {&point, "point size", "100", 0.25, 64, 1, "point size 100 is above the range more than 0, at most 64: set to 64"},
        {&exposure, "exposure", "0", 0.05, 0.05, 1, "set to 0.05"},
        {&exposure, "exposure", "1e6", 0.05, 1000, 1, "exposure 1e6 is above the range more than 0, at most 1000: set to 1000"},
        {&cycle, "cycle seconds", "0", 5, 1, 1, "cycle seconds 0 is below the range 1 to 3600: set to 1"},
        {&cycle, "cycle seconds", "99999", 5, 3600, 1, "cycle seconds 99999 is above the range 1 to 3600: set to 3600"},
        {&dt, "dt", "1e-50", 1e-5, 1e-5, 1, "is below the range"},
        {&softening, "softening", "-1", 1e-4, 0, 1, "set to 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -99;
        char note[400];
        const int rc = option_fit(cases[i].spec, NULL, cases[i].name, cases[i].text, cases[i].least, &v, note, sizeof note);
        print_message("%s -> %g: %s\n", cases[i].text, v, note);
        assert_int_equal(rc, cases[i].rc);
        assert_true(fabs(v - cases[i].want) <= 1e-12 * fabs(cases[i].want));
        assert_non_null(strstr(note, cases[i].says));
        assert_true(v == option_fit_value(cases[i].spec, strtod(cases[i].text, NULL), cases[i].least));
    }
    /* Units as the command line takes them, on the run's scale: 200 pc of a 2.6 kpc model length. */
    const Units disk = units_from(2.6, 300);
    double v = -1, cli;
    char note[400], err[256];
    assert_int_equal(option_fit(&softening, &disk, "softening", "200pc", 1e-4, &v, note, sizeof note), 0);
    assert_int_equal(params_parse_in(PARAM_SOFTENING, &disk, "--softening", "200pc", &cli, err, sizeof err), 0);
    assert_true(v == cli && fabs(v - 0.2 / 2.6) < 1e-9);
    assert_non_null(strstr(note, "softening 200pc = 0.0769231 model length units"));
    assert_int_equal(option_fit(&dt, &disk, "dt", "0.2Myr", 1e-5, &v, note, sizeof note), 0);
    assert_int_equal(params_parse_in(PARAM_DT, &disk, "--dt", "0.2Myr", &cli, err, sizeof err), 0);
    assert_true(v == cli);
    /* A length beyond the range with its unit: the model value it came to, and the end it was set to. */
    assert_int_equal(option_fit(&softening, &disk, "softening", "1000kpc", 1e-4, &v, note, sizeof note), 1);
    assert_true(v == 100);
    assert_non_null(strstr(note, "softening 1000kpc (100 model length units) is above the range 0 to 100: set to 100"));
    /* Junk: refused with why, the value untouched. */
    static const struct {
        const OptionSpec *spec;
        const char *text, *says;
    } junk[] = {
        {&steps, "abc", "steps/frame = 'abc' is not a whole number: expected 1 to 1024"},
        {&steps, "", "is not a whole number"},
        {&point, "2x", "is not a number"},
        {&exposure, "nan", "is not a finite number"},
        {&exposure, "0x10", "is not a decimal number"},
        {&softening, "200ly", "unit"},
        {&cycle, "12s", "is not a number"},
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        v = -99;
        assert_int_equal(option_fit(junk[i].spec, &disk, "steps/frame", junk[i].text, 1, &v, note, sizeof note), -1);
        print_message("'%s': %s\n", junk[i].text, note);
        assert_true(v == -99);
        assert_non_null(strstr(note, junk[i].says));
    }
    /* No unit where the run has no scale. */
    assert_int_equal(option_fit(&softening, NULL, "softening", "200pc", 1e-4, &v, note, sizeof note), -1);
}

/* util/ is the ground floor: params.c includes nothing of ours outside util/. */
static void params_include_nothing_outside_util(void **state)
{
    (void)state;
    FILE *f = fopen(STARBURST_SOURCE_DIR "/src/util/params.c", "r");
    assert_non_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (strncmp(line, "#include \"", 10) == 0 && strncmp(line + 10, "util/", 5) != 0)
            fail_msg("src/util/params.c:%d includes %s", n, line + 9);
    }
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_default_lies_in_its_range),
        cmocka_unit_test(theta_resolves_to_the_tables_default),
        cmocka_unit_test(alpha_resolves_to_the_trees_default),
        cmocka_unit_test(values_in_range_are_read),
        cmocka_unit_test(values_out_of_range_say_why),
        cmocka_unit_test(a_value_is_checked_against_the_same_range),
        cmocka_unit_test(help_gives_range_and_default),
        cmocka_unit_test(quoting_escapes_what_a_terminal_would_act_on),
        cmocka_unit_test(underflow_and_hexadecimal_are_refused),
        cmocka_unit_test(typed_values_fit_the_range),
        cmocka_unit_test(params_include_nothing_outside_util),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
