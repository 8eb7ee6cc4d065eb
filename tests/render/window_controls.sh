#!/bin/bash
# The real program in a real window, driven as a hand drives it: xdotool drags every slider of
# the Simulation, View and Presets sections across its range, types values with ctrl+click,
# picks every force method, clicks every button twice and presses every documented key. What the
# simulation received is read back from the program's readout (STARBURST_READOUT), a save and the
# presets file; what the tree overlay draws, from screenshots (P) with and without it. Every
# wait is for a condition (the window mapped, frames drawn, a value read back), never a sleep.
# usage: window_controls.sh APP SOURCE_DIR OUT_DIR CHECK_IMAGE   (under xvfb-run)
set -u
. "$(dirname "$0")/checks.sh"
. "$(dirname "$0")/window_checks.sh"
if [ $# -ne 4 ]; then
    echo "usage: window_controls.sh APP SOURCE_DIR OUT_DIR CHECK_IMAGE" >&2
    exit 2
fi
app=$1 src=$2 out=$3 checker=$4
require_window
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
cp "$src/assets/presets.ini" presets.ini || exit 1
readout=$out/readout.txt
passed=0 failed=0
pid=


click() { press_control "$1"; }

# Starts the program with these options and waits for its window and first frames.
start_app() {
    rm -f "$readout"
    STARBURST_READOUT=$readout "$app" --backend "$backend" --size 1200x700 --presets presets.ini "$@" >>app.log 2>&1 &
    pid=$!
    wait_for "the first frame" test -s "$readout" || abort "no readout from the program"
    wid=$(xdotool search --sync --onlyvisible --name '^Starburst$' | head -n 1)
    [ -n "$wid" ] || abort "no window named Starburst"
    xdotool windowfocus --sync "$wid" 2>/dev/null
    frames 5
}

# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
start_app -n 1024 --save run.tipsy
scene_dt=$(rv dt) scene_softening=$(rv softening)

# ---- Values out of every range typed into each field: brought into the table's range, and said ----
# Paused: 1,024 steps a frame (typed 5000 below) take seconds a frame on the CPU, and the values
# typed are read back from the controls, not from steps.
move 300 300
key space
expect paused 1 "paused for the typed values"
typed_to steps/frame steps_per_frame -3 1 "steps/frame -3 is below the range 1 to 1024: set to 1"
typed_to steps/frame steps_per_frame 5000 1024 "steps/frame 5000 is above the range 1 to 1024: set to 1024"
typed_to steps/frame steps_per_frame 0 1 "steps/frame 0 is below the range 1 to 1024: set to 1"
typed_to steps/frame steps_per_frame abc 1 "steps/frame = 'abc' is not a whole number"
typed_to point_size point_size 0 0.25 "point size 0 is below the range more than 0, at most 64: set to 0.25"
typed_to point_size point_size 100 64 "point size 100 is above the range more than 0, at most 64: set to 64"
typed_to point_size point_size -2 0.25 "point size -2 is below the range"
typed_to exposure exposure 1e6 1000 "exposure 1e6 is above the range more than 0, at most 1000: set to 1000"
typed_to exposure exposure 0 0.05 "exposure 0 is below the range more than 0, at most 1000: set to 0.05"
# Units as the command line takes them, on the collision's scale (a model length of 2.6 kpc).
typed_to softening softening 200pc "$(calc 0.2/2.6)" "softening 200pc = 0.0769231 model length units"
click Presets
frames 3
typed_to seconds cycle_seconds 0 1 "cycle seconds 0 is below the range 1 to 3600: set to 1"
typed_to seconds cycle_seconds 99999 3600 "cycle seconds 99999 is above the range 1 to 3600: set to 3600"
# The values as they stand go into a save and a preset, and both load (still paused).
typed_to steps/frame steps_per_frame 5000 1024 "set to 1024"
typed_to point_size point_size 100 64 "set to 64"
typed_to exposure exposure 0 0.05 "set to 0.05"
frames 2
count=$(rv presets)
name_preset "typed values"
click save_preset
expect presets $((count + 1)) "Save current as preset with the typed values"
if awk '$0 == "[typed values]" { on = 1; next } /^\[/ { on = 0 } on && $0 == "steps_per_frame = 1024" { s = 1 } on && $0 == "point_size = 64" { p = 1 } on && $0 == "exposure = 0.0500000007" { e = 1 } END { exit !(s && p && e) }' presets.ini; then
    ok "presets.ini holds [typed values] with the values as set"
else
    fail "presets.ini's [typed values]: $(awk '$0 == "[typed values]" { on = 1 } on' presets.ini | tr '\n' ' ')"
fi
click Presets
move 300 300
frames 2
rm -f run.tipsy run.tipsy.ini
key s
wait_for "S to write run.tipsy" test -s run.tipsy.ini && ok "S saved run.tipsy with the typed values"
if grep -q "^steps_per_frame = 1024$" run.tipsy.ini; then ok "the save holds steps_per_frame = 1024"; else fail "the save: $(grep steps_per_frame run.tipsy.ini)"; fi
# Opened paused: a frame of their 1,024 steps would take seconds, and a load or a start that fails
# fails before its first frame.
if "$app" --headless --backend cpu --load run.tipsy --paused --frames 2 --size 64x64 --quiet 2>load.err; then ok "the save with the typed values loads"; else fail "the save does not load: $(cat load.err)"; fi
if "$app" --headless --backend cpu --presets presets.ini --preset "typed values" -n 1024 --paused --frames 1 --size 64x64 --quiet 2>start.err; then
    ok "a start with the presets file and its [typed values] runs"
else
    fail "a start with the presets file fails: $(cat start.err)"
fi
# A presets file with a bad section starts the program: one line names file:line, the rest is offered.
cp presets.ini broken.ini
printf '\n[Broken]\nscene = disk\nsteps_per_frame = -3\n' >>broken.ini
bad_line=$(grep -n '^steps_per_frame = -3$' broken.ini | cut -d: -f1)
if "$app" --headless --backend cpu --presets broken.ini --preset Collision -n 1024 --frames 1 --size 64x64 --quiet 2>broken.err &&
    grep -q "^starburst: broken.ini:$bad_line: steps_per_frame = '-3' is too small.*\[Broken\].*skipped" broken.err; then
    ok "a presets file with a bad section starts: $(cat broken.err)"
else
    fail "a presets file with a bad section: $(cat broken.err)"
fi
type_into steps/frame steps_per_frame 1
type_into point_size point_size 1
type_into exposure exposure 1
key space
expect paused 0 "running again"
if [ "${WINDOW_CONTROLS_PART:-}" = typed ]; then
    xdotool key Escape
    if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
    pid=
    finish
fi

# ---- Simulation: the three parameters, dragged end to end, then typed ----
sweep dt dt
check_sweep dt 1e-5 0.1 3e-4 3e-3
sweep softening softening
check_sweep softening 1e-4 1 3e-3 3e-2
sweep damping damping
check_sweep damping 0.9 1 0.99 0.99999
type_into dt dt 0.0123
type_into softening softening 0.0456
type_into damping damping 0.995
sweep steps/frame steps_per_frame
check_sweep steps/frame 1 64 24 40
type_into steps/frame steps_per_frame 2

# ---- Buttons, each clicked twice ----
click pause; expect paused 1 "Pause"
click pause; expect paused 0 "Resume"
click pause; expect paused 1 "Pause again"
step0=$(rv step)
click step; expect step $((step0 + 1)) "Step"
click step; expect step $((step0 + 2)) "Step again"
click pause; expect paused 0 "Resume"

# Undo: back through the typed values, the run's state included.
expect_close() {
    if wait_for "$1 = $2" is_close "$1" "$2"; then ok "$3: $1 = $2"; else fail "$3: $1 is $(rv "$1"), not $2"; fi
}
frames 5
depth=$(rv undo_depth)
type_into dt dt 0.05
t_change=$(rv time) # the change was made at most this late
later() { is "$(rv time) > $t_change + 2"; }
wait_for "the run to go on with dt 0.05" later
t_later=$(rv time)
click undo
expect_close dt 0.0123 "Undo"
if is "$(rv time) < $t_change + 1"; then
    ok "Undo took the run back to t = $(rv time) (changed at t <= $t_change, undone at t >= $t_later)"
else
    fail "Undo left the run at t = $(rv time); the change was at t <= $t_change"
fi
expect undo_depth "$depth" "Undo depth back to $depth"
click undo
expect damping 1 "Undo again: damping as before it was typed"

# Defaults, twice: the scene's values, then no change.
click defaults
expect dt "$scene_dt" "Defaults"
expect softening "$scene_softening" "Defaults"
expect damping 1 "Defaults"
click defaults
expect dt "$scene_dt" "Defaults again"
if wait_for "the notice: Already the defaults" notice_has "Already the defaults"; then ok "Defaults again says so"; else fail "Defaults again says '$(rv notice)'"; fi

# Reset, twice: t starts again from 0.
t_reset=
reset_done() { local t; t=$(rv time); is "$t < $t_reset && $t < 1"; }
for n in 1 2; do
    frames 10
    t_reset=$(rv time)
    click reset
    if wait_for "t back to 0" reset_done; then ok "Reset $n: t = $(rv time) (was $t_reset)"; fi
done

# ---- Simulation: the force method, picked in its list, and theta ----
# Opens the force list with a click and clicks a method in it.
choose_force() {
    click force
    wait_for "the force list" has_widget "force_$1" || return
    click "force_$1"
    expect force_choice "$1" "force list: $1"
}
choose_force tree
expect force tree "the tree runs"
if [ "$backend" = cuda ]; then
    # The fmm is the CPU backend's: greyed in the GPU's list, a click on it leaves the tree.
    click force
    if wait_for "the force list" has_widget force_fmm; then
        click force_fmm
        frames 3
        expect force_choice tree "force list: fmm greyed on the GPU"
        expect force tree "the tree runs on"
        click force
        list_closed() { ! has_widget force_fmm; }
        wait_for "the force list to close" list_closed
    fi
else
    choose_force fmm
    expect force fmm "the fast multipole method runs"
fi
choose_force auto
# Auto: the CPU takes the fmm from 1,024 bodies; the GPU the direct sum below its crossover.
if [ "$backend" = cuda ]; then expect force direct "auto takes the direct sum for 1,024 bodies on the GPU"
else expect force fmm "auto takes the fmm for 1,024 bodies on the CPU"; fi
choose_force direct
expect force direct "the direct sum runs"
# A greyed slider: a drag across it end to end leaves its value as it was.
greyed() {
    local name=$1 key=$2 why=$3 was
    was=$(rv "$key")
    widget "$name"
    move "$(at 0)" "$CY"
    frames 2
    xdotool mousedown 1
    frames 2
    move "$(at 1)" "$CY"
    frames 3
    xdotool mouseup 1
    frames 3
    if value_is "$key" "$was"; then ok "$name greyed $why: a drag leaves $was"; else fail "a drag across the greyed $name ($why) made it $(rv "$key")"; fi
}
greyed theta theta "under the direct sum"
greyed alpha alpha "under the direct sum"
# The tree opens by estimated error by default: alpha set, theta greyed; "by error" unticked, by theta.
choose_force tree
expect_close alpha 0.0005 "the tree by error, the default"
greyed theta theta "while the tree opens by error"
click by_error
expect alpha 0 "by error unticked: the tree by theta"
sweep theta theta
check_sweep theta 0.05 1.5 0.65 0.9
type_into theta theta 0.33
click defaults
expect_close theta 0.4 "Defaults restores theta"
expect_close alpha 0.0005 "Defaults restores the test by error"
click undo
expect_close theta 0.33 "Undo brings back the typed theta"
expect alpha 0 "Undo brings back the test by theta"
# alpha: ticked again, dragged end to end on its log track, typed; the box twice.
click by_error
expect_close alpha 0.0005 "by error ticked again"
sweep alpha alpha
check_sweep alpha 1e-5 0.01 2e-4 5e-4
type_into alpha alpha 0.002
click by_error
expect alpha 0 "by error unticked"
greyed alpha alpha "while the tree opens by theta"
click by_error
expect_close alpha 0.002 "by error ticked: the typed alpha back"
click undo
expect alpha 0 "Undo takes the tick back"
click by_error
if [ "$backend" != cuda ]; then
    # The fmm's near cells open by error too: alpha is live under it.
    choose_force fmm
    expect_close alpha 0.002 "alpha kept under the fmm"
    type_into alpha alpha 0.001
    expect_close alpha 0.001 "alpha typed under the fmm"
    click undo
    expect_close alpha 0.002 "Undo under the fmm"
    choose_force tree
fi

# ---- The tree overlay: T twice, a screenshot each way, its levels dragged end to end ----
move 300 300
frames 2
key space
expect paused 1 "paused for the screenshots"
# P: writes a screenshot of the next frame; SHOT gets its name.
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ "$s" != "$1" ] && [ -s "$s" ]; }
shot() {
    local before
    before=$(rv screenshot)
    key p
    wait_for "a screenshot" shot_taken "$before" && SHOT=$(rv screenshot) && ok "P: $SHOT"
}
boxes_drawn() { is "$(rv tree_boxes) > 1"; }
# The three shots with the UI hidden (H): the view is framed left of the panel, and the tree's
# note under "show tree" can make the panel taller than the window, its scrollbar then moving the
# panel's edge and the frame with it (the CUDA panel, with the kernel's controls, is the taller):
# the bodies would move between the shots for a reason that is not the overlay's.
key h
expect visible 0 "H hides the UI for the overlay's screenshots"
shot
off1=$SHOT
key t
expect tree_overlay 1 "T shows the tree's cells"
wait_for "cells to draw" boxes_drawn && ok "the overlay draws $(rv tree_boxes) cells to level $(rv tree_levels)"
shot
on=$SHOT
key t
expect tree_overlay 0 "T hides them"
shot
off2=$SHOT
key h
expect visible 1 "H shows the UI again"
if "$checker" --lines "$on" "$off1"; then ok "the overlay draws lines over the bodies"; else fail "no lines drawn by the overlay"; fi
if "$checker" --same "$off1" "$off2"; then ok "hidden again, the overlay leaves nothing"; else fail "the overlay left pixels behind"; fi
click show_tree
expect tree_overlay 1 "show tree, clicked"
sweep tree_levels tree_levels
rising=1
for ((i = 1; i < ${#VALUES[@]}; i++)); do [ "${VALUES[i]}" -ge "${VALUES[i - 1]}" ] || rising=0; done
distinct=$(printf '%s\n' "${VALUES[@]}" | sort -u | wc -l)
if [ $rising -eq 1 ] && [ "${VALUES[0]}" = 0 ] && [ "${VALUES[10]}" = 8 ] && [ "$distinct" -ge 8 ]; then
    ok "tree levels across its range: ${VALUES[*]}"
else
    fail "tree levels across its range: ${VALUES[*]}"
fi
all_cells=$(rv tree_boxes)
widget tree_levels
move "$(at 0)" "$CY"
frames 2
xdotool click 1
expect tree_levels 0 "tree levels at its left end"
expect tree_boxes 1 "level 0: the root alone"
if is "$all_cells > 1"; then ok "levels 0-8: $all_cells cells"; else fail "levels 0-8 draw $all_cells cells"; fi
click show_tree
expect tree_overlay 0 "show tree, clicked again"
choose_force direct
key t
case "$(rv notice)" in *"choose tree"*) ok "T under the direct sum says: $(rv notice)" ;; *) fail "T under the direct sum says '$(rv notice)'" ;; esac
expect tree_boxes 0 "no cells under the direct sum"
key t
expect tree_overlay 0 "T again"
choose_force auto
key space
expect paused 0 "running again"

# ---- View: sliders end to end, checkboxes and the camera button twice ----
sweep point_size point_size
check_sweep "point size" 0.25 8 1.0 2.0
sweep exposure exposure
check_sweep exposure 0.05 20 0.6 1.6
type_into point_size point_size 3.25
type_into exposure exposure 2.5
for n in 1 2; do
    halo=$(rv show_halo)
    click show_halo
    expect show_halo $((1 - halo)) "show halo ($n)"
    spin=$(rv auto_rotate)
    click auto-rotate
    expect auto_rotate $((1 - spin)) "auto-rotate ($n)"
done
home=$(rv camera_distance)
for n in 1 2; do
    widget exposure
    move 300 300
    frames 2
    xdotool click 4 click 4 click 4
    away() { ! value_is camera_distance "$home"; }
    wait_for "the wheel to zoom" away
    click reset_camera
    expect camera_distance "$home" "Reset camera ($n)"
done

# ---- Presets: the cycle seconds slider, and Save current as preset twice ----
click Presets
frames 3
sweep seconds cycle_seconds
check_sweep "cycle seconds" 5 300 120 185
# name_preset (above): types text into the preset name field, replacing what it held, and Enter.
# Names a preset, clicks Save current as preset twice: one more preset, then a refusal.
save_twice() {
    local count
    count=$(rv presets)
    name_preset "$1"
    click save_preset
    expect presets $((count + 1)) "Save current as preset ($2)"
    click save_preset
    if wait_for "the refusal" notice_has "exists already"; then
        ok "saving '$1' again is refused: $(rv notice)"
    else
        fail "second save of '$1' ($2): '$(rv notice)'"
    fi
}
count=$(rv presets)
save_twice "hand test" "a fresh run"
name_preset "hand test 2"
click save_preset
expect presets $((count + 2)) "Save current as preset, a second name"
for name in "hand test" "hand test 2"; do
    if awk -v s="[$name]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && /^bodies = 1024$/ { found = 1 } END { exit !found }' presets.ini; then
        ok "presets.ini holds [$name] with the 1,024 bodies that ran"
    else
        fail "presets.ini lacks [$name] with bodies = 1024"
    fi
done
# "Run at scale...": the halos are fields, which SWIFT runs as bodies. Past the start it is refused
# and says how; at the start (ctrl+Left), twice: two folders for SWIFT, each whole, the halos
# sampled into bodies beside the 1,024 stars.
exported() { [ "$(ls -d starburst-swift-*/ 2>/dev/null | wc -l)" -ge "$1" ] && [ -s "$(ls -d starburst-swift-*/ | sed -n "$1p")README.txt" ]; }
click run_at_scale
if wait_for "the export's refusal past the start" notice_has "sampled into bodies at the start of a built run only"; then
    ok "Run at scale past the start is refused: $(rv notice)"
else
    fail "Run at scale at step $(rv step): '$(rv notice)'"
fi
[ -z "$(ls -d starburst-swift-*/ 2>/dev/null)" ] || fail "a refused export left $(ls -d starburst-swift-*/)"
key ctrl+Left
wait_for "ctrl+Left to show the start" value_is step 0 || fail "ctrl+Left: step $(rv step)"
for n in 1 2; do
    click run_at_scale
    if wait_for "folder $n for SWIFT" exported $n; then
        d=$(ls -d starburst-swift-*/ | sed -n "${n}p")
        if [ -s "${d}ics.hdf5" ] && grep -q "time_begin" "${d}params.yml" && grep -q "halo fields sampled into" "${d}README.txt"; then
            ok "Run at scale ($n): $d holds ics.hdf5, params.yml, README.txt with the halos sampled; $(rv notice)"
        else
            fail "Run at scale ($n): $d is not whole: $(ls "$d") $(head -3 "${d}README.txt" 2>/dev/null)"
        fi
    fi
done
if [ "$(ls -d starburst-swift-*/ | wc -l)" = 2 ]; then ok "two clicks, two folders"; else fail "two clicks gave: $(ls -d starburst-swift-*/)"; fi
key space; expect paused 0 "space runs on from the start shown"
click Presets

# ---- Every documented key ----
move 300 300
frames 2
key space; expect paused 1 "space pauses"
t_paused=$(rv time)
frames 5
if value_is time "$t_paused"; then ok "paused: time stands at $t_paused"; else fail "paused, yet time moved from $t_paused to $(rv time)"; fi
step0=$(rv step)
key period; expect step $((step0 + 1)) ". steps once"
key space; expect paused 0 "space resumes"
frames 10
t_reset=$(rv time)
key r
if wait_for "R to reset" reset_done; then ok "R resets: t = $(rv time) (was $t_reset)"; fi
case "$(rv notice)" in *kept*) ok "R says what it kept: $(rv notice)" ;; *) fail "R says '$(rv notice)'" ;; esac
type_into dt dt 0.02 # not the scene's dt, or the two checks below could not fail
key BackSpace; expect dt "$scene_dt" "Backspace restores the defaults"
key ctrl+z; expect_close dt 0.02 "ctrl+Z undoes Defaults"
# A value, Enter and a key for the program in one breath (they reach the program in one frame):
# Enter closes the field first, then the program takes Backspace.
open_field dt
xdotool type 0.025
xdotool key Return BackSpace
expect dt "$scene_dt" "typed, Enter and Backspace at once: Backspace restores the defaults"
key ctrl+z; expect_close dt 0.025 "ctrl+Z brings back the value typed before it"
key BackSpace
rm -f run.tipsy run.tipsy.ini
key s
wait_for "S to write run.tipsy" test -s run.tipsy.ini && ok "S saved run.tipsy"
if "$app" --headless --backend cpu --load run.tipsy --frames 2 --size 64x64 --quiet; then ok "the save loads"; else fail "the save does not load"; fi
key v; expect recording 1 "V starts recording"
frames 10
key v; expect recording 0 "V stops recording"
if ls starburst-*.mp4 >/dev/null 2>&1 || ls -d starburst-*/ >/dev/null 2>&1; then ok "the recording is there: $(ls -d starburst-* | head -n 1)"; else fail "no recording written"; fi
key h; expect visible 0 "H hides the panel"
key h; expect visible 1 "H shows it"
for n in 1 2; do
    spin=$(rv auto_rotate); key a; expect auto_rotate $((1 - spin)) "A ($n)"
    halo=$(rv show_halo); key d; expect show_halo $((1 - halo)) "D ($n)"
    cycle=$(rv cycling); key c; expect cycling $((1 - cycle)) "C ($n)"
