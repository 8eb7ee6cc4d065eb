#!/bin/bash
# A scene of a million bodies takes seconds to build while the window stands still: the window's
# title says so meanwhile ("Starburst: building 1048576 bodies...") and is "Starburst" again once
# the first frame is drawn. Waits for conditions (the titles, the readout), never for a time.
# usage: build_title.sh APP OUT_DIR   (in a display: xvfb-run)
set -u
. "$(dirname "$0")/checks.sh"
. "$(dirname "$0")/window_checks.sh"
if [ $# -ne 2 ]; then
    echo "usage: build_title.sh APP OUT_DIR" >&2
    exit 2
fi
app=$1
enter_out "$2"
STARBURST_READOUT=$readout "$app" --backend cpu -n 1048576 --paused --size 320x240 >app.log 2>&1 &
pid=$!
titled() { xdotool search --name "$1" >/dev/null 2>&1; }
wait_until "$pid" 120 titled '^Starburst: building 1048576 bodies\.\.\.$'
case $? in
0) ok "while it builds the window's title says so" ;;
1) abort "no title 'Starburst: building 1048576 bodies...' in 120 s" ;;
2) abort "the program ended before its title said it was building" ;;
esac
wait_for "the first frame" test -s "$readout" || abort "no readout from the program"
if titled '^Starburst$' && ! titled 'building'; then ok "once built the title is 'Starburst' again"; else
    fail "after the first frame the title is '$(xdotool search --name 'Starburst' getwindowname 2>/dev/null | head -n 1)'"
fi
grep -q "1048576 bodies built in" app.log && ok "the console has its time: $(grep -m1 'built in' app.log)" ||
    fail "the console does not say the build's time: $(tr '\n' '|' <app.log)"
finish
