/* The page's messages read: the bytes checked first (length, printable ASCII), then split into at
 * most four words, then the verb's words checked. A message that fails any check is refused whole,
 * with one line saying why. */
#include "serve/serve_msg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[SERVE_FIELD_COUNT] = {
    "dt", "softening", "damping", "theta", "alpha", "steps", "point_size", "exposure",
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

int serve_msg_read(const char *data, size_t len, ServeMsg *out, char *err, size_t errlen)
{
    char q[40], names[200];
    if (len > 0 && data[len - 1] == '\n') len--;
    if (len > SERVE_MSG_MAX) {
        snprintf(err, errlen, "a message of %zu bytes: the most is %d", len, SERVE_MSG_MAX);
        return -1;
    }
    if (len == 0) {
        snprintf(err, errlen, "an empty message: expected set, key, orbit, pan or zoom");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)data[i];
        if (c < 0x20 || c > 0x7e) {
            snprintf(err, errlen, "byte %zu of the message is 0x%02x: messages are printable ASCII", i, c);
            return -1;
        }
    }
    Words w = {.count = 0};
    for (size_t i = 0; i < len;) {
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
    if (w.count == 0) {
        snprintf(err, errlen, "an empty message: expected set, key, orbit, pan or zoom");
        return -1;
    }
    static const char *const verbs[] = {"set", "key", "orbit", "pan", "zoom"};
    static const int words[] = {3, 2, 3, 3, 2};
    const int v = name_of(&w, 0, verbs, 5);
    if (v < 0)
        return refuse(err, errlen, "unknown verb %s: set, key, orbit, pan, zoom%s", quoted(w.at[0], w.len[0], q, sizeof q), "");
    if (w.count != words[v]) {
        static const char *const forms[] = {"set FIELD VALUE", "key NAME", "orbit DX DY", "pan DX DY", "zoom TURNS"};
        snprintf(err, errlen, "%s takes %d word%s after it: %s", verbs[v], words[v] - 1, words[v] == 2 ? "" : "s",
                 forms[v]);
        return -1;
    }
    ServeMsg m = {.verb = (ServeVerb)(v + 1)};
    switch (m.verb) {
    case SERVE_SET: {
        const int f = name_of(&w, 1, field_names, SERVE_FIELD_COUNT);
        list_names(field_names, SERVE_FIELD_COUNT, names, sizeof names);
        if (f < 0) return refuse(err, errlen, "set: unknown field %s: %s", quoted(w.at[1], w.len[1], q, sizeof q), names);
        m.field = (ServeField)f;
        if (w.len[2] > SERVE_VALUE_MAX) {
            snprintf(err, errlen, "set %s: a value of %zu characters: the most is %d", field_names[f], w.len[2],
                     SERVE_VALUE_MAX);
            return -1;
        }
        for (size_t i = 0; i < w.len[2]; i++) {
            const char c = w.at[2][i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' ||
                  c == '-')) {
                snprintf(err, errlen, "set %s: %s holds '%c': a value is digits, letters, '.', '+' and '-'",
                         field_names[f], quoted(w.at[2], w.len[2], q, sizeof q), c);
                return -1;
            }
        }
        memcpy(m.value, w.at[2], w.len[2]);
        m.value[w.len[2]] = '\0';
        break;
    }
    case SERVE_KEY: {
        const int k = name_of(&w, 1, key_names, SERVE_KEY_COUNT);
        list_names(key_names, SERVE_KEY_COUNT, names, sizeof names);
        if (k < 0) return refuse(err, errlen, "key: %s is not a key the page may press: %s", quoted(w.at[1], w.len[1], q, sizeof q), names);
        m.key = (ServeKey)k;
        break;
    }
    case SERVE_ORBIT:
    case SERVE_PAN:
        if (read_move(&w, 1, &m.x, err, errlen) != 0 || read_move(&w, 2, &m.y, err, errlen) != 0) return -1;
        break;
    case SERVE_ZOOM:
        if (read_move(&w, 1, &m.x, err, errlen) != 0) return -1;
        break;
    }
    *out = m;
    return 0;
}

const char *serve_msg_format(const ServeMsg *m, char *buf, size_t len)
{
    switch (m->verb) {
    case SERVE_SET: snprintf(buf, len, "set %s %s", serve_field_name(m->field), m->value); break;
    case SERVE_KEY: snprintf(buf, len, "key %s", serve_key_name(m->key)); break;
    case SERVE_ORBIT: snprintf(buf, len, "orbit %.17g %.17g", m->x, m->y); break;
    case SERVE_PAN: snprintf(buf, len, "pan %.17g %.17g", m->x, m->y); break;
    case SERVE_ZOOM: snprintf(buf, len, "zoom %.17g", m->x); break;
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
