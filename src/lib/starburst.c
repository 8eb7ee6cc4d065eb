/* libstarburst (include/starburst.h): a Run (src/run/run.h) made, driven and saved as the program
 * makes, drives and saves one, with no window.
 *
 * What the program decides at its start is decided here the same way, so that the same options
 * give the same bits: a scene's dt and softening are the ones it suggests, theta and alpha the
 * parameter table's defaults, a saved run's settings its own (run_start_params, as the program
 * takes them); steps go through run_advance as a frame's do. Every value is read by the
 * command line's readers (util/params.h: option_read for the names, params_parse_in for numbers
 * with their units) under the option's name, so a refusal is the program's line. */
#include "starburst.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/picture.h"
#include "run/run.h"
#include "run/run_choices.h"
#include "scene/body_check.h"
#include "sim/structure_report.h"
#include "util/params.h"

/* Bodies where -n is left out, as the program has them (src/app/viewer.h). */
#define STARBURST_BODIES_CUDA 131072
#define STARBURST_BODIES_CPU 16384

struct StarburstRun {
    Run *run;
    SimParams params;
    int steps_per_frame; /* what a save records, and --load goes on with */
    Picture *picture;    /* the render room's context, from the first starburst_render */
    char err[1024];
};

int starburst_version(void) { return STARBURST_VERSION_MAJOR << 16 | STARBURST_VERSION_MINOR; }

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* The command line's choices, read with its own specs (run/run_choices.h, as src/app/options.c). */
static const OptionSpec scene_spec = RUN_CHOICE_SCENE, backend_spec = RUN_CHOICE_BACKEND,
                        force_spec = RUN_CHOICE_FORCE, halo_spec = RUN_CHOICE_HALO;

/* text read as the option label's choice into *v; NULL text leaves *v as it is. */
static int read_choice(const char *label, const char *text, const OptionSpec *spec, int *v, char *err, size_t errlen)
{
    if (!text) return STARBURST_OK;
    OptionValue value;
    if (option_read(spec, NULL, label, text, &value, err, errlen) != 0) return STARBURST_ERR_VALUE;
    *v = (int)value.number;
    return STARBURST_OK;
}

/* The backend asked for, found: CUDA where a device is usable (auto), else the CPU. */
static int find_backend(const char *text, SimBackend *out, char *err, size_t errlen)
{
    int asked = SIM_BACKEND_AUTO;
    const int rc = read_choice("--backend", text, &backend_spec, &asked, err, errlen);
    if (rc != STARBURST_OK) return rc;
    char why[256] = "";
    const bool cuda = asked != SIM_BACKEND_CPU && sim_cuda_available(why, sizeof why);
    if (asked == SIM_BACKEND_CUDA && !cuda) return fail(err, errlen, STARBURST_ERR_VALUE, "--backend cuda: %s", why);
    *out = cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
    return STARBURST_OK;
}

static StarburstRun *wrap(const RunDesc *d, char *err, size_t errlen)
{
    StarburstRun *s = calloc(1, sizeof *s);
    if (!s) {
        fail(err, errlen, 0, "out of memory");
        return NULL;
    }
    s->run = run_make(d, err, errlen);
    if (!s->run) {
        free(s);
        return NULL;
    }
    return s;
}

static void destroy_on_failure(StarburstRun *s)
{
    run_destroy(s->run);
    free(s);
}

/* The run's description, its defaults filled as the program's start fills them. */
/* The steps a frame where no file says: the program's default on each backend. */
static int default_steps_per_frame(SimBackend backend)
{
    return backend == SIM_BACKEND_CUDA ? (int)params_get(PARAM_STEPS_PER_FRAME)->fallback : 1;
}

static RunDesc run_desc(SimBackend backend, SimForce force)
{
    RunDesc d = {.source = {.force = force}, .backend = backend, .kernel = SIM_KERNEL_DEFAULT, .timeline_bytes = 0};
    run_desc_defaults(&d);
    return d;
}

