// The HUD, top left: the rates, the run and its messages. The lecture layout puts the rate the
// ladder is about in huge type and writes less, larger.
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ui/ui_internal.h"

// The HUD's right edge, on screen: clear of the panel (at 640x360 the panel takes half the
// screen), no nearer its left edge than a short line.
static float hud_right(void)
{
    const float left = ImGui::GetWindowPos().x + ImGui::GetStyle().WindowPadding.x, right = ui_left_of_panel(px(10.0f));
    return right - left > px(120.0f) ? right - ImGui::GetStyle().WindowPadding.x : left + px(120.0f);
}

// Draws text from p to end as one piece.
static void hud_piece(const ImVec4 *color, const char *p, const char *end)
{
    if (color) ImGui::TextColored(*color, "%.*s", (int)(end - p), p);
    else ImGui::TextUnformatted(p, end);
}

// Draws a line of the HUD inside its room: a line that runs past it breaks at its gaps of three
// spaces (the HUD's own separators), as many parts a line as fit, and a piece put on the same line
// as the one before (SameLine) starts a line of its own where it does not fit. A part wider than
// the room alone is wrapped by ImGui (hud_begin's wrap).
static void hud_draw(const ImVec4 *color, const char *line)
{
    const float right = hud_right(), start = ImGui::GetWindowPos().x + ImGui::GetStyle().WindowPadding.x;
    const char *p = line;
    while (*p) {
        float x = ImGui::GetCursorScreenPos().x;
        const char *end = p + strlen(p);
        if (x + ImGui::CalcTextSize(p, end).x > right) {
            if (x > start + 0.5f) { // after SameLine: this piece goes on a line of its own
                ImGui::NewLine();
                x = start;
                while (*p == ' ') p++;
                continue;
            }
            // The most whole parts that fit, or the first part alone.
            const char *fits = nullptr;
            for (const char *gap = strstr(p, "   "); gap; gap = strstr(gap + 3, "   ")) {
                if (gap == p) continue;
                if (fits && x + ImGui::CalcTextSize(p, gap).x > right) break;
                fits = gap;
                if (x + ImGui::CalcTextSize(p, gap).x > right) break;
            }
            if (fits) end = fits;
        }
        hud_piece(color, p, end);
        p = end;
        while (*p == ' ') p++;
    }
}

// A line of the HUD, drawn (in color, where given) and added to m->readout.hud for the readout.
static void hud_text(UiModel *m, const ImVec4 *color, const char *format, ...)
{
    char line[160];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    hud_draw(color, line);
    const size_t used = strlen(m->readout.hud);
    snprintf(m->readout.hud + used, sizeof m->readout.hud - used, "%s%s", used ? "  " : "", line);
}

// The backend and the device it runs on, each said once: "cuda  NVIDIA H100", but the CPU
// backend's device already names it ("CPU, 2 threads").
static const char *backend_device(const UiModel *m, char *buf, size_t len)
{
    const char *backend = m->readout.backend ? m->readout.backend : "?", *device = m->readout.device ? m->readout.device : "";
    const size_t n = strlen(backend);
    if (n > 0 && strncasecmp(device, backend, n) == 0 && !isalnum((unsigned char)device[n])) return device;
    if (m->readout.gpus > 1) snprintf(buf, len, "%s  %d x %s", backend, m->readout.gpus, device);
    else snprintf(buf, len, "%s  %s", backend, device);
    return buf;
}

// What the run needs said now: a flag the hall can read (a run gone wrong, and the key that
// mends it), then the latest message, fading out.
static void hud_messages(const UiModel *m, float wrap)
{
    ImGui::PushTextWrapPos(wrap);
    if (m->readout.alarm) {
        ImGui::PushFont(ui_look.lecture ? ui_look.huge : ui_look.large);
        ImGui::TextColored(alarm_color, "%s", m->readout.alarm);
        ImGui::PopFont();
    }
    if (m->readout.notice && m->readout.notice_alpha > 0) {
        ImVec4 c = notice_color;
        c.w = m->readout.notice_alpha;
        ImGui::TextColored(c, "%s", m->readout.notice);
    }
    ImGui::PopTextWrapPos();
}

// Text that hud_draw cannot break wraps at the HUD's right edge; the wrapping's x in the HUD
// window's own coordinates, returned for the messages' narrower one. The HUD's box goes into the
// readout, where a test checks that the panel leaves it clear.
static float hud_begin(void)
{
    const float wrap = hud_right() - ImGui::GetWindowPos().x;
    ImGui::PushTextWrapPos(wrap);
    return wrap;
}

static void hud_end(UiModel *m)
{
    ImGui::PopTextWrapPos();
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ui_note_rect(m, "hud", at, ImVec2(at.x + size.x, at.y + size.y));
}

