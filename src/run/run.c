/* The run's lifecycle (run.h): made from a RunDesc, built from its source at each reset (a scene, a
 * saved run, the first snapshot of a series), advanced, handed to the CPU when a backend stops,
 * and its parameters' changes undone. The clock and the host copy of the state (the checkpoint a
 * fall-back starts from) are kept here; the timeline in run_timeline.c, the files in run_files.c. */
#include "run/run_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/swift_params.h"
#include "util/clock.h"
#include "util/params.h"

/* Snapshots from this many bodies say how their reading goes. */
#define SNAPSHOT_PROGRESS_BODIES (1 << 20)

/* The settings of a series of HDF5 snapshots: their Parameters group's (SWIFT's), else a
 * params.yml beside the first (scene/swift_params.h); what is still missing runs at the default,
 * said in one line, as is SWIFT's velocity lead that the run takes off (run_in_step). */
static void hdf5_series_settings(Run *r)
{
    SnapshotSeries *s = r->series;
    const char *first = series_path(s, 0), *slash = strrchr(first, '/');
    const bool had_dt = series_dt(s) > 0, had_eps = series_softening(s) > 0;
    char yml[4200], why[2400] = "";
    snprintf(yml, sizeof yml, "%.*sparams.yml", slash ? (int)(slash - first + 1) : 0, first);
    int rc = 1;
    if (!had_dt || !had_eps) {
        SwiftParams p;
        rc = swift_params_read_yml(yml, &p, why, sizeof why);
        if (rc == 0) series_set_settings(s, swift_params_step(&p), swift_params_softening(&p));
    }
    const double dt = series_dt(s), eps = series_softening(s);
    const bool from_yml = (dt > 0 && !had_dt) || (eps > 0 && !had_eps);
    if (dt > 0 && eps > 0) {
        run_say(r, RUN_SAY_CONSOLE, "--open: dt %g and softening %g from %s%s%s", dt, eps,
                had_dt || had_eps ? first : "", had_dt || had_eps ? "'s Parameters" : "",
                from_yml ? (had_dt || had_eps ? " and params.yml" : yml) : "");
    } else {
        const char *what = dt > 0 ? "softening" : eps > 0 ? "dt" : "dt or softening";
        if (rc == 1) snprintf(why, sizeof why, "%.1000s gives no %s and has no params.yml beside it", first, what);
        else if (rc == 0) snprintf(why, sizeof why, "neither %.1000s nor %.1000s gives %s", first, yml, what);
        run_say(r, RUN_SAY_CONSOLE, "--open: %s: running at %s dt %g and %s softening %g", why,
                dt > 0 ? "its" : "the default", dt > 0 ? dt : params_get(PARAM_DT)->fallback,
                eps > 0 ? "its" : "the default", eps > 0 ? eps : params_get(PARAM_SOFTENING)->fallback);
    }
    if (series_lead(s, 0) > 0 || series_lead(s, series_count(s) - 1) > 0)
        run_say(r, RUN_SAY_CONSOLE,
                "--open: SWIFT's velocities run a step ahead of its positions (half one at its start): each snapshot "
                "is read back in step, v - a(x) lead, by its first force evaluation");
}

/* The scale a series runs on, one rule for run_make and run_open_series: HDF5 in the units it was
 * written in (none: model units), a TIPSY on its .ini's scale (none for a run in model units), a
 * TIPSY without a readable .ini on open_units. For a TIPSY, *rc is state_read_settings' answer,
 * its settings in saved and what is wrong with them in why; for HDF5 *rc is 2. */
static Units open_scale(const SnapshotSeries *s, const Units *open_units, SavedRun *saved, int *rc, char *why,
                        size_t whylen)
{
    const char *first = series_path(s, 0);
    if (snapshot_hdf5_is(first)) {
        *rc = 2;
        return series_units(s);
    }
    *rc = state_read_settings(first, saved, why, whylen);
    return *rc == 0 ? saved->units : *open_units;
}

