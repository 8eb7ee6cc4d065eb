# What the window tests share (window_controls.sh, presets_window.sh, panel_layout.sh), sourced
# after checks.sh. The test runs the program in a window on Xvfb as $pid, its output in app.log,
# and the program rewrites the readout file $readout every frame. A wait is for what the readout
# says, never for a time or a number of frames taken as a time: a machine shared with other work
# draws a frame in milliseconds or in seconds, and X delivers what a test sends when it can.
#   require_window           exits 77 (skipped) without xdotool or a display
#   enter_out DIR            require_window, then works in DIR made afresh, the readout file
#                            $readout there and no program yet ($pid empty)
#   finish / abort WHY       end the test (the program with it); abort counts WHY as a failure
#                            and shows the program's last words
#   rv KEY                   the readout's value of KEY
#   snap [FILE]              a copy of the readout as one frame wrote it, in FILE (snap.txt)
#   wait_for WHAT CMD...     polls CMD until it holds; gives up (a failure) once both 60 s and 20
#                            frames have passed without it, or no frame came for 120 s: the
#                            program had the time and the frames to answer; its end aborts
#   await WHAT CMD...        the same, its giving up not counted: 1
#   frames N                 waits until N more frames were drawn (however long they take)
#   value_is KEY VALUE       the readout's KEY holds VALUE
#   widget NAME              the box of a control: X0 Y0 X1 Y1, its middle CX CY
#   move X Y                 the mouse to window pixel X, Y; waits until the UI sees it there
#   click BUTTON             clicks (1 left, 4 and 5 the wheel) where the mouse is; waits until
#                            the program has the press and a frame after it (TAKEN, the frame
#                            that took it): what the click did shows in the readout
#   key KEY                  presses a key or chord, waits until the program has it
#   has_widget NAME          control NAME is on screen
#   sweep NAME KEY           drags slider NAME from its left end to its right in ten steps, the
#                            readout's KEY at each stop in VALUES; check_sweep NAME LO HI MID_LO
#                            MID_HI: VALUES rise, reach both ends, the middle where the rule puts it
#   open_field NAME          ctrl+click on slider NAME: its text field takes the keyboard
#   type_into NAME KEY TEXT  open_field, TEXT typed and Enter: the readout's KEY reads TEXT
#   is_close KEY V, notice_has TEXT   the readout's KEY within 1e-6 of V; the notice holds TEXT
#   calc EXPR, is EXPR       awk as a calculator and as a test
#   expect KEY VALUE WHAT    waits for the readout's KEY to hold VALUE: ok, or a failure
#   press_control NAME       clicks control NAME where it stands, the press taken
#   typed_to NAME KEY TEXT WANT SAYS   TEXT typed into NAME: KEY reads WANT, the notice SAYS
#   name_preset TEXT         TEXT typed into the preset name field, replacing what it held

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

# The program replaces the readout every frame (a rename): a copy that met a replacement is made
# again, so the copy is always one frame's whole readout.
snap() {
    local to=${1:-snap.txt}
    until cp "$readout" "$to" 2>/dev/null && [ -s "$to" ]; do
        kill -0 "$pid" 2>/dev/null || abort "the program ended while its readout was read"
        sleep 0.01
    done
}

# One wait (wait_for, await): gives up when the program has had 60 s and 20 frames, or drew
# nothing for 120 s; 2 when it ended.
waiting() {
    local start=$SECONDS f0 f last at=$SECONDS
    f0=$(rv frame) last=$f0
    until "$@"; do
        kill -0 "$pid" 2>/dev/null || return 2
        f=$(rv frame)
        [ "$f" != "$last" ] && last=$f at=$SECONDS
        if [ $((SECONDS - start)) -ge 60 ] && [ $((${f:-0} - ${f0:-0})) -ge 20 ]; then return 1; fi
        [ $((SECONDS - at)) -ge 120 ] && return 1
        sleep 0.02
    done
    return 0
}

await() {
    local what=$1
    shift
    waiting "$@"
    case $? in
    0) return 0 ;;
    1) return 1 ;;
    *) abort "the program ended while waiting for $what" ;;
    esac
}

wait_for() {
    await "$@" && return 0
    fail "timed out waiting for $1 (at frame $(rv frame))"
    return 1
}

frame_at_least() { local f; f=$(rv frame); [ -n "$f" ] && [ "$f" -ge "$1" ]; }

