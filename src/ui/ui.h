/* On-screen controls and HUD: a C API over Dear ImGui. ui_imgui.cpp is the bridge (ImGui's
 * context, input and frame) and draws the panel; hud.cpp the HUD in its normal and lecture layouts,
 * ladder.cpp the kernel ladder's bars and launch shape, scene_panel.cpp the Scene section, widgets.cpp the controls of our own and the
 * readout of where they sit, format.cpp numbers as the HUD writes them, scalebar.cpp the scale bar
 * over the view, timeline.cpp the run's timeline under it. The UI includes no other module: the app owns a UiModel and fills in the names,
 * ranges and what it shows (UiReadout), in the UI's own types (src/app/ui_names.c; the physical
 * units' texts, src/app/units_hud.c); the UI edits its controls in place (UiControls) and raises
 * one-frame actions (UiActions). */
#ifndef STARBURST_UI_H
#define STARBURST_UI_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GLFWwindow GLFWwindow;

/* The force methods, numbered as SimForce (src/app/ui_names.c checks that they agree). */
typedef enum UiForce { UI_FORCE_AUTO = 0, UI_FORCE_DIRECT, UI_FORCE_TREE, UI_FORCE_FMM, UI_FORCE_COUNT } UiForce;

/* The direct kernels, numbered as SimKernel (checked there too): 0 is the backend's choice,
 * the rungs run from UI_KERNEL_FIRST to UI_KERNELS - 1. */
#define UI_KERNEL_DEFAULT 0
#define UI_KERNEL_FIRST 1
#define UI_KERNELS 7

/* The kernel ladder's rungs: the direct kernels, then the tree, the force method that leaves
 * the N^2 sum behind. */
#define UI_RUNG_TREE UI_KERNELS
#define UI_RUNGS (UI_KERNELS + 1)

/* What the panel offers, named by the app once (ui_names_fill). */
#define UI_CHOICES_MAX 8
typedef struct UiNames {
    const char *kernel[UI_KERNELS];      /* by kernel number */
    int kernel_auto;                     /* the kernel UI_KERNEL_DEFAULT is shown as */
    int kernel_split;                    /* the one kernel that splits a body across threads */
    int kernel_own_block;                /* the one kernel whose block size is part of its design */
    const char *force[UI_FORCE_COUNT];   /* by UiForce */
    const char *scene[UI_CHOICES_MAX];   /* the built-in scenes, by SceneKind */
    int scene_count;
    int scene_encounter;                 /* the built-in scene of two galaxies: its encounter is set */
    const char *color[UI_CHOICES_MAX];   /* the colour modes, by ColorMode */
    int color_count;
} UiNames;

typedef struct UiRange {
    float lo, hi;
} UiRange;

typedef struct UiIntRange {
    int lo, hi;
} UiIntRange;

/* The ends of the panel's sliders and fields. */
typedef struct UiRanges {
    UiRange dt, softening, damping, theta, alpha;
    UiIntRange steps_per_frame, bodies;
    UiRange point_size, exposure, cycle_seconds;
    UiRange mass_ratio, pericentre, eccentricity, inclination; /* the encounter's */
    float widest_by_error; /* the tree's widest opening angle while it opens by error */
} UiRanges;

/* The panel's fields a value can be typed into (ctrl+click on a slider). */
typedef enum UiField {
    UI_FIELD_NONE = 0,
    UI_FIELD_DT,
    UI_FIELD_SOFTENING,
    UI_FIELD_DAMPING,
    UI_FIELD_THETA,
    UI_FIELD_ALPHA,
    UI_FIELD_STEPS_PER_FRAME,
    UI_FIELD_POINT_SIZE,
    UI_FIELD_EXPOSURE,
    UI_FIELD_CYCLE_SECONDS,
    /* The encounter's, applied on reset. */
    UI_FIELD_MASS_RATIO,
    UI_FIELD_PERICENTRE,
    UI_FIELD_ECCENTRICITY,
    UI_FIELD_INCLINATION_A,
    UI_FIELD_INCLINATION_B,
    UI_FIELD_COUNT
} UiField;

/* The parameters an edit of dt, softening, damping, theta or alpha can be undone for (as SimParams). */
typedef struct UiParams {
    float dt, softening, damping, theta, alpha;
} UiParams;

