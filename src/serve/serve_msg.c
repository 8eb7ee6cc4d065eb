/* The page's messages read: the bytes checked first (length, printable ASCII), then the verb, which
 * says how the rest reads: a preset's name is the rest of the line (names hold spaces), every other
 * verb's words are split, at most three with the verb, and checked. A message that fails any check
 * is refused whole, with one line saying why. */
#include "serve/serve_msg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[SERVE_FIELD_COUNT] = {
    "dt",         "softening",  "damping",      "theta",         "alpha",         "steps",
    "point_size", "exposure",   "mass_ratio",   "pericentre",    "eccentricity",  "inclination_a",
    "inclination_b",
};

static const char *const key_names[SERVE_KEY_COUNT] = {
    "space", "period", "r",    "backspace",  "home",       "s",          "a",      "m",      "d",           "g",
    "t",     "left",   "right", "ctrl+left", "ctrl+right", "shift+left", "ctrl+z", "ctrl+y", "ctrl+shift+z",
};

const char *serve_field_name(ServeField f) { return f < SERVE_FIELD_COUNT ? field_names[f] : "?"; }
const char *serve_key_name(ServeKey k) { return k < SERVE_KEY_COUNT ? key_names[k] : "?"; }

enum { MAX_WORDS = 3 }; /* the most a verb takes, itself counted */

typedef struct Words {
    const char *at[MAX_WORDS];
    size_t len[MAX_WORDS];
    int count;
} Words;

/* "set", "dt": a word's text, cut and quoted for a message. */
static const char *quoted(const char *w, size_t len, char *buf, size_t size)
{
    snprintf(buf, size, "'%.*s%s'", (int)(len > 24 ? 24 : len), w, len > 24 ? "..." : "");
    return buf;
}

static bool word_is(const Words *w, int i, const char *s)
{
    return w->len[i] == strlen(s) && memcmp(w->at[i], s, w->len[i]) == 0;
}

static int refuse(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    snprintf(err, errlen, fmt, a, b);
    return -1;
}

/* One of names[count] that word i spells, or -1. */
static int name_of(const Words *w, int i, const char *const *names, int count)
{
    for (int k = 0; k < count; k++)
        if (word_is(w, i, names[k])) return k;
    return -1;
}

/* "set: dt, softening, ..." */
static void list_names(const char *const *names, int count, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < count && at < size; k++) {
        const int n = snprintf(buf + at, size - at, "%s%s", k ? ", " : "", names[k]);
        if (n < 0) break;
        at += (size_t)n;
    }
}

/* A number of a drag or the wheel: finite, within SERVE_MOVE_MAX. */
static int read_move(const Words *w, int i, double *out, char *err, size_t errlen)
{
    char text[32], q[40];
    const size_t n = w->len[i] < sizeof text - 1 ? w->len[i] : sizeof text - 1;
    memcpy(text, w->at[i], n);
    text[n] = '\0';
    char *end;
    errno = 0;
    const double v = strtod(text, &end);
    if (n < w->len[i] || end == text || *end || errno == ERANGE || !isfinite(v) || fabs(v) > SERVE_MOVE_MAX) {
        snprintf(err, errlen, "%.*s: %s is not a number from -%g to %g", (int)w->len[0], w->at[0],
                 quoted(w->at[i], w->len[i], q, sizeof q), SERVE_MOVE_MAX, SERVE_MOVE_MAX);
        return -1;
    }
    *out = v;
    return 0;
}

/* Each verb: its name, the words it takes with itself counted (0: the rest of the line is one
 * text), and its form for a message. Numbered as ServeVerb, from 1. */
static const struct {
    const char *name;
    int words;
    const char *form;
} verbs[SERVE_VERB_END - 1] = {
    {"set", 3, "set FIELD VALUE"},    {"key", 2, "key NAME"},       {"orbit", 3, "orbit DX DY"},
    {"pan", 3, "pan DX DY"},          {"zoom", 2, "zoom TURNS"},    {"force", 2, "force auto|direct|tree|fmm"},
    {"color", 2, "color NAME"},       {"scene", 2, "scene NAME"},   {"bodies", 2, "bodies N"},
    {"seed", 2, "seed S"},            {"halo", 2, "halo field|live"}, {"preset", 0, "preset NAME-or-INDEX"},
    {"timeline", 3, "timeline seek K"},
};

static const char *const force_names[SERVE_FORCE_COUNT] = {"auto", "direct", "tree", "fmm"};
static const char *const halo_names[SERVE_HALO_COUNT] = {"field", "live"};

const char *serve_verb_name(ServeVerb v) { return v >= SERVE_SET && v < SERVE_VERB_END ? verbs[v - 1].name : "?"; }
const char *serve_force_name(ServeForce f) { return f < SERVE_FORCE_COUNT ? force_names[f] : "?"; }
const char *serve_halo_name(ServeHalo h) { return h < SERVE_HALO_COUNT ? halo_names[h] : "?"; }