// A disk heated at constant energy, flagged beside dE/E0 (heating_panel.cpp).
static void hud_heating(UiModel *m)
{
    char text[64];
    ImVec4 color;
    if (!ui_heating_flag(m, text, sizeof text, &color)) return;
    ImGui::SameLine();
    hud_text(m, &color, "  %s", text);
}

void ui_hud(UiModel *m)
{
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, pad), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.35f);
    if (ImGui::Begin("##hud", nullptr, overlay_flags)) {
        const float wrap = hud_begin();
        hud_text(m, nullptr, "%.0f fps (%.1f ms)", m->readout.fps, m->readout.fps > 0 ? 1000.0 / m->readout.fps : 0.0);
        char rate[32], flops[32], steps[32];
        // A tree sums far fewer pairs: its rates are those of the N^2 sum it stands for, and say so.
        hud_text(m, nullptr, "%s   %s interactions/s   %s%s", ui_steps_per_s(m->readout.steps_per_s, steps, sizeof steps),
                    ui_compact_exp(m->readout.interactions_per_s, rate, sizeof rate),
                    ui_flops(m->readout.gflops, flops, sizeof flops), m->readout.tree ? " (N^2 equivalent)" : "");
        char both[128];
        hud_text(m, nullptr, "N %d   %s", m->readout.bodies, backend_device(m, both, sizeof both));
        if (m->readout.field_halos > 0) {
            // Every body a star; dE/E0 counts what the halos' friction took out.
            ImGui::SameLine();
            hud_text(m, nullptr, "  + %d halo field%s", m->readout.field_halos, m->readout.field_halos == 1 ? "" : "s");
        }
        if (m->readout.cuda && m->readout.kernel_name && !m->readout.method) {
            ImGui::SameLine();
            hud_text(m, nullptr, "  kernel %s", m->readout.kernel_name);
        }
        if (m->readout.method) hud_text(m, nullptr, "%s", m->readout.method);
        hud_text(m, nullptr, "%s", m->readout.time_text[0] ? m->readout.time_text : "t ?");
        if (m->readout.energy_valid) {
            ImGui::SameLine();
            hud_text(m, nullptr, "  dE/E0 %+.2e", m->readout.energy_error);
            if (m->controls.damping < 1.0f) {
                ImGui::SameLine();
                hud_text(m, &warning_color, "(damped: not conservative)");
            }
        }
        hud_heating(m);
        if (m->readout.orbit_text[0]) hud_text(m, nullptr, "%s", m->readout.orbit_text);
        const float messages = ImGui::GetIO().DisplaySize.x * 0.45f;
        hud_messages(m, messages < wrap ? messages : wrap);
        hud_end(m);
    }
    ImGui::End();
}

// The lecture HUD: the rate the ladder is about in huge type, read from the back of a hall.
void ui_lecture_hud(UiModel *m)
{
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, pad), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.45f);
    if (ImGui::Begin("##hud", nullptr, overlay_flags)) {
        const float wrap = hud_begin();
        char text[48];
        ImGui::PushFont(ui_look.huge);
        hud_text(m, nullptr, "%s", ui_compact_exp(m->readout.interactions_per_s, text, sizeof text));
        ImGui::PopFont();
        // The unit sits on the big number's baseline.
        ImGui::SameLine();
        ImGui::SetCursorPosY(ImGui::GetCursorPosY() + ui_look.huge->Ascent - ImGui::GetFont()->Ascent);
        hud_text(m, nullptr, "%s", m->readout.tree ? "N^2-equivalent interactions/s" : "interactions/s");
        char steps[32];
        hud_text(m, nullptr, "%s   %s   %.0f fps", ui_flops(m->readout.gflops, text, sizeof text),
                    ui_steps_per_s(m->readout.steps_per_s, steps, sizeof steps), m->readout.fps);
        if ((m->readout.cuda && m->readout.kernel_name) || m->readout.tree) {
            hud_text(m, &accent_color, "%s", m->readout.fmm ? "fmm" : m->readout.tree ? "tree" : m->readout.kernel_name);
            ImGui::SameLine();
        }
        hud_text(m, nullptr, "N %s   %s", ui_grouped(m->readout.bodies, text, sizeof text), m->readout.device ? m->readout.device : "");
        // Read from the back of the hall: full brightness, not the dim grey of secondary text.
        hud_text(m, nullptr, "%s", m->readout.time_text[0] ? m->readout.time_text : "t ?");
        if (m->readout.energy_valid) {
            ImGui::SameLine();
            hud_text(m, nullptr, "  dE/E0 %+.1e", m->readout.energy_error);
            if (m->controls.damping < 1.0f) {
                ImGui::SameLine();
                hud_text(m, &warning_color, "  (damped)");
            }
        }
        hud_heating(m);
        if (m->readout.orbit_text[0]) hud_text(m, nullptr, "%s", m->readout.orbit_text);
        const float messages = ImGui::GetIO().DisplaySize.x * 0.5f;
        hud_messages(m, messages < wrap ? messages : wrap);
        hud_end(m);
    }
    ImGui::End();
}
