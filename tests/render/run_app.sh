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
"$checker" "$out" --clusters 2 || exit 1
[ "$mode" = headless ] || exit 0
# A size the GL cannot draw is refused up front (exit 2, one line naming the size), never written
# as a black image: on llvmpipe 16384 x 16384 is within its largest texture, but the half-float
# image the bodies are drawn into (2 GiB) is more than it makes. Where the GL draws it, the image
# must show the galaxies.
big=$(dirname "$out")/too-large.png
rm -f "$big"
said=$("$app" --headless --backend cpu -n 256 --frames 1 --size 16384x16384 --screenshot "$big" 2>&1 >/dev/null)
status=$?
said=$(printf '%s\n' "$said" | grep -v "^starburst: OpenGL on\|bodies on\|step in\|steps in")
if [ $status -eq 2 ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] &&
    printf '%s' "$said" | grep -q "^starburst: --size 16384x16384: " && [ ! -e "$big" ]; then
    echo "run_app.sh: refused up front: $said"
elif [ $status -eq 0 ] && "$checker" "$big" --clusters 2; then
    echo "run_app.sh: 16384x16384 drawn"
else
    echo "run_app.sh: --size 16384x16384: exit $status, $(ls "$big" 2>/dev/null) (black?): $said" >&2
    exit 1
fi
