// The controls of our own: sliders whose value stays clear of their handle, sliders whose handle
// maps onto the value by a rule, sliders over a list of choices, and the readout of where each
// control sits on screen.
#include <math.h>
#include <stdio.h>

#include <imgui_internal.h>

#include "ui/ui_internal.h"

// ImGui draws a slider's value centred in its frame, under the handle wherever the handle sits in
// the middle ("1.00" at half way). Here ImGui draws the frame, the handle and the label, and its
// value text is hidden by "##" in front of the format (ImGui stops drawing text at "##"; the
// format's precision, which rounds the value, is read past it). The value is then drawn centred
// in the frame when that is clear of the handle, else centred in the wider part the handle leaves
// free. The handle's and the value's rectangles go to the readout as "NAME grab" and "NAME value".
static bool slider_clear(UiModel *m, const char *label, ImGuiDataType type, void *v, const void *lo, const void *hi,
                         const char *format, ImGuiSliderFlags flags)
{
    char hidden[64];
    snprintf(hidden, sizeof hidden, "##%s", format);
    const ImGuiID id = ImGui::GetID(label);
    const bool changed = ImGui::SliderScalar(label, type, v, lo, hi, hidden, flags);
    const ImVec2 a = ImGui::GetItemRectMin();
    const ImRect frame(a, ImVec2(a.x + ImGui::CalcItemWidth(), a.y + ImGui::GetFrameHeight()));
    if (ImGui::TempInputIsActive(id)) return changed; // ctrl+click: the typed text is in the frame
    // The handle as ImGui placed it: the same computation for an id that is never active, which
    // moves nothing.
    ImRect grab;
    if (type == ImGuiDataType_Float) {
        float probe = *(float *)v;
        ImGui::SliderBehavior(frame, ImGui::GetID("##grab probe"), type, &probe, lo, hi, hidden, flags, &grab);
    } else {
        int probe = *(int *)v;
        ImGui::SliderBehavior(frame, ImGui::GetID("##grab probe"), type, &probe, lo, hi, hidden, flags, &grab);
    }
    char text[64];
    if (type == ImGuiDataType_Float) snprintf(text, sizeof text, format, (double)*(float *)v);
    else snprintf(text, sizeof text, format, *(int *)v);
    float w = ImGui::CalcTextSize(text).x;
    const float pad = ImGui::GetStyle().FramePadding.x * 0.5f;
    float x = (frame.Min.x + frame.Max.x - w) * 0.5f;
    if (x < grab.Max.x && x + w > grab.Min.x) {
        const float left = grab.Min.x - frame.Min.x, right = frame.Max.x - grab.Max.x;
        // A value with its unit that fits neither side drops the space before the unit ("0.84Myr").
        if (w + 2.0f * pad > (left > right ? left : right)) {
            char *to = text;
            for (const char *from = text; *from; from++)
                if (*from != ' ') *to++ = *from;
            *to = '\0';
            w = ImGui::CalcTextSize(text).x;
        }
        x = left > right ? frame.Min.x + (left - w) * 0.5f : grab.Max.x + (right - w) * 0.5f;
        // Where the free part is narrower than the text, it starts there and the frame clips it.
        if (left > right && x < frame.Min.x + pad) x = frame.Min.x + pad;
        if (left <= right && x < grab.Max.x + pad) x = grab.Max.x + pad;
    }
    const float y = frame.Min.y + ImGui::GetStyle().FramePadding.y;
    ImGui::RenderTextClipped(ImVec2(x, y), ImVec2(frame.Max.x, frame.Max.y), text, nullptr, nullptr, ImVec2(0, 0),
                             &frame);
    char name[sizeof m->readout.widgets[0].name];
    snprintf(name, sizeof name, "%.13s grab", label);
    ui_note_rect(m, name, grab.Min, grab.Max);
    snprintf(name, sizeof name, "%.13s value", label);
    ui_note_rect(m, name, ImVec2(x, y), ImVec2(x + w, y + ImGui::GetFontSize()));
    return changed;
}

bool ui_slider_float(UiModel *m, const char *label, float *v, float lo, float hi, const char *format,
                     ImGuiSliderFlags flags)
{
    return slider_clear(m, label, ImGuiDataType_Float, v, &lo, &hi, format, flags);
}

