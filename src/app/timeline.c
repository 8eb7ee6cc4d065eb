#include "app/timeline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Keyframe {
    long long step;
    double time;
    float *state; /* 8n floats: the positions (float4), then the velocities (float4) */
} Keyframe;

struct Timeline {
    size_t budget;
    int n;
    uint8_t *tag;
    Keyframe *frames; /* oldest first; room for capacity */
    int count, capacity;
    long long spacing;
    /* The future a cut set aside, and the step of the frame it was cut after. */
    Keyframe *future;
    int future_count;
    long long cut_step;
};

size_t timeline_frame_bytes(int n) { return (size_t)n * 8 * sizeof(float) + sizeof(Keyframe); }

Timeline *timeline_create(size_t budget_bytes)
{
    Timeline *t = calloc(1, sizeof *t);
    if (t) t->budget = budget_bytes;
    return t;
}

static void free_frames(Keyframe *f, int count)
{
    for (int i = 0; i < count; i++) free(f[i].state);
}

static void free_future(Timeline *t)
{
    free_frames(t->future, t->future_count);
    t->future_count = 0;
}

static void clear(Timeline *t)
{
    free_frames(t->frames, t->count);
    free_future(t);
    free(t->frames);
    free(t->future);
    free(t->tag);
    t->frames = t->future = NULL;
    t->tag = NULL;
    t->count = t->capacity = t->n = 0;
}

void timeline_destroy(Timeline *t)
{
    if (!t) return;
    clear(t);
    free(t);
}

/* A frame of b, or NULL when memory ran out. */
static float *copy_state(const Bodies *b)
{
    const size_t floats = (size_t)b->n * 4;
    float *s = malloc(2 * floats * sizeof(float));
    if (!s) return NULL;
    memcpy(s, b->pos, floats * sizeof(float));
    memcpy(s + floats, b->vel, floats * sizeof(float));
    return s;
}

int timeline_start(Timeline *t, const Bodies *first, double time, long long step, long long spacing, char *err,
                   size_t errlen)
{
    clear(t);
    const size_t frame = timeline_frame_bytes(first->n), tags = (size_t)first->n;
    const size_t capacity = t->budget > tags ? (t->budget - tags) / frame : 0;
    if (capacity < 2) {
        snprintf(err, errlen, "a keyframe of %d bodies takes %.1f MB; a budget of %.1f MB holds fewer than two",
                 first->n, frame / 1e6, t->budget / 1e6);
        return -1;
    }
    t->capacity = capacity > (size_t)(1 << 24) ? 1 << 24 : (int)capacity;
    t->frames = calloc((size_t)t->capacity, sizeof *t->frames);
    t->future = calloc((size_t)t->capacity, sizeof *t->future);
    t->tag = malloc(tags ? tags : 1);
    float *state = copy_state(first);
    if (!t->frames || !t->future || !t->tag || !state) {
        free(state);
        clear(t);
        snprintf(err, errlen, "out of memory for the timeline of %d bodies", first->n);
        return -1;
    }
    if (first->tag) memcpy(t->tag, first->tag, tags);
    else memset(t->tag, 0, tags);
    t->n = first->n;
    t->spacing = spacing > 0 ? spacing : 1;
    t->frames[0] = (Keyframe){.step = step, .time = time, .state = state};
    t->count = 1;
    return 0;
}

bool timeline_due(const Timeline *t, long long step)
{
    if (t->count == 0) return false;
    const long long last = t->frames[t->count - 1].step;
    return step < last || step - last >= t->spacing;
}

/* Every other frame goes, counting from the first; the last stays. The spacing doubles. */
static void thin(Timeline *t)
{
    int kept = 0;
    for (int i = 0; i < t->count; i++) {
        if (i % 2 == 0 || i == t->count - 1) t->frames[kept++] = t->frames[i];
        else free(t->frames[i].state);
    }
    memset(t->frames + kept, 0, (size_t)(t->count - kept) * sizeof *t->frames);
    t->count = kept;
    t->spacing *= 2;
}

