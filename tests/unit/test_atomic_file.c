/* The atomic-write helper: a commit replaces the target whole with the user's umask, and an abort
 * or any failure leaves the target as it was and nothing beside it; a group that fails part way
 * puts back the targets it had already replaced. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include "test_skip.h"

#include "util/atomic_file.h"

static char root[] = "/tmp/starburst-atomic-XXXXXX";

/* A new empty folder under root for one test. */
static const char *folder(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", root, name);
    assert_int_equal(mkdir(path, 0777), 0);
    return path;
}

static const char *in(const char *dir, const char *name)
{
    static char paths[4][512];
    static int next;
    char joined[512];
    snprintf(joined, sizeof joined, "%s/%s", dir, name);
    return strcpy(paths[next++ % 4], joined);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_holds(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("%s is missing", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

/* Writes 1000 bytes while files may grow to 100 only: the write fails as on a full disk. */
static int write_past_a_limit(AtomicFile *f)
{
    static char bytes[1000];
    struct rlimit limit, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &limit), 0);
    small = limit;
    small.rlim_cur = 100;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = atomic_file_write(f, bytes, sizeof bytes);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
    return rc;
}

static void commit(const char *path, const char *text)
{
    char err[512] = "";
    AtomicFile *f = atomic_file_open(path, err, sizeof err);
    if (!f) fail_msg("%s", err);
    assert_int_equal(atomic_file_printf(f, "%s", text), 0);
    if (atomic_file_commit(f, err, sizeof err) != 0) fail_msg("%s", err);
}

static void commit_replaces_with_the_umask(void **state)
{
    const char *dir = folder("umask");
    const char *path = in(dir, "out.txt");
    mode_t old = umask(022);
    commit(path, "first");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_holds(path, "first");

    umask(027);
    commit(path, "second");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    umask(old);
    assert_holds(path, "second");
    assert_int_equal(count_entries(dir), 1);
}

static void long_lines_are_written_whole(void **state)
{
    const char *dir = folder("long");
    const char *path = in(dir, "long.txt");
    char text[3000];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    commit(path, text);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, sizeof text - 1);
}

