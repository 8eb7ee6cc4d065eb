#include "app/presets.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/options.h"
#include "run/saved_run.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/params.h"

typedef struct Parser {
    PresetList *list;
    const char *path;
    FILE *file;
    int line;         /* lines read, as inih counts them */
    int header_line;  /* the last line that opens a section */
    int entry_header; /* the line that opened the section of the last entry */
    int *lines;       /* the line that opened each preset of list */
    int fail_line;    /* where the mistake is, where not the line of the entry refused */
    char what[400];
    char scaled[64]; /* the section that gave a value with a unit, on its scene's scale */
    char lengths[64]; /* the section that gave separation or pericentre with a unit, in A's scale length */
} Parser;

static Preset *section(Parser *ps, const char *name)
{
    PresetList *l = ps->list;
    if (l->count > 0 && strcmp(l->items[l->count - 1].name, name) == 0) return &l->items[l->count - 1];
    Preset *grown = realloc(l->items, (size_t)(l->count + 1) * sizeof *grown);
    if (!grown) return NULL;
    l->items = grown;
    int *lines = realloc(ps->lines, (size_t)(l->count + 1) * sizeof *lines);
    if (!lines) return NULL;
    ps->lines = lines;
    lines[l->count] = ps->entry_header;
    Preset *p = &l->items[l->count++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->scene.kind = SCENE_COLLISION;
    return p;
}

/* Notes the first mistake; inih reports the line of the entry the handler refused. */
static int fail(Parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Parser *ps, const char *fmt, ...)
{
    if (!ps->what[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->what, sizeof ps->what, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Keeps v in p where the row says: 0, or -1 with a line in err. */
static int keep(Preset *p, const AppOption *row, const char *key, const OptionValue *v, char *err, size_t errlen)
{
    char why[160];
    if (row->preset_only && strcmp(v->text, row->preset_only) != 0) {
        snprintf(why, sizeof why, "is not %s: a preset can ask for %s alone (or leave the key out)", row->preset_only,
                 row->preset_only);
        return option_refuse(key, v->text, why, err, errlen);
    }
    if (row->to_preset && row->to_preset(p, row, v, why, sizeof why) != 0)
        return option_refuse(key, v->text, why, err, errlen);
    if (option_store(p, &row->preset, v, key, err, errlen) != 0) return -1;
    p->set |= row->preset_bit;
    return 0;
}

/* The scale a preset's values with a unit are read on: its scene's, or the saved run's it loads
 * (its .ini, as the command line's --load); none for a TIPSY file. */
static Units preset_scale(const Preset *p)
{
    SavedRun saved;
    char ignored[512];
    if (p->source == PRESET_SOURCE_SCENE) return scene_units(p->scene.kind);
    if (p->source == PRESET_SOURCE_LOAD && state_read_settings(p->file, &saved, ignored, sizeof ignored) == 0)
        return saved.units;
    return (Units){0, 0, 0, 0};
}

/* One key of a section, read and kept as the table of options says (app/options.c). */
static int on_entry(void *user, const char *sect, const char *key, const char *value)
{
    Parser *ps = user;
    /* What the file says is shown quoted: a binary file's bytes never reach the terminal raw. */
    char qkey[96], qvalue[128], qsect[96], why[sizeof ps->what];
    params_quote(key, qkey, sizeof qkey);
    params_quote(value, qvalue, sizeof qvalue);
    params_quote(sect, qsect, sizeof qsect);
    if (!sect[0]) return fail(ps, "'%s' stands outside any [preset] section", qkey);
    if (strlen(sect) >= sizeof ((Preset *)0)->name) return fail(ps, "preset name '%s' is too long", qsect);
    /* The first entry of a section: a name taken by a section above would make two presets of
     * one name, of which only the first could be chosen. */
    if (ps->header_line != ps->entry_header) {
        ps->entry_header = ps->header_line;
        for (int i = 0; i < ps->list->count; i++)
            if (strcmp(ps->list->items[i].name, sect) == 0) {
                if (!ps->what[0]) ps->fail_line = ps->header_line; /* the first mistake is the one told */
                return fail(ps, "[%s] again: the preset '%s' stands at line %d already", qsect, qsect, ps->lines[i]);
            }
    }
    Preset *p = section(ps, sect);
    if (!p) return fail(ps, "out of memory");
    const AppOption *row = app_option_keyed(key);
    if (!row) return fail(ps, "unknown key '%s'", qkey);
    /* A time or length with its unit ("dt = 0.2Myr", "separation = 770kpc") is read on the scale of
     * the scene named so far, an orbit's length in galaxy A's disk scale length given so far: those
     * stand before it. */
    if (row->names_scene && strcmp(ps->scaled, sect) == 0)
        return fail(ps, "%s = '%s' comes after a value with a unit, read on the scale of the scene before it: "
                    "name the scene first", qkey, qvalue);
    if (row->sets_disk_scale && strcmp(ps->lengths, sect) == 0)
        return fail(ps, "%s comes after a separation or pericentre with a unit, read in A's scale length: name %s "
                    "first", qkey, qkey);
    const Units u = preset_scale(p);
    OptionValue v;
    if (app_option_read(row, &p->scene, &u, key, value, &v, why, sizeof why) != 0) return fail(ps, "%s", why);
    if (keep(p, row, key, &v, why, sizeof why) != 0) return fail(ps, "%s", why);
    if (v.had_unit) snprintf(ps->scaled, sizeof ps->scaled, "%s", sect);
    if (v.had_unit && row->in_disk_scale) snprintf(ps->lengths, sizeof ps->lengths, "%s", sect);
    return 1;
}

/* fgets for inih, noting the lines that open a section ("[name]"). */
static char *read_line(char *str, int num, void *stream)
{
    Parser *ps = stream;
    if (!fgets(str, num, ps->file)) return NULL;
    ps->line++;
    if (str[strspn(str, " \t")] == '[') ps->header_line = ps->line;
    return str;
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
    ps.file = f;
    int rc = ini_parse_stream(read_line, &ps, on_entry, &ps);
    fclose(f);
    free(ps.lines);
    if (rc != 0) {
        if (rc < 0) snprintf(err, errlen, "%s: out of memory", path);
        else snprintf(err, errlen, "%s:%d: %s", path, ps.fail_line ? ps.fail_line : rc,
                      ps.what[0] ? ps.what : "not a valid INI line");
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
        /* The encounter's values together (a pericentre within the separation), as the scene
         * takes them, before anything opens. */
        SceneDesc scene = p->scene;
        char name[96], off[400];
        if (!scene.tipsy_path) scene.tipsy_path = p->file;
        if (scene.kind != SCENE_TIPSY && scene_check(&scene, off, sizeof off) != 0) {
            snprintf(err, errlen, "%s: [%s]: %s", path, params_quote(p->name, name, sizeof name), off);
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

/* Every key the preset has, in the table's order (app/options.c), as its reader reads it back. */
static void write_section(AtomicFile *f, const Preset *p)
{
    atomic_file_printf(f, "\n[%s]\n", p->name);
    int count;
    const AppOption *rows = app_options(&count);
    for (int i = 0; i < count; i++) {
        const AppOption *row = &rows[i];
        const char *key = app_option_key(row);
        if (!key) continue;
        const bool has = row->written           ? row->written(p, row)
                         : row->preset_bit      ? (p->set & row->preset_bit) != 0
                                                : !option_stored_zero(p, &row->preset);
        char value[sizeof p->file + 1];
        if (has)
            atomic_file_printf(f, "%s = %s\n", key,
                               row->preset_only ? row->preset_only
                                                : option_format(p, &row->preset, &row->value, value, sizeof value));
    }
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
