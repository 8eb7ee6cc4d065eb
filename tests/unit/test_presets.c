/* Presets: the shipped file loads, bad files are reported as file:line, appending is atomic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include "test_skip.h"

#include "app/presets.h"

static char dir[] = "/tmp/starburst-presets-XXXXXX";

static const char *write_file(const char *name, const char *text) { return write_file_in(dir, name, text); }

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void shipped_presets_load(void **state)
{
    PresetList l;
    char err[512] = "";
    int rc = presets_load(STARBURST_SOURCE_DIR "/assets/presets.ini", &l, err, sizeof err);
    if (rc != 0) fail_msg("%s", err);
    assert_true(l.count >= 4);
    const Preset *p = presets_find(&l, "Collision");
    assert_non_null(p);
    assert_int_equal(p->scene.kind, SCENE_COLLISION);
    assert_int_equal(p->scene.n, 0); /* the backend chooses */
    for (int i = 0; i < l.count; i++) assert_non_null(presets_find(&l, l.items[i].name));
    assert_null(presets_find(&l, "No such preset"));
    /* The million- and 8M-star collisions: the GPU's tree, offered only on the CUDA backend. */
    static const struct {
        const char *name;
        int n;
    } big[] = {{"Million-star collision", 1048576}, {"8M-star collision", 8388608}};
    for (int i = 0; i < 2; i++) {
        p = presets_find(&l, big[i].name);
        assert_non_null(p);
        assert_int_equal(p->scene.kind, SCENE_COLLISION);
        assert_int_equal(p->scene.n, big[i].n);
        assert_true((p->set & PRESET_FORCE) && p->force == SIM_FORCE_TREE);
        assert_true(p->set & PRESET_CUDA);
    }
    assert_false(presets_find(&l, "Collision")->set & (PRESET_FORCE | PRESET_CUDA));
    presets_free(&l);
}

static void values_and_defaults(void **state)
{
    const char *path = write_file("a.ini", "[One]\nscene = plummer\nbodies = 2048\ndt = 0.004\n"
                                           "camera_pitch = 30\nforce = tree\ntheta = 0.6\n\n"
                                           "[Two]\nscene = disk\ninclination_b = 0\n");
    PresetList l;
    char err[512] = "";
    assert_int_equal(presets_load(path, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 2);
    assert_int_equal(l.items[0].scene.kind, SCENE_PLUMMER);
    assert_int_equal(l.items[0].scene.n, 2048);
    assert_true(l.items[0].set & PRESET_DT);
    assert_float_equal(l.items[0].dt, 0.004f, 1e-9);
    assert_true(l.items[0].set & PRESET_CAMERA);
    assert_false(l.items[0].set & PRESET_SOFTENING);
    assert_true(l.items[0].set & PRESET_FORCE);
    assert_int_equal(l.items[0].force, SIM_FORCE_TREE);
    assert_true(l.items[0].set & PRESET_THETA);
    assert_float_equal(l.items[0].theta, 0.6f, 0);
    assert_int_equal(l.items[1].scene.kind, SCENE_DISK);
    assert_int_equal(l.items[1].set, 0);
    /* An inclination of 0 is meant as 0, not as "the default". */
    assert_true(l.items[1].scene.set & SCENE_SET_INCLINATION_B);
    presets_free(&l);
}

/* Each mistake is reported with the file and the line it is on. */
static void mistakes_name_file_and_line(void **state)
{
    static const struct {
        const char *text, *line, *word;
    } cases[] = {
        {"[A]\nscene = disk\nwarp = 9\n", ":3:", "warp"},
        {"[A]\nbodies = -4\n", ":2:", "bodies"},
        {"[A]\n\ndt = nan\n", ":3:", "dt"},
        {"[A]\nscene = spiral\n", ":2:", "spiral"},
        {"scene = disk\n", ":1:", "section"},
        {"[A]\ncolor = plaid\n", ":2:", "plaid"},
        {"[A]\nscene = disk\ntheta = 2\n", ":3:", "theta"},
        {"[A]\nscene = disk\nalpha = 0.02\n", ":3:", "alpha"},
        {"[A]\nthis line has no equals sign\n", ":2:", "INI"},
        {"[A]\nscene = disk\nforce = barnes-hut\n", ":3:", "barnes-hut"},
        {"[A]\nbackend = cpu\n", ":2:", "cuda"},
        {"[A]\neccentricity = 0\n", ":2:", "eccentricity"},
        {"[A]\nb_halo_mass = -1\n", ":2:", "b_halo_mass"},
        {"[A]\nc_disk_mass = 1\n", ":2:", "c_disk_mass"},
        {"[A]\na_disk_colour = 1\n", ":2:", "a_disk_colour"},
        {"[A]\nscene = collision\nseparation = 770ly\n", ":3:", "unit of length"},
        {"[A]\nscene = collision\na_halo_mass = 1e12kpc\n", ":3:", "a_halo_mass"},
        {"[A]\nscene = plummer\nseparation = 50kpc\n", ":3:", "no physical scale"},
        {"[A]\nscene = collision\nseparation = 5000kpc\n", ":3:", "separation"},
        {"[A]\nscene = collision\nseparation = 50kpc\na_disk_scale = 2\n", ":4:", "a_disk_scale first"},
        {"[A]\nscene = collision\nvelocity_radial = -200\n", ":3:", "velocity_radial"},
        /* A name twice: two presets of one name, the second never chosen. */
        {"[A]\nscene = disk\n[B]\nscene = disk\n\n[A]\ndt = 0.01\n", ":6:", "[A] again: the preset 'A' stands at line 1"},
        {"[A]\nscene = disk\n  [A]  \nbodies = 4096\n", ":3:", "[A] again"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = write_file("bad.ini", cases[i].text);
        PresetList l;
        char err[512] = "";
        assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, "bad.ini"));
        assert_non_null(strstr(err, cases[i].line));
        assert_non_null(strstr(err, cases[i].word));
        assert_null(l.items);
    }
}

