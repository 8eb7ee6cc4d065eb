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
    PARAM_ALPHA,
    PARAM_MASS_RATIO,
    PARAM_BODIES,
    PARAM_STEPS_PER_FRAME,
    PARAM_POINT_SIZE,
    PARAM_EXPOSURE,
    /* A collision's encounter: its orbit and the disks' tilts (scene.c checks a scene with these). */
    PARAM_SEPARATION,
    PARAM_PERICENTRE,
    PARAM_ECCENTRICITY,
    PARAM_PERICENTRE_ANGLE,
    PARAM_INCLINATION_A,
    PARAM_INCLINATION_B,
    PARAM_COUNT
} ParamId;

typedef struct Param {
    const char *key;       /* as the presets and saved-run files spell it: "dt", "mass_ratio" */
    const char *option;    /* as the command line spells it: "--dt"; NULL: a presets key alone */
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
/* The tree's error-based test a run uses for alpha: alpha where it is given (>= 0; 0: by angle),
 * else the default. */
float params_alpha(float alpha);
/* The alpha a source gives with its theta (either < 0 or 0: not given): alpha where given, 0 (by
 * the angle) where a theta is given alone, else -1 (not given). */
float params_alpha_given(float alpha, float theta);

/* s as it may be shown on a terminal: printable text and valid UTF-8 as they are; control
 * bytes, C1 controls, backslashes and bytes of no character as \e, \n, \t, \\ or \xHH; cut with
 * "..." where buf is too short. Returns buf. */
const char *params_quote(const char *s, char *buf, size_t len);

/* Options: how a program reads a value wherever a person gives it, as an option of the command
 * line ("--dt 0.01", "--scene disk") or a key of a file ("dt = 0.01"), and where it keeps it. A
 * program lists its options in a table of its own, each with an OptionSpec and an OptionStore; the
 * readers, the writers and the help walk that table. Messages are worded as the parameters' are. */
typedef enum OptionKind {
    OPTION_HEADING = 0, /* no option: a heading among the options' help */
    OPTION_HELP,        /* the option that prints the help */
    OPTION_FLAG,        /* on the command line it takes no value; in a file true, false, 1 or 0 */
    OPTION_PARAM,       /* a value of the parameter table: .param, with its range and unit */
    OPTION_NUMBER,      /* a number in .min .. .max (.min_open, .whole, .power_of_two), of .dim */
    OPTION_SEED,        /* a whole number from 0 to 2^64 - 1 */
    OPTION_CHOICE,      /* one of the names .name_of gives to .first .. .end - 1, kept as its number */
    OPTION_SIZE,        /* WxH: two whole numbers from 1 to .max */
    OPTION_TEXT,        /* text as given: a file, a folder, a caption */
} OptionKind;

typedef struct OptionSpec {
    OptionKind kind;
    ParamId param;                 /* OPTION_PARAM */
    double min, max;
    bool min_open;                 /* min itself is refused */
    bool whole, power_of_two;
    const char *unit;              /* what a number counts: "degrees"; NULL: nothing to say */
    UnitDim dim;                   /* a number that may come with its unit: "8kpc", "-110km/s" */
    const char *(*name_of)(int v); /* OPTION_CHOICE: the name of value v */
    int first, end;                /* OPTION_CHOICE: the values named, first .. end - 1 */
    const char *noun;              /* OPTION_CHOICE: "scene" in "is not a scene: collision, ..." */
} OptionSpec;

typedef struct OptionValue {
    double number;      /* FLAG (0 or 1), PARAM, NUMBER, CHOICE; SIZE's width */
    double height;      /* SIZE */
    unsigned long long seed;
    const char *text;   /* the text as given */
    bool had_unit;      /* the number came with its unit */
} OptionValue;

/* Reads text as a value of s: 0 with *out, or -1 with one line in err that names label (an option,
 * "--dt", or a key, "dt"), the text quoted and what is wrong. A number's unit is converted with u
 * (NULL or not physical: a unit is refused). */
int option_read(const OptionSpec *s, const Units *u, const char *label, const char *text, OptionValue *out,
                char *err, size_t errlen);
/* A value a person typed into a field (the panel's), of an OPTION_PARAM or OPTION_NUMBER s: read as
 * option_read reads it (a unit converted with u), then brought into the range rather than refused,
 * a whole number rounded. 0: taken as read (note: "" or, given with its unit, what it is in the
 * run's units: "softening 200pc = 0.0769231 model length units"); 1: changed to fit, with what was
 * done in note: "steps/frame 5000 is above the range 1 to 1024: set to 1024"; -1: no number, why in
 * note ("steps/frame: 'abc' is not a whole number: expected 1 to 1024"), *out untouched. name: the
 * field as the panel names it. least: what a value at or below an open minimum becomes (the panel's
 * smallest). */
int option_fit(const OptionSpec *s, const Units *u, const char *name, const char *text, double least, double *out,
               char *note, size_t len);
/* v brought into the range of s as option_fit brings it; NaN gives least. */
double option_fit_value(const OptionSpec *s, double v, double least);
/* Whether a value of s may come with a unit, to be read on the scale of a scene yet to be named. */
bool option_takes_unit(const OptionSpec *s);
/* The values s takes, for help: "0.05 to 1.5; default 0.4", "1 to 32, a power of two", "collision,
 * disk, plummer"; "" where there is nothing to say (a flag, text). */
void option_values_text(const OptionSpec *s, char *buf, size_t len);
/* What a number of s counts, for help: "model time units, or Myr, Gyr", "degrees"; "" where none. */
void option_unit_text(const OptionSpec *s, char *buf, size_t len);
/* -1 with "--size: '12' why" (an option) or "color = 'x' why" (a key) in err. */
int option_refuse(const char *label, const char *text, const char *why, char *err, size_t errlen);

/* Where a struct keeps an option's value: its type, offset and size. */
typedef enum OptionStoreType {
    OPTION_STORE_NONE = 0,
    OPTION_STORE_BOOL,
    OPTION_STORE_NOT,    /* a bool that the flag turns off: --no-vsync */
    OPTION_STORE_INT,    /* an int, or an enum (the number of a choice) */
    OPTION_STORE_FLOAT,
    OPTION_STORE_SEED,   /* uint64_t */
    OPTION_STORE_STRING, /* const char *: the text itself, which must outlive the struct */
    OPTION_STORE_CHARS,  /* a char array of .size: a copy */
} OptionStoreType;

typedef struct OptionStore {
    OptionStoreType type;
    size_t at, size;
} OptionStore;

/* Whether a field of size bytes can hold a value of type t. */
bool option_store_fits(OptionStoreType t, size_t size);
/* Puts v where s says in the struct at base: 0, or -1 with a line naming label in err where the text
 * is longer than a char array holds. */
int option_store(void *base, const OptionStore *s, const OptionValue *v, const char *label, char *err, size_t errlen);
/* Whether the value at s in base is 0, false or empty. */
bool option_stored_zero(const void *base, const OptionStore *s);
/* The value at s in base as a file writes it: "0.349999994", "4096", "true", a choice's name ("speed"),
 * the text. Returns buf. */
const char *option_format(const void *base, const OptionStore *s, const OptionSpec *spec, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
