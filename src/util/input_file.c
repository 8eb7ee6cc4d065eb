/* The file is opened without blocking (a FIFO with no writer would wait in open) and checked with
 * fstat on the descriptor, so that what is checked is what is read. */
#include "util/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "a special file";
}

FILE *input_file_open(const char *path, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "%s", strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(why, whylen, "%s", strerror(e));
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file: %s", kind_of(st.st_mode));
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "%s", strerror(e));
        close(fd);
        errno = e;
    }
    return f;
}
