/* Recordings: numbered PNGs that load back pixel for pixel, a video through ffmpeg where it is
 * installed, clear refusals otherwise, and an older file that survives a failed recording. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <stb_image.h>

#include "test_files.h"
#include "test_skip.h"

#include "app/recorder.h"
#include "util/clock.h"

static char dir[] = "/tmp/starburst-record-XXXXXX";
static char *saved_path_env;

/* A gradient that moves one pixel per frame, so that each frame differs. */
static void gradient(uint8_t *rgb, int w, int h, int frame)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = (uint8_t)(x * 255 / w + frame);
            p[1] = (uint8_t)(y * 255 / h);
            p[2] = (uint8_t)(frame * 8);
        }
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* PATH holding only the folder `name` (made empty when new), with an "ffmpeg" there running
 * `script` when one is given. */
static void set_path_only(const char *name, const char *script)
{
    char folder[256], fake[300];
    snprintf(folder, sizeof folder, "%s/%s", dir, name);
    mkdir(folder, 0777);
    if (script) {
        snprintf(fake, sizeof fake, "%s/ffmpeg", folder);
        write_file(fake, script, 0755);
    }
    setenv("PATH", folder, 1);
}

/* No temporary video ("out.mp4.part.mp4") is left beside path. */
static void assert_no_part_file(const char *path)
{
    char part[300];
    snprintf(part, sizeof part, "%s.part%s", path, strrchr(path, '.'));
    assert_int_not_equal(access(part, F_OK), 0);
}

static int restore_path(void **state)
{
    setenv("PATH", saved_path_env, 1);
    return 0;
}

/* The closing line tells the time the recording took apart from the video's length: 6 frames,
 * 0.1 s apart, are 0.1 s of video at 60 fps recorded over 0.5 s. */
static void close_says_the_time_taken_and_the_length(void **state)
{
    (void)state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/timed", dir);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 8, .height = 8}, err, sizeof err);
    if (!r) fail_msg("%s", err);
    uint8_t rgb[8 * 8 * 3] = {0};
    for (int i = 0; i < 6; i++) {
        double t = clock_seconds();
        while (i > 0 && clock_seconds() - t < 0.1) usleep(5000);
        if (recorder_frame(r, rgb, 8, 8, err, sizeof err) != 0) fail_msg("%s", err);
    }
    assert_int_equal(recorder_close(r, err, sizeof err), 0);
    print_message("%s\n", err);
    double over = -1;
    const char *at = strstr(err, " over ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, " over %lf s", &over), 1);
    assert_true(over >= 0.5 && over < 60);
    assert_non_null(strstr(err, "6 frames"));
    assert_non_null(strstr(err, "0.1 s of video at 60 fps"));
}

static void png_folder_loads_back(void **state)
{
    char path[256], err[512] = "", file[300];
    snprintf(path, sizeof path, "%s/frames", dir);
    const int w = 37, h = 21, n = 5;
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = w, .height = h}, err, sizeof err);
    if (!r) fail_msg("%s", err);
    uint8_t rgb[37 * 21 * 3];
    for (int i = 0; i < n; i++) {
        gradient(rgb, w, h, i);
        if (recorder_frame(r, rgb, w, h, err, sizeof err) != 0) fail_msg("%s", err);
    }
    assert_int_equal(recorder_frames(r), n);
    assert_string_equal(recorder_path(r), path);
    assert_int_equal(recorder_close(r, err, sizeof err), 0);
    assert_non_null(strstr(err, "5 frames"));
    for (int i = 0; i < n; i++) {
        snprintf(file, sizeof file, "%s/frame_%06d.png", path, i + 1);
        int lw, lh, channels;
        uint8_t *back = stbi_load(file, &lw, &lh, &channels, 3);
        if (!back) fail_msg("cannot load %s", file);
        assert_int_equal(lw, w);
        assert_int_equal(lh, h);
        gradient(rgb, w, h, i);
        assert_memory_equal(back, rgb, sizeof rgb);
        stbi_image_free(back);
    }
    snprintf(file, sizeof file, "%s/frame_%06d.png", path, n + 1);
    assert_int_not_equal(access(file, F_OK), 0);
    /* The frames and nothing else: no temporary file is left beside them. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq %d", path, n);
    assert_int_equal(system(cmd), 0);

    /* A second recording into the same folder would overwrite these frames: refused. */
    r = recorder_open(&(RecorderDesc){.path = path, .width = w, .height = h}, err, sizeof err);
    assert_null(r);
    assert_non_null(strstr(err, "already holds"));
}