int starburst_make(const StarburstDesc *d, StarburstRun **out, char *err, size_t errlen)
{
    *out = NULL;
    const StarburstDesc none = {0};
    if (!d) d = &none;
    int kind = SCENE_COLLISION, force = SIM_FORCE_AUTO, halo = SCENE_HALO_FIELD;
    SimBackend backend;
    int rc = read_choice("--scene", d->scene, &scene_spec, &kind, err, errlen);
    if (!rc) rc = read_choice("--force", d->force, &force_spec, &force, err, errlen);
    if (!rc) rc = read_choice("--halo", d->halo, &halo_spec, &halo, err, errlen);
    if (!rc) rc = find_backend(d->backend, &backend, err, errlen);
    if (rc) return rc;

    int n = backend == SIM_BACKEND_CUDA ? STARBURST_BODIES_CUDA : STARBURST_BODIES_CPU;
    if (d->n != 0) {
        char text[32];
        double v;
        snprintf(text, sizeof text, "%d", d->n);
        if (params_parse(PARAM_BODIES, "-n", text, &v, err, errlen) != 0) return STARBURST_ERR_VALUE;
        n = (int)v;
        if (scene_check_bodies((SceneKind)kind, n, err, errlen) != 0) return STARBURST_ERR_VALUE;
    }
    const uint64_t seed = d->seed ? d->seed : 1;
    SceneDesc scene = {.kind = (SceneKind)kind, .n = n, .seed = seed, .halo = (SceneHalo)halo};
    if (scene_check(&scene, err, errlen) != 0) return STARBURST_ERR_VALUE;

    RunDesc desc = run_desc(backend, (SimForce)force);
    desc.source.scene = scene;
    StarburstRun *s = wrap(&desc, err, errlen);
    if (!s) return STARBURST_ERR_VALUE;
    /* The program's first build: the halo and the encounter as its panel hands them on. */
    run_choose_halo(s->run, (SceneHalo)halo);
    if (kind == SCENE_COLLISION) {
        const SceneEncounter e = scene_encounter(&run_source(s->run)->scene);
        run_choose_encounter(s->run, &e);
    }
    if (run_reset(s->run, (SceneKind)kind, n, seed, SIM_KERNEL_DEFAULT, err, errlen) != 0) {
        destroy_on_failure(s);
        return STARBURST_ERR_VALUE;
    }
    s->params = run_start_params(s->run, params_theta(0), params_alpha(-1));
    s->steps_per_frame = default_steps_per_frame(backend);
    *out = s;
    return STARBURST_OK;
}

/* What --load and --open share: the force method and backend read, a path given, and the run's
 * desc on them. */
static int file_desc(const char *option, const char *path, const char *backend_name, const char *force_name,
                     RunDesc *desc, char *err, size_t errlen)
{
    int force = SIM_FORCE_AUTO;
    SimBackend backend;
    int rc = read_choice("--force", force_name, &force_spec, &force, err, errlen);
    if (!rc) rc = find_backend(backend_name, &backend, err, errlen);
    if (rc) return rc;
    if (!path) return fail(err, errlen, STARBURST_ERR_VALUE, "%s: no file given", option);
    *desc = run_desc(backend, (SimForce)force);
    return STARBURST_OK;
}

int starburst_load(const char *path, const char *backend_name, const char *force_name, StarburstRun **out,
                   char *err, size_t errlen)
{
    *out = NULL;
    RunDesc desc;
    const int rc = file_desc("--load", path, backend_name, force_name, &desc, err, errlen);
    if (rc) return rc;
    desc.source.from_save = true;
    if (snprintf(desc.source.file, sizeof desc.source.file, "%s", path) >= (int)sizeof desc.source.file)
        return fail(err, errlen, STARBURST_ERR_FILE, "--load: the path is longer than %zu bytes",
                    sizeof desc.source.file - 1);
    StarburstRun *s = wrap(&desc, err, errlen);
    if (!s) return STARBURST_ERR_FILE;
    if (run_reset(s->run, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, err, errlen) != 0) {
        destroy_on_failure(s);
        return STARBURST_ERR_FILE;
    }
    /* The saved settings, as the program goes on with them. */
    const RunInfo *info = run_info(s->run);
    s->params = run_start_params(s->run, params_theta(0), params_alpha(-1));
    s->steps_per_frame = info->saved.steps_per_frame > 0 ? info->saved.steps_per_frame : default_steps_per_frame(desc.backend);
    *out = s;
    return STARBURST_OK;
}

