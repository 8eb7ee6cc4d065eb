// The C API of ui.h over Dear ImGui: it draws the model and writes the user's edits back into
// it; what the edits mean is the app's business. With no window (headless) ImGui gets no input
// and takes the size of the current GL viewport.
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern "C" {
#include "render/capture.h"
}
#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/sim.h"
#include "ui/ui.h"

// Lecture mode: type and spacing this many times their normal size.
#define LECTURE_SCALE 2.0f

// ImGui keeps one global context, so the bridge's few facts about it are global too.
static struct {
    bool created;
    bool glfw; // the GLFW backend feeds input and the display size
    float scale;
    bool lecture;               // the mode the style and fonts are set for
    bool mode_changed;          // the Controls window has yet to fold or unfold for it
    ImFont *normal, *large, *huge;
    ImGuiStyle normal_style, lecture_style;
} ui;

static const ImVec4 notice_color(1.0f, 0.85f, 0.2f, 1.0f);
static const ImVec4 warning_color(1.0f, 0.55f, 0.3f, 1.0f);

// DejaVu Sans where the system has it (Debian's fonts-dejavu-core and the like): large type and
// figures read better in it. Otherwise the built-in font, at a whole multiple of its 13 pixels
// so that its pixel-art glyphs stay sharp.
static ImFont *add_font(ImFontAtlas *atlas, const char *file, float px)
{
    static const char *const dirs[] = {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF",
                                       "/usr/share/fonts/dejavu-sans-fonts", "/usr/share/fonts/dejavu"};
    char path[256];
    for (const char *dir : dirs) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (access(path, R_OK) == 0) {
            ImFont *f = atlas->AddFontFromFileTTF(path, px);
            if (f) return f;
        }
    }
    ImFontConfig c;
    c.SizePixels = 13.0f * fmaxf(1.0f, roundf(px / 13.0f));
    return atlas->AddFontDefault(&c);
}

extern "C" bool ui_create(GLFWwindow *window, float font_scale)
{
    if (ui.created) return true;
    if (!(font_scale > 0)) {
        float y = 1.0f;
        if (window) glfwGetWindowContentScale(window, &font_scale, &y);
        if (!(font_scale > 0)) font_scale = 1.0f;
    }
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = nullptr; // no imgui.ini left in the working folder
    ImGui::StyleColorsDark();
    ImGuiStyle &style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.ScaleAllSizes(font_scale);
    ui.normal_style = style;
    ui.lecture_style = style;
    ui.lecture_style.ScaleAllSizes(LECTURE_SCALE);
    // Every size is rasterised as such: sharper than FontGlobalScale, and switching modes
    // rebuilds nothing.
    ImFontConfig font;
    font.SizePixels = 13.0f * font_scale;
    ui.normal = io.Fonts->AddFontDefault(&font);
    ui.large = add_font(io.Fonts, "DejaVuSans.ttf", 13.0f * LECTURE_SCALE * font_scale);
    ui.huge = add_font(io.Fonts, "DejaVuSans-Bold.ttf", 13.0f * 1.8f * LECTURE_SCALE * font_scale);
    io.FontDefault = ui.normal;
    ui.lecture = false;

    if (window && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
        ImGui::DestroyContext();
        return false;
    }
    if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
        if (window) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
        return false;
    }
    ui.created = true;
    ui.glfw = window != nullptr;
    ui.scale = font_scale;
    return true;
}

extern "C" void ui_destroy(void)
{
    if (!ui.created) return;
    ImGui_ImplOpenGL3_Shutdown();
    if (ui.glfw) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    ui.created = false;
}

// "1.95e12": printf's exponent without its plus sign and leading zeros.
static const char *compact_exp(double x, char *buf, size_t len)
{
    snprintf(buf, len, "%.2e", x);
    char *e = strchr(buf, 'e');
    if (!e) return buf;
    char *from = e + 1, *to = e + 1;
    if (*from == '+') from++;
    else if (*from == '-') *to++ = *from++;
    while (from[0] == '0' && from[1]) from++;
    memmove(to, from, strlen(from) + 1);
    return buf;
}

// Sizes in the units of the current mode: pixels at normal scale, larger in lecture mode.
static float px(float v) { return v * ui.scale * (ui.lecture ? LECTURE_SCALE : 1.0f); }

// "131,072".
static const char *grouped(int n, char *buf, size_t len)
{
    char digits[16];
    int d = snprintf(digits, sizeof digits, "%d", n < 0 ? -n : n), o = 0;
    if (n < 0 && o + 1 < (int)len) buf[o++] = '-';
    for (int i = 0; i < d && o + 2 < (int)len; i++) {
        if (i > 0 && (d - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static const ImGuiWindowFlags overlay_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                              ImGuiWindowFlags_NoSavedSettings |
                                              ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                              ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;

// "1 step/s", "2 steps/s": the unit's noun agrees with the rounded figure.
static const char *per_s(double rate, const char *one, const char *many) { return lround(rate) == 1 ? one : many; }

static const ImVec4 alarm_color(1.0f, 0.35f, 0.3f, 1.0f);

// What the run needs said now: a flag the hall can read (a run gone wrong, and the key that
// mends it), then the latest message, fading out.
static void hud_messages(const UiModel *m, float wrap)
{
    ImGui::PushTextWrapPos(wrap);
    if (m->alarm) {
        ImGui::PushFont(ui.lecture ? ui.huge : ui.large);
        ImGui::TextColored(alarm_color, "%s", m->alarm);
        ImGui::PopFont();
    }
    if (m->notice && m->notice_alpha > 0) {
        ImVec4 c = notice_color;
        c.w = m->notice_alpha;
        ImGui::TextColored(c, "%s", m->notice);
    }
    ImGui::PopTextWrapPos();
}

static void hud(const UiModel *m)
{
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, pad), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.35f);
    if (ImGui::Begin("##hud", nullptr, overlay_flags)) {
        ImGui::Text("%.0f fps (%.1f ms)", m->fps, m->fps > 0 ? 1000.0 / m->fps : 0.0);
        char rate[32];
        ImGui::Text("%.0f %s   %s interactions/s   %.1f GFLOP/s", m->steps_per_s,
                    per_s(m->steps_per_s, "step/s", "steps/s"), compact_exp(m->interactions_per_s, rate, sizeof rate),
                    m->gflops);
        ImGui::Text("N %d   %s  %s", m->bodies, m->backend ? m->backend : "?", m->device ? m->device : "");
        if (m->cuda && m->kernel_name) {
            ImGui::SameLine();
            ImGui::Text("  kernel %s", m->kernel_name);
        }
        ImGui::Text("t %.3f", m->sim_time);
        if (m->energy_valid) {
            ImGui::SameLine();
            ImGui::Text("  dE/E0 %+.2e", m->energy_error);
            if (m->damping < 1.0f) {
                ImGui::SameLine();
                ImGui::TextColored(warning_color, "(damped: not conservative)");
            }
        }
        hud_messages(m, ImGui::GetIO().DisplaySize.x * 0.45f);
    }
    ImGui::End();
}

static const ImVec4 accent_color(1.0f, 0.72f, 0.25f, 1.0f);

// The lecture HUD: the rate the ladder is about in huge type, read from the back of a hall.
static void lecture_hud(const UiModel *m)
{
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, pad), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.45f);
    if (ImGui::Begin("##hud", nullptr, overlay_flags)) {
        char text[48];
        ImGui::PushFont(ui.huge);
        ImGui::TextUnformatted(compact_exp(m->interactions_per_s, text, sizeof text));
        ImGui::PopFont();
        // The unit sits on the big number's baseline.
        ImGui::SameLine();
        ImGui::SetCursorPosY(ImGui::GetCursorPosY() + ui.huge->Ascent - ImGui::GetFont()->Ascent);
        ImGui::TextUnformatted("interactions/s");
        if (m->gflops >= 1000) snprintf(text, sizeof text, "%.1f TFLOP/s", m->gflops * 1e-3);
        else snprintf(text, sizeof text, "%.1f GFLOP/s", m->gflops);
        ImGui::Text("%s   %.0f %s   %.0f fps", text, m->steps_per_s, per_s(m->steps_per_s, "step/s", "steps/s"),
                    m->fps);
        if (m->cuda && m->kernel_name) {
            ImGui::TextColored(accent_color, "%s", m->kernel_name);
            ImGui::SameLine();
        }
        ImGui::Text("N %s   %s", grouped(m->bodies, text, sizeof text), m->device ? m->device : "");
        // Read from the back of the hall: full brightness, not the dim grey of secondary text.
        ImGui::Text("t %.2f", m->sim_time);
        if (m->energy_valid) {
            ImGui::SameLine();
            ImGui::Text("  dE/E0 %+.1e", m->energy_error);
            if (m->damping < 1.0f) {
                ImGui::SameLine();
                ImGui::TextColored(warning_color, "  (damped)");
            }
        }
        hud_messages(m, ImGui::GetIO().DisplaySize.x * 0.5f);
    }
    ImGui::End();
}