/* An encounter's keys: its orbit, each galaxy's make-up, its caption and source, kept through a
 * save as they were read. */
static void encounter_keys_round_trip(void **state)
{
    const char *path = write_file("enc.ini", "[Pair]\nscene = collision\nseparation = 296.15\neccentricity = 0.9883\n"
                                             "pericentre = 3.083\npericentre_angle = 90\na_halo_mass = 30.4\n"
                                             "b_disk_scale = 2.04\nb_halo_cut = 115\n"
                                             "about = Andromeda falls in; watch the tails\nsource = Someone 2012, ApJ 1, 2\n");
    PresetList l;
    char err[512] = "";
    assert_int_equal(presets_load(path, &l, err, sizeof err), 0);
    Preset p = l.items[0];
    presets_free(&l);
    assert_float_equal(p.scene.separation, 296.15f, 0);
    assert_float_equal(p.scene.eccentricity, 0.9883f, 0);
    assert_float_equal(p.scene.pericentre_angle, 90, 0);
    assert_float_equal(p.scene.galaxy[0].halo_mass, 30.4f, 0);
    assert_float_equal(p.scene.galaxy[1].disk_scale, 2.04f, 0);
    assert_float_equal(p.scene.galaxy[1].halo_cut, 115, 0);
    assert_float_equal(p.scene.galaxy[0].disk_scale, 0, 0); /* left to the model */
    assert_string_equal(p.about, "Andromeda falls in; watch the tails");
    assert_string_equal(p.cite, "Someone 2012, ApJ 1, 2");
    snprintf(p.name, sizeof p.name, "Again");
    char out[512];
    snprintf(out, sizeof out, "%s", write_file("enc2.ini", ""));
    assert_int_equal(presets_append(out, &p, err, sizeof err), 0);
    assert_int_equal(presets_load(out, &l, err, sizeof err), 0);
    const Preset *q = presets_find(&l, "Again");
    assert_non_null(q);
    assert_memory_equal(&q->scene, &p.scene, sizeof p.scene);
    assert_string_equal(q->about, p.about);
    assert_string_equal(q->cite, p.cite);
    presets_free(&l);
}

/* Values with units are the model values the scene gets: lengths through the scene's kpc (the orbit's
 * in galaxy A's scale length), masses through its Msun; an orbit from today's velocities becomes the
 * conic's eccentricity and pericentre and is saved as it was given. */
