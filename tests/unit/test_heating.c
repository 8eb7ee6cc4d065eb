/* The heating series (sim/heating.h) on the scene's own disk: an untouched disk stays steady, one
 * thickened or warmed by hand is flagged at the level its drift reaches, the figures are
 * structure_measure's in the annulus fixed at the start, an encounter's pericentre turns later
 * drift into tidal heating, a run gone back forgets what came after, a full history is thinned,
 * and a sample of every k-th body measures what the whole does.
 *
 * `test_heating --series N disk|collision T [SEED [cpu|cuda]]` runs the scene (on the CPU unless
 * cuda is named) to model time T
 * instead and prints its disks' thickness, sigma_R and Q, their drifts, the tide and the state
 * every quarter rotation (the settling of a disk, docs/HEATING.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene/scene.h"
#include "sim/heating.h"
#include "sim/sim.h"
#include "sim/structure.h"
#include "util/clock.h"

#define N_DISK 2048

static void build(SceneKind kind, int n, Bodies *b, SceneInfo *info)
{
    char err[256] = "";
    assert_int_equal(scene_build(&(SceneDesc){.kind = kind, .n = n}, b, info, err, sizeof err), 0);
}

/* The disk's heights above its centre times fz, its radial velocities about the centre's times fr. */
static void heat_disk(Bodies *b, double fz, double fr)
{
    StructureMeasure m;
    assert_int_equal(structure_measure(b, &(StructureDesc){.galaxy = 0, .virial_max_n = -1}, &m), 0);
    assert_true(fabs(m.axis[2]) > 0.999); /* the scene's disk lies in the xy plane */
    for (int i = 0; i < b->n; i++) {
        if (BODY_TAG_COMPONENT(b->tag[i]) != BODY_DISK) continue;
        float *x = b->pos + 4 * i, *v = b->vel + 4 * i;
        x[2] = (float)(m.centre[2] + fz * (x[2] - m.centre[2]));
        const double dx = x[0] - m.centre[0], dy = x[1] - m.centre[1], r = sqrt(dx * dx + dy * dy);
        if (!(r > 0)) continue;
        const double ux = v[0] - m.centre_velocity[0], uy = v[1] - m.centre_velocity[1];
        const double vr = (ux * dx + uy * dy) / r;
        v[0] += (float)((fr - 1) * vr * dx / r);
        v[1] += (float)((fr - 1) * vr * dy / r);
    }
}

/* The start measures each disk as structure_measure does in its annulus, fixed at 2-3 R_d from
 * the disk's half-mass radius; an untouched disk sampled again has not drifted. */
static void untouched_disk_is_steady(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_DISK, N_DISK, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){.interval = 1}), 0);
    assert_int_equal(s.galaxies, 1);
    assert_int_equal(s.state, HEATING_STEADY);

    StructureMeasure m;
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = 0, .virial_max_n = -1}, &m), 0);
    const HeatingGalaxy *h = &s.galaxy[0];
    assert_true(fabs(h->ring[0] - HEATING_RING_IN * m.half_mass_radius[BODY_DISK]) < 1e-12);
    assert_true(fabs(h->ring[1] - HEATING_RING_OUT * m.half_mass_radius[BODY_DISK]) < 1e-12);
    StructureMeasure ring;
    assert_int_equal(structure_measure(&b, &(StructureDesc){.galaxy = 0, .ring = {h->ring[0], h->ring[1]}}, &ring), 0);
    assert_true(h->history[0].rms_z == ring.disk_rms_z);
    assert_true(h->history[0].sigma_r == ring.ring.sigma_r);
    assert_true(h->history[0].toomre_q == ring.ring.toomre_q);
    print_message("disk, %d bodies: ring %.3f-%.3f, rms z %.4f, sigma_R %.4f, Q %.3f\n", b.n, h->ring[0], h->ring[1],
                  ring.disk_rms_z, ring.ring.sigma_r, ring.ring.toomre_q);
    assert_true(ring.disk_rms_z > 0 && ring.ring.sigma_r > 0 && ring.ring.toomre_q > 0);

    assert_false(heating_due(&s, 0.5));
    assert_true(heating_due(&s, 1.0));
    const double t0 = clock_seconds();
    assert_int_equal(heating_sample(&s, &b, 1.0), 0);
    print_message("a sample of %d bodies: %.2f ms\n", b.n, 1e3 * (clock_seconds() - t0));
    assert_int_equal(h->count, 2);
    assert_true(h->thickness_drift == 0 && h->sigma_drift == 0);
    assert_int_equal(h->state, HEATING_STEADY);
    assert_int_equal(s.state, HEATING_STEADY);
    heating_free(&s);
    bodies_free(&b);
}

