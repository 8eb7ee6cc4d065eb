#!/bin/bash
# A GPU test program whose tests all skipped (no CUDA device, no NVIDIA GL) says so: it exits 77,
# which CTest shows as skipped (tests/test_skip.h), never 0, which CTest shows as passed.
# usage: gpu_skips.sh BIN_DIR SOURCE_DIR   (BIN_DIR holds the programs of SOURCE_DIR/tests/gpu)
bin=$1 src=$2
passed=0 fails=0
for c in "$src"/tests/gpu/test_*.c; do
    name=$(basename "$c" .c)
    [ -x "$bin/$name" ] || { echo "FAIL: $name: no program in $bin"; fails=$((fails + 1)); continue; }
    out=$(STARBURST_DATA=${STARBURST_DATA:-} timeout 600 "$bin/$name" 2>&1)
    rc=$?
    ran=$(grep -c '^\[ RUN      \]' <<<"$out")
    skipped=$(grep -c '^\[  SKIPPED \]' <<<"$out")
    skipped=$((skipped / 2)) # cmocka names each skipped test twice: as it skips, and in the summary
    if [ "$ran" -gt 0 ] && [ "$skipped" -eq "$ran" ] && [ $rc -ne 77 ]; then
        echo "FAIL: $name: all $ran tests skipped, yet exit $rc (CTest: passed)"
        fails=$((fails + 1))
    else
        echo "ok: $name: $ran run, $skipped skipped, exit $rc"
        passed=$((passed + 1))
    fi
done
echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
