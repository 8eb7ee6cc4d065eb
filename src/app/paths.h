/* The files the command line names, checked before anything opens or runs: every file to be
 * read is a readable regular file (a FIFO would hang the program), a saved run has its settings
 * beside it, and every file to be written can be made. */
#ifndef STARBURST_PATHS_H
#define STARBURST_PATHS_H

#include <stddef.h>

#include "app/app.h"

/* 0, or -1 with one line in err that names the option and the file. */
int app_check_paths(const AppOptions *o, char *err, size_t errlen);

#endif
