# What the window tests share (window_controls.sh, presets_window.sh, panel_layout.sh), sourced
# after checks.sh. The test runs the program in a window on Xvfb as $pid, its output in app.log,
# and the program rewrites the readout file $readout every frame.
#   require_window           exits 77 (skipped) without xdotool or a display
#   enter_out DIR            require_window, then works in DIR made afresh, the readout file
#                            $readout there and no program yet ($pid empty)
#   finish / abort WHY       end the test (the program with it); abort counts WHY as a failure
#                            and shows the program's last words
#   rv KEY                   the readout's value of KEY
#   wait_for WHAT CMD...     polls CMD up to 60 s (a loaded machine draws slowly); a timeout is a
#                            failure, the program's end aborts
#   frames N                 waits until N more frames were drawn: the program has seen what was
#                            sent before
#   value_is KEY VALUE       the readout's KEY holds VALUE
#   widget NAME              the box of a control: X0 Y0 X1 Y1, its middle CX CY
#   move X Y                 the mouse to window pixel X, Y
#   key KEY                  presses a key or chord, waits until the program has it

require_window() {
    if ! command -v xdotool >/dev/null 2>&1; then
        echo "skipped: xdotool not found (apt-get install xdotool)"
        exit 77
    fi
    if [ -z "${DISPLAY:-}" ]; then
        echo "skipped: no display: run under xvfb-run"
        exit 77
    fi
}

enter_out() {
    require_window
    rm -rf "$1" && mkdir -p "$1" && cd "$1" || exit 1
    readout=$PWD/readout.txt
    pid=
}

finish() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    report
    exit $?
}

abort() {
    fail "$*"
    echo "--- the program's output:"
    tail -n 20 app.log
    finish
}

rv() { readout_value "$readout" "$1"; }

wait_for() {
    local what=$1
    shift
    wait_until "$pid" 60 "$@"
    case $? in
    0) return 0 ;;
    1)
        fail "timed out waiting for $what"
        return 1
        ;;
    *) abort "the program ended while waiting for $what" ;;
    esac
}

frame_at_least() { local f; f=$(rv frame); [ -n "$f" ] && [ "$f" -ge "$1" ]; }

frames() {
    local now
    now=$(rv frame)
    wait_for "$1 frames" frame_at_least $((now + $1))
}

value_is() { [ "$(rv "$1")" = "$2" ]; }

# Waits for the program's first frame and its window, and gives the window the keyboard (wid).
focus_window() {
    wait_for "the first frame" test -s "$readout" || abort "no readout from the program"
    wid=$(xdotool search --sync --onlyvisible --name '^Starburst$' | head -n 1)
    [ -n "$wid" ] || abort "no window named Starburst"
    xdotool windowfocus --sync "$wid" 2>/dev/null
}

# The box of a control: sets X0 Y0 X1 Y1 and CX CY (its middle).
widget() {
    local line
    line=$(awk -v n="$1" '$1 == "widget" && $2 == n { print $3, $4, $5, $6; exit }' "$readout")
    [ -n "$line" ] || abort "no control '$1' on screen"
    read -r X0 Y0 X1 Y1 <<<"$line"
    CX=$(calc "int(($X0 + $X1) / 2)")
    CY=$(calc "int(($Y0 + $Y1) / 2)")
}
move() { xdotool mousemove --window "$wid" "$1" "$2"; }

# Presses a key (or a chord) and waits until the program has seen it: a key that never arrives
# fails here, with where the keyboard was, rather than as a control that did not answer.
key_arrived() { local k; k=$(rv keys_pressed); [ -n "$k" ] && [ "$k" -gt "$1" ]; }
key() {
    local before taken
    before=$(rv keys_pressed) taken=$(rv keys_captured)
    xdotool key --clearmodifiers "$1"
    # A chord's modifiers are let go for certain: one held on would turn every later key into a
    # chord the program ignores.
    case "$1" in *+*) xdotool keyup ctrl shift alt ;; esac
    if ! wait_for "the key $1 to reach the program" key_arrived "$before"; then
        echo "  window focused $(rv focused), X focus on $(xdotool getwindowfocus 2>&1) (the program's is $wid)"
    fi
    frames 3
    if [ "$(rv keys_captured)" != "$taken" ]; then
        fail "the panel took the key $1 meant for the program (a control held the keyboard)"
    fi
}
