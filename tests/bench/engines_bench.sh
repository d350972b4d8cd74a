#!/bin/bash
# The routing engines' targets in one command: compute time (engine alone,
# tests/bench/engine_time.cpp) and maximum RSS (/usr/bin/time) of
#   pathsel + color/L at 3 456 hosts  (target <= 3 s, <= 300 MB)
#   pathsel + color/L at 11 664 hosts (target <= 1.5 GB)
#   dfsssp at 11 664 hosts            (target <= 5 s)
#   sssp at 27 648 hosts              (target <= 5 s)
# each on the PGFT of tests/bench/fabrics.sh, one process per row, with the
# target beside it. Needs a release build for figures that count:
#   meson setup build-rel --buildtype=release -Dtests=true
#   ninja -C build-rel tools/ibsm tests/bench/engine_time
#   tests/bench/engines_bench.sh build-rel
# Under `meson test --benchmark` the binaries come as arguments instead.
# CASES="dfsssp:11664 ..." picks rows; REPEAT=N reports the fastest of N
# computes (default 1; the maximum RSS is the process's). Prints figures; the
# machine is shared, so compare builds in one sitting.
set -euo pipefail
if [ $# -ge 2 ] && [ -x "$1" ] && [ -x "$2" ]; then
    ibsm=$1 timer=$2
else
    build=${1:-build-rel}
    ibsm=$build/tools/ibsm timer=$build/tests/bench/engine_time
fi
[ -x "$ibsm" ] && [ -x "$timer" ] || { echo "engines_bench: build $ibsm and $timer first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "engines_bench: /usr/bin/time is needed for the maximum RSS" >&2; exit 1; }
. "$(dirname "$0")/fabrics.sh"
work=$(mktemp -d /tmp/engines-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

cases=${CASES:-"pathsel:3456 pathsel:11664 dfsssp:11664 sssp:27648"}
target() {
    case $1 in
        pathsel:3456) echo "<= 3 s, <= 300 MB" ;;
        pathsel:11664) echo "<= 1.5 GB" ;;
        dfsssp:11664 | sssp:27648) echo "<= 5 s" ;;
        *) echo "-" ;;
    esac
}
printf "%-9s %7s %10s %10s %10s  %s\n" engine hosts "wall s" "CPU s" "max RSS MB" target
for c in $cases; do
    engine=${c%%:*} hosts=${c#*:} net=$work/$hosts.net
    # shellcheck disable=SC2046
    [ -f "$net" ] || "$ibsm" topogen pgft $(pgft_args "$hosts") --out "$net" > /dev/null
    if ! /usr/bin/time -f "%M" -o "$work/rss" "$timer" --repeat "${REPEAT:-1}" "$engine" "$net" > "$work/out" 2>&1; then
        printf "%-9s %7s  failed: %s\n" "$engine" "$hosts" "$(tail -n1 "$work/out")"
        continue
    fi
    wall=$(sed -n 's/.*compute \([0-9.]*\) s wall.*/\1/p' "$work/out")
    cpu=$(sed -n 's/.* \([0-9.]*\) s CPU.*/\1/p' "$work/out")
    printf "%-9s %7s %10s %10s %10d  %s\n" "$engine" "$hosts" "$wall" "$cpu" $(($(tail -n1 "$work/rss") / 1024)) "$(target "$c")"
done
