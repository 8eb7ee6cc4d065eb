/* The run's clock counts the frames' time, and a frame in which the process was continued after a
 * stop as long as the frame before it. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "app/run_clock.h"

static void frames_add_up(void **state)
{
    (void)state;
    RunClock c;
    run_clock_start(&c, 100.0);
    run_clock_frame(&c, 100.5);
    run_clock_frame(&c, 101.25);
    assert_float_equal(run_clock_seconds(&c, 102.0), 2.0, 1e-12);
}

static void a_stop_counts_as_a_frame(void **state)
{
    (void)state;
    RunClock c;
    run_clock_start(&c, 0.0);
    run_clock_frame(&c, 0.25);
    run_clock_frame(&c, 0.5);
    raise(SIGCONT); /* as after ctrl+Z and fg: the next frame took 30 s of wall time */
    run_clock_frame(&c, 30.5);
    assert_float_equal(c.running, 0.75, 1e-12);
    run_clock_frame(&c, 30.75); /* and the frames after it count in full again */
    assert_float_equal(run_clock_seconds(&c, 31.0), 1.25, 1e-12);
    /* A start forgets a continue before it. */
    raise(SIGCONT);
    run_clock_start(&c, 40.0);
    assert_float_equal(run_clock_seconds(&c, 41.0), 1.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_add_up),
        cmocka_unit_test(a_stop_counts_as_a_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