/* --open's series on its scale (open_scale), with its settings: a TIPSY series those saved beside
 * its first (snap.tipsy.ini, as a save writes them), dt and softening where it has them; without
 * them the defaults, said in one line. HDF5 snapshots: hdf5_series_settings. */
static void series_settings(Run *r, const Units *open_units)
{
    SnapshotSeries *s = r->series;
    const char *first = series_path(s, 0);
    SavedRun saved;
    char err[512];
    int rc;
    const Units u = open_scale(s, open_units, &saved, &rc, err, sizeof err);
    if (rc == 2) {
        hdf5_series_settings(r);
        return;
    }
    series_set_units(s, &u); /* a run without a scale stays in model units */
    if (rc == 0) {
        /* Saves of a run with halo fields: their last bodies are the fields' centres, run as the
         * save's own [halos] say (each snapshot read with them), not as point masses. */
        r->series_halos = saved.halos;
        series_set_settings(s, saved.params.dt, saved.params.softening);
        run_say(r, RUN_SAY_CONSOLE, "--open: dt %g and softening %g%s from %s.ini", saved.params.dt,
                saved.params.softening, units_physical(&saved.units) ? ", with the run's units," : "", first);
        return;
    }
    char why[600];
    if (rc == 1) snprintf(why, sizeof why, "%s has no settings beside it (no %s.ini)", first, first);
    else snprintf(why, sizeof why, "%s", err);
    run_say(r, RUN_SAY_CONSOLE, "--open: %s: running at the default dt %g and softening %g", why,
            params_get(PARAM_DT)->fallback, params_get(PARAM_SOFTENING)->fallback);
}

SnapshotSeries *run_open_series(const char *path, const Units *open_units, Units *scale, char *err, size_t errlen)
{
    SnapshotSeries *s = series_open(path, err, errlen);
    if (!s) return NULL;
    SavedRun saved;
    char ignored[512]; /* series_settings says what is wrong with an .ini that does not read */
    int rc;
    *scale = open_scale(s, open_units, &saved, &rc, ignored, sizeof ignored);
    return s;
}

int run_in_step(Sim *sim, Bodies *b, double lead, float softening, char *err, size_t errlen)
{
    if (!(lead > 0)) return 0;
    float *a = malloc(sizeof(float) * 3 * (size_t)b->n);
    if (!a) {
        snprintf(err, errlen, "out of memory for the accelerations of %d bodies", b->n);
        return -1;
    }
    sim_accelerations(sim, softening, a);
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < 3; k++) b->vel[4 * (size_t)i + k] -= (float)(lead * a[3 * (size_t)i + k]);
    free(a);
    return sim_load(sim, b, err, errlen);
}

Run *run_make(const RunDesc *d, char *err, size_t errlen)
{
    Run *r = calloc(1, sizeof *r);
    if (!r) {
        series_close(d->series);
        snprintf(err, errlen, "out of memory for the run");
        return NULL;
    }
    r->desc = *d;
    r->desc.series = NULL;
    r->source = d->source;
    r->tl.view = -1;
    char why[256];
    r->watch.forces = force_watch_create(why, sizeof why);
    if (!r->watch.forces) run_say(r, RUN_SAY_CONSOLE, "no live force error: %s", why);
    run_watch_create(r);
    run_landing_create(r);
    if (d->series || d->open_path) {
        r->series = d->series ? d->series : series_open(d->open_path, err, errlen);
        if (!r->series) {
            run_watch_free(r);
            run_landing_free(r);
            free(r);
            return NULL;
        }
        series_settings(r, &d->open_units);
        r->source.from_series = true;
        r->source.scene.kind = SCENE_TIPSY;
    }
    return r;
}

void run_destroy(Run *r)
{
    if (!r) return;
    run_timeline_free(r);
    run_left_free(r);
    run_watch_free(r);
    undo_clear(&r->undo);
    bodies_free(&r->copy.bodies);
    bodies_free(&r->first);
    run_drop_sim(r);
    run_landing_free(r);
    series_close(r->series);
    free(r);
}