static void physical_values_become_model_values(void **state)
{
    const Units u = scene_units(SCENE_COLLISION);
    assert_true(units_physical(&u));
    const char *path = write_file("units.ini", "[Pair]\nscene = collision\nseparation = 52kpc\npericentre = 5.2kpc\n"
                                               "a_halo_mass = 1e12Msun\nb_disk_scale = 5.3kpc\nb_disk_mass = 7e10Msun\n\n"
                                               "[Scaled]\nscene = collision\na_disk_scale = 2\nseparation = 52kpc\n\n"
                                               "[Today]\nscene = collision\nseparation = 770kpc\n"
                                               "velocity_radial = -109.3km/s\nvelocity_tangential = 17km/s\n");
    PresetList l;
    char err[512] = "";
    if (presets_load(path, &l, err, sizeof err) != 0) fail_msg("%s", err);
    const Preset *p = presets_find(&l, "Pair");
    assert_float_equal(p->scene.separation, 52 / u.kpc, 1e-5);
    assert_float_equal(p->scene.pericentre, 5.2 / u.kpc, 1e-6);
    assert_float_equal(p->scene.galaxy[0].halo_mass, 1e12 / u.msun, 1e-6 * 1e12 / u.msun);
    assert_float_equal(p->scene.galaxy[1].disk_scale, 5.3 / u.kpc, 1e-6);
    assert_float_equal(p->scene.galaxy[1].disk_mass, 7e10 / u.msun, 1e-6 * 7e10 / u.msun);
    /* In A's scale length: 52 kpc is 10 of 2.6 kpc, 5 of 5.2 kpc. */
    assert_float_equal(presets_find(&l, "Scaled")->scene.separation, 52 / u.kpc / 2, 1e-5);
    p = presets_find(&l, "Today");
    assert_true(p->set & PRESET_VELOCITY);
    assert_float_equal(p->velocity_radial, -109.3 / u.kms, 1e-6);
    assert_float_equal(p->velocity_tangential, 17 / u.kms, 1e-6);
    print_message("770 kpc, -109.3 and 17 km/s: eccentricity %.4f, pericentre %.2f kpc\n", p->scene.eccentricity,
                  p->scene.pericentre * u.kpc);
    /* The speeds the built pair starts with are test_encounters' to check. */
    assert_true(p->scene.eccentricity > 0);
    assert_true(p->scene.pericentre > 0 && p->scene.pericentre < p->scene.separation);
    Preset again = *p;
    presets_free(&l);
    snprintf(again.name, sizeof again.name, "Again");
    char out[512];
    snprintf(out, sizeof out, "%s", write_file("units2.ini", ""));
    assert_int_equal(presets_append(out, &again, err, sizeof err), 0);
    assert_int_equal(presets_load(out, &l, err, sizeof err), 0);
    assert_memory_equal(&presets_find(&l, "Again")->scene, &again.scene, sizeof again.scene);
    presets_free(&l);
    /* An orbit given twice, or one that recedes, is refused with the preset's name. */
    static const char *const bad[] = {
        "[Twice]\nscene = collision\nseparation = 770kpc\npericentre = 8kpc\nvelocity_radial = -109km/s\n"
        "velocity_tangential = 17km/s\n",
        "[Away]\nscene = collision\nseparation = 770kpc\nvelocity_radial = 109km/s\nvelocity_tangential = 17km/s\n",
    };
    for (size_t i = 0; i < 2; i++) {
        path = write_file("bad.ini", bad[i]);
        assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, i == 0 ? "[Twice]" : "[Away]"));
        assert_non_null(strstr(err, i == 0 ? "pericentre" : "approaching"));
    }
}

