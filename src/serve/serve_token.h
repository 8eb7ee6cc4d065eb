/* The tokens a page shows at the WebSocket's door: one to drive the run, one to watch it. Made from
 * the kernel's random source (getrandom), compared in constant time. */
#ifndef STARBURST_SERVE_TOKEN_H
#define STARBURST_SERVE_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

/* 24 random bytes as hex. */
#define SERVE_TOKEN_LEN 48

/* Fills out (SERVE_TOKEN_LEN + 1 bytes) with a new token: 0, or -1 with err where the random
 * source fails. */
int serve_token_make(char out[SERVE_TOKEN_LEN + 1], char *err, size_t errlen);
/* Whether the len bytes of given are token; the time taken depends only on SERVE_TOKEN_LEN, not
 * on where they first differ. */
bool serve_token_equal(const char *given, size_t len, const char *token);

#endif
