#!/bin/bash
# What a first run says, headless, read back from its stderr and its readout (STARBURST_READOUT):
# - the GPU's options (--kernel, --precision double) on --backend auto where the CPU runs are
#   said to apply to the GPU only, once;
# - a TIPSY file of dark-matter bodies only is shown (the halo display on), and the notice says so.
# usage: first_look.sh APP OUT_DIR DATA_DIR   (DATA_DIR holds galaxy_20K.bin)
set -u
. "$(dirname "$0")/checks.sh"
if [ $# -ne 3 ]; then
    echo "usage: first_look.sh APP OUT_DIR DATA_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2 data=$(realpath -m "$3")
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
passed=0 failed=0 skipped=0
# The readout's value of key (the words after it).
rv() { readout_value readout.txt "$1"; }
common=(--headless --size 64x64 --frames 2)

# ---- The GPU's options where auto falls back to the CPU ----
rm -f readout.txt
STARBURST_READOUT=readout.txt timeout 120 "$app" "${common[@]}" -n 1024 --kernel mtpb --precision double \
    >gpu-options.log 2>&1
status=$?
if [ "$(rv backend)" != cpu ]; then
    echo "skipped: --backend auto runs on $(rv backend) here, not on the CPU"
    skipped=$((skipped + 1))
elif [ $status -ne 0 ]; then
    fail "--kernel mtpb --precision double on the CPU fall-back: exit $status"
    cat gpu-options.log
else
    said=$(grep -c "apply to the GPU only" gpu-options.log)
    if [ "$said" -eq 1 ] && grep -q "^starburst: no CUDA device: running on the CPU; --kernel mtpb and --precision double apply to the GPU only$" gpu-options.log; then
        ok "the GPU's options on the CPU fall-back are said once: $(grep "GPU only" gpu-options.log)"
    else
        fail "the GPU's options on the CPU fall-back are said $said times, not once"
        cat gpu-options.log
    fi
fi
# Options the CPU takes as well draw no such line.
timeout 120 "$app" "${common[@]}" -n 1024 >plain.log 2>&1
if grep -q "GPU only" plain.log; then fail "a run without the GPU's options speaks of them"; else ok "a plain run says nothing of the GPU's options"; fi

# ---- A TIPSY file of dark-matter bodies only ----
galaxy=$data/galaxy_20K.bin
if [ ! -f "$galaxy" ]; then
    echo "skipped: no $galaxy"
    skipped=$((skipped + 1))
else
    # galaxy_20K.bin: a 32-byte header, then its 2,500 dark bodies (36 bytes each), then the stars.
    # The header and the dark bodies, with nbodies = 2500 (bytes 8-11) and nstar = 0 (bytes 24-27).
    head -c $((32 + 2500 * 36)) "$galaxy" >dark.bin
    printf '\xc4\x09\x00\x00' | dd of=dark.bin bs=1 seek=8 conv=notrunc status=none
    printf '\x00\x00\x00\x00' | dd of=dark.bin bs=1 seek=24 conv=notrunc status=none
    rm -f readout.txt
    STARBURST_READOUT=readout.txt timeout 120 "$app" "${common[@]}" --backend cpu --tipsy dark.bin >dark.log 2>&1
    status=$?
    if [ $status -eq 0 ] && [ "$(rv bodies)" = 2500 ] && [ "$(rv show_halo)" = 1 ]; then
        ok "a file of dark matter only is shown: $(rv bodies) bodies, show_halo $(rv show_halo)"
    else
        fail "a file of dark matter only: exit $status, bodies '$(rv bodies)', show_halo '$(rv show_halo)'"
        cat dark.log
    fi
    if [ "$(rv notice)" = "All bodies are dark matter: shown; D hides them" ] && grep -q "dark matter: shown" dark.log; then
        ok "the notice says so: $(rv notice)"
    else
        fail "the notice is '$(rv notice)', not that all bodies are dark matter"
    fi
    # The whole file, stars and all: the halo stays as asked (hidden).
    rm -f readout.txt
    STARBURST_READOUT=readout.txt timeout 120 "$app" "${common[@]}" --backend cpu --tipsy "$galaxy" >stars.log 2>&1
    if [ "$(rv show_halo)" = 0 ] && ! grep -q "dark matter" stars.log; then
        ok "a file with stars keeps the halo hidden"
    else
        fail "a file with stars: show_halo '$(rv show_halo)'"
        cat stars.log
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
