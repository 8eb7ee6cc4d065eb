#include "util/params.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dt up to 10 and softening up to 100 model units, as the command line has always taken; the mass
 * ratios the collision scenes build (0.05 to 20); 2^26 bodies, what a scene and a TIPSY file hold.
 * A fallback is the value used where nothing else gives one (a TIPSY file loaded without its .ini
 * runs at dt 0.01); default_text says so where the default depends on the run.
 *
 * Theta's 0.4 is the one default opening angle of both trees (the kernels take theta from their
 * caller). A cell is opened when d < l / theta + delta with l its side, stricter than a
 * radius-based theta: at 0.4 the relative force error against f64 has a median of 4e-5 to 8e-5 and
 * a 99th percentile below 3e-4 on the Plummer, collision, galaxy_20K and clustered tests; at 0.5
 * the median is 1.0e-4 to 1.8e-4 (tests/unit/test_tree.c, tests/gpu/test_cuda_tree.c; docs/TREE.md).
 *
 * Alpha's 5e-4 opens the tree by estimated error (the kernels take alpha from their caller;
 * kernels/tree_geometry.h's NBODY_TREE_REL_ALPHA is the same figure, test_params checks the two
 * agree): more exact than theta 0.4 and fewer terms a body from 131,072 bodies up; 0 opens it by
 * theta. util/ includes nothing of ours outside util/. */
static const Param table[PARAM_COUNT] = {
    [PARAM_DT] = {"dt", "--dt", "model time units", 0, 10, true, false, 0.01, "the scene's", UNIT_TIME},
    [PARAM_SOFTENING] = {"softening", "--softening", "model length units", 0, 100, false, false, 0,
                         "the scene's", UNIT_LENGTH},
    [PARAM_DAMPING] = {"damping", "--damping", "velocity factor per step", 0, 1, true, false, 1, "1, off"},
    [PARAM_THETA] = {"theta", "--theta", "cell size / distance", 0.05, 1.5, false, false, 0.4, NULL},
    [PARAM_ALPHA] = {"alpha", "--alpha", "of the smallest |a| a cell's error may be", 0, 0.01, false, false,
                     5e-4, "5e-4; 0: by the angle theta"},
    [PARAM_MASS_RATIO] = {"mass_ratio", "--mass-ratio", "mass of galaxy B / galaxy A", 0.05, 20, false, false, 1,
                          NULL},
    [PARAM_BODIES] = {"bodies", "--bodies", "", 1, 64 * 1024 * 1024, false, true, 131072,
                      "131072, 25,000 of them stars; 16384 on the CPU"},
    [PARAM_STEPS_PER_FRAME] = {"steps_per_frame", "--steps-per-frame", "", 1, 1024, false, true, 4,
                               "4 on CUDA, 1 on the CPU"},
    [PARAM_POINT_SIZE] = {"point_size", "--point-size", "", 0, 64, true, false, 1, NULL},
    [PARAM_EXPOSURE] = {"exposure", "--exposure", "", 0, 1000, true, false, 1, NULL},
    /* An encounter's lengths are in galaxy A's disk scale lengths; the pericentre lies within the
     * separation the pair starts at (scene_check). */
    [PARAM_SEPARATION] = {"separation", NULL, "disk scale lengths", 0.5, 1000, false, false, 16,
                          "the halos' edges 2 disk scale lengths apart, or a bound orbit's apocentre where nearer",
                          UNIT_LENGTH},
    [PARAM_PERICENTRE] = {"pericentre", "--pericentre", "disk scale lengths", 0.001, 1000, false, false, 3, NULL,
                          UNIT_LENGTH},
    [PARAM_ECCENTRICITY] = {"eccentricity", NULL, "", 0.05, 20, false, false, 1, "1, a parabola"},
    [PARAM_PERICENTRE_ANGLE] = {"pericentre_angle", NULL, "degrees", -360, 360, false, false, 0, NULL},
    [PARAM_INCLINATION_A] = {"inclination_a", "--inclination-a", "degrees", -180, 180, false, false, 0, NULL},
    [PARAM_INCLINATION_B] = {"inclination_b", "--inclination-b", "degrees", -180, 180, false, false, 60, NULL},
};

