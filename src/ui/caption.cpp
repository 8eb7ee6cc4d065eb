// The caption, bottom left: what the encounter on screen is and what to watch for, with the work
// it follows beneath in smaller, dimmer type. It stays while its preset runs, and joins the HUD's
// lines in m->hud for the readout.
#include <stdio.h>
#include <string.h>

#include "ui/ui_internal.h"

void ui_caption(UiModel *m)
{
    if (!m->caption || !m->caption[0]) return;
    const ImGuiIO &io = ImGui::GetIO();
    const float pad = px(10.0f), width = io.DisplaySize.x * 0.55f;
    ImGui::SetNextWindowPos(ImVec2(pad, io.DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.35f);
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(width, io.DisplaySize.y * 0.4f));
    if (ImGui::Begin("##caption", nullptr, overlay_flags)) {
        ImGui::PushTextWrapPos(width - pad);
        ImGui::TextUnformatted(m->caption);
        const size_t used = strlen(m->hud);
        snprintf(m->hud + used, sizeof m->hud - used, "%s%s", used ? "  " : "", m->caption);
        if (m->caption_source && m->caption_source[0])
            ImGui::TextColored(ImVec4(0.7f, 0.7f, 0.7f, 0.9f), "%s", m->caption_source);
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
}
