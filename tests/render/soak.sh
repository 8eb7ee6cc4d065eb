#!/bin/sh
# A shorter soak on the CPU backend: 6,000 headless frames with a monitor line every 1,000.
# Resident memory may settle during the first thousand frames, then must not grow; no GL or
# simulation error may appear. The timeline keeps a keyframe a frame within its budget: 2 MB
# (some 240 keyframes of 256 bodies) fills before frame 1000, so from there on it thins and
# must stay within it too.
app=$1; out=$2
mkdir -p "$(dirname "$out")"
"$app" --headless --backend cpu --scene plummer -n 256 --frames 6000 --monitor 1000 --timeline-mb 2 --size 160x90 --quiet 2> "$out" \
    || { echo "FAIL: the run exited $?"; cat "$out"; exit 1; }
cat "$out"
lines=$(grep -c "monitor frame" "$out")
[ "$lines" -eq 6 ] || { echo "FAIL: $lines monitor lines, expected 6"; exit 1; }
if grep "monitor frame" "$out" | grep -v "GL errors 0, sim ok" >/dev/null; then echo "FAIL: errors during the run"; exit 1; fi
first=$(grep "monitor frame 1000:" "$out" | sed 's/.*host \([0-9.]*\) MiB.*/\1/')
last=$(grep "monitor frame 6000:" "$out" | sed 's/.*host \([0-9.]*\) MiB.*/\1/')
if awk -v a="$first" -v b="$last" 'BEGIN { exit !(b - a <= 1.0) }'; then
    echo "host memory at frame 1000: $first MiB, at frame 6000: $last MiB"
    echo "1 passed, 0 failed"
else
    echo "FAIL: host memory grew from $first MiB to $last MiB"; exit 1
fi
