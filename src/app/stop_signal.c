/* Stop requests by signal. The handler does the least that is async-signal-safe: it stores the
 * signal's number in a volatile sig_atomic_t; or, when a stop is already asked for, it writes one
 * line saying so, puts the signal's default action back and raises it again, which ends the program as soon as the
 * handler returns (the signal is blocked inside its own handler). write, strlen, sigaction and
 * raise are all async-signal-safe.
 *
 * The program ends by the signal rather than by exit(128 + n): a shell running a script waits for
 * its foreground child, and when Ctrl+C reached both it stops the script only if the child died
 * of SIGINT; a child that exits 130 is taken to have handled Ctrl+C as input. */
#include "app/stop_signal.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { STOP_SIGNAL_COUNT = sizeof stop_signals / sizeof stop_signals[0] };

static volatile sig_atomic_t requested;

static void set_action(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void on_stop_signal(int sig)
{
    if (requested == 0) {
        requested = sig;
        /* Ctrl+C reaches a `| tee` as well, and a closing terminal takes its pipes with it: from
         * now on a write to a pipe with no reader fails instead of ending the program before the
         * save. */
        set_action(SIGPIPE, SIG_IGN);
        return;
    }
    /* The end comes at once, with no line of the program's own: this one says so. */
    const char *said = sig == SIGINT    ? "starburst: a second SIGINT: stopped at once, nothing saved\n"
                       : sig == SIGTERM ? "starburst: a second SIGTERM: stopped at once, nothing saved\n"
                                        : "starburst: a second SIGHUP: stopped at once, nothing saved\n";
    if (write(STDERR_FILENO, said, strlen(said)) < 0) {
        /* nothing more can be said */
    }
    set_action(sig, SIG_DFL);
    raise(sig);
}

void stop_signal_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART;
    /* One handler at a time, whichever thread takes the signal: a second signal is seen as one. */
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < STOP_SIGNAL_COUNT; i++) sigaddset(&sa.sa_mask, stop_signals[i]);
    for (int i = 0; i < STOP_SIGNAL_COUNT; i++) {
        struct sigaction old;
        if (sigaction(stop_signals[i], NULL, &old) != 0) continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
        sigaction(stop_signals[i], &sa, NULL);
    }
}

int stop_signal_requested(void) { return requested; }

const char *stop_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

int stop_signal_finish(int status, const char *save_path, bool quiet)
{
    const int sig = requested;
    if (sig == 0) return status;
    if (status != 0) {
        if (!quiet) fprintf(stderr, "starburst: interrupted by %s\n", stop_signal_name(sig));
        return status;
    }
    if (!quiet) {
        if (save_path) fprintf(stderr, "starburst: interrupted by %s: saved %s\n", stop_signal_name(sig), save_path);
        else fprintf(stderr, "starburst: interrupted by %s: stopping\n", stop_signal_name(sig));
    }
    /* Raising the signal ends the program without the flush that exit() does. */
    fflush(NULL);
    set_action(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
    return 128 + sig;
}
