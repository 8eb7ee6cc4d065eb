// The kernel ladder: one bar per rung, the direct kernels then the tree, with the rung that runs
// in the accent colour, and the launch shape of the kernel that runs. In the panel's section, or
// in lecture mode a window of its own.
#include <math.h>
#include <stdio.h>

#include "ui/ui_internal.h"

int ui_active_kernel(const UiModel *m) { return m->controls.kernel == UI_KERNEL_DEFAULT ? m->names.kernel_auto : m->controls.kernel; }

// The rung that runs now: the tree, or the direct kernel.
static int active_rung(const UiModel *m) { return m->readout.tree ? UI_RUNG_TREE : ui_active_kernel(m); }

static const char *rung_name(const UiModel *m, int r) { return r == UI_RUNG_TREE ? "tree" : ui_name(m->names.kernel, UI_KERNELS, r); }

// One row per rung of the ladder: a radio button, and a bar of its measured rate on a linear
// scale. Linear, because the story is the factor between the rungs: a log scale would make
// naive's 2 % of mtpb look like half of it. The factor over naive is written beside the rate.
// The last rung, the tree, does not evaluate N^2 interactions: its bar is N^2 over its step time,
// the rate a direct kernel would need to keep up, and the line under it says what it evaluates.
static void ladder_bars(UiModel *m, float track_width)
{
    const int active = active_rung(m);
    double top = 0;
    for (int k = UI_KERNEL_FIRST; k < UI_RUNGS; k++) top = fmax(top, m->readout.ladder_rate[k]);
    const double naive = m->readout.ladder_rate[UI_KERNEL_FIRST];
    const ImGuiStyle &style = ImGui::GetStyle();
    float widest = 0;
    for (int k = UI_KERNEL_FIRST; k < UI_KERNELS; k++) widest = fmaxf(widest, ImGui::CalcTextSize(rung_name(m, k)).x);
    const float name_width = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + widest + style.ItemSpacing.x;
    ImDrawList *dl = ImGui::GetWindowDrawList();
    const ImU32 track = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImU32 bar = IM_COL32(90, 140, 200, 255), bar_active = ImGui::GetColorU32(accent_color);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const bool has_times = ImGui::GetFont()->FindGlyphNoFallback(0xD7) != nullptr; // the multiplication sign
    for (int k = UI_KERNEL_FIRST; k < UI_RUNGS; k++) {
        ImGui::PushID(k);
        const float x0 = ImGui::GetCursorPosX();
        bool picked = ImGui::RadioButton(rung_name(m, k), k == active);
        ImGui::SameLine(x0 + name_width);
        const ImVec2 p = ImGui::GetCursorScreenPos(), size(track_width, ImGui::GetFrameHeight());
        picked |= ImGui::InvisibleButton("bar", size);
        if (picked && k != active) {
            if (k == UI_RUNG_TREE) {
                m->actions.ladder_force = UI_FORCE_TREE;
            } else {
                m->controls.kernel = k;
                if (m->readout.tree) m->actions.ladder_force = UI_FORCE_DIRECT;
            }
        }
        const float rounding = style.FrameRounding;
        dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), track, rounding);
        const double rate = m->readout.ladder_rate[k];
        const float gap = style.ItemInnerSpacing.x, ty = p.y + style.FramePadding.y;
        char label[64], r[32];
        if (rate > 0 && top > 0) {
            float w = (float)(rate / top) * size.x;
            if (w < 2.0f) w = 2.0f;
            dl->AddRectFilled(p, ImVec2(p.x + w, p.y + size.y), k == active ? bar_active : bar, rounding);
            // The label goes after the bar, else inside it; without the factor where neither fits.
            const int len = snprintf(label, sizeof label, "%s/s", ui_compact_exp(rate, r, sizeof r));
            if (naive > 0 && len > 0)
                snprintf(label + len, sizeof label - (size_t)len, has_times ? "  \xc3\x97%.0f" : "  x%.0f", rate / naive);
            for (int pass = 0; pass < 2; pass++) {
                const float tw = ImGui::CalcTextSize(label).x;
                if (w + gap + tw <= size.x) {
                    dl->AddText(ImVec2(p.x + w + gap, ty), text, label);
                    break;
                }
                if (tw + 2 * gap <= w || pass == 1) {
                    dl->AddText(ImVec2(fmaxf(p.x + gap, p.x + w - gap - tw), ty), IM_COL32(20, 20, 20, 255), label);
                    break;
                }
                label[len] = '\0';
            }
        } else {
            dl->AddText(ImVec2(p.x + gap, ty), dim, k == active ? "measuring..." : "not measured: pick it to run it");
        }
        ImGui::PopID();
    }
    if (m->readout.ladder_rate[UI_RUNG_TREE] > 0 && m->readout.ladder_tree_per_body > 0) {
        char per_body[24], n[24];
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + name_width);
        ImGui::TextDisabled("tree: %s a body for %s", ui_grouped((int)lround(m->readout.ladder_tree_per_body), per_body, sizeof per_body),
                            ui_grouped(m->readout.bodies, n, sizeof n));
    }
}

