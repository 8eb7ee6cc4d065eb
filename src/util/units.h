/* Physical units for a scene's model units (G = 1). A galaxy scene is scaled to the Milky Way: one
 * model length is the disk scale length, one model speed is set so that the circular speed at the
 * Sun's radius is the measured one; mass and time follow from G. A scene without a physical scale
 * (a Plummer sphere in Henon units) has all fields 0 and is shown in model units only. */
#ifndef STARBURST_UNITS_H
#define STARBURST_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* G in kpc (km/s)^2 / Msun, and one kpc / (km/s) in Myr. */
#define UNITS_G_KPC_KMS2_MSUN 4.30091727e-6
#define UNITS_MYR_PER_KPC_KMS 977.792221
/* One Msun (km/s)^2 in erg: 1.98847e33 g times 1e10 cm^2/s^2. */
#define UNITS_ERG_PER_MSUN_KMS2 1.98847e43

/* The Milky Way the default galaxy is scaled to (Bland-Hawthorn & Gerhard 2016, ARA&A 54, 529):
 * disk scale length 2.6 kpc, the Sun at 8.2 kpc, circular speed there 238 km/s. */
#define UNITS_MW_DISK_SCALE_KPC 2.6
#define UNITS_MW_R0_KPC 8.2
#define UNITS_MW_VC0_KMS 238.0

typedef struct Units {
    double kpc;  /* one model length, in kpc */
    double kms;  /* one model speed, in km/s */
    double msun; /* one model mass, in solar masses: kms^2 kpc / G */
    double myr;  /* one model time, in Myr: kpc / kms */
} Units;

/* What a value measures, for reading a suffixed value ("0.2 Myr", "200pc"). */
typedef enum UnitDim { UNIT_NONE = 0, UNIT_TIME, UNIT_LENGTH, UNIT_MASS, UNIT_SPEED } UnitDim;

/* Units with a model length of kpc and a model speed of kms; the rest follows from G. */
Units units_from(double kpc, double kms);
/* Whether u gives physical units (a scene in model units only has kpc 0). */
bool units_physical(const Units *u);

/* Model values as a person reads them, into buf (returned). Where u is physical: a time in Myr, in
 * Gyr from 1000 Myr ("120 Myr", "1.23 Gyr"); a length in kpc ("4.2 kpc"); a softening in pc
 * ("200 pc"); a mass in solar masses ("3.2e10 Msun"); a speed in km/s ("229 km/s"). Otherwise the
 * model value alone: "10.000" for a time, three figures for the rest. */
const char *units_format_time(const Units *u, double t, char *buf, size_t len);
const char *units_format_length(const Units *u, double l, char *buf, size_t len);
const char *units_format_softening(const Units *u, double l, char *buf, size_t len);
const char *units_format_mass(const Units *u, double m, char *buf, size_t len);
const char *units_format_speed(const Units *u, double v, char *buf, size_t len);

/* Reads text as a value measuring dim: a plain number is in model units; a number followed by a
 * unit (with or without a space: "0.2Myr", "1 Gyr", "200pc", "1.5kpc", "80 km/s", "1e10 Msun") is
 * converted with u. 0 with *model (and *had_unit, where not NULL), or -1 with what is wrong in err,
 * worded to follow the quoted text: "does not end in a unit of time: Myr, Gyr, kyr, or is a plain
 * number in model units". A value out of range is the caller's to judge. */
int units_parse(const char *text, UnitDim dim, const Units *u, double *model, bool *had_unit, char *err,
                size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
