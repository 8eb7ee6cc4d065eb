/* starburst-orbit: the separation of the two galaxies' centres against time in an encounter, for
 * setting field halos against live ones (docs/GALAXIES.md). A galaxy's centre is found by
 * shrinking spheres on its stars (disk and bulge), which tidal tails do not pull about, the same
 * way whatever the halos are made of. Prints one line a sample (time in model units and Myr,
 * separation in model lengths and kpc), then the pericentres (the separation's minima) and the
 * merger time: from when the centres stay within two of galaxy A's disk scale lengths.
 *
 * A preset's encounter (--presets FILE --preset NAME: its orbit and its galaxies, the a_ and b_
 * keys included) is built as the program builds it; the options after it change it.
 *
 * usage: starburst-orbit [--presets FILE --preset NAME] [--halo field|live] [-n N] [--seed S]
 *        [--backend cpu|cuda] [--force M] [--time T] [--every K] [--dt DT] [--ln-lambda L]
 *        [--mass-ratio Q] [--pericentre P] [--eccentricity E] [--separation D]
 *        [--inclination-a DEG] [--inclination-b DEG] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/presets.h"
#include "scene/scene.h"
#include "sim/sim.h"

/* Shrinking spheres: from the stars' centre of mass, the sphere's radius times 0.85 a pass about
 * the centre of mass of the stars inside, until fewer than `least` remain. */
static void galaxy_centre(const Bodies *b, int g, int least, double c[3])
{
    double m = 0, s[3] = {0, 0, 0};
    for (int i = 0; i < b->n; i++) {
        const int t = b->tag[i], k = BODY_TAG_COMPONENT(t);
        if (BODY_TAG_GALAXY(t) != g || (k != BODY_DISK && k != BODY_BULGE)) continue;
        for (int d = 0; d < 3; d++) s[d] += b->pos[4 * i + 3] * b->pos[4 * i + d];
        m += b->pos[4 * i + 3];
    }
    for (int d = 0; d < 3; d++) c[d] = s[d] / m;
    for (double r = 30; r > 0.05; r *= 0.85) {
        int count = 0;
        m = 0, s[0] = s[1] = s[2] = 0;
        for (int i = 0; i < b->n; i++) {
            const int t = b->tag[i], k = BODY_TAG_COMPONENT(t);
            if (BODY_TAG_GALAXY(t) != g || (k != BODY_DISK && k != BODY_BULGE)) continue;
            const float *p = b->pos + 4 * i;
            const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
            if (dx * dx + dy * dy + dz * dz > r * r) continue;
            for (int d = 0; d < 3; d++) s[d] += p[3] * p[d];
            m += p[3];
            count++;
        }
        if (count < least || !(m > 0)) break;
        for (int d = 0; d < 3; d++) c[d] = s[d] / m;
    }
}