static void abort_leaves_nothing(void **state)
{
    const char *dir = folder("abort");
    const char *path = in(dir, "kept.txt"), *fresh = in(dir, "never.txt");
    put(path, "old");
    char err[512] = "";
    AtomicFile *f = atomic_file_open(path, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(atomic_file_printf(f, "new"), 0);
    assert_int_equal(count_entries(dir), 2); /* the target and the temporary file */
    atomic_file_abort(f);
    assert_holds(path, "old");

    f = atomic_file_open(fresh, err, sizeof err);
    assert_non_null(f);
    atomic_file_abort(f);
    atomic_file_abort(NULL);
    assert_int_not_equal(access(fresh, F_OK), 0);
    assert_int_equal(count_entries(dir), 1);
}

static void failed_write_keeps_the_target(void **state)
{
    const char *dir = folder("full");
    const char *path = in(dir, "big.bin");
    put(path, "old");
    char err[512] = "";
    AtomicFile *f = atomic_file_open(path, err, sizeof err);
    assert_non_null(f);

    assert_int_equal(write_past_a_limit(f), -1);
    assert_int_equal(atomic_file_printf(f, "more"), -1);

    assert_int_equal(atomic_file_commit(f, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "cannot write: File too large"));
    assert_holds(path, "old");
    assert_int_equal(count_entries(dir), 1);
}

static void folder_in_the_way_is_refused(void **state)
{
    const char *dir = folder("in-the-way");
    const char *path = in(dir, "taken");
    assert_int_equal(mkdir(path, 0777), 0);
    put(in(path, "inside.txt"), "inside");
    char err[512] = "";
    AtomicFile *f = atomic_file_open(path, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(atomic_file_printf(f, "new"), 0);
    assert_int_equal(atomic_file_commit(f, err, sizeof err), -1);
    assert_non_null(strstr(err, "taken: cannot replace: Is a directory"));
    assert_holds(in(path, "inside.txt"), "inside");
    assert_int_equal(count_entries(dir), 1);
}

static void missing_folder_is_named(void **state)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/no/such/out.txt", root);
    assert_null(atomic_file_open(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "cannot write: No such file or directory"));
}

static void group_commits_together(void **state)
{
    const char *dir = folder("group");
    const char *a = in(dir, "a"), *b = in(dir, "b");
    put(a, "old a");
    char err[512] = "";
    AtomicFile *files[2] = {atomic_file_open(a, err, sizeof err), atomic_file_open(b, err, sizeof err)};
    assert_non_null(files[0]);
    assert_non_null(files[1]);
    atomic_file_printf(files[0], "new a");
    atomic_file_printf(files[1], "new b");
    if (atomic_file_commit_all(files, 2, err, sizeof err) != 0) fail_msg("%s", err);
    assert_holds(a, "new a");
    assert_holds(b, "new b");
    assert_int_equal(count_entries(dir), 2);
}

/* The second target cannot be replaced: the first gets its old content back, or goes away where
 * it did not exist before. */
static void failed_group_puts_back_what_it_replaced(void **state)
{
    const char *dir = folder("group-fails");
    const char *a = in(dir, "a"), *fresh = in(dir, "fresh"), *b = in(dir, "b");
    put(a, "old a");
    assert_int_equal(mkdir(b, 0777), 0);
    char err[512] = "";
    AtomicFile *files[3] = {atomic_file_open(a, err, sizeof err), atomic_file_open(fresh, err, sizeof err),
                            atomic_file_open(b, err, sizeof err)};
    for (int i = 0; i < 3; i++) {
        assert_non_null(files[i]);
        atomic_file_printf(files[i], "new %d", i);
    }
    assert_int_equal(atomic_file_commit_all(files, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "b: cannot replace: Is a directory"));
    assert_holds(a, "old a");
    assert_int_not_equal(access(fresh, F_OK), 0);
    assert_int_equal(count_entries(dir), 2); /* a and the folder b */
}

/* A write that failed in one file of a group: no target is touched. */
static void failed_member_stops_the_group(void **state)
{
    const char *dir = folder("group-write");
    const char *a = in(dir, "a"), *b = in(dir, "b");
    put(a, "old a");
    put(b, "old b");
    char err[512] = "";
    AtomicFile *files[2] = {atomic_file_open(a, err, sizeof err), atomic_file_open(b, err, sizeof err)};
    atomic_file_printf(files[0], "new a");
    assert_int_equal(write_past_a_limit(files[1]), -1);
    assert_int_equal(atomic_file_commit_all(files, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "b: cannot write"));
    assert_holds(a, "old a");
    assert_holds(b, "old b");
    assert_int_equal(count_entries(dir), 2);
}

static void replace_puts_a_finished_file_in_place(void **state)
{
    const char *dir = folder("replace");
    const char *path = in(dir, "movie.mp4"), *part = in(dir, "movie.mp4.part.mp4");
    put(path, "older");
    put(part, "newer");
    char err[512] = "";
    if (atomic_file_replace(part, path, err, sizeof err) != 0) fail_msg("%s", err);
    assert_holds(path, "newer");
    assert_int_equal(count_entries(dir), 1);

    /* Nothing to put in place: an error, and the target stays. */
    assert_int_equal(atomic_file_replace(part, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file or directory"));
    assert_holds(path, "newer");
}

/* A link, and a link to it by a relative path: the commit replaces the file the chain ends at
 * and leaves both links; a dangling link gets its file made. */
static void commit_writes_through_links(void **state)
{
    const char *dir = folder("links");
    char sub[300];
    snprintf(sub, sizeof sub, "%s", in(dir, "real"));
    assert_int_equal(mkdir(sub, 0777), 0);
    const char *file = in(sub, "out.txt"), *first = in(dir, "first"), *second = in(dir, "second");
    put(file, "old");
    assert_int_equal(symlink(file, first), 0);
    assert_int_equal(symlink("first", second), 0);
    char *target = atomic_file_target(second);
    assert_string_equal(target, file);
    free(target);
    commit(second, "new");
    assert_holds(file, "new");
    struct stat st;
    assert_int_equal(lstat(first, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(second, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(count_entries(sub), 1);

    const char *dangling = in(dir, "dangling");
    assert_int_equal(symlink("real/made.txt", dangling), 0);
    commit(dangling, "made");
    assert_holds(in(sub, "made.txt"), "made");
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
}

static int collect(void *user, const char *name)
{
    char *seen = user;
    const char *dash = strrchr(name, '-');
    strcat(seen, dash ? dash + 1 : name);
    strcat(seen, " ");
    return 0;
}

/* What interrupted commits left: only path + tag + six characters, the newest first; removing
 * them leaves every other file alone. */
static void leftovers_are_found_and_removed(void **state)
{
    const char *dir = folder("leftovers");
    char path[512];
    snprintf(path, sizeof path, "%s", in(dir, "run.tipsy"));
    static const char *const names[] = {"run.tipsy.tmp-aaaaaa", "run.tipsy.tmp-bbbbbb", "run.tipsy.old-cccccc",
                                        "run.tipsy.ini.tmp-dddddd", "run.tipsy.tmp-toolong", "run.tipsy",
                                        "other.tipsy.tmp-eeeeee"};
    for (int i = 0; i < 7; i++) put(in(dir, names[i]), names[i]);
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000}};
    assert_int_equal(utimensat(AT_FDCWD, in(dir, names[0]), times, 0), 0);
    char seen[256] = "";
    assert_int_equal(atomic_file_leftovers(path, ".tmp-", collect, seen), 0);
    assert_string_equal(seen, "bbbbbb aaaaaa ");
    seen[0] = '\0';
    assert_int_equal(atomic_file_leftovers(path, ".old-", collect, seen), 0);
    assert_string_equal(seen, "cccccc ");
    atomic_file_remove_leftovers(path);
    assert_int_equal(count_entries(dir), 4);
    assert_int_equal(access(in(dir, "run.tipsy.ini.tmp-dddddd"), F_OK), 0);
    assert_int_equal(access(in(dir, "run.tipsy.tmp-toolong"), F_OK), 0);
    assert_int_equal(access(in(dir, "other.tipsy.tmp-eeeeee"), F_OK), 0);
}

/* A group's targets are renamed in order, and none keeps a link to its old content once all
 * are in place. */
static void group_leaves_no_links(void **state)
{
    const char *dir = folder("group-links");
    const char *a = in(dir, "a"), *b = in(dir, "b");
    put(a, "old a");
    put(b, "old b");
    char err[512] = "";
    AtomicFile *files[2] = {atomic_file_open(a, err, sizeof err), atomic_file_open(b, err, sizeof err)};
    atomic_file_printf(files[0], "new a");
    atomic_file_printf(files[1], "new b");
    if (atomic_file_commit_all(files, 2, err, sizeof err) != 0) fail_msg("%s", err);
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    assert_int_equal(st.st_nlink, 1);
    assert_int_equal(count_entries(dir), 2);
}

static int setup(void **state) { return folder_make(root); }

static int teardown(void **state) { return folder_remove(root); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commit_replaces_with_the_umask),
        cmocka_unit_test(long_lines_are_written_whole),
        cmocka_unit_test(abort_leaves_nothing),
        cmocka_unit_test(failed_write_keeps_the_target),
        cmocka_unit_test(folder_in_the_way_is_refused),
        cmocka_unit_test(missing_folder_is_named),
        cmocka_unit_test(group_commits_together),
        cmocka_unit_test(failed_group_puts_back_what_it_replaced),
        cmocka_unit_test(failed_member_stops_the_group),
        cmocka_unit_test(replace_puts_a_finished_file_in_place),
        cmocka_unit_test(commit_writes_through_links),
        cmocka_unit_test(leftovers_are_found_and_removed),
        cmocka_unit_test(group_leaves_no_links),
    };
    return test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
