/* The page's messages: one WebSocket text message each, one line of words, read with size limits.
 *
 *   set FIELD VALUE    dt, softening, damping, theta, alpha, steps, point_size, exposure, and the
 *                      collision's encounter (applied on reset): mass_ratio, pericentre,
 *                      eccentricity, inclination_a, inclination_b; VALUE as the command line takes
 *                      it ("0.01", "200pc", "0.2Myr", "20kpc"), read by the app
 *   key NAME           a key of the window's: space, period, r, backspace, home, s, a, m, d, g, t,
 *                      left, right, ctrl+left, ctrl+right, shift+left, ctrl+z, ctrl+y, ctrl+shift+z
 *   orbit DX DY        the camera turned as a left drag of DX, DY frame pixels turns it
 *   pan DX DY          moved as a right drag does
 *   zoom TURNS         as the wheel's turns (positive: nearer)
 *   force NAME         the panel's force combo: auto, direct, tree, fmm
 *   color NAME         the colour combo: a name of the app's colour modes ("component", "speed")
 *   scene NAME         the Scene section, applied on reset (R): a built-in scene's name,
 *   bodies N           its N (a whole number, the panel's range),
 *   seed S             its seed (a whole number from 0),
 *   halo field|live    and its halos: fields about moving centres, or bodies
 *   preset NAME        the preset combo: the rest of the line is a preset's name, or its index
 *                      (from 0, as the page's list counts) where no preset has that name
 *   timeline seek K    the timeline's slider moved to keyframe K (from 0, as the readout counts)
 *
 * A message may arrive in pieces (WebSocket fragments, or the server's reads): ServeCollect puts a
 * message together up to SERVE_MSG_MAX bytes and drops the rest of a longer one. The reader only
 * checks the form; the values' ranges are the parameter table's, checked where they are used.
 * Nothing here allocates, and nothing reads beyond the length given. */
#ifndef STARBURST_SERVE_MSG_H
#define STARBURST_SERVE_MSG_H

#include <stdbool.h>
#include <stddef.h>

/* The longest message; a value's longest text; a preset's longest name (as presets.h keeps it). */
#define SERVE_MSG_MAX 256
#define SERVE_VALUE_MAX 48
#define SERVE_NAME_MAX 63
/* The most a drag or a wheel may move in one message: frame pixels, turns. */
#define SERVE_MOVE_MAX 4096.0

typedef enum ServeVerb {
    SERVE_SET = 1,
    SERVE_KEY,
    SERVE_ORBIT,
    SERVE_PAN,
    SERVE_ZOOM,
    SERVE_FORCE,
    SERVE_COLOR,
    SERVE_SCENE,
    SERVE_BODIES,
    SERVE_SEED,
    SERVE_HALO,
    SERVE_PRESET,
    SERVE_TIMELINE,
    SERVE_VERB_END /* one past the last */
} ServeVerb;

/* The force methods, numbered as the panel's (UiForce; src/app/remote.c checks that they agree). */
typedef enum ServeForce { SERVE_FORCE_AUTO = 0, SERVE_FORCE_DIRECT, SERVE_FORCE_TREE, SERVE_FORCE_FMM, SERVE_FORCE_COUNT } ServeForce;
typedef enum ServeHalo { SERVE_HALO_FIELD = 0, SERVE_HALO_LIVE, SERVE_HALO_COUNT } ServeHalo;
/* The most keyframes a timeline message may name (the run keeps far fewer). */
#define SERVE_KEYFRAME_MAX 999999999

typedef enum ServeField {
    SERVE_FIELD_DT = 0,
    SERVE_FIELD_SOFTENING,
    SERVE_FIELD_DAMPING,
    SERVE_FIELD_THETA,
    SERVE_FIELD_ALPHA,
    SERVE_FIELD_STEPS,
    SERVE_FIELD_POINT_SIZE,
    SERVE_FIELD_EXPOSURE,
    SERVE_FIELD_MASS_RATIO,
    SERVE_FIELD_PERICENTRE,
    SERVE_FIELD_ECCENTRICITY,
    SERVE_FIELD_INCLINATION_A,
    SERVE_FIELD_INCLINATION_B,
    SERVE_FIELD_COUNT
} ServeField;

typedef enum ServeKey {
    SERVE_KEY_SPACE = 0,
    SERVE_KEY_PERIOD,
    SERVE_KEY_R,
    SERVE_KEY_BACKSPACE,
    SERVE_KEY_HOME,
    SERVE_KEY_S,
    SERVE_KEY_A,
    SERVE_KEY_M,
    SERVE_KEY_D,
    SERVE_KEY_G,
    SERVE_KEY_T,
    SERVE_KEY_LEFT,
    SERVE_KEY_RIGHT,
    SERVE_KEY_CTRL_LEFT,
    SERVE_KEY_CTRL_RIGHT,
    SERVE_KEY_SHIFT_LEFT,
    SERVE_KEY_UNDO,  /* ctrl+z */
    SERVE_KEY_REDO,  /* ctrl+y */
    SERVE_KEY_REDO2, /* ctrl+shift+z */
    SERVE_KEY_COUNT
} ServeKey;

typedef struct ServeMsg {
    ServeVerb verb;
    ServeField field;               /* set */
    char value[SERVE_NAME_MAX + 1]; /* set, color, scene, bodies, seed: the word as given (at most
                                       SERVE_VALUE_MAX); preset: the name or index as given */
    ServeKey key;                   /* key */
    int choice;                     /* force: ServeForce; halo: ServeHalo; timeline: the keyframe */
    double x, y;                    /* orbit, pan: DX DY; zoom: x */
} ServeMsg;

/* Reads one whole message of len bytes (a trailing "\n" is allowed). 0 with *out, or -1 with one
 * line in err naming what is wrong ("unknown verb 'jump': set, key, orbit, ..."); *out is then
 * untouched. A name the app owns (a scene, a colour, a preset) is only checked for its form here. */
int serve_msg_read(const char *data, size_t len, ServeMsg *out, char *err, size_t errlen);
/* The message as the reader reads it back ("set dt 0.01"); returns buf. */
const char *serve_msg_format(const ServeMsg *m, char *buf, size_t len);
/* The names, for the page and for messages. */
const char *serve_field_name(ServeField f);
const char *serve_key_name(ServeKey k);
const char *serve_verb_name(ServeVerb v);
const char *serve_force_name(ServeForce f);
const char *serve_halo_name(ServeHalo h);

/* A message put together from pieces. */
typedef struct ServeCollect {
    char buf[SERVE_MSG_MAX];
    size_t len;
    size_t dropped; /* bytes beyond SERVE_MSG_MAX in the message under way */
    bool ended;     /* the last piece came: the next one starts a new message */
} ServeCollect;

typedef enum ServeCollected {
    SERVE_COLLECT_MORE = 0, /* the message goes on */
    SERVE_COLLECT_DONE,     /* c->buf holds c->len bytes of a whole message */
    SERVE_COLLECT_TOO_LONG, /* a whole message longer than SERVE_MSG_MAX: dropped (c->dropped says by how much) */
} ServeCollected;

/* Adds a piece; last: it ends the message. After DONE or TOO_LONG the next piece starts a new
 * message. A zeroed ServeCollect is empty. */
ServeCollected serve_collect(ServeCollect *c, const void *piece, size_t len, bool last);

#endif
