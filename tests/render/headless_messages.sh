#!/bin/bash
# What a headless run says into a log: progress as lines of their own (no \r: that is for a
# terminal), no word about presets it was not asked for, an exit summary whose rate leaves out the
# time the process was stopped (SIGSTOP / SIGCONT, as ctrl+Z and fg do), a recording that fails
# on a full disk said once, CUDA asked to draw where it cannot said once, and the tree's opening
# test as the options, a save and a preset give it. Every wait is for a
# condition (a line in the log, the readout, the process's state in /proc), never a fixed sleep.
# usage: headless_messages.sh APP OUT_DIR
set -u
. "$(dirname "$0")/checks.sh"
if [ $# -ne 2 ]; then
    echo "usage: headless_messages.sh APP OUT_DIR" >&2
    exit 2
fi
app=$1 out=$2
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
passed=0 failed=0 pid=

finish() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    report
    exit $?
}
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; exit 1' INT TERM HUP
abort() {
    fail "$*"
    [ -f run.log ] && { echo "--- the program's output:"; cat -v run.log | tail -n 20; }
    finish
}
# Polls until "$@" succeeds, or 120 s pass; the program must live.
wait_for() {
    local what=$1 rc
    shift
    wait_until "$pid" 120 "$@"
    rc=$?
    [ $rc -eq 2 ] && abort "the program ended while waiting for $what"
    [ $rc -eq 1 ] && abort "timed out waiting for $what"
    return $rc
}
frame() { awk '$1 == "frame" { print $2; exit }' run.readout 2>/dev/null; }
frame_above() { local f; f=$(frame); [ -n "$f" ] && [ "$f" -gt "$1" ]; }
progress_said() { grep -q "starburst: frame [0-9]*/" run.log; }
# The process's state, the field after the name in /proc/PID/stat: T while stopped.
state() { sed 's/.*) //' /proc/"$pid"/stat 2>/dev/null | cut -d' ' -f1; }
is_stopped() { [ "$(state)" = T ]; }
is_running() { local s; s=$(state); [ -n "$s" ] && [ "$s" != T ]; }
now() { date +%s.%N; }
stopped_for() { awk -v a="$stopped_at" -v b="$(now)" -v s="$1" 'BEGIN { exit !(b - a >= s) }'; }

# A run on the CPU, its stderr a file, stopped from outside for a few seconds and then ended.
begin=$(now)
STARBURST_READOUT=$PWD/run.readout "$app" --headless --backend cpu --size 96x64 -n 256 --frames 10000000 \
    2>run.log >/dev/null &
pid=$!
wait_for "a line of progress" progress_said
if grep -q $'\r' run.log; then fail "the log holds a carriage return: $(cat -v run.log | grep -m1 '\^M')"; else ok "progress into a log comes as lines, no \\r"; fi
if grep -q "not offered" run.log; then fail "a CPU start speaks of presets it was not asked for: $(grep -m1 'not offered' run.log)"; else ok "no word of presets not asked for"; fi

wait_for "a frame drawn" frame_above 0
kill -STOP "$pid"
wait_for "the stop" is_stopped
stopped_at=$(now)
# The stop to leave out of the rate: 4 s with the process in state T.
wait_for "4 s stopped" stopped_for 4
is_stopped || abort "the program went on while stopped"
stopped=$(awk -v a="$stopped_at" -v b="$(now)" 'BEGIN { print b - a }')
at=$(frame)
kill -CONT "$pid"
wait_for "it to go on" is_running
wait_for "frames after the stop" frame_above "$((at + 2))"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
rc=$?
pid=
wall=$(awk -v a="$begin" -v b="$(now)" 'BEGIN { print b - a }')
[ "$rc" -eq 143 ] || fail "SIGTERM ended it with status $rc, not 143"
summary=$(grep -m1 -E "starburst: [0-9]+ steps? in [0-9.]+ s" run.log)
took=$(printf '%s\n' "$summary" | sed -E 's/.* in ([0-9.]+) s.*/\1/')
if [ -z "$summary" ]; then
    fail "no exit summary: $(cat -v run.log | tail -n 3)"
elif awk -v t="$took" -v w="$wall" -v s="$stopped" 'BEGIN { exit !(t <= w - s + 0.5) }'; then
    ok "stopped ${stopped} s of ${wall} s: the summary counts $took s ('$summary')"
else
    fail "stopped ${stopped} s of ${wall} s, yet the summary counts $took s: '$summary'"
fi

