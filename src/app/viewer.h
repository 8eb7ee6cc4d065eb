/* The viewer's state, shared by the files of src/app that run it: app.c (start, the frame, finish),
 * run_actions.c (what the keys and the panel do to the run), requests.c, input.c, observe.c,
 * preset_apply.c, follow.c, frame_capture.c, tree_overlay.c, heating_watch.c, timeline_view.c and
 * messages.c. Private to them: nothing outside src/app includes it. The run itself (the
 * simulation, its clock, its past and its files) is the Run of src/run, held by pointer.
 *
 * opt is what the user asked for and is only read after the start; what runs now (the scene, the
 * saved run it came from, the force method after a preset, the panel or a fall-back) is in run. */
#ifndef STARBURST_VIEWER_H
#define STARBURST_VIEWER_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "app/ladder_tour.h"
#include "app/pericentre.h"
#include "app/presets.h"
#include "app/recorder.h"
#include "app/run_clock.h"
#include "run/run.h"
#include "scene/snapshot.h"
#include "render/camera.h"
#include "render/context.h"
#include "sim/diag.h"
#include "sim/force_watch.h"
#include "sim/heating.h"
#include "ui/ui.h"

/* The CPU's default runs on the fast multipole method (auto takes it from 1,024 bodies), which
 * steps 16,384 bodies at 41 to 47 steps/s on two cores, 3.3 times as fast as the vectorised direct
 * sum (docs/PERFORMANCE.md). */
#define CPU_DEFAULT_BODIES 16384
#define DEFAULT_BODIES 131072
/* A log (stderr not a terminal) gets a line of progress this often. */
#define PROGRESS_LOG_SECONDS 5.0
/* A message stays this long, then fades out over a second. */
#define NOTICE_SECONDS 4.0
/* A conservative run whose energy is off by more than this is no longer to be trusted. */
#define ENERGY_ALARM 1e-2
/* The bodies are leaving the view when the half-mass radius grows this many times. */
#define SPREAD_ALARM 4.0
/* The CUDA backend's state is copied to the host at least this often, so that the CPU can carry
 * on from it if CUDA fails. */
#define CHECKPOINT_SECONDS 1.0
/* The tree overlay copies the cells of a changing tree at most this often, and at most this many
 * (a million bodies hold some 10^5 cells in 8 levels: a wall of lines, and 24 vertices each). */
#define TREE_OVERLAY_SECONDS 0.1
#define TREE_OVERLAY_MAX_BOXES 65536
/* The longest advance the ladder's tour may ask of a rung: the window stays responsive. */
#define LADDER_TOUR_MAX_S 1.0

/* What the viewer keeps of the options, each default resolved once at the start
 * (app_resolve_settings): what the frame, the presets and the run's resets read later. The options
 * themselves stay with app_run and the start. */
typedef struct AppSettings {
    bool headless, quiet, capture_ui;
    int frames, monitor; /* frames 0: until closed */
    const char *save_path, *screenshot, *record_dir, *shader_dir, *preset, *presets_path;
    float open_rate; /* headless --open: snapshots a frame */
    int scene_n;     /* -n: 0 = each scene's own */
    SimForce force;
    SimKernel kernel;
    SimPrecision precision;
    float dt, softening; /* for the first scene; dt 0 and softening < 0: the scene's */
    /* The view and run settings a preset leaves out (app_default_settings): damping and theta 0,
     * alpha < 0 and steps_per_frame 0 are the scene's or the backend's, decided at each reset. */
    float damping, theta, alpha;
    int steps_per_frame;
    float point_size, exposure;
    int color_mode;
    int draw; /* APP_DRAW_* */
    bool auto_rotate, show_halo;
} AppSettings;

/* What the viewer keeps of the run beside the Run itself: the parameters it gave the last
 * advance, whether a kernel was picked (--kernel or the panel; else the default for each N),
 * whether it paused because the run diverged, and the line on why this backend runs. */