/* The run's conserved quantities and virial ratio (as sim/diag.h's Diagnostics). */
typedef struct UiDiagnostics {
    double kinetic, potential, total;
    double momentum[3];
    double angular_momentum[3];
    double virial;
} UiDiagnostics;

/* A force method's error against the f64 sum on a sample of bodies (as sim/diag.h's ForceCheck). */
typedef struct UiForceError {
    int samples;
    double rms, p999, worst, median, p99;
} UiForceError;

/* The disks' heating against the settled disk (src/app/heating_watch.c, sim/heating.h), in model units:
 * thickness (rms z) and sigma_R in an annulus, their drift, and a state numbered as HeatingState. */
typedef enum UiHeatingState {
    UI_HEATING_NONE = 0, UI_HEATING_STEADY, UI_HEATING_WARM, UI_HEATING_HOT, UI_HEATING_TIDAL
} UiHeatingState;

typedef struct UiHeatingDisk {
    double rms_z, sigma_r, toomre_q;     /* the last sample */
    double rms_z0, sigma_r0, toomre_q0;  /* the start */
    double sigma_rb, toomre_qb;          /* the settled disk (the start while it settles) */
    double ring[2];                      /* the annulus of sigma_R and Q */
    double thickness_drift, sigma_drift; /* last over the start and the settled disk, less 1 */
    double drift;                        /* judged: thickness, and sigma_R once settled */
    double base;                         /* model time of the settled disk; -1 while it settles */
    double peak_drift;                   /* the largest before the encounter */
    double tidal;                        /* the other galaxy's tide at the last sample (heating_tidal) */
    double encounter;                    /* model time from which the encounter heats it; -1 none */
    int state;                           /* UiHeatingState */
    const float *thickness;              /* rms z over the start's, oldest first */
    int count;
} UiHeatingDisk;

typedef struct UiHeating {
    int disks;          /* disks watched: 0 = nothing to show */
    UiHeatingDisk disk[2];
    int state;          /* the most telling of the disks' */
    double since, time; /* model times of the start and the last sample */
    double settled;     /* model time from which drifts are judged (the disks settle till then) */
    double tidal_limit; /* the tide from which growth is the encounter's */
    double kpc, kms, myr; /* one model length, speed and time; 0 = model units only */
    double warn, hot;   /* the drifts flagged amber and red */
    double cost;        /* seconds the last sample took */
} UiHeating;

/* Where a control was drawn in the last frame, in window pixels: the readout that lets a test
 * drive the real window as a hand does (src/app/readout.c). */
#define UI_MAX_WIDGETS 128
typedef struct UiWidget {
    char name[24];
    float x0, y0, x1, y1;
} UiWidget;

/* The deepest level of tree cells the overlay draws. */
#define UI_TREE_LEVELS_MAX 8

/* A collision's encounter: B's mass over A's, the pericentre in A's disk scale lengths (model
 * lengths), the eccentricity of the orbit, each disk's tilt to the orbital plane in degrees. */
typedef struct UiEncounter {
    float mass_ratio, pericentre, eccentricity;
    float inclination_a, inclination_b;
} UiEncounter;

/* What the panel sets: edited in place by the UI, read by the app once a frame. */
typedef struct UiControls {
    float dt, softening, damping;
    float theta;          /* the tree's opening angle, in ranges.theta */
    float alpha;          /* > 0: the tree opens by estimated error, in ranges.alpha; 0: by theta */
    float alpha_kept;     /* the alpha "by error" returns to */
    int force;            /* UiForce asked for: auto, direct, tree or fmm */
    int steps_per_frame;
    float point_size, exposure;
    int color_mode;       /* by names.color */
    bool paused;
    bool auto_rotate;
    bool show_halo;
    bool show_tree;       /* T: the cells of the tree over the bodies */
    int tree_levels;      /* the deepest level of cells drawn, 0 .. UI_TREE_LEVELS_MAX */
    int kernel;           /* by names.kernel, CUDA backend only */
    int threads_per_body; /* launch shape asked for: q of mtpb (0 = auto, 1 .. 32) */
    int block_size;       /* threads per block (0 = auto, 64 .. 1024) */
    bool lecture;         /* L: large type, a large HUD and the kernel-ladder panel */
    bool visible;         /* H toggles */
    /* Applied on reset. */
    int scene;            /* by names.scene (the built-in ones) */
    int n;
    int seed;
    bool live_halo;       /* the galaxies' halos as bodies (live), else as fields (every body a star) */
    UiEncounter encounter; /* where the scene is names.scene_encounter; a preset selected fills it */
    /* Presets: the one in use, or -1; cycling through them. */
    int preset;
    bool cycling;         /* C: step through the presets every cycle_seconds */
    float cycle_seconds;
    char preset_name[64]; /* name for "save current as preset" */
    bool diagnostics_open; /* raised by ui_frame while the Diagnostics section is open */
} UiControls;

