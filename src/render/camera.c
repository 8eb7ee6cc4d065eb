/* Orbit camera. World z is up: yaw turns about z, pitch lifts the eye above the x-y plane (the
 * plane of the collision orbit), and the eye sits at target + distance * (direction). */
#include <cglm/cglm.h>
#include <math.h>
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

static float min_distance(const Camera *c) { return c->home_distance > 0 ? 1e-3f * c->home_distance : 1e-4f; }
static float max_distance(const Camera *c) { return c->home_distance > 0 ? 1e3f * c->home_distance : 1e6f; }

void camera_init(Camera *c, float extent)
{
    memset(c, 0, sizeof *c);
    if (!(extent > 0)) extent = 1;
    c->fov_y = glm_rad(45.0f);
    c->yaw = glm_rad(-60.0f);
    c->pitch = glm_rad(35.0f);
    /* The sphere of radius extent fits the view height with a little margin. */
    c->distance = 1.1f * extent / sinf(0.5f * c->fov_y);
    c->home_target[0] = c->home_target[1] = c->home_target[2] = 0;
    c->home_yaw = c->yaw;
    c->home_pitch = c->pitch;
    c->home_distance = c->distance;
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

void camera_pan(Camera *c, float dx, float dy, int viewport_height)
{
    c->glide_seconds = 0;
    if (viewport_height <= 0) return;
    /* World units per pixel at the target's depth: the target follows the cursor. */
    float scale = 2 * c->distance * tanf(0.5f * c->fov_y) / (float)viewport_height;
    vec3 forward, right, up, world_up = {0, 0, 1};
    eye_direction(c, forward);
    glm_vec3_negate(forward);
    glm_vec3_crossn(forward, world_up, right);
    glm_vec3_cross(right, forward, up);
    glm_vec3_muladds(right, -dx * scale, c->target);
    glm_vec3_muladds(up, dy * scale, c->target);
}

void camera_zoom(Camera *c, float clicks)
{
    c->glide_seconds = 0;
    c->distance = clampf(c->distance * powf(ZOOM_PER_CLICK, clicks), min_distance(c), max_distance(c));
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

void camera_matrices(const Camera *c, float aspect, float view[16], float proj[16])
{
    vec3 eye, target, up = {0, 0, 1};
    camera_eye(c, eye);
    memcpy(target, c->target, sizeof target);
    float d = glm_vec3_distance(eye, target);
    float fov = c->fov_y > 0 ? c->fov_y : glm_rad(45.0f);
    /* Locals keep cglm's aligned mat4 apart from the caller's plain float arrays. */
    mat4 v, p;
    glm_lookat(eye, target, up, v);
    glm_perspective(fov, aspect > 0 ? aspect : 1.0f, 0.01f * d, 1000.0f * d, p);
    memcpy(view, v, sizeof v);
    memcpy(proj, p, sizeof p);
}
