#include "util/units.h"

Units units_from(double kpc, double kms)
{
    Units u = {kpc, kms, 0.0, 0.0};
    if (kpc > 0 && kms > 0) {
        u.msun = kms * kms * kpc / UNITS_G_KPC_KMS2_MSUN;
        u.myr = UNITS_MYR_PER_KPC_KMS * kpc / kms;
    }
    return u;
}

bool units_physical(const Units *u)
{
    return u && u->kpc > 0 && u->kms > 0;
}
