/* How the work of a step is shared among the GPUs of one host (docs/MULTI_GPU.md): pure
 * arithmetic, so that it is tested where no GPU is.
 *
 * The direct sum runs the symmetric kernel, whose work is a list of tasks, pairs of parts of the
 * bodies: parts (parts - 1) / 2 off-diagonal squares first, then parts diagonal ones that hold
 * about half the pairs of a square. Each GPU takes a run of consecutive tasks whose pairs come
 * nearest an equal share. */
#ifndef STARBURST_GPU_SPLIT_H
#define STARBURST_GPU_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#define GPU_SPLIT_MAX 8 /* GPUs of one host a run can take */

/* The tasks of the symmetric kernel with `parts` parts: GPU g takes first[g] .. first[g] +
 * count[g] - 1, g = 0 .. gpus - 1, in order, together every task once. A GPU's count may be 0
 * (more GPUs than tasks). gpus is clamped to 1 .. GPU_SPLIT_MAX. */
void gpu_split_tasks(int parts, int gpus, int *first, int *count);

/* The pairs of tasks first .. first + count - 1, in squares (a diagonal task counts one half). */
double gpu_split_weight(int parts, int first, int count);

/* "--gpus" as given: "all" is -1, a whole number 1 .. GPU_SPLIT_MAX itself; else -1 with one
 * line in err naming the problem. Returns 0 or -1. */
int gpu_count_parse(const char *s, int *gpus, char *err, size_t errlen);

/* The GPUs a run takes: want (-1 = all) of the `found` on the host, at most GPU_SPLIT_MAX, at
 * least 1. */
int gpu_count_resolve(int want, int found);

/* --gpus all keeps the other GPUs only where they pay, as measured: its first advances alternate
 * between the split and the first GPU alone, the split first, and time both; after
 * GPU_CHOICE_SAMPLES timed advances of each (a first one of each, which makes and captures what
 * it needs, not counted) the faster median ms a step is kept, until gpu_choice_reset (other
 * bodies, another method or kernel). Both give the same bits, so the choice changes only time. */
#define GPU_CHOICE_SAMPLES 3
typedef struct GpuChoice {
    int runs[2];                         /* advances run: [0] alone, [1] split */
    double ms[2][GPU_CHOICE_SAMPLES];    /* their ms a step, the first run of each left out */
    int decided;                         /* -1 while timing; 0 alone; 1 split */
} GpuChoice;
void gpu_choice_reset(GpuChoice *c);
/* Whether the next advance splits. */
bool gpu_choice_split(const GpuChoice *c);
/* The last advance's ms a step, in the mode it ran (split or not); a value that is not a positive
 * time is not counted. True when this decided. */
bool gpu_choice_record(GpuChoice *c, bool split, double ms_per_step);
/* The median ms a step of a mode's counted advances (0 before any). */
double gpu_choice_median(const GpuChoice *c, bool split);

#endif
