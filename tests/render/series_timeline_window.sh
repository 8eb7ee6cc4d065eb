#!/bin/bash
# --open of a long series in a real window, read back from the program's readout
# (STARBURST_READOUT):
# - the series is read onto the timeline while frames go on being drawn: readouts taken during the
#   reading show the frame count rising with the snapshots read, and the line over the timeline
#   saying "Reading snapshot k of n: FILE" for the next one;
# - a key pressed while it reads is taken (ctrl+Right shows the last keyframe read so far);
# - the reading reaches n of n, the line goes, and the timeline holds n keyframes in the series'
#   order of time, the view on the first, paused;
# - a series with a damaged file in it: the reading stops there with one line naming the file and
#   what is wrong (the notice and the console), the line over the timeline says so, and the
#   keyframes read before it can be scrubbed.
# A screenshot (P, with the UI) is taken while the series reads, for the record. Every wait is for
# a condition, never a sleep.
# usage: series_timeline_window.sh APP OUT_DIR   (under xvfb-run)
set -u
if [ $# -ne 2 ]; then
    echo "usage: series_timeline_window.sh APP OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
backend=${STARBURST_TEST_BACKEND:-cpu}
# Enough snapshots of enough bodies that the reading lasts many frames.
count=40 n=16384 gap=0.25


# The series: one save, copied with the time in each file's header set to k x gap (a TIPSY
# header starts with its time, a double in the file's byte order: ours, little-endian).
"$app" --headless --backend cpu -n $n --seed 3 --frames 1 --size 32x32 --quiet --save base.tipsy ||
    abort "no snapshot to copy"
mkdir series
for ((k = 0; k < count; k++)); do
    f=$(printf 'series/snap_%03d.tipsy' $k)
    cp base.tipsy "$f" &&
        perl -e 'open(F, "+<", $ARGV[0]) or die; binmode F; print F pack("d<", $ARGV[1]); close F or die' \
            "$f" "$(calc "$k * $gap")" || abort "cannot write $f"
done

# A readout taken whole (the program replaces the file every frame): SEEN_* from one frame.
seen() {
    snap seen.txt
    SEEN_FRAME=$(readout_value seen.txt frame) SEEN_READ=$(readout_value seen.txt series_read)
    SEEN_TEXT=$(readout_value seen.txt series_text) SEEN_KEYFRAMES=$(readout_value seen.txt timeline_count)
    SEEN_ALL=$(readout_value seen.txt series_count)
    [ -n "$SEEN_FRAME" ] && [ -n "$SEEN_READ" ]
}
# A frame drawn while the series reads, past frame $1 and past $2 snapshots read: the line names
# the next snapshot, and the timeline holds those read.
reading_past() {
    seen || return 1
    [ "$SEEN_READ" -gt "$2" ] && [ "$SEEN_READ" -lt $count ] && [ "$SEEN_FRAME" -gt "$1" ]
}
check_reading() {
    local want
    want="Reading snapshot $((SEEN_READ + 1)) of $count: $(printf 'snap_%03d.tipsy' "$SEEN_READ")"
    if [ "$SEEN_TEXT" = "$want" ]; then ok "frame $SEEN_FRAME, $SEEN_READ of $SEEN_ALL read: '$SEEN_TEXT'"; else fail "frame $SEEN_FRAME, $SEEN_READ read: the line is '$SEEN_TEXT', not '$want'"; fi
    if [ "$SEEN_KEYFRAMES" = "$SEEN_READ" ]; then ok "the timeline holds the $SEEN_READ read so far"; else fail "$SEEN_KEYFRAMES keyframes after $SEEN_READ snapshots read"; fi
}

# The view shows snapshot K (from 0): its time, K x gap; SHOWN gets the time.
shows_snapshot() { SHOWN=$(rv time); is "$SHOWN - $1 * $gap < 1e-6 && $1 * $gap - $SHOWN < 1e-6"; }
quit() {
    xdotool key Escape
    if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
    pid=
}

# ---- A series of 40 snapshots, read while the window draws ----
rm -f "$readout"
STARBURST_READOUT=$readout "$app" --backend "$backend" --open "$PWD/series/snap_*.tipsy" --size 1100x700 \
    --capture-ui >app.log 2>&1 &
pid=$!
wait_for "a frame while the series reads" reading_past -1 0 || abort "no frame seen while the series read"
[ "$SEEN_ALL" = $count ] && ok "series_count $count" || fail "series_count $SEEN_ALL, not $count"
check_reading
first_frame=$SEEN_FRAME first_read=$SEEN_READ
wait_for "a later frame while the series reads" reading_past "$first_frame" "$first_read" || abort "the reading did not go on"
check_reading
ok "frames go on while it reads: frame $first_frame at $first_read read, frame $SEEN_FRAME at $SEEN_READ"
# Frames drawn and keys taken while it reads: P (a screenshot with the UI) and ctrl+Right.
wid=$(xdotool search --sync --onlyvisible --name '^Starburst$' | head -n 1)
[ -n "$wid" ] || abort "no window named Starburst"
xdotool windowfocus --sync "$wid" 2>/dev/null
xdotool key p
xdotool key --clearmodifiers ctrl+Right
xdotool keyup ctrl
shown_while_reading() { seen && [ "$(readout_value seen.txt timeline_view)" -gt 0 ] 2>/dev/null; }
wait_for "ctrl+Right to show a later keyframe" shown_while_reading
if [ "$SEEN_READ" -lt $count ]; then
    ok "ctrl+Right while it reads ($SEEN_READ of $count): keyframe $(($(readout_value seen.txt timeline_view) + 1))"
else
    echo "note: the reading ended before ctrl+Right was taken"
    ok "ctrl+Right taken: keyframe $(($(readout_value seen.txt timeline_view) + 1))"
fi
shot_written() { local s; s=$(rv screenshot); [ -n "$s" ] && [ -s "$s" ]; }
wait_for "the screenshot" shot_written && cp "$(rv screenshot)" reading.png && echo "a screenshot as it read: reading.png"

# ---- n of n ----
if wait_for "$count of $count read" value_is series_read $count; then ok "the reading reaches $count of $count"; fi
seen
if [ -z "$SEEN_TEXT" ]; then ok "the line over the timeline is gone"; else fail "after the reading the line says '$SEEN_TEXT'"; fi
if value_is timeline_count $count; then ok "the timeline holds $count keyframes"; else fail "the timeline holds $(rv timeline_count) keyframes, not $count"; fi
grep -c "onto the timeline" app.log | grep -qx $((count - 1)) && ok "the console says each of the $((count - 1)) after the first" ||
    fail "the console's lines: $(grep -c "onto the timeline" app.log) of $((count - 1))"
focus_window
key ctrl+Left
wait_for "the first keyframe" value_is timeline_view 0
if value_is time 0 && value_is paused 1; then ok "ctrl+Left: the first snapshot, t 0, paused"; else fail "ctrl+Left: t $(rv time), paused $(rv paused)"; fi
key ctrl+Right
wait_for "the last keyframe" value_is timeline_view $((count - 1))
if shows_snapshot $((count - 1)); then ok "ctrl+Right: the last snapshot, t $SHOWN"; else fail "ctrl+Right: t $SHOWN, not snapshot $count's"; fi
key Left
wait_for "Left" value_is timeline_view $((count - 2))
if shows_snapshot $((count - 2)); then ok "Left: t $SHOWN, the snapshot before"; else fail "Left: t $SHOWN, not snapshot $((count - 1))'s"; fi
quit

# ---- A damaged file part way: the reading stops there, what was read stays ----
bad=7
bad_file=$(printf 'series/snap_%03d.tipsy' $bad)
truncate -s 5000 "$bad_file"
rm -f "$readout"
STARBURST_READOUT=$readout "$app" --backend "$backend" --open "$PWD/series/snap_*.tipsy" --size 1100x700 \
    >>app.log 2>&1 &
pid=$!
stopped() { [ -n "$(rv series_text)" ] && [[ "$(rv series_text)" != Reading* ]]; }
wait_for "the reading to stop" stopped || abort "the reading did not stop"
if value_is series_read $bad && value_is timeline_count $bad; then ok "it stops after $bad snapshots, all $bad on the timeline"; else fail "$(rv series_read) read, $(rv timeline_count) keyframes, not $bad"; fi
case "$(rv series_text)" in
"Snapshot $((bad + 1)) of $count not read; the timeline holds the first $bad") ok "the line over the timeline: $(rv series_text)" ;;
*) fail "the line over the timeline: $(rv series_text)" ;;
esac
case "$(rv notice)" in
*"snapshot $((bad + 1)) of $count"*"${bad_file#series/}"*"file holds"*) ok "the notice names the file and the problem: $(rv notice)" ;;
*) fail "the notice: $(rv notice)" ;;
esac
said=$(grep -c "starburst: Reading the series stopped at snapshot $((bad + 1)) of $count: .*$bad_file" app.log)
if [ "$said" = 1 ]; then ok "one console line: $(grep "stopped at snapshot" app.log)"; else fail "$said console lines on the stop"; fi
focus_window
key ctrl+Right
wait_for "the last keyframe read" value_is timeline_view $((bad - 1))
if shows_snapshot $((bad - 1)); then ok "what was read stays usable: keyframe $bad at t $SHOWN"; else fail "the last keyframe read: t $SHOWN, not snapshot $bad's"; fi
quit
finish
