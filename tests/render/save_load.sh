#!/bin/sh
# A run saved after 30 frames and loaded again ends, 30 frames later, with the same bodies bit
# for bit as a run of 60 frames that never stopped (CPU backend, headless): the direct sum, then
# the default fmm (by estimated error, whose opening test reads the accelerations the save keeps
# in FILE.acc) and the tree by error, 2,048 bodies 50 frames and 50 more against 100. A save
# whose .acc belongs to another TIPSY file loads without a word (the accelerations computed).
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
    echo "ok: direct: resumed run equals the uninterrupted one ($(wc -c < "$out/whole.tipsy") bytes)"
else
    echo "FAIL: the resumed run differs: $(cmp -i 8 "$out/whole.tipsy" "$out/resumed.tipsy")"
    exit 1
fi

fails=0
for force in auto tree; do
    run="--headless --backend cpu --size 32x32 --quiet"
    born="-n 2048 --seed 5 --force $force"
    $app $run $born --frames 100 --save "$out/$force-100.tipsy" &&
        $app $run $born --frames 50 --save "$out/$force-50.tipsy" &&
        $app $run --load "$out/$force-50.tipsy" --frames 50 --save "$out/$force-loaded.tipsy" ||
        { echo "FAIL: --force $force: a run did not complete"; fails=$((fails + 1)); continue; }
    [ -s "$out/$force-50.tipsy.acc" ] || { echo "FAIL: --force $force: no $force-50.tipsy.acc beside the save"; fails=$((fails + 1)); }
    if cmp -s -i 8 "$out/$force-100.tipsy" "$out/$force-loaded.tipsy"; then
        echo "ok: --force $force: --load after 50 frames, 50 more equal 100 frames straight"
    else
        echo "FAIL: --force $force: --load then 50 frames differs from 100: $(cmp -i 8 "$out/$force-100.tipsy" "$out/$force-loaded.tipsy")"
        fails=$((fails + 1))
    fi
done
# Another save's accelerations beside the TIPSY file: passed over, the load says nothing.
cp "$out/tree-50.tipsy.acc" "$out/auto-50.tipsy.acc"
if said=$($app --headless --backend cpu --size 32x32 --quiet --load "$out/auto-50.tipsy" --frames 1 2>&1) && [ -z "$said" ]; then
    echo "ok: an .acc of another save is passed over without a word"
else
    echo "FAIL: an .acc of another save: exit $?, said: $said"
    fails=$((fails + 1))
fi
echo "$((4 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
