// What the UI's files share: the look of the current mode (set by the bridge between frames),
// sizes and colours, and the pieces ui_frame draws from. C++, for src/ui alone.
#ifndef STARBURST_UI_INTERNAL_H
#define STARBURST_UI_INTERNAL_H

#include <stddef.h>

#include <imgui.h>

#include "ui/ui.h"

// Lecture mode: type and spacing this many times their normal size on a screen of 1280x720 or
// more; on a smaller one, less (never less than 1), so that the panel and the HUD fit beside each
// other (at 640x360 the lecture panel at twice the size was wider than the screen).
#define LECTURE_SCALE 2.0f
#define LECTURE_SCREEN_W 1280.0f
#define LECTURE_SCREEN_H 720.0f

// ImGui keeps one global context, so the mode it is styled for is global too (ui_imgui.cpp).
struct UiLook {
    float scale;  // the window's content scale, or the one asked for
    bool lecture; // the mode the style and fonts are set for
    float lecture_scale; // LECTURE_SCALE, or less on a small screen
    ImFont *normal, *large, *huge;
    // A text field was asked for and has yet to take the keyboard (it does a frame or two after
    // the ctrl+click): keys and characters wait until it has, or they would be lost to it.
    bool field_opening;
};
extern UiLook ui_look;

// Sizes in the units of the current mode: pixels at normal scale, larger in lecture mode.
static inline float px(float v) { return v * ui_look.scale * (ui_look.lecture ? ui_look.lecture_scale : 1.0f); }

// Entry i of a list of count names; "?" where the app has filled in none.
static inline const char *ui_name(const char *const *names, int count, int i)
{
    return i >= 0 && i < count && names[i] ? names[i] : "?";
}

static const ImVec4 notice_color(1.0f, 0.85f, 0.2f, 1.0f);
static const ImVec4 warning_color(1.0f, 0.55f, 0.3f, 1.0f);
static const ImVec4 alarm_color(1.0f, 0.35f, 0.3f, 1.0f);
static const ImVec4 accent_color(1.0f, 0.72f, 0.25f, 1.0f);

static const ImGuiWindowFlags overlay_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                              ImGuiWindowFlags_NoSavedSettings |
                                              ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                              ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;

// format.cpp: numbers as the HUD and the ladder write them.
const char *ui_compact_exp(double x, char *buf, size_t len);
const char *ui_grouped(int n, char *buf, size_t len);
const char *ui_flops(double gflops, char *buf, size_t len);

// hud.cpp: the HUD, top left, in the normal and the lecture layout.
void ui_hud(UiModel *m);
void ui_lecture_hud(UiModel *m);
// scalebar.cpp: a bar of a round number of kpc, bottom left, while the UI shows.
void ui_scalebar(UiModel *m, float bottom);

// heating_panel.cpp: the disks' heating in Diagnostics, and the HUD's mark (buf, color) while a
// disk is flagged; false when none is.
void ui_heating_lines(const UiModel *m);
bool ui_heating_flag(const UiModel *m, char *buf, size_t len, ImVec4 *color);

// caption.cpp: the running preset's line on what it shows, and its source, bottom left (above
// `bottom`, the timeline's top).
float ui_caption(UiModel *m, float bottom);

// timeline.cpp: the run's timeline, a line and a slider of its keyframes, under the view; its top.
float ui_timeline(UiModel *m);

// scene_panel.cpp: the Scene section's controls, the collision's encounter among them.
void ui_scene_contents(UiModel *m);

// ladder.cpp: the kernel ladder, in the panel's section or (lecture mode) a window of its own.
int ui_active_kernel(const UiModel *m);
void ui_ladder_contents(UiModel *m, float track_width);
void ui_ladder_window(UiModel *m);

// widgets.cpp: sliders whose handle maps onto the value by a rule of ours. ImGui 1.86's
// logarithmic slider takes its zero cut-off from the display format's precision: with "%e" the
// cut-off was 10, so any click set dt or softening to 10. Here the slider moves a position t in
// [0, 1] and the rule turns it into the value, so every value of the range is a handle position
// away.
typedef enum SliderRule {
    RULE_LOG,     // lo .. hi, equal ratios per pixel
    RULE_LINEAR,  // lo .. hi, equal steps per pixel, two decimals shown
    RULE_DAMPING, // 1 - 10^-x for x from -log10(1 - lo) to 6, and 1 (off) at the right end
} SliderRule;

typedef struct SliderSpec {
    SliderRule rule;
    float lo, hi;
    int field; // the UiField a value typed in it (ctrl+click) goes to
    const char *note; // the value in physical units, shown in its place ("0.16 Myr"); NULL or "": none
} SliderSpec;

bool ui_rule_slider(UiModel *m, const char *label, float *v, const SliderSpec *s, bool *began);
// ImGui's SliderFloat and SliderInt where ctrl+click types a value instead: the text goes to the
// app as typed (actions.typed, with field), which checks it and sets *v; a drag stays in lo .. hi.
bool ui_typed_slider_float(UiModel *m, const char *label, int field, float *v, float lo, float hi, const char *format,
                           ImGuiSliderFlags flags = 0);
bool ui_typed_slider_int(UiModel *m, const char *label, int field, int *v, int lo, int hi);
// A slider over a list of choices (0 shown as "auto"), by their index.
bool ui_choice_slider(UiModel *m, const char *label, int *value, const int *choices, int count);
// ImGui's SliderFloat and SliderInt with the value drawn clear of the handle, the handle's and
// the value's rectangles noted for the readout.
bool ui_slider_float(UiModel *m, const char *label, float *v, float lo, float hi, const char *format,
                     ImGuiSliderFlags flags = 0);
bool ui_slider_int(UiModel *m, const char *label, int *v, int lo, int hi, const char *format = "%d",
                   ImGuiSliderFlags flags = 0);
// Where the room left of the panel ends, pad clear of the panel as it was last drawn (it comes
// after the HUD, the timeline and the caption in a frame); pad in from the screen's right edge
// where there is none.
float ui_left_of_panel(float pad);
// The readout of where the controls sit (UiModel.widgets).
void ui_note_rect(UiModel *m, const char *name, ImVec2 a, ImVec2 b);
void ui_note_widget(UiModel *m, const char *name, bool box = false);

#endif
