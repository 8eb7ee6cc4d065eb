/* Snapshots other codes write, and series of them.
 *
 * One snapshot is a TIPSY file (tipsy.h) or an HDF5 file in the SWIFT / GADGET-4 layout: a
 * `Header` group (attributes Time, BoxSize, NumPart_ThisFile, NumPart_Total, MassTable) and a
 * group PartTypeN (N = 0..5) per kind of particle holding Coordinates, Velocities, Masses (or the
 * header's MassTable entry) and ParticleIDs. Units come from the file's `Units` group (SWIFT:
 * "Unit length in cgs (U_L)", ...), else from UnitLength_in_cm / UnitMass_in_g /
 * UnitVelocity_in_cm_per_s attributes of Header or Parameters (GADGET); a file without them is
 * taken to be in model units (G = 1), and one whose unit is not a positive number is refused.
 *
 * Bodies come back sorted by ParticleIDs (SWIFT writes them in the order of its cells); a file
 * holding one ID twice is refused. IDs that
 * Starburst wrote (snapshot_id) carry each body's tag; other files get their tag from the
 * particle type (snapshot_type_tag), and the type of every body is kept beside them.
 *
 * A series is one snapshot, a folder of them, or a glob ("out/snap_*.hdf5"), in order of time.
 * Nothing here holds a series' bodies: series_load reads one snapshot on demand, in chunks, and
 * reports progress, so a viewer can show any moment of it (a timeline) without holding them all. */
#ifndef STARBURST_SNAPSHOT_H
#define STARBURST_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/bodies.h"
#include "util/units.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SNAPSHOT_TYPES 6

/* CGS values of the units Starburst speaks (util/units.h's constants in cgs). */
#define SNAPSHOT_CM_PER_KPC 3.0856775814913673e21
#define SNAPSHOT_G_PER_MSUN 1.98847e33
#define SNAPSHOT_S_PER_MYR 3.15576e13

/* IDs Starburst writes: a mark in bit 52, the body's index + 1 from bit 3, its tag in bits 0-2.
 * Sorted by ID, the bodies are in the order they were written. */
#define SNAPSHOT_ID_MARK ((uint64_t)1 << 52)
#define SNAPSHOT_ID_MAX_INDEX (((uint64_t)1 << 49) - 2)
static inline uint64_t snapshot_id(uint64_t index, uint8_t tag)
{
    return SNAPSHOT_ID_MARK | (index + 1) << 3 | (tag & 7);
}
static inline bool snapshot_id_is_ours(uint64_t id)
{
    return (id >> 52) == 1 && (id & ~(SNAPSHOT_ID_MARK | 7)) != 0;
}

/* A particle type's tag where the IDs carry none: dark matter (1, 2, 3) the halo, stars (4) the
 * disk, gas (0) and black holes (5) BODY_OTHER. */
uint8_t snapshot_type_tag(int type);

/* A file's physical units in CGS; all 0 where the file names none. */
typedef struct SnapshotUnits {
    double length_cm, mass_g, time_s;
} SnapshotUnits;

/* One time unit of the file in model times of to (physical): the model time unit taken as one
 * model length over one model speed, as the file's U_t is U_L / U_V, so that a file read back in
 * the units it was written in keeps its times exactly. */
double snapshot_time_factor(const SnapshotUnits *fu, const Units *to);

/* What a snapshot holds, read from its header without its bodies. */
typedef struct SnapshotInfo {
    double time;                      /* in the file's units (snapshot_hdf5_read: model units, as all below) */
    double box;                       /* BoxSize (the first of three), in the file's units; 0: none */
    long long count[SNAPSHOT_TYPES];  /* bodies of each type */
    long long n;                      /* all of them */
    double softening;                 /* the file's Plummer-equivalent one (SWIFT's parameters,
                                         scene/swift_params.h), file units; 0: unknown */
    double dt;                        /* the step SWIFT's parameters make it take, file units; 0: unknown */
    double time_begin;                /* the run's start (SWIFT's parameters); NaN: unknown */
    double lead_steps;                /* how many steps its velocities run ahead of its
                                         positions: 1 in SWIFT's snapshots (v(t) + a dt), 0.5 in
                                         the one at time_begin; 0 in other files */
    double shift;                     /* half the box where the file's Parameters say it is not
                                         periodic (SWIFT's box starts at 0): taken off every
                                         coordinate read, so the box's centre is the origin */
    SnapshotUnits units;
} SnapshotInfo;

/* Called as reading goes on: done of total bodies read. */
typedef void (*SnapshotProgress)(void *user, long long done, long long total);

/* How to read. Zero fields mean the default. */
typedef struct SnapshotReadDesc {
    const Units *to;           /* model units to convert into; NULL or not physical: see series_units */
    SnapshotProgress progress; /* may be NULL */
    void *user;
    long long chunk;           /* bodies per read (a hyperslab), default 1 << 20 */
    uint8_t *types;            /* where not NULL, n bytes (info.n): each body's particle type */
} SnapshotReadDesc;

