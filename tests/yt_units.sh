#!/bin/bash
# yt opens a save and an export with their true units (yt_units.py). Skipped where Debian's
# python3-yt is not installed, unless STARBURST_REQUIRE_YT=1 (CI), where that fails.
# usage: yt_units.sh APP MEASURE
app=$1 measure=$2
. "$(dirname "$0")/python_needs.sh"
python_needs "yt, h5py" STARBURST_REQUIRE_YT "python3-yt python3-h5py"
tmp=$(mktemp -d /tmp/starburst-yt-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/save"
"$app" --scene collision --backend cpu -n 4096 --headless --frames 20 --size 64x64 --save "$tmp/save/run.tipsy" \
    >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: the save"; exit 1; }
"$app" export --swift "$tmp/swift" -n 4096 --scene collision >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: the export"; exit 1; }
"$py" "$(dirname "$(realpath "$0")")/yt_units.py" "$measure" "$tmp/save/run.tipsy" "$tmp/swift/ics.hdf5"