int starburst_open(const char *path, const char *backend_name, const char *force_name, StarburstRun **out,
                   char *err, size_t errlen)
{
    *out = NULL;
    RunDesc desc;
    const int rc = file_desc("--open", path, backend_name, force_name, &desc, err, errlen);
    if (rc) return rc;
    /* A TIPSY file without its .ini has no known scale: model units, as the program opens it. */
    const Units none = {0, 0, 0, 0};
    Units scale;
    char why[900];
    desc.series = run_open_series(path, &none, &scale, why, sizeof why);
    if (!desc.series) return fail(err, errlen, STARBURST_ERR_FILE, "--open: %s", why);
    StarburstRun *s = wrap(&desc, why, sizeof why);
    if (!s) return fail(err, errlen, STARBURST_ERR_FILE, "--open: %s", why);
    if (run_reset(s->run, SCENE_TIPSY, 0, 1, SIM_KERNEL_DEFAULT, why, sizeof why) != 0) {
        destroy_on_failure(s);
        return fail(err, errlen, STARBURST_ERR_FILE, "--open: %s", why);
    }
    s->params = run_start_params(s->run, params_theta(0), params_alpha(-1));
    s->steps_per_frame = default_steps_per_frame(desc.backend);
    *out = s;
    return STARBURST_OK;
}

void starburst_destroy(StarburstRun *r)
{
    if (!r) return;
    picture_destroy(r->picture);
    run_destroy(r->run);
    free(r);
}

const char *starburst_error(const StarburstRun *r) { return r ? r->err : "no run"; }

/* The scale the run's values with a unit are read on: the scene's, or a saved run's. */
static Units run_units(const StarburstRun *r)
{
    const RunInfo *info = run_info(r->run);
    return units_physical(&info->scene.units) ? info->scene.units : info->saved.units;
}

/* The parameters a script sets: the ones the panel sets while a run goes. */
static const ParamId settable[] = {PARAM_DT,    PARAM_SOFTENING, PARAM_DAMPING,
                                   PARAM_THETA, PARAM_ALPHA,     PARAM_STEPS_PER_FRAME};

static int settable_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof settable / sizeof settable[0]; i++) {
        const Param *p = params_get(settable[i]);
        if (!strcmp(name, p->key) || (p->option && !strcmp(name, p->option))) return (int)settable[i];
    }
    return -1;
}

static float *param_field(SimParams *p, ParamId id)
{
    switch (id) {
    case PARAM_DT: return &p->dt;
    case PARAM_SOFTENING: return &p->softening;
    case PARAM_DAMPING: return &p->damping;
    case PARAM_THETA: return &p->theta;
    case PARAM_ALPHA: return &p->alpha;
    default: return NULL;
    }
}

int starburst_set(StarburstRun *r, const char *name, const char *value)
{
    const int id = settable_named(name);
    if (id < 0)
        return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE,
                    "%s: not a parameter a run sets: dt, softening, damping, theta, alpha, steps_per_frame",
                    name ? name : "(none)");
    const Param *p = params_get((ParamId)id);
    const Units u = run_units(r);
    double v;
    if (params_parse_in((ParamId)id, &u, p->option ? p->option : p->key, value ? value : "", &v, r->err,
                        sizeof r->err) != 0)
        return STARBURST_ERR_VALUE;
    if (id == PARAM_STEPS_PER_FRAME) r->steps_per_frame = (int)v;
    else *param_field(&r->params, (ParamId)id) = (float)v;
    r->err[0] = '\0';
    return STARBURST_OK;
}

double starburst_get(const StarburstRun *r, const char *name)
{
    const int id = settable_named(name);
    if (id < 0) return NAN;
    if (id == PARAM_STEPS_PER_FRAME) return r->steps_per_frame;
    SimParams p = r->params;
    return *param_field(&p, (ParamId)id);
}

int starburst_advance(StarburstRun *r, int steps)
{
    if (steps < 0) return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE, "steps: %d is fewer than 0", steps);
    if (run_advance(r->run, &r->params, steps) != 0)
        return fail(r->err, sizeof r->err, STARBURST_ERR_RUN, "the %s backend stopped: %s",
                    sim_backend_name(sim_backend(run_sim(r->run))), sim_error(run_sim(r->run)));
    return STARBURST_OK;
}

