/* The served page's message reader (src/serve/serve_msg.h) and the door's tokens: good messages
 * read as they were written (the panel's verbs too: force, color, scene, bodies, seed, halo,
 * preset, timeline), junk and oversize ones refused with one line and *out untouched,
 * messages in pieces put together, the rest of a long one dropped, and tokens compared whole. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "serve/serve_msg.h"
#include "serve/serve_token.h"

static int read_text(const char *text, ServeMsg *m, char *err, size_t len)
{
    return serve_msg_read(text, strlen(text), m, err, len);
}

static void test_good_messages(void **state)
{
    ServeMsg m;
    char err[300];
    assert_int_equal(read_text("set dt 0.01", &m, err, sizeof err), 0);
    assert_int_equal(m.verb, SERVE_SET);
    assert_int_equal(m.field, SERVE_FIELD_DT);
    assert_string_equal(m.value, "0.01");
    assert_int_equal(read_text("set softening 200pc\n", &m, err, sizeof err), 0);
    assert_int_equal(m.field, SERVE_FIELD_SOFTENING);
    assert_string_equal(m.value, "200pc");
    assert_int_equal(read_text("  set   steps   64 ", &m, err, sizeof err), 0);
    assert_int_equal(m.field, SERVE_FIELD_STEPS);
    assert_int_equal(read_text("key ctrl+z", &m, err, sizeof err), 0);
    assert_int_equal(m.verb, SERVE_KEY);
    assert_int_equal(m.key, SERVE_KEY_UNDO);
    assert_int_equal(read_text("orbit -12.5 3", &m, err, sizeof err), 0);
    assert_int_equal(m.verb, SERVE_ORBIT);
    assert_true(m.x == -12.5 && m.y == 3);
    assert_int_equal(read_text("zoom 1e1", &m, err, sizeof err), 0);
    assert_true(m.verb == SERVE_ZOOM && m.x == 10);
    /* Every field and key reads back from its name, and every message from its own text. */
    for (int f = 0; f < SERVE_FIELD_COUNT; f++) {
        char text[80], again[80];
        snprintf(text, sizeof text, "set %s 1.5", serve_field_name((ServeField)f));
        assert_int_equal(read_text(text, &m, err, sizeof err), 0);
        assert_int_equal(m.field, f);
        assert_string_equal(serve_msg_format(&m, again, sizeof again), text);
    }
    for (int k = 0; k < SERVE_KEY_COUNT; k++) {
        char text[80];
        snprintf(text, sizeof text, "key %s", serve_key_name((ServeKey)k));
        assert_int_equal(read_text(text, &m, err, sizeof err), 0);
        assert_int_equal(m.key, k);
    }
}

/* A message and what its refusal says. */
typedef struct Refusal {
    const char *text, *says;
} Refusal;

/* Each refused with one line that says what, and the message as it was before. */
static void assert_refused(const Refusal *bad, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        ServeMsg m = {.verb = SERVE_ZOOM, .x = 7};
        char err[300] = "";
        assert_int_equal(read_text(bad[i].text, &m, err, sizeof err), -1);
        if (!strstr(err, bad[i].says)) fail_msg("'%s': said '%s', not '%s'", bad[i].text, err, bad[i].says);
        assert_null(strchr(err, '\n'));
        assert_true(m.verb == SERVE_ZOOM && m.x == 7);
    }
}

