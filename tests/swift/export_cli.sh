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
refused "--span: '-3' is too small: expected more than 0" export --swift out --span -3
refused "--span: '1Gyr' has a unit, but this run has no physical scale" export --swift out --scene plummer --span 1Gyr
refused "--span: '1e-50' is too near 0 to hold" export --swift out --span 1e-50
refused "--snapshots: '9999' is not a whole number" export --swift out --snapshots 9999
refused "unknown option '--bogus'" export --swift out --bogus
refused "cannot read x.tipsy" export --swift out --load x.tipsy
# A count of snapshots is taken as given or refused, never changed; an option is given once.
refused "--snapshots: '3' is not a power of two" export --swift out --snapshots 3
refused "--snapshots 4096: the span is 2^" export --swift out -n 2048 --span 5 --snapshots 4096
refused "--swift is given twice" export --swift a --swift b
refused "--snapshots is given twice" export --swift out --snapshots 4 --snapshots 8
# What export would not use is refused, not ignored: a series (export writes a scene or a saved
# run), the viewer's display, backend, method and saves, however spelled; the scene's own options
# are taken (here a bad value of one says it is read).
refused "export: --open is the viewer's option" export --swift out --open x.hdf5
refused "export: --size is the viewer's option" export --swift out --size 64x64
refused "export: --force=tree is the viewer's option" export --swift out --scene disk --force=tree
refused "export: --preset is the viewer's option" export --swift out --preset "Isolated disk"
refused "export: --save is the viewer's option" export --swift out --save s.tipsy
refused "export: --headless is the viewer's option" export --swift out --seed 3 --headless
refused "--inclination-a: '999' is too large" export --swift out --seed 3 --inclination-a 999 --dt 0.01
[ ! -e out ] && [ ! -e a ] && [ ! -e b ] || fail "a refused export made a folder: $(ls -d out a b 2>/dev/null)"
refused "cannot make the folder nope/deeper" export --swift nope/deeper
refused "plummer builds at most" export --swift out --scene plummer -n 100000000
refused "--open: nothing.hdf5: no such file or folder" --open nothing.hdf5
refused "holds no HDF5 or TIPSY snapshot" --open "none_*.hdf5"
# A series is the run's start: a second start named beside it is refused before anything opens.
refused "goes with none of --load" --open x --load y.tipsy
refused "goes with none of --preset" --open x --preset "Isolated disk"
refused "goes with none of --scene" --open x --scene disk
refused "goes with none of --tipsy" --open x --tipsy y.bin
refused "goes with none of --tipsy-collide" --open x --tipsy-collide y.bin
refused "--open-rate: plays the series of --open; there is none" --headless --open-rate 2
refused "--open-rate: '0' is too small: expected more than 0" --headless --open x --open-rate 0

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

# The folder of an export holds nothing else: a folder holding other files is refused, as is a
# previous export without --force; with it the previous export is replaced whole, SWIFT's old
# snapshots with it.
mkdir notes && echo "mine" >notes/notes.txt
refused "notes holds notes.txt, not a Starburst export" export --swift notes -n 2048 --span 5 --snapshots 8
[ "$(cat notes/notes.txt)" = mine ] && [ "$(ls notes)" = notes.txt ] || fail "the refused export touched notes/: $(ls notes)"
cp out/ics.hdf5 out/snapshot_0000.hdf5
cp out/ics.hdf5 out/snapshot_0008.hdf5
refused "out holds a previous export (5 files): --force replaces it" export --swift out -n 2048 --span 5 --snapshots 8
cmp -s out/ics.hdf5 out/snapshot_0000.hdf5 || fail "the refused export changed out/ics.hdf5"
if "$app" export --swift out --force -n 1024 --span 5 --snapshots 8 >force.log 2>&1 &&
    [ "$(ls out | tr '\n' ' ')" = "README.txt ics.hdf5 params.yml " ] && grep -q "previous export replaced" force.log &&
    out=$(timeout 120 "$app" --open out --headless --backend cpu --frames 1 --size 32x32 2>&1) &&
    printf '%s' "$out" | grep -q "1024 bodies on cpu"; then
    ok "export --force: the previous export replaced, its snapshots gone: $(ls out | tr '\n' ' ')"
else
    fail "export --force: $(ls out | tr '\n' ' '): $(cat force.log): $out"
fi

