/* Tokens from getrandom(2), which blocks only until the kernel's pool is first seeded; a short read
 * is taken again. */
#include "serve/serve_token.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int serve_token_make(char out[SERVE_TOKEN_LEN + 1], char *err, size_t errlen)
{
    uint8_t bytes[SERVE_TOKEN_LEN / 2];
    size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(err, errlen, "serve: no token: getrandom failed (%s)", strerror(errno));
            return -1;
        }
        got += (size_t)n;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof bytes; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[SERVE_TOKEN_LEN] = '\0';
    return 0;
}

bool serve_token_equal(const char *given, size_t len, const char *token)
{
    /* Every byte of the token is compared, whatever the length given: a wrong length fails as a
     * wrong byte does, in the same time. */
    unsigned diff = len != SERVE_TOKEN_LEN;
    for (size_t i = 0; i < SERVE_TOKEN_LEN; i++) {
        const unsigned char g = i < len ? (unsigned char)given[i] : 0;
        diff |= g ^ (unsigned char)token[i];
    }
    return diff == 0;
}
