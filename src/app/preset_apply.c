/* The presets a run offers and takes: the file found and read, those this backend cannot take
 * left out (and why), a preset applied (scene, parameters, view), stepped through, and what runs
 * now saved as a new one. presets.c reads and writes the file itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/viewer.h"
#include "app/view.h"
#include "util/params.h"

static const char *find_presets_file(char *buf, size_t len)
{
    /* Beside the program (build/../assets), else the source tree it was built from. */
    char exe[4096];
    ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (got > 0) {
        exe[got] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (snprintf(buf, len, "%s/../assets/presets.ini", exe) < (int)len && access(buf, R_OK) == 0)
                return buf;
        }
    }
    snprintf(buf, len, "%s/assets/presets.ini", STARBURST_SOURCE_DIR);
    return buf;
}

/* Whether this run can take preset p: one that asks for the CUDA backend needs it; on the CUDA
 * backend, the GPU must hold its bodies with its force method (checked while nothing else takes
 * GPU memory: at the start, when check_memory is true; later, the names withheld then stay out).
 * False with the reason in why. */
static bool app_offered(const App *a, const Preset *p, bool check_memory, char *why, size_t len)
{
    if (a->presets.cuda < 0) return true;
    if ((p->set & PRESET_CUDA) && !a->presets.cuda) {
        snprintf(why, len, "it needs the CUDA backend, and this run is on the CPU (%s)",
                 a->presets.cuda_why[0] ? a->presets.cuda_why : "--backend cpu");
        return false;
    }
    for (int i = 0; i < a->presets.withheld_count; i++)
        if (strcmp(a->presets.withheld[i], p->name) == 0) {
            snprintf(why, len, "the GPU did not hold its bodies at the start");
            return false;
        }
    const int n = a->set.scene_n ? a->set.scene_n : p->scene.n;
    if (!a->presets.cuda || !check_memory || n <= 0 || p->source != PRESET_SOURCE_SCENE) return true;
    const SimDesc d = {.backend = SIM_BACKEND_CUDA,
                       .kernel = a->set.kernel,
                       .precision = a->set.precision,
                       .force = p->set & PRESET_FORCE ? p->force : a->set.force,
                       .position_vbo = 1};
    return sim_check(&d, n, why, len) == 0;
}

/* Takes the presets this run cannot take out of the list, silently: only a --preset that names one
 * is told why (app_offer_presets_for). */
static void app_offer_presets(App *a, bool check_memory)
{
    int kept = 0;
    for (int i = 0; i < a->presets.list.count; i++) {
        const Preset *p = &a->presets.list.items[i];
        char why[400];
        if (app_offered(a, p, check_memory, why, sizeof why)) {
            a->presets.list.items[kept++] = *p;
            continue;
        }
        if (check_memory && a->presets.cuda > 0 && a->presets.withheld_count < 16)
            snprintf(a->presets.withheld[a->presets.withheld_count++], sizeof a->presets.withheld[0], "%s", p->name);
    }
    a->presets.list.count = kept;
    for (int i = 0; i < kept; i++) a->presets.names[i] = a->presets.list.items[i].name;
    a->ui.readout.preset_count = kept;
}

int app_load_presets(App *a, char *err, size_t errlen)
{
    presets_free(&a->presets.list);
    free(a->presets.names);
    a->presets.names = NULL;
    a->ui.readout.preset_names = NULL;
    a->ui.readout.preset_count = 0;
    if (a->set.presets_path) snprintf(a->presets.path, sizeof a->presets.path, "%s", a->set.presets_path);
    else find_presets_file(a->presets.path, sizeof a->presets.path);
    if (presets_load_skipping(a->presets.path, &a->presets.list, err, errlen) != 0) return -1;
    /* What was left out is said once a read, on stderr and on screen; the other presets are offered. */
    const PresetList *l = &a->presets.list;
    for (int i = 0; i < l->skipped_count; i++) fprintf(stderr, "starburst: %s\n", l->skipped[i]);
    if (l->skipped_more > 0) fprintf(stderr, "starburst: %s: %d more lines skipped\n", a->presets.path, l->skipped_more);
    if (l->skipped_count > 0) app_notify(a, "%s", l->skipped[0]);
    a->presets.names = calloc((size_t)a->presets.list.count + 1, sizeof *a->presets.names);
    if (!a->presets.names) return -1;
    for (int i = 0; i < a->presets.list.count; i++) a->presets.names[i] = a->presets.list.items[i].name;
    a->ui.readout.preset_names = a->presets.names;
    a->ui.readout.preset_count = a->presets.list.count;
    app_offer_presets(a, false);
    return 0;
}