int timeline_add(Timeline *t, const Bodies *b, double time, long long step, TimelineAdded *added, char *err,
                 size_t errlen)
{
    TimelineAdded none = {0};
    if (!added) added = &none;
    *added = (TimelineAdded){0};
    if (t->count == 0 || b->n != t->n) {
        snprintf(err, errlen, "a keyframe of %d bodies on a timeline of %d", b->n, t->n);
        return -1;
    }
    /* A run that went back to before the last frame goes on from there: what came after is gone. */
    timeline_drop_after(t, step - 1);
    if (t->count + t->future_count >= t->capacity && t->future_count > 0) {
        added->future_freed = t->future_count;
        free_future(t);
    }
    if (t->count >= t->capacity) {
        thin(t);
        added->thinned = true;
    }
    float *state = copy_state(b);
    if (!state) {
        snprintf(err, errlen, "out of memory for a keyframe of %d bodies", b->n);
        return -1;
    }
    t->frames[t->count++] = (Keyframe){.step = step, .time = time, .state = state};
    return 0;
}

int timeline_count(const Timeline *t) { return t->count; }
int timeline_capacity(const Timeline *t) { return t->capacity; }
int timeline_bodies(const Timeline *t) { return t->n; }
long long timeline_spacing(const Timeline *t) { return t->spacing; }
size_t timeline_budget(const Timeline *t) { return t->budget; }

size_t timeline_bytes_used(const Timeline *t)
{
    if (t->n == 0) return 0;
    return (size_t)(t->count + t->future_count) * timeline_frame_bytes(t->n) + (size_t)t->n;
}

double timeline_time(const Timeline *t, int i) { return i >= 0 && i < t->count ? t->frames[i].time : 0; }
long long timeline_step(const Timeline *t, int i) { return i >= 0 && i < t->count ? t->frames[i].step : 0; }

int timeline_find(const Timeline *t, long long step)
{
    if (t->count == 0) return -1;
    int lo = 0, hi = t->count - 1; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (t->frames[mid].step <= step) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int timeline_load(const Timeline *t, int i, Bodies *out)
{
    if (i < 0 || i >= t->count || out->n != t->n) return -1;
    const size_t floats = (size_t)t->n * 4;
    memcpy(out->pos, t->frames[i].state, floats * sizeof(float));
    memcpy(out->vel, t->frames[i].state + floats, floats * sizeof(float));
    if (out->tag) memcpy(out->tag, t->tag, (size_t)t->n);
    return 0;
}

int timeline_cut(Timeline *t, int i)
{
    if (i < 0 || i >= t->count - 1) return 0;
    free_future(t);
    const int moved = t->count - 1 - i;
    memcpy(t->future, t->frames + i + 1, (size_t)moved * sizeof *t->frames);
    memset(t->frames + i + 1, 0, (size_t)moved * sizeof *t->frames);
    t->future_count = moved;
    t->count = i + 1;
    t->cut_step = t->frames[i].step;
    return moved;
}

int timeline_future_count(const Timeline *t) { return t->future_count; }

int timeline_restore(Timeline *t)
{
    if (t->future_count == 0) return 0;
    timeline_drop_after(t, t->cut_step);
    /* The frames thinned since the cut may have left room for fewer: the oldest of the future
     * stay, the newest go first. (The cut frame itself may have been thinned away; the future
     * still follows the frames before it.) */
    int room = t->capacity - t->count, restored = t->future_count < room ? t->future_count : room;
    memcpy(t->frames + t->count, t->future, (size_t)restored * sizeof *t->future);
    free_frames(t->future + restored, t->future_count - restored);
    memset(t->future, 0, (size_t)t->future_count * sizeof *t->future);
    t->count += restored;
    t->future_count = 0;
    return restored;
}

int timeline_drop_after(Timeline *t, long long step)
{
    int keep = t->count;
    while (keep > 1 && t->frames[keep - 1].step > step) keep--;
    const int dropped = t->count - keep;
    free_frames(t->frames + keep, dropped);
    memset(t->frames + keep, 0, (size_t)dropped * sizeof *t->frames);
    t->count = keep;
    return dropped;
}

/* ---- the run's keyframes as a FrameSource ---- */

static int source_count(const void *ctx) { return timeline_count(ctx); }
static double source_time(const void *ctx, int i) { return timeline_time(ctx, i); }
static long long source_step(const void *ctx, int i) { return timeline_step(ctx, i); }

static int source_load(void *ctx, int i, Bodies *out, char *err, size_t errlen)
{
    if (timeline_load(ctx, i, out) == 0) return 0;
    snprintf(err, errlen, "no keyframe %d of %d bodies (the timeline holds %d of %d)", i, out->n,
             timeline_count(ctx), timeline_bodies(ctx));
    return -1;
}

FrameSource timeline_source(Timeline *t)
{
    return (FrameSource){
        .ctx = t, .count = source_count, .time = source_time, .step = source_step, .load = source_load};
}