static void append_adds_a_section_and_keeps_the_rest(void **state)
{
    const char *original = "; my presets\n[Mine]\nscene = shell\n";
    char path[512];
    snprintf(path, sizeof path, "%s", write_file("user.ini", original));
    Preset p = {.name = "Saved", .scene = {.kind = SCENE_COLLISION, .n = 4096, .seed = 9, .inclination_b = 45},
                .dt = 0.01f, .damping = 0.999f, .theta = 0.35f, .alpha = 1e-3f, .camera_yaw = 20, .camera_pitch = -10,
                .camera_distance = 1.5f, .force = SIM_FORCE_TREE,
                .set = PRESET_DT | PRESET_DAMPING | PRESET_THETA | PRESET_ALPHA | PRESET_CAMERA | PRESET_FORCE |
                       PRESET_CUDA};
    char err[512] = "";
    assert_int_equal(presets_append(path, &p, err, sizeof err), 0);
    const char *text = slurp(path);
    assert_memory_equal(text, original, strlen(original));
    PresetList l;
    assert_int_equal(presets_load(path, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 2);
    const Preset *q = presets_find(&l, "Saved");
    assert_non_null(q);
    assert_int_equal(q->scene.n, 4096);
    assert_int_equal(q->scene.seed, 9);
    assert_float_equal(q->scene.inclination_b, 45, 0);
    assert_float_equal(q->dt, p.dt, 0);
    assert_float_equal(q->damping, p.damping, 0);
    assert_float_equal(q->theta, p.theta, 0);
    assert_non_null(strstr(slurp(path), "\ntheta = 0.349999994\n"));
    assert_float_equal(q->alpha, p.alpha, 0);
    assert_true(q->set & PRESET_ALPHA);
    assert_float_equal(q->camera_distance, p.camera_distance, 0);
    assert_int_equal(q->force, SIM_FORCE_TREE);
    assert_int_equal(q->set, p.set);
    presets_free(&l);

    /* A name in use, or a name that would break the file: refused, file untouched. */
    char before[65536];
    snprintf(before, sizeof before, "%s", slurp(path));
    assert_int_equal(presets_append(path, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "exists"));
    Preset bad = p;
    snprintf(bad.name, sizeof bad.name, "x]\n[y");
    assert_int_equal(presets_append(path, &bad, err, sizeof err), -1);
    assert_string_equal(slurp(path), before);

    /* Into a folder that does not exist: an error, nothing created. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/dir/p.ini", dir);
    snprintf(p.name, sizeof p.name, "Other");
    assert_int_equal(presets_append(missing, &p, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
}

/* The file gets the mode the user's umask gives, whether it is new or replaced. */
static void appended_file_follows_the_umask(void **state)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/mode.ini", dir);
    Preset p = {.name = "First", .scene = {.kind = SCENE_PLUMMER}};
    struct stat st;
    mode_t old = umask(022);
    int rc = presets_append(path, &p, err, sizeof err);
    umask(old);
    if (rc != 0) fail_msg("%s", err);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);

    snprintf(p.name, sizeof p.name, "Second");
    old = umask(002);
    rc = presets_append(path, &p, err, sizeof err);
    umask(old);
    if (rc != 0) fail_msg("%s", err);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0664);
    PresetList l;
    assert_int_equal(presets_load(path, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 2);
    presets_free(&l);
}

static int setup(void **state) { return folder_make(dir); }

static int teardown(void **state) { return folder_remove(dir); }

/* A line as a person counts lines: a 5,000-character line, a header without its ']' and a key given
 * twice are each reported at their own line, and a skipping read leaves out that section alone. */
