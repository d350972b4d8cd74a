#!/bin/bash
# The verification gate's cost on the benchmark fat-trees (fabrics.sh), by
# tests/bench/gate_bench.cpp. Build release for the figures that count:
#   meson setup build-rel --buildtype=release && ninja -C build-rel tools/ibsm tests/bench/gate_bench
#   tests/bench/gate_bench.sh build-rel [SIZE...]      SIZE in 648 3456 11664 27648 43776 (default 3456 11664)
# Under `meson test --benchmark` the binaries come as arguments instead.
set -euo pipefail
if [ $# -ge 2 ] && [ -x "$1" ] && [ -x "$2" ]; then
    ibsm=$1 bench=$2
    shift 2
else
    build=${1:-build-rel}
    [ $# -gt 0 ] && shift
    ibsm=$build/tools/ibsm bench=$build/tests/bench/gate_bench
fi
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3456 11664)
[ -x "$ibsm" ] && [ -x "$bench" ] || { echo "gate_bench: build $ibsm and $bench first" >&2; exit 1; }
. "$(dirname "$0")/fabrics.sh"
work=$(mktemp -d /tmp/gate-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
nets=()
for n in "${sizes[@]}"; do
    # shellcheck disable=SC2046
    "$ibsm" topogen pgft $(pgft_args "$n") --out "$work/pgft-$n.net" >/dev/null 2>&1
    nets+=("$work/pgft-$n.net")
done
"$bench" --repeat "${REPEAT:-5}" ${THREADS:+--threads "$THREADS"} "${nets[@]}"
