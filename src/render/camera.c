/* Orbit camera. World z is up: yaw turns about z, pitch lifts the eye above the x-y plane (the
 * plane of the collision orbit), and the eye sits at target + distance * (direction). The
 * screen's up is the direction pitch turns the eye's gaze to, which stays defined however close
 * to straight down the eye looks. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "render/camera.h"

#define ORBIT_RADIANS_PER_PIXEL 0.005f
#define ZOOM_PER_CLICK 0.85f
/* Short of the poles, where the view direction would meet the up vector. */
#define PITCH_LIMIT (GLM_PI_2f - 0.02f)

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

static void eye_direction(const Camera *c, vec3 dest)
{
    dest[0] = cosf(c->pitch) * cosf(c->yaw);
    dest[1] = cosf(c->pitch) * sinf(c->yaw);
    dest[2] = sinf(c->pitch);
}

/* The screen's right and up in the world: right = (-sin yaw, cos yaw, 0), up = the derivative of
 * the eye's direction by pitch. */
static void screen_axes(const Camera *c, vec3 right, vec3 up)
{
    right[0] = -sinf(c->yaw);
    right[1] = cosf(c->yaw);
    right[2] = 0;
    up[0] = -sinf(c->pitch) * cosf(c->yaw);
    up[1] = -sinf(c->pitch) * sinf(c->yaw);
    up[2] = cosf(c->pitch);
}

static float min_distance(const Camera *c) { return c->home_distance > 0 ? 1e-3f * c->home_distance : 1e-4f; }
static float max_distance(const Camera *c) { return c->home_distance > 0 ? 1e3f * c->home_distance : 1e6f; }

void camera_init(Camera *c, float extent) { camera_init_view(c, extent, glm_rad(-60.0f), glm_rad(35.0f), 1.1f); }

void camera_init_view(Camera *c, float extent, float yaw, float pitch, float margin)
{
    memset(c, 0, sizeof *c);
    if (!(extent > 0)) extent = 1;
    if (!(margin > 0)) margin = 1.1f;
    c->fov_y = glm_rad(45.0f);
    c->yaw = yaw;
    /* As orbiting does, short of the pole: a view saved as a preset reads back (-89 .. 89 degrees). */
    c->pitch = clampf(pitch, -PITCH_LIMIT, PITCH_LIMIT);
    c->distance = camera_fit_distance(c, extent, margin);
    c->home_target[0] = c->home_target[1] = c->home_target[2] = 0;
    c->home_yaw = c->yaw;
    c->home_pitch = c->pitch;
    c->home_distance = c->distance;
}

/* The pair starts far apart when the sphere holding both is this many times the larger galaxy's
 * light. */
#define PAIR_FAR_APART 6.0f
/* Room around the pair in the frame, for the disks' own spread and the first tails. */
#define PAIR_MARGIN 1.25f
/* An encounter's bodies spread to 2-3 times their first extent once the tails are out: the home
 * view leaves room for most of that and still shows the disks as disks at the start. */
#define ENCOUNTER_MARGIN 1.6f

bool camera_pair_frame(const Camera *c, const CameraPair *pair, bool far_apart, float target[3], float *distance)
{
    const float ra = pair->radius[0], rb = pair->radius[1];
    const float r = camera_pair_sphere(pair->centre[0], ra, pair->centre[1], rb, target);
    if (far_apart && r < PAIR_FAR_APART * fmaxf(ra, rb)) return false;
    *distance = camera_fit_distance(c, r, PAIR_MARGIN);
    return true;
}

void camera_home(Camera *c, float extent, bool encounter, const CameraPair *pair)
{
    if (!encounter) {
        camera_init(c, extent);
        return;
    }
    camera_init_view(c, extent, -0.5f * (float)M_PI, 0.5f * (float)M_PI, ENCOUNTER_MARGIN);
    float target[3], distance;
    if (pair && camera_pair_frame(c, pair, true, target, &distance)) {
        memcpy(c->target, target, sizeof target);
        memcpy(c->home_target, target, sizeof target);
        c->distance = c->home_distance = distance;
    }
}

