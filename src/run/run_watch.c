/* What is measured on the run (run.h, "observation"): its energy against the first state's (E0 is
 * measured on the first state with the softening in force, so it stays the energy at the start
 * when the softening changes), the spread of its bodies, the force checks (at once, and live in a
 * worker thread, sim/force_watch.h) and the disks' heating against the start (sim/heating.h).
 * Each is timed by the wall clock so that the frame loop gives it a small share of its time; the
 * app decides when it is wanted and says what it means. The frame never stops for the energy's
 * O(N^2) sum: on the CPU backend (a quarter of a second at 16,384 bodies on two cores) it runs in a
 * worker thread on a copy of the state; on the GPU (tens of milliseconds at 131,072 bodies) it is
 * summed a share a frame beside the steps (sim_energy_begin), and the worker adds the host's parts. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_state.h"
#include "util/clock.h"
#include "util/job_thread.h"

/* The energy: an O(N^2) sum in double, kept to a few per cent of the time, and skipped above this. */
#define ENERGY_MAX_BODIES 262144
/* The live force error's sample, and its interval at least. */
#define LIVE_ERROR_SAMPLES 256
#define LIVE_ERROR_SECONDS 2.0
/* The disks' heating: model time between samples in rotation periods at the disk's half-mass
 * radius, and wall time between samples at least. */
#define HEATING_PERIODS 0.5
/* The disk settles in its first rotation (docs/HEATING.md): drifts are held against it after. */
#define HEATING_SETTLE_PERIODS 1.0
#define HEATING_SECONDS 1.0
/* On the GPU, a copy of the state this recent (the checkpoint's: run_checkpoint keeps it within
 * about a second) is measured instead of reading the state again. */
#define RECENT_COPY_SECONDS 2.0

/* The energy measured off the frame loop: the state copied, its sums on one thread (or the stars'
 * on the device, a share a frame, and the rest on the thread); with E0 of the first state where
 * the softening is new. */
struct RunEnergyJob {
    JobThread *thread;
    enum { SUMMING_NONE, SUMMING_STATE, SUMMING_FIRST } summing; /* the device's sums under way */
    bool on_device;               /* the stars' sums below came from the device */
    SimEnergy stars, stars0;      /* the device's: the state's stars, the first state's */
    double began;                 /* when this measurement was started */
    long long step;               /* the step of the state it measures (-1: none yet) */
    Bodies state, first;          /* the copies */
    int state_cap, first_cap;     /* the bodies each holds room for */
    bool with_e0;
    SimHalos halos;
    float softening;
    SimEnergy e;
    double e0;
    Diagnostics diag;
    double half_mass, seconds;
};

/* The energy of b: all of it here, or the device's stars' sums and the rest here. */
static SimEnergy job_energy(const struct RunEnergyJob *j, const Bodies *b, SimEnergy stars)
{
    if (!j->on_device) return sim_energy_of(b, &j->halos, j->softening, 1);
    const SimEnergy f = sim_energy_fields(b, &j->halos, j->softening, 1);
    return (SimEnergy){.kinetic = stars.kinetic + f.kinetic, .potential = stars.potential + f.potential,
                       .friction = f.friction};
}

static void energy_job_run(void *arg)
{
    struct RunEnergyJob *j = arg;
    if (j->with_e0) {
        const SimEnergy e0 = job_energy(j, &j->first, j->stars0);
        j->e0 = e0.kinetic + e0.potential + e0.friction;
    }
    const double t0 = clock_seconds(); /* a measurement's cost, E0's once aside */
    j->e = job_energy(j, &j->state, j->stars);
    diag_measure(&j->state, j->e, &j->diag);
    j->half_mass = bodies_mass_radius(&j->state, 0.5);
    j->seconds = clock_seconds() - t0;
}

