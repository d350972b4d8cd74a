#!/bin/bash
# MinHop benchmark: our MinHop compute time (ibsm route) next to OpenSM's
# minhop routing time on the same generated fat-trees, in one run.
#
#   tests/bench/minhop_bench.sh [SIZE...]      SIZE in 648 3456 11664 (default: all)
#
# Environment: IBSM (ibsm binary, default build/tools/ibsm), WORK (scratch
# directory, default a fresh mktemp dir, kept), OSM_TIMEOUT (seconds for one
# OpenSM run, default 900), SKIP_OPENSM=1 to time only ibsm.
#
# Ours: the "routed by minhop (X s)" line `ibsm route` prints (engine only:
# hop tables + LFTs; not LID assignment or file output), plus the whole
# command's wall time.
# OpenSM: it runs once (-o) against ibsim on the same net file with
# -R minhop -D 0x07; its log timestamps (microseconds) give
#   route  = "building routing with 'minhop'" -> "minhop tables configured"
#            (min-hop matrices + LFT computation + queueing the LFT Sets)
#   up     = first log line -> "SUBNET UP".
# Not a timed test: it prints figures, it does not judge them.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
IBSM=${IBSM:-$here/build/tools/ibsm}
WORK=${WORK:-$(mktemp -d /tmp/minhop-bench.XXXXXX)}
OSM_TIMEOUT=${OSM_TIMEOUT:-900}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(648 3456 11664)

[ -x "$IBSM" ] || { echo "no ibsm binary at $IBSM (build first)" >&2; exit 1; }
mkdir -p "$WORK"
echo "work dir: $WORK" >&2

. "$(dirname "$0")/fabrics.sh"

. "$(dirname "$0")/opensm_lib.sh"

run_opensm() { # size net -> prints "route_s up_s" or "n/a n/a"
    opensm_measure minhop "$2" "$WORK/osm-$1" "$OSM_TIMEOUT"
}

printf "%-7s %-9s %-8s | %-14s %-12s | %-14s %-12s\n" hosts switches lids "ibsm minhop s" "ibsm total s" "opensm route s" "opensm up s"
for n in "${sizes[@]}"; do
    args=$(pgft_args "$n")
    net=$WORK/pgft-$n.net
    # shellcheck disable=SC2086
    "$IBSM" topogen pgft $args --out "$net" >&2
    start=$(date +%s.%N)
    "$IBSM" route --topology "$net" --engine minhop --out "$WORK/route-$n" > "$WORK/route-$n.out" 2> "$WORK/route-$n.err" || [ $? -eq 2 ] # 2: degraded (gate), tables written
    end=$(date +%s.%N)
    ours=$(sed -n 's/.*routed by minhop (\([0-9.]*\) s).*/\1/p' "$WORK/route-$n.err")
    total=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    switches=$(sed -n 's/^switches: //p' "$WORK/route-$n.out")
    lids=$(sed -n 's/^lids: .* top \([0-9]*\),.*/\1/p' "$WORK/route-$n.out")
    if [ "${SKIP_OPENSM:-0}" = 1 ]; then
        osm="skipped skipped"
    else
        osm=$(run_opensm "$n" "$net")
    fi
    read -r osm_route osm_up _ <<< "$osm"
    printf "%-7s %-9s %-8s | %-14s %-12s | %-14s %-12s\n" "$n" "$switches" "$lids" "$ours" "$total" "$osm_route" "$osm_up"
done
