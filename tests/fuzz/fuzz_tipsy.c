/* The TIPSY reader against arbitrary bytes: it must refuse or accept, never crash, leak or read
 * out of bounds. Built two ways: with clang's -fsanitize=fuzzer for a fuzzing run (`make fuzz`),
 * and with replay.c into a test that feeds it every file kept in tests/fuzz/regressions. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scene/tipsy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("tipsy", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    Bodies b;
    char err[512];
    double time;
    if (tipsy_read(path, &b, &time, err, sizeof err) == 0) {
        /* What it accepts is sane: finite values, non-negative masses, tags in range. */
        for (int i = 0; i < 4 * b.n; i++)
            if (!isfinite(b.pos[i]) || !isfinite(b.vel[i])) abort();
        for (int i = 0; i < b.n; i++)
            if (b.pos[4 * i + 3] < 0 || b.tag[i] > 7) abort();
        bodies_free(&b);
    } else if (err[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    close(fd);
    return 0;
}
