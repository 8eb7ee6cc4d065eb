/* The run's parameters, each with its range and default, in one table: the command line, the
 * presets and saved-run readers, the scene and --help all check and describe a value here, so
 * that a value one of them takes the others take too.
 *
 * Messages are one line that names the parameter as its reader spells it (an option "--dt" or a
 * key "dt"), the value as given (quoted: bytes that are not printable text come back escaped) and
 * the range: "--dt: '20' is too large: expected more than 0, at most 10 (model time
 * units)". */
#ifndef STARBURST_PARAMS_H
#define STARBURST_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/units.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ParamId {
    PARAM_DT = 0,
    PARAM_SOFTENING,
    PARAM_DAMPING,
    PARAM_THETA,
    PARAM_MASS_RATIO,
    PARAM_BODIES,
    PARAM_STEPS_PER_FRAME,
    PARAM_POINT_SIZE,
    PARAM_EXPOSURE,
    PARAM_COUNT
} ParamId;

typedef struct Param {
    const char *key;       /* as the presets and saved-run files spell it: "dt", "mass_ratio" */
    const char *option;    /* as the command line spells it: "--dt" */
    const char *unit;      /* "model time units"; "" where the value has none */
    double min, max;
    bool min_open;         /* min itself is refused (a timestep is more than 0) */
    bool whole;            /* whole numbers only */
    double fallback;       /* the default where nothing else gives one */
    const char *default_text; /* how --help states the default */
    UnitDim dim;           /* what the value measures: a time or length may be given in Myr or kpc */
} Param;

const Param *params_get(ParamId id);
/* The parameter whose key is key, or -1. */
int params_find(const char *key);

/* Whether v lies in id's range (a whole number where id asks for one). */
bool params_in_range(ParamId id, double v);
/* 0 when v lies in id's range, else -1 with "dt = 1e+30 is too large: expected more than 0, at
 * most 10 (model time units)" in err. */
int params_check(ParamId id, double v, char *err, size_t errlen);
/* Reads text as a value of id: 0 with *out, or -1 with a message in err that names label (an
 * option, "--dt", or a key, "dt"), the text and what is wrong: not a number, not a whole number,
 * too small or too large for the range. */
int params_parse(ParamId id, const char *label, const char *text, double *out, char *err, size_t errlen);
/* As params_parse, where a time or length may also be given with its unit ("0.2Myr", "200 pc",
 * units_parse), converted to model units with u (NULL or not physical: a unit is refused). */
int params_parse_in(ParamId id, const Units *u, const char *label, const char *text, double *out, char *err,
                    size_t errlen);

/* "more than 0, at most 10", "0.05 to 1.5": the range in words. */
void params_range_text(ParamId id, char *buf, size_t len);
/* "more than 0, at most 10; default: the scene's": the range and default, for --help. */
void params_help_text(ParamId id, char *buf, size_t len);

/* The opening angle a run uses for theta: theta where it is given (> 0), else the default. */
float params_theta(float theta);

/* s as it may be shown on a terminal: printable text and valid UTF-8 as they are; control
 * bytes, C1 controls, backslashes and bytes of no character as \e, \n, \t, \\ or \xHH; cut with
 * "..." where buf is too short. Returns buf. */
const char *params_quote(const char *s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