# A recording onto a full disk: a 256 KiB tmpfs in a user namespace where one can be had, else
# a file-size limit (the write fails with EFBIG instead of ENOSPC, through the same path).
rm -rf disk && mkdir disk
record=(--headless --backend cpu --size 320x240 -n 256 --frames 200 --record disk/frames)
if unshare -rm true 2>/dev/null; then
    how="a full tmpfs"
    timeout 120 unshare -rm sh -c 'mount -t tmpfs -o size=256k none disk && exec "$@"' sh "$app" "${record[@]}" \
        2>full.log >/dev/null
    rc=$?
else
    how="a file-size limit"
    (trap '' XFSZ; ulimit -f 256; exec timeout 120 "$app" "${record[@]}") 2>full.log >/dev/null
    rc=$?
fi
said=$(grep -c "recording: disk/frames/frame_" full.log)
if [ "$rc" -eq 1 ] && [ "$said" -eq 1 ]; then
    ok "recording onto $how: exit 1, said once: $(grep "recording: disk" full.log)"
else
    fail "recording onto $how: exit $rc, the failure said $said times:"
    cat -v full.log
fi

# --draw cuda: where CUDA can draw (a CUDA build, a GL context on NVIDIA's driver) the readout says
# so; elsewhere GL draws the same frames and one line says why, once.
STARBURST_READOUT=draw.readout timeout 120 "$app" --headless --backend cpu -n 512 --size 320x240 --frames 20 \
    --draw cuda --screenshot draw.png >draw.log 2>&1
rc=$?
drawn=$(awk '$1 == "drawn_by" { print $2 }' draw.readout 2>/dev/null)
said=$(grep -c "drawing by CUDA" draw.log)
if [ "$rc" -ne 0 ] || [ ! -s draw.png ]; then
    fail "--draw cuda: exit $rc, screenshot $(ls -s draw.png 2>&1): $(tail -n 3 draw.log)"
elif [ "$drawn" = cuda ] && [ "$said" -eq 0 ]; then
    ok "--draw cuda: CUDA draws here"
elif [ "$drawn" = gl ] && [ "$said" -eq 1 ] && grep -q "drawing by CUDA.*: GL draws" draw.log; then
    ok "--draw cuda where CUDA cannot draw: GL draws, said once: $(grep "drawing by CUDA" draw.log)"
else
    fail "--draw cuda: drawn by '$drawn', the reason said $said times: $(cat -v draw.log | tail -n 3)"
fi
# The reason is a person's: no source location ("splat_cuda.c:49: cudaStreamCreateWithFlags(...)"),
# and a CUDA build on a machine without NVIDIA's driver says so in those words.
why=$(grep -m1 "drawing by CUDA" draw.log)
if printf '%s' "$why" | grep -Eq '[A-Za-z_]+\.(c|cu|cpp|h):[0-9]+'; then
    fail "--draw cuda: the reason names a source location: $why"
elif [ ! -e /proc/driver/nvidia/version ] && ! printf '%s' "$why" | grep -q "this build has no CUDA" &&
    [ "$drawn" != cuda ] && ! printf '%s' "$why" | grep -q "no NVIDIA driver"; then
    fail "--draw cuda without NVIDIA's driver does not say so: $why"
else
    ok "--draw cuda: the reason without a source location: ${why:-CUDA draws}"
fi
# The tree's opening test: by estimated error unless a theta alone is named (the command line, a
# save that recorded its theta alone, a preset): each start's readout and line say which.
opening() { # NAME ARGS...: a short tree run (512 bodies, or a save's); its readout in NAME.readout, its output in NAME.log
    local name=$1 bodies=(-n 512)
    shift
    case " $* " in *" --load "*) bodies=() ;; esac # a save has its own bodies: -n beside it is refused
    STARBURST_READOUT=$name.readout timeout 120 "$app" --headless --backend cpu "${bodies[@]}" --size 96x64 --frames 3 \
        --force tree "$@" >"$name.log" 2>&1 || fail "$name: exit $? ($(tail -n 2 "$name.log"))"
}
readout_is() { # NAME KEY VALUE
    local v
    v=$(awk -v k="$2" '$1 == k { print $2; exit }' "$1.readout" 2>/dev/null)
    if [ "$v" = "$3" ]; then ok "$1: $2 $v"; else fail "$1: $2 is '$v', not $3"; fi
}
said() { if grep -q -- "$2" "$1.log"; then ok "$1 says '$2'"; else fail "$1 does not say '$2': $(grep -m1 'bodies on' "$1.log")"; fi; }
opening default
readout_is default alpha 0.000500000024
said default "tree, alpha 0.0005"
opening theta --theta 0.5
readout_is theta alpha 0
readout_is theta theta 0.5
said theta "tree, theta 0.50"
# (--theta and --alpha together are refused for the tree: cli_exit_status.sh.)
opening both --alpha 0.002 --halo live --save both.tipsy
readout_is both alpha 0.00200000009
if grep -qx "alpha = 0.00200000009" both.tipsy.ini; then ok "the save records alpha"; else fail "the save's .ini: $(tr '\n' ' ' <both.tipsy.ini)"; fi
opening loaded --load both.tipsy
readout_is loaded alpha 0.00200000009
grep -v "^alpha" both.tipsy.ini >older.ini && cp both.tipsy older.tipsy && mv older.ini older.tipsy.ini
opening older --load older.tipsy
readout_is older alpha 0
readout_is older theta "$(sed -n 's/^theta = //p' both.tipsy.ini)"
printf '[By angle]\nscene = disk\ntheta = 0.6\n[By error]\nscene = disk\nalpha = 0.001\n' >opening.ini
opening preset_theta --presets opening.ini --preset "By angle"
readout_is preset_theta alpha 0
opening preset_alpha --presets opening.ini --preset "By error"
readout_is preset_alpha alpha 0.00100000005

