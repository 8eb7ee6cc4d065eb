/* starburst-measure: the structure of the galaxies in saved states (TIPSY files) or in a freshly
 * built scene, one line per galaxy (src/sim/structure.h): half-mass radii of disk, bulge and halo,
 * the disk's rms thickness, sigma_R, kappa and Toomre's Q in an annulus, the Fourier amplitudes
 * A_1..A_6 there, the mass beyond a radius and 2K/|W|.
 *
 *   starburst-measure [--ring R0 R1] [--beyond R] [--softening EPS] FILE.tipsy ...
 *   starburst-measure [options] --scene disk|collision [--n N] [--seed S]
 *
 * A built scene also gets its physical units and the mass of all its bodies in solar masses.
 *
 * The softening for W is the file's (its bodies' eps), else the scene's, else --softening. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "scene/tipsy.h"
#include "sim/structure.h"

/* The default radius for the halo's escaped mass: 1.5 times the default galaxy's halo cut, 15
 * disk scale lengths (src/scene/galaxy.c). */
#define MEASURE_BEYOND 22.5

static void print_galaxy(const char *source, double time, const Bodies *b, int galaxy, const StructureDesc *base)
{
    StructureDesc d = *base;
    d.galaxy = galaxy;
    StructureMeasure m;
    if (structure_measure(b, &d, &m) != 0) return; /* no body of that galaxy */
    const StructureRing *r = &m.ring;
    const double ring0 = d.ring[1] > d.ring[0] ? d.ring[0] : 2, ring1 = d.ring[1] > d.ring[0] ? d.ring[1] : 3;
    printf("%s galaxy %d t %.4g: bodies %d/%d/%d, R_half disk %.4f bulge %.4f halo %.4f, rms_z %.4f, "
           "R %g-%g: n %d sigma_R %.4f kappa %.4f Q %.3f A_1..6 %.4f %.4f %.4f %.4f %.4f %.4f, "
           "beyond %g: disk %.4f halo %.4f, 2K/|W| ",
           source, galaxy, time, m.count[BODY_DISK], m.count[BODY_BULGE], m.count[BODY_HALO],
           m.half_mass_radius[BODY_DISK], m.half_mass_radius[BODY_BULGE], m.half_mass_radius[BODY_HALO], m.disk_rms_z,
           ring0, ring1, r->count, r->sigma_r, r->kappa, r->toomre_q, r->fourier[1], r->fourier[2], r->fourier[3],
           r->fourier[4], r->fourier[5], r->fourier[6], d.beyond, m.beyond_fraction[BODY_DISK], m.beyond_fraction[BODY_HALO]);
    if (m.potential < 0) printf("%.4f\n", m.virial);
    else printf("- (over %d bodies)\n", STRUCTURE_VIRIAL_MAX_N);
}

static void print_bodies(const char *source, double time, const Bodies *b, const StructureDesc *d)
{
    int has[2] = {0, 0};
    for (int i = 0; i < b->n; i++) has[BODY_TAG_GALAXY(b->tag[i])] = 1;
    for (int g = 0; g < 2; g++)
        if (has[g]) print_galaxy(source, time, b, g, d);
}

static int usage(void)
{
    fprintf(stderr, "usage: starburst-measure [--ring R0 R1] [--beyond R] [--softening EPS] FILE.tipsy ...\n"
                    "       starburst-measure [options] --scene disk|collision [--n N] [--seed S]\n");
    return 2;
}

int main(int argc, char **argv)
{
    StructureDesc d = {0};
    SceneDesc scene = {0};
    const char *scene_kind = NULL;
    double softening = 0;
    int files = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--ring") == 0 && i + 2 < argc) {
            d.ring[0] = atof(argv[++i]);
            d.ring[1] = atof(argv[++i]);
        } else if (strcmp(a, "--beyond") == 0 && i + 1 < argc) {
            d.beyond = atof(argv[++i]);
        } else if (strcmp(a, "--softening") == 0 && i + 1 < argc) {
            softening = atof(argv[++i]);
        } else if (strcmp(a, "--scene") == 0 && i + 1 < argc) {
            scene_kind = argv[++i];
        } else if (strcmp(a, "--n") == 0 && i + 1 < argc) {
            scene.n = atoi(argv[++i]);
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            scene.seed = strtoull(argv[++i], NULL, 10);
        } else if (a[0] == '-') {
            return usage();
        } else {
            files++;
        }
    }
    if (!scene_kind && files == 0) return usage();
    if (!(d.beyond > 0)) d.beyond = MEASURE_BEYOND;
    char err[512] = "";
    if (scene_kind) {
        int kind = scene_from_name(scene_kind);
        if (kind != SCENE_DISK && kind != SCENE_COLLISION) {
            fprintf(stderr, "starburst-measure: --scene %s: disk or collision\n", scene_kind);
            return 2;
        }
        scene.kind = (SceneKind)kind;
        Bodies b;
        SceneInfo info;
        if (scene_build(&scene, &b, &info, err, sizeof err) != 0) {
            fprintf(stderr, "starburst-measure: %s\n", err);
            return 1;
        }
        d.softening = softening > 0 ? softening : info.softening;
        print_bodies(scene_kind, 0, &b, &d);
        double mass = 0;
        for (int k = 0; k < b.n; k++) mass += b.pos[4 * k + 3];
        if (units_physical(&info.units))
            printf("%s units: length %.4g kpc, speed %.4g km/s, mass %.4g Msun, time %.4g Myr (1 Gyr = %.2f); "
                   "mass of all bodies %.3g Msun\n",
                   scene_kind, info.units.kpc, info.units.kms, info.units.msun, info.units.myr, 1000.0 / info.units.myr,
                   mass * info.units.msun);
        bodies_free(&b);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--ring") == 0) i += 2;
        else if (a[0] == '-') i += 1;
        else {
            Bodies b;
            TipsyMeta meta;
            if (tipsy_read_meta(a, &b, &meta, err, sizeof err) != 0) {
                fprintf(stderr, "starburst-measure: %s\n", err);
                rc = 1;
                continue;
            }
            d.softening = meta.softening > 0 ? meta.softening : softening;
            print_bodies(a, meta.time, &b, &d);
            bodies_free(&b);
        }
    }
    return rc;
}
