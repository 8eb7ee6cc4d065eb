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
#include "sim/sim.h"
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

/* out is one line, the message of a refusal: "starburst: bench: ..." once, never "bench: bench:". */
static void assert_one_line(const char *out)
{
    assert_true(strncmp(out, "starburst: bench: ", strlen("starburst: bench: ")) == 0);
    assert_null(strstr(out, "bench: bench:"));
    assert_int_equal(strchr(out, '\n') - out, (long)strlen(out) - 1);
}

/* Each refused before anything is timed, with a line that says what is wrong. */
static void refused_up_front_with_the_reason(void **state)
{
    (void)state;
    char out[1024];
    /* A kernel unknown: the line names every kernel the ladder has. */
    char *kernel[] = {"bench", "--kernel", "bogus", NULL};
    assert_int_equal(run_capturing(2, kernel, 3, out, sizeof out), 2);
    assert_one_line(out);
    for (int k = SIM_KERNEL_NAIVE; k < SIM_KERNEL_COUNT; k++) {
        char name[40];
        snprintf(name, sizeof name, " %s,", sim_kernel_name((SimKernel)k));
        assert_non_null(strstr(out, name));
    }
    assert_non_null(strstr(out, "mtpb-f64"));

    /* The CPU's tree is rebuilt every step: --rebuild is the GPU tree's. */
    char *rebuild[] = {"bench", "--rebuild", "4", "--force", "tree", "--backend", "cpu", NULL};
    assert_int_equal(run_capturing(2, rebuild, 7, out, sizeof out), 2);
    assert_one_line(out);
    assert_non_null(strstr(out, "--rebuild 4"));
    assert_non_null(strstr(out, "every step"));

    /* A CSV that cannot be written, said at once. */
    char *csv[] = {"bench", "--csv", "/nonexistent/x.csv", "--force", "tree", "--backend", "cpu", "-n", "1024", NULL};
    assert_int_equal(run_capturing(2, csv, 9, out, sizeof out), 2);
    assert_one_line(out);
    assert_non_null(strstr(out, "--csv"));
    assert_non_null(strstr(out, "/nonexistent"));

    /* One value, not a list. */
    char *frames[] = {"bench", "--frames", "-1", NULL};
    assert_int_equal(run_capturing(2, frames, 3, out, sizeof out), 2);
    assert_one_line(out);
    assert_null(strstr(out, "list"));
    assert_non_null(strstr(out, "'-1' is not a whole number from 1 to"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_prints_the_bench_usage),
        cmocka_unit_test(a_bad_option_is_one_line_and_status_2),
        cmocka_unit_test(refused_up_front_with_the_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