# A full disk while params.yml or README.txt is written (strace makes the K-th write fail): the
# export says so in one line and leaves the folder as it was: gone where it made it, else the
# previous export whole.
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
    cp -r out before
    for k in 1 2; do
        for dir in full-$k out; do
            force=""
            [ "$dir" = out ] && force=--force
            strace -f -o /dev/null -e trace=write -e inject=write:error=ENOSPC:when=$k \
                "$app" export --swift $dir $force --scene plummer -n 512 >full.log 2>full.err
            rc=$?
            if [ $rc -ne 1 ] || [ "$(wc -l <full.err)" -ne 1 ] || ! grep -q "No space left on device" full.err; then
                fail "ENOSPC at write $k into $dir: exit $rc: $(cat full.err)"
            elif [ "$dir" != out ] && [ -e "$dir" ]; then
                fail "ENOSPC at write $k: $dir left with $(ls -la $dir | tr '\n' ' ')"
            elif [ "$dir" = out ] && ! diff -r before out >/dev/null; then
                fail "ENOSPC at write $k: the previous export changed: $(ls -la out | tr '\n' ' ')"
            else
                ok "ENOSPC at write $k into $dir: $(cat full.err)"
            fi
        done
    done
else
    echo "skipped: the full-disk export (no strace that can trace here)"
fi