static void resized_frames_are_centred(void **state)
{
    char path[256], err[512] = "", file[300];
    snprintf(path, sizeof path, "%s/resized", dir);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 4, .height = 4}, err, sizeof err);
    if (!r) fail_msg("%s", err);
    /* Larger: the middle 4 x 4 of a 6 x 6 frame. Smaller: a 2 x 2 frame in the middle, black around. */
    uint8_t big[6 * 6 * 3], small[2 * 2 * 3];
    for (int i = 0; i < 6 * 6 * 3; i++) big[i] = (uint8_t)(i / 3);
    memset(small, 200, sizeof small);
    mode_t old_mask = umask(027);
    assert_int_equal(recorder_frame(r, big, 6, 6, err, sizeof err), 0);
    umask(old_mask);
    assert_int_equal(recorder_frame(r, small, 2, 2, err, sizeof err), 0);
    assert_int_equal(recorder_close(r, err, sizeof err), 0);

    int lw, lh, channels;
    snprintf(file, sizeof file, "%s/frame_000001.png", path);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640); /* as the umask says */
    uint8_t *back = stbi_load(file, &lw, &lh, &channels, 3);
    assert_non_null(back);
    assert_int_equal(lw, 4);
    assert_int_equal(lh, 4);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) assert_int_equal(back[(y * 4 + x) * 3], (y + 1) * 6 + x + 1);
    stbi_image_free(back);
    snprintf(file, sizeof file, "%s/frame_000002.png", path);
    back = stbi_load(file, &lw, &lh, &channels, 3);
    assert_non_null(back);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            bool inside = x >= 1 && x <= 2 && y >= 1 && y <= 2;
            assert_int_equal(back[(y * 4 + x) * 3 + 1], inside ? 200 : 0);
        }
    stbi_image_free(back);
}

static void missing_parent_is_refused(void **state)
{
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/no-such-folder/frames", dir);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 8, .height = 8}, err, sizeof err);
    assert_null(r);
    assert_non_null(strstr(err, "no-such-folder does not exist"));
    assert_int_not_equal(access(path, F_OK), 0);

    snprintf(path, sizeof path, "%s/no-such-folder/movie.mp4", dir);
    r = recorder_open(&(RecorderDesc){.path = path, .width = 8, .height = 8}, err, sizeof err);
    assert_null(r);
}

static void absent_ffmpeg_is_named(void **state)
{
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/movie.mp4", dir);
    set_path_only("empty-bin", NULL);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 64, .height = 48}, err, sizeof err);
    assert_null(r);
    assert_non_null(strstr(err, "needs ffmpeg"));
    assert_non_null(strstr(err, "apt-get install ffmpeg"));
    assert_non_null(strstr(err, "movie.mp4"));
    assert_int_not_equal(access(path, F_OK), 0);
}

