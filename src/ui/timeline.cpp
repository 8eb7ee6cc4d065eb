// The run's timeline, bottom left under the view: while --open's series is read, how far ("Reading
// snapshot 3 of 40: snap_0002.tipsy"); where the view stands ("t 312 Myr of 1.20 Gyr,
// keyframe 37/120, every 4 steps") over a slider of the keyframes kept. Moving the slider raises
// timeline_seek with the keyframe; the app shows it. Left of the panel as it was last drawn; it
// shows with the rest of the UI (the readout has its line as timeline_text). Returns its top edge
// (the caption goes above it).
#include <imgui_internal.h>

#include "ui/ui_internal.h"

float ui_timeline(UiModel *m)
{
    const ImGuiIO &io = ImGui::GetIO();
    if (!m->readout.timeline_text[0]) return io.DisplaySize.y;
    const float pad = px(10.0f);
    float width = ui_left_of_panel(pad) - pad;
    if (width < px(200.0f)) width = px(200.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, io.DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.35f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                   ImGuiWindowFlags_NoMove;
    float top = io.DisplaySize.y;
    if (ImGui::Begin("##timeline", nullptr, flags)) {
        top = ImGui::GetWindowPos().y;
        // The lines wrap at the window's width (left of a panel that takes half of a 640x360 screen).
        ImGui::PushTextWrapPos(0.0f);
        if (m->readout.timeline_reading[0]) ImGui::TextUnformatted(m->readout.timeline_reading);
        ImGui::TextUnformatted(m->readout.timeline_text);
        ImGui::PopTextWrapPos();
        if (m->readout.timeline_count >= 2) {
            // One-based, as the line above counts; the run as it goes stands on the last.
            int at = (m->readout.timeline_view >= 0 ? m->readout.timeline_view : m->readout.timeline_count - 1) + 1;
            ImGui::PushItemWidth(-ImGui::CalcTextSize("timeline").x - ImGui::GetStyle().ItemInnerSpacing.x);
            // A press on it shows the keyframe under the handle (the run pauses there), a drag each
            // one it passes.
            const bool moved = ui_slider_int(m, "timeline", &at, 1, m->readout.timeline_count, "keyframe %d");
            if (moved || ImGui::IsItemActivated()) {
                m->actions.timeline_seek = true;
                m->actions.timeline_to = at - 1;
            }
            ui_note_widget(m, "timeline", true);
            ImGui::PopItemWidth();
        }
    }
    ImGui::End();
    return top;
}
