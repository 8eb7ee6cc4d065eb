/* The panel's controls as the run's parameters: the one place they are read (app_ui_params), and
 * the one place they are written back (an undo, the defaults); and where every value the panel
 * takes is checked against the parameter table: a typed one (the UI hands over its text), and
 * each control before a frame uses it, so that a save or a preset writes only what loads back. */
#include <string.h>

#include "app/options.h"
#include "app/viewer.h"
#include "util/params.h"

SimParams app_ui_params(const App *a)
{
    const UiControls *c = &a->ui.controls;
    return (SimParams){.dt = c->dt, .softening = c->softening, .damping = c->damping, .theta = c->theta,
                       .alpha = c->alpha};
}

void app_set_alpha(App *a, float alpha)
{
    UiControls *c = &a->ui.controls;
    c->alpha = alpha > 0 ? alpha : 0;
    if (alpha > 0) c->alpha_kept = alpha;
    else if (!(c->alpha_kept > 0)) c->alpha_kept = params_alpha(-1);
}

void app_set_params(App *a, const SimParams *p)
{
    UiControls *c = &a->ui.controls;
    c->dt = p->dt;
    c->softening = p->softening;
    c->damping = p->damping;
    if (p->theta > 0) c->theta = p->theta;
    if (p->alpha >= 0) app_set_alpha(a, p->alpha);
}

/* The fields a value can be typed into, each with the range it is checked against (the parameter
 * table's; the cycle's seconds, --cycle's), its control and the panel's name for it. */
typedef struct Field {
    const char *name;
    ParamId param;     /* PARAM_COUNT: the option option_name's range */
    const char *option_name;
    float *value;      /* or: */
    int *whole;
    float least;       /* what a value at or below an open minimum becomes: the slider's lowest */
} Field;

static Field field_of(App *a, int field)
{
    UiControls *c = &a->ui.controls;
    const UiRanges *r = &a->ui.ranges;
    switch ((UiField)field) {
    case UI_FIELD_DT: return (Field){"dt", PARAM_DT, NULL, &c->dt, NULL, r->dt.lo};
    case UI_FIELD_SOFTENING: return (Field){"softening", PARAM_SOFTENING, NULL, &c->softening, NULL, r->softening.lo};
    case UI_FIELD_DAMPING: return (Field){"damping", PARAM_DAMPING, NULL, &c->damping, NULL, r->damping.lo};
    case UI_FIELD_THETA: return (Field){"theta", PARAM_THETA, NULL, &c->theta, NULL, r->theta.lo};
    case UI_FIELD_ALPHA: return (Field){"alpha", PARAM_ALPHA, NULL, &c->alpha, NULL, r->alpha.lo};
    case UI_FIELD_STEPS_PER_FRAME:
        return (Field){"steps/frame", PARAM_STEPS_PER_FRAME, NULL, NULL, &c->steps_per_frame, (float)r->steps_per_frame.lo};
    case UI_FIELD_POINT_SIZE: return (Field){"point size", PARAM_POINT_SIZE, NULL, &c->point_size, NULL, r->point_size.lo};
    case UI_FIELD_EXPOSURE: return (Field){"exposure", PARAM_EXPOSURE, NULL, &c->exposure, NULL, r->exposure.lo};
    case UI_FIELD_CYCLE_SECONDS:
        return (Field){"cycle seconds", PARAM_COUNT, "--cycle", &c->cycle_seconds, NULL, r->cycle_seconds.lo};
    case UI_FIELD_MASS_RATIO: return (Field){"mass ratio", PARAM_MASS_RATIO, NULL, &c->encounter.mass_ratio, NULL, r->mass_ratio.lo};
    case UI_FIELD_PERICENTRE: return (Field){"pericentre", PARAM_PERICENTRE, NULL, &c->encounter.pericentre, NULL, r->pericentre.lo};
    case UI_FIELD_ECCENTRICITY:
        return (Field){"eccentricity", PARAM_ECCENTRICITY, NULL, &c->encounter.eccentricity, NULL, r->eccentricity.lo};
    case UI_FIELD_INCLINATION_A:
        return (Field){"inclination A", PARAM_INCLINATION_A, NULL, &c->encounter.inclination_a, NULL, r->inclination.lo};
    case UI_FIELD_INCLINATION_B:
        return (Field){"inclination B", PARAM_INCLINATION_B, NULL, &c->encounter.inclination_b, NULL, r->inclination.lo};
    case UI_FIELD_NONE:
    case UI_FIELD_COUNT: break;
    }
    return (Field){0};
}

