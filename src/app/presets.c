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
#include "util/ini_lines.h"
#include "util/input_file.h"
#include "util/params.h"

typedef struct Parser {
    PresetList *list;
    const char *path;
    IniLines lines;   /* the file's lines as a person counts them */
    bool skipping;    /* a preset with a mistake is left out with a line, the others read on */
    int entry_header; /* the line that opened the section of the last entry */
    int skip_header;  /* the header whose section is left out; 0 = none */
    int *lines_of;    /* the line that opened each preset of list */
    int fail_line;    /* where the first mistake is */
    char what[400];
    char scaled[64]; /* the section that gave a value with a unit, on its scene's scale */
    char lengths[64]; /* the section that gave separation or pericentre with a unit, in A's scale length */
    struct {
        char key[48];
        int line;
    } keys[64]; /* the keys the section has given so far, with their lines */
    int key_count;
} Parser;

static Preset *section(Parser *ps, const char *name)
{
    PresetList *l = ps->list;
    if (l->count > 0 && ps->lines_of[l->count - 1] == ps->entry_header) return &l->items[l->count - 1];
    Preset *grown = realloc(l->items, (size_t)(l->count + 1) * sizeof *grown);
    if (!grown) return NULL;
    l->items = grown;
    int *lines = realloc(ps->lines_of, (size_t)(l->count + 1) * sizeof *lines);
    if (!lines) return NULL;
    ps->lines_of = lines;
    lines[l->count] = ps->entry_header;
    Preset *p = &l->items[l->count++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->scene.kind = SCENE_COLLISION;
    return p;
}

/* One line for the skipped list: "presets.ini:184: why". */
static void note_skipped(Parser *ps, int line, const char *what, const char *left_out)
{
    PresetList *l = ps->list;
    if (l->skipped_count >= PRESETS_SKIPPED_MAX) {
        l->skipped_more++;
        return;
    }
    snprintf(l->skipped[l->skipped_count++], sizeof l->skipped[0], "%s:%d: %s: %s", ps->path, line, what, left_out);
}

/* A mistake at line: the first is kept, to end a strict read with; a skipping read leaves out the
 * preset the line belongs to (header: the line that opened it; 0 = the line alone). */
static void mistake(Parser *ps, int line, int header, const char *what)
{
    if (!ps->what[0]) {
        ps->fail_line = line;
        snprintf(ps->what, sizeof ps->what, "%s", what);
    }
    if (!ps->skipping) return;
    char left_out[160], name[96];
    PresetList *l = ps->list;
    if (header <= 0) {
        snprintf(left_out, sizeof left_out, "the line is skipped");
    } else if (header == ps->lines.header_line && ps->lines.bad_header) {
        snprintf(left_out, sizeof left_out, "the lines under it are skipped, up to the next section");
    } else {
        /* The preset is dropped from the list, and the rest of its section with it. */
        const bool made = l->count > 0 && ps->lines_of[l->count - 1] == header;
        params_quote(made ? l->items[l->count - 1].name : ps->lines.header, name, sizeof name);
        snprintf(left_out, sizeof left_out, "the preset [%s] (line %d) is skipped", name, header);
        if (made) l->count--;
        ps->skip_header = header;
    }
    note_skipped(ps, line, what, left_out);
}

static int fail(Parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Parser *ps, const char *fmt, ...)
{
    char what[sizeof ps->what];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    mistake(ps, ps->lines.line, ps->lines.header_line, what);
    return ps->skipping ? 1 : 0;
}

static void line_problem(void *user, int line, const char *what)
{
    Parser *ps = user;
    /* A header without its ']' leaves out what follows it; another line, the section it is in. */
    const int header = ps->lines.bad_header ? (ps->lines.header_line == line ? line : 0) : ps->lines.header_line;
    mistake(ps, line, header, what);
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

/* A key the section has given already: which of two values was meant cannot be told. */
static int given_before(Parser *ps, const char *key)
{
    for (int i = 0; i < ps->key_count; i++)
        if (strcmp(ps->keys[i].key, key) == 0) return ps->keys[i].line;
    if (ps->key_count < (int)(sizeof ps->keys / sizeof ps->keys[0]) && strlen(key) < sizeof ps->keys[0].key) {
        snprintf(ps->keys[ps->key_count].key, sizeof ps->keys[0].key, "%s", key);
        ps->keys[ps->key_count++].line = ps->lines.line;
    }
    return 0;
}

/* One key of a section, read and kept as the table of options says (app/options.c). */
static int on_entry(void *user, const char *sect, const char *key, const char *value)
{
    Parser *ps = user;
    /* The lines under a header without its ']', and the rest of a section left out. */
    if (ps->lines.bad_header || (ps->skip_header && ps->skip_header == ps->lines.header_line)) return 1;
    /* What the file says is shown quoted: a binary file's bytes never reach the terminal raw. */
    char qkey[96], qvalue[128], qsect[96], why[sizeof ps->what];
    params_quote(key, qkey, sizeof qkey);
    params_quote(value, qvalue, sizeof qvalue);
    params_quote(sect, qsect, sizeof qsect);
    if (!sect[0] || ps->lines.header_line == 0) {
        snprintf(why, sizeof why, "'%s' stands outside any [preset] section", qkey);
        mistake(ps, ps->lines.line, 0, why);
        return ps->skipping ? 1 : 0;
    }
    /* The first entry of a section: a name taken by a section above would make two presets of
     * one name, of which only the first could be chosen. */
    if (ps->lines.header_line != ps->entry_header) {
        ps->entry_header = ps->lines.header_line;
        ps->key_count = 0;
        if (strlen(sect) >= sizeof ((Preset *)0)->name) {
            char what[200];
            snprintf(what, sizeof what, "preset name '%s' is too long", qsect);
            mistake(ps, ps->entry_header, ps->entry_header, what);
            return ps->skipping ? 1 : 0;
        }
        for (int i = 0; i < ps->list->count; i++)
            if (strcmp(ps->list->items[i].name, sect) == 0) {
                char what[240];
                snprintf(what, sizeof what, "[%s] again: the preset '%s' stands at line %d already", qsect, qsect,
                         ps->lines_of[i]);
                mistake(ps, ps->entry_header, ps->entry_header, what);
                return ps->skipping ? 1 : 0;
            }
    }
    Preset *p = section(ps, sect);
    if (!p) return fail(ps, "out of memory");
    const int before = given_before(ps, key);
    if (before) return fail(ps, "%s is given twice in [%s], at lines %d and %d", qkey, qsect, before, ps->lines.line);
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

/* The checks of a whole preset, once its section is read: "" where it holds, else why not. */
static void check_preset(Preset *p, char *why, size_t len)
{
    why[0] = '\0';
    /* The orbit from velocities, once the section has named the galaxies; the body count against
     * the scene's least, once it has named its scene. */
    if (p->set & PRESET_VELOCITY) {
        char orbit_why[240];
        if (p->scene.kind != SCENE_COLLISION || p->scene.pericentre > 0 || p->scene.eccentricity > 0) {
            snprintf(why, len, "velocity_radial and velocity_tangential give a collision's orbit: leave out "
                     "pericentre and eccentricity");
            return;
        }
        if (scene_orbit_from_velocity(&p->scene, p->velocity_radial, p->velocity_tangential, &p->scene.eccentricity,
                                      &p->scene.pericentre, orbit_why, sizeof orbit_why) != 0) {
            snprintf(why, len, "%s", orbit_why);
            return;
        }
    }
    const int least = scene_min_bodies(p->scene.kind);
    if (p->scene.n > 0 && p->scene.n < least) {
        snprintf(why, len, "bodies = %d: the %s scene needs at least %d", p->scene.n, scene_name(p->scene.kind), least);
        return;
    }
    /* The encounter's values together (a pericentre within the separation), as the scene takes
     * them, before anything opens. */
    SceneDesc scene = p->scene;
    if (!scene.tipsy_path) scene.tipsy_path = p->file;
    if (scene.kind != SCENE_TIPSY) scene_check(&scene, why, len);
}

/* Reads the presets of f, named path in messages. */
static int read_stream(FILE *f, const char *path, PresetList *out, bool skipping, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    Parser ps = {.list = out, .path = path, .skipping = skipping};
    ps.lines = (IniLines){.file = f, .problem = line_problem, .user = &ps};
    int rc = ini_parse_stream(ini_lines_read, &ps.lines, on_entry, &ps);
    if (rc < 0 || (!skipping && (rc != 0 || ps.what[0]))) {
        if (rc < 0) snprintf(err, errlen, "%s: out of memory", path);
        else snprintf(err, errlen, "%s:%d: %s", path, ps.fail_line ? ps.fail_line : rc,
                      ps.what[0] ? ps.what : "not a valid INI line");
        free(ps.lines_of);
        presets_free(out);
        return -1;
    }
    int kept = 0;
    for (int i = 0; i < out->count; i++) {
        Preset *p = &out->items[i];
        char off[400], name[96], what[520];
        check_preset(p, off, sizeof off);
        if (off[0]) {
            snprintf(what, sizeof what, "[%s]: %s", params_quote(p->name, name, sizeof name), off);
            if (!skipping) {
                snprintf(err, errlen, "%s: %s", path, what);
                free(ps.lines_of);
                presets_free(out);
                return -1;
            }
            note_skipped(&ps, ps.lines_of[i], what, "the preset is skipped");
            continue;
        }
        out->items[kept++] = *p;
    }
    out->count = kept;
    free(ps.lines_of);
    return 0;
}

static int read_presets(const char *path, PresetList *out, bool skipping, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
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
    const int rc = read_stream(f, path, out, skipping, err, errlen);
    fclose(f);
    return rc;
}

int presets_load(const char *path, PresetList *out, char *err, size_t errlen)
{
    return read_presets(path, out, false, err, errlen);
}

int presets_load_skipping(const char *path, PresetList *out, char *err, size_t errlen)
{
    return read_presets(path, out, true, err, errlen);
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

/* Every key the preset has, in the table's order (app/options.c), as its reader reads it back:
 * the section's text in buf, false where it does not fit. */
static bool section_text(const Preset *p, char *buf, size_t len)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, len, "\n[%s]\n", p->name);
    int count;
    const AppOption *rows = app_options(&count);
    for (int i = 0; i < count && at < len; i++) {
        const AppOption *row = &rows[i];
        const char *key = app_option_key(row);
        if (!key) continue;
        const bool has = row->written           ? row->written(p, row)
                         : row->preset_bit      ? (p->set & row->preset_bit) != 0
                                                : !option_stored_zero(p, &row->preset);
        char value[sizeof p->file + 1];
        if (has)
            at += (size_t)snprintf(buf + at, len - at, "%s = %s\n", key,
                                   row->preset_only ? row->preset_only
                                                    : option_format(p, &row->preset, &row->value, value, sizeof value));
    }
    return at < len;
}

/* Whether text, a section as written, reads back as a preset: a value out of the table's range
 * is refused here, before the file is touched, so that the file never holds what its reader
 * refuses. 0, or -1 with the reader's line in err. */
static int reads_back(const char *path, const char *text, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot check the preset: %s", path, strerror(errno));
        return -1;
    }
    PresetList l;
    char why[600];
    const int rc = read_stream(f, "the new preset", &l, false, why, sizeof why);
    fclose(f);
    presets_free(&l);
    if (rc != 0) snprintf(err, errlen, "%s: not written, it would not read back: %s", path, why);
    return rc;
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
        if (presets_load_skipping(path, &existing, err, errlen) != 0) return -1;
        bool taken = presets_find(&existing, p->name) != NULL;
        presets_free(&existing);
        if (taken) {
            snprintf(err, errlen, "%s: a preset named '%s' exists already", path, p->name);
            return -1;
        }
    }
    const size_t size = 16384;
    char *text = malloc(size);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (!section_text(p, text, size)) {
        snprintf(err, errlen, "%s: the preset '%s' is too long to write", path, p->name);
        free(text);
        return -1;
    }
    AtomicFile *out = reads_back(path, text, err, errlen) == 0 ? atomic_file_open(path, err, errlen) : NULL;
    if (!out) {
        free(text);
        return -1;
    }
    /* The old content goes first, byte for byte. */
    in = fopen(path, "rb");
    if (!in && errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        atomic_file_abort(out);
        free(text);
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
            free(text);
            return -1;
        }
    }
    atomic_file_write(out, text, strlen(text));
    free(text);
    return atomic_file_commit(out, err, errlen);
}
