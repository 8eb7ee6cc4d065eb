#!/bin/bash
# Nothing computed is lost without the user's word, tried in a real window as a hand tries it
# (xdotool keys and clicks), read back from the program's readout (STARBURST_READOUT) and files:
# - R replaces a run loaded with --load; its line says ctrl+Z brings the run back, and ctrl+Z does,
#   at its step; ctrl+Y and ctrl+shift+Z bring the reset's run back, ctrl+Z the first again;
# - the Undo and Redo buttons, each clicked twice, do the same (a second click with nothing left
#   does nothing);
# - ] (a preset) replaces the run the same way, and ctrl+Z brings it back;
# - a resume from a past keyframe, then ctrl+Z: the new future is kept, ctrl+Y brings it back at
#   its step;
# - the exit with --save FILE, after R, leaves FILE as it was (the run it held was replaced) and
#   writes beside it;
# - S twice, without --save, where the dated names of the next two minutes are taken: two new
#   files, the taken ones untouched;
# - a recording (V) whose window is resized says that it keeps its size.
# Every wait is for a condition, never a sleep.
# usage: safety_window.sh APP SOURCE_DIR OUT_DIR   (under xvfb-run)
set -u
if [ $# -ne 3 ]; then
    echo "usage: safety_window.sh APP SOURCE_DIR OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") src=$(realpath "$2") out=$3
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
cp "$src/assets/presets.ini" presets.ini || exit 1
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}

at_least() { local v; v=$(rv "$1"); [ -n "$v" ] && [ "$v" -ge "$2" ]; }
below() { local v; v=$(rv "$1"); [ -n "$v" ] && [ "$v" -lt "$2" ]; }
notice_has() { case "$(rv notice)" in *"$1"*) return 0 ;; esac; return 1; }
ini_step() { awk -F' *= *' '$1 == "step" { print $2; exit }' "$1.ini" 2>/dev/null; }

# ---- A run to load: 20 frames of 4 steps, saved ----
"$app" --headless --backend cpu --scene collision -n 1024 --seed 3 --steps-per-frame 4 --frames 20 \
    --save keep.tipsy >make.log 2>&1 || abort "the run to load was not made: $(tail -n 3 make.log)"
cp keep.tipsy keep.orig && cp keep.tipsy.ini keep.orig.ini
loaded=$(ini_step keep.tipsy)
[ -n "$loaded" ] && [ "$loaded" -gt 0 ] || abort "keep.tipsy.ini gives no step"

STARBURST_READOUT=$readout "$app" --backend "$backend" --load keep.tipsy --save keep.tipsy --presets presets.ini \
    --steps-per-frame 4 --timeline-mb 64 --size 1100x700 >app.log 2>&1 &
pid=$!
focus_window
far=$((loaded + 80))
wait_for "step $far" at_least step $far || abort "the run did not reach step $far"
key space
wait_for "the pause" value_is paused 1
first=$(rv step) frames_first=$(rv timeline_count)
ok "the loaded run paused at step $first with $frames_first keyframes"

# ---- R, then ctrl+Z, ctrl+Y, ctrl+Z, ctrl+shift+Z, ctrl+Z ----
key r
if wait_for "the reset's line" notice_has "ctrl+Z brings back the run you left"; then ok "R: $(rv notice)"; fi
wait_for "the reset" below step $first
reset_step=$(rv step)
key ctrl+z
if wait_for "ctrl+Z: the run left" value_is step "$first"; then ok "ctrl+Z: back at step $first"; fi
notice_has "Back to the run you left" && ok "it says so: $(rv notice)" || fail "ctrl+Z's line: $(rv notice)"
if value_is timeline_count "$frames_first"; then ok "its timeline back whole: $frames_first keyframes"; else fail "its timeline: $(rv timeline_count) keyframes, not $frames_first"; fi
value_is redo_depth 1 && ok "one redo kept" || fail "redo_depth $(rv redo_depth)"
key ctrl+y
if wait_for "ctrl+Y: the reset's run" value_is step "$reset_step"; then ok "ctrl+Y: the reset's run at step $reset_step"; fi
key ctrl+z
wait_for "ctrl+Z again" value_is step "$first" && ok "ctrl+Z again: step $first"
key ctrl+shift+z
if wait_for "ctrl+shift+Z: the reset's run" value_is step "$reset_step"; then ok "ctrl+shift+Z redoes too"; fi
key ctrl+z
wait_for "ctrl+Z" value_is step "$first"