/* The presets for the backend now known (at the start, or after a hand-over to the CPU): those it
 * cannot take leave the list. A --preset that names one is refused: 0, or -1 with err. */
int app_offer_presets_for(App *a, bool cuda, const char *why, char *err, size_t errlen)
{
    const bool start = !a->run || !run_sim(a->run);
    a->presets.cuda = cuda;
    snprintf(a->presets.cuda_why, sizeof a->presets.cuda_why, "%s", cuda ? "" : why);
    if (!a->presets.names) return 0; /* no presets file */
    char name[64] = "";
    if (a->ui.controls.preset >= 0 && a->ui.controls.preset < a->presets.list.count)
        snprintf(name, sizeof name, "%s", a->presets.list.items[a->ui.controls.preset].name);
    const Preset *asked = start && a->set.preset ? presets_find(&a->presets.list, a->set.preset) : NULL;
    char reason[400];
    if (asked && !app_offered(a, asked, true, reason, sizeof reason)) {
        snprintf(err, errlen, "--preset: '%s' is not offered here: %s", asked->name, reason);
        return -1;
    }
    app_offer_presets(a, start && cuda);
    const Preset *still = name[0] ? presets_find(&a->presets.list, name) : NULL;
    a->ui.controls.preset = still ? (int)(still - a->presets.list.items) : -1;
    return 0;
}

/* The preset's name, its line on what it shows and its source, kept on screen while it runs (every
 * preset has a name; about and source may be left out); the list may be read again meanwhile, so
 * the app holds its own copy. */
static void app_caption(App *a, const Preset *p)
{
    snprintf(a->presets.title, sizeof a->presets.title, "%s", p->name);
    a->ui.readout.caption_title = a->presets.title[0] ? a->presets.title : NULL;
    snprintf(a->presets.about, sizeof a->presets.about, "%s", p->about);
    snprintf(a->presets.cite, sizeof a->presets.cite, "%s", p->cite);
    a->ui.readout.caption = a->presets.about[0] ? a->presets.about : NULL;
    a->ui.readout.caption_source = a->presets.cite[0] ? a->presets.cite : NULL;
}

/* Resets into preset i; the camera glides to the preset's view over `glide` seconds. Every view
 * and run setting the preset leaves out takes its default (app_default_settings), so a preset
 * looks the same each time it is shown. A preset that fails (its file unreadable, say) becomes
 * the one selected, so that ] goes on past it, and the run goes on as it was: -1 with err. */
