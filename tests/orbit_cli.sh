#!/bin/sh
# starburst-orbit as the galaxies' calibration runs it (docs/GALAXIES.md): the default collision's
# first pericentre where Kepler's orbit and the earlier runs put it, a preset's encounter built with
# the friction its pericentre takes, refusals in a line, and samples kept when a run is stopped.
# usage: orbit_cli.sh ORBIT SOURCE_DIR
orbit=$1 src=$2
fails=0 passed=0
work=$(mktemp -d /tmp/starburst-orbit-XXXXXX) || exit 1
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
pid=
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The default collision, fields, 2,048 stars on the CPU: Kepler's first pericentre is at t 27.4,
# 3 scale lengths apart; the pair's extended mass and friction bring it a little later and wider.
if timeout 300 "$orbit" -n 2048 --time 40 --every 10 >"$work/default.txt" 2>&1; then
    line=$(grep "^# pericentre 1:" "$work/default.txt")
    t=$(echo "$line" | sed 's/.*: t \([0-9.]*\) .*/\1/')
    r=$(echo "$line" | sed 's/.*separation \([0-9.]*\) .*/\1/')
    if grep -q "ln_lambda 0.8$" "$work/default.txt" && [ -n "$t" ] &&
        awk -v t="$t" -v r="$r" 'BEGIN { exit !(t > 24 && t < 32 && r > 2.5 && r < 5) }'; then
        ok "default collision: first pericentre at t $t, $r apart, ln_lambda 0.8"
    else
        fail "default collision: '$line' ($(head -1 "$work/default.txt"))"
    fi
else
    fail "default collision: exit $? ($(tail -1 "$work/default.txt"))"
fi

# A preset's encounter: the Mice pass at 2 scale lengths, the Antennae at 4.8; the friction's
# Coulomb logarithm follows the pericentre.
for case in "The Mice (NGC 4676)|0.885" "The Antennae (NGC 4038/9)|0.647"; do
    name=${case%|*} want=${case#*|}
    head=$("$orbit" --presets "$src/assets/presets.ini" --preset "$name" -n 1024 --time 0.1 2>&1 | head -1)
    if echo "$head" | grep -q "ln_lambda $want$"; then ok "$name: $head"; else fail "$name: '$head' (wanted ln_lambda $want)"; fi
done

# Refusals: a line naming the problem, a non-zero exit.
expect() {
    code=$1 text=$2
    shift 2
    out=$("$orbit" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne "$code" ] || ! printf '%s' "$out" | head -1 | grep -qF -- "$text"; then
        fail "starburst-orbit $* -> exit $rc: $out (wanted exit $code, '$text')"
    else
        ok "starburst-orbit $* -> $(printf '%s' "$out" | head -1)"
    fi
}
expect 2 "--presets FILE and --preset NAME go together" --presets "$src/assets/presets.ini"
expect 1 "nope: no such preset in the file" --presets "$src/assets/presets.ini" --preset nope
expect 1 "$work/none.ini" --presets "$work/none.ini" --preset x
expect 1 "Spiral disk: not a built collision" --presets "$src/assets/presets.ini" --preset "Spiral disk"
expect 2 "--time x: not a number" --time x
expect 2 "--halo: field or live" --halo dark

# Stopped mid-run, the samples printed so far are in the file.
"$orbit" -n 1024 --time 100000 --every 1 >"$work/stopped.txt" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    [ "$(grep -c '^[0-9]' "$work/stopped.txt")" -ge 3 ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
pid=
samples=$(grep -c '^[0-9]' "$work/stopped.txt")
if [ "$samples" -ge 3 ]; then ok "stopped run kept $samples samples"; else fail "stopped run kept $samples samples"; fi

echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
