#include "run/undo.h"

#include <stdio.h>
#include <string.h>

/* Positions, velocities and tags, and the accelerations the next step reads where they are kept. */
static size_t state_bytes(const Bodies *b)
{
    return (size_t)b->n * (8 * sizeof(float) + 1 + (b->acc ? 3 * sizeof(float) : 0));
}

static void drop_oldest(UndoHistory *h)
{
    bodies_free(&h->entries[0].state);
    memmove(h->entries, h->entries + 1, (size_t)(h->count - 1) * sizeof h->entries[0]);
    h->count--;
    memset(&h->entries[h->count], 0, sizeof h->entries[0]);
}

int undo_push(UndoHistory *h, const SimParams *params, const Bodies *state, double time, long long step, char *err,
              size_t errlen)
{
    const size_t bytes = state_bytes(state);
    if (bytes > UNDO_MAX_BYTES) {
        snprintf(err, errlen, "%d bodies take more memory than undo keeps (%zu MiB)", state->n,
                 UNDO_MAX_BYTES >> 20);
        return -1;
    }
    while (h->count > 0 && (h->count == UNDO_MAX_ENTRIES || (size_t)(h->count + 1) * bytes > UNDO_MAX_BYTES))
        drop_oldest(h);
    UndoEntry *e = &h->entries[h->count];
    memset(e, 0, sizeof *e);
    if (bodies_copy(&e->state, state) != 0) {
        snprintf(err, errlen, "out of memory for a copy of %d bodies", state->n);
        return -1;
    }
    e->params = *params;
    e->time = time;
    e->step = step;
    h->count++;
    return 0;
}

bool undo_pop(UndoHistory *h, UndoEntry *out)
{
    if (h->count == 0) return false;
    *out = h->entries[--h->count];
    memset(&h->entries[h->count], 0, sizeof h->entries[0]);
    return true;
}

void undo_clear(UndoHistory *h)
{
    for (int i = 0; i < h->count; i++) bodies_free(&h->entries[i].state);
    memset(h, 0, sizeof *h);
}