static int usage(const char *why)
{
    fprintf(stderr, "starburst-orbit: %s\nusage: starburst-orbit [--presets FILE --preset NAME] [--halo field|live] "
                    "[-n N] [--seed S] [--backend cpu|cuda] [--force M] [--time T] [--every K] [--dt DT] "
                    "[--ln-lambda L] [--mass-ratio Q] "
                    "[--pericentre P] [--eccentricity E] [--separation D] [--inclination-a DEG] "
                    "[--inclination-b DEG]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each sample kept as it is printed, should the run be stopped */
    SceneDesc d = {.kind = SCENE_COLLISION, .n = 16384, .seed = 1, .halo = SCENE_HALO_FIELD};
    SimBackend backend = SIM_BACKEND_CPU;
    SimForce force = SIM_FORCE_AUTO;
    double until = 300, ln_lambda = -1, dt = 0;
    int every = 20;
    /* A preset first, whatever the options' order: the others change what it builds. */
    const char *presets_path = NULL, *preset_name = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--presets") == 0) presets_path = argv[i + 1];
        else if (strcmp(argv[i], "--preset") == 0) preset_name = argv[i + 1];
    }
    if (!presets_path != !preset_name) return usage("--presets FILE and --preset NAME go together");
    if (presets_path) {
        PresetList list;
        char why[1024];
        if (presets_load(presets_path, &list, why, sizeof why) != 0) {
            fprintf(stderr, "starburst-orbit: %s\n", why);
            return 1;
        }
        const Preset *p = presets_find(&list, preset_name);
        if (!p || p->source != PRESET_SOURCE_SCENE || p->scene.kind != SCENE_COLLISION) {
            fprintf(stderr, "starburst-orbit: %s: %s\n", preset_name,
                    p ? "not a built collision" : "no such preset in the file");
            presets_free(&list);
            return 1;
        }
        const SceneHalo halo = d.halo;
        const int n = d.n;
        d = p->scene;
        d.halo = halo, d.n = n, d.seed = d.seed ? d.seed : 1;
        if (p->set & PRESET_DT) dt = p->dt;
        presets_free(&list);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage("every option takes a value");
        char *end;
        const double x = strtod(v, &end);
        const bool number = end != v && !*end && isfinite(x);
        i++;
        if (strcmp(a, "--presets") == 0 || strcmp(a, "--preset") == 0) continue;
        if (strcmp(a, "--halo") == 0) {
            if (scene_halo_from_name(v) < 0) return usage("--halo: field or live");
            d.halo = (SceneHalo)scene_halo_from_name(v);
        } else if (strcmp(a, "--backend") == 0) {
            if (strcmp(v, "cpu") && strcmp(v, "cuda")) return usage("--backend: cpu or cuda");
            backend = strcmp(v, "cpu") ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
        } else if (strcmp(a, "--force") == 0) {
            if (sim_force_from_name(v) < 0) return usage("--force: auto, direct, tree or fmm");
            force = (SimForce)sim_force_from_name(v);
        } else if (!number) {
            fprintf(stderr, "starburst-orbit: %s %s: not a number\n", a, v);
            return 2;
        } else if (strcmp(a, "-n") == 0 && x >= 6 && x <= SCENE_MAX_BODIES) d.n = (int)x;
        else if (strcmp(a, "--seed") == 0 && x >= 0) d.seed = (uint64_t)x;
        else if (strcmp(a, "--time") == 0 && x > 0) until = x;
        else if (strcmp(a, "--every") == 0 && x >= 1) every = (int)x;
        else if (strcmp(a, "--dt") == 0 && x > 0) dt = x;
        else if (strcmp(a, "--ln-lambda") == 0 && x >= 0) ln_lambda = x;
        else if (strcmp(a, "--mass-ratio") == 0) d.mass_ratio = (float)x;
        else if (strcmp(a, "--pericentre") == 0) d.pericentre = (float)x;
        else if (strcmp(a, "--eccentricity") == 0) d.eccentricity = (float)x;
        else if (strcmp(a, "--separation") == 0) d.separation = (float)x;
        else if (strcmp(a, "--inclination-a") == 0) d.inclination_a = (float)x;
        else if (strcmp(a, "--inclination-b") == 0) {
            d.inclination_b = (float)x;
            d.set |= SCENE_SET_INCLINATION_B;
        } else {
            fprintf(stderr, "starburst-orbit: %s %s: unknown option or out of range\n", a, v);
            return 2;
        }
    }
    Bodies b;
    SceneInfo info;
    char err[512];
    if (scene_build(&d, &b, &info, err, sizeof err) != 0) {
        fprintf(stderr, "starburst-orbit: %s\n", err);
        return 1;
    }
    if (ln_lambda >= 0) info.halos.ln_lambda = (float)ln_lambda;
    Sim *s = sim_create(&(SimDesc){.backend = backend, .force = force, .halos = &info.halos}, &b, err, sizeof err);
    if (!s) {
        fprintf(stderr, "starburst-orbit: %s\n", err);
        return 1;
    }
    const SimParams p = {.dt = dt > 0 ? (float)dt : info.dt, .softening = info.softening, .damping = 1};
    const Units u = info.units;
    const double myr = u.myr > 0 ? u.myr : 0, kpc = u.kpc > 0 ? u.kpc : 0;
    printf("# halo %s, %d bodies, seed %llu, %s, %s, dt %g, ln_lambda %g\n", scene_halo_name(d.halo), b.n,
           (unsigned long long)d.seed, sim_backend_name(sim_backend(s)), sim_force_name(sim_force(s)), p.dt,
           info.halos.count ? info.halos.ln_lambda : 0.0);
    printf("# t_model t_Myr separation_model separation_kpc\n");
    const int least = 64;
    double prev2 = -1, prev1 = -1, t_prev = 0, merged_at = -1;
    double peri_t[16], peri_r[16];
    int peris = 0;
    for (long long step = 0;; step += every) {
        const double t = step * (double)p.dt;
        sim_read(s, &b);
        double ca[3], cb[3];
        galaxy_centre(&b, 0, least, ca);
        galaxy_centre(&b, 1, least, cb);
        const double r = sqrt((ca[0] - cb[0]) * (ca[0] - cb[0]) + (ca[1] - cb[1]) * (ca[1] - cb[1]) +
                              (ca[2] - cb[2]) * (ca[2] - cb[2]));
        printf("%.4f %.2f %.4f %.3f\n", t, t * myr, r, r * kpc);
        if (prev2 >= 0 && prev1 < prev2 && prev1 <= r && peris < 16) {
            peri_t[peris] = t_prev;
            peri_r[peris++] = prev1;
        }
        if (r < 2.0) {
            if (merged_at < 0) merged_at = t;
        } else {
            merged_at = -1;
        }
        prev2 = prev1, prev1 = r, t_prev = t;
        if (t >= until) break;
        sim_advance(s, &p, every);
        if (sim_error(s)) {
            fprintf(stderr, "starburst-orbit: %s\n", sim_error(s));
            return 1;
        }
    }
    for (int k = 0; k < peris; k++)
        printf("# pericentre %d: t %.3f (%.1f Myr), separation %.3f (%.2f kpc)\n", k + 1, peri_t[k], peri_t[k] * myr,
               peri_r[k], peri_r[k] * kpc);
    if (merged_at >= 0) printf("# merged: t %.3f (%.1f Myr)\n", merged_at, merged_at * myr);
    else printf("# merged: not by t %.3f\n", until);
    sim_destroy(s);
    bodies_free(&b);
    return 0;
}
