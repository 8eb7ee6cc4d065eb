#include "util/output_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"

/* Whether new files can be made in folder dir. 0, or -1 with why. */
static int folder_takes_files(const char *dir, char *why, size_t whylen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT) snprintf(why, whylen, "folder %s does not exist", dir);
        else snprintf(why, whylen, "folder %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "%s is not a folder", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, whylen, "cannot write in folder %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int output_path_check(const char *path, bool folder_ok, char *why, size_t whylen)
{
    if (!path[0]) {
        snprintf(why, whylen, "no name given");
        return -1;
    }
    char *target = atomic_file_target(path);
    if (!target) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    int rc = -1;
    size_t len = strlen(target);
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (folder_ok) rc = folder_takes_files(target, why, whylen);
        else snprintf(why, whylen, "is a folder, not a file");
        goto done;
    }
    if (target[len - 1] == '/') {
        if (!folder_ok) {
            snprintf(why, whylen, "ends in '/', a folder's name: give a file name");
            goto done;
        }
        while (len > 1 && target[len - 1] == '/') target[--len] = '\0';
    }
    char *slash = strrchr(target, '/');
    if (!slash) rc = folder_takes_files(".", why, whylen);
    else if (slash == target) rc = folder_takes_files("/", why, whylen);
    else {
        *slash = '\0';
        rc = folder_takes_files(target, why, whylen);
    }
done:
    free(target);
    return rc;
}