/* The baselines of a new run: its first state's spread and disks, no measurement of the run before. */
void run_watch_restart(Run *r)
{
    RunWatch *w = &r->watch;
    w->e0_softening = NAN;
    w->next_energy = 0;
    w->energy = (RunEnergy){.spread = 1, .history = w->history};
    w->half_mass0 = bodies_mass_radius(&r->first, 0.5);
    if (w->forces) force_watch_forget(w->forces);
    if (w->energy_job) {
        job_thread_forget(w->energy_job->thread);
        w->energy_job->summing = SUMMING_NONE;
        w->energy_job->step = -1;
    }
    w->live = (RunLiveError){.what = w->live_what};
    w->next_live = 0;
    heating_free(&w->heating);
    const HeatingDesc d = {.interval = r->info.scene.period > 0 ? HEATING_PERIODS * r->info.scene.period : 0,
                           .pericentre_time = r->info.scene.pericentre_time,
                           .settle = r->info.scene.period > 0 ? HEATING_SETTLE_PERIODS * r->info.scene.period : 0,
                           .fields = *sim_halos(r->sim)};
    const double t0 = clock_seconds();
    if (heating_start(&w->heating, &r->first, run_time(r), &d) != 0)
        run_say(r, RUN_SAY_SCREEN, "Disk heating: out of memory");
    w->heating_cost = clock_seconds() - t0;
    w->next_heating = 0;
}

void run_watch_create(Run *r)
{
    struct RunEnergyJob *j = calloc(1, sizeof *j);
    char why[256];
    if (j && !(j->thread = job_thread_create(energy_job_run, j, "energy watch", why, sizeof why))) {
        run_say(r, RUN_SAY_CONSOLE, "the energy is measured on the frame loop: %s", why);
        free(j);
        j = NULL;
    }
    if (j) j->step = -1;
    r->watch.energy_job = j;
}

void run_watch_free(Run *r)
{
    force_watch_destroy(r->watch.forces);
    r->watch.forces = NULL;
    struct RunEnergyJob *j = r->watch.energy_job;
    if (j) {
        job_thread_destroy(j->thread);
        bodies_free(&j->state);
        bodies_free(&j->first);
        free(j);
        r->watch.energy_job = NULL;
    }
    heating_free(&r->watch.heating);
}

/* E0 with softening eps: the first state's energy on the backend that runs (a second,
 * short-lived simulation of it). */
static bool initial_energy(Run *r, float eps, double *e0)
{
    char err[256];
    Sim *first = sim_create(&(SimDesc){.backend = sim_backend(r->sim), .halos = sim_halos(r->sim)}, &r->first, err, sizeof err);
    if (!first) return false;
    const SimEnergy e = sim_energy(first, eps);
    sim_destroy(first);
    *e0 = e.kinetic + e.potential + e.friction;
    return isfinite(*e0);
}

/* A measurement's figures into the readout: dE/E0, the diagnostics, the history, the spread. */
static void energy_publish(RunWatch *w, SimEnergy e, const Diagnostics *diag, double half_mass)
{
    const double total = e.kinetic + e.potential + e.friction;
    RunEnergy *m = &w->energy;
    m->finite = isfinite(total);
    m->valid = m->finite;
    if (!m->finite) return;
    m->error = w->e0 != 0 ? (total - w->e0) / fabs(w->e0) : 0;
    m->diag = *diag;
    const int cap = (int)(sizeof w->history / sizeof w->history[0]);
    if (m->history_count == cap) {
        memmove(w->history, w->history + 1, (size_t)(cap - 1) * sizeof w->history[0]);
        m->history_count--;
    }
    w->history[m->history_count++] = (float)m->error;
    m->spread = w->half_mass0 > 0 ? half_mass / w->half_mass0 : 1;
}

/* b copied into c, whose capacity is cap (grown, or false). */
static bool copy_state(Bodies *c, int *cap, const Bodies *b)
{
    if (*cap < b->n) {
        bodies_free(c);
        if (bodies_alloc(c, b->n) != 0) return false;
        *cap = b->n;
    }
    c->n = b->n;
    memcpy(c->pos, b->pos, 4 * (size_t)b->n * sizeof *b->pos);
    memcpy(c->vel, b->vel, 4 * (size_t)b->n * sizeof *b->vel);
    return true;
}

/* A finished measurement published, with its E0 where it brought one; true where it was. The next
 * is due when the CPU's has had a twentieth of the processors' time (one thread beside the run's:
 * at 16,384 bodies on two cores a measurement every 8 s, the steps as many as with the loop's
 * quarter-second stop every 5 s, docs/PERFORMANCE.md), or, on the device, as long after as this
 * one took, so that the device sums at most half the frames. */
