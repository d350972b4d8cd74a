#!/usr/bin/env bash
# Up*/Down* benchmark: `updn` with global and with local balancing, and
# OpenSM's updn on the same fabrics, scored by `ibsm analyze` in one run.
#
#   tests/bench/updn_bench.sh [IBSM]      (default build-rel/tools/ibsm)
#
# Fabrics: the 3 456-host tree complete and minus 40 switch links, a random
# fabric of 64 24-port switches with 12 hosts each, an 8x8 torus and a
# 6-dimensional hypercube (4 hosts per switch).
# Columns: compute = the "routed by updn (X s)" line of `ibsm route` (root
# choice, orientation and routing; not LIDs or files); EBB of `ibsm analyze
# --bisections $BISECTIONS`; unreachable = pairs summed over the four classes
# (CA/switch to CA/switch); credit loop = a CDG cycle on a VL with switch
# traffic. OpenSM: `opensm -o -R updn` on ibsim, its tables read back with
# ibnetdiscover + dump_fts; "routed by" says when it fell back to minhop
# (no roots found); its compute time is from its log (opensm_lib.sh).
# env: BISECTIONS (default 1000), SKIP_OPENSM=1, KEEP_WORK=1, OSM_TIMEOUT (s, default 900)
# Not a timed test: it prints figures, it does not judge them.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
IBSM=$(realpath "${1:-$here/build-rel/tools/ibsm}")
BISECTIONS=${BISECTIONS:-1000}
OSM_TIMEOUT=${OSM_TIMEOUT:-900}
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON reports" >&2; exit 1; }
. "$here/tests/integration/ibsim_env.sh"
. "$here/tests/bench/fabrics.sh"
. "$here/tests/bench/opensm_lib.sh"
echo "work dir: $WORK" >&2

tree=$(pgft_args 3456)
declare -A fabrics=(
    [1-tree-3456]="pgft $tree"
    [2-tree-3456-minus-40]="pgft $tree --remove-links 40"
    [3-random-64x24]="random --switches 64 --hosts-per-switch 12 --ports 24 --seed 1"
    [4-torus-8x8]="torus --x 8 --y 8 --hosts-per-switch 4"
    [5-hypercube-6]="hypercube --dimension 6 --hosts-per-switch 4"
)

# summary JSON -> "ebb unreachable credit_loop"
score() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
unreach = sum(d["pairs"][c]["unreachable"] for c in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch"))
loop = d["credit_loops"]["all_traffic"]["has_loop"] or d["credit_loops"]["ca_traffic"]["has_loop"]
print(f'{d["ebb"]["value"]:.4f} {unreach} {"yes" if loop else "no"}')
PY
}

row() { printf "%-22s %-16s %-10s %-8s %-12s %-6s\n" "$@"; }
row fabric engine compute_s EBB unreachable loop
for key in $(printf '%s\n' "${!fabrics[@]}" | sort); do
    name=${key#*-}
    net=$WORK/$name.net
    # shellcheck disable=SC2086
    "$IBSM" topogen ${fabrics[$key]} --out "$net" > /dev/null
    for mode in global local; do
        out=$WORK/$name-updn-$mode
        "$IBSM" route --topology "$net" --engine updn --no-fallback --balancing "$mode" --out "$out" \
            > "$out.route" 2> "$out.err"
        secs=$(sed -n 's/.*routed by updn (\([0-9.]*\) s).*/\1/p' "$out.err")
        "$IBSM" analyze "$out" --json --bisections "$BISECTIONS" > "$out.json" 2> "$out.analyze.err"
        read -r ebb unreach loop <<< "$(score "$out.json")"
        row "$name" "updn $mode" "$secs" "$ebb" "$unreach" "$loop"
    done
    [ "${SKIP_OPENSM:-0}" = 1 ] && continue
    osm=$WORK/$name-osm
    mkdir -p "$osm/cache"
    ibsim_start "$net"
    (cd "$WORK" && OSM_CACHE_DIR="$osm/cache" LD_PRELOAD="$SIM_PRELOAD" \
        timeout -s KILL "$OSM_TIMEOUT" opensm -o -R updn -D 0x07 -f "$osm/osm.log" > "$osm/osm.out" 2>&1) || true
    if grep -q "SUBNET UP" "$osm/osm.log" 2>/dev/null; then
        by=$(grep -oE "[a-z_]+ tables configured on all switches" "$osm/osm.log" | head -n1 | cut -d' ' -f1)
        t_start=$(grep -m1 "building routing with 'updn'" "$osm/osm.log" | opensm_log_seconds || true)
        t_end=$(grep -m1 "${by:-updn} tables configured" "$osm/osm.log" | opensm_log_seconds || true)
        secs=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { if (a != "" && b != "") printf "%.3f", b - a; else print "n/a" }')
        sim ibnetdiscover > "$osm/topology.net" 2> /dev/null
        sim dump_fts > "$osm/lfts.dump" 2> /dev/null
        "$IBSM" analyze --topology "$osm/topology.net" --lfts "$osm/lfts.dump" --json \
            --bisections "$BISECTIONS" > "$osm/report.json" 2> "$osm/analyze.err"
        read -r ebb unreach loop <<< "$(score "$osm/report.json")"
        row "$name" "OpenSM updn${by:+ ($by)}" "$secs" "$ebb" "$unreach" "$loop"
    else
        row "$name" "OpenSM updn" "n/a" "(no SUBNET UP, see $osm)" "" ""
    fi
    ibsim_stop
done
