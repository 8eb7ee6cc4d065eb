#include "app/run_clock.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t continued;

static void on_continue(int sig)
{
    (void)sig;
    continued = 1;
}

void run_clock_start(RunClock *c, double t)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_continue;
        sa.sa_flags = SA_RESTART; /* a read or write under way when the process is continued goes on */
        sigemptyset(&sa.sa_mask);
        installed = sigaction(SIGCONT, &sa, NULL) == 0;
    }
    continued = 0;
    *c = (RunClock){.last = t};
}

void run_clock_frame(RunClock *c, double t)
{
    double span = t - c->last;
    if (continued) {
        continued = 0;
        if (span > c->frame) span = c->frame;
    }
    c->frame = span;
    c->running += span;
    c->last = t;
}

double run_clock_seconds(RunClock *c, double t)
{
    run_clock_frame(c, t);
    return c->running;
}