static int active_kernel(const UiModel *m) { return m->kernel == SIM_KERNEL_DEFAULT ? SIM_KERNEL_SYMMETRIC : m->kernel; }

// One row per kernel of the ladder: a radio button, and a bar of its measured rate on a linear
// scale. Linear, because the story is the factor between the rungs: a log scale would make
// naive's 2 % of mtpb look like half of it. The factor over naive is written beside the rate.
static void ladder_bars(UiModel *m, float track_width)
{
    const int active = active_kernel(m);
    double top = 0;
    for (int k = SIM_KERNEL_NAIVE; k < SIM_KERNEL_COUNT; k++) top = fmax(top, m->ladder_rate[k]);
    const double naive = m->ladder_rate[SIM_KERNEL_NAIVE];
    const ImGuiStyle &style = ImGui::GetStyle();
    const float name_width = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x +
                             ImGui::CalcTextSize(sim_kernel_name(SIM_KERNEL_TILED_UNROLLED)).x + style.ItemSpacing.x;
    ImDrawList *dl = ImGui::GetWindowDrawList();
    const ImU32 track = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImU32 bar = IM_COL32(90, 140, 200, 255), bar_active = ImGui::GetColorU32(accent_color);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const bool has_times = ImGui::GetFont()->FindGlyphNoFallback(0xD7) != nullptr; // the multiplication sign
    for (int k = SIM_KERNEL_NAIVE; k < SIM_KERNEL_COUNT; k++) {
        ImGui::PushID(k);
        const float x0 = ImGui::GetCursorPosX();
        if (ImGui::RadioButton(sim_kernel_name((SimKernel)k), k == active)) m->kernel = k;
        ImGui::SameLine(x0 + name_width);
        const ImVec2 p = ImGui::GetCursorScreenPos(), size(track_width, ImGui::GetFrameHeight());
        if (ImGui::InvisibleButton("bar", size)) m->kernel = k;
        const float rounding = style.FrameRounding;
        dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), track, rounding);
        const double rate = m->ladder_rate[k];
        const float gap = style.ItemInnerSpacing.x, ty = p.y + style.FramePadding.y;
        char label[64], r[32];
        if (rate > 0 && top > 0) {
            float w = (float)(rate / top) * size.x;
            if (w < 2.0f) w = 2.0f;
            dl->AddRectFilled(p, ImVec2(p.x + w, p.y + size.y), k == active ? bar_active : bar, rounding);
            // The label goes after the bar, else inside it; without the factor where neither fits.
            const int len = snprintf(label, sizeof label, "%s/s", compact_exp(rate, r, sizeof r));
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
}

// Power-of-two choices with 0 = auto, on a slider of their index.
static bool choice_slider(const char *label, int *value, const int *choices, int count)
{
    int i = 0;
    while (i < count && choices[i] != *value) i++;
    if (i == count) i = 0;
    char shown[16];
    if (choices[i] == 0) snprintf(shown, sizeof shown, "auto");
    else snprintf(shown, sizeof shown, "%d", choices[i]);
    if (!ImGui::SliderInt(label, &i, 0, count - 1, shown, ImGuiSliderFlags_NoInput)) return false;
    *value = choices[i];
    return true;
}

static void shape_controls(UiModel *m)
{
    static const int q_choices[] = {0, 1, 2, 4, 8, 16, 32};
    static const int block_choices[] = {0, 64, 128, 256, 512, 1024};
    ImGui::BeginDisabled(active_kernel(m) != SIM_KERNEL_MTPB);
    if (choice_slider("threads per body", &m->threads_per_body, q_choices, IM_ARRAYSIZE(q_choices)))
        m->apply_shape = true;
    ImGui::EndDisabled();
    // The symmetric kernel's blocks are part of its design: 8 warps that share a task.
    ImGui::BeginDisabled(active_kernel(m) == SIM_KERNEL_SYMMETRIC);
    if (choice_slider("block size", &m->block_size, block_choices, IM_ARRAYSIZE(block_choices)))
        m->apply_shape = true;
    ImGui::EndDisabled();
    if (m->shape_block > 0) {
        if (active_kernel(m) == SIM_KERNEL_MTPB) ImGui::TextDisabled("running: q %d, block %d", m->shape_q, m->shape_block);
        else ImGui::TextDisabled("running: block %d", m->shape_block);
    }
}

static void ladder_contents(UiModel *m, float track_width)
{
    char n[24];
    ImGui::TextDisabled("interactions/s at N = %s", grouped(m->bodies, n, sizeof n));
    ladder_bars(m, track_width);
    if (m->ladder_touring != SIM_KERNEL_DEFAULT)
        ImGui::TextDisabled("timing %s...", sim_kernel_name((SimKernel)m->ladder_touring));
    else if (ImGui::Button("Time every rung (K)"))
        m->measure_ladder = true;
    ImGui::Spacing();
    shape_controls(m);
}

