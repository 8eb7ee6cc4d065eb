/* Writing files for a test and looking at what it left in a folder. Include after <cmocka.h>. */
#ifndef STARBURST_TEST_FILES_H
#define STARBURST_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries of dir, hidden ones too: temporary files left behind are counted. */
static inline int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* The whole of path, with a '\0' after it (the caller frees it), or NULL where it cannot be opened. */
static inline char *read_file(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    char *data = malloc((size_t)*size + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)*size, f), (size_t)*size);
    data[*size] = '\0';
    fclose(f);
    return data;
}

/* Everything written so far to f (from tmpfile), with a '\0' after it; the caller frees it. */
static inline char *written_to(FILE *f)
{
    fflush(f);
    long len = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)len + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
    return s;
}

/* A test group's folder: made from a mkdtemp template (its XXXXXX replaced) in the group's setup,
 * removed with all it holds in the teardown. 0, or -1. */
static inline int folder_make(char *template) { return mkdtemp(template) ? 0 : -1; }

static inline int folder_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes text to dir/name; returns that path (in a buffer the next call reuses). */
static inline const char *write_file_in(const char *dir, const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#endif
