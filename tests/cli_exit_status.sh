#!/bin/sh
# A bad value on the command line: exit status 2 and one line on stderr naming it, never a crash.
app=$1
fails=0
check() {
    out=$("$app" "$@" 2>&1 >/dev/null); rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
        echo "FAIL: starburst $* -> exit $rc, $lines line(s): $out"; fails=$((fails + 1))
    else
        echo "ok: starburst $* -> $out"
    fi
}
check -n -5
check -n 0
check -n 999999999999
check --dt 0
check --dt nan
check --softening -1
check --damping 2
check --scene nowhere
check --backend metal
check --size 12
check --frames
check --bogus
check --block-size 96
check --backend cpu --kernel mtpb
check --kernel tiled --threads-per-body 4
check --precision double --kernel symmetric
check --kernel symmetric --block-size 128
check --force barnes-hut
check --theta 0
check --theta 2
check --theta x
check --backend cpu --preset "Million-star collision"
"$app" --help >/dev/null || { echo "FAIL: --help exits $?"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "23 passed, 0 failed" || echo "$((23 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
