#include "app/presets.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render/renderer.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/params.h"

typedef struct Parser {
    PresetList *list;
    const char *path;
    char what[400];
    char scaled[64]; /* the section that gave a value with a unit, on its scene's scale */
    char lengths[64]; /* the section that gave separation or pericentre with a unit, in A's scale length */
} Parser;

/* Whether text is a number with something after it: a value with a unit ("0.2Myr"). */
static bool has_unit(const char *text)
{
    char *end;
    strtod(text, &end);
    return end != text && *end != '\0';
}

static int number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static Preset *section(Parser *ps, const char *name)
{
    PresetList *l = ps->list;
    if (l->count > 0 && strcmp(l->items[l->count - 1].name, name) == 0) return &l->items[l->count - 1];
    Preset *grown = realloc(l->items, (size_t)(l->count + 1) * sizeof *grown);
    if (!grown) return NULL;
    l->items = grown;
    Preset *p = &l->items[l->count++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->scene.kind = SCENE_COLLISION;
    return p;
}

/* The field of a GalaxyModel a preset key names after its a_ or b_ ("disk_mass"), or NULL. */
static const struct {
    const char *name;
    size_t offset;
} galaxy_fields[] = {
    {"disk_mass", offsetof(GalaxyModel, disk_mass)},     {"disk_scale", offsetof(GalaxyModel, disk_scale)},
    {"disk_height", offsetof(GalaxyModel, disk_height)}, {"toomre_q", offsetof(GalaxyModel, toomre_q)},
    {"bulge_mass", offsetof(GalaxyModel, bulge_mass)},   {"bulge_scale", offsetof(GalaxyModel, bulge_scale)},
    {"halo_mass", offsetof(GalaxyModel, halo_mass)},     {"halo_scale", offsetof(GalaxyModel, halo_scale)},
    {"halo_cut", offsetof(GalaxyModel, halo_cut)},
};

static float *galaxy_field(GalaxyModel *g, const char *name)
{
    for (size_t i = 0; i < sizeof galaxy_fields / sizeof galaxy_fields[0]; i++)
        if (strcmp(name, galaxy_fields[i].name) == 0) return (float *)((char *)g + galaxy_fields[i].offset);
    return NULL;
}

/* inih reports the line of the first entry the handler refused; the message waits for it. */
static int on_entry(void *user, const char *sect, const char *key, const char *value)
{
    Parser *ps = user;
    /* What the file says is shown quoted: a binary file's bytes never reach the terminal raw. */
    char qkey[96], qvalue[128], qsect[96];
    params_quote(key, qkey, sizeof qkey);
    params_quote(value, qvalue, sizeof qvalue);
    params_quote(sect, qsect, sizeof qsect);
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (!ps->what[0]) snprintf(ps->what, sizeof ps->what, __VA_ARGS__);                        \
        return 0;                                                                                  \
    } while (0)
    if (!sect[0]) FAIL("'%s' stands outside any [preset] section", qkey);
    if (strlen(sect) >= sizeof ((Preset *)0)->name) FAIL("preset name '%s' is too long", qsect);
    Preset *p = section(ps, sect);
    if (!p) FAIL("out of memory");
    double v;
#define NUM(lo, hi)                                                                                \
    do {                                                                                           \
        if (number(value, lo, hi, &v) != 0) FAIL("%s = '%s' is not a number in %.10g .. %.10g", qkey, qvalue, (double)(lo), (double)(hi)); \
    } while (0)
    /* A parameter of the table, in the range the command line takes too. */
#define PARAM(id)                                                                                  \
    do {                                                                                           \
        char why[sizeof ps->what];                                                                 \
        if (params_parse(id, key, value, &v, why, sizeof why) != 0) FAIL("%s", why);               \
    } while (0)
    /* A time or length with its unit ("dt = 0.2Myr", "softening = 200pc") on the scale of the
     * preset's scene as named so far: a scene key stands before them. */
#define PARAM_SCALED(id)                                                                           \
    do {                                                                                           \
        char why[sizeof ps->what];                                                                 \
        const Units u = p->source == PRESET_SOURCE_SCENE ? scene_units(p->scene.kind) : (Units){0, 0, 0, 0}; \
        if (params_parse_in(id, &u, key, value, &v, why, sizeof why) != 0) FAIL("%s", why);        \
        if (has_unit(value)) snprintf(ps->scaled, sizeof ps->scaled, "%s", sect);                 \
    } while (0)
    /* A value of the scene's own (a galaxy's mass, an orbit's length) as a model value, or with its
     * unit on the scale of the scene named so far ("separation = 770kpc", "a_halo_mass = 1e12Msun"),
     * then held to lo .. hi in model units. */
#define PHYSICAL(dim, lo, hi)                                                                      \
    do {                                                                                           \
        char why[120];                                                                             \
        bool unit = false;                                                                         \
        const Units u = p->source == PRESET_SOURCE_SCENE ? scene_units(p->scene.kind) : (Units){0, 0, 0, 0}; \
        if (units_parse(value, dim, &u, &v, &unit, why, sizeof why) != 0) FAIL("%.80s = '%.120s' %s", qkey, qvalue, why); \
        if (unit) snprintf(ps->scaled, sizeof ps->scaled, "%s", sect);                             \
        if (!(v >= (lo) && v <= (hi)))                                                             \
            FAIL("%s = '%s' is %.4g in model units, not in %.10g .. %.10g", qkey, qvalue, v, (double)(lo), (double)(hi)); \
    } while (0)
    if ((strcmp(key, "scene") == 0 || strcmp(key, "tipsy") == 0 || strcmp(key, "tipsy_collide") == 0 ||
         strcmp(key, "load") == 0) && strcmp(ps->scaled, sect) == 0)
        FAIL("%s = '%s' comes after a value with a unit, read on the scale of the scene before it: name the "
             "scene first", qkey, qvalue);
    if (strcmp(key, "scene") == 0) {
        int k = scene_from_name(value);
        if (k < 0 || k >= SCENE_TIPSY) FAIL("scene = '%s' is not a scene: collision, disk, plummer, shell, random", qvalue);
        p->scene.kind = (SceneKind)k;
    } else if (strcmp(key, "tipsy") == 0 || strcmp(key, "tipsy_collide") == 0 || strcmp(key, "load") == 0) {
        if (!value[0] || strlen(value) >= sizeof p->file) FAIL("%s = '%s' is not a file name", qkey, qvalue);
        snprintf(p->file, sizeof p->file, "%s", value);
        p->source = strcmp(key, "load") == 0    ? PRESET_SOURCE_LOAD
                    : strcmp(key, "tipsy") == 0 ? PRESET_SOURCE_TIPSY
                                                : PRESET_SOURCE_TIPSY_COLLIDE;
        p->scene.kind = p->source == PRESET_SOURCE_TIPSY_COLLIDE ? SCENE_TIPSY_COLLIDE : SCENE_TIPSY;
    } else if (strcmp(key, "bodies") == 0) {
        PARAM(PARAM_BODIES);
        p->scene.n = (int)v;
    } else if (strcmp(key, "seed") == 0) {
        NUM(0, 4294967295.0);
        if (v != floor(v)) FAIL("seed = '%s' is not a whole number", qvalue);
        p->scene.seed = (uint64_t)v;
    } else if (strcmp(key, "mass_ratio") == 0) {
        PARAM(PARAM_MASS_RATIO);
        p->scene.mass_ratio = (float)v;
    } else if (strcmp(key, "pericentre") == 0 || strcmp(key, "separation") == 0) {
        /* Both in A's disk scale lengths: a value with a unit is divided by the one named so far. */
        const bool peri = key[0] == 'p';
        /* A's default scale length is the model length (units.h). */
        const double a_scale = p->scene.galaxy[0].disk_scale > 0 ? p->scene.galaxy[0].disk_scale : 1.0;
        PHYSICAL(UNIT_LENGTH, (peri ? 0.01 : 0.5) * a_scale, (peri ? 100 : 1000) * a_scale);
        if (has_unit(value)) {
            v /= a_scale;
            snprintf(ps->lengths, sizeof ps->lengths, "%s", sect);
        }
        *(peri ? &p->scene.pericentre : &p->scene.separation) = (float)v;
    } else if (strcmp(key, "velocity_radial") == 0 || strcmp(key, "velocity_tangential") == 0) {
        const bool radial = strcmp(key, "velocity_radial") == 0;
        PHYSICAL(UNIT_SPEED, radial ? -100 : 0, 100);
        *(radial ? &p->velocity_radial : &p->velocity_tangential) = (float)v;
        p->set |= PRESET_VELOCITY;
    } else if (strcmp(key, "eccentricity") == 0) {
        NUM(0.05, 20);
        p->scene.eccentricity = (float)v;
    } else if (strcmp(key, "pericentre_angle") == 0) {
        NUM(-360, 360);
        p->scene.pericentre_angle = (float)v;
    } else if ((key[0] == 'a' || key[0] == 'b') && key[1] == '_' && galaxy_field(&p->scene.galaxy[key[0] == 'b'], key + 2)) {
        if (strcmp(key, "a_disk_scale") == 0 && strcmp(ps->lengths, sect) == 0)
            FAIL("a_disk_scale comes after a separation or pericentre with a unit, read in A's scale length: "
                 "name a_disk_scale first");
        const char *f = key + 2;
        UnitDim dim = strcmp(f, "toomre_q") == 0 ? UNIT_NONE : strstr(f, "_mass") ? UNIT_MASS : UNIT_LENGTH;
        PHYSICAL(dim, 1e-4, 1e4);
        *galaxy_field(&p->scene.galaxy[key[0] == 'b'], f) = (float)v;
    } else if (strcmp(key, "about") == 0 || strcmp(key, "source") == 0) {
        char *to = key[0] == 'a' ? p->about : p->cite;
        if (strlen(value) >= sizeof p->about) FAIL("%s is longer than %zu characters", qkey, sizeof p->about - 1);
        snprintf(to, sizeof p->about, "%s", value);
    } else if (strcmp(key, "inclination_a") == 0) {
        NUM(-180, 180);
        p->scene.inclination_a = (float)v;
    } else if (strcmp(key, "inclination_b") == 0) {
        NUM(-180, 180);
        p->scene.inclination_b = (float)v;
        p->scene.set |= SCENE_SET_INCLINATION_B;
    } else if (strcmp(key, "dt") == 0) {
        PARAM_SCALED(PARAM_DT);
        p->dt = (float)v;
        p->set |= PRESET_DT;
    } else if (strcmp(key, "softening") == 0) {
        PARAM_SCALED(PARAM_SOFTENING);
        p->softening = (float)v;
        p->set |= PRESET_SOFTENING;
    } else if (strcmp(key, "damping") == 0) {
        PARAM(PARAM_DAMPING);
        p->damping = (float)v;
        p->set |= PRESET_DAMPING;
    } else if (strcmp(key, "theta") == 0) {
        PARAM(PARAM_THETA);
        p->theta = (float)v;
        p->set |= PRESET_THETA;
    } else if (strcmp(key, "steps_per_frame") == 0) {
        PARAM(PARAM_STEPS_PER_FRAME);
        p->steps_per_frame = (int)v;
        p->set |= PRESET_STEPS;
    } else if (strcmp(key, "exposure") == 0) {
        PARAM(PARAM_EXPOSURE);
        p->exposure = (float)v;
        p->set |= PRESET_EXPOSURE;
    } else if (strcmp(key, "point_size") == 0) {
        PARAM(PARAM_POINT_SIZE);
        p->point_size = (float)v;
        p->set |= PRESET_POINT_SIZE;
    } else if (strcmp(key, "color") == 0) {
        if (strcmp(value, "component") == 0) p->color_mode = COLOR_BY_COMPONENT;
        else if (strcmp(value, "speed") == 0) p->color_mode = COLOR_BY_SPEED;
        else FAIL("color = '%s' is not a colour mode: component, speed", qvalue);
        p->set |= PRESET_COLOR;
    } else if (strcmp(key, "camera_yaw") == 0) {
        NUM(-360, 360);
        p->camera_yaw = (float)v;
        p->set |= PRESET_CAMERA;
    } else if (strcmp(key, "camera_pitch") == 0) {
        NUM(-89, 89);
        p->camera_pitch = (float)v;
        p->set |= PRESET_CAMERA;
    } else if (strcmp(key, "camera_distance") == 0) {
        NUM(0.01, 100);
        p->camera_distance = (float)v;
        p->set |= PRESET_CAMERA;
    } else if (strcmp(key, "auto_rotate") == 0) {
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) p->auto_rotate = true;
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) p->auto_rotate = false;
        else FAIL("auto_rotate = '%s' is not true or false", qvalue);
        p->set |= PRESET_AUTO_ROTATE;
    } else if (strcmp(key, "force") == 0) {
        const int f = sim_force_from_name(value);
        if (f < 0) FAIL("force = '%s' is not a force method: direct, tree, auto", qvalue);
        p->force = (SimForce)f;
        p->set |= PRESET_FORCE;
    } else if (strcmp(key, "backend") == 0) {
        if (strcmp(value, "cuda") != 0) FAIL("backend = '%s': a preset can ask for cuda alone (or leave the key out)", qvalue);
        p->set |= PRESET_CUDA;
    } else {
        FAIL("unknown key '%s'", qkey);
    }
    return 1;
