/* The app's two voices: a notice on screen that fades after a few seconds, and a line on stderr
 * that --quiet silences. Only src/app prints. */
#include <stdarg.h>
#include <stdio.h>

#include "app/app_internal.h"
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
    if (a->opt.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}