double starburst_time(const StarburstRun *r) { return run_time(r->run); }
long long starburst_step(const StarburstRun *r) { return run_step(r->run); }

double starburst_myr(const StarburstRun *r)
{
    const Units u = run_units(r);
    return units_physical(&u) ? u.myr : 0;
}

double starburst_kpc(const StarburstRun *r)
{
    const Units u = run_units(r);
    return units_physical(&u) ? u.kpc : 0;
}

int starburst_parse_time(StarburstRun *r, const char *text, double *model)
{
    const Units u = run_units(r);
    char why[400];
    if (units_parse(text ? text : "", UNIT_TIME, &u, model, NULL, why, sizeof why) != 0) {
        char quoted[200];
        return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE, "'%s' %s",
                    params_quote(text ? text : "", quoted, sizeof quoted), why);
    }
    return STARBURST_OK;
}

int starburst_count(const StarburstRun *r) { return sim_count(run_sim(r->run)); }

/* The host copy of the state now. */
static const Bodies *state_now(StarburstRun *r)
{
    run_read_state(r->run);
    const RunCopy *c = run_copy(r->run);
    if (!c->valid) {
        fail(r->err, sizeof r->err, STARBURST_ERR_RUN, "the state could not be read: %s",
             sim_error(run_sim(r->run)) ? sim_error(run_sim(r->run)) : "no simulation");
        return NULL;
    }
    return &c->bodies;
}

int starburst_read(StarburstRun *r, float *pos, float *vel, float *mass, uint8_t *tag)
{
    /* Positions or velocities alone (a script's arrays): each column read as it is asked. */
    if (!mass && !tag) {
        Sim *s = run_sim(r->run);
        if ((pos && sim_read_xyz(s, false, pos) != 0) || (vel && sim_read_xyz(s, true, vel) != 0))
            return fail(r->err, sizeof r->err, STARBURST_ERR_RUN, "the state could not be read: %s",
                        sim_error(s) ? sim_error(s) : "out of memory");
        return STARBURST_OK;
    }
    const Bodies *b = state_now(r);
    if (!b) return STARBURST_ERR_RUN;
    for (int i = 0; i < b->n; i++) {
        for (int k = 0; k < 3; k++) {
            if (pos) pos[3 * i + k] = b->pos[4 * i + k];
            if (vel) vel[3 * i + k] = b->vel[4 * i + k];
        }
        if (mass) mass[i] = b->pos[4 * i + 3];
        if (tag) tag[i] = b->tag[i];
    }
    return STARBURST_OK;
}

int starburst_write(StarburstRun *r, const float *pos, const float *vel, const float *mass)
{
    const Bodies *now = state_now(r);
    if (!now) return STARBURST_ERR_RUN;
    Bodies b;
    if (bodies_copy(&b, now) != 0) return fail(r->err, sizeof r->err, STARBURST_ERR_MEMORY, "out of memory");
    for (int i = 0; i < b.n; i++) {
        for (int k = 0; k < 3; k++) {
            if (pos) b.pos[4 * i + k] = pos[3 * i + k];
            if (vel) b.vel[4 * i + k] = vel[3 * i + k];
        }
        if (mass) b.pos[4 * i + 3] = mass[i];
        if (body_check("set_bodies", i, NULL, &b.pos[4 * i], &b.vel[4 * i], b.pos[4 * i + 3], r->err,
                       sizeof r->err) != 0) {
            bodies_free(&b);
            return STARBURST_ERR_VALUE;
        }
    }
    /* The accelerations belong to the positions and masses: where they changed, the next step
     * computes them again. */
    if (b.acc && memcmp(b.pos, now->pos, (size_t)b.n * 4 * sizeof(float)) != 0) {
        free(b.acc);
        b.acc = NULL;
    }
    const int rc = run_set_bodies(r->run, &b, r->err, sizeof r->err);
    bodies_free(&b);
    return rc ? STARBURST_ERR_RUN : STARBURST_OK;
}

