#!/bin/sh
# A run saved after 30 frames and loaded again ends, 30 frames later, with the same bodies bit
# for bit as a run of 60 frames that never stopped (CPU backend, headless).
set -u
app=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
common="--headless --backend cpu --scene collision -n 512 --seed 4 --steps-per-frame 3 --damping 0.9999 --size 64x64 --quiet"
$app $common --frames 60 --save "$out/whole.tipsy" || { echo "FAIL: the 60-frame run"; exit 1; }
$app $common --frames 30 --save "$out/half.tipsy" || { echo "FAIL: the first 30 frames"; exit 1; }
# The loaded run takes dt, softening, damping and steps per frame from half.tipsy.ini.
$app --headless --backend cpu --size 64x64 --quiet --load "$out/half.tipsy" --frames 30 --save "$out/resumed.tipsy" \
    || { echo "FAIL: the resumed run"; exit 1; }
grep -q "^step = 180$" "$out/resumed.tipsy.ini" || { echo "FAIL: resumed run should be at step 180"; cat "$out/resumed.tipsy.ini"; exit 1; }
# Bytes 0-7 hold the time, summed in another order; the bodies follow.
if cmp -s -i 8 "$out/whole.tipsy" "$out/resumed.tipsy"; then
    echo "resumed run equals the uninterrupted one ($(wc -c < "$out/whole.tipsy") bytes)"
    echo "1 passed, 0 failed"
else
    echo "FAIL: the resumed run differs: $(cmp -i 8 "$out/whole.tipsy" "$out/resumed.tipsy")"
    exit 1
fi
