#!/bin/sh
# A bad value on the command line or in a presets file: the exit status, before anything opens,
# and one line on stderr naming it and saying what is wrong, with no control byte in it; never a
# crash.
app=$1
passed=0
fails=0
tmp=$(mktemp -d /tmp/starburst-cli-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
esc=$(printf '\033')
# What the script prints of an argument or message, its control bytes made visible (^[ for ESC).
show() { printf '%s\n' "$*" | cat -v; }
# expect CODE WORDS ARGS...: starburst ARGS exits CODE with one line on stderr that holds WORDS.
expect() {
    code=$1 words=$2
    shift 2
    out=$(timeout 60 "$app" "$@" 2>&1 >/dev/null); rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ "$rc" -ne "$code" ] || [ "$lines" -ne 1 ]; then
        show "FAIL: starburst $* -> exit $rc (expected $code), $lines line(s): $out"; fails=$((fails + 1))
    elif [ -n "$words" ] && ! printf '%s' "$out" | grep -qF -- "$words"; then
        show "FAIL: starburst $* -> '$out' does not say '$words'"; fails=$((fails + 1))
    elif printf '%s' "$out" | grep -q "$esc"; then
        show "FAIL: starburst $* -> the message holds an ESC byte: $out"; fails=$((fails + 1))
    else
        show "ok: starburst $* -> $out"; passed=$((passed + 1))
    fi
}
check() { expect 2 "" "$@"; }
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
# The opening test as the method takes it: the tree one of theta and alpha, the direct sum neither.
expect 2 "one of them" --force tree --theta 0.5 --alpha 1e-3
expect 2 "--theta is the tree's" --force direct --theta 0.3
expect 2 "--alpha is the tree's" --force direct --alpha 0.001
check --theta 0
check --theta 2
check --theta x
check --backend cpu --preset "Million-star collision"

# The ranges of the parameter table (src/util/params.c), refused before a window opens.
expect 2 "'99999999999999999999' is too large: expected 1 to 67108864" -n 99999999999999999999
expect 2 "-n 1: the collision scene needs at least 6 bodies" -n 1
expect 2 "the disk scene needs at least 3 bodies" --scene disk -n 2
expect 2 "--frames: '0' is too small" --frames 0
expect 2 "--dt: '1e30' is too large: expected more than 0, at most 10" --dt 1e30
# Values with a unit: a unit of the wrong kind or none known, and a unit where the scene has no scale.
expect 2 "--dt: '0.2parsec' does not end in a unit of time" --dt 0.2parsec
expect 2 "--softening: '200pc' has a unit, but this run has no physical scale" --scene plummer --softening 200pc
expect 2 "--dt: '2Gyr' is too large" --dt 2Gyr
# A presets file with a bad section starts the program: the section is skipped with one line.
skips="--headless --backend cpu -n 1024 --frames 1 --size 64x64 --quiet"
printf '[Slow]\ndt = 0.2 furlongs\n' >"$tmp/slow.ini"
expect 0 "slow.ini:2: dt = '0.2 furlongs' does not end in a unit of time" --presets "$tmp/slow.ini" $skips
expect 2 "--mass-ratio: '100' is too large: expected 0.05 to 20" --tipsy-collide "$tmp/none.bin" --mass-ratio 100
expect 2 "--steps-per-frame: '2000' is too large" --steps-per-frame 2000
expect 2 "unknown option '--bogus\\e[2J'" "--bogus$esc[2J"
# The presets file: a folder, values out of range, a binary file's bytes.
expect 2 "$tmp: not a regular file: a folder" --presets "$tmp"
printf '[Fast]\ndt = 1e30\n' >"$tmp/fast.ini"
expect 0 "fast.ini:2: dt = '1e30' is too large" --presets "$tmp/fast.ini" $skips
printf '[Heavy]\nmass_ratio = 100\n' >"$tmp/heavy.ini"
expect 0 "heavy.ini:2: mass_ratio = '100' is too large: expected 0.05 to 20" --presets "$tmp/heavy.ini" $skips
printf '[Few]\nbodies = 3\n' >"$tmp/few.ini"
expect 0 "[Few]: bodies = 3: the collision scene needs at least 6" --presets "$tmp/few.ini" $skips
printf '[Bin]\nexposure = \033[2J\033]0;x\007\n' >"$tmp/binary.ini"
expect 0 "exposure = '\\e[2J\\e]0;x\\x07' is not a number" --presets "$tmp/binary.ini" $skips
# An unquoted pattern the shell expanded into several files: the line says so, and how to quote it.
touch "$tmp/snap_000.hdf5" "$tmp/snap_001.hdf5" "$tmp/snap_002.hdf5"
expect 2 "look like a pattern the shell expanded; quote it: --open '$tmp/snap_00*.hdf5'" \
    --open "$tmp/snap_000.hdf5" "$tmp/snap_001.hdf5" "$tmp/snap_002.hdf5"
