#!/bin/bash
# Presets in a real window, stepped with ] and [ as a lecturer steps them (xdotool), read back
# from the program's readout (STARBURST_READOUT):
# - a preset looks the same every time it is shown: what it leaves out (colour, exposure, point
#   size, auto-rotation, steps a frame, damping) is the command line's or the scene's default,
#   whatever the preset before it set;
# - a preset whose file cannot be read is said once and passed: the run goes on as it was, and
#   the next ] reaches the preset after it;
# - every preset's name is on screen while it runs, with or without an about line;
# - L on the CPU says why lecture mode shows no kernel ladder.
# Every wait is for a condition, never a sleep.
# usage: presets_window.sh APP OUT_DIR   (under xvfb-run)
# STARBURST_TEST_BACKEND=cuda runs the same on a GPU machine (NVIDIA's GLX on Xvfb).
backend=${STARBURST_TEST_BACKEND:-cpu}
set -u
. "$(dirname "$0")/checks.sh"
. "$(dirname "$0")/window_checks.sh"
if [ $# -ne 2 ]; then
    echo "usage: presets_window.sh APP OUT_DIR" >&2
    exit 2
fi
app=$(realpath "$1") out=$2
require_window
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
readout=$PWD/readout.txt
passed=0 failed=0
pid=

# Presses a key, then waits until the readout's preset is want (the key was taken).
step_to() {
    xdotool key --clearmodifiers "$1"
    wait_for "$1 to reach preset $2" value_is preset "$2" || abort "$1 did not reach preset $2 (preset $(rv preset))"
    frames 2
}
# The readout's keys hold these values: "key=value ..."; what names the check.
holds() {
    local what=$1 pair bad=""
    shift
    for pair in "$@"; do
        [ "$(rv "${pair%%=*}")" = "${pair#*=}" ] || bad="$bad ${pair%%=*}=$(rv "${pair%%=*}") (not ${pair#*=})"
    done
    if [ -z "$bad" ]; then ok "$what: $*"; else fail "$what:$bad"; fi
}

cat >presets.ini <<'EOF'
[Speed]
scene = collision
color = speed
exposure = 2.5
point_size = 3
auto_rotate = true
steps_per_frame = 3
damping = 0.999
about = Speed caption: watch the colours
source = Nobody 2024

[Unreadable]
tipsy = no-such-file.bin

[Plain]
scene = collision
EOF
# The command line's exposure is the default a preset that leaves it out returns to.
STARBURST_READOUT=$readout "$app" --backend "$backend" -n 1024 --size 800x600 --exposure 1.5 --presets presets.ini \
    >app.log 2>&1 &
pid=$!
focus_window
frames 3
# The backend's own steps a frame (the options table: 1 on the CPU, 4 on CUDA).
spf=1
[ "$backend" = cuda ] && spf=4
defaults=(color_mode=0 exposure=1.5 point_size=1 auto_rotate=0 steps_per_frame=$spf damping=1 bodies=1024)
speed=(color_mode=1 exposure=2.5 point_size=3 auto_rotate=1 steps_per_frame=3 damping=0.999000013 bodies=1024)
holds "the start" "${defaults[@]}"

step_to bracketright 0
holds "] Speed" "${speed[@]}"
# The preset's about line is on screen (the caption joins the HUD's lines in the readout).
caption_shown() { case "$(rv hud)" in *"Speed caption: watch the colours"*) return 0 ;; esac; return 1; }
if wait_for "the caption of Speed" caption_shown; then ok "] Speed shows its caption"; else fail "] Speed: no caption in the HUD '$(rv hud)'"; fi
step_before=$(rv step)
step_to bracketright 1
case "$(rv notice)" in
"Preset 'Unreadable' not applied: "*) ok "] Unreadable is said: $(rv notice)" ;;
*) fail "] Unreadable: the notice is '$(rv notice)'" ;;
esac
frames 5
holds "the run goes on as it was" "${speed[@]}"
if [ "$(rv step)" -gt "$step_before" ]; then ok "its steps go on: $step_before, then $(rv step)"; else fail "its steps went from $step_before to $(rv step)"; fi
# R resets into the scene that runs, not into the file that failed.
xdotool key --clearmodifiers r
reset_said() { case "$(rv notice)" in "Reset: "*) return 0 ;; esac; return 1; }
if wait_for "R to reset" reset_said; then ok "R after the failure: $(rv notice)"; fi
step_to bracketright 2
holds "] Plain after Speed" "${defaults[@]}"
frames 2
if caption_shown; then fail "] Plain still shows Speed's caption"; else ok "] Plain, which has no about line, shows no caption"; fi
# Every preset's name is on screen while it runs, also one without an about line.
name_shown() { case "$(rv hud)" in *"$1"*) return 0 ;; esac; return 1; }
if wait_for "the name of Plain" name_shown Plain; then ok "] Plain shows its name: '$(rv hud)'"; else fail "] Plain: no name in the HUD '$(rv hud)'"; fi
step_to bracketright 0
holds "] Speed again" "${speed[@]}"
step_to bracketleft 2
holds "[ Plain on its second visit" "${defaults[@]}"
said=$(grep -c "Preset 'Unreadable' not applied" app.log)
if [ "$said" -eq 1 ]; then ok "the failure is said once on stderr"; else fail "the failure is said $said times on stderr"; fi

# L: lecture mode, whose kernel ladder the CPU does not have, says so as K does.
xdotool key --clearmodifiers l
wait_for "L: lecture mode" value_is lecture 1
if [ "$backend" = cpu ]; then
    case "$(rv notice)" in
    *"kernel ladder is the CUDA backend's"*) ok "L on the CPU says: $(rv notice)" ;;
    *) fail "L on the CPU: the notice is '$(rv notice)'" ;;
    esac
fi
xdotool key --clearmodifiers l
wait_for "L again" value_is lecture 0

xdotool key Escape
if wait "$pid"; then ok "Esc exits with status 0"; else fail "Esc: exit status $?"; fi
pid=
finish
