/* SWIFT's run parameters as Starburst's settings (swift_params.h). */
#include "scene/swift_params.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More halvings than SWIFT's integer time line holds (2^56 steps). */
#define SWIFT_MAX_LOG2_STEPS 64

double swift_params_step(const SwiftParams *p)
{
    if (!(p->dt_max > 0)) return 0;
    const double span = p->time_end - p->time_begin;
    if (!p->has_span || !(span > 0)) return p->dt_max;
    int k = 0;
    while (k < SWIFT_MAX_LOG2_STEPS && ldexp(span, -k) > p->dt_max) k++;
    return ldexp(span, -k);
}

double swift_params_softening(const SwiftParams *p)
{
    return p->max_physical_softening > 0 ? p->max_physical_softening
           : p->comoving_softening > 0  ? p->comoving_softening
                                        : 0;
}

/* "  key:   value  # comment" under section: the value, where it is a number. */
static void take(const char *section, const char *key, const char *value, SwiftParams *p)
{
    char *end;
    const double v = strtod(value, &end);
    if (end == value) return;
    if (strcmp(section, "TimeIntegration") == 0) {
        if (strcmp(key, "dt_max") == 0) p->dt_max = v;
        else if (strcmp(key, "time_begin") == 0) p->time_begin = v, p->has_span |= 1;
        else if (strcmp(key, "time_end") == 0) p->time_end = v, p->has_span |= 2;
    } else if (strcmp(section, "Gravity") == 0) {
        if (strcmp(key, "max_physical_DM_softening") == 0) p->max_physical_softening = v;
        else if (strcmp(key, "comoving_DM_softening") == 0) p->comoving_softening = v;
    }
}

int swift_params_read_yml(const char *path, SwiftParams *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 1;
        snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
        return -1;
    }
    char line[1024], section[128] = "";
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = '\0';
        const bool indented = line[0] == ' ' || line[0] == '\t';
        char *key = line + strspn(line, " \t");
        key[strcspn(key, " \t")] = '\0';
        if (!indented) snprintf(section, sizeof section, "%s", key);
        else take(section, key, colon + 1, p);
    }
    const bool bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: cannot read it", path);
        return -1;
    }
    p->has_span = p->has_span == 3;
    return 0;
}