void run_set_backend(Run *r, SimBackend b) { r->desc.backend = b; }

void run_choose(Run *r, const RunSource *s)
{
    r->source = *s;
    if (r->source.scene.kind >= SCENE_TIPSY && !r->source.from_save && !r->source.from_series)
        r->source.scene.tipsy_path = r->source.file;
    r->last_n = -1; /* another source starts from its own dt and softening */
}

const RunSource *run_source(const Run *r) { return &r->source; }
const RunInfo *run_info(const Run *r) { return &r->info; }

bool run_is_encounter(const Run *r)
{
    const SceneKind kind = (SceneKind)(int)r->info.kind;
    return !r->source.from_save && (kind == SCENE_COLLISION || kind == SCENE_TIPSY_COLLIDE);
}
Sim *run_sim(const Run *r) { return r->sim; }
const SnapshotSeries *run_series(const Run *r) { return r->series; }
int run_series_reads(const Run *r) { return r->series_reads; }
const Bodies *run_first_state(const Run *r) { return &r->first; }

/* Reading a large snapshot: a line every few seconds, so a 10^7-body file is seen to go on. */
typedef struct ReadProgress {
    const Run *r;
    const char *name;
    double started, said;
} ReadProgress;

static void say_read_progress(void *user, long long done, long long total)
{
    ReadProgress *p = user;
    double now = clock_seconds();
    if (total < SNAPSHOT_PROGRESS_BODIES || (now - p->said < 2.0 && done < total)) return;
    p->said = now;
    run_say(p->r, RUN_SAY_CONSOLE, "reading %s: %lld of %lld bodies (%.0f%%, %.1f s)", p->name, done, total,
            100.0 * done / total, now - p->started);
}

/* The first snapshot of the series as the run's start, as a saved run is: its time, the step and
 * softening its files give (else the defaults), framed by 90 % of its mass. */
static int open_first_snapshot(Run *r, Bodies *b, SavedRun *saved, SceneInfo *info, char *err, size_t errlen)
{
    SnapshotSeries *s = r->series;
    ReadProgress p = {.r = r, .name = series_path(s, 0), .started = clock_seconds()};
    p.said = p.started;
    if (series_load(s, 0, b, NULL, say_read_progress, &p, err, errlen) != 0) return -1;
    r->series_reads++;
    const float dt = (float)series_dt(s), eps = (float)series_softening(s);
    /* The files say nothing of the opening test: alpha -1 takes the default, as a save without one
     * loads (0 would open the tree by the angle). */
    *saved = (SavedRun){.params = {.dt = dt > 0 ? dt : (float)params_get(PARAM_DT)->fallback,
                                   .softening = eps > 0 ? eps : (float)params_get(PARAM_SOFTENING)->fallback,
                                   .damping = 1.0f,
                                   .alpha = -1.0f},
                        .time = series_time(s, 0),
                        .units = series_units(s)};
    *info = (SceneInfo){.dt = saved->params.dt, .softening = saved->params.softening,
                        .extent = (float)(1.2 * bodies_mass_radius(b, 0.9)), .units = saved->units,
                        .halos = r->series_halos};
    if (r->series_halos.count > b->n - 1) {
        snprintf(err, errlen, "%s: holds %d bodies, fewer than its %d halo fields' centres and a star",
                 series_path(s, 0), b->n, r->series_halos.count);
        return -1;
    }
    return 0;
}

/* The saved run of the source, framed by the radius of 90 % of its mass, at its dt and softening. */
static int load_saved(Run *r, Bodies *b, SavedRun *saved, SceneInfo *info, char *err, size_t errlen)
{
    if (state_load(r->source.file, b, saved, err, errlen) != 0) return -1;
    if (saved->recovered[0]) run_say(r, RUN_SAY_SCREEN | RUN_SAY_ERROR, "%s", saved->recovered);
    *info = (SceneInfo){.dt = saved->params.dt > 0 ? saved->params.dt : (float)params_get(PARAM_DT)->fallback,
                        .softening = saved->params.softening,
                        .extent = (float)(1.2 * bodies_mass_radius(b, 0.9)),
                        .period = saved->period,
                        .units = saved->units,
                        .halos = saved->halos};
    return 0;
}

