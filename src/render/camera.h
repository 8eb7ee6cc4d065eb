/* An orbit camera around a target point; matrices through cglm. World z is up: the eye sits at
 * target + distance * (cos pitch cos yaw, cos pitch sin yaw, sin pitch). */
#ifndef STARBURST_CAMERA_H
#define STARBURST_CAMERA_H

#include <stdbool.h>

typedef struct Camera {
    float target[3];
    float yaw, pitch; /* radians */
    float distance;
    float fov_y;      /* radians */
    float auto_rotate; /* radians per second, 0 = off */
    /* The view reset() returns to. */
    float home_target[3], home_yaw, home_pitch, home_distance;
    /* A glide in progress (camera_glide): from and to as target xyz, yaw, pitch, distance. */
    float glide_from[6], glide_to[6];
    float glide_elapsed, glide_seconds; /* glide_seconds 0 = none */
} Camera;

/* A camera framing a system of radius `extent`, tilted to show disks in three quarters. */
void camera_init(Camera *c, float extent);
void camera_reset(Camera *c);
/* Mouse deltas in pixels (y down). Orbit turns at a fixed rate per pixel and keeps pitch short
 * of the poles; pan moves the target so that it follows the cursor at a viewport of that height. */
void camera_orbit(Camera *c, float dx, float dy);
void camera_pan(Camera *c, float dx, float dy, int viewport_height);
/* Wheel clicks; positive zooms in. The distance stays within 1e-3 .. 1e3 x the home distance. */
void camera_zoom(Camera *c, float clicks);
/* Moves smoothly to a view over `seconds` (0 = at once); it also becomes the home view. Yaw
 * turns the short way round. Orbit, pan or zoom by the user stop a glide. */
void camera_glide(Camera *c, const float target[3], float yaw, float pitch, float distance, float seconds);
/* Advances auto-rotation and a glide by `seconds`. */
void camera_update(Camera *c, float seconds);
void camera_eye(const Camera *c, float eye[3]);
/* view and proj are column-major 4x4 (cglm mat4); near and far are 0.01 and 1000 x distance. */
void camera_matrices(const Camera *c, float aspect, float view[16], float proj[16]);

#endif