static void test_junk(void **state)
{
    static const Refusal bad[] = {
        {"", "empty"},
        {"   ", "empty"},
        {"jump 1", "unknown verb 'jump'"},
        {"set dt", "set takes 2 words"},
        {"set dt 1 2", "more than 3 words"},
        {"set gravity 1", "unknown field 'gravity'"},
        {"set dt 1;rm", "holds ';'"},
        {"set dt ../../etc/passwd", "holds '/'"},
        {"key escape", "'escape' is not a key"},
        {"key ctrl+alt+del", "is not a key"},
        {"orbit 1e999 0", "is not a number"},
        {"orbit nan 0", "is not a number"},
        {"pan 5000 0", "is not a number from -4096 to 4096"},
        {"zoom 1x", "is not a number"},
        {"orbit 1 1 1", "more than 3 words"},
        {"zoom", "zoom takes 1 word"},
        {"set\tdt 1", "0x09"},
        {"set dt 1\r", "0x0d"},
    };
    assert_refused(bad, sizeof bad / sizeof bad[0]);
    /* A byte that is no ASCII, and a NUL inside the length given. */
    ServeMsg m;
    char err[300];
    assert_int_equal(serve_msg_read("set dt \xff", 8, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "0xff"));
    assert_int_equal(serve_msg_read("key r\0x", 7, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "0x00"));
    /* A short err buffer is cut, never overrun. */
    char tiny[8];
    memset(tiny, 'z', sizeof tiny);
    assert_int_equal(read_text("set gravity 1", &m, tiny, 5), -1);
    assert_int_equal(tiny[4], '\0');
    assert_int_equal(tiny[5], 'z');
}

static void test_oversize(void **state)
{
    char text[SERVE_MSG_MAX + 2], err[300];
    ServeMsg m;
    /* The most is taken; one more byte is refused for its length. */
    memset(text, ' ', sizeof text);
    memcpy(text, "key r", 5);
    assert_int_equal(serve_msg_read(text, SERVE_MSG_MAX, &m, err, sizeof err), 0);
    assert_int_equal(serve_msg_read(text, SERVE_MSG_MAX + 1, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "the most is 256"));
    /* A value longer than SERVE_VALUE_MAX. */
    char value[120];
    snprintf(value, sizeof value, "set dt 0.%0*d", SERVE_VALUE_MAX, 1);
    assert_int_equal(read_text(value, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "the most is 48"));
}

/* Pieces put together; a message longer than the most dropped whole, and the next one read. */
static void test_half_messages(void **state)
{
    ServeCollect c = {.len = 0};
    ServeMsg m;
    char err[300];
    assert_int_equal(serve_collect(&c, "set da", 6, false), SERVE_COLLECT_MORE);
    assert_int_equal(serve_collect(&c, "mping", 5, false), SERVE_COLLECT_MORE);
    assert_int_equal(serve_collect(&c, " 0.99", 5, true), SERVE_COLLECT_DONE);
    assert_int_equal(serve_msg_read(c.buf, c.len, &m, err, sizeof err), 0);
    assert_true(m.field == SERVE_FIELD_DAMPING && !strcmp(m.value, "0.99"));
    /* A half message alone does not read: its first half is junk. */
    assert_int_equal(serve_collect(&c, "set da", 6, true), SERVE_COLLECT_DONE);
    assert_int_equal(serve_msg_read(c.buf, c.len, &m, err, sizeof err), -1);
    /* 100 kB in pieces of 4 kB: dropped, the whole length told. */
    char piece[4096];
    memset(piece, 'x', sizeof piece);
    for (int i = 0; i < 24; i++) assert_int_equal(serve_collect(&c, piece, sizeof piece, false), SERVE_COLLECT_MORE);
    assert_int_equal(serve_collect(&c, piece, 100, true), SERVE_COLLECT_TOO_LONG);
    assert_int_equal(c.len + c.dropped, 24 * sizeof piece + 100);
    assert_true(c.len <= SERVE_MSG_MAX);
    /* The next one starts afresh. */
    assert_int_equal(serve_collect(&c, "key space", 9, true), SERVE_COLLECT_DONE);
    assert_int_equal(serve_msg_read(c.buf, c.len, &m, err, sizeof err), 0);
    assert_true(m.verb == SERVE_KEY && m.key == SERVE_KEY_SPACE);
    /* Exactly the most, in two pieces, is whole. */
    char full[SERVE_MSG_MAX];
    memset(full, ' ', sizeof full);
    memcpy(full, "key r", 5);
    assert_int_equal(serve_collect(&c, full, 200, false), SERVE_COLLECT_MORE);
    assert_int_equal(serve_collect(&c, full + 200, SERVE_MSG_MAX - 200, true), SERVE_COLLECT_DONE);
    assert_int_equal(c.len, SERVE_MSG_MAX);
    /* An empty last piece ends a message. */
    assert_int_equal(serve_collect(&c, "key s", 5, false), SERVE_COLLECT_MORE);
    assert_int_equal(serve_collect(&c, "", 0, true), SERVE_COLLECT_DONE);
    assert_int_equal(c.len, 5);
}

