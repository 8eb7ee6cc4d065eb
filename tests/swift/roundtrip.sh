#!/usr/bin/env bash
# The round trip against the real engine: builds SWIFT from its source tarball (once; the build is
# kept in CACHE and reused while the tarball is the same), exports a 4,096-body collision with
# `starburst export --swift`, runs SWIFT on it to a little past the first pericentre, opens its
# snapshots and compares the galaxies' separation and disk fractions with Starburst's own run of
# the same bodies (swift_compare.c says how); then opens each of SWIFT's snapshots before the
# pericentre as `--open` does, runs it on in Starburst and checks that it reaches SWIFT's next
# snapshot (its velocities read back in step). Skips (77) where SWIFT's build tools are missing.
# usage: roundtrip.sh STARBURST SWIFT_COMPARE TARBALL CACHE WORK
set -euo pipefail
starburst=$1 compare=$2 tarball=$3 cache=$4 work=$5
N=4096
THREADS=${SWIFT_THREADS:-2}

# CI sets STARBURST_REQUIRE_SWIFT: there, with SWIFT's source present, a missing build tool fails
# the test.
skip() {
    [ -z "${STARBURST_REQUIRE_SWIFT:-}" ] || { echo "FAIL: $* (STARBURST_REQUIRE_SWIFT is set)"; exit 1; }
    echo "SKIP: $*"
    exit 77
}
# Without SWIFT's source (a checkout without ../shared/swift) there is nothing to build: a skip,
# even where CI asks for the round trip.
if [ ! -f "$tarball" ]; then
    echo "SKIP: no SWIFT source at $tarball (set STARBURST_SWIFT_TARBALL when configuring)"
    exit 77
fi
missing=""
for tool in autoconf automake libtoolize make cc; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
for h in gsl/gsl_math.h fftw3.h; do
    [ -f "/usr/include/$h" ] || missing="$missing $h"
done
[ -f /usr/include/hdf5/serial/hdf5.h ] || [ -f /usr/include/hdf5.h ] || missing="$missing hdf5.h"
[ -z "$missing" ] ||
    skip "SWIFT cannot be built here: missing$missing (apt-get install autoconf automake libtool libgsl-dev libfftw3-dev libhdf5-dev)"

# SWIFT without MPI, vectorisation or documentation; only the library and the `swift` program.
sum=$(cksum < "$tarball" | cut -d' ' -f1)
swift="$cache/swift/swift"
if [ ! -x "$swift" ] || [ "$(cat "$cache/source.cksum" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$cache" && mkdir -p "$cache"
    start=$(date +%s)
    echo "building SWIFT in $cache (once)"
    tar xJf "$tarball" -C "$cache"
    # (&& throughout: set -e does not reach into a subshell on the left of ||.)
    (
        cd "$cache/swift" &&
            sh autogen.sh >"$cache/build.log" 2>&1 &&
            ./configure --disable-mpi --disable-vec --disable-hand-vec --disable-compiler-warnings \
                --disable-doxygen-doc >>"$cache/build.log" 2>&1 &&
            make -C src -j"$(nproc)" version_string.h >>"$cache/build.log" 2>&1 &&
            make -C src -j"$(nproc)" libswiftsim.la >>"$cache/build.log" 2>&1 &&
            make -C argparse -j"$(nproc)" >>"$cache/build.log" 2>&1 &&
            make -j"$(nproc)" swift >>"$cache/build.log" 2>&1
    ) || { tail -30 "$cache/build.log"; echo "FAIL: SWIFT did not build (log: $cache/build.log)"; exit 1; }
    echo "$sum" >"$cache/source.cksum"
    echo "SWIFT built in $(( $(date +%s) - start )) s"
fi

# A little past the first pericentre (the span rounds up to 2^k steps): SWIFT's run is the test's
# longest step.
peri=$("$compare" pericentre $N)
span=$(awk -v p="$peri" 'BEGIN { printf "%.4f", 1.1 * p }')
rm -rf "$work" && mkdir -p "$work"
"$starburst" export --swift "$work" -n $N --span "$span" --snapshots 16
grep -q "dt_max" "$work/params.yml"
start=$(date +%s)
(cd "$work" && "$swift" --self-gravity --threads="$THREADS" params.yml >swift.log 2>&1) ||
    { tail -20 "$work/swift.log"; echo "FAIL: SWIFT stopped"; exit 1; }
echo "SWIFT ran in $(( $(date +%s) - start )) s"
# SWIFT kept the step: its last step is number 2^k (a step it halved would double the count).
k=$(sed -n 's/.*the span is 2^\([0-9]*\) steps.*/\1/p' "$work/params.yml")
last=$(awk '$1 ~ /^[0-9]+$/ && NF > 10 { s = $1 } END { print s }' "$work/swift.log")
[ -n "$k" ] && [ "$last" = "$((1 << k))" ] ||
    { echo "FAIL: SWIFT ran $last steps where params.yml asks for 2^$k"; exit 1; }
end=$(awk '$1 == "time_end:" { print $2 }' "$work/params.yml")
echo "first pericentre at t = $peri; compared up to t = $end"
"$compare" compare "$work" "$end"
echo "each snapshot before the pericentre continued in Starburst to the next"
"$compare" continue "$work" "$peri"