typedef struct AppLive {
    SimParams params;
    bool kernel_picked;
    bool diverged_pause;
    /* The run (RunInfo.id) --save's file holds, as loaded from it or saved there; 0: none known.
     * Where another run stands at the exit (a reset, a preset or an undo since), the exit's save
     * goes beside the file (app_save_at_exit). */
    int save_holder;
    char saved_at_exit[1100]; /* where the exit's save went: the line of an interrupt names it */
    char backend_note[300];
} AppLive;

/* The disks' heating as the panel plots it: thickness over the start's, a disk a row. */
typedef struct AppHeating {
    float plot[2][HEATING_MAX_SAMPLES];
} AppHeating;

/* The tree's line for the HUD ("tree, theta 0.40: 3,702 interactions a body"). */
typedef struct AppObserve {
    char method[160];
} AppObserve;

/* Presets: those this run can take, and the cycle through them. */
typedef struct AppPresets {
    PresetList list; /* those this run can take (app_offered) */
    const char **names;
    char path[4096];
    /* What the presets are offered for: -1 = not yet known, 0 = the CPU backend, 1 = the CUDA
     * backend; on it, the presets whose bodies the GPU did not hold at the start. */
    int cuda;
    char cuda_why[256]; /* why CUDA does not run, where it does not */
    char withheld[16][64];
    int withheld_count;
    double cycle_next;
    char title[64], about[320], cite[320]; /* the caption of the preset applied last (ui.readout.caption) */
} AppPresets;

/* Camera follow: the centre of mass sampled a few times a second, approached smoothly. */
typedef struct AppFollow {
    int mode; /* 0 nothing, 1 galaxy A, 2 galaxy B, 3 the whole system */
    float target[3];
    bool valid;
    double next;
    /* The pair of an encounter that starts far apart, framed as it approaches until the user
     * moves the camera: the frame sampled a few times a second, approached smoothly. */
    bool pair, pair_valid;
    float pair_target[3], pair_distance;
    double pair_next;
} AppFollow;

/* The tree overlay (T): the cells of the last tree, copied from the simulation while shown and
 * the tree has changed, at most every TREE_OVERLAY_SECONDS. */
typedef struct AppTreeOverlay {
    SimTreeBox *cells;
    RenderBox *boxes;
    int drawn;      /* boxes handed to the renderer */
    bool capped;    /* fewer levels drawn than asked: too many cells */
    const Sim *sim; /* what the boxes were copied from: the simulation, */
    long long step; /* its step count, */
    int levels;     /* the levels asked for, */
    int force;      /* and its method */
    double next;
    char note[160];
} AppTreeOverlay;

/* The view of the run's timeline (timeline_view.c): playing backwards, and the time from a
 * request to its keyframe drawn. */
typedef struct AppTimeline {
    bool playing_back;
    bool series_done; /* headless --open has shown its last snapshot */
    double asked_at, shown_at, scrub_ms;
} AppTimeline;

/* Requests raised by the keys that the UI model does not carry; taken in app_take_requests. */
typedef struct AppKeyRequests {
    bool save;       /* S */
    bool record;     /* V: start or stop a recording */
    bool screenshot; /* P: a screenshot of the next frame, without the panel */
    int preset_step; /* [ and ]: the presets back or forward, by this many */
    int timeline_step; /* Left and Right: keyframes back or forward, by this many */
    bool timeline_start, timeline_end; /* ctrl+Left, ctrl+Right */
    bool timeline_play_back; /* shift+Left: play backwards, or stop */
} AppKeyRequests;

typedef struct AppMessages {
    char notice[256];
    double notice_at;
    char alarm[256];
    /* The progress line: stderr a terminal (asked once), and the line written in place left open. */
    bool tty_known, tty, progress_open;
} AppMessages;

typedef struct AppLoop {
    int frames; /* 0 = until closed */
    int frame;
    int status;
    double start, last, last_progress;
    RunClock clock; /* the time the loop ran, less the time the process was stopped */
    const char *readout; /* STARBURST_READOUT: a file of the app's state, rewritten every frame */
} AppLoop;

