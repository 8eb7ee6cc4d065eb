/* Stop requests by signal: the first is recorded, a second ends the program at once, an ignored
 * signal stays ignored, a pipe without a reader no longer ends a stopping program, and the end of
 * a stopped run dies of its signal. Each case runs in a child process of its own, since the
 * handlers and the request are the process's. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_skip.h"

#include "app/stop_signal.h"

/* Runs body in a child with the three signals and SIGPIPE at their defaults; returns its wait
 * status. */
static int in_child(int (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        _exit(body());
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static int first_signal_is_recorded(void)
{
    stop_signal_install();
    if (stop_signal_requested() != 0) return 10;
    raise(SIGTERM);
    return stop_signal_requested() == SIGTERM ? 0 : 11;
}

static void records_the_first_signal(void **state)
{
    const int status = in_child(first_signal_is_recorded);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* After a stop request, a write to a pipe whose reader is gone fails instead of ending the
 * program before its save. */
static int pipe_without_reader(void)
{
    int fds[2];
    if (pipe(fds) != 0) return 12;
    close(fds[0]);
    stop_signal_install();
    raise(SIGINT);
    if (write(fds[1], "x", 1) != -1 || errno != EPIPE) return 13;
    return 0;
}

static void a_closed_pipe_does_not_end_a_stopping_run(void **state)
{
    const int status = in_child(pipe_without_reader);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static int second_signal(void)
{
    stop_signal_install();
    raise(SIGINT);
    raise(SIGINT);
    return 20; /* still alive */
}

/* The child's stderr, for the line a second signal leaves. */
static char said_path[] = "/tmp/starburst-stop-XXXXXX";

static int second_signal_said(void)
{
    FILE *f = freopen(said_path, "w", stderr);
    if (!f) return 21;
    return second_signal();
}

static void a_second_signal_ends_at_once(void **state)
{
    const int status = in_child(second_signal);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
    /* It says, in one line, that it stopped without a save. */
    const int fd = mkstemp(said_path);
    assert_true(fd >= 0);
    close(fd);
    const int again = in_child(second_signal_said);
    assert_true(WIFSIGNALED(again));
    char line[256] = "";
    FILE *f = fopen(said_path, "r");
    assert_non_null(f);
    const size_t got = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    unlink(said_path);
    line[got] = '\0';
    print_message("%s", line);
    assert_non_null(strstr(line, "SIGINT"));
    assert_non_null(strstr(line, "nothing saved"));
    assert_non_null(strchr(line, '\n'));
    assert_true(strchr(line, '\n') == line + got - 1); /* one line */
}

static int ignored_hangup(void)
{
    signal(SIGHUP, SIG_IGN);
    stop_signal_install();
    raise(SIGHUP);
    if (stop_signal_requested() != 0) return 30;
    raise(SIGINT); /* the others are still caught */
    return stop_signal_requested() == SIGINT ? 0 : 31;
}

static void an_ignored_signal_stays_ignored(void **state)
{
    const int status = in_child(ignored_hangup);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static int finish_after_hangup(void)
{
    stop_signal_install();
    raise(SIGHUP);
    return stop_signal_finish(0, "run.tipsy", true) == 128 + SIGHUP ? 40 : 41;
}

static void a_stopped_run_dies_of_its_signal(void **state)
{
    const int status = in_child(finish_after_hangup);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGHUP);
}

static int finish_after_failure(void)
{
    stop_signal_install();
    raise(SIGINT);
    return stop_signal_finish(1, "run.tipsy", true);
}

static int finish_unasked(void)
{
    stop_signal_install();
    return stop_signal_finish(3, NULL, true);
}

static void a_failed_or_unasked_run_keeps_its_status(void **state)
{
    int status = in_child(finish_after_failure);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    status = in_child(finish_unasked);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(records_the_first_signal),
        cmocka_unit_test(a_closed_pipe_does_not_end_a_stopping_run),
        cmocka_unit_test(a_second_signal_ends_at_once),
        cmocka_unit_test(an_ignored_signal_stays_ignored),
        cmocka_unit_test(a_stopped_run_dies_of_its_signal),
        cmocka_unit_test(a_failed_or_unasked_run_keeps_its_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