/* Thickened by 1.3 the disk is hot; by 1.15 warm; sigma_R raised by 1.2 warm, its thickness steady. */
static void heated_disk_is_flagged(void **state)
{
    (void)state;
    const struct {
        double fz, fr;
        HeatingState want;
    } cases[] = {{1.3, 1.0, HEATING_HOT}, {1.15, 1.0, HEATING_WARM}, {1.0, 1.2, HEATING_WARM}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Bodies b;
        SceneInfo info;
        build(SCENE_DISK, N_DISK, &b, &info);
        HeatingSeries s;
        assert_int_equal(heating_start(&s, &b, 0, NULL), 0);
        heat_disk(&b, cases[c].fz, cases[c].fr);
        assert_int_equal(heating_sample(&s, &b, 1.0), 0);
        const HeatingGalaxy *h = &s.galaxy[0];
        print_message("z x%.2f, v_R x%.2f: thickness %+.3f, sigma_R %+.3f: %s\n", cases[c].fz, cases[c].fr,
                      h->thickness_drift, h->sigma_drift, heating_state_name(h->state));
        assert_true(fabs(h->thickness_drift - (cases[c].fz - 1)) < 0.01);
        /* Bodies moved in z stay in their annulus; sigma_R grows with v_R (the ring's mean v_R is small). */
        assert_true(fabs(h->sigma_drift - (cases[c].fr - 1)) < 0.02);
        assert_int_equal(h->state, cases[c].want);
        assert_int_equal(s.state, cases[c].want);
        assert_true(fabs(h->peak_drift - fmax(h->thickness_drift, h->sigma_drift)) < 1e-12);
        heating_free(&s);
        bodies_free(&b);
    }
}

/* After the first pericentre the drift is the encounter's: tidal, never flagged, even where the
 * disk was flagged before it. Both galaxies of a collision are watched. */
static void pericentre_turns_drift_tidal(void **state)
{
    (void)state;
    Bodies b, hot;
    SceneInfo info;
    build(SCENE_COLLISION, 2 * N_DISK, &b, &info);
    assert_true(info.pericentre_time > 0);
    assert_int_equal(bodies_copy(&hot, &b), 0);
    for (int i = 0; i < hot.n; i++)
        if (BODY_TAG_COMPONENT(hot.tag[i]) == BODY_DISK) hot.pos[4 * i + 2] *= 1.5f; /* thicker about its plane */
    const double tp = info.pericentre_time;

    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){.pericentre_time = tp}), 0);
    assert_int_equal(s.galaxies, 2);
    assert_int_equal(s.galaxy[0].galaxy, 0);
    assert_int_equal(s.galaxy[1].galaxy, 1);
    assert_int_equal(heating_sample(&s, &b, 0.5 * tp), 0);
    assert_int_equal(s.state, HEATING_STEADY);
    assert_int_equal(heating_sample(&s, &hot, 1.5 * tp), 0);
    print_message("collision, pericentre at t %.3f: after it thickness %+.3f, %s\n", tp, s.galaxy[0].thickness_drift,
                  heating_state_name(s.state));
    assert_true(s.galaxy[0].thickness_drift > HEATING_HOT_DRIFT);
    assert_int_equal(s.galaxy[0].state, HEATING_TIDAL);
    assert_int_equal(s.state, HEATING_TIDAL);

    /* Back before the pericentre (an undo), with the galaxies as far apart as at the start (a small
     * tide), the same heat is numerical: flagged. */
    assert_int_equal(heating_sample(&s, &hot, 0.8 * tp), 0);
    assert_int_equal(s.galaxy[0].count, 3); /* start, 0.5 tp, 0.8 tp: 1.5 tp is forgotten */
    assert_true(s.galaxy[0].history[2].tidal < HEATING_TIDAL_LIMIT);
    assert_int_equal(s.state, HEATING_HOT);
    assert_true(s.galaxy[0].encounter_time < 0);
    /* Past the pericentre the growth is the encounter's, flagged before or not: what was measured
     * before it is kept as the peak. */
    assert_int_equal(heating_sample(&s, &hot, 1.2 * tp), 0);
    assert_int_equal(s.galaxy[0].state, HEATING_TIDAL);
    assert_int_equal(s.state, HEATING_TIDAL);
    assert_true(s.galaxy[0].encounter_time == 1.2 * tp);
    assert_true(s.galaxy[0].peak_drift > HEATING_HOT_DRIFT);
    heating_free(&s);
    bodies_free(&hot);
    bodies_free(&b);
}

