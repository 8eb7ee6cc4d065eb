#include "run/keyframes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Keyframe {
    long long step;
    double time;
    float *state; /* 11n floats: the positions (float4), the velocities (float4), the accelerations (3) */
    BodiesAccInfo acc_info; /* what computed the accelerations (backend 0: none kept) */
} Keyframe;

/* A future set aside: the frames after the one it was cut after (at cut_step), oldest first. A
 * branch set aside by a resume comes back with an undo; one set aside by that undo (the future
 * the resume had started), with a redo. */
typedef struct Branch {
    Keyframe *frames; /* room for capacity */
    int count;
    long long cut_step;
    bool redo;
} Branch;

struct Keyframes {
    size_t budget;
    int n;
    uint8_t *tag;
    Keyframe *frames; /* oldest first; room for capacity */
    int count, capacity;
    long long spacing;
    /* The futures set aside, the newest last (room for capacity: each holds a frame at least). */
    Branch *aside;
    int aside_count;
};

size_t keyframes_frame_bytes(int n) { return (size_t)n * KEYFRAMES_BODY_FLOATS * sizeof(float) + sizeof(Keyframe); }

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

static void free_branch(Branch *b)
{
    free_frames(b->frames, b->count);
    free(b->frames);
    *b = (Branch){0};
}

static void free_future(Keyframes *t)
{
    for (int i = 0; i < t->aside_count; i++) free_branch(&t->aside[i]);
    t->aside_count = 0;
}

static void clear(Keyframes *t)
{
    free_frames(t->frames, t->count);
    free_future(t);
    free(t->frames);
    free(t->aside);
    free(t->tag);
    t->frames = NULL;
    t->aside = NULL;
    t->tag = NULL;
    t->count = t->capacity = t->n = 0;
}

/* The frames all futures set aside hold. */
static int aside_frames(const Keyframes *t)
{
    int frames = 0;
    for (int i = 0; i < t->aside_count; i++) frames += t->aside[i].count;
    return frames;
}

void keyframes_destroy(Keyframes *t)
{
    if (!t) return;
    clear(t);
    free(t);
}

int keyframes_state_copy(KeyframeState *out, const Bodies *b)
{
    const size_t floats = (size_t)b->n * 4;
    *out = (KeyframeState){.n = b->n, .state = malloc((size_t)b->n * KEYFRAMES_BODY_FLOATS * sizeof(float))};
    if (!out->state) return -1;
    memcpy(out->state, b->pos, floats * sizeof(float));
    memcpy(out->state + floats, b->vel, floats * sizeof(float));
    if (b->acc) memcpy(out->state + 2 * floats, b->acc, 3 * (size_t)b->n * sizeof(float));
    else memset(out->state + 2 * floats, 0, 3 * (size_t)b->n * sizeof(float));
    if (b->acc) out->acc_info = b->acc_info;
    return 0;
}

void keyframes_state_free(KeyframeState *s)
{
    free(s->state);
    *s = (KeyframeState){0};
}

