/* Opening a file to read it, for every reader of a file the user names (TIPSY files, saved runs
 * and their settings, presets): only a regular file is opened. A FIFO would block the program
 * until something writes to it, and a folder or a device is never what the user meant, so they
 * are refused at once with a line that says what the path is. */
#ifndef STARBURST_INPUT_FILE_H
#define STARBURST_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* path opened for reading (binary), or NULL with why ("Permission denied", "not a regular file:
 * a FIFO") and errno set: ENOENT where path does not exist, EINVAL where it is not a regular
 * file. why holds the reason only: each reader names the file in its own words. */
FILE *input_file_open(const char *path, char *why, size_t whylen);

#endif