/* Galaxy 1 of b moved, all its bodies together, so that its centre of mass lies at distance along
 * x from galaxy 0's. */
static void place_galaxy_1(Bodies *b, double distance)
{
    double a[3], c[3];
    bodies_group_centre(b, 0, a);
    bodies_group_centre(b, 1, c);
    const double to[3] = {a[0] + distance, a[1], a[2]};
    for (int i = 0; i < b->n; i++)
        if (BODY_TAG_GALAXY(b->tag[i]) == 1)
            for (int k = 0; k < 3; k++) b->pos[4 * i + k] += (float)(to[k] - c[k]);
}

/* The tide is the other galaxy's point-mass tide over the disk's own pull: far off, it falls as the
 * cube of the distance; none without another galaxy. */
static void tide_falls_with_distance(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_COLLISION, 2 * N_DISK, &b, &info);
    /* Far beyond both halos' bodies, so the other's whole mass is within the distance. */
    const double far = 1000.0;
    place_galaxy_1(&b, far);
    const double near = heating_tidal(&b, 0, 3.0, NULL);
    place_galaxy_1(&b, 2 * far);
    const double twice = heating_tidal(&b, 0, 3.0, NULL);
    print_message("tide at 3 on galaxy 0: %.4g at %.0f, %.4g at twice that\n", near, far, twice);
    assert_true(near > 0 && twice > 0);
    assert_true(fabs(near / twice / 8.0 - 1.0) < 0.05);
    bodies_free(&b);

    build(SCENE_DISK, N_DISK, &b, &info);
    assert_true(heating_tidal(&b, 0, 3.0, NULL) == 0);
    bodies_free(&b);
}

/* With halos as fields the disk measures as with live halos: the collision's start, galaxy A's
 * annulus, Q and the tide within a few per cent of the live build's (whose halo bodies give the
 * masses the field's profile gives), not the centres' point masses. Sampled (max_bodies), the
 * centres are kept. */
static void fields_measure_as_live_halos(void **state)
{
    (void)state;
    Bodies b[2];
    SceneInfo info[2];
    char err[256] = "";
    const int stars = 8192;
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = stars, .halo = SCENE_HALO_FIELD}, &b[0],
                                 &info[0], err, sizeof err),
                     0);
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = (int)lround(stars * 6.2 / 1.2),
                                              .halo = SCENE_HALO_LIVE},
                                 &b[1], &info[1], err, sizeof err),
                     0);
    const double ring[2] = {2, 3};
    HeatingPoint p[2];
    assert_int_equal(heating_measure(&b[0], 0, ring, &info[0].halos, &p[0]), 0);
    assert_int_equal(heating_measure(&b[1], 0, ring, NULL, &p[1]), 0);
    print_message("galaxy A: field Q %.3f tide %.4g; live Q %.3f tide %.4g\n", p[0].toomre_q, p[0].tidal,
                  p[1].toomre_q, p[1].tidal);
    assert_true(fabs(p[0].toomre_q / p[1].toomre_q - 1) < 0.15);
    assert_true(fabs(p[0].tidal / p[1].tidal - 1) < 0.1);

    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b[0], 0, &(HeatingDesc){.max_bodies = 4000, .fields = info[0].halos}), 0);
    assert_int_equal(s.galaxies, 2);
    print_message("sampled: Q %.3f\n", s.galaxy[0].history[0].toomre_q);
    assert_true(fabs(s.galaxy[0].history[0].toomre_q / p[0].toomre_q - 1) < 0.25);
    heating_free(&s);
    bodies_free(&b[0]);
    bodies_free(&b[1]);
}

