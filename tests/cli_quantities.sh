#!/bin/sh
# Quantities on the command line, in a presets file and in a saved run's .ini: each is read on the
# scale of the run it starts (a scene's, a save's [units], a series' first file; none for a run in
# model units), and a value out of its range, one too near 0 to hold or one in hexadecimal is
# refused with exit status 2 and one line naming it. There is no display and no --headless here:
# a program that went past the refusal would stop on the missing display (exit 1), so exit 2 says
# the refusal came before anything opened. What a run then shows is read from its headless start.
# usage: cli_quantities.sh APP
app=$1
fails=0 passed=0
work=$(mktemp -d /tmp/starburst-quantities-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset DISPLAY WAYLAND_DISPLAY
export MESA_SHADER_CACHE_DISABLE=true
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# starburst ARGS exits CODE with one line on stderr holding TEXT.
expect() {
    code=$1 text=$2
    shift 2
    out=$(timeout 60 "$app" "$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ $rc -ne "$code" ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -qF -- "$text"; then
        fail "starburst $* -> exit $rc, $lines line(s): $out (wanted exit $code, '$text')"
    else
        ok "starburst $* -> $out"
    fi
}
refused() { expect 2 "$@"; }
# A presets file with a bad section: that section is skipped with one line naming file:line and the
# problem, and the program goes on (to its window, which is not there).
skipped() {
    local text=$1
    shift
    out=$(timeout 60 "$app" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$text" && printf '%s\n' "$out" | grep -q "is skipped" &&
        printf '%s\n' "$out" | grep -q "no display"; then
        ok "starburst $* -> the section skipped: $(printf '%s' "$out" | head -n 1)"
    else
        fail "starburst $* -> exit $rc: $out (wanted '$text', the section skipped and the start going on)"
    fi
}
# Taken: the program goes on to open its window, which is not there.
taken() { expect 1 "no display" "$@"; }

# Two saves: a Plummer sphere in model units, and a collision on the Milky-Way scale. Making them
# needs an offscreen context; without one there is nothing to test.
if ! "$app" --headless --backend cpu --scene plummer -n 256 --frames 2 --size 32x32 --quiet --save p0.tipsy ||
    ! "$app" --headless --backend cpu -n 2000 --halo live --frames 2 --size 32x32 --quiet --save g.tipsy; then
    echo "skipped: no offscreen context to make the saves"
    exit 77
fi
grep -q '^kpc' g.tipsy.ini && ! grep -q '^kpc' p0.tipsy.ini || fail "the saves' [units]: $(cat g.tipsy.ini p0.tipsy.ini)"

# A run in model units stays in them: a unit is refused the same way for a scene and a series.
refused "--dt: '0.2Myr' has a unit, but this run has no physical scale" --scene plummer --dt 0.2Myr
refused "--dt: '0.2Myr' has a unit, but this run has no physical scale" --open p0.tipsy --dt 0.2Myr
refused "--softening: '200pc' has a unit, but this run has no physical scale" --load p0.tipsy --softening 200pc
out=$(timeout 60 "$app" --headless --backend cpu --open p0.tipsy --frames 1 --size 32x32 2>&1)
line=$(printf '%s\n' "$out" | grep -E "(bodies|halo fields?) on cpu")
if [ -n "$line" ] && ! printf '%s' "$line" | grep -q "Myr\|pc)"; then
    ok "--open p0.tipsy is shown in model units: $line"
else
    fail "--open p0.tipsy: $out"
fi

# A TIPSY file without its .ini has no known scale: shown in model units (it was shown on the Milky
# Way's), and a unit is refused for it.
cp g.tipsy bare.tipsy
refused "--dt: '0.2Myr' has a unit, but this run has no physical scale" --open bare.tipsy --dt 0.2Myr
out=$(timeout 60 "$app" --headless --backend cpu --open bare.tipsy --frames 1 --size 32x32 2>&1)
line=$(printf '%s\n' "$out" | grep -E "(bodies|halo fields?) on cpu")
if [ -n "$line" ] && ! printf '%s' "$line" | grep -q "Myr\|pc)"; then
    ok "--open bare.tipsy (no .ini) is shown in model units: $line"
else
    fail "--open bare.tipsy (no .ini): $out"
fi

# A saved run's scale is read before the options: --dt 0.2Myr is 0.2 Myr on it, for --load and --open.
for start in --load --open; do
    out=$(timeout 60 "$app" --headless --backend cpu $start g.tipsy --dt 0.2Myr --frames 1 --size 32x32 2>&1)
    line=$(printf '%s\n' "$out" | grep -E "(bodies|halo fields?) on cpu")
    if printf '%s' "$line" | grep -q "(0.20 Myr)"; then
        ok "$start g.tipsy --dt 0.2Myr: $line"
    else
        fail "$start g.tipsy --dt 0.2Myr: $out"
    fi
done

# A save's .ini takes a unit as the command line does, on the scale its [units] give.
cp g.tipsy hand.tipsy
sed 's/^dt = .*/dt = 0.2Myr/; s/^softening = .*/softening = 100 pc/' g.tipsy.ini >hand.tipsy.ini
out=$(timeout 60 "$app" --headless --backend cpu --load hand.tipsy --frames 1 --size 32x32 2>&1)
line=$(printf '%s\n' "$out" | grep -E "(bodies|halo fields?) on cpu")
if printf '%s' "$line" | grep -q "(0.20 Myr), softening [0-9.]* (100 pc)"; then
    ok "hand.tipsy.ini with dt = 0.2Myr, softening = 100 pc: $line"
else
    fail "hand.tipsy.ini with dt = 0.2Myr, softening = 100 pc: $out"
fi

# A preset that loads a save reads its values on the save's scale, as --load does.
printf '[Again]\nload = g.tipsy\ndt = 0.2Myr\n' >again.ini
out=$(timeout 60 "$app" --headless --backend cpu --presets again.ini --preset Again --frames 1 --size 32x32 2>&1)
if printf '%s' "$out" | grep -q "dt 0.0238 (0.20 Myr)"; then
    ok "a preset that loads g.tipsy takes dt = 0.2Myr on its scale"
else
    fail "a preset that loads g.tipsy with dt = 0.2Myr: $out"
fi
printf '[Plain]\nload = p0.tipsy\ndt = 0.2Myr\n' >plain.ini
skipped "plain.ini:3: dt = '0.2Myr' has a unit, but this run has no physical scale" --presets plain.ini

# Nearer 0 than a float holds, or in hexadecimal: refused, with and without a unit, where read.
refused "--dt: '1e-50' is too near 0 to hold: expected more than 0" --dt 1e-50
refused "--dt: '1e-320' is too near 0 to hold" --dt 1e-320
refused "--dt: '1e-300Myr' is too near 0 to hold" --dt 1e-300Myr
refused "--dt: '0x10Myr' is not a decimal number" --dt 0x10Myr
refused "--softening: '0x1p-3' is not a decimal number" --softening 0x1p-3
printf '[Tiny]\ndt = 1e-50\n' >tiny.ini
skipped "tiny.ini:2: dt = '1e-50' is too near 0 to hold" --presets tiny.ini

# An encounter's values: one range, the table's, and how they go together, before anything opens.
refused "pericentre = 50 lies beyond the separation" --pericentre 50
refused "--pericentre: '2000' is too large: expected 0.001 to 1000" --pericentre 2000
refused "--inclination-b: '200' is too large: expected -180 to 180" --inclination-b 200
printf '[Tight]\neccentricity = 0.1\npericentre = 3\nseparation = 20\n' >tight.ini
skipped "tight.ini:1: [Tight]: scene: collision: separation = " --presets tight.ini
printf '[Far]\npericentre = 5.2kpc\n' >far.ini
taken --presets far.ini --preset Far
taken --pericentre 5kpc
taken --pericentre 8kpc --inclination-b -170
# A save's .ini is read with the same ranges, before anything opens.
cp g.tipsy bad.tipsy
sed 's/^dt = .*/dt = 1e30/' g.tipsy.ini >bad.tipsy.ini
refused "--load: bad.tipsy.ini:3: dt = '1e30' is too large: expected more than 0, at most 10" --load bad.tipsy
taken --load g.tipsy
# A save without its .ini is refused for that, not for a unit it has no scale to read on.
cp p0.tipsy alone.tipsy
refused "alone.tipsy: no settings beside it" --load alone.tipsy --dt 0.2Myr

echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
