#!/usr/bin/env bash
# The route phase of a re-route at the sizes of tests/bench/fabrics.sh,
# without the daemon or ibsim: reroute_engine (reroute_engine.cpp) after one
# leaf-to-spine cable at each size, and after a whole top switch at the
# sizes given in SPINE (default 27648).
#
# usage: reroute_engine.sh IBSM REROUTE_ENGINE [HOSTS...]   (default 3456 27648 43776)
# env: ENGINES (default "ftree sftree"), REPEAT (best of, default 3), SPINE
# Release build for figures that count:
#   tests/bench/reroute_engine.sh build-rel/tools/ibsm build-rel/tests/bench/reroute_engine
set -euo pipefail
IBSM=$(realpath "$1"); TOOL=$(realpath "$2"); shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3456 27648 43776)
ENGINES=${ENGINES:-ftree sftree}
REPEAT=${REPEAT:-3}
SPINE=${SPINE:-27648}
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/fabrics.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${sizes[@]}"; do
    # shellcheck disable=SC2046
    "$IBSM" topogen pgft $(pgft_args "$n") --out "$WORK/ft-$n.net" > /dev/null
    for e in $ENGINES; do
        "$TOOL" --engine "$e" --repeat "$REPEAT" "$WORK/ft-$n.net" || echo "reroute_engine failed ($e, $n hosts)"
        if [[ " $SPINE " == *" $n "* ]]; then
            "$TOOL" --engine "$e" --repeat "$REPEAT" --spine "$WORK/ft-$n.net" || echo "reroute_engine failed ($e, $n hosts, spine)"
        fi
    done
    rm -f "$WORK/ft-$n.net"
done