/* Raised for one frame by the UI or the keys; the app takes each once and clears it. */
typedef struct UiActions {
    bool reset, step_once, reset_camera;
    bool apply_preset;    /* with controls.preset set to the choice */
    bool check_forces;    /* one-shot accuracy check of the active kernel */
    bool save_preset;     /* with controls.preset_name */
    bool run_at_scale;    /* "Run at scale...": the state as SWIFT's initial conditions and parameters */
    bool apply_shape;     /* threads_per_body or block_size changed */
    bool apply_force;     /* with force_wanted: the method picked in the panel */
    int force_wanted;
    bool defaults;        /* restore the scene's dt, softening, damping and theta */
    bool undo;            /* take back the last parameter change, state included */
    bool redo;            /* bring back what the last undos set aside (a future, a run) */
    /* Raised when an edit of dt, softening, damping or theta begins, with their values before it. */
    bool edit_began;
    UiParams before;
    /* A value typed into a field and closed with Enter: the field (UiField; 0 = none) and the text
     * as typed ("5000", "200pc"). The UI does not read it: the app checks it against the parameter
     * table, sets the control and says what it did. */
    int typed;
    char typed_text[64];
    int ladder_force;     /* raised by the ladder: UI_FORCE_TREE or UI_FORCE_DIRECT to switch to; 0 = none */
    bool measure_ladder;  /* K or the ladder's button: time every rung in turn */
    bool timeline_seek;   /* the slider moved, to keyframe timeline_to */
    int timeline_to;
} UiActions;

/* What the panel and the HUD show: written by the app, read only by the UI; and where the UI
 * drew its controls in the last frame, for the app's readout file. */