const Param *params_get(ParamId id) { return id >= 0 && id < PARAM_COUNT ? &table[id] : NULL; }

int params_find(const char *key)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        if (strcmp(table[i].key, key) == 0) return i;
    return -1;
}

static bool too_small(const Param *p, double v) { return v < p->min || (p->min_open && v == p->min); }

bool params_in_range(ParamId id, double v)
{
    const Param *p = params_get(id);
    return p && isfinite(v) && (v == 0 || fabs(v) >= FLT_MIN) && !too_small(p, v) && v <= p->max &&
           (!p->whole || v == floor(v));
}

static void range_words(const Param *p, char *buf, size_t len)
{
    if (p->min_open) snprintf(buf, len, "more than %.10g, at most %.10g", p->min, p->max);
    else snprintf(buf, len, "%.10g to %.10g", p->min, p->max);
}

void params_range_text(ParamId id, char *buf, size_t len)
{
    const Param *p = params_get(id);
    if (p) range_words(p, buf, len);
    else snprintf(buf, len, "?");
}

void params_help_text(ParamId id, char *buf, size_t len)
{
    const Param *p = params_get(id);
    char range[96];
    params_range_text(id, range, sizeof range);
    if (!p) snprintf(buf, len, "?");
    else if (p->default_text) snprintf(buf, len, "%s; default %s", range, p->default_text);
    else snprintf(buf, len, "%s; default %g", range, p->fallback); /* a float default reads as written */
}

/* "is too large: expected more than 0, at most 10 (model time units)" */
static void verdict(const Param *p, const char *what, char *buf, size_t len)
{
    char range[96];
    range_words(p, range, sizeof range);
    snprintf(buf, len, "%s: expected %s%s%s%s", what, range, p->unit[0] ? " (" : "", p->unit, p->unit[0] ? ")" : "");
}

int params_check(ParamId id, double v, char *err, size_t errlen)
{
    const Param *p = params_get(id);
    if (!p) {
        snprintf(err, errlen, "unknown parameter %d", (int)id);
        return -1;
    }
    if (params_in_range(id, v)) return 0;
    const char *what = !isfinite(v)                       ? "is not a finite number"
                       : v != 0 && fabs(v) < FLT_MIN      ? "is too near 0 to hold"
                       : too_small(p, v)                  ? "is too small"
                       : v > p->max           ? "is too large"
                                              : "is not a whole number";
    char why[192];
    verdict(p, what, why, sizeof why);
    snprintf(err, errlen, "%s = %.10g %s", p->key, v, why);
    return -1;
}

/* The number strtod read from s to end is written in decimal: "12", "-3", "1e6", not "0x10" (strtod
 * reads hexadecimal too). */
static bool decimal(const char *s, const char *end)
{
    for (; s < end; s++)
        if (strchr("xXpP", *s)) return false;
    return true;
}

int params_parse(ParamId id, const char *label, const char *text, double *out, char *err, size_t errlen)
{
    return params_parse_in(id, NULL, label, text, out, err, errlen);
}

/* "--dt: '20' is ..." for an option, "dt = '20' is ..." for a key. */
int option_refuse(const char *label, const char *text, const char *why, char *err, size_t errlen)
{
    char quoted[96];
    params_quote(text, quoted, sizeof quoted);
    snprintf(err, errlen, "%s%s'%s' %s", label, label[0] == '-' ? ": " : " = ", quoted, why);
    return -1;
}

/* text as a number, or with a unit of p's dimension converted with u: 0 with *out (infinite where
 * it overflows), or -1 with what is wrong in err. */