#undef PARAM
#undef PARAM_SCALED
#undef PHYSICAL
#undef NUM
#undef FAIL
}

int presets_load(const char *path, PresetList *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    Parser ps = {.list = out, .path = path};
    /* A folder is named as one; input_file_open refuses a FIFO and the like without waiting on it. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s, not a presets file", path, S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
        return -1;
    }
    char why[160];
    FILE *f = input_file_open(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    int rc = ini_parse_file(f, on_entry, &ps);
    fclose(f);
    if (rc != 0) {
        if (rc < 0) snprintf(err, errlen, "%s: out of memory", path);
        else snprintf(err, errlen, "%s:%d: %s", path, rc, ps.what[0] ? ps.what : "not a valid INI line");
        presets_free(out);
        return -1;
    }
    /* The body count against the scene's least, once the section has named its scene; the orbit
     * from velocities, once it has named the galaxies. */
    for (int i = 0; i < out->count; i++) {
        Preset *p = &out->items[i];
        if (p->set & PRESET_VELOCITY) {
            char name[96], orbit_why[240];
            params_quote(p->name, name, sizeof name);
            if (p->scene.kind != SCENE_COLLISION || p->scene.pericentre > 0 || p->scene.eccentricity > 0) {
                snprintf(err, errlen, "%s: [%s]: velocity_radial and velocity_tangential give a collision's orbit: "
                         "leave out pericentre and eccentricity", path, name);
                presets_free(out);
                return -1;
            }
            if (scene_orbit_from_velocity(&p->scene, p->velocity_radial, p->velocity_tangential,
                                          &p->scene.eccentricity, &p->scene.pericentre, orbit_why, sizeof orbit_why) != 0) {
                snprintf(err, errlen, "%s: [%s]: %s", path, name, orbit_why);
                presets_free(out);
                return -1;
            }
        }
        const int least = scene_min_bodies(p->scene.kind);
        if (p->scene.n > 0 && p->scene.n < least) {
            char name[96];
            snprintf(err, errlen, "%s: [%s]: bodies = %d: the %s scene needs at least %d", path,
                     params_quote(p->name, name, sizeof name), p->scene.n, scene_name(p->scene.kind), least);
            presets_free(out);
            return -1;
        }
    }
    return 0;
}

