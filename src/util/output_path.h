/* Whether a file can be written at a path, asked before a run starts, so that a run of an hour
 * does not end in "cannot write": the name is not empty, is not a folder, and its folder exists
 * and takes new files (a symbolic link is followed, as util/atomic_file.h writes through it). */
#ifndef STARBURST_OUTPUT_PATH_H
#define STARBURST_OUTPUT_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* 0, or -1 with why ("folder out does not exist", "is a folder, not a file"). With folder_ok, a
 * folder that exists and takes new files is fine too (numbered frames go into it), and a name
 * ending in '/' names one to be made. */
int output_path_check(const char *path, bool folder_ok, char *why, size_t whylen);

#endif
