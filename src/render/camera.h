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

/* The part of the view the scene is framed in, in pixels from the view's top-left corner: the
 * view less the panel beside it. The projection is shifted so that the target sits at the
 * region's centre, and the field of view spans the region's shorter side; the scene still draws
 * over the whole view. */
typedef struct CameraRegion {
    float x0, y0, x1, y1;
} CameraRegion;

/* A camera framing a system of radius `extent`, tilted to show disks in three quarters. */
void camera_init(Camera *c, float extent);
/* The same, seen from (yaw, pitch), with the sphere of radius `margin` x extent filling the
 * field of view. Pitch is kept within about 1 degree of the poles, as orbiting keeps it; pitch
 * pi/2 looks (so nearly) straight down the z axis, and at yaw -pi/2 the screen then shows x to
 * the right and y up. */
void camera_init_view(Camera *c, float extent, float yaw, float pitch, float margin);
void camera_reset(Camera *c);
/* The eye moved to (yaw, pitch) radians at distance from the target, pitch kept off the poles as
 * orbiting keeps it (a distance not above 0 leaves the distance as it is). */
void camera_place(Camera *c, float yaw, float pitch, float distance);
/* The distance at which the sphere of radius margin x radius fills the field of view (as
 * camera_init_view frames it). */
float camera_fit_distance(const Camera *c, float radius, float margin);
/* The smallest sphere holding two spheres (centres a and b, radii ra and rb): its centre into
 * centre, its radius returned. Either may hold the other. */
float camera_pair_sphere(const float a[3], float ra, const float b[3], float rb, float centre[3]);
/* An encounter's pair as a view frames it: each galaxy's light, its centre and radius
 * (bodies_light). */
typedef struct CameraPair {
    float centre[2][3];
    float radius[2];
} CameraPair;
/* The frame holding both galaxies' light with a margin for camera c: its target and distance.
 * With far_apart, only where the pair starts far apart (the sphere holding both is 6 or more
 * times the larger galaxy's light: framed as a whole, each would fill a few per cent of the
 * view); false otherwise. */
bool camera_pair_frame(const Camera *c, const CameraPair *pair, bool far_apart, float target[3], float *distance);
/* The home view of a scene of radius extent. An encounter built from its scene (encounter) is seen
 * down its orbit's axis, and where pair (may be NULL) starts far apart it is framed as a whole
 * (the Milky Way and Andromeda start 770 kpc apart: framed by extent, two dots); anything else is
 * seen in three quarters (camera_init). The window's home and the library's pictures both. */
void camera_home(Camera *c, float extent, bool encounter, const CameraPair *pair);
/* Moves the target and distance towards (target, distance), closing the fraction 1 - exp(-seconds
 * / tau) of the gap (the distance's ratio, so that near and far read as even speed): smooth, never
 * a jump, however the frames come. */
void camera_approach(Camera *c, const float target[3], float distance, float seconds, float tau);
/* Mouse deltas in pixels (y down). Orbit turns at a fixed rate per pixel and keeps pitch within
 * the poles; pan moves the target so that it follows the cursor, the field of view spanning
 * `frame_pixels` (camera_region_side). */
void camera_orbit(Camera *c, float dx, float dy);
void camera_pan(Camera *c, float dx, float dy, float frame_pixels);
/* Wheel clicks; positive zooms in. The distance stays within 1e-3 .. 1e3 x the home distance. */
void camera_zoom(Camera *c, float clicks);
/* Moves smoothly to a view over `seconds` (0 = at once); it also becomes the home view. Yaw
 * turns the short way round. Orbit, pan or zoom by the user stop a glide. */
void camera_glide(Camera *c, const float target[3], float yaw, float pitch, float distance, float seconds);
/* Advances auto-rotation and a glide by `seconds`. */
void camera_update(Camera *c, float seconds);
void camera_eye(const Camera *c, float eye[3]);
/* view and proj are column-major 4x4 (cglm mat4); near and far are 0.01 and 1000 x distance.
 * The target at the centre of a view of that aspect, fov_y spanning its height. */
void camera_matrices(const Camera *c, float aspect, float view[16], float proj[16]);
/* The target at the centre of `region` of a width x height view, fov_y spanning the region's
 * shorter side; region NULL (or empty) = the whole view. */
void camera_matrices_in(const Camera *c, int width, int height, const CameraRegion *region, float view[16],
                        float proj[16]);
/* The pixels fov_y spans in that region of the view: its shorter side. */
float camera_region_side(int width, int height, const CameraRegion *region);

#endif
