// The caption, bottom left: the running preset's name, what the encounter on screen is and what to
// watch for, with the work it follows beneath in smaller, dimmer type (a preset may leave out
// either; its name is always there). Returns its top edge (the scale bar goes above it). It stays while its preset runs, and joins the HUD's
// lines in m->readout.hud for the readout.
#include <stdio.h>
#include <string.h>

#include <imgui_internal.h>

#include "ui/ui_internal.h"

float ui_caption(UiModel *m, float bottom)
{
    const ImGuiIO &io = ImGui::GetIO();
    const char *title = m->readout.caption_title, *about = m->readout.caption;
    const bool has_title = title && title[0], has_about = about && about[0];
    if (!has_title && !has_about) return bottom;
    float top = bottom;
    // Left of the panel as it was last drawn (it comes after the caption in a frame), and no wider
    // than 55 % of the screen.
    const float pad = px(10.0f);
    float width = io.DisplaySize.x * 0.55f;
    if (ui_left_of_panel(pad) - pad < width) width = ui_left_of_panel(pad) - pad;
    if (width < px(160.0f)) width = px(160.0f);
    // The width is set, the height fits the text.
    ImGui::SetNextWindowPos(ImVec2(pad, bottom - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.35f);
    if (ImGui::Begin("##caption", nullptr, overlay_flags & ~ImGuiWindowFlags_AlwaysAutoResize)) {
        top = ImGui::GetWindowPos().y;
        ImGui::PushTextWrapPos(0.0f);
        if (has_title) {
            // Larger and in white, a title: not the amber of a warning.
            ImGui::PushFont(ui_look.large);
            ImGui::TextUnformatted(title);
            ImGui::PopFont();
            const size_t used = strlen(m->readout.hud);
            snprintf(m->readout.hud + used, sizeof m->readout.hud - used, "%s%s", used ? "  " : "", title);
        }
        if (has_about) {
            ImGui::TextUnformatted(about);
            const size_t used = strlen(m->readout.hud);
            snprintf(m->readout.hud + used, sizeof m->readout.hud - used, "%s%s", used ? "  " : "", about);
        }
        if (m->readout.caption_source && m->readout.caption_source[0])
            ImGui::TextColored(ImVec4(0.7f, 0.7f, 0.7f, 0.9f), "%s", m->readout.caption_source);
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
    return top;
}
