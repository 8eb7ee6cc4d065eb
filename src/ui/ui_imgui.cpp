// The C API of ui.h over Dear ImGui: it draws the model and writes the user's edits back into
// it; what the edits mean is the app's business. With no window (headless) ImGui gets no input
// and takes the size of the current GL viewport.
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/sim.h"
#include "ui/font.h"
#include "ui/ui.h"

// Lecture mode: type and spacing this many times their normal size.
#define LECTURE_SCALE 2.0f

// ImGui keeps one global context, so the bridge's few facts about it are global too.
static struct {
    GLFWwindow *window;
    // Keys released in the frame that pressed them: ImGui 1.86 reads a key's state once a
    // frame, so a tap shorter than a frame (Enter at 10 frames/s) would be lost. Their release
    // reaches ImGui after the frame has seen the press.
    struct {
        int key, scancode, mods;
    } late_release[16];
    int late_count;
    bool pressed[GLFW_KEY_LAST + 1]; // since the last frame began
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

// Hands ImGui the releases whose press an earlier frame has seen (or those of key `only`, when
// it is pressed again: its release comes first); all before NewFrame, where ImGui takes the
// keys' and modifiers' state for the frame.
static void release_late_keys(int only)
{
    int kept = 0;
    for (int i = 0; i < ui.late_count; i++) {
        const int key = ui.late_release[i].key;
        if (only >= 0 ? key == only : !ui.pressed[key])
            ImGui_ImplGlfw_KeyCallback(ui.window, key, ui.late_release[i].scancode, GLFW_RELEASE,
                                       ui.late_release[i].mods);
        else
            ui.late_release[kept++] = ui.late_release[i];
    }
    ui.late_count = kept;
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    if (key >= 0 && key <= GLFW_KEY_LAST) {
        if (action == GLFW_PRESS) {
            release_late_keys(key);
            ui.pressed[key] = true;
        }
        if (action == GLFW_RELEASE && ui.pressed[key] && ui.late_count < IM_ARRAYSIZE(ui.late_release)) {
            ui.late_release[ui.late_count++] = {key, scancode, mods};
            return;
        }
    }
    ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
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
    ui.large = ui_font_add(io.Fonts, "DejaVuSans.ttf", 13.0f * LECTURE_SCALE * font_scale);
    ui.huge = ui_font_add(io.Fonts, "DejaVuSans-Bold.ttf", 13.0f * 1.8f * LECTURE_SCALE * font_scale);
    io.FontDefault = ui.normal;
    ui.lecture = false;

    if (window && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
        ImGui::DestroyContext();
        return false;
    }
    // In front of the backend's key callback, which calls the app's in turn.
    if (window) glfwSetKeyCallback(window, on_key);
    ui.window = window;
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
        // A tree sums far fewer pairs: its rates are those of the N^2 sum it stands for, and say so.
        ImGui::Text("%.0f %s   %s interactions/s   %.1f GFLOP/s%s", m->steps_per_s,
                    per_s(m->steps_per_s, "step/s", "steps/s"), compact_exp(m->interactions_per_s, rate, sizeof rate),
                    m->gflops, m->tree ? " (N^2 equivalent)" : "");
        ImGui::Text("N %d   %s  %s", m->bodies, m->backend ? m->backend : "?", m->device ? m->device : "");
        if (m->cuda && m->kernel_name && !m->method) {
            ImGui::SameLine();
            ImGui::Text("  kernel %s", m->kernel_name);
        }
        if (m->method) ImGui::TextUnformatted(m->method);
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
        ImGui::TextUnformatted(m->tree ? "N^2-equivalent interactions/s" : "interactions/s");
        if (m->gflops >= 1000) snprintf(text, sizeof text, "%.1f TFLOP/s", m->gflops * 1e-3);
        else snprintf(text, sizeof text, "%.1f GFLOP/s", m->gflops);
        ImGui::Text("%s   %.0f %s   %.0f fps", text, m->steps_per_s, per_s(m->steps_per_s, "step/s", "steps/s"),
                    m->fps);
        if ((m->cuda && m->kernel_name) || m->tree) {
            ImGui::TextColored(accent_color, "%s", m->tree ? "tree" : m->kernel_name);
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

// The rung that runs now: the tree, or the direct kernel.
static int active_rung(const UiModel *m) { return m->tree ? UI_RUNG_TREE : active_kernel(m); }

static const char *rung_name(int r) { return r == UI_RUNG_TREE ? "tree" : sim_kernel_name((SimKernel)r); }

// One row per rung of the ladder: a radio button, and a bar of its measured rate on a linear
// scale. Linear, because the story is the factor between the rungs: a log scale would make
// naive's 2 % of mtpb look like half of it. The factor over naive is written beside the rate.
// The last rung, the tree, does not evaluate N^2 interactions: its bar is N^2 over its step time,
// the rate a direct kernel would need to keep up, and the line under it says what it evaluates.
static void ladder_bars(UiModel *m, float track_width)
{
    const int active = active_rung(m);
    double top = 0;
    for (int k = SIM_KERNEL_NAIVE; k < UI_RUNGS; k++) top = fmax(top, m->ladder_rate[k]);
    const double naive = m->ladder_rate[SIM_KERNEL_NAIVE];
    const ImGuiStyle &style = ImGui::GetStyle();
    const float name_width = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x +
                             ImGui::CalcTextSize(sim_kernel_name(SIM_KERNEL_TILED_UNROLLED)).x + style.ItemSpacing.x;
    ImDrawList *dl = ImGui::GetWindowDrawList();
    const ImU32 track = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImU32 bar = IM_COL32(90, 140, 200, 255), bar_active = ImGui::GetColorU32(accent_color);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const bool has_times = ImGui::GetFont()->FindGlyphNoFallback(0xD7) != nullptr; // the multiplication sign
    for (int k = SIM_KERNEL_NAIVE; k < UI_RUNGS; k++) {
        ImGui::PushID(k);
        const float x0 = ImGui::GetCursorPosX();
        bool picked = ImGui::RadioButton(rung_name(k), k == active);
        ImGui::SameLine(x0 + name_width);
        const ImVec2 p = ImGui::GetCursorScreenPos(), size(track_width, ImGui::GetFrameHeight());
        picked |= ImGui::InvisibleButton("bar", size);
        if (picked && k != active) {
            if (k == UI_RUNG_TREE) {
                m->ladder_force = SIM_FORCE_TREE;
            } else {
                m->kernel = k;
                if (m->tree) m->ladder_force = SIM_FORCE_DIRECT;
            }
        }
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
    if (m->ladder_rate[UI_RUNG_TREE] > 0 && m->ladder_tree_per_body > 0) {
        char per_body[24], n[24];
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + name_width);
        ImGui::TextDisabled("tree: %s a body for %s", grouped((int)lround(m->ladder_tree_per_body), per_body, sizeof per_body),
                            grouped(m->bodies, n, sizeof n));
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
    const bool has_square = ImGui::GetFont()->FindGlyphNoFallback(0xB2) != nullptr; // superscript two
    if (m->ladder_rate[UI_RUNG_TREE] > 0)
        ImGui::TextDisabled("interactions/s at N = %s (the tree: %s / step time)", grouped(m->bodies, n, sizeof n),
                            has_square ? "N\xc2\xb2" : "N^2");
    else
        ImGui::TextDisabled("interactions/s at N = %s", grouped(m->bodies, n, sizeof n));
    ladder_bars(m, track_width);
    if (m->ladder_touring != SIM_KERNEL_DEFAULT)
        ImGui::TextDisabled("timing %s...", rung_name(m->ladder_touring));
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
    RULE_LINEAR,  // lo .. hi, equal steps per pixel, two decimals shown
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

// The slider of spec s over *v. Ctrl+click types a value instead (clamped to the range). True
// when *v changed; *began is raised when an edit starts (the value before it is still *v then).
static bool rule_slider(const char *label, float *v, const SliderSpec *s, bool *began)
{
    // State kept by value: a pointer into ImGui's storage moves when another key is added.
    ImGuiStorage *store = ImGui::GetStateStorage();
    const ImGuiID key = ImGui::GetID(label), typed_key = ImGui::GetID("typed value");
    const int typing = store->GetInt(key, 0); // frames since typing began + 1; 0 = sliding
    if (typing > 0) {
        float typed = typing == 1 ? *v : store->GetFloat(typed_key, *v);
        ImGui::PushID("typed");
        if (typing == 1) ImGui::SetKeyboardFocusHere();
        ImGui::InputFloat(label, &typed, 0.0f, 0.0f, "%g", ImGuiInputTextFlags_AutoSelectAll);
        const bool done = ImGui::IsItemDeactivated() || (typing > 3 && !ImGui::IsItemActive());
        const bool edited = ImGui::IsItemDeactivatedAfterEdit();
        ImGui::PopID();
        store->SetFloat(typed_key, typed);
        store->SetInt(key, done ? 0 : typing + 1);
        if (!done || !edited || !isfinite(typed)) return false;
        const float value = fminf(fmaxf(typed, s->lo), s->hi);
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
        store->SetInt(key, 1); // the click that asked for typing moves nothing
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
static const SliderSpec theta_spec = {RULE_LINEAR, 0.05f, 1.5f};

// Where a control sits on screen, for the readout that lets tests drive the window by hand.
// A slider's or field's box alone, without the label beside it.
static void note_rect(UiModel *m, const char *name, ImVec2 a, ImVec2 b)
{
    if (m->widget_count >= UI_MAX_WIDGETS) return;
    UiWidget *w = &m->widgets[m->widget_count++];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->x0 = a.x;
    w->y0 = a.y;
    w->x1 = b.x;
    w->y1 = b.y;
}

static void note_widget(UiModel *m, const char *name, bool box = false)
{
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    note_rect(m, name, a, box ? ImVec2(a.x + ImGui::CalcItemWidth(), b.y) : b);
}

// The parameters an edit can be undone for: their values before the edit go with it.
static void parameter_slider(UiModel *m, const char *label, float *v, const SliderSpec *s)
{
    const SimParams before = {.dt = m->dt, .softening = m->softening, .damping = m->damping, .theta = m->theta};
    bool began = false;
    rule_slider(label, v, s, &began);
    note_widget(m, label, true);
    if (began && !m->edit_began) {
        m->edit_began = true;
        m->before = before;
    }
}

// The force method: auto (the backend's choice for N, named beside it), direct or tree. Each
// choice is noted for the readout while the list is open.
static void force_combo(UiModel *m)
{
    static const char *const what[SIM_FORCE_COUNT] = {
        "the tree above the crossover in N, the direct sum below it",
        "all N^2 pairs: the exact sum, and the accuracy reference",
        "Barnes-Hut with quadrupoles: O(N log N), with the opening angle theta",
    };
    char shown[48];
    if (m->force == SIM_FORCE_AUTO)
        snprintf(shown, sizeof shown, "auto (%s)", m->tree ? "tree" : "direct");
    else
        snprintf(shown, sizeof shown, "%s", sim_force_name((SimForce)m->force));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    if (ImGui::BeginCombo("force", shown)) {
        for (int f = 0; f < SIM_FORCE_COUNT; f++) {
            if (ImGui::Selectable(sim_force_name((SimForce)f), f == m->force) && f != m->force) {
                m->force_wanted = f;
                m->apply_force = true;
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", what[f]);
            char name[sizeof m->widgets[0].name];
            snprintf(name, sizeof name, "force %.12s", sim_force_name((SimForce)f));
            note_widget(m, name);
        }
        ImGui::EndCombo();
    }
    note_rect(m, "force", at, ImVec2(at.x + ImGui::CalcItemWidth(), at.y + ImGui::GetFrameHeight()));
}

// theta acts on the tree alone: greyed while the direct sum runs, and the tooltip says why.
static void theta_slider(UiModel *m)
{
    const bool tree = m->tree;
    ImGui::BeginDisabled(!tree);
    parameter_slider(m, "theta", &m->theta, &theta_spec);
    ImGui::EndDisabled();
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    if (tree)
        ImGui::SetTooltip("The tree's opening angle: a cell that looks smaller than theta from a body\n"
                          "counts as one term. Smaller is more exact and slower.");
    else
        ImGui::SetTooltip("theta is the tree's opening angle: the direct sum has none.\nChoose tree under force.");
}

static void simulation_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    parameter_slider(m, "dt", &m->dt, &dt_spec);
    parameter_slider(m, "softening", &m->softening, &softening_spec);
    parameter_slider(m, "damping", &m->damping, &damping_spec);
    force_combo(m);
    theta_slider(m);
    ImGui::SliderInt("steps/frame", &m->steps_per_frame, 1, 64);
    note_widget(m, "steps/frame", true);
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
    note_widget(m, "preset", true);
    ImGui::Checkbox("cycle", &m->cycling);
    note_widget(m, "cycle");
    ImGui::SameLine();
    ImGui::PushItemWidth(px(90.0f));
    ImGui::SliderFloat("seconds", &m->cycle_seconds, 5.0f, 300.0f, "%.0f s");
    note_widget(m, "seconds", true);
    ImGui::PopItemWidth();
    ImGui::InputText("name", m->preset_name, sizeof m->preset_name);
    note_widget(m, "name", true);
    ImGui::BeginDisabled(m->preset_name[0] == '\0');
    if (ImGui::Button("Save current as preset")) m->save_preset = true;
    note_widget(m, "save preset");
    ImGui::EndDisabled();
}

// The running method's error against the f64 sum, as the app last measured it in the background.
static void live_error_lines(const UiModel *m)
{
    const ForceCheck *f = m->live_error;
    if (f)
        ImGui::Text("Force error against f64, %s (%d bodies):", m->live_error_what ? m->live_error_what : "",
                    f->samples);
    else
        ImGui::TextUnformatted("Force error against f64:");
    if (f) ImGui::Text("median %.1e  99%% %.1e  max %.1e", f->median, f->p99, f->worst);
    if (m->live_error_measuring || !f) {
        if (f) ImGui::SameLine();
        ImGui::TextDisabled("measuring...");
    }
}

static void diagnostics_section(UiModel *m)
{
    m->diagnostics_open = ImGui::CollapsingHeader("Diagnostics");
    if (!m->diagnostics_open) return;
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
    live_error_lines(m);
    if (ImGui::Button("Check forces against f64")) m->check_forces = true;
    if (m->force_check) {
        const ForceCheck *f = m->force_check;
        ImGui::Text("%d bodies: median %.2e  99%% %.2e", f->samples, f->median, f->p99);
        ImGui::Text("99.9%% %.2e  worst %.2e  rms %.2e", f->p999, f->worst, f->rms);
    }
}

// The tree overlay: on and off (T), its deepest level, and what it shows or why it shows nothing.
static void tree_controls(UiModel *m)
{
    ImGui::Checkbox("show tree", &m->show_tree);
    note_widget(m, "show tree");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The cells of the tree that summed the last forces (T)");
    ImGui::SliderInt("tree levels", &m->tree_levels, 0, UI_TREE_LEVELS_MAX, "0 - %d", ImGuiSliderFlags_NoInput);
    note_widget(m, "tree levels", true);
    if (m->tree_note) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + px(260.0f));
        ImGui::TextDisabled("%s", m->tree_note);
        ImGui::PopTextWrapPos();
    }
}

static void view_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
    ImGui::SliderFloat("point size", &m->point_size, 0.25f, 8.0f, "%.2f", log);
    note_widget(m, "point size", true);
    ImGui::SliderFloat("exposure", &m->exposure, 0.05f, 20.0f, "%.2f", log);
    note_widget(m, "exposure", true);
    if (ImGui::BeginCombo("colour", renderer_color_mode_name((ColorMode)m->color_mode))) {
        for (int c = 0; c < COLOR_MODE_COUNT; c++)
            if (ImGui::Selectable(renderer_color_mode_name((ColorMode)c), c == m->color_mode))
                m->color_mode = c;
        ImGui::EndCombo();
    }
    note_widget(m, "colour", true);
    ImGui::Checkbox("show halo", &m->show_halo);
    note_widget(m, "show halo");
    ImGui::SameLine();
    ImGui::Checkbox("auto-rotate", &m->auto_rotate);
    note_widget(m, "auto-rotate");
    tree_controls(m);
    if (ImGui::Button("Reset camera")) m->reset_camera = true;
    note_widget(m, "reset camera");
}

// Every key the program answers to, as the README lists them.
static const char *const ui_key_lines[] = {
    "space pause   . step   R reset   Backspace defaults",
    "ctrl+Z undo   H hide UI   F full screen   L lecture",
    "A auto-rotate   M colour   D halo   G follow   T tree",
    "K time the ladder   [ ] presets   C cycle   Home camera",
    "S save   P screenshot   V record   Esc quit",
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
    if (ui.glfw) release_late_keys(-1);
    ImGui::NewFrame();
    // This frame sees the presses; the releases that came with them wait for the next.
    memset(ui.pressed, 0, sizeof ui.pressed);
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