expect 2 "--load takes one file of them" --load "$tmp/snap_000.hdf5" "$tmp/snap_001.hdf5"
# A stray word is no pattern: the plain line.
expect 2 "unexpected argument 'extra' (see --help)" --open "$tmp/snap_000.hdf5" extra
# A presets file that names a preset twice.
printf '[Twice]\nscene = disk\n[Other]\nscene = disk\n[Twice]\nbodies = 4096\n' >"$tmp/twice.ini"
expect 0 "twice.ini:5: [Twice] again: the preset 'Twice' stands at line 1 already" --presets "$tmp/twice.ini" $skips

# Options that do not go together: two starts, or what makes a scene's bodies beside a start that
# has its own (or makes no collision). Refused before anything opens, so a save named by --load and
# --save both is not written over by the preset's run.
printf 'not touched\n' >"$tmp/keep.tipsy"
printf 'step = 128\n' >"$tmp/keep.tipsy.ini"
expect 2 "--load: a saved run is the run's start; it goes with none of --preset" \
    --load "$tmp/keep.tipsy" --save "$tmp/keep.tipsy" --preset Collision
if [ "$(cat "$tmp/keep.tipsy" "$tmp/keep.tipsy.ini")" = "$(printf 'not touched\nstep = 128')" ]; then
    passed=$((passed + 1))
else
    echo "FAIL: --load F --save F --preset X changed F"; fails=$((fails + 1))
fi
expect 2 "--tipsy: a TIPSY file is the run's start; it goes with none of --scene" --tipsy "$tmp/g.bin" --scene disk
expect 2 "--load: a saved run is the run's start; it goes with none of --tipsy" --load "$tmp/keep.tipsy" --tipsy g.bin
expect 2 "--load: a saved run is the run's start; it goes with none of --scene" --scene disk --load "$tmp/keep.tipsy"
expect 2 "-n: a saved run (--load) takes no -n: it has its own bodies" --load "$tmp/keep.tipsy" -n 100
expect 2 "--seed: a saved run (--load) takes no --seed" --load "$tmp/keep.tipsy" --seed 9
expect 2 "--mass-ratio: the plummer scene takes no --mass-ratio: it shapes a collision" --scene plummer --mass-ratio 3
expect 2 "--inclination-b: a TIPSY file (--tipsy) takes no --inclination-b" --tipsy "$tmp/g.bin" --inclination-b 30
expect 2 "--seed: a preset (--preset) takes no --seed: the preset builds its own scene" --preset Collision --seed=3
expect 2 "-n: a series (--open) takes no -n" --open "$tmp/snap_000.hdf5" -n 5
# What does go together: a TIPSY galaxy collided at an inclination from fewer bodies (the file is
# what is wrong), a scene at a seed.
expect 2 "g.bin" --tipsy-collide "$tmp/g.bin" --inclination-a 30 -n 100 --seed 3

# A TIPSY file whose header fails its check: --open names the fault as --tipsy does (it said
# "neither an HDF5 snapshot nor a TIPSY file").
z4='\000\000\000\000'
printf "$z4$z4\373\377\377\377\003\000\000\000$z4\373\377\377\377$z4$z4" >"$tmp/negative.bin"
printf "$z4$z4\002\000\000\000\003\000\000\000$z4\001\000\000\000$z4$z4" >"$tmp/miscounted.bin"
expect 2 "--open: tipsy: $tmp/negative.bin: negative count in the header (nbodies -5, ndark -5" --open "$tmp/negative.bin"
expect 2 "--open: tipsy: $tmp/miscounted.bin: header says 2 bodies but ndark + nstar = 1" --open "$tmp/miscounted.bin"
printf 'plain text, no snapshot\n' >"$tmp/notes.txt"
expect 2 "notes.txt: neither an HDF5 snapshot nor a TIPSY file" --open "$tmp/notes.txt"

if "$app" --help >/dev/null; then passed=$((passed + 1)); else echo "FAIL: --help exits $?"; fails=$((fails + 1)); fi
echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