int keyframes_start(Keyframes *t, const Bodies *first, double time, long long step, long long spacing, char *err,
                   size_t errlen)
{
    clear(t);
    const size_t frame = keyframes_frame_bytes(first->n), tags = (size_t)first->n;
    const size_t capacity = t->budget > tags ? (t->budget - tags) / frame : 0;
    /* Three at least: the first, the newest and the newest of a future set aside, so that a
     * resume never loses the future it set aside, at any budget (make_room). */
    if (capacity < KEYFRAMES_MIN) {
        char takes[32], budget[32];
        snprintf(err, errlen, "a keyframe of %d %s takes %s; a budget of %s holds fewer than three", first->n,
                 first->n == 1 ? "body" : "bodies", keyframes_bytes_text((double)frame, takes, sizeof takes),
                 keyframes_bytes_text((double)t->budget, budget, sizeof budget));
        return -1;
    }
    t->capacity = capacity > (size_t)(1 << 24) ? 1 << 24 : (int)capacity;
    t->frames = calloc((size_t)t->capacity, sizeof *t->frames);
    t->aside = calloc((size_t)t->capacity, sizeof *t->aside);
    t->tag = malloc(tags ? tags : 1);
    KeyframeState kept;
    const int copied = keyframes_state_copy(&kept, first);
    if (!t->frames || !t->aside || !t->tag || copied != 0) {
        keyframes_state_free(&kept);
        clear(t);
        snprintf(err, errlen, "out of memory for the timeline of %d bodies", first->n);
        return -1;
    }
    if (first->tag) memcpy(t->tag, first->tag, tags);
    else memset(t->tag, 0, tags);
    t->n = first->n;
    t->spacing = spacing > 0 ? spacing : 1;
    t->frames[0] = (Keyframe){.step = step, .time = time, .state = kept.state, .acc_info = kept.acc_info};
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

/* Room for one more frame: the frames, and the futures held, thinned alike (the spacing doubles),
 * so that a future set aside stays whole in time, only coarser. Where nothing can be thinned (two
 * frames a list at most), a future of two keeps its newest, then the newest frame of the run makes
 * way for the one to come (the first stays): a future set aside keeps its newest state at any
 * budget of KEYFRAMES_MIN frames or more. Only a budget full of futures of one frame each gives the
 * oldest of them up. */
static void make_room(Keyframes *t, KeyframesAdded *added)
{
    while (t->count + aside_frames(t) >= t->capacity) {
        const int frames = t->count >= 3 ? thin_frames(t->frames, &t->count) : 0;
        int future = 0;
        for (int i = 0; i < t->aside_count; i++)
            if (t->aside[i].count >= 3) future += thin_frames(t->aside[i].frames, &t->aside[i].count);
        if (frames + future > 0) {
            t->spacing *= 2;
            added->thinned = true;
            added->future_thinned += future;
            continue;
        }
        Branch *pair = NULL;
        for (int i = 0; i < t->aside_count && !pair; i++)
            if (t->aside[i].count == 2) pair = &t->aside[i];
        if (pair) {
            free(pair->frames[0].state);
            pair->frames[0] = pair->frames[1];
            pair->frames[1] = (Keyframe){0};
            pair->count = 1;
            added->future_thinned++;
            continue;
        }
        if (t->count >= 2) {
            free(t->frames[t->count - 1].state);
            t->frames[--t->count] = (Keyframe){0};
            continue;
        }
        added->future_freed += t->aside[0].count;
        free_branch(&t->aside[0]);
        memmove(t->aside, t->aside + 1, (size_t)--t->aside_count * sizeof *t->aside);
        t->aside[t->aside_count] = (Branch){0};
    }
}

int keyframes_thin(Keyframes *t)
{
    int gone = thin_frames(t->frames, &t->count);
    for (int i = 0; i < t->aside_count; i++) gone += thin_frames(t->aside[i].frames, &t->aside[i].count);
    if (gone > 0) t->spacing *= 2;
    return gone;
}

int keyframes_add_state(Keyframes *t, KeyframeState *s, double time, long long step, KeyframesAdded *added,
                        char *err, size_t errlen)
{
    KeyframesAdded none = {0};
    if (!added) added = &none;
    *added = (KeyframesAdded){0};
    if (t->count == 0 || s->n != t->n || !s->state) {
        snprintf(err, errlen, "a keyframe of %d bodies on a timeline of %d", s->n, t->n);
        keyframes_state_free(s);
        return -1;
    }
    /* A run that went back to before the last frame goes on from there: what came after is gone. */
    keyframes_drop_after(t, step - 1);
    make_room(t, added);
    t->frames[t->count++] = (Keyframe){.step = step, .time = time, .state = s->state, .acc_info = s->acc_info};
    *s = (KeyframeState){0};
    return 0;
}

int keyframes_add(Keyframes *t, const Bodies *b, double time, long long step, KeyframesAdded *added, char *err,
                  size_t errlen)
{
    if (t->count == 0 || b->n != t->n) {
        snprintf(err, errlen, "a keyframe of %d bodies on a timeline of %d", b->n, t->n);
        return -1;
    }
    KeyframeState s;
    if (keyframes_state_copy(&s, b) != 0) {
        snprintf(err, errlen, "out of memory for a keyframe of %d bodies", b->n);
        return -1;
    }
    return keyframes_add_state(t, &s, time, step, added, err, errlen);
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
    return (size_t)(t->count + aside_frames(t)) * keyframes_frame_bytes(t->n) + (size_t)t->n;
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
    if (out->acc) {
        memcpy(out->acc, t->frames[i].state + 2 * floats, 3 * (size_t)t->n * sizeof(float));
        out->acc_info = t->frames[i].acc_info;
    }
    return 0;
}

/* The frames after step move into a branch of their own (empty where there are none); NULL where
 * its room cannot be had. */
static Keyframe *split_after(Keyframes *t, long long step, int *moved)
{
    int keep = t->count;
    while (keep > 1 && t->frames[keep - 1].step > step) keep--;
    *moved = t->count - keep;
    Keyframe *f = calloc((size_t)t->capacity, sizeof *f);
    if (!f) return NULL;
    memcpy(f, t->frames + keep, (size_t)*moved * sizeof *f);
    memset(t->frames + keep, 0, (size_t)*moved * sizeof *f);
    t->count = keep;
    return f;
}

int keyframes_cut(Keyframes *t, int i)
{
    if (i < 0 || i >= t->count - 1 || t->aside_count >= t->capacity) return 0;
    const long long step = t->frames[i].step;
    int moved;
    Keyframe *f = split_after(t, step, &moved);
    if (!f) return 0;
    t->aside[t->aside_count++] = (Branch){.frames = f, .count = moved, .cut_step = step};
    return moved;
}

static const Branch *top(const Keyframes *t) { return t->aside_count > 0 ? &t->aside[t->aside_count - 1] : NULL; }

int keyframes_future_count(const Keyframes *t) { return top(t) ? top(t)->count : 0; }
int keyframes_redo_count(const Keyframes *t) { return top(t) && top(t)->redo ? top(t)->count : 0; }
int keyframes_undo_count(const Keyframes *t) { return top(t) && !top(t)->redo ? top(t)->count : 0; }
int keyframes_aside_frames(const Keyframes *t) { return aside_frames(t); }

int keyframes_swap(Keyframes *t, int *set_aside)
{
    *set_aside = 0;
    Branch *b = t->aside_count > 0 ? &t->aside[t->aside_count - 1] : NULL;
    if (!b) return 0;
    int moved;
    Keyframe *f = split_after(t, b->cut_step, &moved);
    if (!f) return 0;
    /* The frames thinned since the cut left room for both: together they were held. (The cut
     * frame itself may have been thinned away; the future still follows the frames before it.) */
    memcpy(t->frames + t->count, b->frames, (size_t)b->count * sizeof *b->frames);
    const int restored = b->count;
    t->count += restored;
    free(b->frames);
    if (moved > 0) {
        *b = (Branch){.frames = f, .count = moved, .cut_step = b->cut_step, .redo = !b->redo};
    } else {
        free(f);
        *b = (Branch){0};
        t->aside_count--;
    }
    *set_aside = moved;
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
