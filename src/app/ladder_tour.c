/* The kernel ladder's tour: which rung runs next, and when the tour ends. */
#include "app/ladder_tour.h"

#include <math.h>

#define TOP_RUNG ((SimKernel)(SIM_KERNEL_COUNT - 1))
/* A rung that was never timed after this many advances (no GPU clock) is passed over. */
#define MAX_ADVANCES (2 * LADDER_TOUR_ADVANCES)

SimKernel ladder_tour_start(LadderTour *t, SimKernel current)
{
    *t = (LadderTour){.active = true, .restore = current, .rung = TOP_RUNG};
    return t->rung;
}

static SimKernel finish(LadderTour *t)
{
    t->active = false;
    return t->restore;
}

/* The rung below, unless its advance is expected to take over max_seconds. */
static SimKernel descend(LadderTour *t, double interactions, double max_seconds)
{
    t->rung = (SimKernel)(t->rung - 1);
    t->advances = 0;
    t->levels++;
    if (t->rung < SIM_KERNEL_NAIVE) return finish(t);
    if (t->last_rate > 0) {
        double expected = t->last_rate / pow(LADDER_TOUR_STEP_FACTOR, t->levels);
        if (interactions / expected > max_seconds) return finish(t);
    }
    return t->rung;
}

SimKernel ladder_tour_after_advance(LadderTour *t, SimKernel running, double interactions, double rate,
                                    double rates[SIM_KERNEL_COUNT], double max_seconds)
{
    if (!t->active) return running;
    /* The switch to this rung did not happen (the backend refused it): go on below. */
    if (running != t->rung) return descend(t, interactions, max_seconds);
    t->advances++;
    if (t->advances >= LADDER_TOUR_ADVANCES && rate > 0) {
        rates[t->rung] = rate;
        t->last_rate = rate;
        t->levels = 0;
        return descend(t, interactions, max_seconds);
    }
    if (t->advances >= MAX_ADVANCES) return descend(t, interactions, max_seconds);
    return t->rung;
}
