/* The structure of each galaxy of a state as starburst-measure reports it: structure_measure of
 * each galaxy that has bodies, with its field halo where the run has halos as fields, and the
 * line the tool prints for it. The tool and libstarburst's starburst_measure both measure through
 * here, so that a figure read from a script is the one the tool prints for the same state. */
#ifndef STARBURST_STRUCTURE_REPORT_H
#define STARBURST_STRUCTURE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/structure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The annulus and radius where none is given: the ring of structure.h's default, and 1.5 times
 * the default galaxy's halo cut, 15 disk scale lengths (src/scene/galaxy.c). */
#define STRUCTURE_REPORT_RING_IN 2.0
#define STRUCTURE_REPORT_RING_OUT 3.0
#define STRUCTURE_REPORT_BEYOND 22.5

/* One galaxy, measured. */
typedef struct StructureReport {
    int galaxy;
    int bodies;         /* the galaxy's bodies, those of no component among them */
    int other;          /* bodies of the galaxy of no component (tag 3) */
    bool measured;      /* false where memory ran out: m is then zero */
    StructureDesc desc; /* as measured: ring, beyond, softening, field */
    StructureMeasure m;
} StructureReport;

/* Why 2K/|W| was not measured, or NULL where it was. */
const char *structure_report_no_virial(const StructureReport *r);

/* The galaxies of b that have bodies, in order, into out (2 at most): base's ring and beyond
 * (0: the defaults above), softening for W, fields the run's halos as fields (NULL or count 0:
 * none; halo g is galaxy g's). Returns how many. */
int structure_report(const Bodies *b, const StructureDesc *base, const SimHalos *fields, double softening,
                     StructureReport out[2]);

/* r's line as the tool prints it, for source at time, the softening's origin eps_from
 * ("the scene's", "run.tipsy.ini"). */
void structure_report_line(const StructureReport *r, const char *source, double time, const char *eps_from, char *line,
                           size_t len);

#ifdef __cplusplus
}
#endif

#endif
