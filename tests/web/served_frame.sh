#!/bin/sh
# A served frame is the picture the program draws: `starburst serve --paused` sends its frame to
# a page (tools/serve_measure.py keeps the last one), and `--headless --paused` screenshots the same
# state; the JPEG and the PNG must be the same image within JPEG's error (check_image --same), the
# right way up and in the right colours, whatever the read-back and the encoder do to the rows.
# usage: served_frame.sh APP CHECK_IMAGE OUT_DIR
set -u
app=$1 checker=$2 out=$3
here=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out" || exit 1
scene="--backend cpu -n 4096 --seed 5 --paused --size 640x360"
/usr/bin/python3 "$here/../../tools/serve_measure.py" "$app" 1 --frame "$out/served.jpg" -- $scene \
    --save "$out/served.tipsy" > "$out/measure.log" 2>&1 || { cat "$out/measure.log"; exit 1; }
"$app" --headless $scene --frames 2 --screenshot "$out/drawn.png" > "$out/headless.log" 2>&1 ||
    { cat "$out/headless.log"; exit 1; }
exec "$checker" --same "$out/drawn.png" "$out/served.jpg"