/* The panel's verbs: each good form read and read back from its own text; each bad one refused
 * with its line; each value one character too long refused for its length. */
static void test_panel_verbs(void **state)
{
    ServeMsg m;
    char err[300], again[SERVE_MSG_MAX + 64];
    assert_int_equal(read_text("force tree", &m, err, sizeof err), 0);
    assert_true(m.verb == SERVE_FORCE && m.choice == SERVE_FORCE_TREE);
    for (int f = 0; f < SERVE_FORCE_COUNT; f++) {
        char text[40];
        snprintf(text, sizeof text, "force %s", serve_force_name((ServeForce)f));
        assert_int_equal(read_text(text, &m, err, sizeof err), 0);
        assert_int_equal(m.choice, f);
        assert_string_equal(serve_msg_format(&m, again, sizeof again), text);
    }
    assert_int_equal(read_text("halo live", &m, err, sizeof err), 0);
    assert_true(m.verb == SERVE_HALO && m.choice == SERVE_HALO_LIVE);
    assert_int_equal(read_text("halo field", &m, err, sizeof err), 0);
    assert_int_equal(m.choice, SERVE_HALO_FIELD);
    assert_int_equal(read_text("timeline seek 12", &m, err, sizeof err), 0);
    assert_true(m.verb == SERVE_TIMELINE && m.choice == 12);
    assert_int_equal(read_text("timeline seek 999999999", &m, err, sizeof err), 0);
    assert_int_equal(m.choice, SERVE_KEYFRAME_MAX);
    /* Words the app checks against its own names: taken here as written. */
    static const struct {
        const char *text;
        ServeVerb verb;
        const char *value;
    } words[] = {
        {"color speed", SERVE_COLOR, "speed"},   {"scene tipsy-collide", SERVE_SCENE, "tipsy-collide"},
        {"scene my_scene", SERVE_SCENE, "my_scene"}, {"bodies 4096", SERVE_BODIES, "4096"},
        {"bodies 1e4", SERVE_BODIES, "1e4"},     {"seed 7", SERVE_SEED, "7"},
        {"preset 3", SERVE_PRESET, "3"},         {"preset Spiral disk", SERVE_PRESET, "Spiral disk"},
        {"preset   The Antennae (NGC 4038/9) ", SERVE_PRESET, "The Antennae (NGC 4038/9)"},
        {"preset Milky Way + Andromeda (Gaia)", SERVE_PRESET, "Milky Way + Andromeda (Gaia)"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        assert_int_equal(read_text(words[i].text, &m, err, sizeof err), 0);
        assert_int_equal(m.verb, words[i].verb);
        assert_string_equal(m.value, words[i].value);
        ServeMsg back;
        assert_int_equal(read_text(serve_msg_format(&m, again, sizeof again), &back, err, sizeof err), 0);
        assert_true(back.verb == m.verb && !strcmp(back.value, m.value));
    }
    static const Refusal bad[] = {
        {"force warp", "'warp' is not a force method: auto, direct, tree, fmm"},
        {"force", "force takes 1 word after it: force auto|direct|tree|fmm"},
        {"force tree fmm", "force takes 1 word"},
        {"halo dark", "'dark' is not a halo: field, live"},
        {"color", "color takes 1 word"},
        {"scene dis;k", "holds ';'"},
        {"scene a/b", "holds '/'"},
        {"bodies 4_096", "holds '_'"},
        {"bodies 1 2", "bodies takes 1 word"},
        {"seed", "seed takes 1 word"},
        {"preset", "preset takes a preset's name or its index"},
        {"preset    ", "preset takes a preset's name or its index"},
        {"timeline seek -1", "'-1' is not a keyframe"},
        {"timeline seek 1e3", "'1e3' is not a keyframe"},
        {"timeline seek 1000000000", "is not a keyframe: a whole number from 0 to 999999999"},
        {"timeline play 3", "'play' is not what it does: timeline seek K"},
        {"timeline seek", "timeline takes 2 words"},
        {"timeline", "timeline takes 2 words"},
        {"forces tree", "unknown verb 'forces'"},
    };
    assert_refused(bad, sizeof bad / sizeof bad[0]);
    /* The longest of each: taken; one more character: refused for its length. */
    static const char *const verbs[] = {"color", "scene", "bodies", "seed"};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        char text[120];
        snprintf(text, sizeof text, "%s %0*d", verbs[i], SERVE_VALUE_MAX, 1);
        assert_int_equal(read_text(text, &m, err, sizeof err), 0);
        assert_int_equal(strlen(m.value), SERVE_VALUE_MAX);
        snprintf(text, sizeof text, "%s %0*d", verbs[i], SERVE_VALUE_MAX + 1, 1);
        assert_int_equal(read_text(text, &m, err, sizeof err), -1);
        if (!strstr(err, "characters: the most is 48")) fail_msg("'%s': said '%s'", text, err);
    }
    char name[SERVE_NAME_MAX + 16];
    snprintf(name, sizeof name, "preset %0*d", SERVE_NAME_MAX, 1);
    assert_int_equal(read_text(name, &m, err, sizeof err), 0);
    assert_int_equal(strlen(m.value), SERVE_NAME_MAX);
    snprintf(name, sizeof name, "preset %0*d", SERVE_NAME_MAX + 1, 1);
    assert_int_equal(read_text(name, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "a name of 64 characters: the most is 63"));
    /* Every verb has its name. */
    for (int v = SERVE_SET; v < SERVE_VERB_END; v++) assert_string_not_equal(serve_verb_name((ServeVerb)v), "?");
}

