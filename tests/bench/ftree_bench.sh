#!/bin/bash
# Fat-tree routing compute time: ibsmd's `ftree` and `sftree` (via `ibsm route`)
# side by side with OpenSM's ftree routing time read from its log, on the same
# net files (issue 4 §6). Not a timed test: it prints a table.
#
# usage: tests/bench/ftree_bench.sh [BUILD_DIR] [SIZES]
#   BUILD_DIR  a release build (default: build-release next to this checkout)
#   SIZES      any of 648 3456 11664 (default: all three)
# Set NO_OPENSM=1 to skip the OpenSM runs (they need ibsim and take minutes at
# 11664 hosts).
#
# OpenSM: `opensm -o -R ftree` against a private ibsim on the same net file;
# its routing time comes from its own log (tests/bench/opensm_lib.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-release}
sizes=${2:-"648 3456 11664"}
ibsm=$build/tools/ibsm
[ -x "$ibsm" ] || { echo "ftree_bench: $ibsm not found (meson setup $build -Dbuildtype=release)" >&2; exit 1; }
work=$(mktemp -d /tmp/ftree-bench.XXXXXX)
trap 'cleanup' EXIT
cleanup() { rm -rf "$work"; }

pgft_args() {
    case $1 in
        648) echo "--m 18,36 --w 1,18 --p 1,1" ;;
        3456) echo "--m 12,12,24 --w 1,12,12 --p 1,1,1" ;;
        11664) echo "--m 18,18,36 --w 1,18,18 --p 1,1,1" ;;
        *) echo "ftree_bench: unknown size $1" >&2; exit 1 ;;
    esac
}

# "routed by ENGINE (0.066 s)" from ibsm route's progress lines.
ibsm_time() {
    local net=$1 engine=$2
    "$ibsm" route --topology "$net" --out "$work/out-$engine" --engine "$engine" --no-fallback 2>&1 |
        sed -n "s/.*routed by $engine (\([0-9.]*\) s).*/\1/p"
}

. "$(dirname "$0")/opensm_lib.sh"

opensm_time() {
    local net=$1 tag=$2
    [ "${NO_OPENSM:-0}" = 1 ] && { echo "skipped"; return; }
    opensm_measure ftree "$net" "$work/osm-$tag" | cut -d' ' -f1
}

printf "%-8s %-40s %12s %12s %14s\n" hosts fabric "ftree (s)" "sftree (s)" "OpenSM ftree (s)"
for n in $sizes; do
    net=$work/pgft-$n.net
    "$ibsm" topogen pgft $(pgft_args "$n") --out "$net" > /dev/null
    f=$(ibsm_time "$net" ftree)
    s=$(ibsm_time "$net" sftree)
    o=$(opensm_time "$net" "$n")
    printf "%-8s %-40s %12s %12s %14s\n" "$n" "PGFT($(pgft_args "$n" | tr -s ' '))" "$f" "$s" "$o"
done