// Lecture mode: the ladder in a window of its own, bottom left, clear of the HUD and panel. The
// CPU backend has one kernel: no ladder.
static void ladder_window(UiModel *m)
{
    if (!m->cuda) return;
    const ImGuiIO &io = ImGui::GetIO();
    const float pad = px(10.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, io.DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.6f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Kernel ladder", nullptr, flags)) {
        ImGui::PushItemWidth(px(180.0f));
        ladder_contents(m, fminf(fmaxf(io.DisplaySize.x * 0.3f, px(140.0f)), px(260.0f)));
        ImGui::PopItemWidth();
    }
    ImGui::End();
}

// Sliders whose handle maps onto the value by a rule of ours. ImGui 1.86's logarithmic slider
// takes its zero cut-off from the display format's precision: with "%e" the cut-off was 10, so
// any click set dt or softening to 10. Here the slider moves a position t in [0, 1] and the
// rule turns it into the value, so every value of the range is a handle position away.
typedef enum SliderRule {
    RULE_LOG,     // lo .. hi, equal ratios per pixel
    RULE_DAMPING, // 1 - 10^-x for x from -log10(1 - lo) to 6, and 1 (off) at the right end
} SliderRule;

typedef struct SliderSpec {
    SliderRule rule;
    float lo, hi;
} SliderSpec;

#define DAMPING_FINEST 6.0f // 1 - 1e-6: the closest to 1 before off

static float slider_t(const SliderSpec *s, float v)
{
    float t;
    if (s->rule == RULE_DAMPING) {
        if (v >= 1.0f) return 1.0f;
        const float x0 = -log10f(1.0f - s->lo), x = -log10f(1.0f - v);
        t = (x - x0) / (DAMPING_FINEST - x0);
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
    return fminf(fmaxf(s->lo * powf(s->hi / s->lo, t), s->lo), s->hi);
}

// Three significant figures ("0.0200", "0.0800", "1.50e-05"); damping with the digits that
// tell its nines apart ("0.9990", "0.999950"), and "1 (off)".
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
    if (v >= 1e-3f && v < 1e4f) {
        int decimals = 2 - (int)floorf(log10f(v));
        snprintf(buf, len, "%.*f", decimals < 0 ? 0 : decimals, v);
    } else {
        snprintf(buf, len, "%.2e", v);
    }
}

// The slider of spec s over *v. Ctrl+click types a value instead (clamped to the range). True
// when *v changed; *began is raised when an edit starts (the value before it is still *v then).
static bool rule_slider(const char *label, float *v, const SliderSpec *s, bool *began)
{
    ImGuiStorage *store = ImGui::GetStateStorage();
    const ImGuiID key = ImGui::GetID(label);
    int *typing = store->GetIntRef(key, 0); // frames since typing began + 1; 0 = sliding
    if (*typing > 0) {
        float *typed = store->GetFloatRef(key + 1, *v);
        ImGui::PushID("typed");
        if (*typing == 1) {
            *typed = *v;
            ImGui::SetKeyboardFocusHere();
        }
        ImGui::InputFloat(label, typed, 0.0f, 0.0f, "%g", ImGuiInputTextFlags_AutoSelectAll);
        const bool done = ImGui::IsItemDeactivated() || (*typing > 3 && !ImGui::IsItemActive());
        const bool edited = ImGui::IsItemDeactivatedAfterEdit();
        ImGui::PopID();
        *typing = done ? 0 : *typing + 1;
        if (!done || !edited || !isfinite(*typed)) return false;
        const float value = fminf(fmaxf(*typed, s->lo), s->hi);
        if (value == *v) return false;
        *began = true;
        *v = value;
        return true;
    }
    char shown[48];
    slider_text(s, *v, shown, sizeof shown);
    float t = slider_t(s, *v);
    const bool moved = ImGui::SliderFloat(label, &t, 0.0f, 1.0f, shown,
                                          ImGuiSliderFlags_NoInput | ImGuiSliderFlags_NoRoundToFormat |
                                              ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemActivated() && ImGui::GetIO().KeyCtrl) {
        *typing = 1; // the click that asked for typing moves nothing
        return false;
    }
    if (ImGui::IsItemActivated()) *began = true;
    if (!moved) return false;
    *v = slider_value(s, t);
    return true;
}

static const SliderSpec dt_spec = {RULE_LOG, 1e-5f, 1e-1f};
static const SliderSpec softening_spec = {RULE_LOG, 1e-4f, 1.0f};
static const SliderSpec damping_spec = {RULE_DAMPING, 0.9f, 1.0f};

// Where a control sits on screen, for the readout that lets tests drive the window by hand.
static void note_widget(UiModel *m, const char *name)
{
    if (m->widget_count >= UI_MAX_WIDGETS) return;
    UiWidget *w = &m->widgets[m->widget_count++];
    snprintf(w->name, sizeof w->name, "%s", name);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    w->x0 = a.x;
    w->y0 = a.y;
    w->x1 = b.x;
    w->y1 = b.y;
}

// The three parameters an edit can be undone for: their values before the edit go with it.
static void parameter_slider(UiModel *m, const char *label, float *v, const SliderSpec *s)
{
    const float dt = m->dt, softening = m->softening, damping = m->damping;
    bool began = false;
    rule_slider(label, v, s, &began);
    note_widget(m, label);
    if (began && !m->edit_began) {
        m->edit_began = true;
        m->before.dt = dt;
        m->before.softening = softening;
        m->before.damping = damping;
    }
}

static void simulation_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    parameter_slider(m, "dt", &m->dt, &dt_spec);
    parameter_slider(m, "softening", &m->softening, &softening_spec);
    parameter_slider(m, "damping", &m->damping, &damping_spec);
    ImGui::SliderInt("steps/frame", &m->steps_per_frame, 1, 64);
    note_widget(m, "steps/frame");
    if (m->cuda) {
        int k = active_kernel(m);
        if (ImGui::BeginCombo("kernel", sim_kernel_name((SimKernel)k))) {
            for (int i = SIM_KERNEL_NAIVE; i < SIM_KERNEL_COUNT; i++)
                if (ImGui::Selectable(sim_kernel_name((SimKernel)i), i == k)) m->kernel = i;
            ImGui::EndCombo();
        }
    }
    if (ImGui::Button(m->paused ? "Resume" : "Pause")) m->paused = !m->paused;
    note_widget(m, "pause");
    ImGui::SameLine();
    ImGui::BeginDisabled(!m->paused);
    if (ImGui::Button("Step")) m->step_once = true;
    note_widget(m, "step");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Reset")) m->reset = true;
    note_widget(m, "reset");
    if (ImGui::Button("Defaults")) m->defaults = true;
    note_widget(m, "defaults");
    ImGui::SameLine();
    ImGui::BeginDisabled(m->undo_depth == 0);
    if (ImGui::Button("Undo")) m->undo = true;
    note_widget(m, "undo");
    ImGui::EndDisabled();
}