void presets_free(PresetList *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

const Preset *presets_find(const PresetList *list, const char *name)
{
    for (int i = 0; i < list->count; i++)
        if (strcmp(list->items[i].name, name) == 0) return &list->items[i];
    return NULL;
}

static void write_section(AtomicFile *f, const Preset *p)
{
    static const char *const file_keys[] = {"", "tipsy", "tipsy_collide", "load"};
    const SceneDesc *s = &p->scene;
    atomic_file_printf(f, "\n[%s]\n", p->name);
    if (p->source != PRESET_SOURCE_SCENE) atomic_file_printf(f, "%s = %s\n", file_keys[p->source], p->file);
    else atomic_file_printf(f, "scene = %s\n", scene_name(s->kind));
    if (s->n) atomic_file_printf(f, "bodies = %d\n", s->n);
    if (s->seed) atomic_file_printf(f, "seed = %llu\n", (unsigned long long)s->seed);
    if (s->mass_ratio) atomic_file_printf(f, "mass_ratio = %.9g\n", s->mass_ratio);
    if (s->separation) atomic_file_printf(f, "separation = %.9g\n", s->separation);
    if (p->set & PRESET_VELOCITY)
        atomic_file_printf(f, "velocity_radial = %.9g\nvelocity_tangential = %.9g\n", p->velocity_radial,
                           p->velocity_tangential);
    else {
        if (s->pericentre) atomic_file_printf(f, "pericentre = %.9g\n", s->pericentre);
        if (s->eccentricity) atomic_file_printf(f, "eccentricity = %.9g\n", s->eccentricity);
    }
    if (s->pericentre_angle) atomic_file_printf(f, "pericentre_angle = %.9g\n", s->pericentre_angle);
    for (int g = 0; g < 2; g++)
        for (size_t i = 0; i < sizeof galaxy_fields / sizeof galaxy_fields[0]; i++) {
            float v = *galaxy_field((GalaxyModel *)&s->galaxy[g], galaxy_fields[i].name);
            if (v) atomic_file_printf(f, "%c_%s = %.9g\n", "ab"[g], galaxy_fields[i].name, v);
        }
    if (p->about[0]) atomic_file_printf(f, "about = %s\n", p->about);
    if (p->cite[0]) atomic_file_printf(f, "source = %s\n", p->cite);
    if (s->inclination_a) atomic_file_printf(f, "inclination_a = %.9g\n", s->inclination_a);
    if (s->inclination_b || (s->set & SCENE_SET_INCLINATION_B))
        atomic_file_printf(f, "inclination_b = %.9g\n", s->inclination_b);
    if (p->set & PRESET_DT) atomic_file_printf(f, "dt = %.9g\n", p->dt);
    if (p->set & PRESET_SOFTENING) atomic_file_printf(f, "softening = %.9g\n", p->softening);
    if (p->set & PRESET_DAMPING) atomic_file_printf(f, "damping = %.9g\n", p->damping);
    if (p->set & PRESET_THETA) atomic_file_printf(f, "theta = %.9g\n", p->theta);
    if (p->set & PRESET_STEPS) atomic_file_printf(f, "steps_per_frame = %d\n", p->steps_per_frame);
    if (p->set & PRESET_EXPOSURE) atomic_file_printf(f, "exposure = %.9g\n", p->exposure);
    if (p->set & PRESET_POINT_SIZE) atomic_file_printf(f, "point_size = %.9g\n", p->point_size);
    if (p->set & PRESET_COLOR)
        atomic_file_printf(f, "color = %s\n", p->color_mode == COLOR_BY_SPEED ? "speed" : "component");
    if (p->set & PRESET_CAMERA)
        atomic_file_printf(f, "camera_yaw = %.9g\ncamera_pitch = %.9g\ncamera_distance = %.9g\n",
                           p->camera_yaw, p->camera_pitch, p->camera_distance);
    if (p->set & PRESET_AUTO_ROTATE) atomic_file_printf(f, "auto_rotate = %s\n", p->auto_rotate ? "true" : "false");
    if (p->set & PRESET_FORCE) atomic_file_printf(f, "force = %s\n", sim_force_name(p->force));
    if (p->set & PRESET_CUDA) atomic_file_printf(f, "backend = cuda\n");
}

int presets_append(const char *path, const Preset *p, char *err, size_t errlen)
{
    if (!p->name[0] || strpbrk(p->name, "[]\n\r;#")) {
        snprintf(err, errlen, "preset name '%s' is empty or holds one of []\\n;#", p->name);
        return -1;
    }
    PresetList existing = {0};
    FILE *in = fopen(path, "rb");
    if (in) {
        fclose(in);
        if (presets_load(path, &existing, err, errlen) != 0) return -1;
        bool taken = presets_find(&existing, p->name) != NULL;
        presets_free(&existing);
        if (taken) {
            snprintf(err, errlen, "%s: a preset named '%s' exists already", path, p->name);
            return -1;
        }
    }
    AtomicFile *out = atomic_file_open(path, err, errlen);
    if (!out) return -1;
    /* The old content goes first, byte for byte. */
    in = fopen(path, "rb");
    if (!in && errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        atomic_file_abort(out);
        return -1;
    }
    if (in) {
        char buf[8192];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, in)) > 0) atomic_file_write(out, buf, got);
        bool failed = ferror(in);
        fclose(in);
        if (failed) {
            snprintf(err, errlen, "%s: cannot read it", path);
            atomic_file_abort(out);
            return -1;
        }
    }
    write_section(out, p);
    return atomic_file_commit(out, err, errlen);
}
