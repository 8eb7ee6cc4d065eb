// The C API of chart.h. A chart is drawn with a private ImGui context into a framebuffer of its
// own: only the draw list is used (text, lines, shapes), then ImGui's OpenGL backend renders it
// and capture.c writes the pixels. White background and dark type, as figures on slides and in
// reports are.
#include <GL/glew.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "render/capture.h"
}
#include "bench/chart.h"
#include "util/font.h"

// The first eight of Tableau's ten colours (matplotlib's default cycle): distinct on white.
static const uint8_t chart_palette[CHART_MAX_SERIES][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
};

extern "C" void chart_color(int series, uint8_t rgb[3])
{
    const uint8_t *c = chart_palette[((series % CHART_MAX_SERIES) + CHART_MAX_SERIES) % CHART_MAX_SERIES];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

// The palette slot of series s: its own, or its position.
static int series_slot(const Chart *c, int s) { return c->series[s].color > 0 ? c->series[s].color - 1 : s; }

static ImU32 series_color(const Chart *c, int s)
{
    uint8_t rgb[3];
    chart_color(series_slot(c, s), rgb);
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
    ChartScale scale;
    double lo, hi;  // the range shown
    int exponent;   // linear: labels in units of 10^exponent (0 = as they are)
    Tick ticks[CHART_MAX_TICKS];
    int tick_count;
} Axis;

static bool shown_on(ChartScale scale, double v) { return isfinite(v) && (scale == CHART_LINEAR || v > 0); }

static double axis_t(ChartScale scale, double v) { return scale == CHART_LINEAR ? v : log10(v); }
static double axis_inv(ChartScale scale, double t) { return scale == CHART_LINEAR ? t : pow(10.0, t); }

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
static void axis_build(Axis *a, ChartScale scale, const double *values, int count, double extra, bool from_zero)
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
        lo = scale == CHART_LINEAR ? 0 : 1;
        hi = scale == CHART_LINEAR ? 1 : 10;
    }
    if (scale == CHART_LINEAR && from_zero) lo = fmin(lo, 0);
    if (hi - lo <= fabs(hi) * 1e-9) { // one value: a span around it
        if (scale == CHART_LINEAR) {
            double d = hi != 0 ? fabs(hi) * 0.5 : 1;
            lo -= from_zero && lo >= 0 ? 0 : d;
            hi += d;
        } else {
            lo /= 2;
            hi *= 2;
        }
    }
    double tlo = axis_t(scale, lo), thi = axis_t(scale, hi), margin = 0.05 * (thi - tlo);
    a->lo = scale == CHART_LINEAR && from_zero && lo == 0 ? 0 : axis_inv(scale, tlo - margin);
    a->hi = axis_inv(scale, thi + margin);

    if (scale == CHART_LINEAR) {
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
    } else if (scale == CHART_LOG2) {
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

static void draw_chart(ImDrawList *dl, const Chart *c, const ChartFonts *f, float width, float height)
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
        const ChartSeries *se = &c->series[s];
        for (int i = 1; i < se->count; i++)
            if (shown_on(c->x.scale, se->x[i - 1]) && shown_on(c->y.scale, se->y[i - 1]) &&
                shown_on(c->x.scale, se->x[i]) && shown_on(c->y.scale, se->y[i]))
                dl->AddLine(ImVec2(sx(se->x[i - 1]), sy(se->y[i - 1])), ImVec2(sx(se->x[i]), sy(se->y[i])),
                            series_color(c, s), line);
    }
    for (int s = 0; s < c->series_count; s++) {
        const ChartSeries *se = &c->series[s];
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

static int chart_check(const Chart *c, int width, int height, char *err, size_t errlen)
{
    if (!c) {
        snprintf(err, errlen, "chart: no chart given");
        return -1;
    }
    if (width < 64 || height < 64 || width > 8192 || height > 8192) {
        snprintf(err, errlen, "chart: %d x %d pixels: each side must be 64 .. 8192", width, height);
        return -1;
    }
    if (c->series_count < 0 || c->series_count > CHART_MAX_SERIES) {
        snprintf(err, errlen, "chart: %d series: a chart holds 0 .. %d", c->series_count, CHART_MAX_SERIES);
        return -1;
    }
    for (int s = 0; s < c->series_count; s++) {
        const ChartSeries *se = &c->series[s];
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

extern "C" int chart_render_png(const Chart *chart, const char *path, int width, int height, char *err,
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
    fonts.text = font_add(io.Fonts, "DejaVuSans.ttf", roundf(24 * u));
    fonts.label = font_add(io.Fonts, "DejaVuSans.ttf", roundf(28 * u));
    fonts.title = font_add(io.Fonts, "DejaVuSans-Bold.ttf", roundf(38 * u));
    fonts.small = font_add(io.Fonts, "DejaVuSans.ttf", roundf(17 * u));
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