int app_apply_preset(App *a, int i, float glide, char *err, size_t errlen)
{
    const Preset *p = &a->presets.list.items[i];
    /* The preset list is read again after a save: the run keeps its own copy of a file name. */
    RunSource src = {.scene = p->scene, .from_save = p->source == PRESET_SOURCE_LOAD,
                     .force = p->set & PRESET_FORCE ? p->force : a->set.force};
    snprintf(src.file, sizeof src.file, "%s", p->file);
    /* A preset's halo mode, else the one the panel shows. */
    if (src.scene.halo == SCENE_HALO_DEFAULT) src.scene.halo = a->ui.controls.live_halo ? SCENE_HALO_LIVE : SCENE_HALO_FIELD;
    else a->ui.controls.live_halo = src.scene.halo == SCENE_HALO_LIVE;
    const int ui_scene = a->ui.controls.scene, ui_n = a->ui.controls.n, ui_seed = a->ui.controls.seed;
    if (p->scene.kind < SCENE_TIPSY) a->ui.controls.scene = (int)p->scene.kind;
    if (a->set.scene_n) a->ui.controls.n = a->set.scene_n; /* -n on the command line wins */
    else a->ui.controls.n = p->scene.n ? p->scene.n : (a->ui.readout.cuda ? DEFAULT_BODIES : CPU_DEFAULT_BODIES);
    a->ui.controls.seed = (int)(p->scene.seed ? p->scene.seed : 1);
    a->ui.controls.preset = i;
    if (a->tour.active) {
        a->tour.active = false;
        if (a->tour.restore != UI_RUNG_TREE) a->ui.controls.kernel = a->tour.restore;
    }
    const SimKernel kernel = a->live.kernel_picked ? (SimKernel)a->ui.controls.kernel : SIM_KERNEL_DEFAULT;
    const SceneKind before = run_info(a->run)->kind;
    const int left = run_left_count(a->run);
    app_leave_run(a);
    if (run_reset_to(a->run, &src, (SceneKind)a->ui.controls.scene, a->ui.controls.n, (uint64_t)a->ui.controls.seed, kernel, err, errlen) != 0) {
        a->ui.controls.scene = ui_scene;
        a->ui.controls.n = ui_n;
        a->ui.controls.seed = ui_seed;
        if (run_left_count(a->run) > left) {
            app_take_back(a, left); /* the run goes on as it was, timeline and all */
        } else if (run_sim(a->run)) {
            app_run_built(a);
            app_start_timeline(a);
        }
        return -1;
    }
    if (run_info(a->run)->kind != before)
        a->ui.readout.caption_title = a->ui.readout.caption = a->ui.readout.caption_source = NULL;
    app_run_built(a);
    app_start_timeline(a);
    app_default_settings(a);
    app_caption(a, p);
    if (p->set & PRESET_DT) a->ui.controls.dt = p->dt;
    if (p->set & PRESET_SOFTENING) a->ui.controls.softening = p->softening;
    if (p->set & PRESET_DAMPING) a->ui.controls.damping = p->damping;
    if (p->set & PRESET_THETA) a->ui.controls.theta = p->theta;
    /* A preset that names its theta alone runs the tree by that angle. */
    const float alpha = params_alpha_given(p->set & PRESET_ALPHA ? p->alpha : -1, p->set & PRESET_THETA ? p->theta : 0);
    if (alpha >= 0) app_set_alpha(a, alpha);
    if (p->set & PRESET_STEPS) a->ui.controls.steps_per_frame = p->steps_per_frame;
    if (p->set & PRESET_EXPOSURE) a->ui.controls.exposure = p->exposure;
    if (p->set & PRESET_POINT_SIZE) a->ui.controls.point_size = p->point_size;
    if (p->set & PRESET_COLOR) a->ui.controls.color_mode = p->color_mode;
    if (p->set & PRESET_AUTO_ROTATE) a->ui.controls.auto_rotate = p->auto_rotate;
    /* A preset's camera_distance counts in the three-quarter view's distance (camera_init);
     * without a camera of its own a preset takes its scene's home view. */
    Camera home, unit;
    app_camera_home(a, &home);
    camera_init(&unit, run_info(a->run)->scene.extent);
    const bool own_camera = p->set & PRESET_CAMERA;
    const float origin[3] = {0, 0, 0};
    float yaw = p->set & PRESET_CAMERA ? p->camera_yaw * (float)M_PI / 180 : home.yaw;
    float pitch = p->set & PRESET_CAMERA ? p->camera_pitch * (float)M_PI / 180 : home.pitch;
    float distance = p->set & PRESET_CAMERA && p->camera_distance > 0 ? p->camera_distance * unit.distance
                                                                       : home.distance;
    camera_glide(&a->camera, own_camera ? origin : home.home_target, yaw, pitch, distance, glide);
    if (own_camera) app_follow_pair_stop(a);
    else app_follow_pair_start(a);
    app_notify(a, "Preset: %s (%d %s)%s%s", p->name, app_bodies_shown(a), app_bodies_word(a, app_bodies_shown(a)),
               run_info(a->run)->dark_only ? "; all bodies are dark matter: shown; D hides them" : "",
               app_left_note(a, left));
    return 0;
}

