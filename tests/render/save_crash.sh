#!/bin/sh
# A save killed at any point loads as the old save or the new one, each with its own settings.
# Over a good save made with other settings, a save is killed (strace injects SIGKILL) at the
# K-th write, fsync, link, rename and unlink it makes, for every K until the save completes;
# after each, --load must report the bodies, dt, softening and steps per frame of the old save
# or of the new one, never a mix and never an error, and a following save must leave no .tmp- or
# .old- file beside the pair, which then loads as it is.
# usage: save_crash.sh APP OUT_DIR
set -u
app=$1 out=$2
if ! command -v strace >/dev/null 2>&1; then
    echo "save_crash.sh: strace not found (apt-get install strace): skipped"
    exit 77
fi
if ! strace -f -o /dev/null true 2>/dev/null; then
    echo "save_crash.sh: strace cannot trace here (ptrace not allowed): skipped"
    exit 77
fi
# Mesa's shader cache would add writes and renames of its own to count.
export MESA_SHADER_CACHE_DISABLE=true
rm -rf "$out" && mkdir -p "$out" || exit 1
common="--headless --backend cpu --size 32x32"
old="-n 512 --dt 0.005 --softening 0.03 --steps-per-frame 2"
new="-n 1024 --dt 0.02 --softening 0.08 --steps-per-frame 3"
fails=0 runs=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# What a run loaded from $1 says of itself: "bodies dt softening steps-per-frame" (the log in $2;
# more options after them).
loads_as() {
    load=$1 log=$2
    shift 2
    "$app" $common --frames 1 --load "$load" "$@" >"$log" 2>&1 || { echo "exit $?"; return; }
    # The physical values in brackets beside dt and softening ("0.02 (0.17 Myr)") are left out.
    sed -n 's/ ([^)]*)//g; s/^starburst: \([0-9]*\) \(bodies\|stars and [0-9]* halo fields\) on .*, dt \([^,]*\), softening \([^,]*\), \([0-9]*\) steps* a frame$/\1 \3 \4 \5/p' "$log"
}

"$app" $common $old --frames 1 --quiet --save "$out/old.tipsy" || { echo "FAIL: the first save"; exit 1; }
"$app" $common $new --frames 5 --quiet --save "$out/new.tipsy" || { echo "FAIL: the second save"; exit 1; }
old_is=$(loads_as "$out/old.tipsy" "$out/old.log")
new_is=$(loads_as "$out/new.tipsy" "$out/new.log")
echo "old save loads as: $old_is; new save: $new_is"
case "$old_is" in "512 0.005 0.03 2") ;; *) echo "FAIL: the old save loads as '$old_is'"; exit 1 ;; esac
case "$new_is" in "1024 0.02 0.08 3") ;; *) echo "FAIL: the new save loads as '$new_is'"; exit 1 ;; esac

for call in write fsync link rename unlink; do
    # The call as libc makes it on x86-64, or on the architectures without the older calls.
    case $call in
    link | unlink) calls="/^($call|${call}at)\$" ;;
    rename) calls='/^(rename|renameat|renameat2)$' ;;
    *) calls=$call ;;
    esac
    k=1
    while :; do
        d="$out/$call-$k"
        mkdir -p "$d" && cp "$out/old.tipsy" "$d/A.tipsy" && cp "$out/old.tipsy.ini" "$d/A.tipsy.ini" || exit 1
        strace -f -o /dev/null -e inject="$calls:signal=SIGKILL:when=$k" \
            "$app" $common $new --frames 5 --quiet --save "$d/A.tipsy" >"$d/save.log" 2>&1
        rc=$?
        runs=$((runs + 1))
        what="killed at $call #$k"
        [ $rc -eq 0 ] && what="$call: the save completed ($((k - 1)) of them)"
        if [ $rc -ne 0 ] && [ $rc -ne 137 ]; then fail "$what: the save exited $rc: $(cat "$d/save.log")"; fi
        # Loaded, and saved again at once: the following save.
        is=$(loads_as "$d/A.tipsy" "$d/load.log" --save "$d/A.tipsy")
        recovered=$(grep -c "recovered from an interrupted save" "$d/load.log")
        told=""
        [ "$recovered" -gt 0 ] && told=", and says it recovered it"
        if [ "$is" = "$old_is" ] && [ $rc -ne 0 ]; then
            echo "ok: $what: loads the old save$told"
        elif [ "$is" = "$new_is" ]; then
            echo "ok: $what: loads the new save$told"
        else
            fail "$what: loads as '$is': $(cat "$d/load.log")"
        fi
        [ "$recovered" -le 1 ] || fail "$what: the recovery is told $recovered times"
        # The following save tidies up, and its pair loads as it is.
        left=$(ls -A "$d" | grep -E '\.(tmp|old)-' | tr '\n' ' ')
        [ -z "$left" ] || fail "$what: the following save leaves $left"
        again=$(loads_as "$d/A.tipsy" "$d/load-again.log")
        [ "$again" = "$is" ] || fail "$what: after the following save it loads as '$again', not '$is'"
        ! grep -q "recovered" "$d/load-again.log" || fail "$what: the following save still needs recovery"
        [ $rc -eq 0 ] && break
        k=$((k + 1))
        [ $k -le 100 ] || { fail "$call: the save still not complete after 100"; break; }
    done
done
[ $fails -eq 0 ] && echo "$runs saves killed or completed, all load; 0 failed" || echo "$fails failed of $runs"
[ $fails -eq 0 ]