done
mode=$(rv color_mode); key m; expect color_mode $(((mode + 1) % 2)) "M"
key m; expect color_mode "$mode" "M again"
key g; expect follow 1 "G follows galaxy A"
key g; expect follow 2 "G follows galaxy B"
key g; key g; expect follow 0 "G round to nothing"
key f; expect fullscreen 1 "F goes full screen"
key f; expect fullscreen 0 "F leaves it"
key l; expect lecture 1 "L: lecture mode"
expect fullscreen 1 "L goes full screen"
key l; expect lecture 0 "L again"
expect fullscreen 0 "leaving lecture mode restores the window"
key k
if [ "$backend" = cpu ]; then
    case "$(rv notice)" in *ladder*) ok "K on the CPU says: $(rv notice)" ;; *) fail "K says '$(rv notice)'" ;; esac
else
    frames 30 && ok "K: the ladder's tour runs, and frames go on"
fi
preset=$(rv preset)
key bracketright
changed() { ! value_is preset "$preset"; }
if wait_for "] to change the preset" changed; then ok "] applies preset $(rv preset)"; fi
p1=$(rv preset)
key bracketleft
back() { ! value_is preset "$p1"; }
if wait_for "[ to change the preset" back; then ok "[ applies preset $(rv preset)"; fi
expect bodies 1024 "-n stays in force across presets"
key Home
home=$(rv camera_distance)
move 300 300
xdotool click 4 click 4 click 4
away() { ! value_is camera_distance "$home"; }
wait_for "the wheel to zoom" away
key Home; expect camera_distance "$home" "Home resets the camera"
xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=

# ---- A loaded run: its state on screen, and Save current as preset twice ----
start_app --load run.tipsy
expect bodies 1024 "the loaded run"
if is "$(rv time) > 0.5"; then ok "the loaded run goes on from t = $(rv time)"; else fail "the loaded run starts at t = $(rv time)"; fi
click Presets
save_twice "from a save" "a loaded run"
if awk '$0 == "[from a save]" { on = 1; next } /^\[/ { on = 0 } on && $0 == "load = run.tipsy" { found = 1 } END { exit !found }' presets.ini; then
    ok "presets.ini: [from a save] loads run.tipsy"
else
    fail "presets.ini: [from a save] does not name run.tipsy"
fi
move 300 300
xdotool key Escape
if wait "$pid"; then ok "Esc ends the loaded run with status 0"; else fail "the loaded run: exit status $?"; fi
pid=
finish
