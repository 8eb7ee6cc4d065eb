#!/bin/bash
# The run's timeline in a real window, driven as a hand drives it (xdotool), read back from the
# program's readout (STARBURST_READOUT) and its saves (S):
# - a CPU collision runs a while; its keyframes stay within the budget, 44 bytes a body each (position, velocity, acceleration);
# - the slider dragged across its range (several stops, not only the ends) pauses the run and
#   shows a keyframe at each stop: the keyframe follows the handle and the time rises with it;
# - Left, Right, ctrl+Left, ctrl+Right and shift+Left, each pressed twice, do what the README says;
# - S saves the run's present whatever keyframe is shown, and says so: a save while the start is
#   shown is the newest state, bit for bit the save made at the end;
# - resuming from a past keyframe sets the later ones aside and runs a new future; ctrl+Z brings
#   the old future back, and its last keyframe is the state saved before, bit for bit;
# - screenshots (P, with the UI) of the slider in use.
# The figures for the record: bytes a keyframe, and the scrub latency (a request to its keyframe
# drawn) at each stop. Every wait is for a condition, never a sleep.
# usage: timeline_window.sh APP OUT_DIR   (under xvfb-run)
set -u
if [ $# -ne 2 ]; then
    echo "usage: timeline_window.sh APP OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
n=2048 spf=4 budget_mb=64
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
# The HUD's spacing: a frame's steps on the CPU; on CUDA keyframes come with the run's checkpoint
# copies, and the line gives their mean gap ("every ~220 steps").
every="every $spf steps"
[ "$backend" = cuda ] && every="every ~"

at_least() { local v; v=$(rv "$1"); [ -n "$v" ] && [ "$v" -ge "$2" ]; }
# S: the run saved to run.tipsy (removed first, so that the save waited for is this one), copied to
# $1 once the program says it is written; SAID gets its line.
saved() { [ -s run.tipsy ] && grep -q "^notice Saved the run at step " "$readout"; }
save_as() {
    rm -f run.tipsy
    key s
    wait_for "the save" saved || return 1
    cp run.tipsy "$1"
    SAID=$(rv notice)
}
# P: a screenshot of the next frame (with the UI: --capture-ui); SHOT gets its name.
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ "$s" != "$1" ] && [ -s "$s" ]; }
shot() {
    local before
    before=$(rv screenshot)
    key p
    wait_for "a screenshot" shot_taken "$before" && SHOT=$(rv screenshot) && cp "$SHOT" "$1" && ok "P: $1"
}
view_is() { value_is timeline_view "$1"; }
notice_brought() { case "$(rv notice)" in "Brought back the "*) return 0 ;; esac; return 1; }
near_view() { local v; v=$(rv timeline_view); [ -n "$v" ] && [ "$v" -ge $(($1 - 2)) ] && [ "$v" -le $(($1 + 2)) ]; }
LATENCY=()
LOAD=()
note_latency() {
    LATENCY+=("$(rv timeline_scrub_ms)")
    LOAD+=("$(rv timeline_load_ms)")
}

STARBURST_READOUT=$readout "$app" --backend "$backend" --scene collision -n $n --seed 5 --steps-per-frame $spf \
    --timeline-mb $budget_mb --size 1100x700 --capture-ui --save run.tipsy >app.log 2>&1 &
pid=$!
focus_window

