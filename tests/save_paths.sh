#!/bin/sh
# The files the command line names are checked before anything opens: a file to write that
# cannot be made, a settings file that cannot be read, a FIFO in a file's place. Each ends the
# program with exit status 2 and one line naming the file, before a window opens (there is no
# display here: a program that went on would fail on it, not on the file) and before any step.
# A preset's file that is a FIFO is refused, not waited on; a save through a symbolic link
# writes the pair beside the file it ends at and leaves the link.
# usage: save_paths.sh APP
app=$1
fails=0 passed=0
work=$(mktemp -d /tmp/starburst-save-paths-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset DISPLAY WAYLAND_DISPLAY
export MESA_SHADER_CACHE_DISABLE=true
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# starburst ARGS must exit 2 with one line holding TEXT, within 20 s.
refused() {
    text=$1
    shift
    out=$(timeout 20 "$app" "$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -qF -- "$text"; then
        fail "starburst $* -> exit $rc, $lines line(s): $out (wanted '$text')"
    else
        ok "starburst $* -> $out"
    fi
}

"$app" --headless --backend cpu -n 256 --frames 1 --size 32x32 --quiet --save good.tipsy || { echo "FAIL: a save"; exit 1; }
mkdir taken.tipsy

# Item 7: outputs, checked at the start.
refused "--save '': no name given" --save ""
refused "folder nope does not exist" --save nope/run.tipsy
refused "is a folder, not a file" --save taken.tipsy
refused "folder nope does not exist" --screenshot nope/x.png
refused "folder nope does not exist" --record nope/frames
refused "folder nope does not exist" --record nope/out.mp4
[ ! -e nope ] && ok "nothing was made for them" || fail "nope was made"

# Item 4: settings that cannot be read.
cp good.tipsy dir.tipsy
mkdir dir.tipsy.ini
refused "cannot read dir.tipsy.ini: not a regular file: a folder" --load dir.tipsy
if [ "$(id -u)" -ne 0 ]; then
    cp good.tipsy locked.tipsy && cp good.tipsy.ini locked.tipsy.ini && chmod 000 locked.tipsy.ini
    refused "cannot read locked.tipsy.ini: Permission denied" --load locked.tipsy
fi
cp good.tipsy alone.tipsy
refused "alone.tipsy: no settings beside it" --load alone.tipsy

# Item 5: FIFOs, refused up front.
mkfifo fifo.bin fifo.tipsy fifo.ini
cp good.tipsy.ini fifo.tipsy.ini
refused "cannot read fifo.bin: not a regular file: a FIFO" --tipsy fifo.bin
refused "cannot read fifo.bin: not a regular file: a FIFO" --tipsy-collide fifo.bin
refused "cannot read fifo.tipsy: not a regular file: a FIFO" --load fifo.tipsy
refused "cannot read fifo.ini: not a regular file: a FIFO" --presets fifo.ini
printf '[Fifo]\ntipsy = %s/fifo.bin\n' "$work" > fifo-preset.ini
out=$(timeout 30 "$app" --headless --backend cpu --size 32x32 --frames 1 --presets fifo-preset.ini --preset Fifo 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && printf '%s' "$out" | grep -q "fifo.bin: not a regular file: a FIFO"; then
    ok "a preset whose file is a FIFO -> exit $rc: $(printf '%s' "$out" | grep FIFO)"
else
    fail "a preset whose file is a FIFO -> exit $rc: $out"
fi

# Item 6: a save through a symbolic link.
mkdir runs
ln -s runs/real.tipsy link.tipsy
if "$app" --headless --backend cpu -n 256 --frames 1 --size 32x32 --quiet --save link.tipsy &&
    [ -L link.tipsy ] && [ -f runs/real.tipsy ] && [ -f runs/real.tipsy.ini ] && [ -f runs/real.tipsy.acc ] && [ -f runs/real.tipsy.param ] && [ "$(ls -A runs | wc -l)" -eq 4 ] &&
    "$app" --headless --backend cpu --frames 1 --size 32x32 --quiet --load link.tipsy; then
    ok "--save link.tipsy writes runs/real.tipsy, its .acc, its ini and its .param, keeps the link, and loads through it"
else
    fail "--save link.tipsy: $(ls -lA . runs)"
fi

echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
