/* The HUD's and the console's rate of steps: a rate below one a second reads as its figures, not
 * as "0 steps/s" beside trillions of interactions a second (a million bodies on the CPU); the noun
 * agrees with the figure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/ui.h"

static void slow_rates_keep_their_figures(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(ui_steps_per_s(0.31, buf, sizeof buf), "0.31 steps/s");
    assert_string_equal(ui_steps_per_s(0.0042, buf, sizeof buf), "0.0042 steps/s");
    /* What it prints reads back as the rate, to its two figures. */
    for (double rate = 0.011; rate < 0.95; rate *= 1.37) {
        ui_steps_per_s(rate, buf, sizeof buf);
        const double back = strtod(buf, NULL);
        assert_true(back > 0);
        assert_true(back / rate > 0.94 && back / rate < 1.06);
    }
}

static void the_noun_agrees(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(ui_steps_per_s(0, buf, sizeof buf), "0 steps/s");
    assert_string_equal(ui_steps_per_s(1.2, buf, sizeof buf), "1 step/s");
    assert_string_equal(ui_steps_per_s(0.96, buf, sizeof buf), "1 step/s");
    assert_string_equal(ui_steps_per_s(41.4, buf, sizeof buf), "41 steps/s");
    assert_string_equal(ui_steps_per_s(-3, buf, sizeof buf), "0 steps/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slow_rates_keep_their_figures),
        cmocka_unit_test(the_noun_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