# ---- The run keeps keyframes, within the budget ----
wait_for "60 keyframes" at_least timeline_count 60 || abort "keyframes: $(rv timeline_count)"
# Paused, and read from one frame's readout: the count, the bytes and the line of one moment (read
# one at a time from a run going on, they belong to different frames).
key space
wait_for "the pause" value_is paused 1
snap paused.txt
sv() { readout_value paused.txt "$1"; }
count=$(sv timeline_count) bytes=$(sv timeline_bytes) budget=$(sv timeline_budget) spacing=$(sv timeline_spacing)
per=$(calc "$bytes / $count")
echo "memory: $bytes bytes in $count keyframes of $n bodies: $per bytes a keyframe ($(calc "$per / $n") a body)"
if is "$budget == $budget_mb * 1000000 && $bytes <= $budget"; then ok "within --timeline-mb $budget_mb: $bytes of $budget bytes"; else fail "$bytes bytes of a budget of $budget"; fi
if is "$per >= 44 * $n && $per <= 44 * $n + 200"; then ok "a keyframe of $n bodies takes $per bytes"; else fail "a keyframe takes $per bytes, not 44 a body"; fi
if [ "$spacing" = $spf ]; then ok "a keyframe every $spf steps (a frame's)"; else fail "spacing $spacing, not $spf"; fi
case "$(sv timeline_text)" in
*"(paused), $count keyframes, $every"*) ok "the HUD, paused: $(sv timeline_text)" ;;
*) fail "the HUD's timeline line, paused at $count keyframes: $(sv timeline_text)" ;;
esac
key space
wait_for "the run to go on" value_is paused 0
running() { case "$(rv timeline_text)" in *"(running), "*" keyframes, $every"*) return 0 ;; esac; return 1; }
if wait_for "(running) on the HUD" running; then ok "the HUD, running: $(rv timeline_text)"; fi

# ---- The slider, dragged across its range ----
widget timeline
dt=$(rv dt)
move "$(calc "int($X1 - 3)")" "$CY"
xdotool mousedown 1
wait_for "the pause at the press" value_is paused 1
count=$(rv timeline_count)
ok "pressing the slider pauses the run at $count keyframes"
prev_view=-1 prev_time=-1 rising=1 near=1 stops=""
for f in 0.05 0.2 0.35 0.5 0.65 0.8 0.95; do
    x=$(calc "int($X0 + 1 + ($X1 - $X0 - 2) * $f)")
    move "$x" "$CY"
    # The handle's keyframe, as ImGui maps a position of the track (the grab is as wide as its share).
    want=$(calc "int($f * ($count - 1) + 0.5)")
    wait_for "keyframe ~$want at $f of the track" near_view "$want" || near=0
    frames 2
    note_latency
    v=$(rv timeline_view) t=$(rv time) s=$(rv step)
    stops="$stops $v:$t"
    is "$t > $prev_time && $v > $prev_view" || rising=0
    # A keyframe's time is its step's: dt a step from t 0.
    is "($t - $s * $dt) < 1e-4 * ($t + 1) && ($s * $dt - $t) < 1e-4 * ($t + 1)" || fail "keyframe $v: t $t is not step $s x dt $dt"
    [ $((s % spacing)) -eq 0 ] || fail "keyframe $v at step $s, not a multiple of $spacing"
    prev_view=$v prev_time=$t
done
[ $near -eq 1 ] && ok "the keyframe follows the handle at 7 stops:$stops"
if [ $rising -eq 1 ]; then ok "the time rises along the track"; else fail "the time does not rise along the track:$stops"; fi
xdotool mouseup 1
frames 3
shot slider_in_use.png
case "$(rv timeline_text)" in
"t "*" of "*", keyframe $(($(rv timeline_view) + 1))/$count, $every"*) ok "the HUD: $(rv timeline_text)" ;;
*) fail "the HUD's timeline line: $(rv timeline_text)" ;;
esac

