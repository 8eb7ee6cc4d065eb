/* The orbit estimate behind the HUD's countdown: on two galaxies whose stars sit on a known
 * Kepler orbit it gives the time to pericentre and apocentre the orbit has, tells approach from
 * recession, and calls a pair merged only after it stayed close for the time asked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "app/pericentre.h"
#include "scene/scene.h"

/* Two galaxies of k stars each, all of a galaxy's mass m at its centre (a point mass as far as
 * the orbit is concerned), galaxy 1 at x relative to galaxy 0 with velocity v. */
static void two_points(Bodies *b, int k, double m, const double x[3], const double v[3])
{
    assert_int_equal(bodies_alloc(b, 2 * k), 0);
    for (int i = 0; i < 2 * k; i++) {
        const int g = i >= k;
        float *p = &b->pos[4 * i], *u = &b->vel[4 * i];
        for (int c = 0; c < 3; c++) {
            p[c] = g ? (float)x[c] : 0.0f;
            u[c] = g ? (float)v[c] : 0.0f;
        }
        p[3] = (float)(m / k);
        u[3] = 0;
        b->tag[i] = BODY_TAG(g, i % 2 ? BODY_DISK : BODY_BULGE);
    }
}

/* An ellipse of a = 10, e = 0.5 about M = 2: starting at apocentre (r = 15) the pericentre is half
 * a period away; a quarter of the way round in mean anomaly, the times follow Kepler's equation. */
static void an_ellipse_gives_kepler_times(void **state)
{
    (void)state;
    const double M = 2, a = 10, e = 0.5, n = sqrt(M / (a * a * a));
    /* At eccentric anomaly E: r = a (1 - e cos E), position and velocity in the orbit's plane. */
    const double Es[] = {2.0, M_PI - 1e-3, 0.7};
    for (int s = 0; s < 3; s++) {
        const double E = Es[s], b_ = a * sqrt(1 - e * e), r = a * (1 - e * cos(E)), Edot = n / (1 - e * cos(E));
        for (int dir = -1; dir <= 1; dir += 2) {
            const double x[3] = {a * (cos(E) - e), b_ * sin(E), 0};
            const double v[3] = {-dir * a * sin(E) * Edot, dir * b_ * cos(E) * Edot, 0};
            Bodies b;
            two_points(&b, 8, M / 2, x, v);
            OrbitEstimate est;
            assert_int_equal(orbit_estimate(&b, &est), 0);
            assert_true(fabs(est.separation - r) < 1e-5 * r);
            assert_true(fabs(est.mass - M) < 1e-6);
            const double Mean = E - e * sin(E); /* time since pericentre times n, on the way out */
            if (dir < 0) { /* moving back: towards pericentre */
                assert_int_equal(est.phase, ORBIT_APPROACHING);
                if (fabs(est.time_to_pericentre - Mean / n) > 1e-3 * (Mean / n))
                    fail_msg("E %.3f: pericentre in %.6g, want %.6g", E, est.time_to_pericentre, Mean / n);
            } else {
                assert_int_equal(est.phase, ORBIT_RECEDING);
                if (fabs(est.time_to_apocentre - (M_PI - Mean) / n) > 1e-3 * (M_PI / n))
                    fail_msg("E %.3f: apocentre in %.6g, want %.6g", E, est.time_to_apocentre, (M_PI - Mean) / n);
            }
            bodies_free(&b);
        }
    }
}

/* A parabola about M from r0 to pericentre q takes Barker's time; unbound and receding has no
 * apocentre. */
static void a_parabola_and_an_escape(void **state)
{
    (void)state;
    const double M = 2, q = 3, r0 = 40;
    /* True anomaly nu at r0: r = 2q / (1 + cos nu); D = tan(nu / 2); t = sqrt(2 q^3 / M) (D + D^3 / 3). */
    const double nu = acos(2 * q / r0 - 1), D = tan(nu / 2), want = sqrt(2 * q * q * q / M) * (D + D * D * D / 3);
    const double speed = sqrt(2 * M / r0), h = sqrt(2 * M * q);
    const double vt = h / r0, vr = -sqrt(speed * speed - vt * vt);
    const double x[3] = {r0, 0, 0}, v[3] = {vr, vt, 0};
    Bodies b;
    two_points(&b, 4, M / 2, x, v);
    OrbitEstimate est;
    assert_int_equal(orbit_estimate(&b, &est), 0);
    assert_int_equal(est.phase, ORBIT_APPROACHING);
    if (fabs(est.time_to_pericentre - want) > 2e-3 * want)
        fail_msg("parabola: pericentre in %.6g, Barker says %.6g", est.time_to_pericentre, want);
    bodies_free(&b);
    const double out[3] = {-vr * 2, vt * 2, 0};
    two_points(&b, 4, M / 2, x, out);
    assert_int_equal(orbit_estimate(&b, &est), 0);
    assert_int_equal(est.phase, ORBIT_RECEDING);
    assert_true(est.time_to_apocentre < 0);
    bodies_free(&b);
}

/* Close once is a passage; close for the merge time is a merger; one galaxy is no orbit. */
static void merged_takes_time_and_two_galaxies(void **state)
{
    (void)state;
    const double x[3] = {1, 0, 0}, v[3] = {0, 0.1, 0};
    Bodies b;
    two_points(&b, 4, 1, x, v);
    OrbitWatch w;
    orbit_watch_reset(&w);
    orbit_watch_take(&w, &b, 10, 2, 5);
    assert_int_not_equal(w.est.phase, ORBIT_MERGED);
    orbit_watch_take(&w, &b, 14, 2, 5);
    assert_int_not_equal(w.est.phase, ORBIT_MERGED);
    orbit_watch_take(&w, &b, 15, 2, 5);
    assert_int_equal(w.est.phase, ORBIT_MERGED);
    /* Back in time (a reset): the watch starts again. */
    orbit_watch_take(&w, &b, 1, 2, 5);
    assert_int_not_equal(w.est.phase, ORBIT_MERGED);
    for (int i = 0; i < b.n; i++) b.tag[i] = BODY_TAG(0, BODY_DISK);
    OrbitEstimate est;
    assert_int_equal(orbit_estimate(&b, &est), -1);
    bodies_free(&b);
}

/* The default collision: approaching at the start, its pericentre about when the scene's orbit
 * puts it (the galaxies' extended mass makes the two differ somewhat). */
static void the_default_collision_approaches(void **state)
{
    (void)state;
    Bodies b;
    SceneInfo info;
    char err[256];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 4096}, &b, &info, err, sizeof err), 0);
    OrbitEstimate est;
    assert_int_equal(orbit_estimate(&b, &est), 0);
    print_message("separation %.2f, pericentre in %.2f (scene: %.2f)\n", est.separation, est.time_to_pericentre,
                  info.pericentre_time);
    assert_int_equal(est.phase, ORBIT_APPROACHING);
    assert_true(est.time_to_pericentre > 0.5 * info.pericentre_time && est.time_to_pericentre < 2 * info.pericentre_time);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_ellipse_gives_kepler_times),
        cmocka_unit_test(a_parabola_and_an_escape),
        cmocka_unit_test(merged_takes_time_and_two_galaxies),
        cmocka_unit_test(the_default_collision_approaches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