/* A preset that failed: said once, on screen and on stderr. */
void app_say_preset_failed(App *a, int i, const char *err)
{
    app_notify(a, "Preset '%s' not applied: %s", a->presets.list.items[i].name, err);
    fprintf(stderr, "starburst: %s\n", a->msg.notice);
}

/* [ and ], and the cycle: the presets back or forward. One that fails is said once and passed:
 * the next step goes on from it. */
void app_step_preset(App *a, int delta)
{
    if (a->presets.list.count == 0) {
        app_notify(a, "No presets (%s)", a->presets.path);
        return;
    }
    const int count = a->presets.list.count;
    int i = a->ui.controls.preset < 0 ? (delta > 0 ? 0 : count - 1) : ((a->ui.controls.preset + delta) % count + count) % count;
    char err[512];
    if (app_apply_preset(a, i, 1.5f, err, sizeof err) != 0) app_say_preset_failed(a, i, err);
}

/* What runs now, as a preset named in the UI, appended to the presets file: the scene as it was
 * built (kind, body count, seed), or the file it came from, with the live parameters and view. */
void app_save_preset(App *a)
{
    const RunSource *src = run_source(a->run);
    Preset p = {.scene = src->scene};
    snprintf(p.name, sizeof p.name, "%s", a->ui.controls.preset_name);
    p.scene.tipsy_path = NULL;
    if (src->from_save) {
        p.source = PRESET_SOURCE_LOAD;
        snprintf(p.file, sizeof p.file, "%s", src->file);
    } else if (src->scene.kind >= SCENE_TIPSY) {
        p.source = src->scene.kind == SCENE_TIPSY ? PRESET_SOURCE_TIPSY : PRESET_SOURCE_TIPSY_COLLIDE;
        snprintf(p.file, sizeof p.file, "%s", src->from_series ? series_path(run_series(a->run), 0) : src->file);
    } else {
        p.scene.kind = (SceneKind)(int)run_info(a->run)->kind;
        p.scene.n = app_bodies_shown(a); /* -n: the stars, with fields */
        p.scene.seed = run_info(a->run)->seed;
    }
    const SimParams now = app_ui_params(a);
    p.dt = now.dt;
    p.softening = now.softening;
    p.damping = now.damping;
    p.theta = now.theta;
    p.alpha = now.alpha;
    p.steps_per_frame = a->ui.controls.steps_per_frame;
    p.exposure = a->ui.controls.exposure;
    p.point_size = a->ui.controls.point_size;
    p.color_mode = a->ui.controls.color_mode;
    p.auto_rotate = a->ui.controls.auto_rotate;
    Camera home;
    camera_init(&home, run_info(a->run)->scene.extent);
    p.camera_yaw = a->camera.yaw * 180 / (float)M_PI;
    p.camera_pitch = a->camera.pitch * 180 / (float)M_PI;
    p.camera_distance = a->camera.distance / home.distance;
    p.set = PRESET_DT | PRESET_SOFTENING | PRESET_DAMPING | PRESET_THETA | PRESET_ALPHA | PRESET_STEPS | PRESET_EXPOSURE |
            PRESET_POINT_SIZE | PRESET_COLOR | PRESET_CAMERA | PRESET_AUTO_ROTATE;
    if (src->force != SIM_FORCE_AUTO) {
        p.force = src->force;
        p.set |= PRESET_FORCE;
    }
    char err[512];
    if (presets_append(a->presets.path, &p, err, sizeof err) != 0) {
        app_notify(a, "Not saved: %s", err);
        return;
    }
    int keep = a->ui.controls.preset;
    if (app_load_presets(a, err, sizeof err) != 0) app_notify(a, "%s", err);
    else app_notify(a, "Saved preset '%s' to %s", p.name, a->presets.path);
    app_say(a, "starburst: %s\n", a->msg.notice);
    a->ui.controls.preset = keep < a->presets.list.count ? keep : -1;
}
