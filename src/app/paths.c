#include "app/paths.h"

#include <stdio.h>

#include "run/saved_run.h"
#include "util/input_file.h"
#include "util/output_path.h"

static int check_input(const char *path, char *err, size_t errlen)
{
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, why);
        return -1;
    }
    fclose(f);
    return 0;
}

static int check_output(const char *option, const char *path, bool folder_ok, char *err, size_t errlen)
{
    char why[600];
    if (output_path_check(path, folder_ok, why, sizeof why) == 0) return 0;
    snprintf(err, errlen, "%s '%s': %s", option, path, why);
    return -1;
}

int app_check_paths(const AppOptions *o, char *err, size_t errlen)
{
    if (o->scene.kind >= SCENE_TIPSY && o->scene.tipsy_path &&
        (check_input(o->scene.tipsy_path, err, errlen) != 0 ||
         state_check_bodies_alone(o->scene.tipsy_path, err, errlen) != 0))
        return -1;
    if (o->presets_path && check_input(o->presets_path, err, errlen) != 0) return -1;
    if (o->load_path && state_check(o->load_path, err, errlen) != 0) return -1;
    if (o->save_path && check_output("--save", o->save_path, false, err, errlen) != 0) return -1;
    if (o->screenshot && check_output("--screenshot", o->screenshot, false, err, errlen) != 0) return -1;
    /* A recording goes into a video file or a folder of numbered frames (app/recorder.h). */
    if (o->record_dir && check_output("--record", o->record_dir, true, err, errlen) != 0) return -1;
    return 0;
}
