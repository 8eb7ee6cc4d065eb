/* The names of a run's choices, from the modules that own them (run_choices.h). */
#include "run/run_choices.h"

const char *run_scene_choice(int v) { return scene_name((SceneKind)v); }
const char *run_backend_choice(int v) { return sim_backend_name((SimBackend)v); }
const char *run_force_choice(int v) { return sim_force_name((SimForce)v); }
const char *run_halo_choice(int v) { return scene_halo_name((SceneHalo)v); }