bool ui_slider_int(UiModel *m, const char *label, int *v, int lo, int hi, const char *format, ImGuiSliderFlags flags)
{
    return slider_clear(m, label, ImGuiDataType_S32, v, &lo, &hi, format, flags);
}

// Power-of-two choices with 0 = auto, on a slider of their index.
bool ui_choice_slider(UiModel *m, const char *label, int *value, const int *choices, int count)
{
    int i = 0;
    while (i < count && choices[i] != *value) i++;
    if (i == count) i = 0;
    char shown[16];
    if (choices[i] == 0) snprintf(shown, sizeof shown, "auto");
    else snprintf(shown, sizeof shown, "%d", choices[i]);
    if (!ui_slider_int(m, label, &i, 0, count - 1, shown, ImGuiSliderFlags_NoInput)) return false;
    *value = choices[i];
    return true;
}

#define DAMPING_FINEST 6.0f // 1 - 1e-6: the closest to 1 before off

static float slider_t(const SliderSpec *s, float v)
{
    float t;
    if (s->rule == RULE_DAMPING) {
        if (v >= 1.0f) return 1.0f;
        const float x0 = -log10f(1.0f - s->lo), x = -log10f(1.0f - v);
        t = (x - x0) / (DAMPING_FINEST - x0);
    } else if (s->rule == RULE_LINEAR) {
        t = (v - s->lo) / (s->hi - s->lo);
    } else {
        t = logf(v / s->lo) / logf(s->hi / s->lo);
    }
    return isfinite(t) ? fminf(fmaxf(t, 0.0f), 1.0f) : 0.0f;
}

static float slider_value(const SliderSpec *s, float t)
{
    if (s->rule == RULE_DAMPING) {
        if (t >= 1.0f) return 1.0f;
        const float x0 = -log10f(1.0f - s->lo);
        return fminf(1.0f - powf(10.0f, -(x0 + t * (DAMPING_FINEST - x0))), 1.0f);
    }
    if (s->rule == RULE_LINEAR) return fminf(fmaxf(s->lo + t * (s->hi - s->lo), s->lo), s->hi);
    return fminf(fmaxf(s->lo * powf(s->hi / s->lo, t), s->lo), s->hi);
}

// Three significant figures ("0.0200", "0.0800", "1.50e-05"); damping with the digits that
// tell its nines apart ("0.9990", "0.999950"), and "1 (off)"; a linear rule two decimals.
static void slider_text(const SliderSpec *s, float v, char *buf, size_t len)
{
    if (s->rule == RULE_DAMPING) {
        if (v >= 1.0f) {
            snprintf(buf, len, "1 (off)");
            return;
        }
        int decimals = (int)floorf(-log10f(1.0f - v)) + 2;
        snprintf(buf, len, "%.*f", decimals < 2 ? 2 : decimals > 8 ? 8 : decimals, v);
        return;
    }
    if (s->rule == RULE_LINEAR) {
        snprintf(buf, len, "%.2f", v);
        return;
    }
    if (v >= 1e-3f && v < 1e4f) {
        int decimals = 2 - (int)floorf(log10f(v));
        snprintf(buf, len, "%.*f", decimals < 0 ? 0 : decimals, v);
    } else {
        snprintf(buf, len, "%.2e", v);
    }
}

// Ctrl+click on a slider puts a text field in its place. One field is typed into at a time: its
// text is kept here, and a field another has taken over from closes unread.
static struct {
    ImGuiID id;
    char text[sizeof ((UiActions *)0)->typed_text];
} typing_now;

static void start_typing(const char *label)
{
    const ImGuiID key = ImGui::GetID(label);
    ImGui::GetStateStorage()->SetInt(key, 1); // the click that asked for typing moves nothing
    typing_now.id = key;
}