/* "set, key, orbit, ...": the verbs, for the line that refuses an unknown one. */
static void list_verbs(char *buf, size_t size)
{
    const char *names[SERVE_VERB_END - 1];
    for (int v = 0; v < SERVE_VERB_END - 1; v++) names[v] = verbs[v].name;
    list_names(names, SERVE_VERB_END - 1, buf, size);
}

/* Word i as a value: at most SERVE_VALUE_MAX of digits, letters, '.', '+', '-' (and '_' where
 * names may hold it), copied into out. */
static int read_value(const Words *w, int i, const char *what, bool underscore, char *out, char *err, size_t errlen)
{
    char q[40];
    if (w->len[i] > SERVE_VALUE_MAX) {
        snprintf(err, errlen, "%s: a value of %zu characters: the most is %d", what, w->len[i], SERVE_VALUE_MAX);
        return -1;
    }
    for (size_t k = 0; k < w->len[i]; k++) {
        const char c = w->at[i][k];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' ||
              c == '-' || (underscore && c == '_'))) {
            snprintf(err, errlen, "%s: %s holds '%c': a value is digits, letters, '.', '+'%s and '-'", what,
                     quoted(w->at[i], w->len[i], q, sizeof q), c, underscore ? ", '_'" : "");
            return -1;
        }
    }
    memcpy(out, w->at[i], w->len[i]);
    out[w->len[i]] = '\0';
    return 0;
}

/* The verb's words after the verb itself, read into m. */
static int read_words(const Words *w, ServeMsg *m, char *err, size_t errlen)
{
    char q[40], names[200], what[40];
    const char *verb = verbs[m->verb - 1].name;
    switch (m->verb) {
    case SERVE_SET: {
        const int f = name_of(w, 1, field_names, SERVE_FIELD_COUNT);
        list_names(field_names, SERVE_FIELD_COUNT, names, sizeof names);
        if (f < 0) return refuse(err, errlen, "set: unknown field %s: %s", quoted(w->at[1], w->len[1], q, sizeof q), names);
        m->field = (ServeField)f;
        snprintf(what, sizeof what, "set %s", field_names[f]);
        return read_value(w, 2, what, false, m->value, err, errlen);
    }
    case SERVE_KEY: {
        const int k = name_of(w, 1, key_names, SERVE_KEY_COUNT);
        list_names(key_names, SERVE_KEY_COUNT, names, sizeof names);
        if (k < 0) return refuse(err, errlen, "key: %s is not a key the page may press: %s", quoted(w->at[1], w->len[1], q, sizeof q), names);
        m->key = (ServeKey)k;
        return 0;
    }
    case SERVE_ORBIT:
    case SERVE_PAN:
        if (read_move(w, 1, &m->x, err, errlen) != 0 || read_move(w, 2, &m->y, err, errlen) != 0) return -1;
        return 0;
    case SERVE_ZOOM: return read_move(w, 1, &m->x, err, errlen);
    case SERVE_FORCE:
    case SERVE_HALO: {
        const bool force = m->verb == SERVE_FORCE;
        const char *const *list = force ? force_names : halo_names;
        const int count = force ? SERVE_FORCE_COUNT : SERVE_HALO_COUNT;
        const int c = name_of(w, 1, list, count);
        list_names(list, count, names, sizeof names);
        if (c < 0)
            return refuse(err, errlen, force ? "force: %s is not a force method: %s" : "halo: %s is not a halo: %s",
                          quoted(w->at[1], w->len[1], q, sizeof q), names);
        m->choice = c;
        return 0;
    }
    case SERVE_COLOR:
    case SERVE_SCENE: return read_value(w, 1, verb, true, m->value, err, errlen);
    case SERVE_BODIES:
    case SERVE_SEED: return read_value(w, 1, verb, false, m->value, err, errlen);
    case SERVE_TIMELINE: {
        if (!word_is(w, 1, "seek"))
            return refuse(err, errlen, "timeline: %s is not what it does: timeline seek K%s",
                          quoted(w->at[1], w->len[1], q, sizeof q), "");
        long k = 0;
        bool digits = w->len[2] > 0 && w->len[2] <= 9;
        for (size_t i = 0; digits && i < w->len[2]; i++) {
            const char c = w->at[2][i];
            digits = c >= '0' && c <= '9';
            k = k * 10 + (c - '0');
        }
        if (!digits || k > SERVE_KEYFRAME_MAX) {
            snprintf(err, errlen, "timeline seek: %s is not a keyframe: a whole number from 0 to %d",
                     quoted(w->at[2], w->len[2], q, sizeof q), SERVE_KEYFRAME_MAX);
            return -1;
        }
        m->choice = (int)k;
        return 0;
    }
    case SERVE_PRESET:
    case SERVE_VERB_END: break;
    }
    return 0;
}