static int parse_value(const Param *p, const Units *u, const char *label, const char *text, double *out,
                       bool *had_unit, bool *underflow, char *err, size_t errlen)
{
    *had_unit = false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    const bool overflow = errno == ERANGE && fabs(v) > 1;
    *underflow = errno == ERANGE && !overflow;
    const bool hex = !decimal(text, end);
    const char *what = NULL;
    char why_unit[160];
    /* A number with a unit after it: the unit's reading, or what is wrong with it. */
    if (end != text && *end != '\0' && p->dim != UNIT_NONE && isfinite(v) && !hex) {
        if (units_parse(text, p->dim, u, &v, had_unit, why_unit, sizeof why_unit) != 0)
            return option_refuse(label, text, why_unit, err, errlen);
        end = (char *)text + strlen(text);
    }
    if (hex) what = p->whole ? "is not a whole number" : "is not a decimal number";
    else if (end == text || *end != '\0') what = p->whole ? "is not a whole number" : "is not a number";
    else if (isnan(v)) what = "is not a finite number";
    if (what) {
        char why[192];
        verdict(p, what, why, sizeof why);
        return option_refuse(label, text, why, err, errlen);
    }
    *out = overflow ? copysign(INFINITY, v) : v;
    return 0;
}

/* text as a number in p's range, or with a unit of p's dimension converted with u. A value nearer 0
 * than a float holds would be kept as 0, which the options read as "not given": it is refused as
 * out of range, as one past the other end is. */
static int read_number(const Param *p, const Units *u, const char *label, const char *text, double *out,
                       bool *had_unit, char *err, size_t errlen)
{
    double v;
    bool underflow;
    if (parse_value(p, u, label, text, &v, had_unit, &underflow, err, errlen) != 0) return -1;
    const char *what = NULL;
    if (isinf(v)) what = v > 0 ? "is too large" : "is too small";
    else if (underflow || (v != 0 && fabs(v) < FLT_MIN)) what = "is too near 0 to hold";
    else if (too_small(p, v)) what = "is too small";
    else if (v > p->max) what = "is too large";
    else if (p->whole && v != floor(v)) what = "is not a whole number";
    if (!what) {
        *out = v;
        return 0;
    }
    char why[192];
    verdict(p, what, why, sizeof why);
    return option_refuse(label, text, why, err, errlen);
}

int params_parse_in(ParamId id, const Units *u, const char *label, const char *text, double *out, char *err,
                    size_t errlen)
{
    const Param *p = params_get(id);
    if (!p) {
        snprintf(err, errlen, "unknown parameter %d", (int)id);
        return -1;
    }
    bool had_unit;
    return read_number(p, u, label, text, out, &had_unit, err, errlen);
}

/* The range of a number that is no parameter of the table, in the table's terms. */
static Param spec_range(const OptionSpec *s)
{
    return (Param){.key = "", .option = "", .unit = s->unit ? s->unit : "", .min = s->min, .max = s->max,
                   .min_open = s->min_open, .whole = s->whole, .dim = s->dim};
}

static bool power_of_two(double v) { return v >= 1 && v <= 1e15 && ((long long)v & ((long long)v - 1)) == 0; }

/* "collision, disk, plummer, shell, random" */
static void choice_names(const OptionSpec *s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = s->first; i < s->end && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i > s->first ? ", " : "", s->name_of(i));
}

static int read_seed(const char *label, const char *text, OptionValue *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    const unsigned long long n = strtoull(text, &end, 10);
    if (end == text || *end || errno == ERANGE || strchr(text, '-'))
        return option_refuse(label, text, "is not a whole number >= 0", err, errlen);
    v->seed = n;
    return 0;
}

static int read_choice(const OptionSpec *s, const char *label, const char *text, OptionValue *v, char *err,
                       size_t errlen)
{
    for (int i = s->first; i < s->end; i++)
        if (strcmp(text, s->name_of(i)) == 0) {
            v->number = i;
            return 0;
        }
    char names[256], why[320];
    choice_names(s, names, sizeof names);
    if (s->noun) snprintf(why, sizeof why, "is not a %s: %s", s->noun, names);
    else snprintf(why, sizeof why, "is not one of %s", names);
    return option_refuse(label, text, why, err, errlen);
}

