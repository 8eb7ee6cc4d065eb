/* Atomic replacement of files: a temporary file beside the target, opened with O_EXCL under a
 * name no other writer picks (mkstemp would do that too, but makes every file 0600), then fsync,
 * rename and an fsync of the folder.
 *
 * A group of files that must agree (a saved run: run.tipsy and its settings run.tipsy.ini) is
 * committed so that a crash at any point (any write, fsync, link, rename or unlink) leaves one of
 * two states a reader can tell apart:
 *   1. every new file is written and flushed under its temporary name, PATH.tmp-XXXXXX;
 *   2. every target but the last gets a hard link to its old content, PATH.old-XXXXXX, and the
 *      folder is flushed: the temporary names and the links are on disk;
 *   3. the targets are renamed in order, the folder flushed after each, so that after a power cut
 *      too a later rename is never on disk without the earlier ones; the last rename is the
 *      commit record;
 *   4. the links to the old contents are removed, and the folder flushed.
 * Killed before the first rename of step 3, every target is old. Killed after the last, every
 * target is new (links of step 4 may remain). Killed in between, the first targets are new and
 * the rest old; the new contents of the rest are complete under their temporary names and the old
 * contents of the first under their links, so a reader can finish the group (the new ones) or
 * undo it (the old ones): state.c finds out which by the checksum the settings record. A later
 * successful commit removes what an interrupted one left (atomic_file_remove_leftovers). */
#include "util/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Symbolic links followed one by one, as the kernel would, a relative one from the folder it lies
 * in; the last name need not exist. */
#define LINK_HOPS 40

char *atomic_file_target(const char *path)
{
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < LINK_HOPS; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char link[PATH_MAX];
        ssize_t got = readlink(cur, link, sizeof link - 1);
        if (got < 0) return cur;
        link[got] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t keep = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(keep + (size_t)got + 1);
        if (next) {
            memcpy(next, cur, keep);
            memcpy(next + keep, link, (size_t)got + 1);
        }
        free(cur);
        cur = next;
    }
    return cur; /* a loop of links: opening it reports ELOOP */
}

AtomicFile *atomic_file_open(const char *path, char *err, size_t errlen)
{
    AtomicFile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = atomic_file_target(path))) {
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

/* Flushes each distinct folder of the group's targets. 0, or -1 with err (when err is not NULL). */
static int sync_folders(AtomicFile *const *files, int n, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = same_folder(files[i]->path, files[j]->path);
        if (!seen && sync_folder(files[i]->path, rc ? NULL : err, rc ? 0 : errlen) != 0) rc = -1;
    }
    return rc;
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
    /* A group's new files and old links are on disk before any target changes (steps 1 and 2). */
    if (rc == 0 && n > 1 && sync_folders(files, n, err, errlen) != 0) rc = -1;
    for (; rc == 0 && renamed < n; renamed++) {
        if (rename(files[renamed]->tmp, files[renamed]->path) != 0) {
            snprintf(err, errlen, "%s: cannot replace: %s", files[renamed]->path, strerror(errno));
            rc = -1;
            break;
        }
        /* Each rename on disk before the next, so that the last stays the commit record. */
        if (renamed < n - 1) sync_folders(files + renamed, 1, NULL, 0);
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
    if (sync_folders(files, n, rc ? NULL : err, rc ? 0 : errlen) != 0) rc = -1;
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

/* Leftovers of one target: a name, and when it last changed. */
typedef struct Leftover {
    char *name;
    struct timespec mtime;
} Leftover;

static int newest_first(const void *pa, const void *pb)
{
    const struct timespec *a = &((const Leftover *)pa)->mtime, *b = &((const Leftover *)pb)->mtime;
    if (a->tv_sec != b->tv_sec) return a->tv_sec < b->tv_sec ? 1 : -1;
    return a->tv_nsec < b->tv_nsec ? 1 : a->tv_nsec > b->tv_nsec ? -1 : 0;
}

int atomic_file_leftovers(const char *path, const char *tag, int (*visit)(void *user, const char *name), void *user)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 0, baselen = strlen(base), taglen = strlen(tag);
    char *dir = malloc(dirlen + 2);
    if (!dir) return 0;
    if (!slash) strcpy(dir, ".");
    else if (dirlen == 0) strcpy(dir, "/");
    else snprintf(dir, dirlen + 1, "%s", path);
    DIR *d = opendir(dir);
    free(dir);
    if (!d) return 0;
    Leftover *list = NULL;
    int count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strlen(name) != baselen + taglen + 6 || strncmp(name, base, baselen) != 0 ||
            strncmp(name + baselen, tag, taglen) != 0)
            continue;
        if (count == cap) {
            Leftover *grown = realloc(list, sizeof *list * (size_t)(cap = cap ? 2 * cap : 4));
            if (!grown) break;
            list = grown;
        }
        size_t len = dirlen + strlen(name) + 2;
        char *full = malloc(len);
        if (!full) break;
        snprintf(full, len, "%.*s%s%s", (int)dirlen, path, slash ? "/" : "", name);
        struct stat st;
        if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        list[count++] = (Leftover){full, st.st_mtim};
    }
    closedir(d);
    if (count > 1) qsort(list, (size_t)count, sizeof *list, newest_first);
    int rc = 0;
    for (int i = 0; i < count; i++) {
        if (rc == 0) rc = visit(user, list[i].name);
        free(list[i].name);
    }
    free(list);
    return rc;
}

static int remove_one(void *user, const char *name)
{
    (void)user;
    unlink(name);
    return 0;
}

void atomic_file_remove_leftovers(const char *path)
{
    atomic_file_leftovers(path, ".tmp-", remove_one, NULL);
    atomic_file_leftovers(path, ".old-", remove_one, NULL);
}

bool atomic_file_is_leftover(const char *name)
{
    size_t len = strlen(name);
    if (len > 5 && strcmp(name + len - 5, ".part") == 0) return true;
    if (len <= 11) return false;
    const char *tag = name + len - 11;
    return strncmp(tag, ".tmp-", 5) == 0 || strncmp(tag, ".old-", 5) == 0;
}
