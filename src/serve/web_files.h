/* The page's files (web/), built into the binary (cmake/embed.cmake). */
#ifndef STARBURST_WEB_FILES_H
#define STARBURST_WEB_FILES_H

#include <stddef.h>

/* The file of that name ("index.html") with its length in *len, or NULL where web/ has none. */
const char *web_file(const char *name, size_t *len);

#endif