static int read_size(const OptionSpec *s, const char *label, const char *text, OptionValue *v, char *err,
                     size_t errlen)
{
    int w, h;
    char tail;
    if (sscanf(text, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > s->max || h > s->max) {
        char why[96];
        snprintf(why, sizeof why, "is not a size like 1920x1080 (1 to %.10g each)", s->max);
        return option_refuse(label, text, why, err, errlen);
    }
    v->number = w;
    v->height = h;
    return 0;
}

int option_read(const OptionSpec *s, const Units *u, const char *label, const char *text, OptionValue *out,
                char *err, size_t errlen)
{
    OptionValue v = {.text = text};
    int rc = 0;
    switch (s->kind) {
    case OPTION_HEADING:
    case OPTION_HELP: break;
    case OPTION_FLAG:
        v.number = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
        if (!v.number && strcmp(text, "false") != 0 && strcmp(text, "0") != 0)
            rc = option_refuse(label, text, "is not true or false", err, errlen);
        break;
    case OPTION_PARAM: {
        const Param *p = params_get(s->param);
        if (!p) {
            snprintf(err, errlen, "%s: unknown parameter %d", label, (int)s->param);
            return -1;
        }
        rc = read_number(p, u, label, text, &v.number, &v.had_unit, err, errlen);
        break;
    }
    case OPTION_NUMBER: {
        const Param range = spec_range(s);
        rc = read_number(&range, u, label, text, &v.number, &v.had_unit, err, errlen);
        if (rc == 0 && s->power_of_two && !power_of_two(v.number)) {
            char words[96], why[128];
            range_words(&range, words, sizeof words);
            snprintf(why, sizeof why, "is not a power of two from %s", words);
            rc = option_refuse(label, text, why, err, errlen);
        }
        break;
    }
    case OPTION_SEED: rc = read_seed(label, text, &v, err, errlen); break;
    case OPTION_CHOICE: rc = read_choice(s, label, text, &v, err, errlen); break;
    case OPTION_SIZE: rc = read_size(s, label, text, &v, err, errlen); break;
    case OPTION_TEXT: break;
    }
    if (rc == 0) *out = v;
    return rc;
}

/* The range a number of s is fitted to: the parameter's, or the option's own. */
static bool fit_range(const OptionSpec *s, Param *range)
{
    if (s->kind == OPTION_PARAM && params_get(s->param)) *range = *params_get(s->param);
    else if (s->kind == OPTION_NUMBER) *range = spec_range(s);
    else return false;
    return true;
}

double option_fit_value(const OptionSpec *s, double v, double least)
{
    Param p;
    if (!fit_range(s, &p) || isnan(v)) return least;
    if (v != 0 && fabs(v) < FLT_MIN) v = 0; /* nearer 0 than a float holds */
    if (p.whole) v = floor(v + 0.5);
    if (too_small(&p, v)) v = p.min_open || p.whole ? fmax(least, p.min) : p.min;
    if (v > p.max) v = p.whole ? floor(p.max) : p.max;
    if (too_small(&p, v)) v = nextafter(p.min, INFINITY); /* least itself lay outside */
    return v;
}

/* "6.25e-05", "1024", "1048576": a value as a note gives it back, a whole one in all its digits. */
static void value_text(double v, bool whole, char *buf, size_t len) { snprintf(buf, len, whole ? "%.0f" : "%.6g", v); }

int option_fit(const OptionSpec *s, const Units *u, const char *name, const char *text, double least, double *out,
               char *note, size_t len)
{
    Param p;
    note[0] = '\0';
    if (!fit_range(s, &p)) {
        snprintf(note, len, "%s: no range to fit a value to", name);
        return -1;
    }
    double v;
    bool had_unit, underflow;
    char why[320];
    if (parse_value(&p, u, name, text, &v, &had_unit, &underflow, why, sizeof why) != 0) {
        snprintf(note, len, "%s", why);
        return -1;
    }
    const double fitted = option_fit_value(s, v, least);
    underflow = underflow || (v != 0 && fabs(v) < FLT_MIN);
    char range[96], given[64], set[32], model[64] = "";
    range_words(&p, range, sizeof range);
    params_quote(text, given, sizeof given);
    value_text(fitted, p.whole, set, sizeof set);
    /* A value with its unit says what it is in the run's units. */
    if (had_unit) snprintf(model, sizeof model, " (%s%s%s)", set, p.unit[0] ? " " : "", p.unit);
    *out = fitted;
    if (fitted == v && !underflow) {
        if (had_unit) snprintf(note, len, "%s %s = %s%s%s", name, given, set, p.unit[0] ? " " : "", p.unit);
        return 0;
    }
    const char *what = isinf(v) || v > p.max             ? "is above the range"
                       : underflow || too_small(&p, v) || v < p.min ? "is below the range"
                                                           : NULL;
    if (what) snprintf(note, len, "%s %s%s %s %s: set to %s", name, given, model, what, range, set);
    else snprintf(note, len, "%s %s is not a whole number: set to %s", name, given, set);
    return 1;
}

bool option_takes_unit(const OptionSpec *s)
{
    if (s->kind == OPTION_PARAM) return params_get(s->param) && params_get(s->param)->dim != UNIT_NONE;
    return s->kind == OPTION_NUMBER && s->dim != UNIT_NONE;
}

void option_values_text(const OptionSpec *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->kind == OPTION_PARAM) {
        params_help_text(s->param, buf, len);
    } else if (s->kind == OPTION_NUMBER) {
        const Param range = spec_range(s);
        range_words(&range, buf, len);
        if (s->power_of_two) snprintf(buf + strlen(buf), len - strlen(buf), ", a power of two");
    } else if (s->kind == OPTION_CHOICE) {
        choice_names(s, buf, len);
    } else if (s->kind == OPTION_SIZE) {
        snprintf(buf, len, "1 to %.10g each", s->max);
    }
}