# N frames, however long they take: given up only when the program draws none for 120 s.
frames() {
    local now start=$SECONDS at=$SECONDS last
    now=$(rv frame) last=$now
    until frame_at_least $((now + $1)); do
        kill -0 "$pid" 2>/dev/null || abort "the program ended while waiting for $1 frames"
        local f
        f=$(rv frame)
        [ "$f" != "$last" ] && last=$f at=$SECONDS
        if [ $((SECONDS - at)) -ge 120 ]; then
            fail "no frame drawn for 120 s (frame $f)"
            return 1
        fi
        sleep 0.02
    done
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
# Control NAME's box the same in two frames (b.txt the later): a click aimed at it lands on it. A
# list that has just opened is laid out unseen in its first frame and placed in the next: a click
# at the first frame's box missed the force list's entries and closed the list.
box_of() { awk -v n="$1" '$1 == "widget" && $2 == n { print $3, $4, $5, $6; exit }' "$2"; }
steady() {
    local f was
    snap a.txt
    f=$(readout_value a.txt frame) was=$(box_of "$1" a.txt)
    [ -n "$was" ] || return 1
    await "the frame after $f" frame_at_least $((f + 1)) || return 1
    snap b.txt
    [ "$(box_of "$1" b.txt)" = "$was" ]
}
# Where the UI saw the mouse in the last frame is X, Y.
mouse_is() { awk -v a="$(rv mouse_at)" -v x="$1" -v y="$2" 'BEGIN { split(a, m, " "); exit !(m[1] == x && m[2] == y) }'; }
move() {
    xdotool mousemove --window "$wid" "$1" "$2"
    wait_for "the mouse at $1 $2 (the UI sees it at $(rv mouse_at))" mouse_is "$1" "$2"
}

count_above() { local n; n=$(rv "$1"); [ -n "$n" ] && [ "$n" -gt "$2" ]; }
# A click is taken in the frame whose readout first counts it (the press and the UI's answer to it
# in one frame); a frame later its release is taken too, and the next click is a click of its own.
click() {
    local count=mouse_presses before
    case $1 in 4 | 5) count=wheel_turns ;; esac
    before=$(rv $count)
    xdotool click "$1"
    wait_for "the click $1 to reach the program" count_above $count "$before" || return 1
    TAKEN=$(rv frame)
    frames 1
}

# Presses a key (or a chord) and waits until the program has seen it: a key that never arrives
# fails here, with where the keyboard was, rather than as a control that did not answer.
key_arrived() { local k; k=$(rv keys_pressed); [ -n "$k" ] && [ "$k" -gt "$1" ]; }
# A key goes to the window that has X's focus: the window gets it first if it lost it (a window
# that goes full screen is mapped again). A key the program never counted, given the time and the
# frames to take it, is sent again once: the readout says the first never arrived.
key() {
    local before taken try
    before=$(rv keys_pressed) taken=$(rv keys_captured)
    for try in 1 2; do
        if [ -n "${wid:-}" ] && [ "$(xdotool getwindowfocus 2>/dev/null)" != "$wid" ]; then
            timeout 10 xdotool windowfocus --sync "$wid" 2>/dev/null
        fi
        xdotool key --clearmodifiers "$1"
        # A chord's modifiers are let go for certain: one held on would turn every later key into a
        # chord the program ignores.
        case "$1" in *+*) xdotool keyup ctrl shift alt ;; esac
        await "the key $1" key_arrived "$before" && break
        echo "the key $1 did not reach the program: window focused $(rv focused), X focus on $(xdotool getwindowfocus 2>&1) (the program's is ${wid:-unknown})"
        if [ $try -eq 2 ]; then
            fail "the key $1 never reached the program"
            return 1
        fi
    done
    frames 3
    if [ "$(rv keys_captured)" != "$taken" ]; then
        fail "the panel took the key $1 meant for the program (a control held the keyboard)"
    fi
}

# awk as a calculator and a test: calc EXPR prints it, is EXPR exits 0 when it holds.
calc() { awk "BEGIN { printf \"%.9g\", $1 }"; }
is() { awk "BEGIN { exit !($1) }"; }

# x of fraction f along the box of the control last found.
at() { calc "int($X0 + 1 + ($X1 - $X0 - 2) * $1)"; }
has_widget() { awk -v n="$1" '$1 == "widget" && $2 == n { found = 1 } END { exit !found }' "$readout"; }