# SIGTERM during an export: what it wrote is removed, one line says so, and it dies of the signal.
"$app" export --swift stopped -n 3000000 --span 5 --snapshots 8 >stopped.log 2>stopped.err &
pid=$!
waited=0
while [ ! -e stopped/ics.hdf5.new.part ] && [ $waited -lt 600 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
done
kill -TERM $pid
wait $pid
rc=$?
lines=$(grep -vc "bodies written" stopped.err)
if [ $rc -eq 143 ] && [ ! -e stopped ] && [ "$lines" -eq 1 ] &&
    grep -q "export interrupted by SIGTERM: removed the folder stopped" stopped.err; then
    ok "SIGTERM during an export: $(grep -v 'bodies written' stopped.err)"
else
    fail "SIGTERM during an export: exit $rc, $(ls -la stopped 2>&1 | tr '\n' ' '), $lines line(s): $(cat stopped.err)"
fi

# Exported without a physical scale, the bodies come back in model units, with the export's
# softening; with a scale, in it.
"$app" --headless --backend cpu --scene plummer -n 256 --softening 0.037 --frames 1 --size 32x32 --quiet --save p0.tipsy
"$app" export --swift unitless --load p0.tipsy >/dev/null 2>&1
out=$(timeout 120 "$app" --open unitless/ics.hdf5 --headless --backend cpu --frames 1 --size 32x32 2>&1)
if printf '%s' "$out" | grep -q "256 bodies on cpu.*softening 0.037," && ! printf '%s' "$out" | grep -q "Myr\|kpc\| pc"; then
    ok "--open of an export without a scale: $(printf '%s' "$out" | grep 'bodies on cpu')"
else
    fail "--open of an export without a scale: $out"
fi
grep -q "softening  0.037 model lengths, " unitless/README.txt && grep -q "dt         0.005 model times:" unitless/README.txt &&
    grep -q "no physical scale" unitless/README.txt ||
    fail "README.txt of an export without a scale: $(sed -n 6,10p unitless/README.txt)"
out=$(timeout 120 "$app" --open out/ics.hdf5 --headless --backend cpu --frames 1 --size 32x32 2>&1)
printf '%s' "$out" | grep -q "bodies on cpu.*Myr.* pc)" || fail "--open of an export with a scale: $out"
grep -q "dt         [0-9.e+-]* model times ([0-9.e+-]* Myr)" out/README.txt &&
    grep -q "softening  [0-9.e+-]* model lengths ([0-9.e+-]* pc)" out/README.txt ||
    fail "README.txt of an export with a scale: $(sed -n 6,10p out/README.txt)"

# The leftovers of an interrupted save beside a TIPSY file are not snapshots, even the earliest:
# the folder opens as the save alone, at the dt saved beside it.
mkdir leftovers
"$app" --headless --backend cpu -n 256 --dt 0.0037 --frames 3 --size 32x32 --quiet --save leftovers/a.tipsy
"$app" --headless --backend cpu -n 256 --dt 0.001 --frames 1 --size 32x32 --quiet --save early.tipsy
cp early.tipsy leftovers/a.tipsy.old-Ab3dE9
cp early.tipsy leftovers/a.tipsy.tmp-x0Y1z2
if STARBURST_READOUT=$work/left.txt "$app" --headless --backend cpu --open leftovers --frames 1 --size 32x32 >left.log 2>&1; then
    count=$(awk '$1 == "series_count" { print $2 }' left.txt) dt=$(awk '$1 == "dt" { print $2 }' left.txt)
    if [ "$count" = 1 ] && awk -v d="$dt" 'BEGIN { exit !(d > 0.00369 && d < 0.00371) }'; then
        ok "--open of a folder with leftovers: the save alone, dt $dt"
    else
        fail "--open of a folder with leftovers: $count snapshots, dt $dt: $(cat left.log)"
    fi
else
    fail "--open of a folder with leftovers did not run"
fi

# A saved run exports with its time and bodies.
# A save of a run with halo fields cannot go: SWIFT runs halos as bodies, sampled at a start only.
"$app" --headless --backend cpu -n 512 --frames 3 --size 32x32 --quiet --save field.tipsy ||
    fail "the field-halo save"
refused "field.tipsy is a run with halo fields, which SWIFT runs as bodies" export --swift fromfield --load field.tipsy
[ ! -e fromfield ] || fail "a refused export left fromfield/"
if "$app" --headless --backend cpu -n 512 --halo live --frames 3 --size 32x32 --quiet --save run.tipsy &&
    "$app" export --swift saved --load run.tipsy >saved.log 2>&1 &&
    grep -q "512 bodies" saved.log && grep -q "the saved run run.tipsy" saved/params.yml &&
    ! grep -q "time_begin: 0$" saved/params.yml; then
    ok "export --load run.tipsy: $(head -1 saved.log)"
else
    fail "export --load run.tipsy: $(cat saved.log 2>/dev/null)"
fi
# The round trip keeps the force method: the saved run's tree, opened by error, loads so and its
# export opens so (it opened by the angle, alpha 0).
"$app" --headless --backend cpu -n 512 --halo live --frames 1 --size 32x32 --quiet --force tree --save tree.tipsy &&
    "$app" export --swift tree-export --load tree.tipsy >/dev/null 2>&1
loaded=$("$app" --headless --backend cpu --load tree.tipsy --frames 1 --size 32x32 2>&1 | grep -o "tree, [a-z]* [0-9.]*")
opened=$("$app" --headless --backend cpu --open tree-export/ics.hdf5 --force tree --frames 1 --size 32x32 2>&1 |
    grep -o "tree, [a-z]* [0-9.]*")
if [ -n "$loaded" ] && [ "$loaded" = "$opened" ]; then
    ok "--load and --open of its export: $loaded"
else
    fail "--load runs '$loaded', --open of its export '$opened'"
fi
# A saved run has its own bodies: -n beside it is refused (the save is read first, for its scale).
refused "a --load'ed run has its own bodies" export --swift out --load run.tipsy -n 5

# A span with its unit is read on the scene's scale, as --dt is: 1 Gyr is the fewest 2^k steps of dt
# that reach it.
myr=$("$app" --help | sed -n 's/.*1 model time = \([0-9.]*\) Myr.*/\1/p')
if "$app" export --swift gyr -n 2048 --span 1Gyr >gyr.log 2>&1 &&
    awk -v myr="$myr" '/ to t = / { match($0, /to t = [0-9.e+-]+/); t = substr($0, RSTART + 7, RLENGTH - 7) }
        END { exit !(myr > 0 && t * myr >= 1000 && t / 2 * myr < 1000) }' gyr.log; then
    ok "export --span 1Gyr: $(tail -1 gyr.log) (1 model time = $myr Myr)"
else
    fail "export --span 1Gyr: $(cat gyr.log) (1 model time = $myr Myr)"
fi

# A series on the timeline: three saves of one run, opened as a glob, are three keyframes in time
# order, each file read once. Headless, the series plays a snapshot a frame: the third frame shows
# the last save, paused there (space would continue live from it).
for f in 2 40 80; do "$app" --headless --backend cpu -n 256 --frames $f --size 32x32 --quiet --save "series-$f.tipsy"; done

if STARBURST_READOUT=$work/series.txt "$app" --headless --open "$work/series-*.tipsy" --frames 3 --size 32x32 --quiet; then
    rv() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$work/series.txt"; }
    if [ "$(rv timeline_count)" = 3 ] && [ "$(rv series_reads)" = 3 ] && [ "$(rv timeline_view)" = 2 ] &&
        [ "$(rv paused)" = 1 ] && [ "$(rv steps_run)" = 0 ]; then
        ok "--open of a series, played: $(rv timeline_text)"
    else
        fail "--open of a series: count $(rv timeline_count), files read $(rv series_reads), view $(rv timeline_view), paused $(rv paused), steps run $(rv steps_run): $(rv timeline_text)"
    fi
else
    fail "--open of a series of three saves did not run"
fi

# Headless --open without --frames plays the whole series once: --record writes a frame a
# snapshot, each its own picture.
if "$app" --headless --open "$work/series-*.tipsy" --size 96x96 --record played >played.log 2>&1 &&
    [ "$(ls played/*.png 2>/dev/null | wc -l)" = 3 ] &&
    [ "$(md5sum played/*.png | awk '{ print $1 }' | sort -u | wc -l)" = 3 ]; then
    ok "headless --open --record: 3 frames, 3 pictures ($(grep -m1 'headless --open' played.log))"
else
    fail "headless --open --record: $(ls played 2>/dev/null | wc -l) frames, $(md5sum played/*.png 2>/dev/null | awk '{ print $1 }' | sort -u | wc -l) distinct: $(tail -3 played.log)"
fi
# At half a snapshot a frame, each is held for two frames: 5 frames.
if "$app" --headless --open "$work/series-*.tipsy" --open-rate 0.5 --size 32x32 --record slow >slow.log 2>&1 &&
    [ "$(ls slow/*.png 2>/dev/null | wc -l)" = 5 ]; then
    ok "headless --open --open-rate 0.5: 5 frames"
else
    fail "headless --open --open-rate 0.5: $(ls slow 2>/dev/null | wc -l) frames: $(tail -3 slow.log)"
fi

# A signal while a large encounter is measured, before its first body is written, ends the export
# at once (within a piece's drawing): at 16 million bodies the measuring of galaxy A took 27 s
# here, the signal unheeded. SIGTERM: a background job of a script ignores SIGINT.
"$app" export --swift huge -n 16000000 >huge.log 2>&1 &
pid=$!
i=0
while [ ! -e huge/ics.hdf5.new.part ] && [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
start=$(date +%s.%N)
kill -TERM $pid
wait $pid
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ $rc -eq 143 ] && [ ! -e huge ] && awk -v t="$took" 'BEGIN { exit !(t < 10) }' &&
    grep -q "export interrupted by SIGTERM: removed the folder huge" huge.log; then
    ok "SIGTERM while 16M bodies are measured: ended in $took s, the folder removed"
else
    fail "SIGTERM while 16M bodies are measured: exit $rc after $took s, $(ls -d huge 2>/dev/null): $(tail -n 2 huge.log)"
fi

# A full disk: a small tmpfs of its own (a mount namespace, so nothing outside sees it; where it
# cannot be made, said and passed over). The export fails with one line and exit status 1, the
# folder gone or as it was, and no crash at exit: a failed close of the HDF5 file left the library
# a handle it closed again at exit, a segmentation fault (139) after a clean line.
full_disk() {
    # usage: full_disk SIZE ARGS...: the export of ARGS onto a tmpfs of SIZE holding tiny/e1 (made
    # first with -n 1024 where ARGS hold --force); prints "rc lines what-is-left: the line", its lines
    # those of the program's own (the progress lines aside).
    size=$1
    shift
    unshare -m sh -c '
        app=$1 size=$2; shift 2
        mkdir -p tiny && mount -t tmpfs -o size="$size" tmpfs tiny || exit 99
        case " $* " in *" --force "*) "$app" export --swift tiny/e1 -n 1024 >/dev/null 2>&1 || exit 98 ;; esac
        "$app" export "$@" >/dev/null 2>err.txt
        rc=$?
        echo "$rc $(grep -c "^starburst:" err.txt) $(ls -A tiny/e1 2>/dev/null | tr "\n" " "): $(grep "^starburst:" err.txt)"' \
        sh "$app" "$size" "$@"
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    for args in "-n 4096" "-n 50000" "--force -n 4096" "--force -n 50000"; do
        # shellcheck disable=SC2086
        got=$(full_disk 200k --swift tiny/e1 $args)
        case "$got" in
        99*|98*) echo "skipped: a full disk: no tmpfs could be mounted ($got)" ;;
        "1 1 : "*"disk full?"*) ok "export $args onto a full disk: $got" ;;
        "1 1 README.txt ics.hdf5 params.yml : "*"disk full?"*) ok "export $args onto a full disk: $got" ;;
        *) fail "export $args onto a full disk: $got" ;;
        esac
    done
    rmdir tiny 2>/dev/null
else
    echo "skipped: a full disk: a tmpfs of its own needs root and unshare"
fi

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
