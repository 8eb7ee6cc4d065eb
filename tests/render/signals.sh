#!/bin/bash
# SIGINT, SIGTERM and SIGHUP end a run the way its last frame does: the program stops at a frame
# boundary, saves where --save asks (the save loads, and goes on bit for bit as a run that was
# never stopped), writes its screenshot and recording, says one line and dies of the signal
# (exit status 128 + its number). A second SIGINT ends it at once; a signal ignored at the start
# (nohup) stays ignored. headless: CPU backend through EGL; window: a real window on Xvfb, running
# and paused. Every wait is for a condition (a readout, a pending signal taken), never a sleep.
# usage: signals.sh headless|window APP OUT_DIR CHECK_IMAGE   (window: under xvfb-run)
set -u
. "$(dirname "$0")/checks.sh"
if [ $# -ne 4 ]; then
    echo "usage: signals.sh headless|window APP OUT_DIR CHECK_IMAGE" >&2
    exit 2
fi
mode=$1 app=$2 out=$3 checker=$4
case $mode in
headless) display=--headless ;;
window)
    display=
    if [ -z "${DISPLAY:-}" ]; then
        echo "skipped: no display: run under xvfb-run"
        exit 77
    fi
    ;;
*)
    echo "signals.sh: unknown mode '$mode': use headless or window" >&2
    exit 2
    ;;
esac
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
passed=0 failed=0
tpid= pid=

finish() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    [ -n "$tpid" ] && wait "$tpid" 2>/dev/null
    report
    exit $?
}
# A test stopped from outside takes its program with it.
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; exit 1' INT TERM HUP
abort() {
    fail "$*"
    [ -n "${name:-}" ] && [ -f "$name.log" ] && { echo "--- the program's output:"; tr '\r' '\n' <"$name.log" | tail -n 20; }
    finish
}

