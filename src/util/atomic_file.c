/* Atomic replacement of files: a temporary file beside the target, opened with O_EXCL under a
 * name no other writer picks (mkstemp would do that too, but makes every file 0600), then fsync,
 * rename and an fsync of the folder. A group of files is renamed in order; before each rename but
 * the last, a hard link keeps the old target, so that a failed rename can put it back. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct AtomicFile {
    char *path;
    char *tmp;
    int fd;    /* -1 once closed */
    int error; /* errno of the first failed write, 0 while none failed */
};

#define NAME_TRIES 100

/* Six characters that differ between processes, threads and calls. */
static void random_suffix(char out[7])
{
    static atomic_uint_fast64_t calls;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^
                 atomic_fetch_add(&calls, 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 6; i++, z /= 36) out[i] = letters[z % 36];
    out[6] = '\0';
}

/* path + tag + six random characters, in a new allocation. */
static char *beside(const char *path, const char *tag)
{
    size_t len = strlen(path) + strlen(tag) + 7;
    char *name = malloc(len), suffix[7];
    if (!name) return NULL;
    random_suffix(suffix);
    snprintf(name, len, "%s%s%s", path, tag, suffix);
    return name;
}

static void free_file(AtomicFile *f)
{
    free(f->path);
    free(f->tmp);
    free(f);
}

AtomicFile *atomic_file_open(const char *path, char *err, size_t errlen)
{
    AtomicFile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        snprintf(err, errlen, "%s: cannot write: out of memory", path);
        return NULL;
    }
    f->fd = -1;
    for (int i = 0; i < NAME_TRIES && f->fd < 0; i++) {
        free(f->tmp);
        if (!(f->tmp = beside(path, ".tmp-"))) {
            errno = ENOMEM;
            break;
        }
        /* 0666: the umask takes away what the user does not give others. */
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f->fd < 0 && errno != EEXIST) break;
    }
    if (f->fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        free_file(f);
        return NULL;
    }
    return f;
}

int atomic_file_write(AtomicFile *f, const void *data, size_t len)
{
    if (f->error) return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(f->fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            f->error = w < 0 ? errno : EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int atomic_file_printf(AtomicFile *f, const char *fmt, ...)
{
    char small[512], *text = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (!f->error) f->error = EINVAL;
        return -1;
    }
    if ((size_t)n >= sizeof small) {
        if (!(text = malloc((size_t)n + 1))) {
            if (!f->error) f->error = ENOMEM;
            return -1;
        }
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    int rc = atomic_file_write(f, text, (size_t)n);
    if (text != small) free(text);
    return rc;
}

/* The bytes on disk and the file closed. 0, or -1 with err. */
static int finish(AtomicFile *f, char *err, size_t errlen)
{
    int e = f->error;
    if (!e && fsync(f->fd) != 0) e = errno;
    if (close(f->fd) != 0 && !e) e = errno;
    f->fd = -1;
    if (!e) return 0;
    snprintf(err, errlen, "%s: cannot write: %s", f->path, strerror(e));
    return -1;
}

/* Flushes the folder holding path, so that a rename in it is on disk. Where the file system cannot
 * flush a folder (EINVAL) or the folder cannot be opened, nothing more can be done; an I/O error
 * is reported. */
static int sync_folder(const char *path, char *err, size_t errlen)
{
    size_t len = strlen(path);
    char *dir = malloc(len + 2);
    if (!dir) return 0;
    const char *slash = strrchr(path, '/');
    if (!slash) strcpy(dir, ".");
    else if (slash == path) strcpy(dir, "/");
    else snprintf(dir, len + 2, "%.*s", (int)(slash - path), path);
    int rc = 0, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP) {
            snprintf(err, errlen, "%s: written, but folder %s could not be flushed to disk: %s", path, dir,
                     strerror(errno));
            rc = -1;
        }
        close(fd);
    }
    free(dir);
    return rc;
}

/* Whether a and b lie in the same folder, by the text of their paths. */
static bool same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && strncmp(a, b, la) == 0;
}

/* A hard link to path under a new name beside it, or NULL: when path does not exist (*existed
 * false) or cannot be linked (a file system without hard links: no way back then). */
static char *keep_old(const char *path, bool *existed)
{
    *existed = true;
    for (int i = 0; i < NAME_TRIES; i++) {
        char *name = beside(path, ".old-");
        if (!name) return NULL;
        if (link(path, name) == 0) return name;
        int e = errno;
        free(name);
        if (e == ENOENT) *existed = false;
        if (e != EEXIST) return NULL;
    }
    return NULL;
}

int atomic_file_commit_all(AtomicFile *const *files, int n, char *err, size_t errlen)
{
    int rc = 0, renamed = 0;
    char **old = calloc((size_t)n, sizeof *old);
    bool *existed = calloc((size_t)n, sizeof *existed);
    if (!old || !existed) {
        snprintf(err, errlen, "%s: cannot write: out of memory", files[0]->path);
        rc = -1;
    }
    for (int i = 0; i < n; i++)
        if (finish(files[i], rc ? NULL : err, rc ? 0 : errlen) != 0) rc = -1;
    /* The last rename has none after it that could fail: its old target needs no copy. */
    for (int i = 0; rc == 0 && i < n - 1; i++) old[i] = keep_old(files[i]->path, &existed[i]);
    for (; rc == 0 && renamed < n; renamed++)
        if (rename(files[renamed]->tmp, files[renamed]->path) != 0) {
            snprintf(err, errlen, "%s: cannot replace: %s", files[renamed]->path, strerror(errno));
            rc = -1;
            break;
        }
    if (rc != 0) {
        /* Back to the old targets, newest first; a target without a copy stays new. */
        for (int i = renamed - 1; i >= 0; i--) {
            if (old[i]) {
                /* Where the old content cannot go back, its copy stays for the user to find. */
                rename(old[i], files[i]->path);
                free(old[i]);
                old[i] = NULL;
            } else if (!existed[i]) {
                unlink(files[i]->path);
            }
        }
        for (int i = renamed; i < n; i++) unlink(files[i]->tmp);
    }
    for (int i = 0; old && i < n; i++)
        if (old[i]) unlink(old[i]);
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = same_folder(files[i]->path, files[j]->path);
        if (!seen && sync_folder(files[i]->path, rc ? NULL : err, rc ? 0 : errlen) != 0) rc = -1;
    }
    for (int i = 0; i < n; i++) {
        if (old) free(old[i]);
        free_file(files[i]);
    }
    free(old);
    free(existed);
    return rc;
}

int atomic_file_commit(AtomicFile *f, char *err, size_t errlen)
{
    return atomic_file_commit_all(&f, 1, err, errlen);
}

void atomic_file_abort(AtomicFile *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    unlink(f->tmp);
    free_file(f);
}

int atomic_file_replace(const char *tmp, const char *path, char *err, size_t errlen)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC), e = 0;
    if (fd < 0 || fsync(fd) != 0) e = errno;
    if (fd >= 0) close(fd);
    if (e) {
        snprintf(err, errlen, "%s: cannot write %s: %s", path, tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return sync_folder(path, err, errlen);
}