float camera_fit_distance(const Camera *c, float radius, float margin)
{
    const float fov = c->fov_y > 0 ? c->fov_y : glm_rad(45.0f);
    return margin * radius / sinf(0.5f * fov);
}

float camera_pair_sphere(const float a[3], float ra, const float b[3], float rb, float centre[3])
{
    const float d = glm_vec3_distance((float *)a, (float *)b);
    /* One inside the other: the larger is the sphere. */
    if (d + rb <= ra || !(d > 0)) {
        memcpy(centre, ra >= rb ? a : b, 3 * sizeof(float));
        return ra >= rb ? ra : rb;
    }
    if (d + ra <= rb) {
        memcpy(centre, b, 3 * sizeof(float));
        return rb;
    }
    /* The segment from a's far side to b's far side is the diameter. */
    const float r = 0.5f * (d + ra + rb), s = (r - ra) / d;
    for (int k = 0; k < 3; k++) centre[k] = a[k] + (b[k] - a[k]) * s;
    return r;
}

void camera_approach(Camera *c, const float target[3], float distance, float seconds, float tau)
{
    if (!(seconds > 0) || !(distance > 0)) return;
    const float blend = tau > 0 ? 1.0f - expf(-seconds / tau) : 1.0f;
    for (int k = 0; k < 3; k++) c->target[k] += (target[k] - c->target[k]) * blend;
    c->distance = c->distance > 0 ? c->distance * powf(distance / c->distance, blend) : distance;
}

void camera_reset(Camera *c)
{
    memcpy(c->target, c->home_target, sizeof c->target);
    c->yaw = c->home_yaw;
    c->pitch = c->home_pitch;
    c->distance = c->home_distance;
    c->glide_seconds = 0; /* a glide under way would take the view away again */
}

void camera_orbit(Camera *c, float dx, float dy)
{
    c->glide_seconds = 0;
    c->yaw = remainderf(c->yaw - dx * ORBIT_RADIANS_PER_PIXEL, 2 * GLM_PIf);
    c->pitch = clampf(c->pitch + dy * ORBIT_RADIANS_PER_PIXEL, -PITCH_LIMIT, PITCH_LIMIT);
}

void camera_pan(Camera *c, float dx, float dy, float frame_pixels)
{
    c->glide_seconds = 0;
    if (!(frame_pixels > 0)) return;
    /* World units per pixel at the target's depth: the target follows the cursor. */
    float scale = 2 * c->distance * tanf(0.5f * c->fov_y) / frame_pixels;
    vec3 right, up;
    screen_axes(c, right, up);
    glm_vec3_muladds(right, -dx * scale, c->target);
    glm_vec3_muladds(up, dy * scale, c->target);
}

void camera_zoom(Camera *c, float clicks)
{
    c->glide_seconds = 0;
    c->distance = clampf(c->distance * powf(ZOOM_PER_CLICK, clicks), min_distance(c), max_distance(c));
}

void camera_place(Camera *c, float yaw, float pitch, float distance)
{
    c->yaw = yaw;
    c->pitch = clampf(pitch, -PITCH_LIMIT, PITCH_LIMIT);
    if (distance > 0) c->distance = distance;
}

void camera_glide(Camera *c, const float target[3], float yaw, float pitch, float distance, float seconds)
{
    const float to[6] = {target[0], target[1], target[2], yaw, pitch, distance};
    const float from[6] = {c->target[0], c->target[1], c->target[2], c->yaw, c->pitch, c->distance};
    memcpy(c->glide_from, from, sizeof from);
    memcpy(c->glide_to, to, sizeof to);
    /* The short way round: the end yaw is moved to within half a turn of the start. */
    c->glide_to[3] = from[3] + remainderf(yaw - from[3], 2 * GLM_PIf);
    memcpy(c->home_target, target, sizeof c->home_target);
    c->home_yaw = yaw;
    c->home_pitch = pitch;
    c->home_distance = distance;
    c->glide_elapsed = 0;
    c->glide_seconds = seconds > 0 ? seconds : 0;
    if (c->glide_seconds == 0) camera_reset(c);
}

