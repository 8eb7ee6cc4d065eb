/* Physical units for a scene's model units (G = 1). A galaxy scene is scaled to the Milky Way: one
 * model length is the disk scale length, one model speed is set so that the circular speed at the
 * Sun's radius is the measured one; mass and time follow from G. A scene without a physical scale
 * (a Plummer sphere in Henon units) has all fields 0 and is shown in model units only. */
#ifndef STARBURST_UNITS_H
#define STARBURST_UNITS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* G in kpc (km/s)^2 / Msun, and one kpc / (km/s) in Myr. */
#define UNITS_G_KPC_KMS2_MSUN 4.30091727e-6
#define UNITS_MYR_PER_KPC_KMS 977.792221

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

/* Units with a model length of kpc and a model speed of kms; the rest follows from G. */
Units units_from(double kpc, double kms);
/* Whether u gives physical units (a scene in model units only has kpc 0). */
bool units_physical(const Units *u);

#ifdef __cplusplus
}
#endif

#endif