static void ladder_section(UiModel *m)
{
    if (!m->cuda || !ImGui::CollapsingHeader("Kernel ladder")) return;
    ladder_contents(m, px(190.0f));
}
static void scene_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("Scene (applied on reset)")) return;
    if (ImGui::BeginCombo("scene", scene_name((SceneKind)m->scene))) {
        for (int k = 0; k < SCENE_TIPSY; k++)
            if (ImGui::Selectable(scene_name((SceneKind)k), k == m->scene)) m->scene = k;
        ImGui::EndCombo();
    }
    if (ImGui::InputInt("bodies", &m->n, 1024, 16384)) {
        if (m->n < 1) m->n = 1;
        if (m->n > 1 << 20) m->n = 1 << 20;
    }
    if (ImGui::InputInt("seed", &m->seed) && m->seed < 0) m->seed = 0;
}

static void presets_section(UiModel *m)
{
    const bool open = ImGui::CollapsingHeader("Presets");
    note_widget(m, "Presets");
    if (!open) return;
    const char *current = m->preset >= 0 && m->preset < m->preset_count ? m->preset_names[m->preset] : "(none)";
    if (ImGui::BeginCombo("preset", current)) {
        for (int i = 0; i < m->preset_count; i++)
            if (ImGui::Selectable(m->preset_names[i], i == m->preset)) {
                m->preset = i;
                m->apply_preset = true;
            }
        ImGui::EndCombo();
    }
    note_widget(m, "preset");
    ImGui::Checkbox("cycle", &m->cycling);
    note_widget(m, "cycle");
    ImGui::SameLine();
    ImGui::PushItemWidth(px(90.0f));
    ImGui::SliderFloat("seconds", &m->cycle_seconds, 5.0f, 300.0f, "%.0f s");
    note_widget(m, "seconds");
    ImGui::PopItemWidth();
    ImGui::InputText("name", m->preset_name, sizeof m->preset_name);
    note_widget(m, "name");
    ImGui::BeginDisabled(m->preset_name[0] == '\0');
    if (ImGui::Button("Save current as preset")) m->save_preset = true;
    note_widget(m, "save preset");
    ImGui::EndDisabled();
}

static void diagnostics_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("Diagnostics")) return;
    const Diagnostics *d = m->diag;
    if (d) {
        ImGui::Text("E %+.6e  (K %.4e, W %.4e)", d->total, d->kinetic, d->potential);
        ImGui::Text("2K/|W| %.4f", d->virial);
        ImGui::Text("P  %+.2e %+.2e %+.2e", d->momentum[0], d->momentum[1], d->momentum[2]);
        ImGui::Text("L  %+.2e %+.2e %+.2e", d->angular_momentum[0], d->angular_momentum[1], d->angular_momentum[2]);
    } else {
        ImGui::TextDisabled("measuring...");
    }
    if (m->energy_history_count > 1) {
        float lo = m->energy_history[0], hi = lo;
        for (int i = 1; i < m->energy_history_count; i++) {
            lo = m->energy_history[i] < lo ? m->energy_history[i] : lo;
            hi = m->energy_history[i] > hi ? m->energy_history[i] : hi;
        }
        // The range above the plot, not inside it, where a narrow plot would cut it.
        ImGui::Text("dE/E0 from %+.1e to %+.1e", lo, hi);
        ImGui::PlotLines("##dE", m->energy_history, m->energy_history_count, 0, nullptr, lo, hi,
                         ImVec2(ImGui::CalcItemWidth(), px(60.0f)));
    }
    if (ImGui::Button("Check forces against f64")) m->check_forces = true;
    if (m->force_check) {
        const ForceCheck *f = m->force_check;
        ImGui::Text("%d bodies: rms %.2e  99.9%% %.2e  worst %.2e", f->samples, f->rms, f->p999, f->worst);
    }
}

static void view_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
    ImGui::SliderFloat("point size", &m->point_size, 0.25f, 8.0f, "%.2f", log);
    note_widget(m, "point size");
    ImGui::SliderFloat("exposure", &m->exposure, 0.05f, 20.0f, "%.2f", log);
    note_widget(m, "exposure");
    if (ImGui::BeginCombo("colour", renderer_color_mode_name((ColorMode)m->color_mode))) {
        for (int c = 0; c < COLOR_MODE_COUNT; c++)
            if (ImGui::Selectable(renderer_color_mode_name((ColorMode)c), c == m->color_mode))
                m->color_mode = c;
        ImGui::EndCombo();
    }
    note_widget(m, "colour");
    ImGui::Checkbox("show halo", &m->show_halo);
    note_widget(m, "show halo");
    ImGui::SameLine();
    ImGui::Checkbox("auto-rotate", &m->auto_rotate);
    note_widget(m, "auto-rotate");
    if (ImGui::Button("Reset camera")) m->reset_camera = true;
    note_widget(m, "reset camera");
}

// Every key the program answers to, as the README lists them.
static const char *const ui_key_lines[] = {
    "space pause   . step   R reset   Backspace defaults",
    "ctrl+Z undo   H hide UI   F full screen   L lecture",
    "A auto-rotate   M colour   D halo   G follow",
    "K time the ladder   [ ] presets   C cycle   Home camera",
    "S save   V record   Esc quit",
    "ctrl+click a slider to type a value",
};

static void panel(UiModel *m)
{
    const float pad = px(10.0f);
    const ImGuiIO &io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - pad, pad), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.75f);
    // Lecture mode folds the panel to its title bar, clear of the galaxies; leaving it unfolds it.
    if (ui.mode_changed) {
        ImGui::SetNextWindowCollapsed(ui.lecture, ImGuiCond_Always);
        ui.mode_changed = false;
    }
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Controls", nullptr, flags)) {
        ImGui::PushItemWidth(px(150.0f));
        simulation_section(m);
        if (!ui.lecture) ladder_section(m);
        scene_section(m);
        presets_section(m);
        view_section(m);
        diagnostics_section(m);
        ImGui::PopItemWidth();
        ImGui::Separator();
        for (const char *line : ui_key_lines) ImGui::TextDisabled("%s", line);
    }
    ImGui::End();
}