static void test_tokens(void **state)
{
    char a[SERVE_TOKEN_LEN + 1], b[SERVE_TOKEN_LEN + 1], err[200];
    assert_int_equal(serve_token_make(a, err, sizeof err), 0);
    assert_int_equal(serve_token_make(b, err, sizeof err), 0);
    assert_int_equal(strlen(a), SERVE_TOKEN_LEN);
    assert_int_equal(strspn(a, "0123456789abcdef"), SERVE_TOKEN_LEN);
    assert_string_not_equal(a, b);
    assert_true(serve_token_equal(a, SERVE_TOKEN_LEN, a));
    assert_false(serve_token_equal(b, SERVE_TOKEN_LEN, a));
    /* One digit off anywhere, a prefix, a longer text, nothing: all refused. */
    for (int i = 0; i < SERVE_TOKEN_LEN; i++) {
        char off[SERVE_TOKEN_LEN + 1];
        memcpy(off, a, sizeof off);
        off[i] = off[i] == '0' ? '1' : '0';
        assert_false(serve_token_equal(off, SERVE_TOKEN_LEN, a));
    }
    assert_false(serve_token_equal(a, SERVE_TOKEN_LEN - 1, a));
    char longer[SERVE_TOKEN_LEN + 2];
    snprintf(longer, sizeof longer, "%s0", a);
    assert_false(serve_token_equal(longer, SERVE_TOKEN_LEN + 1, a));
    assert_false(serve_token_equal("", 0, a));
    assert_false(serve_token_equal(NULL, 0, a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_messages), cmocka_unit_test(test_junk), cmocka_unit_test(test_oversize),
        cmocka_unit_test(test_half_messages), cmocka_unit_test(test_panel_verbs), cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
