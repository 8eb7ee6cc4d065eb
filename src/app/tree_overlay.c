/* T: the tree's cells drawn over the bodies, copied from the simulation while shown. */
#include <stdio.h>
#include <stdlib.h>

#include "app/viewer.h"

/* T: says what the overlay shows, or why it shows nothing. */
void app_say_tree(App *a)
{
    if (!a->ui.controls.show_tree)
        app_notify(a, "Tree cells hidden (T shows them)");
    else if (sim_force(run_sim(a->run)) != SIM_FORCE_TREE && sim_force(run_sim(a->run)) != SIM_FORCE_FMM)
        app_notify(a, "The tree overlay shows the tree method's cells: choose tree or fmm (force, in the Simulation "
                      "section)");
    else
        app_notify(a, "Tree cells shown to level %d (tree levels, in the View section; T hides them)",
                   a->ui.controls.tree_levels);
}

/* The cells the overlay draws, copied again when the tree has changed (at most every
 * TREE_OVERLAY_SECONDS) or other levels are asked for; nothing is copied while it is off. A cap
 * leaves out whole levels, never part of one. */
void app_tree_overlay(App *a, double t)
{
    UiModel *u = &a->ui;
    if (!u->controls.show_tree) {
        u->readout.tree_note = NULL;
        a->tree.sim = NULL; /* shown again, it copies at once */
        return;
    }
    u->readout.tree_note = a->tree.note;
    const SimForce force = sim_force(run_sim(a->run));
    const long long step = sim_stats(run_sim(a->run)).total_steps;
    const bool asked = a->tree.sim != run_sim(a->run) || a->tree.levels != u->controls.tree_levels || a->tree.force != (int)force;
    if (!asked && (step == a->tree.step || t < a->tree.next)) return;
    a->tree.sim = run_sim(a->run);
    a->tree.step = step;
    a->tree.levels = u->controls.tree_levels;
    a->tree.force = (int)force;
    a->tree.next = t + TREE_OVERLAY_SECONDS;
    a->tree.drawn = 0;
    a->tree.capped = false;
    renderer_set_boxes(a->renderer, NULL, 0);
    if (force != SIM_FORCE_TREE && force != SIM_FORCE_FMM) {
        snprintf(a->tree.note, sizeof a->tree.note,
                 "The direct sum runs: there is no tree to show. Choose tree under force (Simulation).");
        return;
    }
    if (!a->tree.cells) {
        a->tree.cells = malloc(TREE_OVERLAY_MAX_BOXES * sizeof *a->tree.cells);
        a->tree.boxes = malloc(TREE_OVERLAY_MAX_BOXES * sizeof *a->tree.boxes);
    }
    if (!a->tree.cells || !a->tree.boxes) {
        snprintf(a->tree.note, sizeof a->tree.note, "No memory for the tree's cells.");
        return;
    }
    int depth = 0;
    const int total = sim_tree_boxes(run_sim(a->run), u->controls.tree_levels, a->tree.cells, TREE_OVERLAY_MAX_BOXES, &depth);
    int count = total;
    if (total > TREE_OVERLAY_MAX_BOXES) {
        const int cut = a->tree.cells[TREE_OVERLAY_MAX_BOXES - 1].level;
        count = TREE_OVERLAY_MAX_BOXES;
        while (count > 0 && a->tree.cells[count - 1].level == cut) count--;
        a->tree.capped = true;
    }
    for (int i = 0; i < count; i++) {
        const SimTreeBox *c = &a->tree.cells[i];
        a->tree.boxes[i] = (RenderBox){.x = c->x, .y = c->y, .z = c->z, .half = c->half, .level = (float)c->level};
    }
    renderer_set_boxes(a->renderer, a->tree.boxes, count);
    a->tree.drawn = count;
    const int deepest = count > 0 ? a->tree.cells[count - 1].level : 0;
    if (total == 0)
        snprintf(a->tree.note, sizeof a->tree.note, "No tree yet: the next step builds it.");
    else if (a->tree.capped)
        snprintf(a->tree.note, sizeof a->tree.note,
                 "%d cells in levels 0-%d: with level %d they would pass %d, the most drawn.", count, deepest,
                 deepest + 1, TREE_OVERLAY_MAX_BOXES);
    else
        snprintf(a->tree.note, sizeof a->tree.note, "%d cells in levels 0-%d; the tree has %d levels below the root.",
                 count, deepest, depth);
}