# A scene of a million bodies or more takes seconds to build: the build is said before it starts
# and its time after, before the start line; a small scene says nothing of it.
timeout 120 "$app" --headless --backend cpu -n 1048576 --paused --frames 1 --size 96x64 >big.log 2>&1 ||
    fail "a paused 1M start: exit $? ($(tail -n 2 big.log))"
at() { grep -n -m1 -E "$1" big.log | cut -d: -f1; }
b=$(at "building 1048576 bodies\.\.\.") t=$(at "1048576 bodies built in [0-9.]+ s") o=$(at "1048576 stars and 2 halo fields on cpu")
if [ -n "$b" ] && [ -n "$t" ] && [ -n "$o" ] && [ "$b" -lt "$t" ] && [ "$t" -lt "$o" ]; then
    ok "a 1M build said first and timed after: $(grep -m1 'built in' big.log)"
else
    fail "a 1M build: 'building' at line '$b', 'built in' at '$t', 'bodies on' at '$o' of: $(tr '\n' '|' <big.log)"
fi
# A scene the CPU will take a second or more a step for is said to be slow, with the time a step,
# before its bodies are built; the program starts all the same: 16,777,216 bodies (killed once
# the line is there: their build alone takes minutes), the 1M start above; 512 bodies say nothing.
slow='^starburst: [0-9]+ bodies on the CPU will be slow: about [0-9.]+ (s|min|h) a step by the fmm \(steps timed on 2 threads, scaled as N log N and to the [0-9]+ threads? here\); a CUDA GPU, or fewer bodies \(-n\), run faster$'
"$app" --headless --backend cpu -n 16777216 --frames 1 --size 96x64 >huge.log 2>&1 &
pid=$!
said_slow() { grep -q -E "$slow" huge.log; }
wait_for "the 16M start's line" said_slow
if kill -0 "$pid" 2>/dev/null && ! grep -q "16777216 bodies built" huge.log; then
    ok "16,777,216 bodies: said before they are built, and the program goes on: $(grep -m1 'will be slow' huge.log)"
else
    fail "16,777,216 bodies: $(tr '\n' '|' <huge.log)"
fi
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
w=$(grep -n -m1 -E "$slow" big.log | cut -d: -f1)
if [ -n "$w" ] && [ -n "$b" ] && [ "$w" -lt "$b" ]; then ok "1,048,576 bodies: said before the build: $(grep -m1 'will be slow' big.log)"; else fail "1,048,576 bodies: the line at '$w', the build at '$b'"; fi
if grep -q "will be slow" default.log; then fail "512 bodies are said to be slow: $(grep -m1 'will be slow' default.log)"; else ok "512 bodies are not said to be slow"; fi
# The HUD's FLOP/s: 20 flops an interaction, with the prefix (G, T, P, E) that keeps the figure
# under 1000. 262,144 bodies on two cores run about 1 TFLOP/s of the N^2 they stand for.
STARBURST_READOUT=flops.readout timeout 120 "$app" --headless --backend cpu -n 262144 --frames 4 --size 320x240 \
    --capture-ui >flops.log 2>&1 || fail "a 262,144-body run: exit $? ($(tail -n 2 flops.log))"