static void glide_step(Camera *c, float seconds)
{
    c->glide_elapsed += seconds;
    float t = c->glide_elapsed / c->glide_seconds;
    if (t >= 1) {
        t = 1;
        c->glide_seconds = 0;
    }
    float s = t * t * (3 - 2 * t); /* smoothstep: eases in and out */
    float v[6];
    for (int i = 0; i < 6; i++) v[i] = c->glide_from[i] + (c->glide_to[i] - c->glide_from[i]) * s;
    /* Distance glides geometrically, so zooming far out and back reads as even speed. */
    if (c->glide_from[5] > 0 && c->glide_to[5] > 0)
        v[5] = c->glide_from[5] * powf(c->glide_to[5] / c->glide_from[5], s);
    memcpy(c->target, v, 3 * sizeof(float));
    c->yaw = remainderf(v[3], 2 * GLM_PIf);
    c->pitch = v[4];
    c->distance = v[5];
}

void camera_update(Camera *c, float seconds)
{
    if (c->glide_seconds > 0 && seconds > 0) glide_step(c, seconds);
    if (c->auto_rotate != 0 && seconds > 0)
        c->yaw = remainderf(c->yaw + c->auto_rotate * seconds, 2 * GLM_PIf);
}

void camera_eye(const Camera *c, float eye[3])
{
    vec3 dir;
    eye_direction(c, dir);
    float d = c->distance > 0 ? c->distance : min_distance(c);
    for (int i = 0; i < 3; i++) eye[i] = c->target[i] + d * dir[i];
}

static float fov_of(const Camera *c) { return c->fov_y > 0 ? c->fov_y : glm_rad(45.0f); }

static void view_matrix(const Camera *c, float view[16], float *distance)
{
    vec3 eye, target, right, up;
    camera_eye(c, eye);
    memcpy(target, c->target, sizeof target);
    screen_axes(c, right, up);
    *distance = glm_vec3_distance(eye, target);
    /* Locals keep cglm's aligned mat4 apart from the caller's plain float arrays. */
    mat4 v;
    glm_lookat(eye, target, up, v);
    memcpy(view, v, sizeof v);
}

void camera_matrices(const Camera *c, float aspect, float view[16], float proj[16])
{
    float d;
    view_matrix(c, view, &d);
    mat4 p;
    glm_perspective(fov_of(c), aspect > 0 ? aspect : 1.0f, 0.01f * d, 1000.0f * d, p);
    memcpy(proj, p, sizeof p);
}

static bool region_usable(int width, int height, const CameraRegion *r)
{
    return r && r->x1 - r->x0 >= 1 && r->y1 - r->y0 >= 1 && r->x0 >= 0 && r->y0 >= 0 && r->x1 <= (float)width &&
           r->y1 <= (float)height;
}

float camera_region_side(int width, int height, const CameraRegion *region)
{
    if (region_usable(width, height, region))
        return fminf(region->x1 - region->x0, region->y1 - region->y0);
    return (float)(width < height ? width : height);
}

void camera_matrices_in(const Camera *c, int width, int height, const CameraRegion *region, float view[16],
                        float proj[16])
{
    if (width <= 0 || height <= 0) {
        camera_matrices(c, 1.0f, view, proj);
        return;
    }
    float d;
    view_matrix(c, view, &d);
    const bool use = region_usable(width, height, region);
    /* The region's centre in pixels, and the focal length in pixels that makes fov_y span its
     * shorter side; the frustum is that of the whole view, seen through that centre. */
    const float cx = use ? 0.5f * (region->x0 + region->x1) : 0.5f * (float)width;
    const float cy = use ? 0.5f * (region->y0 + region->y1) : 0.5f * (float)height;
    const float focal = 0.5f * camera_region_side(width, height, region) / tanf(0.5f * fov_of(c));
    const float near = 0.01f * d, far = 1000.0f * d, k = near / focal;
    mat4 p;
    glm_frustum(-cx * k, ((float)width - cx) * k, (cy - (float)height) * k, cy * k, near, far, p);
    memcpy(proj, p, sizeof p);
}
