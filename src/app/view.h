/* The view: where each scene is seen from at first, and the part of the window the scene is
 * framed in (the window less the panel beside it). */
#ifndef STARBURST_APP_VIEW_H
#define STARBURST_APP_VIEW_H

#include <stdbool.h>

#include "render/camera.h"

struct App;

/* The view a scene starts with (R, Home and a preset without a camera return to it): an
 * encounter straight down its orbit's axis (the orbit lies in the x-y plane), far enough for the
 * tails it will throw out, or, where its galaxies start far apart, framing both with a margin
 * (app_pair_view); any other system in three quarters. */
void app_camera_home(const struct App *a, Camera *home);
/* The region of the width x height framebuffer left of the panel, as the last UI frame drew it;
 * false (the whole view) where the panel is hidden, folded, or not drawn into the view. */
bool app_view_region(const struct App *a, int width, int height, CameraRegion *region);

#endif