static void ffmpeg_writes_mp4(void **state)
{
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/gradient.mp4", dir);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 64, .height = 48, .fps = 30}, err, sizeof err);
    if (!r && strstr(err, "needs ffmpeg")) {
        /* CI installs ffmpeg and sets this, so that the video path cannot go untested there. */
        if (getenv("STARBURST_REQUIRE_FFMPEG")) fail_msg("%s, and STARBURST_REQUIRE_FFMPEG is set", err);
        test_skip();
    }
    if (!r) fail_msg("%s", err);
    uint8_t rgb[64 * 48 * 3];
    for (int i = 0; i < 30; i++) {
        gradient(rgb, 64, 48, i);
        if (recorder_frame(r, rgb, 64, 48, err, sizeof err) != 0) fail_msg("%s", err);
    }
    if (recorder_close(r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_non_null(strstr(err, "30 frames"));
    long size = 0;
    char *data = read_file(path, &size);
    assert_non_null(data);
    assert_true(size > 8);
    assert_memory_equal(data + 4, "ftyp", 4);
    free(data);
    assert_no_part_file(path);
}

static void failing_ffmpeg_keeps_older_file(void **state)
{
    char path[256], err[512] = "";
    set_path_only("failing-bin", "#!/bin/sh\necho 'fake ffmpeg: failing on purpose' >&2\nexit 1\n");
    snprintf(path, sizeof path, "%s/older.mp4", dir);
    write_file(path, "an older recording", 0644);

    /* Frames larger than a pipe holds: the write meets a closed pipe, not a full one. */
    enum { W = 256, H = 256 };
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = W, .height = H}, err, sizeof err);
    if (!r) fail_msg("%s", err);
    uint8_t *rgb = calloc(W * H * 3, 1);
    assert_int_equal(recorder_frame(r, rgb, W, H, err, sizeof err), -1);
    assert_non_null(strstr(err, "exited with status 1"));
    assert_int_equal(recorder_frame(r, rgb, W, H, err, sizeof err), -1);
    free(rgb);
    assert_int_equal(recorder_close(r, err, sizeof err), -1);
    assert_non_null(strstr(err, "older.mp4 not written"));
    assert_non_null(strstr(err, "failing on purpose"));

    long size = 0;
    char *data = read_file(path, &size);
    assert_non_null(data);
    assert_string_equal(data, "an older recording");
    free(data);
    assert_no_part_file(path);
}

static void ffmpeg_that_writes_nothing_fails(void **state)
{
    char path[256], err[512] = "";
    set_path_only("silent-bin", "#!/bin/sh\nexec /bin/cat >/dev/null\n");
    snprintf(path, sizeof path, "%s/silent.mkv", dir);
    Recorder *r = recorder_open(&(RecorderDesc){.path = path, .width = 16, .height = 16}, err, sizeof err);
    if (!r) fail_msg("%s", err);
    uint8_t rgb[16 * 16 * 3] = {0};
    assert_int_equal(recorder_frame(r, rgb, 16, 16, err, sizeof err), 0);
    assert_int_equal(recorder_close(r, err, sizeof err), -1);
    assert_non_null(strstr(err, "left nothing"));
    assert_int_not_equal(access(path, F_OK), 0);
    assert_no_part_file(path);
}

static void new_paths_do_not_collide(void **state)
{
    char cwd[4096], first[128], second[128];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    set_path_only("empty-bin", NULL);
    assert_int_equal(recorder_new_path(first, sizeof first), 0);
    assert_non_null(strstr(first, "starburst-"));
    assert_null(strchr(first, '.'));
    assert_int_equal(mkdir(first, 0777), 0);
    assert_int_equal(recorder_new_path(second, sizeof second), 0);
    assert_string_not_equal(first, second);
    assert_int_equal(recorder_new_path(second, 4), -1);
    assert_int_equal(chdir(cwd), 0);
}

static int setup(void **state)
{
    saved_path_env = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    return saved_path_env ? folder_make(dir) : -1;
}

static int teardown(void **state)
{
    free(saved_path_env);
    return folder_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(png_folder_loads_back),
        cmocka_unit_test(close_says_the_time_taken_and_the_length),
        cmocka_unit_test(resized_frames_are_centred),
        cmocka_unit_test(missing_parent_is_refused),
        cmocka_unit_test_teardown(absent_ffmpeg_is_named, restore_path),
        cmocka_unit_test(ffmpeg_writes_mp4),
        cmocka_unit_test_teardown(failing_ffmpeg_keeps_older_file, restore_path),
        cmocka_unit_test_teardown(ffmpeg_that_writes_nothing_fails, restore_path),
        cmocka_unit_test_teardown(new_paths_do_not_collide, restore_path),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
