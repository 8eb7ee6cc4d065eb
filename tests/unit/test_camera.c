/* The orbit camera: pure math through cglm, no GL. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include "render/camera.h"

#define EPS 1e-4f

static float distance3(const float a[3], const float b[3])
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* dest = m * (p, 1), m column-major. */
static void transform(const float m[16], const float p[3], float dest[4])
{
    for (int r = 0; r < 4; r++) dest[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

static void eye_distance_equals_distance(void **state)
{
    Camera c;
    camera_init(&c, 10);
    c.target[0] = 3;
    c.target[1] = -2;
    c.target[2] = 1;
    float eye[3];
    camera_eye(&c, eye);
    assert_true(c.distance > 10);
    assert_float_equal(distance3(eye, c.target), c.distance, EPS * c.distance);
}

static void orbit_keeps_distance_and_target(void **state)
{
    Camera c;
    camera_init(&c, 5);
    float before[3];
    camera_eye(&c, before);
    camera_orbit(&c, 120, -45);
    float after[3];
    camera_eye(&c, after);
    assert_true(distance3(before, after) > 0.1f);
    assert_float_equal(distance3(after, c.target), c.distance, EPS * c.distance);
    assert_float_equal(c.target[0], 0, EPS);
    assert_float_equal(c.target[1], 0, EPS);
    assert_float_equal(c.target[2], 0, EPS);
}

static void pitch_stops_short_of_the_poles(void **state)
{
    Camera c;
    camera_init(&c, 5);
    for (int sign = -1; sign <= 1; sign += 2) {
        camera_orbit(&c, 0, sign * 1e6f);
        assert_true(fabsf(c.pitch) < 1.5707964f);
        assert_true(fabsf(c.pitch) > 1.5707964f - 0.1f);
        float view[16], proj[16];
        camera_matrices(&c, 16.0f / 9.0f, view, proj);
        for (int i = 0; i < 16; i++) assert_true(isfinite(view[i]));
    }
}

static void reset_restores_home(void **state)
{
    Camera c;
    camera_init(&c, 7);
    Camera home = c;
    camera_orbit(&c, 300, 80);
    camera_pan(&c, 40, -25, 720.0f);
    camera_zoom(&c, 3);
    camera_reset(&c);
    assert_float_equal(c.yaw, home.yaw, EPS);
    assert_float_equal(c.pitch, home.pitch, EPS);
    assert_float_equal(c.distance, home.distance, EPS);
    for (int i = 0; i < 3; i++) assert_float_equal(c.target[i], home.target[i], EPS);
}

static void zoom_in_reduces_distance_and_stays_positive(void **state)
{
    Camera c;
    camera_init(&c, 4);
    float d0 = c.distance;
    camera_zoom(&c, 1);
    assert_true(c.distance < d0);
    camera_zoom(&c, -2);
    assert_true(c.distance > d0);
    camera_zoom(&c, 1e4f);
    assert_true(c.distance > 0);
    camera_zoom(&c, -1e4f);
    assert_true(isfinite(c.distance));
}

static void pan_moves_target_across_the_view(void **state)
{
    Camera c;
    camera_init(&c, 10);
    camera_orbit(&c, 77, 33);
    float eye[3], forward[3], start[3] = {c.target[0], c.target[1], c.target[2]};
    camera_eye(&c, eye);
    for (int i = 0; i < 3; i++) forward[i] = c.target[i] - eye[i];
    float view_distance = c.distance;
    camera_pan(&c, 50, 20, 720.0f);
    float delta[3] = {c.target[0] - start[0], c.target[1] - start[1], c.target[2] - start[2]};
    float moved = sqrtf(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]);
    float along = (delta[0] * forward[0] + delta[1] * forward[1] + delta[2] * forward[2]) / view_distance;
    assert_true(moved > 0.01f);
    assert_float_equal(along, 0, 1e-3f * moved);
    assert_float_equal(c.distance, view_distance, EPS);
    /* A drag across the whole view height moves the target by the view's height at its depth. */
    Camera d;
    camera_init(&d, 10);
    camera_pan(&d, 0, 720, 720.0f);
    float height = 2 * d.distance * tanf(0.5f * d.fov_y);
    assert_float_equal(distance3(d.target, (float[3]){0, 0, 0}), height, 1e-3f * height);
}

static void view_puts_target_ahead_at_distance(void **state)
{
    Camera c;
    camera_init(&c, 10);
    c.target[0] = 1;
    c.target[1] = 2;
    c.target[2] = -3;
    camera_orbit(&c, -200, 60);
    float view[16], proj[16], p[4];
    camera_matrices(&c, 1.5f, view, proj);
    transform(view, c.target, p);
    assert_float_equal(p[0], 0, EPS * c.distance);
    assert_float_equal(p[1], 0, EPS * c.distance);
    assert_float_equal(p[2], -c.distance, EPS * c.distance);
    assert_float_equal(p[3], 1, EPS);
    /* World z stays up on screen. */
    float above[3] = {c.target[0], c.target[1], c.target[2] + 1};
    transform(view, above, p);
    assert_true(p[1] > 0);
}

static void projection_depth_is_sane(void **state)
{
    Camera c;
    camera_init(&c, 10);
    float view[16], proj[16], clip[4];
    camera_matrices(&c, 2.0f, view, proj);
    float near = 0.01f * c.distance, far = 1000.0f * c.distance;
    float at_near[3] = {0, 0, -near}, at_far[3] = {0, 0, -far}, at_target[3] = {0, 0, -c.distance};
    transform(proj, at_near, clip);
    assert_float_equal(clip[2] / clip[3], -1, 1e-3f);
    transform(proj, at_far, clip);
    assert_float_equal(clip[2] / clip[3], 1, 1e-3f);
    transform(proj, at_target, clip);
    assert_true(clip[3] > 0);
    assert_true(clip[2] / clip[3] > -1 && clip[2] / clip[3] < 1);
    /* Aspect: x is squeezed by it relative to y. */
    assert_float_equal(proj[0] * 2.0f, proj[5], 1e-4f);
    assert_float_equal(proj[5], 1.0f / tanf(0.5f * c.fov_y), 1e-4f);
}

static void auto_rotate_turns_yaw(void **state)
{
    Camera c;
    camera_init(&c, 1);
    c.auto_rotate = 0.5f;
    float yaw = c.yaw;
    camera_update(&c, 0.2f);
    assert_float_equal(c.yaw, yaw + 0.1f, EPS);
    c.auto_rotate = 0;
    camera_update(&c, 10);
    assert_float_equal(c.yaw, yaw + 0.1f, EPS);
}

/* A glide ends exactly at its goal, passes monotonically through the middle, goes the short
 * way round in yaw, becomes the home view, and a user's orbit stops it. */
static void glide_reaches_its_goal_the_short_way(void **state)
{
    Camera c;
    camera_init(&c, 10);
    c.yaw = (170.0f * (float)M_PI / 180);
    const float goal[3] = {1, 2, 3};
    const float d0 = c.distance;
    camera_glide(&c, goal, (-170.0f * (float)M_PI / 180), (10.0f * (float)M_PI / 180), 2 * d0, 2.0f);
    float last_d = c.distance;
    for (int i = 0; i < 10; i++) {
        camera_update(&c, 0.1f);
        assert_true(c.distance >= last_d);
        last_d = c.distance;
        /* The short way from 170 to -170 degrees passes 180, never 0. */
        assert_true(fabsf(c.yaw) > (165.0f * (float)M_PI / 180));
    }
    assert_true(c.distance > d0 && c.distance < 2 * d0);
    for (int i = 0; i < 20; i++) camera_update(&c, 0.1f);
    assert_float_equal(c.distance, 2 * d0, 1e-4 * d0);
    assert_float_equal(c.target[2], 3, 1e-5);
    assert_float_equal(remainderf(c.yaw - (-170.0f * (float)M_PI / 180), 2 * (float)M_PI), 0, 1e-5);
    assert_float_equal(c.home_distance, 2 * d0, 0);

    camera_glide(&c, goal, 0, 0, d0, 5.0f);
    camera_update(&c, 0.5f);
    camera_orbit(&c, 10, 0);
    float yaw = c.yaw;
    camera_update(&c, 1.0f);
    assert_float_equal(c.yaw, yaw, 0);
}

/* The pixel (from the top-left corner) a world point lands on in a width x height view. */
static void project(const float view[16], const float proj[16], const float p[3], int width, int height, float px[2])
{
    float eye[4], clip[4];
    transform(view, p, eye);
    for (int r = 0; r < 4; r++)
        clip[r] = proj[r] * eye[0] + proj[4 + r] * eye[1] + proj[8 + r] * eye[2] + proj[12 + r] * eye[3];
    px[0] = (clip[0] / clip[3] + 1) * 0.5f * (float)width;
    px[1] = (1 - clip[1] / clip[3]) * 0.5f * (float)height;
}

/* A region left of a panel: the target lands on its centre, at every window size, and a sphere
 * of the framed radius stays inside it; without a region, at the window's centre. */
static void region_centre_holds_the_target(void **state)
{
    const int sizes[][2] = {{640, 480}, {1280, 720}, {1920, 1080}, {800, 1200}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        const CameraRegion panel_left = {0, 0, 0.6f * (float)w, (float)h};
        const float extent = 7;
        Camera c;
        camera_init_view(&c, extent, -0.5f * (float)M_PI, 0.5f * (float)M_PI, 1.5f);
        c.target[0] = 2;
        c.target[1] = -1;
        float view[16], proj[16], px[2];
        camera_matrices_in(&c, w, h, &panel_left, view, proj);
        project(view, proj, c.target, w, h, px);
        assert_float_equal(px[0], 0.3f * (float)w, 1e-3f * (float)w);
        assert_float_equal(px[1], 0.5f * (float)h, 1e-3f * (float)h);
        /* Points 1.5 x extent from the target in the orbit plane stay inside the region. */
        for (int k = 0; k < 4; k++) {
            const float angle = (float)k * 0.5f * (float)M_PI;
            const float p[3] = {c.target[0] + 1.5f * extent * cosf(angle), c.target[1] + 1.5f * extent * sinf(angle), 0};
            project(view, proj, p, w, h, px);
            assert_true(px[0] > panel_left.x0 && px[0] < panel_left.x1);
            assert_true(px[1] > panel_left.y0 && px[1] < panel_left.y1);
        }
        assert_float_equal(camera_region_side(w, h, &panel_left), fminf(0.6f * (float)w, (float)h), 1e-3f);
        /* No region (the UI hidden), or one that does not fit the view: the window's centre. */
        const CameraRegion outside = {0, 0, (float)w + 10, (float)h};
        const CameraRegion *none[2] = {NULL, &outside};
        for (int k = 0; k < 2; k++) {
            camera_matrices_in(&c, w, h, none[k], view, proj);
            project(view, proj, c.target, w, h, px);
            assert_float_equal(px[0], 0.5f * (float)w, 1e-3f * (float)w);
            assert_float_equal(px[1], 0.5f * (float)h, 1e-3f * (float)h);
        }
    }
}

/* Without a region a landscape view is camera_matrices's: fov_y spans the height. */
static void whole_view_matches_the_centred_projection(void **state)
{
    Camera c;
    camera_init(&c, 3);
    float v1[16], p1[16], v2[16], p2[16];
    camera_matrices(&c, 1280.0f / 720.0f, v1, p1);
    camera_matrices_in(&c, 1280, 720, NULL, v2, p2);
    for (int i = 0; i < 16; i++) {
        assert_float_equal(v1[i], v2[i], 1e-5f * (1 + fabsf(v1[i])));
        assert_float_equal(p1[i], p2[i], 1e-4f * (1 + fabsf(p1[i])));
    }
}

/* Straight down the z axis (the orbit's axis) at yaw -pi/2: x to the right, y up, the matrices
 * finite; a pan there moves the target in the x-y plane. */
static void looking_down_the_axis_shows_x_right_y_up(void **state)
{
    Camera c;
    camera_init_view(&c, 5, -0.5f * (float)M_PI, 0.5f * (float)M_PI, 1.6f);
    /* Within a degree and a half of the pole, and short of it: a saved preset reads it back. */
    assert_true(c.pitch < 0.5f * (float)M_PI && c.pitch > 0.5f * (float)M_PI - 0.026f);
    float eye[3];
    camera_eye(&c, eye);
    assert_float_equal(eye[2], c.distance, 1e-3f * c.distance);
    float view[16], proj[16], at[2], right[2], up[2];
    camera_matrices_in(&c, 1280, 720, NULL, view, proj);
    for (int i = 0; i < 16; i++) assert_true(isfinite(view[i]) && isfinite(proj[i]));
    project(view, proj, (float[3]){0, 0, 0}, 1280, 720, at);
    project(view, proj, (float[3]){1, 0, 0}, 1280, 720, right);
    project(view, proj, (float[3]){0, 1, 0}, 1280, 720, up);
    assert_true(right[0] > at[0] + 1);
    assert_float_equal(right[1], at[1], 1e-2f);
    assert_true(up[1] < at[1] - 1);
    assert_float_equal(up[0], at[0], 1e-2f);
    camera_pan(&c, 30, -20, 720.0f);
    assert_float_equal(c.target[2], 0, 1e-2f * c.distance);
    assert_true(fabsf(c.target[0]) > 0.01f && fabsf(c.target[1]) > 0.01f);
    /* The margin scales the home distance. */
    Camera wide;
    camera_init_view(&wide, 5, 0, 0, 2.2f);
    assert_float_equal(wide.distance, 2 * c.distance * 1.1f / 1.6f, 1e-4f * wide.distance);
}

/* The pair's sphere holds both galaxies' spheres and touches each (the smallest that holds them);
 * one inside the other gives the outer one. */
static void pair_sphere_holds_both_and_no_more(void **state)
{
    (void)state;
    const float a[3] = {-300, 20, 5}, b[3] = {400, -30, 0};
    const float ra = 10, rb = 21;
    float c[3];
    const float r = camera_pair_sphere(a, ra, b, rb, c);
    assert_float_equal(distance3(c, a) + ra, r, 1e-3f * r);
    assert_float_equal(distance3(c, b) + rb, r, 1e-3f * r);
    assert_float_equal(r, 0.5f * (distance3(a, b) + ra + rb), 1e-3f * r);
    /* Nested: b's sphere inside a's. */
    const float near[3] = {-295, 20, 5};
    assert_float_equal(camera_pair_sphere(a, 30, near, 5, c), 30, EPS);
    assert_float_equal(distance3(c, a), 0, EPS);
    assert_float_equal(camera_pair_sphere(near, 5, a, 30, c), 30, EPS);
    assert_float_equal(distance3(c, a), 0, EPS);
}

/* A sphere fitted at that distance fills the field of view with the margin: its edge is seen at
 * half the field of view over the margin, as camera_init_view frames an extent. */
static void fit_distance_fills_the_view(void **state)
{
    (void)state;
    Camera c, home;
    camera_init_view(&home, 40, 0, 0.5f, 1.6f);
    c = home;
    assert_float_equal(camera_fit_distance(&c, 40, 1.6f), home.distance, EPS * home.distance);
    const float d = camera_fit_distance(&c, 10, 1.25f);
    assert_float_equal(asinf(1.25f * 10 / d), 0.5f * c.fov_y, 1e-5f);
    assert_true(camera_fit_distance(&c, 5, 1.25f) < d);
}

/* The view approaches a pair that closes in: the distance falls towards the pair's frame each
 * frame, by no more than the fraction its time constant gives (no jump, whatever the frame
 * time), never past it, and settles there; both galaxies stay in the view all the way, and the
 * galaxy's share of the view grows. A frame of no time moves nothing. */
static void approach_follows_a_closing_pair(void **state)
{
    (void)state;
    const float ra = 10, rb = 20, margin = 1.25f, tau = 0.5f;
    Camera c;
    camera_init_view(&c, 1, -0.5f * (float)M_PI, 0.5f * (float)M_PI, 1);
    float a[3] = {-400, 0, 0}, b[3] = {400, 0, 0}, target[3];
    float r = camera_pair_sphere(a, ra, b, rb, target);
    c.distance = camera_fit_distance(&c, r, margin);
    memcpy(c.target, target, sizeof target);
    float share = rb / (c.distance * sinf(0.5f * c.fov_y));
    const float frame_times[] = {1.0f / 60, 1.0f / 7, 0.9f};
    for (int step = 0; step < 280; step++) { /* from 800 apart to 128 */
        const float dt = frame_times[step % 3];
        a[0] += 1.2f;
        b[0] -= 1.2f;
        r = camera_pair_sphere(a, ra, b, rb, target);
        const float want = camera_fit_distance(&c, r, margin), before = c.distance;
        camera_approach(&c, target, want, dt, tau);
        const float closed = logf(before / c.distance), gap = logf(before / want);
        assert_true(c.distance <= before * (1 + 1e-6f));
        assert_true(c.distance >= want * (1 - 1e-6f));
        assert_true(closed <= (1 - expf(-dt / tau)) * gap * (1 + 1e-4f) + 1e-6f);
        /* Each galaxy's sphere lies inside the view's cone. */
        for (int g = 0; g < 2; g++) {
            const float *p = g ? b : a, rg = g ? rb : ra;
            const float off = distance3(p, c.target);
            assert_true(atanf(off / c.distance) + asinf(fminf(1.0f, rg / c.distance)) < 0.5f * c.fov_y * 1.01f);
        }
        const float now = rb / (c.distance * sinf(0.5f * c.fov_y));
        assert_true(now >= share * (1 - 1e-5f));
        share = now;
    }
    for (int i = 0; i < 100; i++) camera_approach(&c, target, camera_fit_distance(&c, r, margin), 0.1f, tau);
    assert_float_equal(c.distance, camera_fit_distance(&c, r, margin), 1e-3f * c.distance);
    const float kept = c.distance;
    camera_approach(&c, target, 10 * kept, 0, tau);
    assert_float_equal(c.distance, kept, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eye_distance_equals_distance),
        cmocka_unit_test(orbit_keeps_distance_and_target),
        cmocka_unit_test(pitch_stops_short_of_the_poles),
        cmocka_unit_test(reset_restores_home),
        cmocka_unit_test(zoom_in_reduces_distance_and_stays_positive),
        cmocka_unit_test(pan_moves_target_across_the_view),
        cmocka_unit_test(view_puts_target_ahead_at_distance),
        cmocka_unit_test(projection_depth_is_sane),
        cmocka_unit_test(auto_rotate_turns_yaw),
        cmocka_unit_test(glide_reaches_its_goal_the_short_way),
        cmocka_unit_test(region_centre_holds_the_target),
        cmocka_unit_test(whole_view_matches_the_centred_projection),
        cmocka_unit_test(looking_down_the_axis_shows_x_right_y_up),
        cmocka_unit_test(pair_sphere_holds_both_and_no_more),
        cmocka_unit_test(fit_distance_fills_the_view),
        cmocka_unit_test(approach_follows_a_closing_pair),
    };
    return test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
