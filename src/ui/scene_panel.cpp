// The panel's Scene section: what the next reset builds. The scene, its bodies and seed, the halo
// mode, and for the collision its encounter as Galaxy Crash offers one: the mass ratio, the
// orbit's pericentre and eccentricity and each disk's tilt. A preset selected fills them (the app
// does, from what it built); R builds what they say; a value typed (ctrl+click) goes to the app,
// which reads it as the command line does ("20kpc").
#include "ui/ui_internal.h"

// A tilt past a right angle turns the disk's spin against the orbit's.
static const char *spin_word(float inclination) { return inclination > 90.0f || inclination < -90.0f ? "retrograde" : "prograde"; }

static void encounter_controls(UiModel *m)
{
    UiEncounter *e = &m->controls.encounter;
    const UiRanges *r = &m->ranges;
    bool began = false; // nothing to undo: these wait for the reset
    const SliderSpec ratio = {RULE_LOG, r->mass_ratio.lo, r->mass_ratio.hi, UI_FIELD_MASS_RATIO, nullptr};
    ui_rule_slider(m, "mass ratio", &e->mass_ratio, &ratio, &began);
    ui_note_widget(m, "mass ratio", true);
    if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("galaxy B's mass over A's: B is A scaled, its size by the square root");
    const SliderSpec peri = {RULE_LOG, r->pericentre.lo, r->pericentre.hi, UI_FIELD_PERICENTRE, m->readout.pericentre_note};
    ui_rule_slider(m, "pericentre", &e->pericentre, &peri, &began);
    ui_note_widget(m, "pericentre", true);
    const SliderSpec ecc = {RULE_LOG, r->eccentricity.lo, r->eccentricity.hi, UI_FIELD_ECCENTRICITY, nullptr};
    ui_rule_slider(m, "eccentricity", &e->eccentricity, &ecc, &began);
    ui_note_widget(m, "eccentricity", true);
    if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("1: a parabola (the pair falls in from rest far away)\n"
                          "below 1: bound, the pair starts at its apocentre if that is nearer\n"
                          "above 1: a hyperbola, a faster fly-by");
    ui_typed_slider_float(m, "inclination A", UI_FIELD_INCLINATION_A, &e->inclination_a, r->inclination.lo,
                          r->inclination.hi, "%.0f deg");
    ui_note_widget(m, "inclination A", true);
    ui_typed_slider_float(m, "inclination B", UI_FIELD_INCLINATION_B, &e->inclination_b, r->inclination.lo,
                          r->inclination.hi, "%.0f deg");
    ui_note_widget(m, "inclination B", true);
    ImGui::TextDisabled("disk A %s, disk B %s", spin_word(e->inclination_a), spin_word(e->inclination_b));
}

void ui_scene_contents(UiModel *m)
{
    const UiNames *names = &m->names;
    if (ImGui::BeginCombo("scene", ui_name(names->scene, names->scene_count, m->controls.scene))) {
        for (int k = 0; k < names->scene_count; k++)
            if (ImGui::Selectable(ui_name(names->scene, names->scene_count, k), k == m->controls.scene)) m->controls.scene = k;
        ImGui::EndCombo();
    }
    ui_note_widget(m, "scene", true);
    if (ImGui::InputInt("bodies", &m->controls.n, 1024, 16384)) {
        if (m->controls.n < m->ranges.bodies.lo) m->controls.n = m->ranges.bodies.lo;
        if (m->controls.n > m->ranges.bodies.hi) m->controls.n = m->ranges.bodies.hi;
    }
    ui_note_widget(m, "bodies", true);
    if (ImGui::InputInt("seed", &m->controls.seed) && m->controls.seed < 0) m->controls.seed = 0;
    ui_note_widget(m, "seed", true);
    ImGui::Checkbox("live halo", &m->controls.live_halo);
    ui_note_widget(m, "live_halo");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("on: each dark halo is bodies, which respond and are stripped\n"
                          "off: a field about a moving centre, with dynamical friction: every body a star");
    if (m->controls.scene == names->scene_encounter) encounter_controls(m);
}
