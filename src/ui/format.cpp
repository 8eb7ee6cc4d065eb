// Numbers as the HUD and the ladder write them: short exponents, grouped digits, units that agree
// with the figure.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

// "1.95e12": printf's exponent without its plus sign and leading zeros.
const char *ui_compact_exp(double x, char *buf, size_t len)
{
    snprintf(buf, len, "%.2e", x);
    char *e = strchr(buf, 'e');
    if (!e) return buf;
    char *from = e + 1, *to = e + 1;
    if (*from == '+') from++;
    else if (*from == '-') *to++ = *from++;
    while (from[0] == '0' && from[1]) from++;
    memmove(to, from, strlen(from) + 1);
    return buf;
}

// "2.1 PFLOP/s": GFLOP/s with the prefix that keeps the figure under 1000 (G, T, P, E).
const char *ui_flops(double gflops, char *buf, size_t len)
{
    static const char prefix[] = "GTPE";
    int p = 0;
    while (p < 3 && fabs(gflops) >= 999.95) {
        gflops *= 1e-3;
        p++;
    }
    snprintf(buf, len, "%.1f %cFLOP/s", gflops, prefix[p]);
    return buf;
}

// "131,072".
const char *ui_grouped(int n, char *buf, size_t len)
{
    char digits[16];
    int d = snprintf(digits, sizeof digits, "%d", n < 0 ? -n : n), o = 0;
    if (n < 0 && o + 1 < (int)len) buf[o++] = '-';
    for (int i = 0; i < d && o + 2 < (int)len; i++) {
        if (i > 0 && (d - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

extern "C" const char *ui_steps_per_s(double rate, char *buf, size_t len)
{
    if (rate > 0 && rate < 0.95) snprintf(buf, len, "%.2g steps/s", rate);
    else snprintf(buf, len, "%.0f %s", rate > 0 ? rate : 0.0, lround(rate) == 1 ? "step/s" : "steps/s");
    return buf;
}
