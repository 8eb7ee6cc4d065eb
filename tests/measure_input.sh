#!/bin/bash
# starburst-measure on what a person may give it: a bad option is refused with one line naming it
# and exit 2; --help exits 0; a figure the bodies cannot give is "not measured" with its reason,
# never a zero or a reason that is not the case; a save's softening is read from its .ini; an HDF5
# snapshot is read and measures as the same bodies built as a scene.
measure=$1 app=$2
passed=0 fails=0
tmp=$(mktemp -d /tmp/starburst-measure-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused OPTION ARGS...: exit 2, nothing on stdout, one line on stderr naming OPTION.
refused() {
    local option=$1
    shift
    "$measure" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$option" "$tmp/err"; then
        ok "$* -> $(cat "$tmp/err")"
    else
        fail "$* -> exit $rc, $lines line(s) on stderr: $(cat "$tmp/err"); stdout: $(head -c 300 "$tmp/out")"
    fi
}

refused --ring --ring 3 2 --scene disk --n 2048
refused --ring --ring 2 2 --scene disk --n 2048
refused --ring --ring nan 2 --scene disk --n 2048
refused --ring --ring -1 2 --scene disk --n 2048
refused --ring --scene disk --n 2048 --ring 2
refused --beyond --beyond -1 --scene disk --n 2048
refused --beyond --beyond 0 --scene disk --n 2048
refused --softening --softening -1 --scene disk --n 2048
refused --softening --softening 1e9 --scene disk --n 2048
refused --n --scene disk --n -5
refused --n --scene collision --n 3
refused --seed --scene disk --seed x
refused --scene --scene nowhere
refused --bogus --bogus --scene disk

if "$measure" --help >"$tmp/out" 2>"$tmp/err" && grep -q '^usage: starburst-measure' "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "--help: exit 0, the usage on stdout"
else
    fail "--help: exit $?, stdout: $(head -c 200 "$tmp/out"), stderr: $(cat "$tmp/err")"
fi

# not_zero LINE: no figure printed as a zero that stands for "nothing to measure": every galaxy's
# ring gives sigma_R only from 2 disk bodies or more; a component without bodies gives no
# half-mass radius; 2K/|W| says "over N bodies" only when the galaxy has more than N.
check_line() {
    local what=$1 line=$2 max=32768
    local n disk bulge halo other total
    n=$(sed -n 's/.* R [0-9.e+-]*-[0-9.e+-]*: n \([0-9]*\).*/\1/p' <<<"$line")
    read -r disk bulge halo <<<"$(sed -n 's/.*: bodies \([0-9]*\)\/\([0-9]*\)\/\([0-9]*\).*/\1 \2 \3/p' <<<"$line")"
    other=$(sed -n 's/.* and \([0-9]*\) of no component.*/\1/p' <<<"$line")
    total=$((disk + bulge + halo + ${other:-0}))
    if [ -z "$n" ] || [ -z "$disk" ]; then
        fail "$what: the line does not read: $line"
    elif [ "$n" -lt 2 ] && grep -q 'sigma_R\|kappa\| Q \|A_1' <<<"$line"; then
        fail "$what: the ring holds $n disk bodies, yet gives a dispersion: $line"
    elif [ "$disk" -eq 0 ] && grep -q 'R_half disk [0-9]\|rms_z [0-9]\|beyond [0-9.]*: disk [0-9]' <<<"$line"; then
        fail "$what: no disk bodies, yet disk figures: $line"
    elif [ "$total" -le $max ] && grep -q "over $max bodies" <<<"$line"; then
        fail "$what: $total bodies, yet 'over $max bodies': $line"
    elif [ "$total" -le $max ] && ! grep -q '2K/|W| [0-9]\|2K/|W| not measured: ' <<<"$line"; then
        fail "$what: 2K/|W| neither measured nor said why: $line"
    else
        ok "$what: $line"
    fi
}

# A Plummer sphere: bodies of no component, a save with its softening in its .ini.
if ! "$app" --scene plummer --backend cpu -n 512 --softening 0.05 --headless --frames 1 --size 64x64 \
        --save "$tmp/plummer.tipsy" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    fail "the Plummer sphere was not saved"
else
    line=$("$measure" "$tmp/plummer.tipsy")
    check_line "a Plummer sphere" "$line"
    if grep -q 'R_half not measured: no disk, bulge or halo bodies' <<<"$line"; then
        ok "the Plummer sphere's half-mass radii: not measured, no component's bodies"
    else
        fail "the Plummer sphere's half-mass radii: $line"
    fi
    # W at the save's softening: the same 2K/|W| as with --softening 0.05, not the unsoftened one.
    virial() { sed -n 's/.*2K\/|W| \([0-9.]*\).*/\1/p' <<<"$1"; }
    saved=$(virial "$line")
    given=$(virial "$("$measure" --softening 0.05 "$tmp/plummer.tipsy")")
    bare=$(virial "$("$measure" --softening 0 "$tmp/plummer.tipsy")")
    if [ -n "$saved" ] && [ "$saved" = "$given" ] && [ "$saved" != "$bare" ]; then
        ok "W at the save's softening: 2K/|W| $saved (--softening 0.05: $given, 0: $bare)"
    else
        fail "W without --softening: 2K/|W| $saved; --softening 0.05: $given, 0: $bare"
    fi
fi

# A disk saved with its scale ([units] in its .ini): measured with its units, the mass in solar
# masses the built scene gives; --softening with a unit is read on the save's scale, as the viewer
# reads it; -n is the viewer's spelling of --n.
if ! "$app" --scene disk --backend cpu -n 2048 --headless --frames 1 --size 64x64 --save "$tmp/disk.tipsy" \
        >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    fail "the disk was not saved"
else
    units_line() { grep ' units: length ' <<<"$1" | sed 's/^[^ ]* units: //'; }
    built=$("$measure" --scene disk -n 2048)
    from_save=$("$measure" "$tmp/disk.tipsy")
    if [ -n "$(units_line "$built")" ] && [ "$(units_line "$from_save")" = "$(units_line "$built")" ]; then
        ok "a save with [units] is measured with them: $(units_line "$from_save")"
    else
        fail "the save's units: '$(units_line "$from_save")', the scene's: '$(units_line "$built")'"
    fi
    if [ "$built" = "$("$measure" --scene disk --n 2048)" ]; then ok "-n N as --n N"; else fail "-n 2048: $built"; fi
    # 1 model length is 2.6 kpc on this scale: 208pc is 0.08.
    kpc=$(sed -n 's/.* units: length \([0-9.]*\) kpc.*/\1/p' <<<"$from_save")
    pc=$(awk "BEGIN { printf \"%g\", 0.08 * $kpc * 1000 }")
    "$measure" --softening "${pc}pc" "$tmp/disk.tipsy" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    with_unit=$(sed -n 's/.*2K\/|W| \([0-9.]*\) at softening \([0-9.e+-]*\).*/\1 \2/p' "$tmp/out")
    plain=$("$measure" --softening 0.08 "$tmp/disk.tipsy" | sed -n 's/.*2K\/|W| \([0-9.]*\) at softening \([0-9.e+-]*\).*/\1 \2/p')
    if [ $rc -eq 0 ] && [ -n "$plain" ] && [ "$with_unit" = "$plain" ]; then
        ok "--softening ${pc}pc on the save's scale is 0.08: 2K/|W| and softening $with_unit"
    else
        fail "--softening ${pc}pc: exit $rc, '$with_unit' against --softening 0.08's '$plain'; $(cat "$tmp/err")"
    fi
fi
# A save without a scale (a Plummer sphere): a unit is refused, one line, naming --softening.
[ -s "$tmp/plummer.tipsy" ] && refused --softening --softening 5kpc "$tmp/plummer.tipsy"

# A collision of 6 bodies: one of each component a galaxy, none in the annulus.
check_line "6-body collision, galaxy 0" "$("$measure" --scene collision --n 6 | sed -n 1p)"
check_line "6-body collision, galaxy 1" "$("$measure" --scene collision --n 6 | sed -n 2p)"
# A ring of one body, of two.
check_line "a disk of 2048 in a ring of few" "$("$measure" --scene disk --n 2048 --ring 0 0.02 | sed -n 1p)"

# One body; two bodies at one point with no softening (TIPSY, little-endian: a header of time,
# nbodies, ndim, nsph, ndark, nstar, pad; a dark particle is mass, pos, vel, eps, phi).
if "$app" --scene plummer --backend cpu -n 1 --headless --frames 1 --size 64x64 --save "$tmp/one.tipsy" \
        >"$tmp/log" 2>&1; then
    check_line "one body" "$("$measure" "$tmp/one.tipsy")"
else
    cat "$tmp/log"
    fail "one body was not saved"
fi
word() { printf "\\x$1\\x$2\\x$3\\x$4"; }
{
    word 00 00 00 00; word 00 00 00 00
    word 02 00 00 00; word 03 00 00 00; word 00 00 00 00; word 02 00 00 00; word 00 00 00 00; word 00 00 00 00
    for body in 1 2; do
        word 00 00 80 3f
        for k in 1 2 3 4 5 6 7 8; do word 00 00 00 00; done
    done
} >"$tmp/point.tipsy"
line=$("$measure" "$tmp/point.tipsy")
check_line "two bodies at one point" "$line"
if grep -q '2K/|W| not measured: ' <<<"$line"; then ok "W of two bodies at one point: not measured"; else fail "$line"; fi

# An HDF5 snapshot: the disk exported as SWIFT's initial conditions measures as the disk built.
if "$app" export --swift "$tmp/swift" -n 2048 --scene disk >"$tmp/log" 2>&1; then
    "$measure" "$tmp/swift/ics.hdf5" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    figures() { sed -n 's/.*bodies \(.*\), 2K.*/\1/p' <<<"$1"; }
    from_file=$(figures "$(sed -n 1p "$tmp/out")")
    built=$(figures "$("$measure" --scene disk --n 2048 | sed -n 1p)")
    if [ $rc -eq 0 ] && [ -n "$from_file" ] && [ "$from_file" = "$built" ]; then
        ok "an HDF5 snapshot measures as the scene it holds: $from_file"
    else
        fail "the HDF5 snapshot: exit $rc, $(cat "$tmp/err"); '$from_file' against the scene's '$built'"
    fi
else
    echo "(no HDF5 export in this build: $(tail -1 "$tmp/log"))"
fi
# A file that is neither: one line, exit non-zero.
echo "not a snapshot" >"$tmp/notes.txt"
"$measure" "$tmp/notes.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
    ok "a text file: $(cat "$tmp/err")"
else
    fail "a text file: exit $rc, $(cat "$tmp/err")"
fi

echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