/* preset: the rest of the line after the verb, its spaces at the ends left out, is a name. */
static int read_preset(const char *rest, size_t len, ServeMsg *m, char *err, size_t errlen)
{
    while (len > 0 && rest[0] == ' ') rest++, len--;
    while (len > 0 && rest[len - 1] == ' ') len--;
    if (len == 0) {
        snprintf(err, errlen, "preset takes a preset's name or its index: %s", verbs[SERVE_PRESET - 1].form);
        return -1;
    }
    if (len > SERVE_NAME_MAX) {
        snprintf(err, errlen, "preset: a name of %zu characters: the most is %d", len, SERVE_NAME_MAX);
        return -1;
    }
    memcpy(m->value, rest, len);
    m->value[len] = '\0';
    return 0;
}

int serve_msg_read(const char *data, size_t len, ServeMsg *out, char *err, size_t errlen)
{
    char q[40], names[200];
    if (len > 0 && data[len - 1] == '\n') len--;
    if (len > SERVE_MSG_MAX) {
        snprintf(err, errlen, "a message of %zu bytes: the most is %d", len, SERVE_MSG_MAX);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)data[i];
        if (c < 0x20 || c > 0x7e) {
            snprintf(err, errlen, "byte %zu of the message is 0x%02x: messages are printable ASCII", i, c);
            return -1;
        }
    }
    /* The verb first: it says how the rest is read. */
    size_t i = 0;
    while (i < len && data[i] == ' ') i++;
    if (i == len) {
        snprintf(err, errlen, "an empty message: expected a verb (set, key, orbit, ...)");
        return -1;
    }
    Words w = {.at = {data + i}, .count = 1};
    while (i < len && data[i] != ' ') i++;
    w.len[0] = (size_t)(data + i - w.at[0]);
    int v = 0;
    while (v < SERVE_VERB_END - 1 && !word_is(&w, 0, verbs[v].name)) v++;
    if (v == SERVE_VERB_END - 1) {
        list_verbs(names, sizeof names);
        return refuse(err, errlen, "unknown verb %s: %s", quoted(w.at[0], w.len[0], q, sizeof q), names);
    }
    ServeMsg m = {.verb = (ServeVerb)(v + 1)};
    if (verbs[v].words == 0) {
        if (read_preset(data + i, len - i, &m, err, errlen) != 0) return -1;
        *out = m;
        return 0;
    }
    while (i < len) {
        while (i < len && data[i] == ' ') i++;
        if (i == len) break;
        if (w.count == MAX_WORDS) {
            snprintf(err, errlen, "more than %d words in a message", MAX_WORDS);
            return -1;
        }
        w.at[w.count] = data + i;
        while (i < len && data[i] != ' ') i++;
        w.len[w.count] = (size_t)(data + i - w.at[w.count]);
        w.count++;
    }
    if (w.count != verbs[v].words) {
        snprintf(err, errlen, "%s takes %d word%s after it: %s", verbs[v].name, verbs[v].words - 1,
                 verbs[v].words == 2 ? "" : "s", verbs[v].form);
        return -1;
    }
    if (read_words(&w, &m, err, errlen) != 0) return -1;
    *out = m;
    return 0;
}

const char *serve_msg_format(const ServeMsg *m, char *buf, size_t len)
{
    const char *verb = serve_verb_name(m->verb);
    switch (m->verb) {
    case SERVE_SET: snprintf(buf, len, "set %s %s", serve_field_name(m->field), m->value); break;
    case SERVE_KEY: snprintf(buf, len, "key %s", serve_key_name(m->key)); break;
    case SERVE_ORBIT: snprintf(buf, len, "orbit %.17g %.17g", m->x, m->y); break;
    case SERVE_PAN: snprintf(buf, len, "pan %.17g %.17g", m->x, m->y); break;
    case SERVE_ZOOM: snprintf(buf, len, "zoom %.17g", m->x); break;
    case SERVE_FORCE: snprintf(buf, len, "force %s", serve_force_name((ServeForce)m->choice)); break;
    case SERVE_HALO: snprintf(buf, len, "halo %s", serve_halo_name((ServeHalo)m->choice)); break;
    case SERVE_COLOR:
    case SERVE_SCENE:
    case SERVE_BODIES:
    case SERVE_SEED:
    case SERVE_PRESET: snprintf(buf, len, "%s %s", verb, m->value); break;
    case SERVE_TIMELINE: snprintf(buf, len, "timeline seek %d", m->choice); break;
    default: snprintf(buf, len, "?"); break;
    }
    return buf;
}

ServeCollected serve_collect(ServeCollect *c, const void *piece, size_t len, bool last)
{
    if (c->ended) *c = (ServeCollect){.len = 0};
    const size_t room = SERVE_MSG_MAX - c->len;
    const size_t take = c->dropped ? 0 : len < room ? len : room;
    if (take) memcpy(c->buf + c->len, piece, take);
    c->len += take;
    c->dropped += len - take;
    c->ended = last;
    if (!last) return SERVE_COLLECT_MORE;
    return c->dropped ? SERVE_COLLECT_TOO_LONG : SERVE_COLLECT_DONE;
}