static void hint(void)
{
    const float pad = px(6.0f);
    ImGui::SetNextWindowPos(ImVec2(pad, ImGui::GetIO().DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    if (ImGui::Begin("##hint", nullptr, overlay_flags)) ImGui::TextDisabled("H: show UI");
    ImGui::End();
    ImGui::PopStyleVar();
}

// Between frames: the style and default font of the mode asked for.
static void set_mode(bool lecture)
{
    if (lecture == ui.lecture) return;
    ui.mode_changed = true;
    ui.lecture = lecture;
    ImGui::GetStyle() = lecture ? ui.lecture_style : ui.normal_style;
    ImGui::GetIO().FontDefault = lecture ? ui.large : ui.normal;
}

extern "C" void ui_frame(UiModel *m)
{
    if (!ui.created) return;
    m->widget_count = 0;
    set_mode(m->lecture);
    ImGui_ImplOpenGL3_NewFrame();
    if (ui.glfw) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        GLint viewport[4] = {0, 0, 0, 0};
        glGetIntegerv(GL_VIEWPORT, viewport);
        ImGuiIO &io = ImGui::GetIO();
        io.DisplaySize = ImVec2((float)viewport[2], (float)viewport[3]);
        io.DeltaTime = m->fps > 0 ? (float)(1.0 / m->fps) : 1.0f / 60.0f;
    }
    ImGui::NewFrame();
    if (m->visible) {
        if (ui.lecture) {
            lecture_hud(m);
            ladder_window(m);
        } else {
            hud(m);
        }
        panel(m);
    } else {
        hint();
    }
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

extern "C" bool ui_wants_mouse(void) { return ui.created && ImGui::GetIO().WantCaptureMouse; }
extern "C" bool ui_wants_keyboard(void) { return ui.created && ImGui::GetIO().WantCaptureKeyboard; }

// ---- Charts ----
// A chart is drawn with a private ImGui context into a framebuffer of its own: only the draw
// list is used (text, lines, shapes), then ImGui's OpenGL backend renders it and capture.c
// writes the pixels. White background and dark type, as figures on slides and in reports are.

// The first eight of Tableau's ten colours (matplotlib's default cycle): distinct on white.
static const uint8_t chart_palette[UI_CHART_MAX_SERIES][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
};

extern "C" void ui_chart_color(int series, uint8_t rgb[3])
{
    const uint8_t *c = chart_palette[((series % UI_CHART_MAX_SERIES) + UI_CHART_MAX_SERIES) % UI_CHART_MAX_SERIES];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

// The palette slot of series s: its own, or its position.
static int series_slot(const UiChart *c, int s) { return c->series[s].color > 0 ? c->series[s].color - 1 : s; }

static ImU32 series_color(const UiChart *c, int s)
{
    uint8_t rgb[3];
    ui_chart_color(series_slot(c, s), rgb);
    return IM_COL32(rgb[0], rgb[1], rgb[2], 255);
}

typedef struct ChartFonts {
    ImFont *text, *label, *title, *small;
} ChartFonts;

// A tick label: base text and an optional exponent set as a superscript ("10" "12").
typedef struct TickLabel {
    char base[24];
    char exponent[8];
} TickLabel;

typedef struct Tick {
    double value;
    bool major; // labelled, with a darker grid line
    TickLabel label;
} Tick;

#define CHART_MAX_TICKS 96

typedef struct Axis {
    UiAxisScale scale;
    double lo, hi;  // the range shown
    int exponent;   // linear: labels in units of 10^exponent (0 = as they are)
    Tick ticks[CHART_MAX_TICKS];
    int tick_count;
} Axis;

static bool shown_on(UiAxisScale scale, double v) { return isfinite(v) && (scale == UI_AXIS_LINEAR || v > 0); }

static double axis_t(UiAxisScale scale, double v) { return scale == UI_AXIS_LINEAR ? v : log10(v); }
static double axis_inv(UiAxisScale scale, double t) { return scale == UI_AXIS_LINEAR ? t : pow(10.0, t); }

// 0 at lo, 1 at hi.
static double axis_unit(const Axis *a, double v)
{
    double lo = axis_t(a->scale, a->lo), hi = axis_t(a->scale, a->hi);
    return (axis_t(a->scale, v) - lo) / (hi - lo);
}

static void add_tick(Axis *a, double v, bool major)
{
    if (a->tick_count == CHART_MAX_TICKS || v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9)) return;
    Tick *t = &a->ticks[a->tick_count++];
    t->value = v;
    t->major = major;
    t->label.base[0] = t->label.exponent[0] = '\0';
}

// 1, 2, 2.5 or 5 times a power of ten, the first at or above x.
static double nice_step(double x)
{
    double p = pow(10.0, floor(log10(x))), m = x / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

// Powers of two as people write them: 512, 4096, 16K, 1M.
static void power_of_two_label(double v, TickLabel *l)
{
    long long n = llround(v);
    if (v < 1) snprintf(l->base, sizeof l->base, "%g", v);
    else if (n >= 1048576 && n % 1048576 == 0) snprintf(l->base, sizeof l->base, "%lldM", n / 1048576);
    else if (n >= 10000 && n % 1024 == 0) snprintf(l->base, sizeof l->base, "%lldK", n / 1024);
    else snprintf(l->base, sizeof l->base, "%lld", n);
}

// The range and ticks of an axis holding values[0..count) (and `extra` where positive). A margin
// of 5 % of the span keeps markers off the frame, as plotting tools do.
static void axis_build(Axis *a, UiAxisScale scale, const double *values, int count, double extra, bool from_zero)
{
    memset(a, 0, sizeof *a);
    a->scale = scale;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < count; i++)
        if (shown_on(scale, values[i])) {
            lo = fmin(lo, values[i]);
            hi = fmax(hi, values[i]);
        }
    if (extra > 0 && shown_on(scale, extra)) {
        lo = fmin(lo, extra);
        hi = fmax(hi, extra);
    }
    if (!(lo <= hi)) {
        lo = scale == UI_AXIS_LINEAR ? 0 : 1;
        hi = scale == UI_AXIS_LINEAR ? 1 : 10;
    }
    if (scale == UI_AXIS_LINEAR && from_zero) lo = fmin(lo, 0);
    if (hi - lo <= fabs(hi) * 1e-9) { // one value: a span around it
        if (scale == UI_AXIS_LINEAR) {
            double d = hi != 0 ? fabs(hi) * 0.5 : 1;
            lo -= from_zero && lo >= 0 ? 0 : d;
            hi += d;
        } else {
            lo /= 2;
            hi *= 2;
        }
    }
    double tlo = axis_t(scale, lo), thi = axis_t(scale, hi), margin = 0.05 * (thi - tlo);
    a->lo = scale == UI_AXIS_LINEAR && from_zero && lo == 0 ? 0 : axis_inv(scale, tlo - margin);
    a->hi = axis_inv(scale, thi + margin);

    if (scale == UI_AXIS_LINEAR) {
        double step = nice_step((a->hi - a->lo) / 6);
        double top = fmax(fabs(a->lo), fabs(a->hi));
        a->exponent = top >= 1e4 || top < 1e-2 ? (int)floor(log10(top)) : 0;
        double unit = pow(10.0, a->exponent);
        int decimals = (int)fmax(0, -floor(log10(step / unit) + 1e-9));
        for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi * (1 + 1e-12) + 1e-300; v += step) {
            double snapped = fabs(v) < step * 1e-9 ? 0 : v;
            add_tick(a, snapped, true);
            if (a->tick_count)
                snprintf(a->ticks[a->tick_count - 1].label.base, sizeof a->ticks[0].label.base, "%.*f", decimals,
                         snapped / unit);
        }
    } else if (scale == UI_AXIS_LOG2) {
        int k0 = (int)ceil(log2(a->lo) - 1e-9), k1 = (int)floor(log2(a->hi) + 1e-9);
        int every = (k1 - k0) / 12 + 1; // at most about a dozen labels
        for (int k = k0; k <= k1; k++) {
            add_tick(a, ldexp(1.0, k), (k - k0) % every == 0);
            if (a->tick_count && a->ticks[a->tick_count - 1].major)
                power_of_two_label(ldexp(1.0, k), &a->ticks[a->tick_count - 1].label);
        }
    } else {
        // Decades labelled 10^k; 2 and 5 times them too where fewer than three decades show;
        // minor ticks at the other multiples.
        const double decades = log10(a->hi / a->lo);
        const int k0 = (int)floor(log10(a->lo)), k1 = (int)ceil(log10(a->hi));
        const int shown = (int)floor(log10(a->hi) + 1e-9) - (int)ceil(log10(a->lo) - 1e-9) + 1;
        for (int k = k0; k <= k1; k++)
            for (int m = 1; m <= 9; m++) {
                bool major = m == 1 || (shown < 3 && (m == 2 || m == 5)) || decades < 0.6;
                add_tick(a, m * pow(10.0, k), major);
                if (!a->tick_count || a->ticks[a->tick_count - 1].value != m * pow(10.0, k) || !major) continue;
                TickLabel *l = &a->ticks[a->tick_count - 1].label;
                if (k == 0 || k == 1) snprintf(l->base, sizeof l->base, "%d", m * (k ? 10 : 1));
                else {
                    if (m == 1) snprintf(l->base, sizeof l->base, "10");
                    else snprintf(l->base, sizeof l->base, "%d\xc3\x97" "10", m); // U+00D7 multiplication sign
                    snprintf(l->exponent, sizeof l->exponent, "%d", k);
                }
            }
    }
}

static ImVec2 text_size(ImFont *f, const char *s) { return f->CalcTextSizeA(f->FontSize, FLT_MAX, 0.0f, s); }

static ImVec2 label_size(const ChartFonts *f, const TickLabel *l)
{
    ImVec2 s = text_size(f->text, l->base);
    if (l->exponent[0]) s.x += text_size(f->small, l->exponent).x + 1.0f;
    return s;
}

// Draws a label with its top left at p; returns its width.
static float draw_label(ImDrawList *dl, const ChartFonts *f, ImFont *font, ImVec2 p, ImU32 col, const TickLabel *l)
{
    dl->AddText(font, font->FontSize, p, col, l->base);
    float w = text_size(font, l->base).x;
    if (l->exponent[0]) {
        dl->AddText(f->small, f->small->FontSize, ImVec2(p.x + w + 1.0f, p.y - font->FontSize * 0.22f), col, l->exponent);
        w += 1.0f + text_size(f->small, l->exponent).x;
    }
    return w;
}

// Moves what was drawn since vertex `first`: turned by `angle` (radians, clockwise on screen)
// about `from`, which lands on `to`. Text is drawn upright where the clip rectangle keeps all
// of it, then moved.
static void turn_since(ImDrawList *dl, int first, ImVec2 from, ImVec2 to, float angle)
{
    const float cs = cosf(angle), sn = sinf(angle);
    for (int i = first; i < dl->VtxBuffer.Size; i++) {
        ImVec2 &p = dl->VtxBuffer[i].pos;
        const float x = p.x - from.x, y = p.y - from.y;
        p = ImVec2(to.x + x * cs - y * sn, to.y + x * sn + y * cs);
    }
}

// Filled marker shapes, one per series, on a white ring that parts them from lines behind.
static void draw_marker(ImDrawList *dl, ImVec2 p, float r, int shape, ImU32 col, ImU32 ring)
{
    for (int pass = 0; pass < 2; pass++) {
        const float s = pass ? r : r + fmaxf(1.5f, r * 0.35f);
        const ImU32 c = pass ? col : ring;
        switch (shape % 5) {
        case 0: dl->AddCircleFilled(p, s, c, 20); break;
        case 1: dl->AddRectFilled(ImVec2(p.x - s * 0.85f, p.y - s * 0.85f), ImVec2(p.x + s * 0.85f, p.y + s * 0.85f), c); break;
        case 2:
            dl->AddTriangleFilled(ImVec2(p.x, p.y - s * 1.2f), ImVec2(p.x + s * 1.05f, p.y + s * 0.65f),
                                  ImVec2(p.x - s * 1.05f, p.y + s * 0.65f), c);
            break;
        case 3:
            dl->AddQuadFilled(ImVec2(p.x, p.y - s * 1.2f), ImVec2(p.x + s * 1.2f, p.y), ImVec2(p.x, p.y + s * 1.2f),
                              ImVec2(p.x - s * 1.2f, p.y), c);
            break;
        default:
            dl->AddTriangleFilled(ImVec2(p.x, p.y + s * 1.2f), ImVec2(p.x - s * 1.05f, p.y - s * 0.65f),
                                  ImVec2(p.x + s * 1.05f, p.y - s * 0.65f), c);
            break;
        }
    }
}

static void dashed_line(ImDrawList *dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness, float dash)
{
    const float len = sqrtf((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y));
    for (float s = 0; s < len; s += 2 * dash) {
        const float e = fminf(s + dash, len);
        dl->AddLine(ImVec2(a.x + (b.x - a.x) * s / len, a.y + (b.y - a.y) * s / len),
                    ImVec2(a.x + (b.x - a.x) * e / len, a.y + (b.y - a.y) * e / len), col, thickness);
    }
}

static void draw_chart(ImDrawList *dl, const UiChart *c, const ChartFonts *f, float width, float height)
{
    const float u = fminf(width / 1600.0f, height / 1000.0f); // layout unit: 1 px in a 1600 x 1000 figure
    const ImU32 ink = IM_COL32(34, 34, 34, 255), grey = IM_COL32(110, 110, 110, 255);
    const ImU32 grid = IM_COL32(218, 218, 218, 255), grid_minor = IM_COL32(238, 238, 238, 255);
    const ImU32 white = IM_COL32(255, 255, 255, 255);

    // Every shown value of each axis, for its range.
    int total = 0;
    for (int s = 0; s < c->series_count; s++) total += c->series[s].count;
    double *xs = (double *)IM_ALLOC(sizeof(double) * (size_t)(total + 1) * 2), *ys = xs + total + 1;
    int count = 0;
    for (int s = 0; s < c->series_count; s++)
        for (int i = 0; i < c->series[s].count; i++)
            if (shown_on(c->x.scale, c->series[s].x[i]) && shown_on(c->y.scale, c->series[s].y[i])) {
                xs[count] = c->series[s].x[i];
                ys[count++] = c->series[s].y[i];
            }
    Axis ax, ay;
    axis_build(&ax, c->x.scale, xs, count, 0, false);
    axis_build(&ay, c->y.scale, ys, count, c->reference, true);
    IM_FREE(xs);

    // Layout, from the outside in.
    const float margin = 30 * u, tick = 8 * u;
    float top = margin;
    if (c->title) {
        const ImVec2 s = text_size(f->title, c->title);
        dl->AddText(f->title, f->title->FontSize, ImVec2((width - s.x) * 0.5f, top), ink, c->title);
        top += s.y + 6 * u;
    }
    if (c->subtitle) {
        const ImVec2 s = text_size(f->text, c->subtitle);
        dl->AddText(f->text, f->text->FontSize, ImVec2((width - s.x) * 0.5f, top), grey, c->subtitle);
        top += s.y;
    }
    top += 24 * u;
    float y_labels = 0;
    for (int i = 0; i < ay.tick_count; i++)
        if (ay.ticks[i].major) y_labels = fmaxf(y_labels, label_size(f, &ay.ticks[i].label).x);
    float x_overhang = 0;
    for (int i = ax.tick_count - 1; i >= 0; i--)
        if (ax.ticks[i].major) {
            x_overhang = label_size(f, &ax.ticks[i].label).x * 0.5f;
            break;
        }
    const float left = margin + f->label->FontSize * 1.2f + 16 * u + y_labels + tick + 6 * u;
    const float right = width - margin - fmaxf(x_overhang, 10 * u);
    const float bottom = height - margin - f->label->FontSize * 1.2f - 14 * u - f->text->FontSize - tick - 6 * u;
    const ImVec2 p0(left, top), p1(right, bottom);
    auto sx = [&](double v) { return left + (float)axis_unit(&ax, v) * (right - left); };
    auto sy = [&](double v) { return bottom - (float)axis_unit(&ay, v) * (bottom - top); };

    // Grid, then the reference line.
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ax.tick_count; i++)
            if (ax.ticks[i].major == (pass == 1))
                dl->AddLine(ImVec2(sx(ax.ticks[i].value), top), ImVec2(sx(ax.ticks[i].value), bottom),
                            pass ? grid : grid_minor, 1.0f * u);
        for (int i = 0; i < ay.tick_count; i++)
            if (ay.ticks[i].major == (pass == 1))
                dl->AddLine(ImVec2(left, sy(ay.ticks[i].value)), ImVec2(right, sy(ay.ticks[i].value)),
                            pass ? grid : grid_minor, 1.0f * u);
    }
    if (c->reference > 0 && shown_on(c->y.scale, c->reference)) {
        const float y = sy(c->reference);
        dashed_line(dl, ImVec2(left, y), ImVec2(right, y), grey, 2.0f * u, 10 * u);
        if (c->reference_label) {
            const ImVec2 s = text_size(f->text, c->reference_label);
            dl->AddText(f->text, f->text->FontSize, ImVec2(right - s.x - 8 * u, y - s.y - 4 * u), grey,
                        c->reference_label);
        }
    }

    // Series: lines between consecutive shown points (a gap breaks them), then markers on top.
    const float line = 3.0f * u, radius = 6.0f * u;
    dl->PushClipRect(ImVec2(left - 2 * radius, top - 2 * radius), ImVec2(right + 2 * radius, bottom + 2 * radius), true);
    for (int s = 0; s < c->series_count; s++) {
        const UiChartSeries *se = &c->series[s];
        for (int i = 1; i < se->count; i++)
            if (shown_on(c->x.scale, se->x[i - 1]) && shown_on(c->y.scale, se->y[i - 1]) &&
                shown_on(c->x.scale, se->x[i]) && shown_on(c->y.scale, se->y[i]))
                dl->AddLine(ImVec2(sx(se->x[i - 1]), sy(se->y[i - 1])), ImVec2(sx(se->x[i]), sy(se->y[i])),
                            series_color(c, s), line);
    }
    for (int s = 0; s < c->series_count; s++) {
        const UiChartSeries *se = &c->series[s];
        for (int i = 0; i < se->count; i++)
            if (shown_on(c->x.scale, se->x[i]) && shown_on(c->y.scale, se->y[i]))
                draw_marker(dl, ImVec2(sx(se->x[i]), sy(se->y[i])), radius, series_slot(c, s), series_color(c, s), white);
    }
    dl->PopClipRect();

    // Axes, ticks and their labels.
    dl->AddLine(ImVec2(left, bottom), ImVec2(right, bottom), ink, 1.5f * u);
    dl->AddLine(ImVec2(left, top), ImVec2(left, bottom), ink, 1.5f * u);
    for (int i = 0; i < ax.tick_count; i++) {
        const Tick *t = &ax.ticks[i];
        const float x = sx(t->value);
        dl->AddLine(ImVec2(x, bottom), ImVec2(x, bottom + (t->major ? tick : tick * 0.5f)), ink, 1.5f * u);
        if (!t->major) continue;
        const ImVec2 s = label_size(f, &t->label);
        draw_label(dl, f, f->text, ImVec2(x - s.x * 0.5f, bottom + tick + 6 * u), ink, &t->label);
    }
    for (int i = 0; i < ay.tick_count; i++) {
        const Tick *t = &ay.ticks[i];
        const float y = sy(t->value);
        dl->AddLine(ImVec2(left - (t->major ? tick : tick * 0.5f), y), ImVec2(left, y), ink, 1.5f * u);
        if (!t->major) continue;
        const ImVec2 s = label_size(f, &t->label);
        draw_label(dl, f, f->text, ImVec2(left - tick - 6 * u - s.x, y - s.y * 0.5f), ink, &t->label);
    }
    if (c->x.label) {
        const ImVec2 s = text_size(f->label, c->x.label);
        dl->AddText(f->label, f->label->FontSize, ImVec2((left + right - s.x) * 0.5f, height - margin - s.y), ink,
                    c->x.label);
    }
    if (c->y.label) {
        // Upright text turned a quarter anticlockwise, centred on the plot's height; a scaled
        // linear axis says its unit ("(×10^12)") at the end.
        TickLabel unit = {};
        if (ay.exponent) {
            snprintf(unit.base, sizeof unit.base, " (\xc3\x97" "10");
            snprintf(unit.exponent, sizeof unit.exponent, "%d", ay.exponent);
        }
        float w = text_size(f->label, c->y.label).x;
        if (ay.exponent) w += label_size(f, &unit).x + text_size(f->label, ")").x;
        const ImVec2 centre(width * 0.5f, height * 0.5f);
        const int first = dl->VtxBuffer.Size;
        ImVec2 p(centre.x - w * 0.5f, centre.y - f->label->FontSize * 0.5f);
        dl->AddText(f->label, f->label->FontSize, p, ink, c->y.label);
        if (ay.exponent) {
            p.x += text_size(f->label, c->y.label).x;
            p.x += draw_label(dl, f, f->label, p, ink, &unit);
            dl->AddText(f->label, f->label->FontSize, p, ink, ")");
        }
        turn_since(dl, first, centre, ImVec2(margin + f->label->FontSize * 0.6f, (top + bottom) * 0.5f), -(float)M_PI_2);
    }

    // Legend: in the corner of the plot that hides the fewest points.
    if (c->series_count > 0) {
        const float pad = 14 * u, sample = 44 * u, row = f->text->FontSize * 1.35f;
        float names = 0;
        for (int s = 0; s < c->series_count; s++)
            names = fmaxf(names, text_size(f->text, c->series[s].name ? c->series[s].name : "").x);
        const ImVec2 size(pad * 2 + sample + 10 * u + names, pad * 2 + row * (float)c->series_count - (row - f->text->FontSize));
        int best = 0, best_hidden = 1 << 30;
        for (int corner = 0; corner < 4; corner++) {
            const float x = corner & 1 ? right - 16 * u - size.x : left + 16 * u;
            const float y = corner & 2 ? bottom - 16 * u - size.y : top + 16 * u;
            int hidden = 0;
            for (int s = 0; s < c->series_count; s++)
                for (int i = 0; i < c->series[s].count; i++) {
                    const double vx = c->series[s].x[i], vy = c->series[s].y[i];
                    if (!shown_on(c->x.scale, vx) || !shown_on(c->y.scale, vy)) continue;
                    const float X = sx(vx), Y = sy(vy);
                    hidden += X > x - radius && X < x + size.x + radius && Y > y - radius && Y < y + size.y + radius;
                }
            if (hidden < best_hidden) {
                best_hidden = hidden;
                best = corner;
            }
        }
        const ImVec2 q(best & 1 ? right - 16 * u - size.x : left + 16 * u, best & 2 ? bottom - 16 * u - size.y : top + 16 * u);
        dl->AddRectFilled(q, ImVec2(q.x + size.x, q.y + size.y), IM_COL32(255, 255, 255, 235), 4 * u);
        dl->AddRect(q, ImVec2(q.x + size.x, q.y + size.y), IM_COL32(200, 200, 200, 255), 4 * u, 0, 1.0f * u);
        for (int s = 0; s < c->series_count; s++) {
            const float y = q.y + pad + row * (float)s, mid = y + f->text->FontSize * 0.5f;
            dl->AddLine(ImVec2(q.x + pad, mid), ImVec2(q.x + pad + sample, mid), series_color(c, s), line);
            draw_marker(dl, ImVec2(q.x + pad + sample * 0.5f, mid), radius, series_slot(c, s), series_color(c, s), white);
            dl->AddText(f->text, f->text->FontSize, ImVec2(q.x + pad + sample + 10 * u, y), ink,
                        c->series[s].name ? c->series[s].name : "");
        }
    }
}