static bool energy_arrived(RunWatch *w, struct RunEnergyJob *j)
{
    const double now = clock_seconds();
    w->next_energy = now + fmax(0.25, j->on_device ? now - j->began : 20 * j->seconds / omp_get_num_procs());
    if (j->with_e0 && isfinite(j->e0)) {
        w->e0 = j->e0;
        w->e0_softening = j->softening;
    }
    if (j->softening != w->e0_softening) return false;
    energy_publish(w, j->e, &j->diag, j->half_mass);
    return true;
}

/* The state (the run's copy, read now or, on the GPU, the checkpoint's while it is recent) and the
 * first, where E0 is wanted, copied into the job; false where memory ran out (said, and the next
 * measurement put off). */
static bool energy_job_fill(Run *r, struct RunEnergyJob *j, float eps, double now)
{
    RunWatch *w = &r->watch;
    run_read_recent(r, RECENT_COPY_SECONDS);
    j->with_e0 = !(w->e0_softening == eps);
    if (!copy_state(&j->state, &j->state_cap, &r->copy.bodies) ||
        (j->with_e0 && !copy_state(&j->first, &j->first_cap, &r->first))) {
        bodies_free(&j->state);
        bodies_free(&j->first);
        j->state_cap = j->first_cap = 0;
        w->next_energy = now + 60;
        run_say(r, RUN_SAY_SCREEN, "Energy: out of memory");
        return false;
    }
    j->halos = *sim_halos(r->sim);
    j->softening = eps;
    j->began = now;
    j->step = r->copy.step;
    return true;
}

/* The CPU backend's: a finished measurement published, and the next started on a copy of the
 * state when due. True when one was published. */
static bool energy_off_the_loop(Run *r, struct RunEnergyJob *j, float eps, double now)
{
    RunWatch *w = &r->watch;
    const bool published = job_thread_take(j->thread) && energy_arrived(w, j);
    if (job_thread_busy(j->thread) || now < w->next_energy) return published;
    if (!energy_job_fill(r, j, eps, now)) return published;
    j->on_device = false;
    if (job_thread_start(j->thread)) w->next_energy = HUGE_VAL; /* set again when it arrives */
    return published;
}

/* The GPU's: the stars' sums a share a frame on the device (the state's, then the first state's
 * where E0 is wanted), then the rest on the worker; a measurement published when it arrives. True
 * when one was published. */
static bool energy_on_the_device(Run *r, struct RunEnergyJob *j, float eps, double now)
{
    RunWatch *w = &r->watch;
    const bool published = job_thread_take(j->thread) && energy_arrived(w, j);
    if (j->summing != SUMMING_NONE) {
        int rc = sim_energy_poll(r->sim, j->summing == SUMMING_STATE ? &j->stars : &j->stars0);
        if (rc == 0) return published;
        if (rc > 0 && j->summing == SUMMING_STATE && j->with_e0) {
            if (sim_energy_begin(r->sim, &j->first, j->softening) == 0) {
                j->summing = SUMMING_FIRST;
                return published;
            }
            rc = -1;
        }
        j->summing = SUMMING_NONE;
        if (rc < 0) w->next_energy = now + 60; /* the backend stopped: its error is said */
        else if (job_thread_start(j->thread)) w->next_energy = HUGE_VAL;
        return published;
    }
    if (job_thread_busy(j->thread) || now < w->next_energy) return published;
    run_read_recent(r, RECENT_COPY_SECONDS);
    if (r->copy.step == j->step && w->e0_softening == eps) return published; /* measured: the next copy's */
    if (!energy_job_fill(r, j, eps, now)) return published;
    j->on_device = true;
    if (sim_energy_begin(r->sim, &j->state, eps) != 0) {
        w->next_energy = now + 60;
        return published;
    }
    j->summing = SUMMING_STATE;
    w->next_energy = HUGE_VAL;
    return published;
}

bool run_measure_energy(Run *r, float eps, double now)
{
    RunWatch *w = &r->watch;
    if (sim_count(r->sim) > ENERGY_MAX_BODIES || sim_error(r->sim)) return false;
    struct RunEnergyJob *j = w->energy_job;
    if (j && sim_backend(r->sim) == SIM_BACKEND_CPU) return energy_off_the_loop(r, j, eps, now);
    if (j && sim_energy_shares(r->sim)) return energy_on_the_device(r, j, eps, now);
    if (!(w->e0_softening == eps)) {
        if (!initial_energy(r, eps, &w->e0)) return false;
        w->e0_softening = eps;
    }
    if (now < w->next_energy) return false;
    const double t0 = clock_seconds();
    const SimEnergy e = sim_energy(r->sim, eps);
    run_read_state(r);
    Diagnostics diag;
    diag_measure(&r->copy.bodies, e, &diag);
    energy_publish(w, e, &diag, bodies_mass_radius(&r->copy.bodies, 0.5));
    w->next_energy = clock_seconds() + fmax(0.25, 20 * (clock_seconds() - t0));
    return true;
}

