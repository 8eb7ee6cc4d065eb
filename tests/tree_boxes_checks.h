/* What sim_tree_boxes must give on every backend, as checks the CPU tests (unit) and the CUDA tests
 * (gpu) run alike: the root holds every body; the cells of a level are disjoint cubes of one size,
 * each inside a cell of the level above; every body lies in a cell of each level down to the leaf
 * that holds it, and a cell holds the bodies it says; the tree's stats count the same cells and
 * levels; max_level and cap cut as they should.
 * Include after <cmocka.h>. */
#ifndef STARBURST_TEST_TREE_BOXES_CHECKS_H
#define STARBURST_TEST_TREE_BOXES_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "sim/sim.h"

static const SimParams tree_boxes_params = {.dt = 0.01f, .softening = 0.05f, .damping = 1.0f};

/* A simulation of scene `kind` with n bodies (seed 7) on backend, its bodies in b. */
static inline Sim *tree_boxes_sim(SimBackend backend, SceneKind kind, int n, SimForce force, Bodies *b)
{
    char err[256] = "";
    SceneInfo info;
    if (scene_build(&(SceneDesc){.kind = kind, .n = n, .seed = 7}, b, &info, err, sizeof err) != 0)
        fail_msg("scene: %s", err);
    Sim *s = sim_create(&(SimDesc){.backend = backend, .force = force}, b, err, sizeof err);
    if (!s) fail_msg("sim_create: %s", err);
    return s;
}

/* A body on a face belongs to one cell or the next depending on rounding: a little slack, in units
 * of the root's side (well above float rounding, far below any cell), lets either count. */
#define TREE_BOX_SLACK 1e-6

static inline bool tree_box_holds(const SimTreeBox *b, const float *p, double slack)
{
    const double h = b->half + slack;
    return fabs(p[0] - (double)b->x) <= h && fabs(p[1] - (double)b->y) <= h && fabs(p[2] - (double)b->z) <= h;
}

/* Two cubes of one level overlap when their centres are less than a side apart on every axis. */
static inline bool tree_boxes_overlap(const SimTreeBox *a, const SimTreeBox *b)
{
    const double side = 2.0 * a->half * (1 - 1e-4);
    return fabs((double)a->x - b->x) < side && fabs((double)a->y - b->y) < side && fabs((double)a->z - b->z) < side;
}