static int chart_check(const UiChart *c, int width, int height, char *err, size_t errlen)
{
    if (!c) {
        snprintf(err, errlen, "chart: no chart given");
        return -1;
    }
    if (width < 64 || height < 64 || width > 8192 || height > 8192) {
        snprintf(err, errlen, "chart: %d x %d pixels: each side must be 64 .. 8192", width, height);
        return -1;
    }
    if (c->series_count < 0 || c->series_count > UI_CHART_MAX_SERIES) {
        snprintf(err, errlen, "chart: %d series: a chart holds 0 .. %d", c->series_count, UI_CHART_MAX_SERIES);
        return -1;
    }
    for (int s = 0; s < c->series_count; s++) {
        const UiChartSeries *se = &c->series[s];
        if (se->count < 0 || (se->count > 0 && (!se->x || !se->y))) {
            snprintf(err, errlen, "chart: series %d (%s) has %d points but no data", s, se->name ? se->name : "unnamed",
                     se->count);
            return -1;
        }
    }
    if (!glGetString(GL_VERSION)) {
        snprintf(err, errlen, "chart: no current OpenGL context");
        return -1;
    }
    if (!glGenFramebuffers) {
        snprintf(err, errlen, "chart: OpenGL functions not loaded (create the context with render_context_create)");
        return -1;
    }
    return 0;
}

