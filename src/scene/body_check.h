/* What every reader of bodies from a file (TIPSY, HDF5, a series of either) accepts: one rule, so
 * that no file reaches the run with a body the simulation cannot hold. A body has a finite
 * position and velocity no larger than 1e18 (beyond it the square of a distance or a speed
 * overflows a float) and a mass above 0; a file has a finite time and a count of bodies within
 * the parameter table's range (util/params.h, PARAM_BODIES). Each check returns 0, or -1 with one
 * line in err naming the file (and the body's index). */
#ifndef STARBURST_BODY_CHECK_H
#define STARBURST_BODY_CHECK_H

#include <stddef.h>

/* What is wrong with a body ("a position that is not finite"), or NULL where nothing is: for a
 * reader that words the rest of its line itself (tipsy.c names the particle's kind). */
const char *body_check_fault(const float pos[3], const float vel[3], float mass);

/* The fault of body index of the file at path, as "PATH: body INDEX has a mass that is not
 * positive"; what, where not NULL, goes after the index ("(PartType1 row 7)"). */
int body_check(const char *path, long long index, const char *what, const float pos[3], const float vel[3],
               float mass, char *err, size_t errlen);

/* A file's time and its count of bodies. */
int body_check_time(const char *path, double time, char *err, size_t errlen);
int body_check_count(const char *path, long long n, char *err, size_t errlen);

#endif
