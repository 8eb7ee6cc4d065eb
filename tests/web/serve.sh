#!/bin/sh
# The served page in Debian's Chromium, headless (tests/web/serve_page.js). Skips (77) where
# chromium or node is missing, unless STARBURST_REQUIRE_BROWSER=1 (CI), where that fails.
# usage: serve.sh APP CHECK_IMAGE OUT_DIR
set -u
app=$1 checker=$2 out=$3
here=$(dirname "$0")
chromium=$(command -v chromium || command -v chromium-browser || true)
node=$(command -v node || command -v nodejs || true)
if [ -z "$chromium" ] || [ -z "$node" ]; then
    echo "serve.sh: needs chromium and node (apt-get install chromium nodejs)${chromium:+; chromium found}${node:+; node found}"
    [ "${STARBURST_REQUIRE_BROWSER:-0}" = 1 ] && exit 1
    exit 77
fi
rm -rf "$out"
mkdir -p "$out" || exit 1
exec "$node" "$here/serve_page.js" "$app" "$checker" "$chromium" "$out"
