// The scale bar: a round length in kpc (1, 2 or 5 times a power of ten) drawn bottom left over
// the bodies (above `bottom`, the caption's top where one shows), about a sixth of the window wide, its length measured at the camera's target. It
// shows with the rest of the UI, and not where the run has no physical scale.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

// The longest of 1, 2 or 5 times a power of ten that is at most x.
static double round_down_125(double x)
{
    const double p = pow(10.0, floor(log10(x)));
    return 5 * p <= x ? 5 * p : 2 * p <= x ? 2 * p : p;
}

void ui_scalebar(UiModel *m, float bottom)
{
    m->readout.scalebar_px = 0;
    m->readout.scalebar_text[0] = '\0';
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    if (!m->controls.visible || !(m->readout.view_height_kpc > 0) || !(size.y > 0)) return;
    const double px_per_kpc = size.y / m->readout.view_height_kpc;
    const double kpc = round_down_125(size.x / 6.0 / px_per_kpc);
    if (!(kpc > 0) || !isfinite(kpc)) return;
    const float len = (float)(kpc * px_per_kpc), pad = px(20.0f), tick = px(5.0f);
    const ImVec2 a(pad, bottom - pad), b(pad + len, bottom - pad);
    if (kpc >= 1) snprintf(m->readout.scalebar_text, sizeof m->readout.scalebar_text, "%.0f kpc", kpc);
    else snprintf(m->readout.scalebar_text, sizeof m->readout.scalebar_text, "%.0f pc", kpc * 1e3);
    ImDrawList *draw = ImGui::GetForegroundDrawList();
    const ImU32 color = IM_COL32(230, 230, 230, 220), shadow = IM_COL32(0, 0, 0, 160);
    const float w = px(2.0f);
    for (int pass = 0; pass < 2; pass++) {
        const ImU32 c = pass == 0 ? shadow : color;
        const ImVec2 o = pass == 0 ? ImVec2(1, 1) : ImVec2(0, 0);
        draw->AddLine(ImVec2(a.x + o.x, a.y + o.y), ImVec2(b.x + o.x, b.y + o.y), c, w);
        draw->AddLine(ImVec2(a.x + o.x, a.y - tick + o.y), ImVec2(a.x + o.x, a.y + tick + o.y), c, w);
        draw->AddLine(ImVec2(b.x + o.x, b.y - tick + o.y), ImVec2(b.x + o.x, b.y + tick + o.y), c, w);
    }
    const ImVec2 text = ImGui::CalcTextSize(m->readout.scalebar_text);
    const ImVec2 at(a.x + 0.5f * (len - text.x), a.y - tick - text.y - px(2.0f));
    draw->AddText(ImVec2(at.x + 1, at.y + 1), shadow, m->readout.scalebar_text);
    draw->AddText(at, color, m->readout.scalebar_text);
    m->readout.scalebar_px = len;
    const float box[4] = {a.x, at.y, b.x, a.y + tick};
    memcpy(m->readout.scalebar_box, box, sizeof box);
}