/* The served frame's parts, timed for the closing line (app_remote_lap). */
typedef enum AppLap {
    APP_LAP_WAIT,    /* from the last frame's end: the pace's sleep */
    APP_LAP_ADVANCE, /* the pages' messages, the requests, the steps */
    APP_LAP_MEASURE, /* energy, force error, checkpoint, timeline, heating, tree overlay */
    APP_LAP_DRAW,    /* the camera, the bodies drawn, the frame handed to the server */
    APP_LAP_REST,    /* the panel, the readout, the swap */
    APP_LAP_COUNT
} AppLap;

/* `starburst serve`: the server, the readout's notice last sent, the loop's pace. */
typedef struct AppRemote {
    struct Serve *serve; /* NULL: not served */
    struct CaptureStream *frames; /* the frames read back for the pages, made with the first */
    double hand_seconds;          /* the loop's time reading back and handing over frames */
    long long hand_frames;
    double next_frame;   /* when the next frame may start (clock_seconds), paced to SERVE_FPS */
    double lap_at;       /* the last lap's end (0: none yet) */
    double lap_seconds[APP_LAP_COUNT], lap_longest[APP_LAP_COUNT];
    double frame_work;   /* this frame's time but the wait, so far */
    long long laps, late; /* frames timed; those whose work took longer than 1 / SERVE_FPS */
    double notice_at;
    int notice_id;
} AppRemote;

typedef struct App {
    AppSettings set;
    RenderContext *ctx;
    Renderer *renderer;
    int renderer_capacity;
    bool draw_note_said; /* why CUDA does not draw, said once */
    Camera camera;
    UiModel ui;
    bool ui_attached;
    LadderTour tour; /* K: every rung of the ladder timed in turn */
    Run *run;
    AppLive live;
    AppObserve obs;
    AppHeating heat;
    OrbitWatch orbit; /* the two galaxies' orbit, for the HUD's pericentre countdown */
    AppPresets presets;
    AppFollow follow;
    AppTreeOverlay tree;
    AppTimeline tl;
    AppKeyRequests req;
    AppMessages msg;
    struct {
        Recorder *recorder;  /* a recording in progress (--record, or V in a window) */
        int said_w, said_h;  /* the window size last said to differ from the recording's */
        char screenshot[300]; /* the last screenshot written */
    } rec;
    struct {
        bool orbiting, panning;
        double x, y;
        /* Button presses and wheel turns that reached the window, the UI's included: the readout
         * shows them, so a test knows a click was taken before it reads what it did. */
        int presses, wheel_turns;
    } mouse;
    /* Key presses that reached the app, and those of them the UI kept (a text field had the
     * keyboard): the readout shows both, so a test tells a key never delivered from one taken. */
    struct {
        int pressed, captured;
    } keys;
    /* Lecture mode goes full screen; leaving it restores what was before. */
    struct {
        bool shown, fullscreen_before;
    } lecture;
    struct {
        double since;
        int frames;
        long long steps;
    } rates; /* over the last half second */
    AppLoop loop;
    AppRemote remote;
} App;

/* One frame's plan: its clock, whether it is the last, and the steps it runs. */
typedef struct FramePlan {
    double t;        /* clock_seconds() at the frame's start */
    float seconds;   /* since the last frame */
    bool closing;    /* the window is closing: this frame is drawn, then the loop ends */
    bool last_frame; /* closing, or the last of --frames */
    bool step_once;  /* '.' or the Step button: one step while paused */
    bool screenshot; /* P: the frame as drawn to a new PNG */
    int steps;       /* steps the advance ran */
} FramePlan;

