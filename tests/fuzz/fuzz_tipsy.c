/* The TIPSY reader against arbitrary bytes: it must refuse or accept, never crash, leak or read
 * out of bounds. Built two ways: with clang's -fsanitize=fuzzer for a fuzzing run (`make fuzz`),
 * and with replay.c into a test that feeds it every file kept in tests/fuzz/regressions. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scene/body_check.h"
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
        /* What it accepts passes the readers' one check of bodies, its tags in range. */
        for (int i = 0; i < b.n; i++)
            if (body_check_fault(b.pos + 4 * i, b.vel + 4 * i, b.pos[4 * i + 3]) || b.tag[i] > 7) abort();
        bodies_free(&b);
    } else if (err[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    close(fd);
    return 0;
}