void option_unit_text(const OptionSpec *s, char *buf, size_t len)
{
    const Param *p = s->kind == OPTION_PARAM ? params_get(s->param) : NULL;
    const char *unit = p ? p->unit : s->kind == OPTION_NUMBER && s->unit ? s->unit : "";
    const UnitDim dim = p ? p->dim : s->kind == OPTION_NUMBER ? s->dim : UNIT_NONE;
    static const char *const also[] = {"", "Myr, Gyr", "pc, kpc", "Msun", "km/s"};
    snprintf(buf, len, "%s%s%s", unit, dim == UNIT_NONE ? "" : unit[0] ? ", or " : "or ", also[dim]);
}

bool option_store_fits(OptionStoreType t, size_t size)
{
    switch (t) {
    case OPTION_STORE_NONE: return true;
    case OPTION_STORE_BOOL:
    case OPTION_STORE_NOT: return size == sizeof(bool);
    case OPTION_STORE_INT: return size == sizeof(int);
    case OPTION_STORE_FLOAT: return size == sizeof(float);
    case OPTION_STORE_SEED: return size == sizeof(uint64_t);
    case OPTION_STORE_STRING: return size == sizeof(const char *);
    case OPTION_STORE_CHARS: return size > 0;
    }
    return false;
}

int option_store(void *base, const OptionStore *s, const OptionValue *v, const char *label, char *err, size_t errlen)
{
    char *at = (char *)base + s->at;
    const bool b = s->type == OPTION_STORE_NOT ? v->number == 0 : v->number != 0;
    const int i = (int)v->number;
    const float f = (float)v->number;
    const uint64_t q = v->seed;
    if (!option_store_fits(s->type, s->size)) {
        snprintf(err, errlen, "%s: kept in a field of %zu bytes, not one of its type", label, s->size);
        return -1;
    }
    switch (s->type) {
    case OPTION_STORE_NONE: break;
    case OPTION_STORE_BOOL:
    case OPTION_STORE_NOT: memcpy(at, &b, sizeof b); break;
    case OPTION_STORE_INT: memcpy(at, &i, sizeof i); break;
    case OPTION_STORE_FLOAT: memcpy(at, &f, sizeof f); break;
    case OPTION_STORE_SEED: memcpy(at, &q, sizeof q); break;
    case OPTION_STORE_STRING: memcpy(at, &v->text, sizeof v->text); break;
    case OPTION_STORE_CHARS:
        if (strlen(v->text) >= s->size) {
            char why[64];
            snprintf(why, sizeof why, "is longer than %zu characters", s->size - 1);
            return option_refuse(label, v->text, why, err, errlen);
        }
        memcpy(at, v->text, strlen(v->text) + 1);
        break;
    }
    return 0;
}