signum() { kill -l "$1"; }
# The readout's value of key.
rv() { awk -v k="$1" '$1 == k { print $2; exit }' "$name.readout" 2>/dev/null; }
# Polls until "$@" succeeds, or 60 s pass; the program must live.
wait_for() {
    local what=$1 rc
    shift
    wait_until "$tpid" 60 "$@"
    rc=$?
    [ $rc -eq 2 ] && abort "$name: the program ended while waiting for $what"
    [ $rc -eq 1 ] && abort "$name: timed out waiting for $what"
    return $rc
}
frame_at_least() { local f; f=$(rv frame); [ -n "$f" ] && [ "$f" -ge "$1" ]; }
child_known() { pid=$(pgrep -P "$tpid" | head -n 1); [ -n "$pid" ]; }
# The signal is no longer pending in any thread of the program: its handler has taken it.
taken() {
    local bit=$(($(signum "$1") - 1)) mask
    for mask in $(awk '$1 == "ShdPnd:" || $1 == "SigPnd:" { print $2 }' /proc/"$pid"/task/*/status 2>/dev/null); do
        [ $(((0x$mask >> bit) & 1)) -eq 0 ] || return 1
    done
}

# Starts the program in the background as run NAME with these options, under a time limit, and
# waits until it has drawn FRAMES frames. Its output goes to NAME.log, or to $logto. A background job of a script starts with SIGINT
# ignored, which the program would keep: env puts the three signals back to their defaults
# (IGNORE names one to leave ignored, as nohup does).
start() {
    name=$1 frames=$2 ignore=$3
    shift 3
    local defaults=INT,TERM,HUP
    [ -n "$ignore" ] && defaults=${defaults/$ignore/} && defaults=${defaults//,,/,} && defaults=${defaults#,} && defaults=${defaults%,}
    rm -f "$name.readout" "$name.log"
    STARBURST_READOUT=$PWD/$name.readout timeout -s KILL 300 env ${ignore:+--ignore-signal=$ignore} \
        --default-signal="$defaults" "$app" $display "$@" >"${logto:-$name.log}" 2>&1 &
    tpid=$!
    wait_for "its process" child_known
    wait_for "$frames frames" frame_at_least "$frames"
}
# Sends SIG and waits, 60 s at most, for the program's end; sets rc.
# (The shell's own note of a job ended by a signal, "Hangup", is not shown.)
stop() {
    kill -"$1" "$pid"
    {
        local deadline=$((SECONDS + 60))
        while kill -0 "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.02; done
        kill -0 "$pid" && { fail "$name: still running 60 s after SIG$1"; kill -KILL "$pid"; }
        wait "$tpid"
        rc=$?
    } 2>/dev/null
    tpid= pid=
}
said() { tr '\r' '\n' <"$name.log" | grep -qF "$1"; }
expect_end() {
    local sig=$1 line=$2
    if [ "$rc" -eq $((128 + $(signum "$sig"))) ]; then ok "$name: SIG$sig ends it with status $rc"; else fail "$name: SIG$sig ends it with status $rc, not $((128 + $(signum "$sig")))"; fi
    if said "$line"; then ok "$name: says '$line'"; else fail "$name: does not say '$line'"; tr '\r' '\n' <"$name.log" | tail -n 5; fi
}

sim=(--scene collision -n 512 --seed 4 --steps-per-frame 3 --damping 0.9999)
run=(--backend cpu "${sim[@]}" --size 320x240)
quick=(--headless --backend cpu --size 64x64 --quiet)
# The save of run NAME loads, and 10 frames later equals a run that went straight to that step.
expect_resumes() {
    local s
    s=$(awk '$1 == "step" { print $3 }' "$name.tipsy.ini" 2>/dev/null)
    if [ -z "$s" ] || [ "$s" -le 0 ] || [ $((s % 3)) -ne 0 ]; then
        fail "$name: the save holds no step a whole number of frames in: '$s'"
        return
    fi
    if ! timeout 300 "$app" "${quick[@]}" --load "$name.tipsy" --frames 10 --save "$name-resumed.tipsy"; then
        fail "$name: the save does not load"
        return
    fi
    timeout 300 "$app" "${quick[@]}" "${sim[@]}" --frames $((s / 3 + 10)) --save "$name-whole.tipsy" ||
        { fail "$name: the uninterrupted run of $((s + 30)) steps"; return; }
    # Bytes 0-7 hold the time, summed in another order; the bodies follow.
    if cmp -s -i 8 "$name-resumed.tipsy" "$name-whole.tipsy"; then
        ok "$name: saved at step $s, loaded and run 30 steps: equal to an uninterrupted run of $((s + 30))"
    else
        fail "$name: the resumed run differs from the uninterrupted one: $(cmp -i 8 "$name-resumed.tipsy" "$name-whole.tipsy")"
    fi
}

if [ "$mode" = headless ]; then
    # Each signal, with --save: saved, and the run goes on from the save bit for bit. SIGINT
    # also writes its screenshot, SIGTERM finishes its recording.
    for sig in INT TERM HUP; do
        extra=()
        [ $sig = INT ] && extra=(--screenshot "$sig.png")
        [ $sig = TERM ] && extra=(--record "rec")
        start "$sig" 5 "" "${run[@]}" --frames 1000000 --save "$sig.tipsy" "${extra[@]}"
        stop $sig
        expect_end $sig "interrupted by SIG$sig: saved $sig.tipsy"
        expect_resumes
    done
    if "$checker" INT.png --clusters 2 >/dev/null; then ok "INT: the screenshot shows the two galaxies"; else fail "INT: no screenshot of the scene: $("$checker" INT.png --clusters 2 2>&1)"; fi
    last=$(ls rec | tail -n 1)
    if [ -n "$last" ] && "$checker" "rec/$last" --clusters 2 >/dev/null; then ok "TERM: the recording's last frame ($last) is whole"; else fail "TERM: the recording ends without a whole frame: '$last'"; fi

    # Each signal without --save: the same end, nothing written.
    for sig in INT TERM HUP; do
        start "nosave-$sig" 3 "" "${run[@]}" --frames 1000000
        stop $sig
        expect_end $sig "interrupted by SIG$sig: stopping"
    done
    if ls ./*.tipsy 2>/dev/null | grep -q nosave; then fail "a run without --save wrote a save"; else ok "runs without --save wrote nothing"; fi

    # A second SIGINT, while the first waits for a frame that takes seconds, ends it at once:
    # no save, and one line that says so.
    start second 0 "" --backend cpu -n 2048 --steps-per-frame 400 --size 64x64 --frames 1000000 --save second.tipsy
    kill -INT "$pid"
    wait_for "the first SIGINT to be taken" taken INT
    stop INT
    if [ "$rc" -eq 130 ] && [ ! -e second.tipsy ] && ! said "interrupted" &&
        said "a second SIGINT: stopped at once, nothing saved"; then
        ok "second: a second SIGINT ends it at once (status 130, nothing saved, and it says so)"
    else
        fail "second: after a second SIGINT: status $rc, save $(ls second.tipsy 2>/dev/null || echo none)"
        tr '\r' '\n' <second.log | tail -n 5
    fi

    # SIGHUP ignored at the start (nohup): the run goes on; SIGTERM then ends it.
    start nohup 3 HUP "${run[@]}" --frames 1000000 --save nohup.tipsy
    kill -HUP "$pid"
    now=$(rv frame)
    wait_for "frames after SIGHUP" frame_at_least $((now + 3))
    ok "nohup: an ignored SIGHUP leaves the run going"
    stop TERM
    expect_end TERM "interrupted by SIGTERM: saved nohup.tipsy"
else
    # A window, running: SIGINT saves, writes the screenshot of the last frame, and the save
    # goes on bit for bit.
    start window 5 "" "${run[@]}" --save window.tipsy --screenshot window.png
    stop INT
    expect_end INT "interrupted by SIGINT: saved window.tipsy"
    expect_resumes
    if "$checker" window.png --clusters 2 >/dev/null; then ok "window: the screenshot shows the two galaxies"; else fail "window: no screenshot of the scene"; fi

    # Output into a pipe whose reader is gone by the time of the signal (Ctrl+C ends a `| tee`
    # too): the run is still saved and ends by SIGINT, not by SIGPIPE.
    mkfifo pipe.fifo || abort "mkfifo"
    timeout 300 cat pipe.fifo >pipe.log &
    reader=$!
    logto=pipe.fifo start pipe 3 "" "${run[@]}" --save pipe.tipsy
    kill "$reader" && wait "$reader" 2>/dev/null
    stop INT
    if [ "$rc" -eq 130 ]; then ok "pipe: with its reader gone, SIGINT ends it with status 130"; else fail "pipe: with its reader gone, SIGINT ends it with status $rc, not 130"; fi
    expect_resumes

    # A window, paused (space): the loop still ends on SIGTERM, with the paused step saved.
    if command -v xdotool >/dev/null 2>&1; then
        start paused 3 "" "${run[@]}" --save paused.tipsy
        wid=$(xdotool search --sync --onlyvisible --name '^Starburst$' | head -n 1)
        [ -n "$wid" ] || abort "paused: no window named Starburst"
        xdotool windowfocus --sync "$wid" 2>/dev/null
        paused_is() { [ "$(rv paused)" = 1 ]; }
        tries=0
        until paused_is; do
            tries=$((tries + 1))
            [ $tries -le 10 ] || abort "paused: space does not pause the run"
            xdotool key --window "$wid" --clearmodifiers space
            now=$(rv frame)
            wait_for "frames after space" frame_at_least $((now + 3))
        done
        step=$(rv step)
        now=$(rv frame)
        wait_for "frames while paused" frame_at_least $((now + 3))
        stop TERM
        expect_end TERM "interrupted by SIGTERM: saved paused.tipsy"
        if grep -q "^step = $step$" paused.tipsy.ini; then ok "paused: saved at the paused step $step"; else fail "paused: saved at $(grep '^step' paused.tipsy.ini), not step $step"; fi
    else
        echo "paused window: skipped (xdotool not found)"
    fi
fi
finish