# Drags a slider from its left end to its right end in steps, recording the value the
# simulation received (readout key) at each stop into VALUES.
sweep() {
    local name=$1 key=$2 f
    widget "$name"
    VALUES=()
    move "$(at 0)" "$CY"
    frames 2
    xdotool mousedown 1
    frames 2
    for f in 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1; do
        move "$(at "$f")" "$CY"
        # The UI takes the drag in the frame that sees the mouse there; the run applies it at the
        # start of the next, whose readout holds it: one frame more to spare.
        frames 2
        VALUES+=("$(rv "$key")")
    done
    xdotool mouseup 1
    frames 2
}
# Every value of a sweep rises, the ends are the range's, the middle is where the mapping puts it.
check_sweep() {
    local name=$1 lo=$2 hi=$3 mid_lo=$4 mid_hi=$5 i
    local n=${#VALUES[@]} rising=1
    for ((i = 1; i < n; i++)); do is "${VALUES[i]} > ${VALUES[i - 1]}" || rising=0; done
    if [ $rising -eq 1 ]; then ok "$name rises across its range: ${VALUES[*]}"; else fail "$name does not rise at every step: ${VALUES[*]}"; fi
    if is "${VALUES[0]} <= ($lo) + 0.02 * (($lo) < 0 ? -($lo) : ($lo)) && ${VALUES[n - 1]} >= ($hi) - 0.02 * (($hi) < 0 ? -($hi) : ($hi)) && ${VALUES[n - 1]} <= ($hi)"; then
        ok "$name reaches both ends: ${VALUES[0]} .. ${VALUES[n - 1]}"
    else
        fail "$name ends at ${VALUES[0]} .. ${VALUES[n - 1]}, not $lo .. $hi"
    fi
    if is "${VALUES[5]} >= $mid_lo && ${VALUES[5]} <= $mid_hi"; then
        ok "$name at the middle of its track: ${VALUES[5]}"
    else
        fail "$name at the middle of its track is ${VALUES[5]}, not in $mid_lo .. $mid_hi"
    fi
}
# ctrl+click on a slider, then a typed value and Enter: the simulation receives it as typed.
open_field() {
    local name=$1
    widget "$name"
    move "$CX" "$CY"
    frames 2
    # Frames between: ImGui reads ctrl once a frame, as a held key is.
    xdotool keydown ctrl
    frames 2
    xdotool click 1
    frames 2
    xdotool keyup ctrl
    wait_for "$name's text field to take the keyboard" value_is keyboard_captured 1
}
type_into() {
    local name=$1 key=$2 text=$3
    open_field "$name"
    xdotool type -- "$text"
    xdotool key Return
    # Enter closes the field: only then do keys reach the program again.
    wait_for "Enter to close $name's text field" value_is keyboard_captured 0
    if wait_for "$key = $text" is_close "$key" "$text"; then ok "$name typed: $text"; else fail "$name typed $text, reads $(rv "$key")"; fi
}
notice_has() { case "$(rv notice)" in *"$1"*) return 0 ;; esac; return 1; }
is_close() { local v; v=$(rv "$1"); [ -n "$v" ] && is "($v - ($2)) * ($v - ($2)) <= 1e-12 * ($2) * ($2) + 1e-18"; }

# Waits until the readout's key holds value.
expect() {
    local key=$1 want=$2 what=$3
    if wait_for "$key = $want" value_is "$key" "$want"; then ok "$what: $key = $want"; else fail "$what: $key is '$(rv "$key")', not $want"; fi
}

# Clicks control NAME: where it stays, the mouse over it (the UI sees it there), the press taken
# (the readout counts it, and what the click did shows from that frame), a frame for its release.
press_control() {
    local before
    wait_for "$1 to stay in place" steady "$1" || abort "no control '$1' standing on screen"
    widget "$1"
    move "$CX" "$CY"
    before=$(rv mouse_presses)
    xdotool click 1
    wait_for "the click on $1 to reach the program" count_above mouse_presses "$before"
    frames 1
}
# Types text into a field; the readout's key then reads want, and the notice says what was done.
typed_to() {
    local name=$1 key=$2 text=$3 want=$4 says=$5
    open_field "$name"
    xdotool type -- "$text"
    xdotool key Return
    wait_for "Enter to close $name's text field" value_is keyboard_captured 0
    if wait_for "$key = $want" is_close "$key" "$want"; then ok "$name typed $text: $key = $want"; else fail "$name typed $text: $key reads $(rv "$key"), not $want"; fi
    if wait_for "the notice: $says" notice_has "$says"; then ok "$name typed $text says: $(rv notice)"; else fail "$name typed $text says '$(rv notice)', not '$says'"; fi
}
# The preset name field: its text replaced by $1, and Enter.
name_preset() {
    widget name
    move "$CX" "$CY"
    frames 2
    xdotool click 1
    frames 3
    xdotool keydown ctrl key a
    frames 2
    xdotool keyup ctrl
    frames 2
    xdotool type "$1"
    xdotool key Return
    wait_for "Enter to close the name field" value_is keyboard_captured 0
    frames 3
}
