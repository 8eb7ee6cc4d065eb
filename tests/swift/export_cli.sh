#!/bin/sh
# `starburst export` and `starburst --open` from the command line: bad input ends with exit status
# 2 and one line naming it; an export writes its three files with a fixed step of 2^k steps and a
# box that holds the bodies; a saved run exports with its own time; the export (and a folder of
# it) opens back in the viewer with the bodies written.
# usage: export_cli.sh APP
app=$1
fails=0
work=$(mktemp -d /tmp/starburst-export-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset DISPLAY WAYLAND_DISPLAY
export MESA_SHADER_CACHE_DISABLE=true
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

refused() {
    text=$1
    shift
    out=$(timeout 60 "$app" "$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -qF -- "$text"; then
        fail "starburst $* -> exit $rc, $lines line(s): $out (wanted '$text')"
    else
        ok "starburst $* -> $out"
    fi
}

refused "say where: --swift DIR" export
refused "--swift needs a value" export --swift
refused "-n: 'zero' is not a whole number" export --swift out -n zero
refused "-n: '0' is not a whole number" export --swift out -n 0
refused "-n 3: the collision scene needs at least 6 bodies" export --swift out -n 3
refused "--span: '-3' is not a model time" export --swift out --span -3
refused "--snapshots: '9999' is not a whole number" export --swift out --snapshots 9999
refused "unknown option '--bogus'" export --swift out --bogus
refused "a --load'ed run has its own bodies" export --swift out --load x.tipsy -n 5
refused "cannot make the folder nope/deeper" export --swift nope/deeper
refused "plummer builds at most" export --swift out --scene plummer -n 100000000
refused "--open: nothing.hdf5: no such file or folder" --open nothing.hdf5
refused "holds no HDF5 or TIPSY snapshot" --open "none_*.hdf5"
refused "goes with neither --load nor --tipsy" --open x --load y.tipsy

# An export: three files, 2^k steps of dt, dt_max just above dt, the bodies inside the box.
if "$app" export --swift out -n 2048 --span 5 --snapshots 8 >export.log 2>&1; then
    ok "export -n 2048: $(head -1 export.log)"
else
    fail "export -n 2048: $(cat export.log)"
fi
for f in ics.hdf5 params.yml README.txt; do
    [ -s "out/$f" ] || fail "export wrote no out/$f"
done
awk '
    $1 == "time_begin:" { t0 = $2 } $1 == "time_end:" { t1 = $2 } $1 == "dt_max:" { dm = $2 }
    /the span is 2\^/ { match($0, /dt = [0-9.e+-]+/); dt = substr($0, RSTART + 5, RLENGTH - 5)
                        match($0, /2\^[0-9]+/); k = substr($0, RSTART + 2, RLENGTH - 2) }
    $1 == "periodic:" { p = $2 }
    END {
        steps = (t1 - t0) / dt; want = 2 ^ k
        if (steps < want * (1 - 1e-9) || steps > want * (1 + 1e-9)) { print "span " t1 - t0 " is " steps " steps, not 2^" k; exit 1 }
        if (!(dm > dt && dm <= dt * (1 + 2e-6))) { print "dt_max " dm " for dt " dt; exit 1 }
        if (p != 0) { print "periodic " p; exit 1 }
    }' out/params.yml >plan.txt && ok "params.yml: 2^k steps, dt_max just above dt, not periodic" ||
    fail "params.yml: $(cat plan.txt)"
grep -q "mpirun -np N swift_mpi --self-gravity --threads=T params.yml" out/README.txt ||
    fail "README.txt has no mpirun line"

# The export opens back: the first snapshot of the folder is the 2048 bodies written.
if out=$(timeout 120 "$app" --open out --headless --backend cpu --frames 1 --size 32x32 2>&1) &&
    printf '%s' "$out" | grep -q "2048 bodies on cpu"; then
    ok "--open out: 2048 bodies"
else
    fail "--open out: $out"
fi

# A saved run exports with its time and bodies.
if "$app" --headless --backend cpu -n 512 --frames 3 --size 32x32 --quiet --save run.tipsy &&
    "$app" export --swift saved --load run.tipsy >saved.log 2>&1 &&
    grep -q "512 bodies" saved.log && grep -q "the saved run run.tipsy" saved/params.yml &&
    ! grep -q "time_begin: 0$" saved/params.yml; then
    ok "export --load run.tipsy: $(head -1 saved.log)"
else
    fail "export --load run.tipsy: $(cat saved.log 2>/dev/null)"
fi

# A series on the timeline: three saves of one run, opened as a glob, are three keyframes in time
# order, each file read once, the view on the first and paused (space continues live from it).
for f in 6 2 4; do "$app" --headless --backend cpu -n 256 --frames $f --size 32x32 --quiet --save "series-$f.tipsy"; done
if STARBURST_READOUT=$work/series.txt "$app" --headless --open "$work/series-*.tipsy" --frames 3 --size 32x32 --quiet; then
    rv() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$work/series.txt"; }
    if [ "$(rv timeline_count)" = 3 ] && [ "$(rv series_reads)" = 3 ] && [ "$(rv timeline_view)" = 0 ] &&
        [ "$(rv paused)" = 1 ] && [ "$(rv step)" = 0 ]; then
        ok "--open of a series: $(rv timeline_text)"
    else
        fail "--open of a series: count $(rv timeline_count), files read $(rv series_reads), view $(rv timeline_view), paused $(rv paused), step $(rv step): $(rv timeline_text)"
    fi
else
    fail "--open of a series of three saves did not run"
fi

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