# ---- The keys, each pressed twice ----
v=$(rv timeline_view)
key Left
wait_for "Left" view_is $((v - 1)) && note_latency
key Left
if wait_for "Left again" view_is $((v - 2)); then ok "Left twice: keyframe $((v + 1)) to $((v - 1))"; note_latency; fi
key Right
wait_for "Right" view_is $((v - 1))
key Right
if wait_for "Right again" view_is "$v"; then ok "Right twice: back to keyframe $((v + 1))"; fi
key ctrl+Left
wait_for "ctrl+Left" view_is 0 && note_latency
if value_is time 0 && value_is step 0; then ok "ctrl+Left: the start, t 0"; else fail "ctrl+Left: t $(rv time), step $(rv step)"; fi
save_as start_a.tipsy || abort "no save"
case "$SAID" in
*"(its newest state; not the keyframe shown, step 0)"*) ok "S at the start saves the run's present, and says so: $SAID" ;;
*) fail "S at the start: $SAID" ;;
esac
key Right
wait_for "Right from the start" view_is 1
key ctrl+Left
if wait_for "ctrl+Left again" view_is 0; then ok "ctrl+Left twice: the start both times"; fi
save_as start_b.tipsy || abort "no save"
if cmp -s start_a.tipsy start_b.tipsy; then ok "two saves at the start are the same present, bit for bit"; else fail "two saves at the start differ"; fi
key ctrl+Right
wait_for "ctrl+Right" view_is $((count - 1)) && note_latency
end_time=$(rv time) end_step=$(rv step)
save_as end_a.tipsy || abort "no save"
case "$SAID" in
"Saved the run at step $end_step to run.tipsy") ok "S at the end: $SAID" ;;
*) fail "S at the end (step $end_step): $SAID" ;;
esac
if cmp -s start_a.tipsy end_a.tipsy; then ok "the save made at the start is the end's state, bit for bit"; else fail "the save at the start is not the run's present"; fi
shot at_the_end.png
key Left
wait_for "Left from the end" view_is $((count - 2))
key ctrl+Right
if wait_for "ctrl+Right again" view_is $((count - 1)); then ok "ctrl+Right twice: the end, t $end_time"; fi
if value_is time "$end_time"; then ok "the end's time again"; else fail "the end: t $(rv time), not $end_time"; fi
# shift+Left: plays backwards (a keyframe a frame), and stops when pressed again.
key shift+Left
wait_for "playing backwards" value_is timeline_playing_back 1
below() { local v; v=$(rv timeline_view); [ -n "$v" ] && [ "$v" -le "$1" ]; }
if wait_for "play back past keyframe $((count / 2))" below $((count / 2)); then ok "shift+Left plays backwards: keyframe $(rv timeline_view)"; fi
key shift+Left
if wait_for "the play to stop" value_is timeline_playing_back 0; then
    stopped=$(rv timeline_view)
    frames 5
    if view_is "$stopped"; then ok "shift+Left again stops it at keyframe $((stopped + 1))"; else fail "it went on: $(rv timeline_view) after $stopped"; fi
fi
if value_is paused 1; then ok "still paused"; else fail "playing back left the run running"; fi

# ---- Resuming from the past: a new future; ctrl+Z brings the old one back ----
key ctrl+Left
wait_for "the start" view_is 0
for _ in 1 2 3 4 5; do
    v=$(rv timeline_view)
    key Right
    wait_for "Right" view_is $((v + 1))
done
from=$(rv timeline_view) from_step=$(rv step)
shot resume_from.png
key space
set_aside=$((count - 1 - from))
if wait_for "the future set aside" value_is timeline_held $set_aside; then ok "space at keyframe $((from + 1)): $set_aside later keyframes set aside"; fi
case "$(rv notice)" in *"set aside (ctrl+Z brings them back)"*) ok "it says so: $(rv notice)" ;; *) fail "the notice: $(rv notice)" ;; esac
wait_for "a new future of 5 keyframes" at_least timeline_count $((from + 6))
new_count=$(rv timeline_count)
if [ "$new_count" -lt "$count" ] && value_is timeline_view -1 && is "$(rv step) > $from_step"; then
    ok "a new future runs from step $from_step: $new_count keyframes (the old future's $count are not on the timeline)"
else
    fail "after the resume: $new_count keyframes, view $(rv timeline_view), step $(rv step)"
fi
key ctrl+z
# The new future it replaces is held in its turn, for ctrl+Y.
if wait_for "the future brought back" value_is timeline_count "$count"; then ok "ctrl+Z: the $count keyframes back"; fi
new_held=$((new_count - from - 1))
if at_least timeline_held "$new_held"; then ok "the new future's keyframes held for ctrl+Y: $(rv timeline_held)"; else fail "held after ctrl+Z: $(rv timeline_held), not $new_held or more"; fi
if value_is timeline_count "$count" && value_is timeline_view $((count - 1)) && value_is paused 1; then
    ok "ctrl+Z brings back the $count keyframes, shown at the last, paused"
else
    fail "after ctrl+Z: $(rv timeline_count) keyframes, view $(rv timeline_view), paused $(rv paused)"
fi
if value_is time "$end_time" && value_is step "$end_step"; then ok "at t $end_time, step $end_step, as before"; else fail "after ctrl+Z: t $(rv time) step $(rv step), not $end_time $end_step"; fi
save_as end_b.tipsy || abort "no save"
if cmp -s end_a.tipsy end_b.tipsy; then ok "the old future's end is the state it was, bit for bit"; else fail "the restored end differs from the one saved before"; fi
shot restored.png
# And the run goes on from there.
key space
wait_for "the run to go on" at_least step $((end_step + 2 * spf))
ok "space runs on from the restored end: step $(rv step)"