/* The encounter's tide, before any pericentre the orbit predicts (or with none, as a loaded run
 * has): a disk heated while the other galaxy's tide is small is flagged; once it is no longer
 * small, the growth is the encounter's. */
static void tide_turns_drift_tidal(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_COLLISION, 2 * N_DISK, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){0}), 0);
    assert_true(s.galaxy[0].history[0].tidal > 0 && s.galaxy[0].history[0].tidal < HEATING_TIDAL_LIMIT);
    heat_disk(&b, 1.5, 1.0);
    assert_int_equal(heating_sample(&s, &b, 1.0), 0);
    assert_int_equal(s.state, HEATING_HOT);
    /* Galaxy 1 brought in to 8 (the annulus ends near 3), where galaxy 0 feels a tide past the
     * limit: 2 (3/8)^3 is already 0.1 for equal masses within. */
    double a[3], c[3];
    bodies_group_centre(&b, 0, a);
    bodies_group_centre(&b, 1, c);
    const double apart = sqrt((c[0] - a[0]) * (c[0] - a[0]) + (c[1] - a[1]) * (c[1] - a[1]) + (c[2] - a[2]) * (c[2] - a[2]));
    place_galaxy_1(&b, 8.0);
    assert_int_equal(heating_sample(&s, &b, 2.0), 0);
    const HeatingGalaxy *h = &s.galaxy[0];
    print_message("galaxy 1 brought in: tide %.3f on galaxy 0, %.3f on galaxy 1; %s\n", h->history[2].tidal,
                  s.galaxy[1].history[2].tidal, heating_state_name(s.state));
    assert_true(h->history[2].tidal > HEATING_TIDAL_LIMIT);
    assert_int_equal(h->state, HEATING_TIDAL);
    assert_true(h->encounter_time == 2.0);
    assert_true(h->thickness_drift > HEATING_HOT_DRIFT);
    /* Later, as far apart as at the start, the disk heats on: still the encounter's. */
    place_galaxy_1(&b, apart);
    assert_int_equal(heating_sample(&s, &b, 3.0), 0);
    assert_true(h->history[3].tidal < HEATING_TIDAL_LIMIT);
    assert_int_equal(h->state, HEATING_TIDAL);
    heating_free(&s);
    bodies_free(&b);
}

/* A run gone back to its start is measured afresh there; samples due only after the interval. */
static void run_gone_back(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_DISK, N_DISK, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 2.0, &(HeatingDesc){.interval = 1}), 0);
    heat_disk(&b, 1.3, 1.0);
    assert_true(heating_due(&s, 3.0));
    assert_int_equal(heating_sample(&s, &b, 3.0), 0);
    assert_int_equal(s.state, HEATING_HOT);
    assert_false(heating_due(&s, 3.0));
    assert_true(heating_due(&s, 2.5)); /* before the last sample: the run went back */
    assert_int_equal(heating_sample(&s, &b, 2.0), 0);
    assert_int_equal(s.galaxy[0].count, 1);
    assert_int_equal(s.state, HEATING_STEADY); /* the heated state is now the start */
    heating_free(&s);
    bodies_free(&b);
}

/* A disk that settles: sigma_R's rise within desc.settle of the start is not judged, and from then
 * on sigma_R is held against the first sample after it; the thickness is held against the start
 * all along (a disk thickened while it settles is flagged); thinning keeps the base where it was;
 * a run gone back before the base settles again. */
