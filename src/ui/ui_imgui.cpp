// The C API of ui.h over Dear ImGui: ImGui's context, input and frame, and the panel of controls.
// It draws the model and writes the user's edits back into it; what the edits mean is the app's
// business. With no window (headless) ImGui gets no input and takes the size of the current GL
// viewport.
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <float.h>
#include <stdio.h>
#include <string.h>

#include <imgui_internal.h>

#include "util/font.h"
#include "ui/ui.h"
#include "ui/ui_internal.h"

UiLook ui_look;

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
    // One key press a frame: ImGui 1.86 acts on one key of those pressed in a frame (a text
    // field takes Backspace and drops the Enter beside it), and a key the app reads must see the
    // keyboard as the key before it left it (Enter closing a field, then Backspace for the app).
    // Later presses, and every event behind them, wait here for the frames that follow.
    struct {
        int key, scancode, action, mods; // key < 0: a character, codepoint in scancode
    } queue[64];
    int queued;
    bool frame_pressed; // since the last frame began, a key was pressed that closes the frame to
                        // others: not a modifier, nor a character typed into a text field
    bool created;
    bool glfw;         // the GLFW backend feeds input and the display size
    bool mode_changed; // the Controls window has yet to fold or unfold for it
    ImGuiStyle normal_style, lecture_style;
} ui;

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

static bool is_modifier(int key)
{
    return key == GLFW_KEY_LEFT_SHIFT || key == GLFW_KEY_RIGHT_SHIFT || key == GLFW_KEY_LEFT_CONTROL ||
           key == GLFW_KEY_RIGHT_CONTROL || key == GLFW_KEY_LEFT_ALT || key == GLFW_KEY_RIGHT_ALT ||
           key == GLFW_KEY_LEFT_SUPER || key == GLFW_KEY_RIGHT_SUPER;
}

static bool is_new_press(int key, int action) { return key >= 0 && action == GLFW_PRESS && !is_modifier(key); }

// A key that types a character: while a text field holds the keyboard, its characters all go in
// one frame (ImGui takes every character queued), so such a press leaves the frame open.
static bool is_printable(int key)
{
    return (key >= GLFW_KEY_SPACE && key <= GLFW_KEY_GRAVE_ACCENT) || (key >= GLFW_KEY_KP_0 && key <= GLFW_KEY_KP_EQUAL);
}

// Hands one event to ImGui's backend (which calls the app's key callback in turn).
static void deliver(int key, int scancode, int action, int mods)
{
    if (key < 0) {
        ImGui_ImplGlfw_CharCallback(ui.window, (unsigned int)scancode);
        return;
    }
    if (key <= GLFW_KEY_LAST) {
        if (action == GLFW_PRESS) {
            release_late_keys(key);
            ui.pressed[key] = true;
            if (!is_modifier(key) && !(is_printable(key) && ImGui::IsAnyItemActive())) ui.frame_pressed = true;
        }
        if (action == GLFW_RELEASE && ui.pressed[key] && ui.late_count < IM_ARRAYSIZE(ui.late_release)) {
            ui.late_release[ui.late_count++] = {key, scancode, mods};
            return;
        }
    }
    ImGui_ImplGlfw_KeyCallback(ui.window, key, scancode, action, mods);
}

// An event waits when one is waiting already (order is kept), while a text field opens, or when
// it is this frame's second press; a full queue lets it through rather than lose it.
static void take(int key, int scancode, int action, int mods)
{
    const bool wait = ui.queued > 0 || ui_look.field_opening || (is_new_press(key, action) && ui.frame_pressed);
    if (wait && ui.queued < IM_ARRAYSIZE(ui.queue)) {
        ui.queue[ui.queued++] = {key, scancode, action, mods};
        return;
    }
    deliver(key, scancode, action, mods);
}

// At a frame's start: the waiting events up to the next press, which this frame takes.
static void deliver_queued(void)
{
    if (ui_look.field_opening) return;
    int i = 0;
    for (; i < ui.queued; i++) {
        const auto &e = ui.queue[i];
        if (is_new_press(e.key, e.action) && ui.frame_pressed) break;
        deliver(e.key, e.scancode, e.action, e.mods);
    }
    memmove(ui.queue, ui.queue + i, (size_t)(ui.queued - i) * sizeof ui.queue[0]);
    ui.queued -= i;
}