int starburst_energy(StarburstRun *r, double *kinetic, double *potential, double *friction)
{
    const SimEnergy e = sim_energy(run_sim(r->run), r->params.softening);
    if (kinetic) *kinetic = e.kinetic;
    if (potential) *potential = e.potential;
    if (friction) *friction = e.friction;
    return STARBURST_OK;
}

/* The report's figures, NaN where the tool prints none. */
static StarburstMeasure measure_of(const StructureReport *g)
{
    const StructureMeasure *m = &g->m;
    const StructureRing *ring = &m->ring;
    StarburstMeasure o = {.galaxy = g->galaxy, .other = g->other, .ring = {g->desc.ring[0], g->desc.ring[1]},
                          .ring_bodies = ring->count, .beyond = g->desc.beyond, .softening = g->desc.softening,
                          .field = g->desc.field != NULL};
    for (int c = 0; c < 3; c++) {
        o.bodies[c] = m->count[c];
        o.half_mass_radius[c] = m->count[c] > 0 ? m->half_mass_radius[c] : NAN;
        o.beyond_fraction[c] = m->count[c] > 0 && c != BODY_BULGE ? m->beyond_fraction[c] : NAN;
    }
    o.disk_rms_z = m->count[BODY_DISK] >= 2 ? m->disk_rms_z : NAN;
    const bool in_ring = ring->count >= 2;
    o.sigma_r = in_ring ? ring->sigma_r : NAN;
    o.kappa = in_ring ? ring->kappa : NAN;
    o.toomre_q = in_ring && ring->toomre_q > 0 ? ring->toomre_q : NAN;
    for (int k = 0; k <= STRUCTURE_MAX_M; k++) o.fourier[k] = in_ring ? ring->fourier[k] : NAN;
    o.virial = structure_report_no_virial(g) ? NAN : m->virial;
    return o;
}

int starburst_measure(StarburstRun *r, double ring0, double ring1, double beyond, StarburstMeasure out[2],
                      int *count)
{
    *count = 0;
    if (!(ring0 >= 0 && (ring1 > ring0 || (ring0 == 0 && ring1 == 0))))
        return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE,
                    "--ring: '%g %g' is not an annulus: R1 must be more than R0", ring0, ring1);
    if (!(beyond >= 0))
        return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE, "--beyond: '%g' is too small: expected more than 0",
                    beyond);
    const Bodies *b = state_now(r);
    if (!b) return STARBURST_ERR_RUN;
    const StructureDesc base = {.ring = {ring0, ring1}, .beyond = beyond};
    StructureReport galaxies[2];
    const int made = structure_report(b, &base, sim_halos(run_sim(r->run)), r->params.softening, galaxies);
    for (int g = 0; g < made; g++) {
        if (!galaxies[g].measured) return fail(r->err, sizeof r->err, STARBURST_ERR_MEMORY, "out of memory");
        out[g] = measure_of(&galaxies[g]);
    }
    *count = made;
    return STARBURST_OK;
}

int starburst_save(StarburstRun *r, const char *path)
{
    if (!path || !*path) return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE, "--save: no file given");
    const RunSettings s = {.params = r->params, .steps_per_frame = r->steps_per_frame};
    long long step;
    bool other;
    if (run_save(r->run, path, &s, &step, &other, r->err, sizeof r->err) != 0) return STARBURST_ERR_FILE;
    return STARBURST_OK;
}

int starburst_export_swift(StarburstRun *r, const char *dir, char *summary, size_t len)
{
    if (!dir || !*dir) return fail(r->err, sizeof r->err, STARBURST_ERR_VALUE, "export: no folder given");
    char msg[1200];
    if (run_export(r->run, dir, &r->params, msg, sizeof msg) != 0)
        return fail(r->err, sizeof r->err, STARBURST_ERR_FILE, "%s", msg);
    if (summary && len) snprintf(summary, len, "%s", msg);
    return STARBURST_OK;
}

int starburst_render(StarburstRun *r, const StarburstView *view, uint8_t *rgb)
{
    const int rc = picture_draw(&r->picture, r->run, view, rgb, r->err, sizeof r->err);
    if (rc == STARBURST_OK) r->err[0] = '\0';
    return rc;
}
