# The checks the render tests share, sourced by them: counting checks, reading the readout file the
# program writes (src/app/readout.c), and waiting on a condition, never for a fixed time.
#   ok WHAT / fail WHAT      count a check and say it
#   report                   "N passed, M failed"; true when none failed and some passed
#   readout_value FILE KEY   the value after KEY in the readout FILE (the rest of its line)
#   wait_until PID SECONDS CMD...
#                            runs CMD until it succeeds: 0; 1 when SECONDS pass first; 2 when
#                            process PID ends first (the caller says what each means)
passed=0 failed=0

fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

ok() {
    echo "ok: $*"
    passed=$((passed + 1))
}

report() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

readout_value() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1" 2>/dev/null; }

wait_until() {
    local watched=$1 seconds=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        kill -0 "$watched" 2>/dev/null || return 2
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.02
    done
    return 0
}