/* messages.c: a notice is on screen a few seconds; app_say() prints unless --quiet. */
void app_notify(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_say(const App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line of progress at t: on a terminal, one a second, written over the last (\r); elsewhere (a
 * log), a line of its own every PROGRESS_LOG_SECONDS. app_progress_end ends a line left open. */
void app_progress(App *a, double t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void app_progress_end(App *a);
/* "1 step", "4 steps". */
static inline const char *plural(long long count, const char *one, const char *many)
{
    return count == 1 ? one : many;
}
/* The bodies a person sees, what -n and the HUD's N count: every body of the run but the centres
 * of its halo fields (which stand for the halos); and their word, "stars" where the halos are
 * fields, else "bodies". */
static inline int app_bodies_shown(const App *a)
{
    return sim_count(run_sim(a->run)) - sim_halos(run_sim(a->run))->count;
}
static inline const char *app_bodies_word(const App *a, long long n)
{
    return sim_halos(run_sim(a->run))->count > 0 ? plural(n, "star", "stars") : plural(n, "body", "bodies");
}

/* units_hud.c: the HUD's times and the sliders' values in physical units, the orbit's countdown
 * and the scale bar's length, each frame. */
void app_show_units(App *a);
/* "t = 120 Myr (10.8)", or "t = 10.8" where the run has no physical scale. */
const char *app_when(const App *a, double t, char *buf, size_t len);
/* "dt 0.02 (0.22 Myr), softening 0.08 (208 pc)", or the model values alone. */
const char *app_dt_softening(const App *a, double dt, double softening, char *buf, size_t len);

/* controls.c: the panel's controls read as the run's parameters, and written back. */
SimParams app_ui_params(const App *a);
void app_set_params(App *a, const SimParams *p);
/* The tree's error-based test set to alpha (0: by the angle), the last alpha > 0 kept for the
 * panel's "by error" to return to. */
void app_set_alpha(App *a, float alpha);
/* The value typed into a field of the panel (actions.typed): checked against the table's range,
 * its unit read on the run's scale, set, and what was done said on screen. As option_fit: 0 taken,
 * 1 brought into the range, -1 no number (nothing changed). */
int app_take_typed(App *a);
/* Every control the panel sets brought into the table's range, with a notice for each that was not. */
void app_check_controls(App *a);
/* The scale the encounter's lengths are read on: the collision's, in galaxy A's disk scale lengths. */
Units app_encounter_units(const App *a);
/* The panel's encounter set to what the run's source builds (its defaults filled). */
void app_show_encounter(App *a);

/* ui_names.c: how force method f opens its cells under p: "alpha 0.0005" for the tree by error,
 * else "theta 0.40". */
void app_describe_opening(SimForce f, const SimParams *p, char *buf, size_t len);

/* run_actions.c: what the keys and the panel do to the run, said on screen. */
void app_describe_params(const App *a, const SimParams *p, char *buf, size_t len);
SimParams app_scene_defaults(const App *a);
void app_default_settings(App *a);
void app_resolve_settings(const AppOptions *o, AppSettings *s);
void app_say_gpu_only_options(const App *a, const AppOptions *o);
void app_say_cpu_step(const App *a, const AppOptions *o, int n);
int app_make_run(App *a, AppOptions *o, bool cuda, char *err, size_t errlen);
int app_build_run(App *a, char *err, size_t errlen);
void app_run_built(App *a);
int app_reset(App *a, char *err, size_t errlen);
void app_start_timeline(App *a);
int app_fall_back_to_cpu(App *a);
void app_handle_reset(App *a);
void app_set_force(App *a, SimForce f);
/* The force method the panel shows (UiForce): the one asked for, the tree where the GPU runs it
 * for the fmm. */
int app_force_shown(const App *a);
int app_rung(const App *a);
bool app_run_rung(App *a, int r);
int app_save_run(App *a, const char *path);
int app_export_swift(App *a);
void app_remember(App *a, const SimParams *before);
void app_restore_defaults(App *a);
void app_undo(App *a);
void app_redo(App *a);
/* Keeps the run as it stands for ctrl+Z, before a reset or a preset replaces it. */
void app_leave_run(App *a);
/* A reset that failed after app_leave_run, with `before` runs left then: the run left back. */
void app_take_back(App *a, int before);
/* "; ctrl+Z brings back the run you left" where a run was left since there were `before`; else "". */
const char *app_left_note(const App *a, int before);
/* Whether two paths name one file (both exist). */
bool app_same_file(const char *a, const char *b);
/* --save at the exit (app_save_run), beside its file where that holds a run this one replaced. */
int app_save_at_exit(App *a);
int app_check_device(const AppOptions *o, int n, char *err, size_t errlen);
/* The run's lines (RunDesc.log): on screen, the console, stderr. */
void app_run_said(void *user, int where, const char *line);

/* requests.c: every request of the keys and the panel, taken once a frame. */
void app_take_requests(App *a, FramePlan *f);
void app_apply_controls(App *a);

/* input.c: the window's keys and mouse, and what they do, which the served page does too: a key
 * (GLFW's codes and mods), a drag that turns or moves the camera, the wheel. */
void app_input_attach(App *a, GLFWwindow *win);
void app_press_key(App *a, int key, int mods);
void app_orbit(App *a, float dx, float dy);
void app_pan(App *a, float dx, float dy, float window_per_pixel);
void app_zoom(App *a, float turns);

/* remote.c: `starburst serve`'s steps of the frame: the pages' messages taken as the panel's and
 * the keys' requests, the frame and the readout handed to the server, the loop paced; each does
 * nothing where the run is not served. */
int app_remote_start(App *a, const AppOptions *o);
void app_remote_take(App *a);
void app_remote_frame(App *a);
void app_remote_status(App *a);
void app_remote_pace(App *a);
void app_remote_lap(App *a, AppLap part);
void app_remote_finish(App *a);

/* observe.c: energy, the force checks, the checkpoint, the monitor line. */
void app_observe_restart(App *a);
void app_observe(App *a, double t);
void app_check_forces(App *a);
void app_method_name(const App *a, char *buf, size_t len);
void app_monitor(App *a, int frame);

/* heating_watch.c: the run's heating series on screen (at each reset, and after each sample). */
void app_heating_show(App *a);
void app_watch_heating(App *a, double t);

/* preset_apply.c */
int app_load_presets(App *a, char *err, size_t errlen);
int app_offer_presets_for(App *a, bool cuda, const char *why, char *err, size_t errlen);
int app_apply_preset(App *a, int i, float glide, char *err, size_t errlen);
void app_say_preset_failed(App *a, int i, const char *err);
void app_step_preset(App *a, int delta);
void app_save_preset(App *a);

/* timeline_view.c: the slider and the keys over the run's timeline, its line on screen, and
 * headless --open playing its series a snapshot a frame. */
void app_timeline_requests(App *a);
void app_show_keyframe(App *a, int i);
void app_shown(App *a);
void app_timeline_read(App *a);
void app_timeline_show(App *a);
void app_timeline_shown(App *a);

/* follow.c */
void app_follow(App *a, double t, float seconds);
/* The pair framing: on at the start of an encounter whose galaxies start far apart (the home view
 * frames them, app_camera_home), off once the user moves the camera (orbit, pan, zoom, G, Home). */
void app_follow_pair_start(App *a);
void app_follow_pair_stop(App *a);
/* Where the view frames both galaxies of an encounter that starts far apart: target and distance
 * for camera c's field of view; false where it does not start far apart (or is no encounter). */
bool app_pair_view(const App *a, const Camera *c, float target[3], float *distance);
void app_cycle_follow(App *a);

/* frame_capture.c: recordings, screenshots, the last frame's PNG. */
void app_start_recording(App *a, const char *path);
int app_stop_recording(App *a);
bool app_capture_frame(App *a, const FramePlan *f);

/* tree_overlay.c */
void app_say_tree(App *a);
void app_tree_overlay(App *a, double t);

#endif
