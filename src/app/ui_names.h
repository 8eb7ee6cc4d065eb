/* What the app hands the UI, in the UI's own terms (ui.h includes no other module): the names
 * and ranges of the panel's choices, once, and the run's measurements as they come. */
#ifndef STARBURST_UI_NAMES_H
#define STARBURST_UI_NAMES_H

#include "sim/diag.h"
#include "ui/ui.h"

/* The names of the kernels, force methods, scenes and colour modes, and the ends of the sliders. */
void ui_names_fill(UiModel *m);
/* The Diagnostics section's figures; NULL: not measured (yet). */
void ui_show_diagnostics(UiModel *m, const Diagnostics *d);
void ui_show_force_check(UiModel *m, const ForceCheck *f);
void ui_show_live_error(UiModel *m, const ForceCheck *f);

#endif
