/* The HDF5 snapshot reader against arbitrary bytes: it must refuse or accept, never crash, leak or
 * read out of bounds, and what it accepts passes the readers' one check of bodies
 * (scene/body_check.h), and it leaves no HDF5 object open. Built as fuzz_tipsy.c is: with clang's -fsanitize=fuzzer for a fuzzing
 * run (`make fuzz FUZZ_TARGET=hdf5`), and with replay.c into a test that feeds it every file kept
 * in tests/fuzz/regressions-hdf5. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <hdf5.h>

#include "scene/body_check.h"
#include "scene/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A file of its own name: HDF5 follows /proc/self/fd/N to the name of a memfd, which does not
     * open. No other process reads it: HDF5's lock would only slow each run. */
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 0);
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz-hdf5-%d.h5", tmp && tmp[0] ? tmp : "/tmp", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    bool whole = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !whole) {
        remove(path);
        return 0;
    }
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
    remove(path);
    /* Whatever the file, the reader leaves no HDF5 file, group, dataset or attribute open. */
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) abort();
    return 0;
}