static void on_key(GLFWwindow *, int key, int scancode, int action, int mods)
{
    if (key >= 0) take(key, scancode, action, mods);
}

static void on_char(GLFWwindow *, unsigned int codepoint) { take(-1, (int)codepoint, 0, 0); }

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
    ui_look.lecture_scale = LECTURE_SCALE;
    // Every size is rasterised as such: sharper than FontGlobalScale, and switching modes
    // rebuilds nothing.
    ImFontConfig font;
    font.SizePixels = 13.0f * font_scale;
    ui_look.normal = io.Fonts->AddFontDefault(&font);
    ui_look.large = font_add(io.Fonts, "DejaVuSans.ttf", 13.0f * LECTURE_SCALE * font_scale);
    ui_look.huge = font_add(io.Fonts, "DejaVuSans-Bold.ttf", 13.0f * 1.8f * LECTURE_SCALE * font_scale);
    io.FontDefault = ui_look.normal;
    ui_look.lecture = false;

    if (window && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
        ImGui::DestroyContext();
        return false;
    }
    // In front of the backend's key callback, which calls the app's in turn.
    if (window) {
        glfwSetKeyCallback(window, on_key);
        glfwSetCharCallback(window, on_char);
    }
    ui.window = window;
    if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
        if (window) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
        return false;
    }
    ui.created = true;
    ui.glfw = window != nullptr;
    ui_look.scale = font_scale;
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

static UiParams ui_params_now(const UiModel *m)
{
    const UiControls *c = &m->controls;
    return {.dt = c->dt, .softening = c->softening, .damping = c->damping, .theta = c->theta, .alpha = c->alpha};
}

static void edit_begins(UiModel *m, const UiParams *before)
{
    if (m->actions.edit_began) return;
    m->actions.edit_began = true;
    m->actions.before = *before;
}

// The parameters an edit can be undone for: their values before the edit go with it. The rule
// maps the handle onto the range the app gives.
static void parameter_slider(UiModel *m, const char *label, int field, float *v, SliderRule rule, UiRange range)
{
    const SliderSpec spec = {rule, range.lo, range.hi, field,
                             v == &m->controls.dt ? m->readout.dt_note : v == &m->controls.softening ? m->readout.softening_note : nullptr};
    const UiParams before = ui_params_now(m);
    bool began = false;
    ui_rule_slider(m, label, v, &spec, &began);
    ui_note_widget(m, label, true);
    if (began) edit_begins(m, &before);
}

// The force method: auto (the backend's choice for N, named beside it), direct, tree or fmm.
// Each choice is noted for the readout while the list is open.
static void force_combo(UiModel *m)
{
    static const char *const what[UI_FORCE_COUNT] = {
        "a tree method above the crossover in N, the direct sum below it",
        "all N^2 pairs: the exact sum, and the accuracy reference",
        "Barnes-Hut with quadrupoles: O(N log N), with the opening angle theta",
        "fast multipole method: far cells act on groups of bodies through one expansion; theta sets it",
    };
    // The fmm is the CPU backend's: on the GPU the tree is faster at every accuracy measured.
    const bool fmm_here = !m->readout.cuda;
    char shown[48];
    if (m->controls.force == UI_FORCE_AUTO)
        snprintf(shown, sizeof shown, "auto (%s)", m->readout.fmm ? "fmm" : m->readout.tree ? "tree" : "direct");
    else
        snprintf(shown, sizeof shown, "%s", ui_name(m->names.force, UI_FORCE_COUNT, m->controls.force));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    if (ImGui::BeginCombo("force", shown)) {
        for (int f = 0; f < UI_FORCE_COUNT; f++) {
            const char *force = ui_name(m->names.force, UI_FORCE_COUNT, f);
            const bool offered = f != UI_FORCE_FMM || fmm_here;
            ImGui::BeginDisabled(!offered);
            if (ImGui::Selectable(force, f == m->controls.force) && f != m->controls.force) {
                m->actions.force_wanted = f;
                m->actions.apply_force = true;
            }
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("%s", offered ? what[f]
                                                : "fast multipole method: the CPU backend's. On the GPU the tree is "
                                                  "faster at every accuracy measured.");
            char name[sizeof m->readout.widgets[0].name];
            snprintf(name, sizeof name, "force %.12s", force);
            ui_note_widget(m, name);
        }
        ImGui::EndCombo();
    }
    ui_note_rect(m, "force", at, ImVec2(at.x + ImGui::CalcItemWidth(), at.y + ImGui::GetFrameHeight()));
}

