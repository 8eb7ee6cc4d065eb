#!/bin/bash
# No two files of src/app call each other: a file's calls go down to the files it stands on, never
# back up (DESIGN.md, "arrows point down"). Read from the library's objects: a function one object
# calls (nm: undefined) and another defines is an arrow between them; an arrow both ways fails.
# usage: app_calls.sh LIBRARY.a SOURCE_DIR
lib=$1 src=$2
command -v nm >/dev/null || { echo "skipped: no nm"; exit 77; }
apps=$(cd "$src/src/app" && ls *.c | sed 's/$/.o/')
tmp=$(mktemp -d /tmp/starburst-calls-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# "member symbol" for what each app object defines, and for what it calls.
nm -A --defined-only -g "$lib" 2>/dev/null | awk '$(NF-1) ~ /^[TDBRW]$/ { n = split($1, a, ":"); print a[n-1], $NF }' >"$tmp/defined"
nm -A -u "$lib" 2>/dev/null | awk '{ n = split($1, a, ":"); print a[n-1], $NF }' >"$tmp/called"
grep -qx "observe.c.o" <<<"$apps" || { echo "FAIL: no src/app objects named as expected in $lib"; exit 1; }
awk -v apps="$(tr '\n' ' ' <<<"$apps")" '
    BEGIN { split(apps, a, " "); for (i in a) app[a[i]] = 1 }
    NR == FNR { if ($1 in app) by[$2] = $1; next }
    ($1 in app) && ($2 in by) && by[$2] != $1 { arrow[$1 " " by[$2]] = arrow[$1 " " by[$2]] " " $2 }
    END {
        bad = 0
        for (k in arrow) {
            split(k, f, " ")
            back = f[2] " " f[1]
            if ((back in arrow) && f[1] < f[2]) {
                print "FAIL: " f[1] " and " f[2] " call each other: " f[1] " ->" arrow[k] "; " f[2] " ->" arrow[back]
                bad++
            }
        }
        n = 0; for (k in arrow) n++
        if (!bad) print "ok: " n " arrows between the files of src/app, none both ways"
        exit bad > 0
    }' "$tmp/defined" "$tmp/called"
