#include "util/params.h"

#include <errno.h>
#include <math.h>
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
 * the median is 1.0e-4 to 1.8e-4 (tests/unit/test_tree.c, tests/gpu/test_cuda_tree.c; docs/TREE.md). */
static const Param table[PARAM_COUNT] = {
    [PARAM_DT] = {"dt", "--dt", "model time units", 0, 10, true, false, 0.01, "the scene's", UNIT_TIME},
    [PARAM_SOFTENING] = {"softening", "--softening", "model length units", 0, 100, false, false, 0,
                         "the scene's", UNIT_LENGTH},
    [PARAM_DAMPING] = {"damping", "--damping", "velocity factor per step", 0, 1, true, false, 1, "1, off"},
    [PARAM_THETA] = {"theta", "--theta", "cell size / distance", 0.05, 1.5, false, false, 0.4, NULL},
    [PARAM_MASS_RATIO] = {"mass_ratio", "--mass-ratio", "mass of galaxy B / galaxy A", 0.05, 20, false, false, 1,
                          NULL},
    [PARAM_BODIES] = {"bodies", "--bodies", "", 1, 64 * 1024 * 1024, false, true, 131072,
                      "131072, 25,000 of them stars; 16384 on the CPU"},
    [PARAM_STEPS_PER_FRAME] = {"steps_per_frame", "--steps-per-frame", "", 1, 1024, false, true, 4,
                               "4 on CUDA, 1 on the CPU"},
    [PARAM_POINT_SIZE] = {"point_size", "--point-size", "", 0, 64, true, false, 1, NULL},
    [PARAM_EXPOSURE] = {"exposure", "--exposure", "", 0, 1000, true, false, 1, NULL},
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
    return p && isfinite(v) && !too_small(p, v) && v <= p->max && (!p->whole || v == floor(v));
}

void params_range_text(ParamId id, char *buf, size_t len)
{
    const Param *p = params_get(id);
    if (!p) {
        snprintf(buf, len, "?");
        return;
    }
    if (p->min_open) snprintf(buf, len, "more than %.10g, at most %.10g", p->min, p->max);
    else snprintf(buf, len, "%.10g to %.10g", p->min, p->max);
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
static void verdict(const Param *p, ParamId id, const char *what, char *buf, size_t len)
{
    char range[96];
    params_range_text(id, range, sizeof range);
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
    const char *what = !isfinite(v)           ? "is not a finite number"
                       : too_small(p, v)      ? "is too small"
                       : v > p->max           ? "is too large"
                                              : "is not a whole number";
    char why[192];
    verdict(p, id, what, why, sizeof why);
    snprintf(err, errlen, "%s = %.10g %s", p->key, v, why);
    return -1;
}

/* A whole number in decimal: "12", "-3", "1e6", not "0x10" (strtod reads hexadecimal too). */
static bool decimal(const char *s) { return !strpbrk(s, "xXpP"); }

int params_parse(ParamId id, const char *label, const char *text, double *out, char *err, size_t errlen)
{
    return params_parse_in(id, NULL, label, text, out, err, errlen);
}

int params_parse_in(ParamId id, const Units *u, const char *label, const char *text, double *out, char *err,
                    size_t errlen)
{
    const Param *p = params_get(id);
    if (!p) {
        snprintf(err, errlen, "unknown parameter %d", (int)id);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    const char *what = NULL;
    char why_unit[160];
    /* A number with a unit after it: the unit's reading, or what is wrong with it. */
    if (end != text && *end != '\0' && p->dim != UNIT_NONE && isfinite(v)) {
        if (units_parse(text, p->dim, u, &v, NULL, why_unit, sizeof why_unit) != 0) {
            char quoted[96];
            params_quote(text, quoted, sizeof quoted);
            snprintf(err, errlen, "%s%s'%s' %s", label, label[0] == '-' ? ": " : " = ", quoted, why_unit);
            return -1;
        }
        end = (char *)text + strlen(text);
    }
    if (end == text || *end != '\0' || (p->whole && !decimal(text)))
        what = p->whole ? "is not a whole number" : "is not a number";
    else if (isnan(v)) what = "is not a finite number";
    else if (errno == ERANGE && fabs(v) > 1) what = v > 0 ? "is too large" : "is too small";
    else if (too_small(p, v)) what = "is too small";
    else if (v > p->max) what = "is too large";
    else if (p->whole && v != floor(v)) what = "is not a whole number";
    if (!what) {
        *out = v;
        return 0;
    }
    char why[192], quoted[96];
    verdict(p, id, what, why, sizeof why);
    params_quote(text, quoted, sizeof quoted);
    snprintf(err, errlen, "%s%s'%s' %s", label, label[0] == '-' ? ": " : " = ", quoted, why);
    return -1;
}

float params_theta(float theta) { return theta > 0 ? theta : (float)table[PARAM_THETA].fallback; }

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