void run_wait_energy(Run *r)
{
    if (r->watch.energy_job) job_thread_settle(r->watch.energy_job->thread);
}

const RunEnergy *run_energy(const Run *r) { return &r->watch.energy; }

void run_measure_soon(Run *r)
{
    if (r->watch.energy_job) {
        job_thread_forget(r->watch.energy_job->thread); /* its state is gone */
        r->watch.energy_job->summing = SUMMING_NONE;
        r->watch.energy_job->step = -1;
    }
    r->watch.next_energy = 0;
}

int run_check_forces(Run *r, float eps, ForceCheck *out)
{
    run_read_state(r);
    return diag_force_check(r->sim, &r->copy.bodies, eps, 2048, out);
}

/* Whether the accelerations stored with a state were computed by the method that runs now, with
 * p: the softening, and the opening where the method opens cells (as the backends resolve it). */
static bool stepped_with(const BodiesAccInfo *i, SimForce force, const SimParams *p)
{
    if (i->force != (int)force || !(i->softening == p->softening)) return false;
    if (force == SIM_FORCE_DIRECT) return true;
    const float alpha = p->alpha > 0 ? p->alpha : 0;
    return i->alpha == alpha &&
           sim_opening_theta(force, i->theta, i->alpha) == sim_opening_theta(force, p->theta, alpha);
}

bool run_watch_forces(Run *r, const SimParams *p, double now, bool wanted, const char *method)
{
    RunWatch *w = &r->watch;
    if (!w->forces) return false;
    bool arrived = false;
    if (force_watch_take(w->forces, &w->live.error)) {
        snprintf(w->live_what, sizeof w->live_what, "%s", w->live_pending);
        w->live.valid = arrived = true;
    }
    w->live.measuring = force_watch_busy(w->forces);
    if (!wanted || w->live.measuring || now < w->next_live || sim_error(r->sim)) return arrived;
    const double t0 = clock_seconds();
    run_read_recent(r, RECENT_COPY_SECONDS);
    const Bodies *b = &r->copy.bodies;
    if (!r->copy.valid || !stepped_with(&b->acc_info, sim_force(r->sim), p)) return arrived; /* the next copy's */
    const int rc = force_watch_start(w->forces, b, sim_halos(r->sim), LIVE_ERROR_SAMPLES);
    if (rc < 0) {
        run_say(r, RUN_SAY_SCREEN, "Live force error: out of memory");
        w->next_live = now + 60;
        return arrived;
    }
    if (rc > 0) return arrived;
    snprintf(w->live_pending, sizeof w->live_pending, "%s", method);
    w->live.measuring = true;
    w->next_live = clock_seconds() + fmax(LIVE_ERROR_SECONDS, 20 * (clock_seconds() - t0));
    return arrived;
}

const RunLiveError *run_live_error(const Run *r) { return &r->watch.live; }

bool run_watch_heating(Run *r, double now)
{
    RunWatch *w = &r->watch;
    if (w->heating.galaxies == 0 || now < w->next_heating || sim_error(r->sim)) return false;
    if (!heating_due(&w->heating, run_time(r))) return false;
    const double t0 = clock_seconds();
    run_read_recent(r, RECENT_COPY_SECONDS);
    if (!r->copy.valid || !heating_due(&w->heating, r->copy.time)) return false; /* the GPU's copy lags */
    if (heating_sample(&w->heating, &r->copy.bodies, r->copy.time) != 0) {
        run_say(r, RUN_SAY_SCREEN, "Disk heating: out of memory");
        w->next_heating = now + 60;
        return false;
    }
    w->heating_cost = clock_seconds() - t0;
    w->next_heating = clock_seconds() + fmax(HEATING_SECONDS, 20 * w->heating_cost);
    return true;
}

const HeatingSeries *run_heating(const Run *r) { return &r->watch.heating; }
double run_heating_cost(const Run *r) { return r->watch.heating_cost; }
