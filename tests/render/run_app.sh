#!/bin/sh
# Runs the app for 60 frames in a window on Xvfb or headless through EGL, then checks that its
# screenshot shows two separate galaxies.
# usage: run_app.sh window|headless APP CHECKER OUT.png
set -u
if [ $# -ne 4 ]; then
    echo "usage: run_app.sh window|headless APP CHECKER OUT.png" >&2
    exit 2
fi
mode=$1 app=$2 checker=$3 out=$4
mkdir -p "$(dirname "$out")" || exit 1
rm -f "$out"
set -- --backend cpu --frames 60 --size 960x540 --screenshot "$out"
case $mode in
window)
    if ! command -v xvfb-run >/dev/null 2>&1; then
        echo "run_app.sh: xvfb-run not found: install the xvfb and xauth packages (apt-get install xvfb xauth)" >&2
        exit 1
    fi
    xvfb-run -a -s "-screen 0 1280x720x24" "$app" "$@"
    ;;
headless)
    "$app" --headless "$@"
    ;;
*)
    echo "run_app.sh: unknown mode '$mode': use window or headless" >&2
    exit 2
    ;;
esac
status=$?
if [ $status -ne 0 ]; then
    echo "run_app.sh: $app ($mode) exited with status $status" >&2
    exit 1
fi
if [ ! -s "$out" ]; then
    echo "run_app.sh: $app ($mode) exited cleanly but wrote no screenshot at $out" >&2
    exit 1
fi
exec "$checker" "$out" --clusters 2