static float speed_scale(const Bodies *b)
{
    double v2 = 0;
    for (int i = 0; i < b->n; i++) {
        const float *v = b->vel + 4 * (size_t)i;
        v2 += (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
    }
    const float s = b->n > 0 ? (float)(2 * sqrt(v2 / b->n)) : 0;
    return s > 0 ? s : 1;
}

static bool all_dark(const Bodies *b)
{
    if (!b->tag || b->n == 0) return false;
    for (int i = 0; i < b->n; i++)
        if (BODY_TAG_COMPONENT(b->tag[i]) != BODY_HALO) return false;
    return true;
}

SimDesc run_sim_desc(const Run *r, SimBackend backend, SimKernel kernel)
{
    return (SimDesc){
        .backend = backend,
        .kernel = kernel,
        .precision = r->desc.precision,
        .threads_per_body = r->desc.threads_per_body,
        .block_size = r->desc.block_size,
        .force = r->source.force,
        .gpus = backend == SIM_BACKEND_CPU ? 0 : r->desc.gpus,
        .position_vbo = r->position_vbo,
        .speed_vbo = r->speed_vbo,
        .halos = &r->info.scene.halos,
    };
}

int run_reset(Run *r, SceneKind kind, int n, uint64_t seed, SimKernel kernel, char *err, size_t errlen)
{
    SceneDesc d = r->source.scene;
    if (d.kind < SCENE_TIPSY) {
        d.kind = kind;
        d.n = n;
    }
    d.seed = seed;
    Bodies b = {0};
    SceneInfo scene;
    SavedRun saved = {0};
    bool loaded = false;
    if (r->source.from_series) {
        if (open_first_snapshot(r, &b, &saved, &scene, err, errlen) != 0) return -1;
        d.kind = SCENE_TIPSY;
        loaded = true;
    } else if (r->source.from_save) {
        if (load_saved(r, &b, &saved, &scene, err, errlen) != 0) return -1;
        d.kind = SCENE_TIPSY;
        loaded = true;
    } else if ((d.kind >= SCENE_TIPSY && d.tipsy_path && state_check_bodies_alone(d.tipsy_path, err, errlen) != 0) ||
               scene_build(&d, &b, &scene, err, errlen) != 0) {
        return -1;
    }
    /* A loaded run goes on with the method it ran, unless the source names one. */
    if (loaded && r->builds == 0 && r->source.force == SIM_FORCE_AUTO && saved.force != SIM_FORCE_AUTO)
        r->source.force = saved.force;

    run_drop_sim(r);
    r->position_vbo = r->speed_vbo = 0;
    if (r->desc.buffers && r->desc.buffers(r->desc.user, &b, &r->position_vbo, &r->speed_vbo, err, errlen) != 0) {
        bodies_free(&b);
        return -1;
    }
    SimDesc sd = run_sim_desc(r, r->desc.backend, kernel);
    sd.halos = &scene.halos; /* the new scene's, before it becomes the run's */
    r->sim = sim_create(&sd, &b, err, errlen);
    if (!r->sim || (r->source.from_series &&
                    run_in_step(r->sim, &b, series_lead(r->series, 0), saved.params.softening, err, errlen) != 0)) {
        bodies_free(&b);
        return -1;
    }
    RunInfo *info = &r->info;
    const bool fresh = d.kind != (SceneKind)r->last_scene || b.n != r->last_n;
    char said[sizeof info->gpus_note]; /* the GPUs' note is said again only where it changes */
    snprintf(said, sizeof said, "%s", info->gpus_note);
    *info = (RunInfo){.scene = scene,
                      .kind = d.kind,
                      .n = b.n,
                      .seed = d.seed,
                      .fresh = fresh,
                      .dark_only = all_dark(&b),
                      .loaded = loaded,
                      .saved = saved,
                      .speed_scale = speed_scale(&b)};
    snprintf(info->device, sizeof info->device, "%s", sim_device_name(r->sim));
    snprintf(info->gpus_note, sizeof info->gpus_note, "%s", said);
    info->gpus = sim_gpus(r->sim, NULL);
    info->id = ++r->builds;
    r->last_scene = (int)d.kind;
    r->last_n = b.n;
    r->time_base = loaded ? saved.time : 0;
    r->step_base = loaded ? saved.step : 0;
    r->first_step = r->step_base;
    undo_clear(&r->undo);
    r->copy.valid = false;
    if (r->copy.bodies.n != b.n) {
        bodies_free(&r->copy.bodies);
        if (bodies_alloc(&r->copy.bodies, b.n) != 0 || bodies_alloc_acc(&r->copy.bodies) != 0) {
            bodies_free(&b);
            snprintf(err, errlen, "out of memory for a host copy of %d bodies", b.n);
            return -1;
        }
    }
    bodies_free(&r->first);
    r->first = b;
    run_watch_restart(r);
    /* The timeline waits for run_start_timeline: its spacing is the steps a frame the app sets. */
    r->tl.view = -1;
    r->tl.series_next = 0;
    r->tl.reading[0] = '\0';
    if (r->tl.store) keyframes_start(r->tl.store, &r->first, r->time_base, r->step_base, 1, err, errlen);
    return 0;
}

int run_reset_to(Run *r, const RunSource *s, SceneKind kind, int n, uint64_t seed, SimKernel kernel, char *err,
                 size_t errlen)
{
    const RunSource before = r->source;
    const int last_n = r->last_n, last_scene = r->last_scene;
    run_choose(r, s);
    if (run_reset(r, kind, n, seed, kernel, err, errlen) == 0) return 0;
    r->source = before;
    r->last_n = last_n;
    r->last_scene = last_scene;
    if (!r->sim) {
        char again[256];
        const RunInfo was = r->info;
        if (run_reset(r, was.kind < SCENE_TIPSY ? was.kind : kind, was.n, was.seed, kernel, again, sizeof again) != 0) {
            const size_t used = strlen(err);
            snprintf(err + used, errlen - used, "; the run before it failed too: %s", again);
        }
    }
    return -1;
}

/* The GPUs the last step ran on; why fewer than asked, said on screen and on the console where
 * it changed. */
static void run_gpus_check(Run *r)
{
    r->info.gpus = sim_gpus(r->sim, NULL);
    const char *note = sim_gpus_note(r->sim);
    if (!strcmp(note, r->info.gpus_note)) return;
    snprintf(r->info.gpus_note, sizeof r->info.gpus_note, "%s", note);
    if (note[0]) run_say(r, RUN_SAY_SCREEN | RUN_SAY_CONSOLE, "--gpus: %s", note);
}

int run_advance(Run *r, const SimParams *p, int steps)
{
    if (steps > 0) run_resume(r);
    const long long before = sim_stats(r->sim).total_steps;
    sim_advance(r->sim, p, steps);
    if (sim_error(r->sim)) return -1;
    r->computed += sim_stats(r->sim).total_steps - before;
    if (r->desc.gpus != 0 && r->desc.gpus != 1) run_gpus_check(r);
    return 0;
}

SimParams run_start_params(const Run *r, float theta, float alpha)
{
    const RunInfo *info = &r->info;
    if (info->loaded && info->saved.params.dt > 0) {
        SimParams p = info->saved.params;
        if (!(p.damping > 0)) p.damping = 1;
        p.alpha = params_alpha_given(p.alpha, p.theta);
        if (p.alpha < 0) p.alpha = alpha;
        if (!(p.theta > 0)) p.theta = theta;
        return p;
    }
    return (SimParams){.dt = info->scene.dt, .softening = info->scene.softening, .damping = 1.0f, .theta = theta,
                       .alpha = alpha};
}

int run_set_bodies(Run *r, const Bodies *b, char *err, size_t errlen)
{
    const double time = run_time(r);
    const long long step = run_step(r);
    if (!r->sim || b->n != sim_count(r->sim)) {
        snprintf(err, errlen, "%d bodies given, the run holds %d", b->n, r->sim ? sim_count(r->sim) : 0);
        return -1;
    }
    if (sim_load(r->sim, b, err, errlen) != 0) return -1;
    r->time_base = time;
    r->step_base = step;
    r->copy.valid = false;
    run_measure_soon(r);
    return 0;
}

int run_fall_back_to_cpu(Run *r, char *err, size_t errlen)
{
    char what[300];
    snprintf(what, sizeof what, "%s", sim_error(r->sim) ? sim_error(r->sim) : "stopped");
    run_drop_sim(r);
    r->desc.backend = SIM_BACKEND_CPU;
    if (r->copy.valid) {
        SimDesc sd = run_sim_desc(r, SIM_BACKEND_CPU, SIM_KERNEL_DEFAULT);
        r->sim = sim_create(&sd, &r->copy.bodies, err, errlen);
        r->time_base = r->copy.time;
        r->step_base = r->copy.step;
    }
    if (!r->sim) {
        const RunInfo was = r->info;
        if (run_reset(r, was.kind, was.n, was.seed, SIM_KERNEL_DEFAULT, err, errlen) != 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "%s; the CPU backend failed too: %s", what, why);
            return -1;
        }
    }
    snprintf(r->info.device, sizeof r->info.device, "%s", sim_device_name(r->sim));
    char when[64];
    snprintf(r->info.backend_note, sizeof r->info.backend_note, "CUDA stopped (%.150s): CPU backend from %s.", what,
             run_when(r, r->time_base, when, sizeof when));
    return 0;
}