/* Checks the cells of s's last tree against the bodies it holds; returns the depth. */
static inline int check_tree_boxes(Sim *s, const char *what)
{
    const int n = sim_count(s);
    Bodies b;
    assert_int_equal(bodies_alloc(&b, n), 0);
    sim_read(s, &b);
    int depth = -1;
    const int total = sim_tree_boxes(s, 64, NULL, 0, &depth);
    assert_true(total >= 1);
    /* The last force call's counts describe the same tree. */
    SimTreeStats stats;
    assert_true(sim_tree_stats(s, &stats));
    assert_int_equal(stats.n, n);
    assert_int_equal(stats.cells, total);
    assert_int_equal(stats.depth, depth);
    SimTreeBox *box = malloc((size_t)total * sizeof *box);
    int *first = calloc((size_t)depth + 3, sizeof *first); /* level l: [first[l], first[l + 1]) */
    assert_true(box && first);
    assert_int_equal(sim_tree_boxes(s, 64, box, total, NULL), total);

    /* Root first, then level by level, each level's cells of one size: half the level above's. */
    assert_int_equal(box[0].level, 0);
    assert_int_equal(box[0].bodies, n);
    for (int i = 1; i < total; i++) {
        assert_true(box[i].level == box[i - 1].level || box[i].level == box[i - 1].level + 1);
        if (box[i].level != box[i - 1].level) first[box[i].level] = i;
        assert_true(fabs((double)box[i].half * (1 << box[i].level) - box[0].half) <= 1e-6 * box[0].half);
    }
    first[depth + 1] = first[depth + 2] = total;
    assert_int_equal(box[total - 1].level, depth);
    const double slack = TREE_BOX_SLACK * 2 * box[0].half;

    long long overlaps = 0, orphans = 0;
    for (int level = 1; level <= depth; level++)
        for (int i = first[level]; i < first[level + 1]; i++) {
            for (int j = i + 1; j < first[level + 1]; j++) overlaps += tree_boxes_overlap(&box[i], &box[j]);
            /* Its parent: the cell of the level above that holds its centre. */
            const float centre[3] = {box[i].x, box[i].y, box[i].z};
            int parents = 0;
            for (int j = first[level - 1]; j < first[level]; j++) parents += tree_box_holds(&box[j], centre, 0);
            orphans += parents != 1;
        }
    /* A leaf: a cell that holds no cell of the level below. */
    char *leaf = malloc((size_t)total);
    assert_non_null(leaf);
    for (int i = 0; i < total; i++) {
        const int level = box[i].level;
        leaf[i] = 1;
        for (int j = first[level + 1]; j < first[level + 2]; j++) {
            const float centre[3] = {box[j].x, box[j].y, box[j].z};
            if (tree_box_holds(&box[i], centre, 0)) {
                leaf[i] = 0;
                break;
            }
        }
    }
    /* Each body: in a cell of every level, from the root down to a leaf; where a body lies in two
     * cells within the slack, in the one whose centre is nearer. Such a body near a face may go to
     * the cell beside the one whose key it has: two counts off by one for each. */
    int *inside = calloc((size_t)total, sizeof *inside);
    assert_non_null(inside);
    long long uncovered = 0, near_face = 0, miscounted = 0;
    for (int k = 0; k < n; k++) {
        const float *p = b.pos + 4 * k;
        for (int level = 0; level <= depth; level++) {
            int best = -1;
            double nearest = INFINITY;
            for (int i = first[level]; i < first[level + 1]; i++) {
                const double d = fmax(fabs(p[0] - (double)box[i].x),
                                      fmax(fabs(p[1] - (double)box[i].y), fabs(p[2] - (double)box[i].z)));
                if (d <= box[i].half + slack && d < nearest) best = i, nearest = d;
            }
            if (best < 0) {
                uncovered++;
                break;
            }
            near_face += nearest >= box[best].half - slack;
            inside[best]++;
            if (leaf[best]) break;
        }
    }
    for (int i = 0; i < total; i++) miscounted += abs(inside[i] - box[i].bodies);
    print_message("%s: %d cells, %d levels below the root: %lld overlaps, %lld without one parent, %lld bodies "
                  "outside the cells, counts off by %lld in all (%lld bodies on a face)\n",
                  what, total, depth, overlaps, orphans, uncovered, miscounted, near_face);
    assert_int_equal(overlaps, 0);
    assert_int_equal(orphans, 0);
    assert_int_equal(uncovered, 0);
    assert_true(miscounted <= 2 * near_face);
    free(inside);
    free(leaf);
    free(first);
    free(box);
    bodies_free(&b);
    return depth;
}

/* More cells at each level asked for, up to all of them; none below level 0; a cap below the
 * count fills out to the cap, leaves the rest alone and still counts them all. */
static inline void check_tree_box_levels_and_cap(Sim *s, int level)
{
    int depth = 0;
    const int all = sim_tree_boxes(s, 64, NULL, 0, &depth);
    assert_int_equal(sim_tree_boxes(s, 0, NULL, 0, NULL), 1);
    int previous = 1;
    for (int l = 1; l <= depth; l++) {
        const int count = sim_tree_boxes(s, l, NULL, 0, NULL);
        assert_true(count > previous);
        previous = count;
    }
    assert_int_equal(previous, all);
    assert_int_equal(sim_tree_boxes(s, -1, NULL, 0, NULL), 0);

    const int upto = sim_tree_boxes(s, level, NULL, 0, NULL), cap = upto / 2;
    SimTreeBox *out = malloc((size_t)(cap + 1) * sizeof *out);
    assert_non_null(out);
    memset(out, 0xab, (size_t)(cap + 1) * sizeof *out);
    const SimTreeBox untouched = out[cap];
    assert_int_equal(sim_tree_boxes(s, level, out, cap, NULL), upto);
    assert_int_equal(out[0].level, 0);
    assert_int_equal(out[0].bodies, sim_count(s));
    assert_true(out[cap - 1].level <= level);
    assert_memory_equal(&out[cap], &untouched, sizeof untouched);
    print_message("%d cells in %d levels below the root, %d in levels 0-%d\n", all, depth, upto, level);
    free(out);
}

/* The checks on a collision, a Plummer sphere and a cold ball of n bodies after two tree steps;
 * each tree at least min_depth levels deep. */
static inline void check_tree_boxes_on_scenes(SimBackend backend, int n, int min_depth)
{
    const SceneKind kinds[] = {SCENE_COLLISION, SCENE_PLUMMER, SCENE_RANDOM};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        Bodies b;
        Sim *s = tree_boxes_sim(backend, kinds[k], n, SIM_FORCE_TREE, &b);
        sim_advance(s, &tree_boxes_params, 2);
        assert_true(check_tree_boxes(s, scene_name(kinds[k])) >= min_depth);
        assert_null(sim_error(s));
        sim_destroy(s);
        bodies_free(&b);
    }
}

#endif