hud=$(awk '$1 == "hud" { $1 = ""; print; exit }' flops.readout 2>/dev/null)
rate=$(printf '%s\n' "$hud" | sed -n -E 's/.* ([0-9.e]+) interactions\/s.*/\1/p')
flops=$(printf '%s\n' "$hud" | sed -n -E 's/.* ([0-9.]+ [GTPE])FLOP\/s.*/\1/p')
if [ -n "$rate" ] && [ -n "$flops" ] && awk -v r="$rate" -v f="$flops" 'BEGIN {
        split(f, p, " "); g = 20 * r / 1e9; k = 0
        while (g >= 999.95 && k < 3) { g /= 1000; k++ }
        exit !(p[1] < 1000 && p[2] == substr("GTPE", k + 1, 1) && (p[1] - g) ^ 2 <= (0.02 * g + 0.06) ^ 2) }'; then
    ok "the HUD's FLOP/s: ${flops}FLOP/s for $rate interactions/s"
else
    fail "the HUD's FLOP/s '$flops' for '$rate' interactions/s: $hud"
fi
# The time a step said at the start, against the 4 steps timed: within a factor of 8 either way
# (the machine may be busier or quieter than the one measured: with a window test beside it on
# two cores, 3.48 s a step against the 1.1 s said).
said=$(sed -n -E 's/.* will be slow: about ([0-9.]+) s a step .*/\1/p' flops.log)
took=$(sed -n -E 's/^starburst: 4 steps in ([0-9.]+) s .*/\1/p' flops.log)
if [ -n "$said" ] && [ -n "$took" ] && awk -v s="$said" -v t="$took" 'BEGIN { r = t / 4 / s; exit !(r >= 0.125 && r <= 8) }'; then
    ok "262,144 bodies: about $said s a step said, $(awk -v t="$took" 'BEGIN { printf "%.2f", t / 4 }') s a step taken"
else
    fail "262,144 bodies: '$said' s a step said, 4 steps in '$took' s: $(grep -E 'slow|steps in' flops.log | tr '\n' '|')"
fi
# --tipsy of a save takes its bodies alone: the line says so, the dt it runs at and the save's own,
# and how to continue the save (its .ini was ignored without a word).
timeout 120 "$app" --headless --backend cpu --tipsy both.tipsy --frames 1 --size 96x64 >tipsy-save.log 2>&1 ||
    fail "--tipsy both.tipsy: exit $? ($(tail -n 2 tipsy-save.log))"
dt_saved=$(awk '$1 == "dt" { printf "%.3g", $3; exit }' both.tipsy.ini)
if grep -q "^starburst: --tipsy takes the bodies of both.tipsy alone, at dt [0-9.e+-]* and softening [0-9.e+-]*; the settings saved beside it (dt $dt_saved, .*--load both.tipsy continues that run$" tipsy-save.log; then
    ok "--tipsy of a save says so: $(grep -m1 -- '--tipsy takes' tipsy-save.log)"
else
    fail "--tipsy of a save (dt $dt_saved) says: $(grep -v 'OpenGL on' tipsy-save.log | tr '\n' '|')"
fi
# A save of a run with halo fields holds each centre as one dark body: --tipsy, which takes the
# bodies alone, would run it with point-mass halos. It is refused, naming --load, which continues
# it with its fields; --open, which reads saves as snapshots with their first ini, runs the fields.
opening field --save field.tipsy
readout_is field field_halos 2
timeout 120 "$app" --headless --backend cpu --tipsy field.tipsy --frames 1 --size 96x64 >alone.log 2>&1
rc=$?
lines=$(grep -vc "OpenGL on" alone.log)
if [ "$rc" = 2 ] && [ "$lines" = 1 ] &&
    grep -q "field.tipsy: its last 2 bodies are the centres of halo fields .*--load field.tipsy continues that run$" alone.log; then
    ok "--tipsy of a field-halo save is refused: $(cat alone.log)"
else
    fail "--tipsy field.tipsy: exit $rc, $lines lines: $(tr '\n' '|' <alone.log)"
fi
opening field_loaded --load field.tipsy
readout_is field_loaded field_halos 2
readout_is field_loaded bodies 512
STARBURST_READOUT=field_opened.readout timeout 120 "$app" --headless --backend cpu --open field.tipsy --frames 2 \
    --size 96x64 >field_opened.log 2>&1 || fail "--open field.tipsy: exit $? ($(tail -n 2 field_opened.log))"
readout_is field_opened field_halos 2
readout_is field_opened bodies 512
if grep -q "building\|built in" default.log; then fail "512 bodies speak of their build: $(grep -m1 build default.log)"; else ok "512 bodies say nothing of their build"; fi
finish
