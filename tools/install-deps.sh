#!/bin/sh
# Installs the Debian packages Starburst builds and tests with, where any is missing.
# As root it runs apt-get; otherwise through sudo; where neither works it prints the apt line.
set -eu
pkgs="build-essential cmake pkg-config libglfw3-dev libglew-dev libegl-dev libgl-dev libcglm-dev
libimgui-dev libstb-dev libinih-dev libcmocka-dev libhdf5-dev xvfb xauth xdotool strace fonts-dejavu-core
libegl-mesa0 libgl1-mesa-dri libwebsockets-dev libjpeg62-turbo-dev"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "starburst: installing missing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
    sudo="sudo"
else
    echo "starburst: cannot install packages (not root, no sudo). Run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends $missing; then
    $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends $missing || {
        echo "starburst: apt-get failed. Run:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
        exit 1
    }
fi