static void settling_is_not_flagged(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_DISK, N_DISK, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){.interval = 1, .settle = 2}), 0);
    const HeatingGalaxy *h = &s.galaxy[0];
    assert_false(h->settled);
    heat_disk(&b, 1.0, 1.3); /* sigma_R +30 %: hot against the start */
    assert_int_equal(heating_sample(&s, &b, 1.0), 0);
    print_message("settling, t 1: sigma_R %+.3f against the start: %s\n", h->sigma_drift, heating_state_name(h->state));
    assert_true(h->sigma_drift > HEATING_HOT_DRIFT);
    assert_false(h->settled);
    assert_int_equal(s.state, HEATING_STEADY);
    assert_true(h->peak_drift < HEATING_WARM_DRIFT);
    /* Settled at t 2: sigma_R's base from then on. */
    assert_int_equal(heating_sample(&s, &b, 2.0), 0);
    assert_true(h->settled && h->base.time == 2.0);
    assert_true(h->sigma_drift == 0 && fabs(h->thickness_drift) < 0.01);
    assert_int_equal(s.state, HEATING_STEADY);
    heat_disk(&b, 1.0, 1.15);
    assert_int_equal(heating_sample(&s, &b, 3.0), 0);
    print_message("settled at t 2, v_R x1.15 by t 3: thickness %+.3f, sigma_R %+.3f: %s\n", h->thickness_drift,
                  h->sigma_drift, heating_state_name(h->state));
    assert_true(fabs(h->sigma_drift - 0.15) < 0.02 && h->drift == h->sigma_drift);
    assert_int_equal(s.state, HEATING_WARM);
    assert_true(fabs(h->peak_drift - h->sigma_drift) < 1e-12);
    /* Thinned: the base stays the t 2 sample. */
    const HeatingPoint base = h->base;
    for (int i = 4; s.interval == 1; i++) assert_int_equal(heating_sample(&s, &b, i), 0);
    assert_int_equal(heating_sample(&s, &b, 1000.0), 0);
    assert_true(s.interval == 2 && h->base.time == base.time && h->base.sigma_r == base.sigma_r);
    assert_int_equal(s.state, HEATING_WARM);
    /* Back before the base: settling again, sigma_R not judged. */
    assert_int_equal(heating_sample(&s, &b, 1.5), 0);
    assert_false(h->settled);
    assert_int_equal(s.state, HEATING_STEADY);
    heating_free(&s);
    bodies_free(&b);

    /* Thickened while it settles: flagged against the start. */
    build(SCENE_DISK, N_DISK, &b, &info);
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){.interval = 1, .settle = 2}), 0);
    heat_disk(&b, 1.3, 1.0);
    assert_int_equal(heating_sample(&s, &b, 1.0), 0);
    print_message("thickened x1.3 while settling: thickness %+.3f: %s\n", s.galaxy[0].thickness_drift,
                  heating_state_name(s.galaxy[0].state));
    assert_false(s.galaxy[0].settled);
    assert_int_equal(s.state, HEATING_HOT);
    heating_free(&s);
    bodies_free(&b);
}

/* A full history drops every other sample and samples half as often; the start stays. */
static void full_history_is_thinned(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_DISK, 512, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, &(HeatingDesc){.interval = 1}), 0);
    const double z0 = s.galaxy[0].history[0].rms_z;
    for (int i = 1; i <= HEATING_MAX_SAMPLES + 10; i++) assert_int_equal(heating_sample(&s, &b, i), 0);
    const HeatingGalaxy *h = &s.galaxy[0];
    assert_true(h->count <= HEATING_MAX_SAMPLES && h->count > HEATING_MAX_SAMPLES / 2);
    assert_true(s.interval == 2);
    assert_true(h->history[0].time == 0 && h->history[0].rms_z == z0);
    for (int i = 1; i < h->count; i++) assert_true(h->history[i].time > h->history[i - 1].time);
    assert_true(h->history[h->count - 1].time == HEATING_MAX_SAMPLES + 10);
    heating_free(&s);
    bodies_free(&b);
}

/* Every k-th body, k times as heavy, measures the disk as the whole does: within four standard
 * errors of rms z (the z^2 of a sech^2 layer scatter by about their mean) and of sigma_R. */
static void a_sample_measures_the_whole(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_DISK, 4 * N_DISK, &b, &info);
    HeatingSeries whole, part;
    assert_int_equal(heating_start(&whole, &b, 0, NULL), 0);
    assert_int_equal(heating_start(&part, &b, 0, &(HeatingDesc){.max_bodies = N_DISK}), 0);
    assert_int_equal(part.sample.n, N_DISK);
    StructureMeasure m;
    assert_int_equal(structure_measure(&part.sample, &(StructureDesc){.galaxy = 0, .virial_max_n = -1}, &m), 0);
    const HeatingPoint *w = &whole.galaxy[0].history[0], *p = &part.galaxy[0].history[0];
    print_message("all %d bodies: rms z %.4f sigma_R %.4f Q %.3f; every 4th: %.4f %.4f %.3f\n", b.n, w->rms_z,
                  w->sigma_r, w->toomre_q, p->rms_z, p->sigma_r, p->toomre_q);
    assert_true(fabs(p->rms_z / w->rms_z - 1) < 4 * sqrt(1.2 / m.count[BODY_DISK]) / 2);
    assert_true(fabs(p->sigma_r / w->sigma_r - 1) < 4 * sqrt(0.5 / m.ring.count));
    assert_true(fabs(p->toomre_q / w->toomre_q - 1) < 4 * sqrt(1.75 / m.ring.count));
    heating_free(&whole);
    heating_free(&part);
    bodies_free(&b);
}