static void mistakes_at_their_own_line(void **state)
{
    (void)state;
    static char long_line[6000];
    snprintf(long_line, sizeof long_line, "[A]\nscene = disk\nabout = %05000d\ndt = 0.01\n\n[B]\nscene = plummer\n", 7);
    static const struct {
        const char *text, *line, *word, *skipped;
    } cases[] = {
        {long_line, "bad.ini:3:", "longer than", "[A] (line 1) is skipped"},
        {"[A]\nscene = disk\n[B\nscene = disk\n\n[C]\nscene = plummer\n", "bad.ini:3:", "'[B' opens a section without its closing ']'",
         "the lines under it are skipped"},
        {"[A]\nscene = disk\ndt = 0.01\nbodies = 4096\ndt = 0.02\n[B]\nscene = plummer\n", "bad.ini:5:",
         "dt is given twice in [A], at lines 3 and 5", "[A] (line 1) is skipped"},
        {"[A]\nscene = disk\nsteps_per_frame = -3\n[B]\nscene = plummer\n", "bad.ini:3:",
         "steps_per_frame = '-3' is too small: expected 1 to 1024", "[A] (line 1) is skipped"},
        {"[A]\nscene = disk\n  dt = 0.01\n  dt = 0.02\n[B]\nscene = plummer\n", "bad.ini:4:", "dt is given twice", "[A]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = write_file("bad.ini", cases[i].text);
        PresetList l;
        char err[800] = "";
        /* The strict read: the first mistake, at its line. */
        assert_int_equal(presets_load(path, &l, err, sizeof err), -1);
        print_message("strict: %s\n", err);
        assert_non_null(strstr(err, cases[i].line));
        assert_non_null(strstr(err, cases[i].word));
        /* The skipping read: one line naming file:line and the mistake; the next section reads. */
        assert_int_equal(presets_load_skipping(path, &l, err, sizeof err), 0);
        assert_int_equal(l.skipped_count, 1);
        print_message("skipped: %s\n", l.skipped[0]);
        assert_non_null(strstr(l.skipped[0], cases[i].line));
        assert_non_null(strstr(l.skipped[0], cases[i].word));
        assert_non_null(strstr(l.skipped[0], cases[i].skipped));
        const Preset *last = &l.items[l.count - 1];
        assert_string_equal(last->name, i == 1 ? "C" : "B");
        assert_int_equal(last->scene.kind, SCENE_PLUMMER);
        assert_null(presets_find(&l, i == 1 ? "B" : "A"));
        if (i == 1) assert_int_equal(presets_find(&l, "A")->scene.kind, SCENE_DISK); /* "scene = disk" under [B went nowhere */
        presets_free(&l);
    }
    /* Two bad sections among good ones: a line each, the good ones all read. */
    const char *path = write_file("two.ini", "[One]\nscene = disk\n[Bad]\nexposure = 0\n[Two]\nscene = disk\n"
                                             "[Worse]\npoint_size = -2\n[Three]\nscene = disk\n");
    PresetList l;
    char err[512] = "";
    assert_int_equal(presets_load_skipping(path, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 3);
    assert_int_equal(l.skipped_count, 2);
    assert_non_null(strstr(l.skipped[0], "two.ini:4: exposure"));
    assert_non_null(strstr(l.skipped[1], "two.ini:8: point_size"));
    presets_free(&l);
}

/* A preset whose values the reader would refuse is not written: the file stays as it was, and
 * what is written always reads back. */
static void append_writes_only_what_reads_back(void **state)
{
    (void)state;
    const char *path = write_file("checked.ini", "[Kept]\nscene = disk\n");
    char before[4096];
    const char *was = slurp(path);
    assert_true(strlen(was) < sizeof before);
    memcpy(before, was, strlen(was) + 1);
    static const struct {
        unsigned bit;
        const char *word;
    } bad[] = {{PRESET_STEPS, "steps_per_frame"}, {PRESET_POINT_SIZE, "point_size"}, {PRESET_EXPOSURE, "exposure"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Preset p = {.name = "Typed", .scene = {.kind = SCENE_DISK}, .steps_per_frame = 4, .point_size = 1, .exposure = 1};
        p.set = PRESET_STEPS | PRESET_POINT_SIZE | PRESET_EXPOSURE;
        if (bad[i].bit == PRESET_STEPS) p.steps_per_frame = -3;
        if (bad[i].bit == PRESET_POINT_SIZE) p.point_size = 100;
        if (bad[i].bit == PRESET_EXPOSURE) p.exposure = 0;
        char err[800] = "";
        assert_int_equal(presets_append(path, &p, err, sizeof err), -1);
        print_message("%s\n", err);
        assert_non_null(strstr(err, "checked.ini"));
        assert_non_null(strstr(err, bad[i].word));
        assert_string_equal(slurp(path), before);
    }
    /* A file with a bad section takes a new preset after it, its bytes kept. */
    path = write_file("mixed.ini", "[Bad]\nsteps_per_frame = -3\n");
    Preset good = {.name = "Good", .scene = {.kind = SCENE_DISK}, .steps_per_frame = 8, .set = PRESET_STEPS};
    char err[800] = "";
    if (presets_append(path, &good, err, sizeof err) != 0) fail_msg("%s", err);
    PresetList l;
    assert_int_equal(presets_load_skipping(path, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.items[0].steps_per_frame, 8);
    assert_non_null(strstr(slurp(path), "[Bad]\nsteps_per_frame = -3\n"));
    presets_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_presets_load),
        cmocka_unit_test(values_and_defaults),
        cmocka_unit_test(mistakes_name_file_and_line),
        cmocka_unit_test(encounter_keys_round_trip),
        cmocka_unit_test(physical_values_become_model_values),
        cmocka_unit_test(append_adds_a_section_and_keeps_the_rest),
        cmocka_unit_test(appended_file_follows_the_umask),
        cmocka_unit_test(mistakes_at_their_own_line),
        cmocka_unit_test(append_writes_only_what_reads_back),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
