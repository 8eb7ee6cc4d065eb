/* The kernel ladder's tour: which rung runs next, and when the tour ends. */
#include "app/ladder_tour.h"

#include <math.h>

/* A rung that was never timed after this many advances (no GPU clock) is passed over. */
#define MAX_ADVANCES (2 * LADDER_TOUR_ADVANCES)

int ladder_tour_start(LadderTour *t, int current)
{
    *t = (LadderTour){.active = true, .restore = current, .rung = UI_RUNG_TREE};
    return t->rung;
}

static int finish(LadderTour *t)
{
    t->active = false;
    return t->restore;
}

/* The rung below, unless its advance is expected to take over max_seconds: from the last direct
 * rung timed, slower by LADDER_TOUR_STEP_FACTOR a rung, or at most LADDER_TOUR_DIRECT_MAX_RATE
 * when none was. */
static int descend(LadderTour *t, double interactions, double max_seconds)
{
    t->rung--;
    t->advances = 0;
    t->levels++;
    if (t->rung < SIM_KERNEL_NAIVE) return finish(t);
    const double expected = t->last_rate > 0 ? t->last_rate / pow(LADDER_TOUR_STEP_FACTOR, t->levels)
                                             : LADDER_TOUR_DIRECT_MAX_RATE;
    if (interactions / expected > max_seconds) return finish(t);
    return t->rung;
}

int ladder_tour_after_advance(LadderTour *t, int running, double interactions, double rate, double rates[UI_RUNGS],
                              double max_seconds)
{
    if (!t->active) return running;
    /* The switch to this rung did not happen (the backend refused it): go on below. */
    if (running != t->rung) return descend(t, interactions, max_seconds);
    t->advances++;
    if (t->advances >= LADDER_TOUR_ADVANCES && rate > 0) {
        rates[t->rung] = rate;
        if (t->rung != UI_RUNG_TREE) {
            t->last_rate = rate;
            t->levels = 0;
        }
        return descend(t, interactions, max_seconds);
    }
    if (t->advances >= MAX_ADVANCES) return descend(t, interactions, max_seconds);
    return t->rung;
}
