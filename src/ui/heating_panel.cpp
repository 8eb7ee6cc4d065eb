// The disks' heating in Diagnostics (UiHeating): each disk's thickness and sigma_R against the
// run's start, coloured when they drift, Toomre's Q, the thickness over time, and a line saying
// what the drift means; and the HUD's mark beside dE/E0 while a disk is flagged. Physical units
// where the scene has them, model units otherwise.
#include <stdio.h>

#include "ui/ui_internal.h"

// Amber above the warm level, red above the hot one.
static const ImVec4 *drift_color(const UiHeating *h, double drift)
{
    return drift > h->hot ? &alarm_color : drift > h->warn ? &warning_color : nullptr;
}

static const char *length_text(const UiHeating *h, double x, char *buf, size_t len)
{
    if (h->kpc <= 0) snprintf(buf, len, "%.3f", x);
    else if (x * h->kpc < 1.0) snprintf(buf, len, "%.0f pc", x * h->kpc * 1000.0);
    else snprintf(buf, len, "%.2f kpc", x * h->kpc);
    return buf;
}

static const char *speed_text(const UiHeating *h, double v, char *buf, size_t len)
{
    if (h->kms <= 0) snprintf(buf, len, "%.3f", v);
    else snprintf(buf, len, "%.0f km/s", v * h->kms);
    return buf;
}

static const char *time_text(const UiHeating *h, double t, char *buf, size_t len)
{
    if (h->myr <= 0) snprintf(buf, len, "t %.3g", t);
    else if (t * h->myr >= 1000.0) snprintf(buf, len, "%.2f Gyr", t * h->myr / 1000.0);
    else snprintf(buf, len, "%.0f Myr", t * h->myr);
    return buf;
}

static void colored_text(const ImVec4 *color, const char *text)
{
    if (color) ImGui::TextColored(*color, "%s", text);
    else ImGui::TextUnformatted(text);
}

// Whether the disk's drift counts as the integration's: no encounter heats it (yet).
static bool numerical_phase(const UiHeatingDisk *d) { return d->encounter < 0; }

static void disk_lines(const UiHeating *h, int g)
{
    const UiHeatingDisk *d = &h->disk[g];
    const bool flagged = numerical_phase(d);
    char a[32], b[32], c[32], line[160];
    const char *name = h->disks > 1 ? (g == 0 ? "A " : "B ") : "";
    snprintf(line, sizeof line, "%sdisk thickness %s (%+.0f %%)", name, length_text(h, d->rms_z, a, sizeof a),
             100.0 * d->thickness_drift);
    colored_text(flagged ? drift_color(h, d->thickness_drift) : nullptr, line);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("rms height of the disk's bodies above its plane; %s at the start", length_text(h, d->rms_z0, a, sizeof a));
    snprintf(line, sizeof line, "%ssigma_R %s (%+.0f %%), Q %.2f", h->disks > 1 ? "  " : "",
             speed_text(h, d->sigma_r, a, sizeof a), 100.0 * d->sigma_drift, d->toomre_q);
    colored_text(flagged && d->base >= 0 ? drift_color(h, d->sigma_drift) : nullptr, line);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("radial velocity dispersion and Toomre's Q at R %s to %s; %s %s and Q %.2f",
                          length_text(h, d->ring[0], a, sizeof a), length_text(h, d->ring[1], b, sizeof b),
                          d->base >= 0 ? "once settled" : "at the start", speed_text(h, d->sigma_rb, c, sizeof c),
                          d->toomre_qb);
}

// The thickness of each disk over the start's; the scale holds 1 to 1.1 at least, so that a steady
// disk draws a flat line, not its sampling noise magnified.
static void thickness_plot(const UiHeating *h)
{
    float lo = 1.0f, hi = 1.1f;
    for (int g = 0; g < h->disks; g++)
        for (int i = 0; i < h->disk[g].count; i++) {
            const float v = h->disk[g].thickness[i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    if (h->disk[0].count < 2) return;
    ImGui::Text("thickness / start, %.2f to %.2f", lo, hi);
    for (int g = 0; g < h->disks; g++) {
        char id[24];
        snprintf(id, sizeof id, "##heat%d", g);
        ImGui::PlotLines(id, h->disk[g].thickness, h->disk[g].count, 0, h->disks > 1 ? (g == 0 ? "A" : "B") : nullptr,
                         lo, hi, ImVec2(ImGui::CalcItemWidth(), px(h->disks > 1 ? 30.0f : 45.0f)));
    }
}

// What the drift means, in one line.
static void verdict(const UiHeating *h)
{
    char t[32], c[32], line[320];
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + px(260.0f));
    switch (h->state) {
    case UI_HEATING_WARM:
    case UI_HEATING_HOT:
        colored_text(h->state == UI_HEATING_HOT ? &alarm_color : &warning_color,
                     "Numerical heating: the disk thickens or warms at constant energy (two-body relaxation: a "
                     "body is far heavier than a star); more bodies heat less.");
        break;
    case UI_HEATING_TIDAL: {
        // The earliest encounter of the disks, and what they had drifted before it.
        double since = -1, tide = 0, before = 0;
        for (int g = 0; g < h->disks; g++) {
            const UiHeatingDisk *d = &h->disk[g];
            if (d->encounter >= 0 && (since < 0 || d->encounter < since)) since = d->encounter;
            tide = d->tidal > tide ? d->tidal : tide;
            before = d->peak_drift > before ? d->peak_drift : before;
        }
        snprintf(line, sizeof line,
                 "Heating is now the encounter's: since %s the other galaxy's tide is over %.0f %% of a disk's own "
                 "pull (now %.0f %%), and the growth it drives is not numerical. Before it they had drifted %+.0f %%.",
                 time_text(h, since, t, sizeof t), 100.0 * h->tidal_limit, 100.0 * tide, 100.0 * before);
        ImGui::TextDisabled("%s", line);
        break;
    }
    default:
        if (h->time < h->settled)
            ImGui::TextDisabled("Steady: thickness within %.0f %% of the start (%s); sigma_R is judged from %s on, "
                                "once the disk has settled in its first rotation.",
                                100.0 * h->warn, time_text(h, h->since, t, sizeof t),
                                time_text(h, h->settled, c, sizeof c));
        else
            ImGui::TextDisabled("Steady: thickness within %.0f %% of the start (%s), sigma_R of the settled disk.",
                                100.0 * h->warn, time_text(h, h->since, t, sizeof t));
        break;
    }
    ImGui::PopTextWrapPos();
}

void ui_heating_lines(const UiModel *m)
{
    const UiHeating *h = &m->readout.heating;
    if (h->disks == 0) return;
    ImGui::Separator();
    for (int g = 0; g < h->disks; g++) disk_lines(h, g);
    thickness_plot(h);
    verdict(h);
}

bool ui_heating_flag(const UiModel *m, char *buf, size_t len, ImVec4 *color)
{
    const UiHeating *h = &m->readout.heating;
    if (h->state != UI_HEATING_WARM && h->state != UI_HEATING_HOT) return false;
    // The drift of the disks still flagged: one the encounter heats is not.
    double drift = 0;
    for (int g = 0; g < h->disks; g++) {
        const UiHeatingDisk *d = &h->disk[g];
        if (d->state == UI_HEATING_WARM || d->state == UI_HEATING_HOT) drift = d->drift > drift ? d->drift : drift;
    }
    snprintf(buf, len, "disk heated %+.0f %%", 100.0 * drift);
    *color = h->state == UI_HEATING_HOT ? alarm_color : warning_color;
    return true;
}
