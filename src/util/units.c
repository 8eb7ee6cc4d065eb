#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

Units units_from(double kpc, double kms)
{
    Units u = {kpc, kms, 0.0, 0.0};
    if (kpc > 0 && kms > 0) {
        u.msun = kms * kms * kpc / UNITS_G_KPC_KMS2_MSUN;
        u.myr = UNITS_MYR_PER_KPC_KMS * kpc / kms;
    }
    return u;
}

bool units_physical(const Units *u)
{
    return u && u->kpc > 0 && u->kms > 0;
}

/* Three significant figures from 1 ("120", "12.3", "1.50"), two below ("0.16", "0.035"): short
 * enough for a slider; an exponent only past 1e6 and below 1e-3. */
static void figures(double x, char *buf, size_t len)
{
    const double a = fabs(x);
    if (a == 0) snprintf(buf, len, "0");
    else if (a >= 1e6 || a < 1e-3) snprintf(buf, len, "%.2e", x);
    else if (a >= 100) snprintf(buf, len, "%.0f", x);
    else if (a >= 10) snprintf(buf, len, "%.1f", x);
    else if (a >= 1) snprintf(buf, len, "%.2f", x);
    else snprintf(buf, len, "%.*f", 1 - (int)floor(log10(a)), x);
}

/* A figure and its unit: "120 Myr". */
static const char *with_unit(double x, const char *unit, char *buf, size_t len)
{
    char n[32];
    figures(x, n, sizeof n);
    snprintf(buf, len, "%s %s", n, unit);
    return buf;
}

const char *units_format_time(const Units *u, double t, char *buf, size_t len)
{
    if (!units_physical(u)) {
        snprintf(buf, len, "%.3f", t);
        return buf;
    }
    const double myr = t * u->myr;
    /* 999.6 Myr rounds to "1000": it is read as 1.00 Gyr. */
    if (fabs(myr) >= 999.5) snprintf(buf, len, "%.2f Gyr", myr * 1e-3);
    else with_unit(myr, "Myr", buf, len);
    return buf;
}

static const char *model_only(double x, char *buf, size_t len)
{
    figures(x, buf, len);
    return buf;
}

const char *units_format_length(const Units *u, double l, char *buf, size_t len)
{
    return units_physical(u) ? with_unit(l * u->kpc, "kpc", buf, len) : model_only(l, buf, len);
}

const char *units_format_softening(const Units *u, double l, char *buf, size_t len)
{
    return units_physical(u) ? with_unit(l * u->kpc * 1e3, "pc", buf, len) : model_only(l, buf, len);
}

const char *units_format_mass(const Units *u, double m, char *buf, size_t len)
{
    if (!units_physical(u)) return model_only(m, buf, len);
    /* "3.2e10 Msun": the exponent without its plus sign and zeros. */
    const double msun = m * u->msun;
    if (msun <= 0) return with_unit(msun, "Msun", buf, len);
    const int e = (int)floor(log10(msun));
    double mant = msun / pow(10.0, e);
    int ee = e;
    if (mant >= 9.95) mant /= 10, ee++;
    snprintf(buf, len, "%.1fe%d Msun", mant, ee);
    return buf;
}

const char *units_format_speed(const Units *u, double v, char *buf, size_t len)
{
    return units_physical(u) ? with_unit(v * u->kms, "km/s", buf, len) : model_only(v, buf, len);
}

typedef struct Suffix {
    UnitDim dim;
    const char *name;
    double per; /* one of it in Myr, kpc, Msun or km/s */
} Suffix;

static const Suffix suffixes[] = {
    {UNIT_TIME, "Myr", 1.0},    {UNIT_TIME, "Gyr", 1e3},      {UNIT_TIME, "kyr", 1e-3},
    {UNIT_LENGTH, "kpc", 1.0},  {UNIT_LENGTH, "pc", 1e-3},    {UNIT_LENGTH, "Mpc", 1e3},
    {UNIT_MASS, "Msun", 1.0},   {UNIT_SPEED, "km/s", 1.0},
};

static const char *const dim_words[] = {"", "time", "length", "mass", "speed"};
static const char *const dim_units[] = {"", "Myr, Gyr, kyr", "pc, kpc, Mpc", "Msun", "km/s"};

static double unit_of(const Units *u, UnitDim dim)
{
    switch (dim) {
    case UNIT_TIME: return u->myr;
    case UNIT_LENGTH: return u->kpc;
    case UNIT_MASS: return u->msun;
    case UNIT_SPEED: return u->kms;
    default: return 0;
    }
}

int units_parse(const char *text, UnitDim dim, const Units *u, double *model, bool *had_unit, char *err,
                size_t errlen)
{
    char *end;
    errno = 0;
    const double v = strtod(text, &end);
    if (end == text || !isfinite(v)) {
        snprintf(err, errlen, "is not a number");
        return -1;
    }
    while (*end == ' ') end++;
    if (!*end) {
        *model = v;
        if (had_unit) *had_unit = false;
        return 0;
    }
    if (dim == UNIT_NONE) {
        snprintf(err, errlen, "is not a number");
        return -1;
    }
    const Suffix *s = NULL;
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if (suffixes[i].dim == dim && strcasecmp(end, suffixes[i].name) == 0) s = &suffixes[i];
    /* "1.5kpc" matches kpc before pc by the whole suffix: strcasecmp compares all of it. */
    if (!s) {
        snprintf(err, errlen, "does not end in a unit of %s: %s, or is a plain number in model units", dim_words[dim],
                 dim_units[dim]);
        return -1;
    }
    if (!units_physical(u)) {
        snprintf(err, errlen, "has a unit, but this run has no physical scale: give a plain number in model units");
        return -1;
    }
    *model = v * s->per / unit_of(u, dim);
    if (had_unit) *had_unit = true;
    return 0;
}
