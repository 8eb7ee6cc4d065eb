/* The HDF5 snapshot reader against arbitrary bytes: it must refuse or accept, never crash, leak or
 * read out of bounds, and what it accepts passes the readers' one check of bodies
 * (scene/body_check.h). Built as fuzz_tipsy.c is: with clang's -fsanitize=fuzzer for a fuzzing
 * run (`make fuzz FUZZ_TARGET=hdf5`), and with replay.c into a test that feeds it every file kept
 * in tests/fuzz/regressions-hdf5. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scene/body_check.h"
#include "scene/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The file is a memfd: HDF5's lock on it would only slow each run. */
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 0);
    int fd = memfd_create("snapshot", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    Bodies b;
    SnapshotInfo info;
    char err[512] = "";
    const Units mw = units_from(2.6, 200);
    const Units *to[2] = {NULL, &mw};
    for (int k = 0; k < 2; k++) {
        uint8_t types[64];
        SnapshotReadDesc d = {.to = to[k], .chunk = 3};
        SnapshotInfo head;
        char why[512] = "";
        const bool small = snapshot_hdf5_info(path, &head, why, sizeof why) == 0 && head.n <= 64;
        if (small) d.types = types;
        if (snapshot_hdf5_read(path, &d, &b, &info, err, sizeof err) == 0) {
            for (int i = 0; i < b.n; i++) {
                if (body_check_fault(b.pos + 4 * i, b.vel + 4 * i, b.pos[4 * i + 3]) || b.tag[i] > 7) abort();
                if (small && types[i] >= SNAPSHOT_TYPES) abort();
            }
            if (!isfinite(info.time)) abort();
            bodies_free(&b);
        } else if (err[0] == '\0') {
            abort(); /* a refusal always says why */
        }
    }
    close(fd);
    return 0;
}