// theta acts on the tree and the fmm alone: greyed while the direct sum runs, or while the tree
// opens by error, and the tooltip says why.
static void theta_slider(UiModel *m)
{
    const bool tree = m->readout.tree, by_error = tree && !m->readout.fmm && m->controls.alpha > 0;
    ImGui::BeginDisabled(!tree || by_error);
    parameter_slider(m, "theta", UI_FIELD_THETA, &m->controls.theta, RULE_LINEAR, m->ranges.theta);
    ImGui::EndDisabled();
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    if (by_error)
        ImGui::SetTooltip("The tree opens its cells by estimated error (alpha below), within\n"
                          "an angle of %.1f. Untick \"by error\" to open them by theta.",
                          (double)m->ranges.widest_by_error);
    else if (tree)
        ImGui::SetTooltip("The tree's opening angle: a cell that looks smaller than theta from a body\n"
                          "counts as one term%s. Smaller is more exact and slower.",
                          m->readout.fmm ? " (and from a group, one expansion: the fmm's far field\n"
                                           "takes theta even while its near cells open by error)"
                                         : "");
    else
        ImGui::SetTooltip("theta is the tree's opening angle: the direct sum has none.\nChoose tree under force.");
}

// The tree's opening test: "by error" (alpha, the error a cell may bring against the smallest
// |a| it acts on, on a log slider) or by the angle theta. Both are edits an undo takes back. The
// fmm's near cells open by it too (its far field by theta): greyed with the direct sum.
static void opening_controls(UiModel *m)
{
    UiControls *c = &m->controls;
    const bool tree = m->readout.tree;
    bool on = c->alpha > 0;
    const UiParams before = ui_params_now(m);
    // The slider, then its box on the same line: one row of the panel.
    ImGui::BeginDisabled(!tree || !on);
    float shown = on ? c->alpha : c->alpha_kept;
    parameter_slider(m, "alpha", UI_FIELD_ALPHA, on ? &c->alpha : &shown, RULE_LOG, m->ranges.alpha);
    if (c->alpha > 0) c->alpha_kept = c->alpha;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("A cell is taken as one term where its estimated error stays within alpha\n"
                          "times the smallest |a| of the bodies it acts on. Smaller is more exact and slower.");
    ImGui::SameLine();
    ImGui::BeginDisabled(!tree);
    if (ImGui::Checkbox("by error", &on)) {
        edit_begins(m, &before);
        c->alpha = on ? c->alpha_kept : 0.0f;
    }
    ui_note_widget(m, "by error");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(tree ? "Open the tree's cells by the error each brings (alpha), not by their angle:\n"
                                 "more exact where the pull is weak, fewer terms where it is strong."
                               : "The tree's opening test: choose tree under force.");
    ImGui::EndDisabled();
}

// A section's header, noted for the readout; true while the section is open.
static bool section(UiModel *m, const char *title, const char *name, ImGuiTreeNodeFlags flags = 0)
{
    const bool open = ImGui::CollapsingHeader(title, flags);
    ui_note_widget(m, name);
    return open;
}