typedef struct UiReadout {
    const char *const *preset_names; /* from the presets file */
    int preset_count;
    int undo_depth;       /* changes that can be undone */
    int redo_depth;       /* undos that can be redone */
    double fps, steps_per_s, interactions_per_s, gflops;
    double energy_error; /* dE/E0 */
    bool energy_valid;
    double sim_time;
    int bodies;
    int field_halos;     /* halos as fields (their centres not among the bodies counted) */
    const char *backend, *device, *kernel_name;
    int gpus;            /* GPUs the last step ran on (more than 1: --gpus split the direct sum) */
    const char *method;  /* the tree's line ("tree, theta 0.40: 3,702 interactions a body"), or NULL */
    const char *tree_note; /* what the tree overlay shows, or why it shows nothing; NULL while it is off */
    const char *caption_title; /* the running preset's name; NULL = none */
    const char *caption; /* what the running preset shows and what to watch for; NULL = none */
    const char *caption_source; /* the work it follows, shown under it; NULL = none */
    const char *notice;  /* the latest message, or NULL */
    float notice_alpha;  /* 1 while it is fresh, falling to 0 as it fades */
    const char *alarm;   /* a run gone wrong, shown large until it is mended; NULL = none */
    int shape_q, shape_block; /* launch shape running now; 0 = not applicable */
    /* Kernel ladder: interactions/s measured per rung at the current N, indexed by kernel and
     * UI_RUNG_TREE; 0 = not measured yet. The tree's is N^2-equivalent: N^2 / its step time. */
    double ladder_rate[UI_RUNGS];
    double ladder_tree_per_body; /* interactions a body the tree evaluated when its rate was taken */
    bool tree;           /* a tree is the force method (tree or fmm): the ladder's last rung runs */
    bool fmm;            /* of those, the fast multipole method */
    int ladder_touring;  /* the rung being timed by a tour; UI_KERNEL_DEFAULT (0) = no tour */
    /* Diagnostics panel. */
    bool diag_valid;                /* false until measured */
    UiDiagnostics diag;
    const float *energy_history;    /* dE/E0 samples, oldest first */
    int energy_history_count;
    bool force_check_valid;         /* false until run */
    int force_checks;               /* how many have been shown */
    UiForceError force_check;
    /* The running method's force error against f64 on a sample of bodies, measured every few
     * seconds while the Diagnostics section is open or the tree runs (sim/force_watch.h). */
    bool live_error_valid;          /* false until the first result */
    UiForceError live_error;
    const char *live_error_what;    /* the method it measured: "tree, theta 0.40", "kernel symmetric" */
    bool live_error_measuring;      /* a measurement is under way */
    UiHeating heating;              /* the disks' thickness and sigma_R against the start */
    bool cuda;           /* the kernel choice applies */
    /* Physical units, written by the app each frame (src/app/units_hud.c). */
    char time_text[64];   /* "t 120 Myr (10.78)"; "t 10.000" where the run has no physical scale */
    char orbit_text[160]; /* "rotation 250 Myr at R½   pericentre in 80 Myr"; "" = none */
    char dt_note[32], softening_note[32]; /* the sliders' values in physical units, "0.16 Myr"; "" = none */
    char pericentre_note[32]; /* the encounter's pericentre in kpc, "7.8 kpc"; "" = none */
    double view_height_kpc; /* the view's height at the camera's target, in kpc; 0 = no scale bar */
    /* One model energy in erg, momentum in Msun km/s, angular momentum in Msun kpc km/s, for
     * Diagnostics; 0 = model units only. */
    double erg_per_energy, momentum_unit, angular_momentum_unit;
    /* The run's timeline (src/app/timeline_view.c): keyframes kept (0 = no timeline), the one
     * shown (-1 = the run as it goes) and the line over the slider. */
    int timeline_count, timeline_view;
    char timeline_text[192];
    /* While --open's series is read, "Reading snapshot 3 of 40: snap_0002.tipsy"; where a
     * snapshot did not read, that the series is not all there; "" otherwise. */
    char timeline_reading[160];
    /* As drawn in the last frame (filled by ui_frame): the controls, the HUD's lines run
     * together, the scale bar's length in pixels (0 = none), its label and its box. */
    UiWidget widgets[UI_MAX_WIDGETS];
    int widget_count;
    float mouse_at[2]; /* where the UI saw the mouse this frame, window pixels; -1 -1 when away */
    float panel_scroll[2]; /* the panel's scroll from its top and the most it scrolls, pixels; -1 -1 folded */
    char hud[512];
    float scalebar_px;
    char scalebar_text[24];
    float scalebar_box[4];
} UiReadout;

/* The UI's model in three parts: what the panel sets (controls), the one-frame actions, and what
 * it shows (the readout). The names and ranges are filled once by the app (ui_names_fill). */
typedef struct UiModel {
    UiNames names;
    UiRanges ranges;
    UiControls controls;
    UiActions actions;
    UiReadout readout;
} UiModel;

/* Attaches Dear ImGui to the window (GLFW + OpenGL3 backends). GLFW's backend chains to the
 * window's callbacks installed before this call: install the app's first. window NULL (headless)
 * draws without input. font_scale 0 = the window's content scale. False when it cannot. */
bool ui_create(GLFWwindow *window, float font_scale);
void ui_destroy(void);
/* Builds the HUD and the panel (or, when m->visible is false, a one-line hint) and draws them
 * into the framebuffer bound now; headless, the current viewport gives the size. */
void ui_frame(UiModel *m);
/* True while ImGui uses the mouse or keyboard, so the camera and shortcuts leave them alone. */
bool ui_wants_mouse(void);
bool ui_wants_keyboard(void);
/* A rate of steps as a person reads it: "41 steps/s", "1 step/s", and below one a second its two
 * figures, "0.31 steps/s" (a million bodies on the CPU), not "0 steps/s"; "0 steps/s" where none
 * ran. Returns buf. */
const char *ui_steps_per_s(double rate, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
