/* The lines of an INI file as inih's ini_parse_stream takes them, counted as a person counts them.
 * inih reads a line in pieces of its buffer's size and counts each piece as a line, and it keeps
 * the section before a header that lacks its ']': a 5,000-character line was reported lines below
 * itself, and the keys under "[B" went to the section above. Here a line too long for the buffer
 * is taken whole and reported at its own line; a header without ']' and a line that is neither a
 * header, a key = value nor a comment are reported too; inih is handed an empty line for each of
 * them, so that it calls no handler for it. Leading blanks are dropped: inih would take an
 * indented line for more of the value above it. */
#ifndef STARBURST_INI_LINES_H
#define STARBURST_INI_LINES_H

#include <stdbool.h>
#include <stdio.h>

typedef struct IniLines {
    FILE *file;
    int line;        /* the line just read, from 1 */
    int header_line; /* the last line that opened a section, well formed or not; 0 = none yet */
    bool bad_header; /* that header lacks its ']' */
    char header[80]; /* its name, as written between [ and ] (cut where longer) */
    /* Called for a line inih is not shown: its number and what is wrong ("the line is longer than 199
     * characters"). */
    void (*problem)(void *user, int line, const char *what);
    void *user;
} IniLines;

/* The reader for ini_parse_stream(ini_lines_read, &lines, handler, user). */
char *ini_lines_read(char *str, int num, void *stream);

#endif