static void simulation_section(UiModel *m)
{
    if (!section(m, "Simulation", "Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    parameter_slider(m, "dt", UI_FIELD_DT, &m->controls.dt, RULE_LOG, m->ranges.dt);
    parameter_slider(m, "softening", UI_FIELD_SOFTENING, &m->controls.softening, RULE_LOG, m->ranges.softening);
    parameter_slider(m, "damping", UI_FIELD_DAMPING, &m->controls.damping, RULE_DAMPING, m->ranges.damping);
    force_combo(m);
    theta_slider(m);
    opening_controls(m);
    ui_typed_slider_int(m, "steps/frame", UI_FIELD_STEPS_PER_FRAME, &m->controls.steps_per_frame, m->ranges.steps_per_frame.lo,
                        m->ranges.steps_per_frame.hi);
    ui_note_widget(m, "steps/frame", true);
    if (m->readout.cuda) {
        int k = ui_active_kernel(m);
        if (ImGui::BeginCombo("kernel", ui_name(m->names.kernel, UI_KERNELS, k))) {
            for (int i = UI_KERNEL_FIRST; i < UI_KERNELS; i++)
                if (ImGui::Selectable(ui_name(m->names.kernel, UI_KERNELS, i), i == k)) m->controls.kernel = i;
            ImGui::EndCombo();
        }
    }
    if (ImGui::Button(m->controls.paused ? "Resume" : "Pause")) m->controls.paused = !m->controls.paused;
    ui_note_widget(m, "pause");
    ImGui::SameLine();
    ImGui::BeginDisabled(!m->controls.paused);
    if (ImGui::Button("Step")) m->actions.step_once = true;
    ui_note_widget(m, "step");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Reset")) m->actions.reset = true;
    ui_note_widget(m, "reset");
    if (ImGui::Button("Defaults")) m->actions.defaults = true;
    ui_note_widget(m, "defaults");
    ImGui::SameLine();
    ImGui::BeginDisabled(m->readout.undo_depth == 0);
    if (ImGui::Button("Undo")) m->actions.undo = true;
    ui_note_widget(m, "undo");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(m->readout.redo_depth == 0);
    if (ImGui::Button("Redo")) m->actions.redo = true;
    ui_note_widget(m, "redo");
    ImGui::EndDisabled();
}

static void ladder_section(UiModel *m)
{
    if (!m->readout.cuda || !ImGui::CollapsingHeader("Kernel ladder")) return;
    ui_ladder_contents(m, px(190.0f));
}
static void scene_section(UiModel *m)
{
    if (!section(m, "Scene (applied on reset)", "Scene")) return;
    ui_scene_contents(m);
}

static void presets_section(UiModel *m)
{
    if (!section(m, "Presets", "Presets")) return;
    const char *current = m->controls.preset >= 0 && m->controls.preset < m->readout.preset_count ? m->readout.preset_names[m->controls.preset] : "(none)";
    if (ImGui::BeginCombo("preset", current)) {
        for (int i = 0; i < m->readout.preset_count; i++)
            if (ImGui::Selectable(m->readout.preset_names[i], i == m->controls.preset)) {
                m->controls.preset = i;
                m->actions.apply_preset = true;
            }
        ImGui::EndCombo();
    }
    ui_note_widget(m, "preset", true);
    ImGui::Checkbox("cycle", &m->controls.cycling);
    ui_note_widget(m, "cycle");
    ImGui::SameLine();
    ImGui::PushItemWidth(px(90.0f));
    ui_typed_slider_float(m, "seconds", UI_FIELD_CYCLE_SECONDS, &m->controls.cycle_seconds, m->ranges.cycle_seconds.lo,
                          m->ranges.cycle_seconds.hi, "%.0f s");
    ui_note_widget(m, "seconds", true);
    ImGui::PopItemWidth();
    ImGui::InputText("name", m->controls.preset_name, sizeof m->controls.preset_name);
    ui_note_widget(m, "name", true);
    ImGui::BeginDisabled(m->controls.preset_name[0] == '\0');
    if (ImGui::Button("Save current as preset")) m->actions.save_preset = true;
    ui_note_widget(m, "save preset");
    ImGui::EndDisabled();
    if (ImGui::Button("Run at scale...")) m->actions.run_at_scale = true;
    ui_note_widget(m, "run at scale");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Writes the run as it stands for SWIFT, a cluster N-body code: initial conditions,\n"
                          "parameters and a README with the commands (starburst export --swift DIR -n N\n"
                          "builds the same encounter at any N)");
}

// The running method's error against the f64 sum, as the app last measured it in the background.
static void live_error_lines(const UiModel *m)
{
    const UiForceError *f = m->readout.live_error_valid ? &m->readout.live_error : nullptr;
    // The method on a line of its own, "measuring..." after it: no line wider than the panel.
    if (f) {
        ImGui::Text("Force error against f64 (%d bodies),", f->samples);
        ImGui::Text("%s:", m->readout.live_error_what ? m->readout.live_error_what : "");
    }
    else
        ImGui::TextUnformatted("Force error against f64:");
    if (m->readout.live_error_measuring || !f) {
        ImGui::SameLine();
        ImGui::TextDisabled("measuring...");
    }
    if (f) ImGui::Text("median %.1e  99%% %.1e  max %.1e", f->median, f->p99, f->worst);
}

// What the open Diagnostics section shows: energy, momenta, the disks' heating, the force error.
static void diagnostics_lines(UiModel *m)
{
    const UiDiagnostics *d = m->readout.diag_valid ? &m->readout.diag : nullptr;
    if (d) {
        ImGui::Text("E %+.6e  (K %.4e, W %.4e)", d->total, d->kinetic, d->potential);
        ImGui::Text("2K/|W| %.4f", d->virial);
        ImGui::Text("P  %+.2e %+.2e %+.2e", d->momentum[0], d->momentum[1], d->momentum[2]);
        ImGui::Text("L  %+.2e %+.2e %+.2e", d->angular_momentum[0], d->angular_momentum[1], d->angular_momentum[2]);
        if (m->readout.erg_per_energy > 0) {
            ImGui::TextDisabled("model units; in physical ones:");
            ImGui::Text("E %+.3e erg  (K %.3e, W %.3e)", d->total * m->readout.erg_per_energy, d->kinetic * m->readout.erg_per_energy,
                        d->potential * m->readout.erg_per_energy);
            const double p = m->readout.momentum_unit, l = m->readout.angular_momentum_unit;
            ImGui::Text("P  %+.2e %+.2e %+.2e Msun km/s", d->momentum[0] * p, d->momentum[1] * p, d->momentum[2] * p);
            ImGui::Text("L  %+.2e %+.2e %+.2e Msun kpc km/s", d->angular_momentum[0] * l, d->angular_momentum[1] * l,
                        d->angular_momentum[2] * l);
        }
    } else {
        ImGui::TextDisabled("measuring...");
    }
    if (m->readout.energy_history_count > 1) {
        float lo = m->readout.energy_history[0], hi = lo;
        for (int i = 1; i < m->readout.energy_history_count; i++) {
            lo = m->readout.energy_history[i] < lo ? m->readout.energy_history[i] : lo;
            hi = m->readout.energy_history[i] > hi ? m->readout.energy_history[i] : hi;
        }
        // The range above the plot, not inside it, where a narrow plot would cut it.
        ImGui::Text("dE/E0 from %+.1e to %+.1e", lo, hi);
        ImGui::PlotLines("##dE", m->readout.energy_history, m->readout.energy_history_count, 0, nullptr, lo, hi,
                         ImVec2(ImGui::CalcItemWidth(), px(60.0f)));
    }
    ui_heating_lines(m);
    live_error_lines(m);
    if (ImGui::Button("Check forces against f64")) m->actions.check_forces = true;
    ui_note_widget(m, "check forces");
    if (m->readout.force_check_valid) {
        const UiForceError *f = &m->readout.force_check;
        ImGui::Text("%d bodies: median %.2e  99%% %.2e", f->samples, f->median, f->p99);
        ImGui::Text("99.9%% %.2e  worst %.2e  rms %.2e", f->p999, f->worst, f->rms);
    }
}

static void diagnostics_section(UiModel *m)
{
    m->controls.diagnostics_open = section(m, "Diagnostics", "Diagnostics");
    if (!m->controls.diagnostics_open) return;
    // Its lines wrap at the panel's width: a line that widened the panel (anchored at its right
    // edge) as the section opened would move the header's arrow from under the mouse, and the
    // click's release, then on the label, would close the section again.
    ImGui::PushTextWrapPos(0.0f);
    diagnostics_lines(m);
    ImGui::PopTextWrapPos();
}

// The tree overlay: on and off (T), its deepest level, and what it shows or why it shows nothing.
static void tree_controls(UiModel *m)
{
    ImGui::Checkbox("show tree", &m->controls.show_tree);
    ui_note_widget(m, "show tree");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The cells of the tree that summed the last forces (T)");
    ui_slider_int(m, "tree levels", &m->controls.tree_levels, 0, UI_TREE_LEVELS_MAX, "0 - %d", ImGuiSliderFlags_NoInput);
    ui_note_widget(m, "tree levels", true);
    if (m->readout.tree_note) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + px(260.0f));
        ImGui::TextDisabled("%s", m->readout.tree_note);
        ImGui::PopTextWrapPos();
    }
}

