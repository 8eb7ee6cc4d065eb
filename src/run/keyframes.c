#include "run/keyframes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Keyframe {
    long long step;
    double time;
    float *state; /* 8n floats: the positions (float4), then the velocities (float4) */
} Keyframe;

struct Keyframes {
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

size_t keyframes_frame_bytes(int n) { return (size_t)n * 8 * sizeof(float) + sizeof(Keyframe); }

Keyframes *keyframes_create(size_t budget_bytes)
{
    Keyframes *t = calloc(1, sizeof *t);
    if (t) t->budget = budget_bytes;
    return t;
}

static void free_frames(Keyframe *f, int count)
{
    for (int i = 0; i < count; i++) free(f[i].state);
}

static void free_future(Keyframes *t)
{
    free_frames(t->future, t->future_count);
    t->future_count = 0;
}

static void clear(Keyframes *t)
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

void keyframes_destroy(Keyframes *t)
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

int keyframes_start(Keyframes *t, const Bodies *first, double time, long long step, long long spacing, char *err,
                   size_t errlen)
{
    clear(t);
    const size_t frame = keyframes_frame_bytes(first->n), tags = (size_t)first->n;
    const size_t capacity = t->budget > tags ? (t->budget - tags) / frame : 0;
    if (capacity < 2) {
        char takes[32], budget[32];
        snprintf(err, errlen, "a keyframe of %d %s takes %s; a budget of %s holds fewer than two", first->n,
                 first->n == 1 ? "body" : "bodies", keyframes_bytes_text((double)frame, takes, sizeof takes),
                 keyframes_bytes_text((double)t->budget, budget, sizeof budget));
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

bool keyframes_due(const Keyframes *t, long long step)
{
    if (t->count == 0) return false;
    const long long last = t->frames[t->count - 1].step;
    return step < last || step - last >= t->spacing;
}

/* Every other frame of f goes, counting from the first; the last stays. Returns how many went. */
static int thin_frames(Keyframe *f, int *count)
{
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (i % 2 == 0 || i == *count - 1) f[kept++] = f[i];
        else free(f[i].state);
    }
    memset(f + kept, 0, (size_t)(*count - kept) * sizeof *f);
    const int gone = *count - kept;
    *count = kept;
    return gone;
}

/* Room for one more frame: the frames, and the future held, thinned alike (the spacing doubles),
 * so that a future set aside stays whole in time, only coarser, until a change of the user's
 * frees it. Only where neither can be thinned (two frames each at most) does the future go. */
static void make_room(Keyframes *t, KeyframesAdded *added)
{
    while (t->count + t->future_count >= t->capacity) {
        const int frames = t->count >= 3 ? thin_frames(t->frames, &t->count) : 0;
        const int future = t->future_count >= 3 ? thin_frames(t->future, &t->future_count) : 0;
        if (frames + future > 0) {
            t->spacing *= 2;
            added->thinned = true;
            added->future_thinned += future;
            continue;
        }
        added->future_freed = t->future_count;
        free_future(t);
        if (t->count >= t->capacity) { /* a capacity of two frames: the newest makes way */
            free(t->frames[t->count - 1].state);
            t->frames[--t->count] = (Keyframe){0};
        }
    }
}

int keyframes_thin(Keyframes *t)
{
    const int gone = thin_frames(t->frames, &t->count) + thin_frames(t->future, &t->future_count);
    if (gone > 0) t->spacing *= 2;
    return gone;
}

int keyframes_add(Keyframes *t, const Bodies *b, double time, long long step, KeyframesAdded *added, char *err,
                 size_t errlen)
{
    KeyframesAdded none = {0};
    if (!added) added = &none;
    *added = (KeyframesAdded){0};
    if (t->count == 0 || b->n != t->n) {
        snprintf(err, errlen, "a keyframe of %d bodies on a timeline of %d", b->n, t->n);
        return -1;
    }
    /* A run that went back to before the last frame goes on from there: what came after is gone. */
    keyframes_drop_after(t, step - 1);
    make_room(t, added);
    float *state = copy_state(b);
    if (!state) {
        snprintf(err, errlen, "out of memory for a keyframe of %d bodies", b->n);
        return -1;
    }
    t->frames[t->count++] = (Keyframe){.step = step, .time = time, .state = state};
    return 0;
}

int keyframes_count(const Keyframes *t) { return t->count; }
int keyframes_capacity(const Keyframes *t) { return t->capacity; }
int keyframes_bodies(const Keyframes *t) { return t->n; }
long long keyframes_spacing(const Keyframes *t) { return t->spacing; }

const char *keyframes_bytes_text(double bytes, char *buf, size_t len)
{
    /* Each unit from the size that rounds to 1 of it, so that no size reads "1e+03 kB". */
    if (bytes >= 999.5e6) snprintf(buf, len, "%.3g GB", bytes / 1e9);
    else if (bytes >= 999.5e3) snprintf(buf, len, "%.3g MB", bytes / 1e6);
    else if (bytes >= 999.5) snprintf(buf, len, "%.3g kB", bytes / 1e3);
    else snprintf(buf, len, "%.0f bytes", bytes);
    return buf;
}
size_t keyframes_budget(const Keyframes *t) { return t->budget; }

size_t keyframes_bytes_used(const Keyframes *t)
{
    if (t->n == 0) return 0;
    return (size_t)(t->count + t->future_count) * keyframes_frame_bytes(t->n) + (size_t)t->n;
}

double keyframes_time(const Keyframes *t, int i) { return i >= 0 && i < t->count ? t->frames[i].time : 0; }
long long keyframes_step(const Keyframes *t, int i) { return i >= 0 && i < t->count ? t->frames[i].step : 0; }

int keyframes_find(const Keyframes *t, long long step)
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

int keyframes_load(const Keyframes *t, int i, Bodies *out)
{
    if (i < 0 || i >= t->count || out->n != t->n) return -1;
    const size_t floats = (size_t)t->n * 4;
    memcpy(out->pos, t->frames[i].state, floats * sizeof(float));
    memcpy(out->vel, t->frames[i].state + floats, floats * sizeof(float));
    if (out->tag) memcpy(out->tag, t->tag, (size_t)t->n);
    return 0;
}

int keyframes_cut(Keyframes *t, int i)
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

int keyframes_future_count(const Keyframes *t) { return t->future_count; }

int keyframes_restore(Keyframes *t)
{
    if (t->future_count == 0) return 0;
    keyframes_drop_after(t, t->cut_step);
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

int keyframes_drop_after(Keyframes *t, long long step)
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

static int source_count(const void *ctx) { return keyframes_count(ctx); }
static double source_time(const void *ctx, int i) { return keyframes_time(ctx, i); }
static long long source_step(const void *ctx, int i) { return keyframes_step(ctx, i); }

static int source_load(void *ctx, int i, Bodies *out, char *err, size_t errlen)
{
    if (keyframes_load(ctx, i, out) == 0) return 0;
    snprintf(err, errlen, "no keyframe %d of %d bodies (the timeline holds %d of %d)", i, out->n,
             keyframes_count(ctx), keyframes_bodies(ctx));
    return -1;
}

FrameSource keyframes_source(Keyframes *t)
{
    return (FrameSource){
        .ctx = t, .count = source_count, .time = source_time, .step = source_step, .load = source_load};
}