xdotool key Escape # the program ends on it: no readout says it arrived
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=
# The summary counts the steps computed, not the steps since the last keyframe shown.
summary=$(grep -o "starburst: [0-9]* steps in" app.log | tail -1 | awk '{ print $2 }')
if [ -n "$summary" ] && [ "$summary" -ge "$end_step" ]; then ok "the summary counts $summary steps computed"; else fail "the summary: '$summary' steps (at least $end_step ran)"; fi

# ---- A budget of 1 MB: thinned, never silently ----
# 15 keyframes of 2,048 bodies fit; the run goes past them, and the spacing says so.
rm -f "$readout"
STARBURST_READOUT=$readout "$app" --backend "$backend" --scene collision -n $n --seed 5 --steps-per-frame $spf \
    --timeline-mb 1 --size 1100x700 >>app.log 2>&1 &
pid=$!
focus_window
wait_for "two thinnings" at_least timeline_spacing $((4 * spf))
snap thinned.txt
tv() { readout_value thinned.txt "$1"; }
count=$(tv timeline_count) bytes=$(tv timeline_bytes) budget=$(tv timeline_budget) spacing=$(tv timeline_spacing)
if is "$bytes <= $budget && $budget == 1000000 && $count <= 15"; then ok "within 1 MB: $count keyframes, $bytes bytes"; else fail "$count keyframes, $bytes of $budget bytes"; fi
# The gaps kept, "every 16 steps" or "every 8 to 16 steps": none wider than the spacing now, none
# narrower than a frame's steps, the widest at least the spacing before the last thinning.
gaps=$(tv timeline_text | sed -n 's/.*, every \([0-9]*\)\( to \([0-9]*\)\)\? steps.*/\1 \3/p')
read -r least most <<<"$gaps"
most=${most:-$least}
if [ "$backend" = cuda ]; then
    case "$(tv timeline_text)" in *", every ~"*) ok "the spacing is on screen: $(tv timeline_text)" ;; *) fail "the spacing is not on screen: $(tv timeline_text)" ;; esac
elif [ -n "$least" ] && [ "$least" -ge $spf ] && [ "$least" -le "$most" ] && [ "$most" -le "$spacing" ] &&
    [ $((2 * most)) -ge "$spacing" ]; then
    ok "the gaps kept are on screen (spacing $spacing): $(tv timeline_text)"
else
    fail "the gaps on screen do not agree with the spacing $spacing: $(tv timeline_text)"
fi
key ctrl+Left
if wait_for "the start" view_is 0 && value_is step 0; then ok "the first keyframe stays: step 0"; else fail "the start after thinning: step $(rv step)"; fi
# A future set aside outlives a full timeline: Right, space (the rest set aside), two thinnings
# more; ctrl+Z still brings it back.
key Right
wait_for "Right" view_is 1
key space
wait_for "a future set aside" at_least timeline_held 2
spacing=$(rv timeline_spacing)
wait_for "two thinnings after the resume" at_least timeline_spacing $((4 * spacing))
if at_least timeline_held 2; then ok "the future set aside is thinned, not dropped: $(rv timeline_held) keyframes held"; else fail "the future set aside: $(rv timeline_held) held; $(rv notice)"; fi
key ctrl+z
if wait_for "the future brought back" value_is paused 1 && wait_for "its line" notice_brought; then
    case "$(rv notice)" in
    "Brought back the "*) ok "ctrl+Z after the thinnings: $(rv notice)" ;;
    *) fail "ctrl+Z after the thinnings: $(rv notice)" ;;
    esac
fi

echo "scrub latency (request to the keyframe drawn), ms: ${LATENCY[*]}"
echo "  of which the keyframe's load into the simulation, ms: ${LOAD[*]}"
echo "a keyframe's copy into the timeline (the last), ms: $(rv timeline_capture_ms); $(rv hud | grep -o '^[0-9]* fps ([0-9.]* ms)')"
xdotool key Escape # the program ends on it: no readout says it arrived
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=
finish
