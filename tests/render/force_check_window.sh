#!/bin/bash
# The force checks in a real window (xdotool), read back from the program's readout
# (STARBURST_READOUT), on the default collision, whose halos are fields, with the direct sum on the
# CPU: the Diagnostics section opened by a click on its header; its "check forces" button clicked
# twice, each click one check (the readout counts them, the console says each), each the direct
# sum's float error against the stars' f64 sum (median under 1e-5: the fields' pull, which the
# accelerations hold, is taken out, and the halos' centres are no stars); and the live force
# error, measured while the section is open, the same; P's screenshot of the scene kept to look at.
# Esc then exits with status 0.
# Every wait is for a condition, never a sleep.
# usage: force_check_window.sh APP OUT_DIR   (under xvfb-run)
set -u
if [ $# -ne 2 ]; then
    echo "usage: force_check_window.sh APP OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2
. "$(dirname "$(realpath "$0")")/checks.sh"
. "$(dirname "$(realpath "$0")")/window_checks.sh"
enter_out "$out"

# A float error: the value of KEY is a number from 0 to below LIMIT.
below() { awk -v v="$(rv "$1")" -v t="$2" 'BEGIN { exit !(v ~ /^[0-9.eE+-]+$/ && v + 0 >= 0 && v + 0 < t) }'; }

# P's screenshot, copied to $1 once the readout names a new one.
shot_taken() { [ -n "$(rv screenshot)" ] && [ "$(rv screenshot)" != "$1" ] && [ -s "$(rv screenshot)" ]; }
shot() {
    local before
    before=$(rv screenshot)
    key p
    wait_for "a screenshot" shot_taken "$before" && cp "$(rv screenshot)" "$1"
}

STARBURST_READOUT=$readout "$app" --backend cpu -n 4096 --force direct --size 1000x700 >app.log 2>&1 &
pid=$!
focus_window

if value_is field_halos 2; then ok "the collision's halos are fields"; else fail "field_halos is '$(rv field_halos)'"; fi

# The Diagnostics header: down and up in frames of their own (ImGui takes both in one frame as none).
wait_for "the Diagnostics header to stay in place" steady Diagnostics || abort "no Diagnostics section in the readout"
widget Diagnostics
move "$CX" "$CY"
xdotool mousedown 1
frames 2
xdotool mouseup 1
wait_for "Diagnostics to open" has_widget check_forces && ok "Diagnostics opened: its force check is drawn"

# The button lies below the window's edge until the panel is scrolled: the wheel over the panel,
# a turn at a time (each taken: the readout counts it), until its middle is inside the window.
in_window() {
    local line H
    line=$(awk '$1 == "widget" && $2 == "check_forces" { print int(($4 + $6) / 2); exit }' "$readout")
    H=$(rv size | awk '{ print $2 }')
    [ -n "$line" ] && [ "$line" -gt 0 ] && [ "$line" -lt $((H - 20)) ]
}
turns=0
until in_window; do
    turns=$((turns + 1))
    [ $turns -le 40 ] || abort "check_forces not scrolled into the window in 40 turns of the wheel"
    widget panel
    move "$CX" "$(calc "int($Y0 + 40)")"
    click 5 || abort "the wheel did not reach the program"
    frames 2
done
ok "the force check scrolled into view ($turns turns of the wheel)"

for k in 1 2; do
    press_control check_forces
    if wait_for "force check $k" value_is force_checks "$k"; then
        median=$(rv force_check_median) p99=$(rv force_check_p99) samples=$(rv force_check_samples)
        if below force_check_median 1e-5 && below force_check_p99 1e-4 && [ "$samples" = 2048 ]; then
            ok "click $k: one check of $samples stars, median $median, 99% $p99 (the direct sum's float error)"
        else
            fail "click $k: median $median, 99% $p99 over $samples stars"
        fi
    fi
done
lines=$(grep -c "force check of" app.log)
if [ "$lines" = 2 ]; then ok "the console says each check"; else fail "$lines console lines of force checks, not 2"; fi

if wait_for "the live force error" value_is live_error_valid 1; then
    median=$(rv live_error_median) p99=$(rv live_error_p99)
    if below live_error_median 1e-5 && below live_error_p99 1e-4 && value_is live_error_samples 256; then
        ok "the live error of $(rv live_error_what): median $median, 99% $p99 over 256 stars"
    else
        fail "the live error of $(rv live_error_what): median $median, 99% $p99 over $(rv live_error_samples)"
    fi
fi

shot scene.png && ok "P's screenshot of the scene the checks measured (scene.png)"
xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
finish