extern "C" int ui_render_chart_png(const UiChart *chart, const char *path, int width, int height, char *err,
                                   size_t errlen)
{
    if (chart_check(chart, width, height, err, errlen) != 0) return -1;
    GLint previous_fbo = 0, viewport[4];
    GLfloat clear[4];
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_fbo);
    glGetIntegerv(GL_VIEWPORT, viewport);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
    GLuint color = 0, fbo = 0;
    glGenRenderbuffers(1, &color);
    glBindRenderbuffer(GL_RENDERBUFFER, color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    int rc = 0;
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(err, errlen, "chart: a %d x %d framebuffer is incomplete (status 0x%04x)", width, height, status);
        rc = -1;
    }

    // A context of its own, so that the app's UI (if any) keeps its windows, fonts and state.
    ImGuiContext *previous = ImGui::GetCurrentContext();
    ImGuiContext *context = ImGui::CreateContext();
    ImGui::SetCurrentContext(context);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2((float)width, (float)height);
    io.DeltaTime = 1.0f / 60.0f;
    const float u = fminf(width / 1600.0f, height / 1000.0f);
    ChartFonts fonts;
    fonts.text = add_font(io.Fonts, "DejaVuSans.ttf", roundf(24 * u));
    fonts.label = add_font(io.Fonts, "DejaVuSans.ttf", roundf(28 * u));
    fonts.title = add_font(io.Fonts, "DejaVuSans-Bold.ttf", roundf(38 * u));
    fonts.small = add_font(io.Fonts, "DejaVuSans.ttf", roundf(17 * u));
    if (rc == 0 && !ImGui_ImplOpenGL3_Init("#version 330 core")) {
        snprintf(err, errlen, "chart: ImGui's OpenGL renderer did not start");
        rc = -1;
    }
    if (rc == 0) {
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        draw_chart(ImGui::GetBackgroundDrawList(), chart, &fonts, (float)width, (float)height);
        ImGui::Render();
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glViewport(0, 0, width, height);
        glClearColor(1, 1, 1, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        rc = capture_png(path, fbo, width, height, err, errlen);
        ImGui_ImplOpenGL3_Shutdown();
    }
    ImGui::DestroyContext(context);
    ImGui::SetCurrentContext(previous);

    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous_fbo);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &color);
    return rc;
}
