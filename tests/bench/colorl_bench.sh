#!/bin/bash
# Seed 002's Tables 1-3 and the path engines' speed figures, by
# tests/bench/colorl_bench.cpp. Build release for the figures that count:
#   meson setup build-rel --buildtype=release && ninja -C build-rel tools/ibsm tests/bench/colorl_bench
#   tests/bench/colorl_bench.sh build-rel            (INSTANCES=32 THREADS=2 by default)
# Under `meson test --benchmark` the binaries come as arguments instead.
# SKIP_TABLES=1 runs only the speed part; SKIP_TREE=1 leaves out the tree.
set -euo pipefail
if [ $# -ge 2 ] && [ -x "$1" ] && [ -x "$2" ]; then
    ibsm=$1 bench=$2
else
    build=${1:-build-rel}
    ibsm=$build/tools/ibsm bench=$build/tests/bench/colorl_bench
fi
[ -x "$ibsm" ] && [ -x "$bench" ] || { echo "colorl_bench: build $ibsm and $bench first" >&2; exit 1; }
. "$(dirname "$0")/fabrics.sh"
work=$(mktemp -d /tmp/colorl-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
threads=${THREADS:-2}

nets=()
if [ -z "${SKIP_TREE:-}" ]; then
    # shellcheck disable=SC2046
    "$ibsm" topogen pgft $(pgft_args 3456) --out "$work/tree-3456.net" >/dev/null 2>&1
    nets+=("$work/tree-3456.net")
fi
echo "== speed: pathsel + color/L (targets: 512/64 < 1 s, 3456-host tree < 10 s)"
"$bench" speed --threads "$threads" --scattered 512/64 "${nets[@]}"
echo
if [ -z "${SKIP_TABLES:-}" ]; then
    echo "== seed 002 Tables 1-3"
    "$bench" tables --threads "$threads" --instances "${INSTANCES:-32}" ${CONFIGS:+--configs "$CONFIGS"}
fi