static void shape_controls(UiModel *m)
{
    static const int q_choices[] = {0, 1, 2, 4, 8, 16, 32};
    static const int block_choices[] = {0, 64, 128, 256, 512, 1024};
    ImGui::BeginDisabled(ui_active_kernel(m) != m->names.kernel_split);
    if (ui_choice_slider(m, "threads per body", &m->controls.threads_per_body, q_choices, IM_ARRAYSIZE(q_choices)))
        m->actions.apply_shape = true;
    ImGui::EndDisabled();
    // The symmetric kernel's blocks are part of its design: 8 warps that share a task.
    ImGui::BeginDisabled(ui_active_kernel(m) == m->names.kernel_own_block);
    if (ui_choice_slider(m, "block size", &m->controls.block_size, block_choices, IM_ARRAYSIZE(block_choices)))
        m->actions.apply_shape = true;
    ImGui::EndDisabled();
    if (m->readout.shape_block > 0) {
        if (ui_active_kernel(m) == m->names.kernel_split) ImGui::TextDisabled("running: q %d, block %d", m->readout.shape_q, m->readout.shape_block);
        else ImGui::TextDisabled("running: block %d", m->readout.shape_block);
    }
}

void ui_ladder_contents(UiModel *m, float track_width)
{
    char n[24];
    const bool has_square = ImGui::GetFont()->FindGlyphNoFallback(0xB2) != nullptr; // superscript two
    if (m->readout.ladder_rate[UI_RUNG_TREE] > 0)
        ImGui::TextDisabled("interactions/s at N = %s (the tree: %s / step time)", ui_grouped(m->readout.bodies, n, sizeof n),
                            has_square ? "N\xc2\xb2" : "N^2");
    else
        ImGui::TextDisabled("interactions/s at N = %s", ui_grouped(m->readout.bodies, n, sizeof n));
    ladder_bars(m, track_width);
    if (m->readout.ladder_touring != UI_KERNEL_DEFAULT)
        ImGui::TextDisabled("timing %s...", rung_name(m, m->readout.ladder_touring));
    else if (ImGui::Button("Time every rung (K)"))
        m->actions.measure_ladder = true;
    ImGui::Spacing();
    shape_controls(m);
}

// Lecture mode: the ladder in a window of its own, bottom left, clear of the HUD and panel. The
// CPU backend has one kernel: no ladder.
void ui_ladder_window(UiModel *m)
{
    if (!m->readout.cuda) return;
    const ImGuiIO &io = ImGui::GetIO();
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, io.DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.6f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Kernel ladder", nullptr, flags)) {
        const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        ui_note_rect(m, "ladder window", at, ImVec2(at.x + size.x, at.y + size.y)); // its controls are not the panel's
        ImGui::PushItemWidth(px(180.0f));
        ui_ladder_contents(m, fminf(fmaxf(io.DisplaySize.x * 0.3f, px(140.0f)), px(260.0f)));
        ImGui::PopItemWidth();
    }
    ImGui::End();
}
