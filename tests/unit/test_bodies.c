/* Bodies: centres of mass of the whole system and of each galaxy, mass radii, recentring. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_skip.h"

#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/bodies.h"

/* The renderer reads the tags the simulation's bodies carry. */
_Static_assert(RENDER_TAG_IS_HALO(BODY_TAG(0, BODY_HALO)) && RENDER_TAG_IS_HALO(BODY_TAG(1, BODY_HALO)) &&
                   !RENDER_TAG_IS_HALO(BODY_TAG(1, BODY_DISK)) && !RENDER_TAG_IS_HALO(BODY_TAG(0, BODY_BULGE)) &&
                   !RENDER_TAG_IS_HALO(BODY_TAG(1, BODY_OTHER)),
               "the renderer's halo is the bodies' BODY_HALO");

/* Three bodies worked by hand: galaxy 0 holds masses 1 and 3, galaxy 1 mass 2. */
static void group_centres_by_hand(void **state)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, 3), 0);
    const float pos[12] = {0, 0, 0, 1, 4, 0, 0, 3, 0, 6, 0, 2};
    for (int i = 0; i < 12; i++) b.pos[i] = pos[i];
    b.tag[0] = BODY_TAG(0, BODY_DISK);
    b.tag[1] = BODY_TAG(0, BODY_HALO);
    b.tag[2] = BODY_TAG(1, BODY_BULGE);
    double c[3];
    assert_float_equal(bodies_group_centre(&b, 0, c), 4, 1e-12);
    assert_float_equal(c[0], 3, 1e-12); /* (0*1 + 4*3) / 4 */
    assert_float_equal(c[1], 0, 1e-12);
    assert_float_equal(bodies_group_centre(&b, 1, c), 2, 1e-12);
    assert_float_equal(c[1], 6, 1e-12);
    assert_float_equal(bodies_group_centre(&b, -1, c), 6, 1e-12);
    assert_float_equal(c[0], 2, 1e-12);
    assert_float_equal(c[1], 2, 1e-12);
    /* An empty group leaves dest alone and says so. */
    b.tag[2] = BODY_TAG(0, BODY_BULGE);
    c[0] = -7;
    assert_float_equal(bodies_group_centre(&b, 1, c), 0, 0);
    assert_float_equal(c[0], -7, 0);
    bodies_free(&b);
}

/* In the collision scene the two galaxies start `separation` apart, on either side of the
 * system's centre of mass, which recentring put at the origin. */
static void collision_galaxies_start_apart(void **state)
{
    Bodies b;
    SceneInfo info;
    char err[256];
    assert_int_equal(scene_build(&(SceneDesc){.kind = SCENE_COLLISION, .n = 4096, .separation = 16}, &b, &info, err,
                                 sizeof err),
                     0);
    double a[3], c[3], all[3];
    double ma = bodies_group_centre(&b, 0, a), mb = bodies_group_centre(&b, 1, c);
    bodies_group_centre(&b, -1, all);
    double d = sqrt((a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]) + (a[2] - c[2]) * (a[2] - c[2]));
    print_message("galaxies %.3f apart; centre of all at %.2g %.2g %.2g\n", d, all[0], all[1], all[2]);
    assert_true(fabs(d - 16) < 0.5);
    for (int k = 0; k < 3; k++) {
        assert_true(fabs(all[k]) < 1e-5);
        assert_float_equal((ma * a[k] + mb * c[k]) / (ma + mb), all[k], 1e-5);
    }
    bodies_free(&b);
}

/* Recentring puts the centre of mass at rest at the origin; a mass radius grows with the
 * fraction of mass it holds. */
static void recentre_and_mass_radii(void **state)
{
    Bodies b;
    assert_int_equal(bodies_alloc(&b, 4), 0);
    const float pos[16] = {1, 1, 1, 1, 3, 1, 1, 1, 1, 3, 1, 1, 1, 1, 3, 1};
    for (int i = 0; i < 16; i++) b.pos[i] = pos[i];
    b.vel[0] = 4;
    bodies_recentre(&b);
    double x[3], v[3];
    bodies_centre_of_mass(&b, x, v);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(x[k], 0, 1e-6);
        assert_float_equal(v[k], 0, 1e-6);
    }
    assert_true(bodies_mass_radius(&b, 0.25) <= bodies_mass_radius(&b, 1.0));
    assert_float_equal(bodies_total_mass(&b), 4, 0);
    bodies_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(group_centres_by_hand),
        cmocka_unit_test(collision_galaxies_start_apart),
        cmocka_unit_test(recentre_and_mass_radii),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
