// The C API of ui.h over Dear ImGui: it draws the model and writes the user's edits back into
// it; what the edits mean is the app's business. With no window (headless) ImGui gets no input
// and takes the size of the current GL viewport.
#include <GL/glew.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <stdio.h>
#include <string.h>

#include "render/renderer.h"
#include "scene/scene.h"
#include "sim/sim.h"
#include "ui/ui.h"

// ImGui keeps one global context, so the bridge's few facts about it are global too.
static struct {
    bool created;
    bool glfw; // the GLFW backend feeds input and the display size
    float scale;
} ui;

static const ImVec4 notice_color(1.0f, 0.85f, 0.2f, 1.0f);
static const ImVec4 warning_color(1.0f, 0.55f, 0.3f, 1.0f);

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
    // The built-in font rasterised at the scaled size stays sharp, unlike FontGlobalScale.
    ImFontConfig font;
    font.SizePixels = 13.0f * font_scale;
    io.Fonts->AddFontDefault(&font);

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

static void hud(const UiModel *m)
{
    const float pad = 10.0f * ui.scale;
    ImGui::SetNextWindowPos(ImVec2(pad, pad), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.35f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoInputs;
    if (ImGui::Begin("##hud", nullptr, flags)) {
        ImGui::Text("%.0f fps (%.1f ms)", m->fps, m->fps > 0 ? 1000.0 / m->fps : 0.0);
        char rate[32];
        ImGui::Text("%.0f steps/s   %s interactions/s   %.1f GFLOP/s", m->steps_per_s,
                    compact_exp(m->interactions_per_s, rate, sizeof rate), m->gflops);
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
        if (m->notice) ImGui::TextColored(notice_color, "%s", m->notice);
    }
    ImGui::End();
}

static void simulation_section(UiModel *m)
{
    if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_NoRoundToFormat;
    ImGui::SliderFloat("dt", &m->dt, 1e-5f, 1e-1f, "%.2e", log);
    ImGui::SliderFloat("softening", &m->softening, 1e-4f, 1.0f, "%.2e", log);
    ImGui::SliderFloat("damping", &m->damping, 0.9f, 1.0f, m->damping >= 1.0f ? "1 (off)" : "%.4f");
    ImGui::SliderInt("steps/frame", &m->steps_per_frame, 1, 64);
    if (m->cuda) {
        int k = m->kernel == SIM_KERNEL_DEFAULT ? SIM_KERNEL_MTPB : m->kernel;
        if (ImGui::BeginCombo("kernel", sim_kernel_name((SimKernel)k))) {
            for (int i = SIM_KERNEL_NAIVE; i <= SIM_KERNEL_MTPB; i++)
                if (ImGui::Selectable(sim_kernel_name((SimKernel)i), i == k)) m->kernel = i;
            ImGui::EndCombo();
        }
    }
    if (ImGui::Button(m->paused ? "Resume" : "Pause")) m->paused = !m->paused;
    ImGui::SameLine();
    ImGui::BeginDisabled(!m->paused);
    if (ImGui::Button("Step")) m->step_once = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Reset")) m->reset = true;
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
    if (!ImGui::CollapsingHeader("Presets")) return;
    const char *current = m->preset >= 0 && m->preset < m->preset_count ? m->preset_names[m->preset] : "(none)";
    if (ImGui::BeginCombo("preset", current)) {
        for (int i = 0; i < m->preset_count; i++)
            if (ImGui::Selectable(m->preset_names[i], i == m->preset)) {
                m->preset = i;
                m->apply_preset = true;
            }
        ImGui::EndCombo();
    }
    ImGui::Checkbox("cycle", &m->cycling);
    ImGui::SameLine();
    ImGui::PushItemWidth(90.0f * ui.scale);
    ImGui::SliderFloat("seconds", &m->cycle_seconds, 5.0f, 300.0f, "%.0f");
    ImGui::PopItemWidth();
    ImGui::InputText("name", m->preset_name, sizeof m->preset_name);
    ImGui::BeginDisabled(m->preset_name[0] == '\0');
    if (ImGui::Button("Save current as preset")) m->save_preset = true;
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
        char label[64];
        snprintf(label, sizeof label, "dE/E0 %+.1e .. %+.1e", lo, hi);
        ImGui::PlotLines("##dE", m->energy_history, m->energy_history_count, 0, label, lo, hi,
                         ImVec2(0, 60.0f * ui.scale));
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
    ImGui::SliderFloat("exposure", &m->exposure, 0.05f, 20.0f, "%.2f", log);
    if (ImGui::BeginCombo("colour", renderer_color_mode_name((ColorMode)m->color_mode))) {
        for (int c = 0; c < COLOR_MODE_COUNT; c++)
            if (ImGui::Selectable(renderer_color_mode_name((ColorMode)c), c == m->color_mode))
                m->color_mode = c;
        ImGui::EndCombo();
    }
    ImGui::Checkbox("show halo", &m->show_halo);
    ImGui::SameLine();
    ImGui::Checkbox("auto-rotate", &m->auto_rotate);
    if (ImGui::Button("Reset camera")) m->reset_camera = true;
}

static void panel(UiModel *m)
{
    const float pad = 10.0f * ui.scale;
    const ImGuiIO &io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - pad, pad), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.75f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Controls", nullptr, flags)) {
        ImGui::PushItemWidth(150.0f * ui.scale);
        simulation_section(m);
        scene_section(m);
        presets_section(m);
        view_section(m);
        diagnostics_section(m);
        ImGui::PopItemWidth();
        ImGui::Separator();
        ImGui::TextDisabled("space pause  . step  R reset  H hide UI  D halo");
        ImGui::TextDisabled("[ ] presets  C cycle  S save  F fullscreen  Esc quit");
    }
    ImGui::End();
}

static void hint(void)
{
    const float pad = 6.0f * ui.scale;
    ImGui::SetNextWindowPos(ImVec2(pad, ImGui::GetIO().DisplaySize.y - pad), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoInputs |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    if (ImGui::Begin("##hint", nullptr, flags)) ImGui::TextDisabled("H: show UI");
    ImGui::End();
    ImGui::PopStyleVar();
}

extern "C" void ui_frame(UiModel *m)
{
    if (!ui.created) return;
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
        hud(m);
        panel(m);
    } else {
        hint();
    }
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

extern "C" bool ui_wants_mouse(void) { return ui.created && ImGui::GetIO().WantCaptureMouse; }
extern "C" bool ui_wants_keyboard(void) { return ui.created && ImGui::GetIO().WantCaptureKeyboard; }
