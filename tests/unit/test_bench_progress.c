/* The bench's progress line: the count, the estimate of the time left, and what it leaves on a
 * terminal (one line rewritten in place, then nothing) and in a log (a plain line per cell). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/bench_progress.h"

static void time_left_is_the_pace_so_far(void **state)
{
    assert_true(bench_progress_left(6, 42, 30.0) == 30.0 * 36 / 6);
    for (int n = 1; n <= 50; n += 7)
        for (int k = 1; k <= n; k++) {
            const double t = 0.25 * k + 3;
            assert_true(fabs(bench_progress_left(k, n, t) - t * (n - k) / k) <= 1e-12 * t * n);
        }
    assert_true(bench_progress_left(42, 42, 100.0) == 0);
    assert_true(bench_progress_left(0, 42, 5.0) < 0); /* nothing done: unknown */
}

static void line_names_the_cell_and_the_time_left(void **state)
{
    char line[128];
    /* Six cells done in 6 s: 36 left at 1 s each. */
    bench_progress_line(line, sizeof line, 7, 42, "symmetric N=131072", 6.0);
    assert_string_equal(line, "bench: 7/42  symmetric N=131072  (about 36 s left)");
    /* The first cell has no pace to go by. */
    bench_progress_line(line, sizeof line, 1, 42, "naive N=4096, b256", 0.5);
    assert_string_equal(line, "bench: 1/42  naive N=4096, b256");
    bench_progress_line(line, sizeof line, 11, 102, "mtpb N=65536, q4 b256 r1", 300.0);
    assert_string_equal(line, "bench: 11/102  mtpb N=65536, q4 b256 r1  (about 46 min left)");
    bench_progress_line(line, sizeof line, 2, 4, "whole loop N=16384, 4 steps/frame", 3600.0);
    assert_string_equal(line, "bench: 2/4  whole loop N=16384, 4 steps/frame  (about 3.0 h left)");
    bench_progress_line(line, sizeof line, 42, 42, "x", 0.01);
    assert_non_null(strstr(line, "(about 1 s left)"));
}

/* Everything written to f since `from`, as a string. */
static void written(FILE *f, long from, char *buf, size_t len)
{
    fflush(f);
    long end = ftell(f);
    fseek(f, from, SEEK_SET);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fseek(f, end, SEEK_SET);
}

/* What a terminal shows on the line after the bytes s: "\r" goes back to its start, and each
 * character overwrites the one under the cursor. */
static void terminal_shows(const char *s, char *screen, size_t len)
{
    size_t cursor = 0, used = 0;
    memset(screen, 0, len);
    for (; *s; s++) {
        assert_true(*s != '\n');
        if (*s == '\r') {
            cursor = 0;
            continue;
        }
        assert_true(cursor + 1 < len);
        screen[cursor++] = *s;
        if (cursor > used) used = cursor;
    }
    while (used > 0 && screen[used - 1] == ' ') screen[--used] = '\0';
}

static void a_terminal_keeps_one_line_then_none(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    BenchProgress p;
    bench_progress_begin(&p, f, 3);
    p.terminal = true; /* as on a terminal */
    char out[1024], screen[256];

    bench_progress_step(&p, "tiled-unrolled N=1048576, b256");
    written(f, 0, out, sizeof out);
    terminal_shows(out, screen, sizeof screen);
    assert_string_equal(screen, "bench: 1/3  tiled-unrolled N=1048576, b256");

    /* A shorter line leaves nothing of the longer one before it. */
    bench_progress_step(&p, "mtpb");
    written(f, 0, out, sizeof out);
    terminal_shows(out, screen, sizeof screen);
    assert_non_null(strstr(screen, "bench: 2/3  mtpb"));
    assert_null(strstr(screen, "tiled"));

    /* Cleared: the line is blank, and the cursor at its start for what the bench prints next. */
    bench_progress_clear(&p);
    written(f, 0, out, sizeof out);
    terminal_shows(out, screen, sizeof screen);
    assert_string_equal(screen, "");
    assert_int_equal(out[strlen(out) - 1], '\r');

    /* A second clear writes nothing. */
    long before = ftell(f);
    bench_progress_clear(&p);
    written(f, before, out, sizeof out);
    assert_string_equal(out, "");
    fclose(f);
}

static void a_log_gets_a_plain_line_per_cell(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    BenchProgress p;
    bench_progress_begin(&p, f, 3);
    assert_false(p.terminal); /* a file is not a terminal */
    for (int i = 0; i < 3; i++) {
        bench_progress_step(&p, "cell");
        bench_progress_clear(&p);
    }
    char out[1024];
    written(f, 0, out, sizeof out);
    assert_null(strchr(out, '\r'));
    const char *line = out;
    for (int k = 1; k <= 3; k++) {
        char head[32];
        snprintf(head, sizeof head, "bench: %d/3  cell", k);
        assert_memory_equal(line, head, strlen(head));
        line = strchr(line, '\n');
        assert_non_null(line);
        line++;
    }
    assert_string_equal(line, "");
    fclose(f);
}

static void no_stream_counts_quietly(void **state)
{
    BenchProgress p;
    bench_progress_begin(&p, NULL, 2);
    bench_progress_step(&p, "a");
    bench_progress_step(&p, "b");
    bench_progress_clear(&p);
    assert_int_equal(p.started, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_left_is_the_pace_so_far),
        cmocka_unit_test(line_names_the_cell_and_the_time_left),
        cmocka_unit_test(a_terminal_keeps_one_line_then_none),
        cmocka_unit_test(a_log_gets_a_plain_line_per_cell),
        cmocka_unit_test(no_stream_counts_quietly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
