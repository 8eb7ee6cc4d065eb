/* `starburst bench ...` as main.c hands it over: bench_main with argv[0] "bench". --help prints
 * the bench's usage and exits 0; a bad option exits 2 with one line on stderr that names it, before
 * anything is timed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench.h"
#include "util/params.h"

/* Runs bench_main on argv with stream fd (1 or 2) sent to a file; what was written lands in out. */
static int run_capturing(int fd, char **argv, int argc, char *out, size_t len)
{
    FILE *stream = fd == 1 ? stdout : stderr;
    fflush(stream);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    const int saved = dup(fd);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), fd) >= 0);
    const int rc = bench_main(argc, argv);
    fflush(stream);
    assert_true(dup2(saved, fd) >= 0);
    close(saved);
    rewind(tmp);
    const size_t got = fread(out, 1, len - 1, tmp);
    out[got] = '\0';
    fclose(tmp);
    return rc;
}

static void help_prints_the_bench_usage(void **state)
{
    char *argv[] = {"bench", "--help", NULL};
    char out[8192];
    assert_int_equal(run_capturing(1, argv, 2, out, sizeof out), 0);
    assert_memory_equal(out, "usage: starburst bench [options]\n", strlen("usage: starburst bench [options]\n"));
}

static void a_bad_option_is_one_line_and_status_2(void **state)
{
    char *unknown[] = {"bench", "--bogus", NULL};
    char out[1024];
    assert_int_equal(run_capturing(2, unknown, 2, out, sizeof out), 2);
    assert_string_equal(out, "starburst: bench: unknown option '--bogus' (see starburst bench --help)\n");

    char *range[] = {"bench", "--force", "tree", "--theta", "2", NULL};
    assert_int_equal(run_capturing(2, range, 5, out, sizeof out), 2);
    /* The range is the parameter table's, as the viewer's --theta says it. */
    char range_text[64], want[256];
    params_range_text(PARAM_THETA, range_text, sizeof range_text);
    snprintf(want, sizeof want, "starburst: bench: --theta: '2' is too large: expected %s", range_text);
    assert_true(strncmp(out, want, strlen(want)) == 0);
    assert_non_null(strstr(out, "1.5"));
    assert_int_equal(strchr(out, '\n') - out, (long)strlen(out) - 1); /* one line */

    char *conflict[] = {"bench", "--force", "tree", "--sweep", NULL};
    assert_int_equal(run_capturing(2, conflict, 4, out, sizeof out), 2);
    assert_string_equal(out, "starburst: bench: --force tree times the tree alone: it does not go with --sweep\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_prints_the_bench_usage),
        cmocka_unit_test(a_bad_option_is_one_line_and_status_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