/* HDF5 (snapshot_hdf5.c). Each returns 0, or -1 with one line in err naming the file and what is
 * wrong ("snap.hdf5: PartType1 has no Coordinates"). */
bool snapshot_hdf5_is(const char *path);
/* -2 (with err) where the file is a snapshot whose header fails the readers' check of bodies
 * (scene/body_check.h): a time that is not finite, a count out of range. */
int snapshot_hdf5_info(const char *path, SnapshotInfo *info, char *err, size_t errlen);
/* Reads every type's bodies into out (allocated here), converted to desc->to where the file has
 * units and desc->to is physical. The time, box and softening in info are converted the same way. */
int snapshot_hdf5_read(const char *path, const SnapshotReadDesc *desc, Bodies *out, SnapshotInfo *info,
                       char *err, size_t errlen);

/* SWIFT initial conditions (PartType1 only): Header (BoxSize, NumPart_*, Flag_Entropy_ICs,
 * MassTable, Time), Units (where units is physical; U_t = U_L / U_V), Parameters (below),
 * and positions shifted by shift. A body outside [0, box) after the shift is refused (SWIFT would
 * wrap it silently); box 0 checks nothing. The file is written beside path and renamed into place
 * when whole. */
typedef struct SnapshotWriteDesc {
    double time, box;
    double shift;     /* added to every coordinate (half the box: SWIFT's box starts at 0) */
    const Units *units;
    /* SWIFT's parameters for the file (params.yml's text: `Section:` lines and indented
     * `key: value` lines), written into the Parameters group as SWIFT writes them in its
     * snapshots, an attribute "Section:key" a value; NULL: only InitialConditions:periodic 0. */
    const char *parameters;
} SnapshotWriteDesc;

/* A writer that takes the bodies in chunks, so that no more than a chunk is ever held: create
 * with the total, append chunks in order, close. IDs are snapshot_id(first + i, tag). */
typedef struct SnapshotWriter SnapshotWriter;
SnapshotWriter *snapshot_writer_create(const char *path, long long total, const SnapshotWriteDesc *desc, char *err,
                                       size_t errlen);
int snapshot_writer_append(SnapshotWriter *w, const Bodies *chunk, char *err, size_t errlen);
/* Checks that all total bodies came, and closes. 0 or -1 with err; w is freed either way. */
int snapshot_writer_close(SnapshotWriter *w, char *err, size_t errlen);
/* Stops writing: removes the partial file and frees w. */
void snapshot_writer_abort(SnapshotWriter *w);
/* The three above, for bodies held at once. */
int snapshot_write(const char *path, const Bodies *b, const SnapshotWriteDesc *desc, char *err, size_t errlen);

/* Series (snapshot.c). */
typedef struct SnapshotSeries SnapshotSeries;

/* path: one snapshot (TIPSY or HDF5), a folder (every snapshot in it), or a glob. The snapshots
 * are sorted by time (by name where times tie). NULL with err where nothing opens. */
SnapshotSeries *series_open(const char *path, char *err, size_t errlen);
void series_close(SnapshotSeries *s);
/* Model units to convert into (the scene's); without them (or NULL), a series with physical units
 * keeps its first file's length and speed as model units, masses made to agree with G = 1. */
void series_set_units(SnapshotSeries *s, const Units *to);
/* The physical scale of the model units bodies come back in (all 0: the files have none). */
Units series_units(const SnapshotSeries *s);
int series_count(const SnapshotSeries *s);
const char *series_path(const SnapshotSeries *s, int i);
double series_time(const SnapshotSeries *s, int i); /* model units */
/* Steps from the first snapshot to snapshot i at series_dt (i itself where the files give no dt):
 * with count, time and load, what a timeline's frame source asks of a series. */
long long series_step(const SnapshotSeries *s, int i);
long long series_bodies(const SnapshotSeries *s, int i);
/* The softening and the step the first file in time gives (model units), or 0. */
double series_softening(const SnapshotSeries *s);
double series_dt(const SnapshotSeries *s);
/* The step and softening of a series whose files do not give them (a TIPSY save's .ini beside
 * them, a params.yml beside SWIFT's snapshots), in the files' own units (a TIPSY file's: model
 * units); each taken only where the files give none, and steps are then counted at dt. */
void series_set_settings(SnapshotSeries *s, double dt, double softening);
/* How far ahead of its positions snapshot i's velocities run, in model time: its
 * SnapshotInfo.lead_steps of series_dt. The run takes a(x) times this off them to start in step.
 * 0 for files in step. */
double series_lead(const SnapshotSeries *s, int i);
/* Reads snapshot i into out (allocated here; free with bodies_free). types, where not NULL, gets
 * n bytes of particle types (malloc'd; the caller frees). 0, or -1 with err. */
int series_load(SnapshotSeries *s, int i, Bodies *out, uint8_t **types, SnapshotProgress progress, void *user,
                char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