static OptionSpec field_spec(const Field *f)
{
    if (f->param != PARAM_COUNT) return (OptionSpec){.kind = OPTION_PARAM, .param = f->param};
    return app_option_named(f->option_name)->value;
}

static double field_value(const Field *f) { return f->value ? (double)*f->value : (double)*f->whole; }

/* Sets the field's control to v; a parameter of the run, with its undo and alpha's kept value. */
static void set_field(App *a, int field, const Field *f, double v)
{
    if (field_value(f) == (f->value ? (double)(float)v : v)) return;
    if (field >= UI_FIELD_DT && field <= UI_FIELD_ALPHA) {
        const SimParams before = app_ui_params(a);
        run_remember(a->run, &before);
    }
    if (field == UI_FIELD_ALPHA) app_set_alpha(a, (float)v);
    else if (f->value) *f->value = (float)v;
    else *f->whole = (int)v;
}

Units app_encounter_units(const App *a)
{
    Units u = scene_units(SCENE_COLLISION);
    const float scale = run_source(a->run)->scene.galaxy[0].disk_scale; /* a preset's own galaxy A */
    if (scale > 0) u.kpc *= scale;
    return u;
}

void app_show_encounter(App *a)
{
    const SceneEncounter e = scene_encounter(&run_source(a->run)->scene);
    a->ui.controls.encounter = (UiEncounter){.mass_ratio = e.mass_ratio, .pericentre = e.pericentre,
                                             .eccentricity = e.eccentricity, .inclination_a = e.inclination_a,
                                             .inclination_b = e.inclination_b};
}

/* A value typed into the panel: read as the command line reads it (a time or length with its unit,
 * on the run's scale; the encounter's on the collision's, in A's disk scale lengths), brought into
 * the table's range, and said where it was changed. */
int app_take_typed(App *a)
{
    UiActions *act = &a->ui.actions;
    const int field = act->typed;
    act->typed = UI_FIELD_NONE;
    const Field f = field_of(a, field);
    if (!f.name) return -1;
    const OptionSpec spec = field_spec(&f);
    double v;
    char note[400];
    const Units units = field >= UI_FIELD_MASS_RATIO ? app_encounter_units(a) : run_info(a->run)->scene.units;
    const int rc = option_fit(&spec, &units, f.name, act->typed_text, f.least, &v, note, sizeof note);
    if (rc < 0) {
        app_notify(a, "%s; %s stays %g", note, f.name, field_value(&f));
        return -1;
    }
    set_field(a, field, &f, v);
    if (note[0]) app_notify(a, "%s", note);
    return rc;
}

/* Every value the panel sets, in the table's range before the frame uses it (a save or a preset
 * writes it): what a drag or anything else left outside is brought in, and said. */
void app_check_controls(App *a)
{
    for (int field = UI_FIELD_DT; field < UI_FIELD_COUNT; field++) {
        const Field f = field_of(a, field);
        const OptionSpec spec = field_spec(&f);
        const double now = field_value(&f), fitted = option_fit_value(&spec, now, f.least);
        if ((f.value ? (double)(float)fitted : fitted) == now) continue;
        char range[96];
        option_values_text(&spec, range, sizeof range);
        set_field(a, field, &f, fitted);
        app_notify(a, "%s %g is outside %.*s: set to %g", f.name, now, (int)strcspn(range, ";"), range, fitted);
    }
}
