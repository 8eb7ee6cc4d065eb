/* Files a user names: a reader opens only a regular file and refuses a FIFO, a folder or a
 * device at once (a FIFO would block it); an output path is checked before a run starts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "util/input_file.h"
#include "util/output_path.h"

static char root[] = "/tmp/starburst-paths-XXXXXX";

static const char *at(const char *name)
{
    static char paths[4][512];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 512, "%s/%s", root, name);
    return p;
}

static void expect_refused(const char *path, const char *why_part, int errno_wanted)
{
    char why[256] = "";
    alarm(20); /* a FIFO that blocks ends the test */
    FILE *f = input_file_open(path, why, sizeof why);
    int e = errno;
    alarm(0);
    if (f) fail_msg("%s was opened", path);
    print_message("%s: %s\n", path, why);
    assert_non_null(strstr(why, why_part));
    assert_int_equal(e, errno_wanted);
}

static void only_regular_files_are_read(void **state)
{
    const char *file = at("file.txt");
    FILE *w = fopen(file, "w");
    assert_non_null(w);
    fputs("text", w);
    fclose(w);
    char why[256] = "", buf[8] = "";
    FILE *f = input_file_open(file, why, sizeof why);
    assert_non_null(f);
    /* Reads block as usual once open: the whole file comes back. */
    assert_int_equal(fread(buf, 1, sizeof buf, f), 4);
    fclose(f);

    assert_int_equal(mkfifo(at("fifo"), 0666), 0);
    expect_refused(at("fifo"), "not a regular file: a FIFO", EINVAL);
    expect_refused(root, "not a regular file: a folder", EINVAL);
    expect_refused("/dev/null", "not a regular file: a device", EINVAL);
    expect_refused(at("missing"), "No such file or directory", ENOENT);
}

static void expect_output(const char *path, bool folder_ok, const char *why_part)
{
    char why[600] = "";
    int rc = output_path_check(path, folder_ok, why, sizeof why);
    if (!why_part) {
        if (rc != 0) fail_msg("%s: %s", path, why);
        return;
    }
    if (rc == 0) fail_msg("%s was taken", path);
    print_message("%s: %s\n", path, why);
    assert_non_null(strstr(why, why_part));
}

static void output_paths_are_checked(void **state)
{
    expect_output(at("new.tipsy"), false, NULL);
    expect_output("", false, "no name given");
    expect_output(at("nope/run.tipsy"), false, "does not exist");
    expect_output(root, false, "is a folder, not a file");
    expect_output(at("frames/"), false, "ends in '/'");
    expect_output(at("frames/"), true, NULL);
    expect_output(root, true, NULL);
    expect_output(at("nope/frames"), true, "does not exist");
    FILE *w = fopen(at("plain"), "w");
    assert_non_null(w);
    fclose(w);
    expect_output(at("plain/x.png"), false, "is not a folder");
    /* Through a link, the folder checked is the target's. */
    assert_int_equal(symlink("nope/run.tipsy", at("link.tipsy")), 0);
    expect_output(at("link.tipsy"), false, "does not exist");
    if (geteuid() != 0) {
        assert_int_equal(mkdir(at("locked"), 0500), 0);
        expect_output(at("locked/x.png"), false, "cannot write in folder");
    }
}

static int setup(void **state) { return folder_make(root); }

static int teardown(void **state) { return folder_remove(root); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_regular_files_are_read),
        cmocka_unit_test(output_paths_are_checked),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
