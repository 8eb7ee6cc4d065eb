/* The shares of a step's work among the GPUs of one host, and --gpus all's choice (gpu_split.h):
 * arithmetic alone, tested where no GPU is. */
#include "sim/gpu_split.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pairs of the first t tasks, in squares. */
static double weight_before(int parts, int t)
{
    const int off = parts * (parts - 1) / 2;
    return t <= off ? (double)t : off + 0.5 * (t - off);
}

double gpu_split_weight(int parts, int first, int count)
{
    return weight_before(parts, first + count) - weight_before(parts, first);
}

/* The task count whose weight comes nearest w. */
static int tasks_for_weight(int parts, double w)
{
    const int off = parts * (parts - 1) / 2, tasks = off + parts;
    long t = w <= off ? lround(w) : off + lround(2.0 * (w - off));
    return t < 0 ? 0 : t > tasks ? tasks : (int)t;
}

void gpu_split_tasks(int parts, int gpus, int *first, int *count)
{
    if (gpus < 1) gpus = 1;
    if (gpus > GPU_SPLIT_MAX) gpus = GPU_SPLIT_MAX;
    if (parts < 0) parts = 0;
    const double total = weight_before(parts, parts * (parts + 1) / 2);
    int at = 0;
    for (int g = 0; g < gpus; g++) {
        const int end = g == gpus - 1 ? parts * (parts + 1) / 2 : tasks_for_weight(parts, total * (g + 1) / gpus);
        first[g] = at;
        count[g] = end > at ? end - at : 0;
        at += count[g];
    }
}

int gpu_count_parse(const char *s, int *gpus, char *err, size_t errlen)
{
    if (s && !strcmp(s, "all")) {
        *gpus = -1;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    const long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !isdigit((unsigned char)s[0]) || end == s || *end || errno || v < 1 || v > GPU_SPLIT_MAX) {
        snprintf(err, errlen, "--gpus: '%s' is not a GPU count: a whole number 1 to %d, or all", s ? s : "",
                 GPU_SPLIT_MAX);
        return -1;
    }
    *gpus = (int)v;
    return 0;
}

int gpu_count_resolve(int want, int found)
{
    int g = want < 0 || want > found ? found : want;
    if (g > GPU_SPLIT_MAX) g = GPU_SPLIT_MAX;
    return g < 1 ? 1 : g;
}

void gpu_choice_reset(GpuChoice *c)
{
    memset(c, 0, sizeof *c);
    c->decided = -1;
}

bool gpu_choice_split(const GpuChoice *c)
{
    if (c->decided >= 0) return c->decided == 1;
    return c->runs[1] <= c->runs[0];
}

static int counted(const GpuChoice *c, int mode) { return c->runs[mode] > 1 ? c->runs[mode] - 1 : 0; }

double gpu_choice_median(const GpuChoice *c, bool split)
{
    const int mode = split ? 1 : 0, k = counted(c, mode);
    if (k == 0) return 0;
    double v[GPU_CHOICE_SAMPLES];
    memcpy(v, c->ms[mode], sizeof v);
    for (int i = 1; i < k; i++) /* insertion sort of at most GPU_CHOICE_SAMPLES */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            const double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

bool gpu_choice_record(GpuChoice *c, bool split, double ms_per_step)
{
    const int mode = split ? 1 : 0;
    if (c->decided >= 0 || !(ms_per_step > 0) || counted(c, mode) >= GPU_CHOICE_SAMPLES) return false;
    if (c->runs[mode] > 0) c->ms[mode][c->runs[mode] - 1] = ms_per_step;
    c->runs[mode]++;
    if (counted(c, 0) < GPU_CHOICE_SAMPLES || counted(c, 1) < GPU_CHOICE_SAMPLES) return false;
    c->decided = gpu_choice_median(c, true) < gpu_choice_median(c, false) ? 1 : 0;
    return true;
}
