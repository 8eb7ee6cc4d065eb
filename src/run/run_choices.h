/* The choices a run is described by, as the command line reads them: the scene, the backend, the
 * force method and the halo mode, each an OptionSpec initialiser (util/params.h) over the names
 * the owning modules give. The program's option table (src/app/options.c) and libstarburst read
 * the same specs, so that a name one takes the other takes, and a refusal reads the same. */
#ifndef STARBURST_RUN_CHOICES_H
#define STARBURST_RUN_CHOICES_H

#include "scene/scene.h"
#include "sim/sim.h"
#include "util/params.h"

const char *run_scene_choice(int v);
const char *run_backend_choice(int v);
const char *run_force_choice(int v);
const char *run_halo_choice(int v);

/* The built-in scenes (a TIPSY file is named by its own options). */
#define RUN_CHOICE_SCENE \
    {.kind = OPTION_CHOICE, .name_of = run_scene_choice, .first = 0, .end = SCENE_TIPSY, .noun = "scene"}
#define RUN_CHOICE_BACKEND                                                                                     \
    {.kind = OPTION_CHOICE, .name_of = run_backend_choice, .first = SIM_BACKEND_AUTO, .end = SIM_BACKEND_CUDA + 1, \
     .noun = "backend"}
#define RUN_CHOICE_FORCE                                                                                   \
    {.kind = OPTION_CHOICE, .name_of = run_force_choice, .first = SIM_FORCE_AUTO, .end = SIM_FORCE_COUNT, \
     .noun = "force method"}
#define RUN_CHOICE_HALO                                                                                      \
    {.kind = OPTION_CHOICE, .name_of = run_halo_choice, .first = SCENE_HALO_FIELD, .end = SCENE_HALO_COUNT, \
     .noun = "halo mode"}

#endif