int run_set_force(Run *r, SimForce f, char *err, size_t errlen)
{
    if (sim_set_force(r->sim, f, err, errlen) != 0) return -1;
    r->source.force = f; /* kept for resets */
    return 0;
}

void run_choose_force(Run *r, SimForce f) { r->source.force = f; }
void run_choose_halo(Run *r, SceneHalo h) { r->source.scene.halo = h; }
void run_choose_encounter(Run *r, const SceneEncounter *e) { scene_set_encounter(&r->source.scene, e); }

int run_set_kernel(Run *r, SimKernel k, int threads_per_body, int block_size, char *err, size_t errlen)
{
    return sim_set_kernel(r->sim, k, threads_per_body, block_size, err, errlen);
}

void run_remember(Run *r, const SimParams *before)
{
    if (sim_error(r->sim)) return;
    run_read_state(r);
    char err[256];
    if (undo_push(&r->undo, before, &r->copy.bodies, r->copy.time, r->copy.step, err, sizeof err) != 0)
        run_say(r, RUN_SAY_SCREEN, "Undo unavailable: %s", err);
}

int run_undo_depth(const Run *r)
{
    return r->undo.count + (run_can_undo_future(r) ? 1 : 0) + r->left_count;
}

int run_redo_depth(const Run *r) { return (run_can_redo_future(r) ? 1 : 0) + r->right_count; }

int run_undo(Run *r, RunSettings *s, double *time, char *err, size_t errlen)
{
    if (run_undo_future(r)) {
        *time = run_time(r);
        return RUN_UNDID_FUTURE;
    }
    UndoEntry e;
    if (!undo_pop(&r->undo, &e)) return run_undo_run(r, s, time, err, errlen);
    if (sim_load(r->sim, &e.state, err, errlen) != 0) {
        bodies_free(&e.state);
        return -1;
    }
    r->time_base = e.time;
    r->step_base = e.step;
    r->copy.valid = false;
    run_went_back(r);
    s->params = e.params;
    *time = e.time;
    bodies_free(&e.state);
    return RUN_UNDID_PARAMS;
}

int run_redo(Run *r, RunSettings *s, double *time, char *err, size_t errlen)
{
    if (run_redo_future(r)) {
        *time = run_time(r);
        return RUN_UNDID_FUTURE;
    }
    return run_redo_run(r, s, time, err, errlen);
}
