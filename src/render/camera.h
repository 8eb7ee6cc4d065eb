/* An orbit camera around a target point; matrices through cglm. */
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
} Camera;

/* A camera framing a system of radius `extent`, tilted to show disks in three quarters. */
void camera_init(Camera *c, float extent);
void camera_reset(Camera *c);
/* Mouse deltas in pixels; viewport height in pixels scales pan and orbit. */
void camera_orbit(Camera *c, float dx, float dy);
void camera_pan(Camera *c, float dx, float dy, int viewport_height);
/* Wheel clicks; positive zooms in. */
void camera_zoom(Camera *c, float clicks);
void camera_update(Camera *c, float seconds);
/* view and proj are column-major 4x4 (cglm mat4). */
void camera_matrices(const Camera *c, float aspect, float view[16], float proj[16]);

#endif
