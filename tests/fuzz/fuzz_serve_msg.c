/* The served page's message reader against arbitrary bytes, as a page could send them: the input
 * is cut into pieces (its first byte says where) and put together by serve_collect as the server
 * does, each whole message then read. It must refuse or accept, never crash or read out of bounds;
 * a refusal always says why in one line; what it accepts is a message it formats and reads back the
 * same, every verb's words in range (a preset's name trimmed, at most SERVE_NAME_MAX). Built with
 * clang's -fsanitize=fuzzer (`make fuzz FUZZ_TARGET=serve`), and with replay.c into a test that
 * feeds it every file in tests/fuzz/regressions-serve. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const char *buf, size_t len)
{
    ServeMsg m, again;
    char err[300] = "", text[SERVE_MSG_MAX + 64];
    memset(&m, 0xa5, sizeof m);
    const ServeMsg before = m;
    if (serve_msg_read(buf, len, &m, err, sizeof err) != 0) {
        if (!err[0] || strchr(err, '\n') || memcmp(&m, &before, sizeof m) != 0) abort();
        return;
    }
    if (m.verb < SERVE_SET || m.verb >= SERVE_VERB_END || m.field >= SERVE_FIELD_COUNT || m.key >= SERVE_KEY_COUNT)
        abort();
    const bool named = m.verb == SERVE_PRESET;
    if (strlen(m.value) > (named ? SERVE_NAME_MAX : SERVE_VALUE_MAX) || !isfinite(m.x) || !isfinite(m.y) ||
        fabs(m.x) > SERVE_MOVE_MAX || fabs(m.y) > SERVE_MOVE_MAX)
        abort();
    if ((m.verb == SERVE_FORCE && (m.choice < 0 || m.choice >= SERVE_FORCE_COUNT)) ||
        (m.verb == SERVE_HALO && (m.choice < 0 || m.choice >= SERVE_HALO_COUNT)) ||
        (m.verb == SERVE_TIMELINE && (m.choice < 0 || m.choice > SERVE_KEYFRAME_MAX)))
        abort();
    if (named && (m.value[0] == ' ' || m.value[0] == '\0' || m.value[strlen(m.value) - 1] == ' ')) abort();
    serve_msg_format(&m, text, sizeof text);
    if (serve_msg_read(text, strlen(text), &again, err, sizeof err) != 0 || again.verb != m.verb) abort();
    if (again.field != m.field || strcmp(again.value, m.value) != 0 || again.choice != m.choice) abort();
    if (m.verb == SERVE_KEY && again.key != m.key) abort();
    if ((m.verb == SERVE_ORBIT || m.verb == SERVE_PAN || m.verb == SERVE_ZOOM) && (again.x != m.x || again.y != m.y))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    /* Pieces of 1 + data[0] % 64 bytes; a byte 0xff ends a message where it falls. */
    const size_t step = 1 + data[0] % 64;
    ServeCollect c = {.len = 0};
    for (size_t at = 1; at < size;) {
        size_t n = size - at < step ? size - at : step;
        const uint8_t *end = memchr(data + at, 0xff, n);
        const bool last = end != NULL || at + n == size;
        if (end) n = (size_t)(end - (data + at));
        const ServeCollected r = serve_collect(&c, data + at, n, last);
        if (c.len > SERVE_MSG_MAX) abort();
        if (r == SERVE_COLLECT_DONE) check_message(c.buf, c.len);
        at += n + (end != NULL);
    }
    return 0;
}
