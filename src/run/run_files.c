/* What is written of a run: a save and an export of its present (the newest state, whatever keyframe
 * is shown), and the defaults of its description (the timeline's memory, checked against what the
 * machine and the process's limits leave). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run/export.h"
#include "run/run_state.h"

/* The default budget: a tenth of the memory available now, at most 1 GB; 256 MB where
 * /proc/meminfo does not say. A budget asked for is held to half the memory available and half
 * the address space the process may still take (ulimit -v): the rest is the simulation's, the
 * GL driver's and the save's. */
#define TIMELINE_DEFAULT_MAX_BYTES ((double)(1 << 30))
#define TIMELINE_FALLBACK_BYTES ((double)(256 << 20))

/* MemAvailable in bytes; 0 where /proc/meminfo does not say. */
static double memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (double)kb * 1024.0;
}

/* The address space this process may still take under RLIMIT_AS and RLIMIT_DATA; -1 = no limit. */
static double address_space_left(void)
{
    double left = -1;
    const int which[2] = {RLIMIT_AS, RLIMIT_DATA};
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    const double used = (double)pages * (double)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(which[i], &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
        const double l = (double)rl.rlim_cur - used;
        const double clamped = l > 0 ? l : 0;
        if (left < 0 || clamped < left) left = clamped;
    }
    return left;
}

void run_desc_defaults(RunDesc *d)
{
    d->timeline_note[0] = '\0';
    if (d->timeline_bytes == 0) return;
    const double avail = memory_available(), space = address_space_left();
    double limit = avail > 0 ? 0.5 * avail : -1;
    const char *what = "half the memory available";
    if (space >= 0 && (limit < 0 || 0.5 * space < limit)) {
        limit = 0.5 * space;
        what = "half the address space left to the process (ulimit -v)";
    }
    if (d->timeline_bytes < 0) {
        double b = avail > 0 ? 0.1 * avail : TIMELINE_FALLBACK_BYTES;
        if (b > TIMELINE_DEFAULT_MAX_BYTES) b = TIMELINE_DEFAULT_MAX_BYTES;
        d->timeline_bytes = limit >= 0 && limit < b ? limit : b;
        return;
    }
    if (limit >= 0 && d->timeline_bytes > limit) {
        char instead[32];
        snprintf(d->timeline_note, sizeof d->timeline_note, "--timeline-mb %g is more than %s: %s instead",
                 d->timeline_bytes / 1e6, what, keyframes_bytes_text(limit, instead, sizeof instead));
        d->timeline_bytes = limit;
    }
}

/* The run's present into *b: the newest keyframe while a past one is shown, else the simulation's
 * state. False where it cannot be read (a backend that stopped, memory). */
static bool present(Run *r, const Bodies **b, double *time, long long *step, bool *other_than_shown)
{
    *other_than_shown = false;
    if (r->tl.view >= 0 && run_timeline_on(r)) {
        const int last = keyframes_count(r->tl.store) - 1;
        if (keyframes_load(r->tl.store, last, &r->tl.frame) != 0) return false;
        *b = &r->tl.frame;
        *time = keyframes_time(r->tl.store, last);
        *step = keyframes_step(r->tl.store, last);
        *other_than_shown = last != r->tl.view;
        return true;
    }
    run_read_state(r);
    if (!r->copy.valid) return false;
    *b = &r->copy.bodies;
    *time = r->copy.time;
    *step = r->copy.step;
    return true;
}

int run_save(Run *r, const char *path, const RunSettings *s, long long *step, bool *other_than_shown, char *err,
             size_t errlen)
{
    const Bodies *b;
    double time;
    if (!present(r, &b, &time, step, other_than_shown)) {
        snprintf(err, errlen, "the run's state could not be read");
        return -1;
    }
    const SavedRun saved = {
        .params = s->params,
        .force = sim_force(r->sim),
        .steps_per_frame = s->steps_per_frame,
        .step = *step,
        .time = time,
        .units = r->info.scene.units,
        .period = r->info.scene.period,
        .halos = *sim_halos(r->sim),
    };
    return state_save(path, b, &saved, err, errlen);
}

int run_export(Run *r, const char *dir, const SimParams *p, char *msg, size_t msglen)
{
    const Bodies *b;
    double time;
    long long step;
    bool other;
    if (!present(r, &b, &time, &step, &other)) {
        snprintf(msg, msglen, "the run's state could not be read");
        return -1;
    }
    char what[160];
    snprintf(what, sizeof what, "a Starburst run at step %lld", step);
    const SimHalos *halos = sim_halos(r->sim);
    if (halos->count == 0) return export_state(dir, b, &r->info.scene, p->dt, p->softening, time, 0, 0, what, msg, msglen);

    /* SWIFT runs bodies alone: a halo that is a field here would go as one point of its mass. At
     * a built run's start each field is sampled into bodies in the equilibrium the live halo
     * has; later the halo's own response (stripped, stirred) is not known, so nothing is sent. */
    const bool built = !r->source.from_save && !r->source.from_series && r->info.kind < SCENE_TIPSY;
    /* The start: the run there, or its first keyframe shown (present() reads the newest). */
    const bool at_start = step == 0 || (r->tl.view == 0 && run_timeline_on(r));
    if (!built || !at_start) {
        snprintf(msg, msglen,
                 "export: this run's halos are fields, which SWIFT runs as bodies: they are sampled into bodies at "
                 "the start of a built run only (%s); or start it with live halos (--halo live, the panel's live halo "
                 "box)",
                 built ? "ctrl+Left shows the start: export there" : "this one was read from a file");
        return -1;
    }
    SceneDesc built_from = r->source.scene; /* as run_reset built it */
    built_from.kind = r->info.kind;
    built_from.n = b->n - halos->count;
    built_from.seed = r->info.seed;
    Bodies live;
    if (scene_sample_halos(&built_from, &r->first, halos, &live, msg, msglen) != 0) return -1;
    b = &r->first;
    time = 0;
    snprintf(what, sizeof what, "a Starburst run at its start, its %d halo fields sampled into %d bodies", halos->count,
             live.n - (b->n - halos->count));
    const int rc = export_state(dir, &live, &r->info.scene, p->dt, p->softening, time, 0, 0, what, msg, msglen);
    bodies_free(&live);
    return rc;
}