/* A system without a disk is not watched. */
static void no_disk_no_series(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    build(SCENE_PLUMMER, 1024, &b, &info);
    HeatingSeries s;
    assert_int_equal(heating_start(&s, &b, 0, NULL), 0);
    assert_int_equal(s.galaxies, 0);
    assert_int_equal(s.state, HEATING_NONE);
    assert_false(heating_due(&s, 10));
    assert_int_equal(heating_sample(&s, &b, 10), 0);
    heating_free(&s);
    bodies_free(&b);
}

/* The series of a run (the usage above); 0, or 1 with one line on stderr. */
static int print_series(int n, const char *kind, double t_end, unsigned long long seed, SimBackend backend)
{
    const SceneKind k = strcmp(kind, "collision") == 0 ? SCENE_COLLISION : SCENE_DISK;
    Bodies b, now;
    SceneInfo info;
    char err[256] = "";
    if (scene_build(&(SceneDesc){.kind = k, .n = n, .seed = seed}, &b, &info, err, sizeof err) != 0) {
        fprintf(stderr, "test_heating: %s\n", err);
        return 1;
    }
    Sim *sim = sim_create(&(SimDesc){.backend = backend}, &b, err, sizeof err);
    if (!sim || bodies_alloc(&now, b.n) != 0) {
        fprintf(stderr, "test_heating: %s\n", sim ? "out of memory" : err);
        return 1;
    }
    const SimParams p = {.dt = info.dt, .softening = info.softening, .damping = 1};
    HeatingSeries s;
    const HeatingDesc d = {.interval = 0.25 * info.period, .pericentre_time = info.pericentre_time,
                           .settle = info.period};
    if (heating_start(&s, &b, 0, &d) != 0) return 1;
    printf("%s, %d bodies, seed %llu, %s backend: rotation period %.3f, dt %.4f, pericentre %.2f, settled from %.2f\n", kind,
           b.n, seed, sim_backend_name(backend), info.period, info.dt, info.pericentre_time, d.settle);
    const int steps = (int)(d.interval / info.dt + 0.5);
    for (double t = 0; t < t_end;) {
        sim_advance(sim, &p, steps);
        t += steps * info.dt;
        sim_read(sim, &now);
        heating_sample(&s, &now, t);
        for (int g = 0; g < s.galaxies; g++) {
            const HeatingGalaxy *h = &s.galaxy[g];
            const HeatingPoint *q = &h->history[h->count - 1];
            printf("t %6.2f galaxy %d: rms z %.4f (%+.3f of the start), sigma_R %.4f (%+.3f of the %s), Q %.2f, "
                   "tide %.3f: %s\n",
                   t, h->galaxy, q->rms_z, h->thickness_drift, q->sigma_r, h->sigma_drift,
                   h->settled ? "settled disk" : "start", q->toomre_q, q->tidal, heating_state_name(h->state));
        }
        fflush(stdout);
    }
    heating_free(&s);
    sim_destroy(sim);
    bodies_free(&now);
    bodies_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "--series") == 0)
        return print_series(atoi(argv[2]), argv[3], atof(argv[4]), argc > 5 ? strtoull(argv[5], NULL, 10) : 0,
                            argc > 6 && strcmp(argv[6], "cuda") == 0 ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untouched_disk_is_steady),  cmocka_unit_test(heated_disk_is_flagged),
        cmocka_unit_test(pericentre_turns_drift_tidal),
        cmocka_unit_test(tide_falls_with_distance), cmocka_unit_test(fields_measure_as_live_halos), cmocka_unit_test(tide_turns_drift_tidal), cmocka_unit_test(run_gone_back),
        cmocka_unit_test(settling_is_not_flagged),
        cmocka_unit_test(full_history_is_thinned),   cmocka_unit_test(a_sample_measures_the_whole),
        cmocka_unit_test(no_disk_no_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
