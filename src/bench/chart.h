/* Charts: figures for slides and reports (the bench's sweep), drawn off screen with the same
 * renderer as the UI (Dear ImGui's draw list) and written as PNG. A C API; chart.cpp is C++. */
#ifndef STARBURST_CHART_H
#define STARBURST_CHART_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHART_MAX_SERIES 8

typedef enum ChartScale {
    CHART_LINEAR = 0, /* y from 0 */
    CHART_LOG10,      /* labelled decades */
    CHART_LOG2,       /* labelled powers of two: body counts, block sizes */
} ChartScale;

typedef struct ChartAxis {
    const char *label;
    ChartScale scale;
} ChartAxis;

/* count points in order of x. A non-finite y, or y <= 0 on a log axis, leaves a gap. */
typedef struct ChartSeries {
    const char *name;
    const double *x, *y;
    int count;
    int color; /* 1 + a palette slot, to keep one colour and marker per thing across charts;
                * 0 = the slot of its position */
} ChartSeries;

typedef struct Chart {
    const char *title;
    const char *subtitle; /* NULL = none */
    ChartAxis x, y;
    ChartSeries series[CHART_MAX_SERIES];
    int series_count;
    double reference; /* a dashed horizontal line at this y (a peak rate, say); 0 = none */
    const char *reference_label;
} Chart;

/* Draws the chart at width x height into a framebuffer of its own in the current GL 3.3 context
 * and writes it as PNG. A private ImGui context does the drawing: the UI of ui_create, if any, is
 * left as it was. 0, or -1 with one line in err. */
int chart_render_png(const Chart *chart, const char *path, int width, int height, char *err, size_t errlen);
/* The colour of series i in charts (the palette repeats after CHART_MAX_SERIES). */
void chart_color(int series, uint8_t rgb[3]);

#ifdef __cplusplus
}
#endif

#endif