// The text field of label while a value is typed into it (true: the slider is not drawn). With
// Enter the text goes to the app as typed (actions.typed): the app checks it and sets the value.
static bool typed_field(UiModel *m, const char *label, int field, double now)
{
    // State kept by value: a pointer into ImGui's storage moves when another key is added.
    ImGuiStorage *store = ImGui::GetStateStorage();
    const ImGuiID key = ImGui::GetID(label);
    int typing = store->GetInt(key, 0); // frames since typing began + 1; 0 = sliding
    if (typing > 0 && typing_now.id != key) store->SetInt(key, typing = 0);
    if (typing == 0) return false;
    if (typing == 1) {
        snprintf(typing_now.text, sizeof typing_now.text, "%g", now);
        ImGui::SetKeyboardFocusHere();
    }
    ImGui::PushID("typed");
    ImGui::InputText(label, typing_now.text, sizeof typing_now.text, ImGuiInputTextFlags_AutoSelectAll);
    const bool done = ImGui::IsItemDeactivated() || (typing > 3 && !ImGui::IsItemActive());
    const bool edited = ImGui::IsItemDeactivatedAfterEdit();
    if (!done && !ImGui::IsItemActive()) ui_look.field_opening = true;
    ImGui::PopID();
    store->SetInt(key, done ? 0 : typing + 1);
    if (done && edited) {
        m->actions.typed = field;
        snprintf(m->actions.typed_text, sizeof m->actions.typed_text, "%s", typing_now.text);
    }
    return true;
}

bool ui_typed_slider_float(UiModel *m, const char *label, int field, float *v, float lo, float hi, const char *format,
                           ImGuiSliderFlags flags)
{
    if (typed_field(m, label, field, *v)) return false;
    float moved = *v;
    const bool changed = ui_slider_float(m, label, &moved, lo, hi, format,
                                         flags | ImGuiSliderFlags_NoInput | ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemActivated() && ImGui::GetIO().KeyCtrl) {
        start_typing(label);
        return false;
    }
    if (changed) *v = moved;
    return changed;
}

bool ui_typed_slider_int(UiModel *m, const char *label, int field, int *v, int lo, int hi)
{
    if (typed_field(m, label, field, *v)) return false;
    int moved = *v;
    const bool changed = ui_slider_int(m, label, &moved, lo, hi, "%d", ImGuiSliderFlags_NoInput | ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemActivated() && ImGui::GetIO().KeyCtrl) {
        start_typing(label);
        return false;
    }
    if (changed) *v = moved;
    return changed;
}

// The slider of spec s over *v. Ctrl+click types a value instead, which goes to the app as typed.
// True when *v changed; *began is raised when an edit starts (the value before it is still *v then).
bool ui_rule_slider(UiModel *m, const char *label, float *v, const SliderSpec *s, bool *began)
{
    if (typed_field(m, label, s->field, *v)) return false;
    // A value with a physical note reads in it ("0.22 Myr"); the model value is in its tooltip.
    char model[48];
    slider_text(s, *v, model, sizeof model);
    const bool noted = s->note && s->note[0];
    float t = slider_t(s, *v);
    const bool moved = ui_slider_float(m, label, &t, 0.0f, 1.0f, noted ? s->note : model,
                                       ImGuiSliderFlags_NoInput | ImGuiSliderFlags_NoRoundToFormat |
                                           ImGuiSliderFlags_AlwaysClamp);
    if (noted && ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("%s = %s in model units", s->note, model);
    if (ImGui::IsItemActivated() && ImGui::GetIO().KeyCtrl) {
        start_typing(label);
        return false;
    }
    if (ImGui::IsItemActivated()) *began = true;
    if (!moved) return false;
    *v = slider_value(s, t);
    return true;
}

float ui_left_of_panel(float pad)
{
    const ImGuiIO &io = ImGui::GetIO();
    const ImGuiWindow *panel = ImGui::FindWindowByName("Controls");
    if (!panel || !(panel->Size.x > 0)) return io.DisplaySize.x - pad;
    return io.DisplaySize.x - pad - panel->Size.x - pad;
}

// Where a control sits on screen, for the readout that lets tests drive the window by hand.
// A slider's or field's box alone, without the label beside it.
void ui_note_rect(UiModel *m, const char *name, ImVec2 a, ImVec2 b)
{
    if (m->readout.widget_count >= UI_MAX_WIDGETS) return;
    UiWidget *w = &m->readout.widgets[m->readout.widget_count++];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->x0 = a.x;
    w->y0 = a.y;
    w->x1 = b.x;
    w->y1 = b.y;
}

void ui_note_widget(UiModel *m, const char *name, bool box)
{
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ui_note_rect(m, name, a, box ? ImVec2(a.x + ImGui::CalcItemWidth(), b.y) : b);
}