static void view_section(UiModel *m)
{
    if (!section(m, "View", "View", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
    ui_typed_slider_float(m, "point size", UI_FIELD_POINT_SIZE, &m->controls.point_size, m->ranges.point_size.lo,
                          m->ranges.point_size.hi, "%.2f", log);
    ui_note_widget(m, "point size", true);
    ui_typed_slider_float(m, "exposure", UI_FIELD_EXPOSURE, &m->controls.exposure, m->ranges.exposure.lo,
                          m->ranges.exposure.hi, "%.2f", log);
    ui_note_widget(m, "exposure", true);
    const UiNames *names = &m->names;
    if (ImGui::BeginCombo("colour", ui_name(names->color, names->color_count, m->controls.color_mode))) {
        for (int c = 0; c < names->color_count; c++)
            if (ImGui::Selectable(ui_name(names->color, names->color_count, c), c == m->controls.color_mode))
                m->controls.color_mode = c;
        ImGui::EndCombo();
    }
    ui_note_widget(m, "colour", true);
    ImGui::Checkbox("show halo", &m->controls.show_halo);
    ui_note_widget(m, "show halo");
    ImGui::SameLine();
    ImGui::Checkbox("auto-rotate", &m->controls.auto_rotate);
    ui_note_widget(m, "auto-rotate");
    tree_controls(m);
    if (ImGui::Button("Reset camera")) m->actions.reset_camera = true;
    ui_note_widget(m, "reset camera");
}

// Every key the program answers to, as the README lists them, in lines no wider than the
// controls: the widest line sets the panel's width, which at 640x360 left the HUD no room.
static const char *const ui_key_lines[] = {
    "space pause   . step   R reset",
    "Backspace defaults",
    "ctrl+Z undo   ctrl+Y redo",
    "H hide UI   F full screen   L lecture",
    "A auto-rotate   M colour   D halo",
    "G follow   T tree   C cycle",
    "K time the ladder   [ ] presets",
    "Home camera   S save   P screenshot",
    "V record   Esc quit",
    "Left Right keyframe",
    "ctrl+Left ctrl+Right ends",
    "shift+Left play backwards",
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
        ImGui::SetNextWindowCollapsed(ui_look.lecture, ImGuiCond_Always);
        ui.mode_changed = false;
    }
    // No taller than the screen: what does not fit scrolls inside (lecture type at 1280x720 is
    // twice the height of the screen).
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(FLT_MAX, io.DisplaySize.y - 2.0f * pad));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    const bool open = ImGui::Begin("Controls", nullptr, flags);
    // The title bar (its arrow folds and unfolds the panel), the whole panel, and the part of it
    // where the controls show (cut to the screen).
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    m->readout.panel_scroll[0] = open ? ImGui::GetScrollY() : -1.0f;
    m->readout.panel_scroll[1] = open ? ImGui::GetScrollMaxY() : -1.0f;
    ui_note_rect(m, "panel title", at, ImVec2(at.x + size.x, at.y + ImGui::GetFrameHeight()));
    if (open) {
        ui_note_rect(m, "panel", at, ImVec2(at.x + size.x, at.y + size.y));
        const ImRect shown = ImGui::GetCurrentWindow()->InnerClipRect;
        ui_note_rect(m, "panel view", shown.Min, shown.Max);
        ImGui::PushItemWidth(px(150.0f));
        simulation_section(m);
        if (!ui_look.lecture) ladder_section(m);
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

// The lecture scale for a screen of this size: LECTURE_SCALE from 1280x720 up, in proportion
// below (the tighter of width and height), never below 1.
static float lecture_scale_for(ImVec2 size)
{
    float s = LECTURE_SCALE;
    if (size.x > 0 && size.x < LECTURE_SCREEN_W && LECTURE_SCALE * size.x / LECTURE_SCREEN_W < s)
        s = LECTURE_SCALE * size.x / LECTURE_SCREEN_W;
    if (size.y > 0 && size.y < LECTURE_SCREEN_H && LECTURE_SCALE * size.y / LECTURE_SCREEN_H < s)
        s = LECTURE_SCALE * size.y / LECTURE_SCREEN_H;
    return s > 1.0f ? s : 1.0f;
}

// Between frames (the display's size known): the style and default font of the mode asked for.
// The lecture fonts are drawn at LECTURE_SCALE's size and scaled down by what a small screen
// takes off it.
static void set_mode(bool lecture)
{
    const float scale = lecture ? lecture_scale_for(ImGui::GetIO().DisplaySize) : ui_look.lecture_scale;
    if (lecture == ui_look.lecture && scale == ui_look.lecture_scale) return;
    if (lecture != ui_look.lecture) ui.mode_changed = true;
    if (scale != ui_look.lecture_scale) {
        ui.lecture_style = ui.normal_style;
        ui.lecture_style.ScaleAllSizes(scale);
        ui_look.lecture_scale = scale;
    }
    ui_look.lecture = lecture;
    ImGui::GetStyle() = lecture ? ui.lecture_style : ui.normal_style;
    ImGui::GetIO().FontDefault = lecture ? ui_look.large : ui_look.normal;
    const float font = lecture ? scale / LECTURE_SCALE : 1.0f;
    ui_look.large->Scale = font;
    ui_look.huge->Scale = font;
}

extern "C" void ui_frame(UiModel *m)
{
    if (!ui.created) return;
    m->readout.widget_count = 0;
    m->readout.hud[0] = '\0';
    m->readout.panel_scroll[0] = m->readout.panel_scroll[1] = -1.0f; /* no panel drawn */
    ImGui_ImplOpenGL3_NewFrame();
    if (ui.glfw) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        GLint viewport[4] = {0, 0, 0, 0};
        glGetIntegerv(GL_VIEWPORT, viewport);
        ImGuiIO &io = ImGui::GetIO();
        io.DisplaySize = ImVec2((float)viewport[2], (float)viewport[3]);
        io.DeltaTime = m->readout.fps > 0 ? (float)(1.0 / m->readout.fps) : 1.0f / 60.0f;
    }
    set_mode(m->controls.lecture);
    if (ui.glfw) {
        release_late_keys(-1);
        deliver_queued();
    }
    ImGui::NewFrame();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool mouse_valid = ImGui::IsMousePosValid(&mouse);
    m->readout.mouse_at[0] = mouse_valid ? mouse.x : -1.0f;
    m->readout.mouse_at[1] = mouse_valid ? mouse.y : -1.0f;
    // This frame sees the presses; the releases that came with them wait for the next.
    memset(ui.pressed, 0, sizeof ui.pressed);
    ui.frame_pressed = false;
    ui_look.field_opening = false; // the panel below raises it again while a field opens
    float above = ImGui::GetIO().DisplaySize.y; // the scale bar sits above the caption
    if (m->controls.visible) {
        if (ui_look.lecture) {
            ui_lecture_hud(m);
            ui_ladder_window(m);
        } else {
            ui_hud(m);
        }
        above = ui_caption(m, ui_timeline(m));
        panel(m);
    } else {
        hint();
    }
    ui_scalebar(m, above);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

extern "C" bool ui_wants_mouse(void) { return ui.created && ImGui::GetIO().WantCaptureMouse; }
// Asked as a key arrives, before the frame's NewFrame refreshes io.WantCaptureKeyboard: whether an
// item holds the input now (a text field, a slider being dragged), as the last frame left it.
extern "C" bool ui_wants_keyboard(void) { return ui.created && ImGui::IsAnyItemActive(); }
