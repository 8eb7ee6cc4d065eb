/* Writing a file so that a reader sees its old content or the new, never a part of either: the
 * bytes go to a new file beside the target (the same folder, so that the rename stays on one file
 * system), which is flushed to disk and renamed over the target, and then the folder is flushed so
 * that the rename outlives a power cut. New files get mode 0666 less the umask, as the files of
 * any other program do. Every file Starburst writes goes through here.
 *
 * A target that is a symbolic link is written through it, as editors do: the new file goes beside
 * the file the link ends at, and the link stays.
 *
 * Errors come back as one line in err naming the target: "run.tipsy: cannot write: No space left
 * on device". */
#ifndef STARBURST_ATOMIC_FILE_H
#define STARBURST_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct AtomicFile AtomicFile;

/* Starts a file that is to replace path (which need not exist). NULL with err when no file can be
 * made beside path. */
AtomicFile *atomic_file_open(const char *path, char *err, size_t errlen);

/* Appends bytes. 0, or -1 after a failure, which commit reports again; later writes do nothing. */
int atomic_file_write(AtomicFile *f, const void *data, size_t len);
int atomic_file_printf(AtomicFile *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Puts the written bytes in place of path and frees f. 0, or -1 with err; on failure path is as
 * it was and no temporary file is left, but for one case: the file was renamed and then its
 * folder could not be flushed to disk (an I/O error), which err says. */
int atomic_file_commit(AtomicFile *f, char *err, size_t errlen);

/* Commits files that belong together, in order, and frees them all: each is complete on disk
 * (and so is its name, PATH.tmp-XXXXXX) before the first replaces its target; every target but
 * the last keeps its old content as a hard link PATH.old-XXXXXX until all are renamed; each rename
 * is on disk before the next starts. When one cannot replace its target, the ones already renamed
 * get their old content back. A crash between the renames leaves the first targets new, the rest
 * old, and beside them the new contents not yet renamed and the old ones replaced: a reader that
 * needs the targets to agree checks them (state.c records a checksum) and finds the other half
 * with atomic_file_leftovers. */
int atomic_file_commit_all(AtomicFile *const *files, int n, char *err, size_t errlen);

/* Drops what was written: removes the temporary file, leaves path alone, frees f. NULL is a no-op. */
void atomic_file_abort(AtomicFile *f);

/* Puts tmp, a finished file that another program wrote beside path, in place of path: flushes it,
 * renames it and flushes the folder. 0, or -1 with err; tmp is gone either way. */
int atomic_file_replace(const char *tmp, const char *path, char *err, size_t errlen);

/* The file a write to path replaces: path, or where its chain of symbolic links ends (which need
 * not exist yet). A new allocation, or NULL when out of memory. */
char *atomic_file_target(const char *path);

/* What interrupted commits left beside path (a target: see atomic_file_target): with tag ".tmp-",
 * new contents that were not renamed into place; with ".old-", old contents kept to be put back.
 * Calls visit with each name (path + tag + six characters), the newest first, until it returns
 * nonzero, and returns that value; 0 when none did or none is there. */
int atomic_file_leftovers(const char *path, const char *tag, int (*visit)(void *user, const char *name), void *user);

/* Whether a file's name is a leftover of an interrupted write (NAME.tmp-XXXXXX, NAME.old-XXXXXX)
 * or a file still being written under a temporary name (NAME.part): not a file to read. */
bool atomic_file_is_leftover(const char *name);

/* Removes every leftover of both kinds beside path: call it once a commit of path succeeded,
 * when none of them can be needed again. */
void atomic_file_remove_leftovers(const char *path);

#endif
