/* The app's voices: a notice on screen that fades after a few seconds, a line on stderr that
 * --quiet silences, and a headless run's progress, written in place on a terminal and as
 * separate lines, fewer, into a log (a \r there would run them together). Only src/app prints. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "app/viewer.h"
#include "util/clock.h"

/* A message on screen, fading after a few seconds; longer ones are cut. */
void app_notify(App *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg.notice, sizeof a->msg.notice, fmt, ap);
    va_end(ap);
    a->msg.notice_at = clock_seconds();
}

void app_say(const App *a, const char *fmt, ...)
{
    if (a->set.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void app_progress(App *a, double t, const char *fmt, ...)
{
    if (!a->msg.tty_known) {
        a->msg.tty = isatty(STDERR_FILENO) == 1;
        a->msg.tty_known = true;
    }
    if (a->set.quiet || t - a->loop.last_progress < (a->msg.tty ? 1.0 : PROGRESS_LOG_SECONDS)) return;
    a->loop.last_progress = t;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc(a->msg.tty ? '\r' : '\n', stderr);
    a->msg.progress_open = a->msg.tty;
}

void app_progress_end(App *a)
{
    if (a->msg.progress_open) fputc('\n', stderr);
    a->msg.progress_open = false;
}
