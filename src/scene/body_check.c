#include "scene/body_check.h"

#include <math.h>
#include <stdio.h>

#include "util/params.h"

#define BODY_CHECK_LIMIT 1e18f

static int beyond(const float x[3])
{
    return fabsf(x[0]) > BODY_CHECK_LIMIT || fabsf(x[1]) > BODY_CHECK_LIMIT || fabsf(x[2]) > BODY_CHECK_LIMIT;
}

const char *body_check_fault(const float pos[3], const float vel[3], float mass)
{
    if (!isfinite(mass)) return "a mass that is not finite";
    if (mass < 0) return "a negative mass";
    if (mass == 0) return "a mass of 0";
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2])) return "a position that is not finite";
    if (!isfinite(vel[0]) || !isfinite(vel[1]) || !isfinite(vel[2])) return "a velocity that is not finite";
    if (beyond(pos)) return "a position beyond 1e18";
    if (beyond(vel)) return "a velocity beyond 1e18";
    return NULL;
}

int body_check(const char *path, long long index, const char *what, const float pos[3], const float vel[3],
               float mass, char *err, size_t errlen)
{
    const char *fault = body_check_fault(pos, vel, mass);
    if (!fault) return 0;
    snprintf(err, errlen, "%s: body %lld%s%s has %s", path, index, what ? " " : "", what ? what : "", fault);
    return -1;
}

int body_check_time(const char *path, double time, char *err, size_t errlen)
{
    if (isfinite(time)) return 0;
    snprintf(err, errlen, "%s: its time is not a finite number (%g)", path, time);
    return -1;
}

int body_check_count(const char *path, long long n, char *err, size_t errlen)
{
    const Param *p = params_get(PARAM_BODIES);
    if (n >= p->min && n <= p->max) return 0;
    snprintf(err, errlen, "%s: holds %lld bodies; Starburst reads %.0f to %.0f", path, n, p->min, p->max);
    return -1;
}
