#include "bench/bench_progress.h"
#include "util/clock.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* Wide enough for every line the bench writes, narrow enough not to wrap on an 80-column
 * terminal, where "\r" would return only to the start of the last row. */
#define LINE_MAX_CHARS 79

double bench_progress_left(int done, int count, double elapsed)
{
    if (done <= 0) return -1;
    return elapsed * (count - done) / done;
}

int bench_progress_line(char *buf, size_t len, int k, int count, const char *what, double elapsed)
{
    const double left = bench_progress_left(k - 1, count, elapsed);
    char eta[48] = "";
    if (left >= 0) {
        if (left < 90) snprintf(eta, sizeof eta, "  (about %.0f s left)", fmax(1, round(left)));
        else if (left < 90 * 60) snprintf(eta, sizeof eta, "  (about %.0f min left)", round(left / 60));
        else snprintf(eta, sizeof eta, "  (about %.1f h left)", left / 3600);
    }
    return snprintf(buf, len, "bench: %d/%d  %s%s", k, count, what ? what : "", eta);
}

void bench_progress_begin(BenchProgress *p, FILE *out, int count)
{
    *p = (BenchProgress){.out = out, .terminal = out && isatty(fileno(out)), .count = count, .start = clock_seconds()};
}

void bench_progress_step(BenchProgress *p, const char *what)
{
    p->started++;
    if (!p->out) return;
    char line[LINE_MAX_CHARS + 1];
    bench_progress_line(line, sizeof line, p->started, p->count, what, clock_seconds() - p->start);
    if (!p->terminal) {
        fprintf(p->out, "%s\n", line);
        return;
    }
    const int n = (int)strlen(line);
    /* Spaces cover what is left of a longer line before it. */
    fprintf(p->out, "\r%s%*s", line, p->shown > n ? p->shown - n : 0, "");
    fflush(p->out);
    p->shown = n;
}

void bench_progress_clear(BenchProgress *p)
{
    if (!p->out || !p->terminal || !p->shown) return;
    fprintf(p->out, "\r%*s\r", p->shown, "");
    fflush(p->out);
    p->shown = 0;
}