# ---- The buttons, each clicked twice ----
widget redo
move "$CX" "$CY"
click 1
if wait_for "Redo: the reset's run" value_is step "$reset_step"; then ok "Redo: step $reset_step"; fi
click 1
frames 3
if value_is step "$reset_step" && value_is redo_depth 0; then ok "Redo again, nothing left to redo: the run stays"; else fail "Redo again: step $(rv step), redo_depth $(rv redo_depth)"; fi
widget undo
move "$CX" "$CY"
click 1
if wait_for "Undo: the run left" value_is step "$first"; then ok "Undo: step $first"; fi
click 1
frames 3
if value_is step "$first" && value_is undo_depth 0; then ok "Undo again, nothing left to undo: the run stays"; else fail "Undo again: step $(rv step), undo_depth $(rv undo_depth)"; fi

# ---- ] : a preset replaces the run; ctrl+Z brings it back ----
key bracketright
if wait_for "the preset's line" notice_has "ctrl+Z brings back the run you left"; then ok "]: $(rv notice)"; fi
key ctrl+z
if wait_for "ctrl+Z after ]" value_is step "$first"; then ok "ctrl+Z after ]: the loaded run at step $first, $(rv bodies) bodies"; fi
value_is bodies 1024 || fail "bodies $(rv bodies), not 1024"

# ---- A resume from the past, undone: the new future kept for ctrl+Y ----
key Left
key Left
wait_for "two keyframes back" value_is timeline_view $((frames_first - 3))
key space
wait_for "a new future" at_least step $((first + 20))
key space
wait_for "the pause" value_is paused 1
branch=$(rv step)
key ctrl+z
if wait_for "ctrl+Z: the future set aside" value_is step "$first"; then ok "ctrl+Z after the resume: the future set aside, step $first"; fi
notice_has "ctrl+Y brings them back" && ok "it says so: $(rv notice)" || fail "the line: $(rv notice)"
key ctrl+y
if wait_for "ctrl+Y: the new future" value_is step "$branch"; then ok "ctrl+Y: the new future back at step $branch"; fi

# ---- The exit (Escape) with --save, after R: keep.tipsy stays, the run goes beside it ----
key r
wait_for "the reset" below step $first
# Escape closes the window: the program ends, so its arrival is seen in the exit, not the readout.
xdotool key --clearmodifiers Escape
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || fail "the exit: status $rc"
if cmp -s keep.tipsy keep.orig && cmp -s keep.tipsy.ini keep.orig.ini; then ok "keep.tipsy as it was"; else fail "keep.tipsy was written over"; fi
if [ -s keep-2.tipsy ] && [ "$(ini_step keep-2.tipsy)" -lt "$first" ]; then ok "the reset's run saved beside it: keep-2.tipsy at step $(ini_step keep-2.tipsy)"; else fail "keep-2.tipsy: $(ls keep* 2>&1)"; fi
grep -q "holds the run this one replaced" app.log && ok "the exit says so: $(grep 'replaced' app.log)" || fail "no line on keep-2.tipsy in app.log"

# ---- S twice where the dated names are taken ----
mkdir dated && cd dated || abort "no folder"
now=$(date +%s)
for s in $(seq 0 120); do
    name=starburst-$(date -d "@$((now + s))" +%Y%m%d-%H%M%S).tipsy
    echo taken >"$name"
done
readout=$PWD/readout.txt
STARBURST_READOUT=$readout "$app" --backend "$backend" --scene plummer -n 512 --size 900x600 >app.log 2>&1 &
pid=$!
focus_window
key s
wait_for "the first save" notice_has "Saved the run"
one=$(rv notice)
key s
wait_for "the second save" test "$(ls starburst-*-2.tipsy starburst-*-3.tipsy 2>/dev/null | wc -l)" -ge 2
two=$(rv notice)
taken=$(grep -l '^taken$' starburst-*.tipsy | wc -l)
[ "$taken" -eq 121 ] && ok "the 121 taken names untouched" || fail "$taken of 121 taken names untouched"
saves=$(ls starburst-*-[0-9].tipsy 2>/dev/null | wc -l)
[ "$saves" -eq 2 ] && ok "two saves, two files: $one / $two" || fail "$saves new files: $(ls)"

# ---- A recording (V) whose window is resized says it keeps its size ----
key v
wait_for "the recording" value_is recording 1
xdotool windowsize "$wid" 700 450
if wait_for "the line on the recording's size" notice_has "Recording stays 900x600"; then ok "resized while recording: $(rv notice)"; fi
key v
wait_for "the recording's end" value_is recording 0
cd ..
finish
