#!/bin/bash
# The halo mode by hand in a real window (xdotool), read back from the program's readout
# (STARBURST_READOUT) and from a save:
# - --halo field starts the collision with its halos as fields: every body a star but the two
#   centres, the HUD's N the stars;
# - the Scene section's "live halo" box, clicked, is taken at once and applied by R: the halos
#   become bodies; clicked again and R, fields again (each reset keeps the run it replaces);
# - SIGINT saves the run with --save: its ini holds the two halos, and --load runs it on with them;
# - a screenshot of each (P) shows the two galaxies: two clusters of lit pixels;
# - D draws each field as a ring over the paused view (the lines alone differ), and hides them.
# Every wait is for a condition, never a sleep.
# usage: halo_window.sh APP CHECKER OUT_DIR   (under xvfb-run; CHECKER: tests/render/check_image)
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
set -u
if [ $# -ne 3 ]; then
    echo "usage: halo_window.sh APP CHECKER OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") checker=$(realpath "$2") out=$3
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"
n=1024

built_with() { [ "$(rv bodies)" = "$1" ] && [ "$(rv field_halos)" = "$2" ]; }
shot_taken() { local s; s=$(rv screenshot); [ -n "$s" ] && [ "$s" != "$1" ] && [ -s "$s" ]; }
shot() {
    local before
    before=$(rv screenshot)
    key p
    wait_for "a screenshot" shot_taken "$before" && cp "$(rv screenshot)" "$1"
}

# A background job of a script starts with SIGINT ignored: env puts it back to its default.
STARBURST_READOUT=$readout env --default-signal=INT "$app" --backend "$backend" --halo field -n $n --steps-per-frame 2 --size 1000x700 \
    --save run.tipsy >app.log 2>&1 &
pid=$!
focus_window

if built_with $n 2 && value_is live_halo 0; then
    ok "--halo field: $n stars and 2 centres"
else
    fail "at the start: bodies $(rv bodies), field_halos $(rv field_halos), live_halo $(rv live_halo)"
fi

# Open the Scene section; its box comes into view.
wait_for "the Scene header to stay in place" steady Scene || abort "no Scene header standing on screen"
widget Scene
move "$CX" "$CY"
click 1
wait_for "the Scene section to open" has_widget live_halo || abort "no live halo box after opening Scene"

# On, then R: live halos, N bodies of which most are dark; off, then R: fields again.
for want in 1 0; do
    wait_for "the live halo box to stay in place" steady live_halo || abort "no live halo box standing on screen"
    widget live_halo
    move "$(calc "int($X0 + 8)")" "$CY"
    click 1
    wait_for "live_halo to read $want" value_is live_halo $want || fail "live_halo reads $(rv live_halo), not $want"
    key r
    if [ $want = 1 ]; then
        if wait_for "R to build live halos" built_with $n 0; then ok "live halo on, R: $n bodies, no field"
        else fail "live: bodies $(rv bodies), field_halos $(rv field_halos)"; fi
        shot live.png
    else
        if wait_for "R to build fields" built_with $n 2; then ok "live halo off, R: fields again"
        else fail "field: bodies $(rv bodies), field_halos $(rv field_halos)"; fi
        shot field.png
    fi
done
for f in live.png field.png; do
    if [ -s "$f" ] && "$checker" "$f"; then ok "$f shows the two galaxies"; else fail "$f: not two galaxies"; fi
done

# D draws each field as a ring about its centre: paused, a screenshot with D and one without
# differ by the rings' lines alone; D again hides them.
key space
wait_for "the pause" value_is paused 1 || fail "space: paused $(rv paused)"
shot plain.png
key d
wait_for "D to show the halos" value_is show_halo 1 || fail "D: show_halo $(rv show_halo)"
case "$(rv notice)" in *"ring holds half a halo's mass"*) ok "D says: $(rv notice)" ;; *) fail "D says '$(rv notice)'" ;; esac
shot rings.png
if [ -s rings.png ] && [ -s plain.png ] && "$checker" --lines rings.png plain.png 0.05; then
    ok "D draws the halo fields' rings"
else
    fail "D: no rings drawn over the paused view"
fi
key d
wait_for "D to hide them" value_is show_halo 0 || fail "D again: show_halo $(rv show_halo)"
key space
wait_for "the run going on" value_is paused 0 || fail "space again: paused $(rv paused)"

# SIGINT saves to --save; the save holds the fields and loads with them.
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 130 ] && [ -s run.tipsy.ini ]; then ok "SIGINT saved the run (exit 130)"; else fail "exit $rc, run.tipsy.ini: $(ls -l run.tipsy.ini 2>&1)"; fi
if grep -q '^count = 2$' run.tipsy.ini && grep -q '^halo1 = ' run.tipsy.ini; then
    ok "the save's ini holds the two halos"
else
    fail "run.tipsy.ini has no [halos] of two"
fi
"$app" --headless --backend "$backend" --load run.tipsy --frames 3 >load.log 2>&1
if [ $? = 0 ] && grep -q "$n stars and 2 halo fields" load.log; then ok "--load runs it on: $(grep -m1 ' stars' load.log)"; else fail "--load: $(tail -2 load.log)"; fi
finish