bool option_stored_zero(const void *base, const OptionStore *s)
{
    /* All bytes 0 are 0, false, NULL and the empty text alike; a char array is empty by its first. */
    const unsigned char *at = (const unsigned char *)base + s->at;
    const size_t n = s->type == OPTION_STORE_NONE ? 0 : s->type == OPTION_STORE_CHARS ? 1 : s->size;
    for (size_t k = 0; k < n; k++)
        if (at[k]) return false;
    return true;
}

const char *option_format(const void *base, const OptionStore *s, const OptionSpec *spec, char *buf, size_t len)
{
    const char *at = (const char *)base + s->at;
    bool b;
    int i;
    float f;
    uint64_t q;
    const char *t;
    buf[0] = '\0';
    switch (s->type) {
    case OPTION_STORE_NONE: break;
    case OPTION_STORE_BOOL:
    case OPTION_STORE_NOT:
        memcpy(&b, at, sizeof b);
        snprintf(buf, len, "%s", b != (s->type == OPTION_STORE_NOT) ? "true" : "false");
        break;
    case OPTION_STORE_INT:
        memcpy(&i, at, sizeof i);
        if (spec->kind == OPTION_CHOICE && i >= spec->first && i < spec->end)
            snprintf(buf, len, "%s", spec->name_of(i));
        else
            snprintf(buf, len, "%d", i);
        break;
    case OPTION_STORE_FLOAT: memcpy(&f, at, sizeof f), snprintf(buf, len, "%.9g", (double)f); break;
    case OPTION_STORE_SEED: memcpy(&q, at, sizeof q), snprintf(buf, len, "%llu", (unsigned long long)q); break;
    case OPTION_STORE_STRING: memcpy(&t, at, sizeof t), snprintf(buf, len, "%s", t ? t : ""); break;
    case OPTION_STORE_CHARS: snprintf(buf, len, "%.*s", (int)s->size, at); break;
    }
    return buf;
}

float params_theta(float theta) { return theta > 0 ? theta : (float)table[PARAM_THETA].fallback; }
float params_alpha(float alpha) { return alpha >= 0 ? alpha : (float)table[PARAM_ALPHA].fallback; }
float params_alpha_given(float alpha, float theta) { return alpha >= 0 ? alpha : theta > 0 ? 0.0f : -1.0f; }

/* The length of the UTF-8 character at s (2 to 4 bytes) when it is valid and not a C1 control,
 * else 0. */
static size_t utf8_char(const unsigned char *s)
{
    size_t n;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07u;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0) return 0;
    return n;
}

const char *params_quote(const char *s, char *buf, size_t len)
{
    if (len == 0) return buf;
    size_t at = 0, cut = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        char piece[8];
        size_t n, used = 1; /* bytes written, bytes of s taken */
        if (*u >= 0x20 && *u < 0x7f && *u != '\\') {
            piece[0] = (char)*u;
            n = 1;
        } else if ((used = utf8_char(u)) > 0) {
            memcpy(piece, u, used);
            n = used;
        } else {
            used = 1;
            const char *named = *u == '\\'   ? "\\\\"
                                : *u == 0x1b ? "\\e"
                                : *u == '\n' ? "\\n"
                                : *u == '\t' ? "\\t"
                                : *u == '\r' ? "\\r"
                                             : NULL;
            if (named) n = (size_t)snprintf(piece, sizeof piece, "%s", named);
            else n = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *u);
        }
        /* Where s does not fit, it is cut after the last piece that leaves room for "...". */
        if (at + n + 1 > len) {
            at = cut;
            if (at + 4 <= len) {
                memcpy(buf + at, "...", 3);
                at += 3;
            }
            break;
        }
        memcpy(buf + at, piece, n);
        at += n;
        u += used;
        if (at + 4 <= len) cut = at;
    }
    buf[at] = '\0';
    return buf;
}
