#!/bin/bash
# sssp and dfsssp (seed 001 §III-A and §III-D): compute time, route quality and VLs needed,
# side by side with OpenSM's sssp and dfsssp on the same net files. Not a
# timed test: it prints a table.
#
# usage: tests/bench/sssp_bench.sh [BUILD_DIR] [FABRICS]
#   BUILD_DIR  a release build (default: build-release next to this checkout)
#   FABRICS    any of 3456 3456-m40 11664 torus-8x8 ring-16
#              (default: 3456 3456-m40 torus-8x8); 3456-m40 is the 3456-host
#              tree minus 40 switch-to-switch links (`--remove-links 40`)
# env: NO_OPENSM=1 skips OpenSM (minutes per fabric: its dfsssp routing alone
#      takes 25-40 s at 3456 hosts); BEST_OF=N reports the fastest of N runs
#      of our engines (default 3, the machine is shared); BISECTIONS for the
#      effective bisection bandwidth (default 1000); KEEP_WORK=1 keeps the work
#      directory (net files, tables, OpenSM logs).
#
# Ours: `ibsm route --engine E --no-fallback` (compute time from its "routed
# by" line: routing only, no LIDs or files), scored by `ibsm analyze` with the
# SL file it wrote. OpenSM: `opensm -o -R E` on a private ibsim; route time
# from its log ("building routing with" -> "tables configured"), VLs needed
# from "Virtual Lanes needed", its tables read back with ibnetdiscover +
# dump_fts and scored by the same analyzer. OpenSM hands out SLs only in
# PathRecord answers (at random within a layer), so its credit loops per VL
# cannot be read back: that column is "-" for it.
#
# Columns: route s | EBB | unreachable pairs (all four classes) | credit loop
# with switch traffic, per VL | VLs needed/used, or why the engine refused.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-release}
fabrics=${2:-"3456 3456-m40 torus-8x8"}
ibsm=$(realpath "$build/tools/ibsm")
[ -x "$ibsm" ] || { echo "sssp_bench: $ibsm not found (meson setup $build --buildtype=release)" >&2; exit 1; }
BISECTIONS=${BISECTIONS:-1000}
command -v python3 > /dev/null || { echo "sssp_bench: python3 is needed to read the JSON reports" >&2; exit 1; }

. "$here/tests/integration/ibsim_env.sh"
. "$here/tests/bench/fabrics.sh"

make_net() {
    case $1 in
        3456 | 11664) "$ibsm" topogen pgft $(pgft_args "$1") --out "$2" ;;
        3456-m40) "$ibsm" topogen pgft $(pgft_args 3456) --remove-links 40 --out "$2" ;;
        torus-8x8) "$ibsm" topogen torus --x 8 --y 8 --hosts-per-switch 4 --out "$2" ;;
        ring-16) "$ibsm" topogen ring --switches 16 --hosts-per-switch 4 --out "$2" ;;
        *) echo "sssp_bench: unknown fabric '$1'" >&2; return 1 ;;
    esac > /dev/null
}

# summary JSON [SL_KNOWN]: "EBB unreachable credit_loop" from an analyze report.
summary() {
    python3 - "$1" "${2:-1}" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ebb = (d.get("ebb") or {}).get("value")
unreach = sum(c["unreachable"] for c in d["pairs"].values())
loop = d["credit_loops"]["all_traffic"]["has_loop"] if sys.argv[2] == "1" else "-"
print(f"{ebb:.4f}" if ebb is not None else "n/a", unreach, str(loop).lower())
PY
}

row() { printf "%-10s %-14s %9s %8s %12s %12s  %s\n" "$@"; }

ours() {
    local fab=$1 engine=$2 net=$3 out=$WORK/ours-$1-$2 i t best=""
    for i in $(seq 1 "${BEST_OF:-3}"); do
        "$ibsm" route --topology "$net" --engine "$engine" --no-fallback --out "$out" > "$out.route" 2> "$out.err" || true
        t=$(sed -n "s/.*routed by $engine (\([0-9.]*\) s).*/\1/p" "$out.err")
        [ -n "$t" ] || continue
        best=$(printf "%s\n%s\n" "$t" "$best" | sed '/^$/d' | sort -g | head -n1)
    done
    if [ -z "$best" ]; then
        row "$fab" "ibsm $engine" n/a - - - "$(sed -n 's/^refused: //p' "$out.route" | head -n1)"
        return
    fi
    "$ibsm" analyze "$out" --json --bisections "$BISECTIONS" > "$out.json" 2> /dev/null
    local vls
    vls=$(sed -n 's/^vls: \([0-9]*\) used, \([0-9]*\) needed/\2\/\1/p' "$out.route")
    # shellcheck disable=SC2046
    row "$fab" "ibsm $engine" "$best" $(summary "$out.json") "$vls"
}

theirs() {
    local fab=$1 engine=$2 net=$3 dir=$WORK/osm-$1-$2
    mkdir -p "$dir/cache"
    ibsim_start "$net"
    (cd "$dir" && OSM_CACHE_DIR=$dir/cache LD_PRELOAD=$SIM_PRELOAD \
        timeout -s KILL 1800 opensm -o -R "$engine" -D 0x07 -f "$dir/osm.log" > "$dir/osm.out" 2>&1) || true
    local log=$dir/osm.log
    if ! grep -q "SUBNET UP" "$log" 2> /dev/null; then
        ibsim_stop
        row "$fab" "OpenSM $engine" n/a - - - "no SUBNET UP (see $dir)"
        return
    fi
    sim ibnetdiscover > "$dir/topology.net" 2> /dev/null
    sim dump_fts > "$dir/lfts.dump" 2> /dev/null
    ibsim_stop
    local routed_by route_s needed
    routed_by=$(grep -oE "[a-z_]+ tables configured on all switches" "$log" | head -n1 | cut -d' ' -f1)
    route_s=$(awk '/building routing with/ && !a { split($3, t, ":"); a = t[1]*3600 + t[2]*60 + t[3] + $4/1e6 }
                   /tables configured on all switches/ && !b { split($3, t, ":"); b = t[1]*3600 + t[2]*60 + t[3] + $4/1e6 }
                   END { if (a && b) printf "%.3f", b - a; else print "n/a" }' "$log")
    needed=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$log" | tail -n1)
    "$ibsm" analyze --topology "$dir/topology.net" --lfts "$dir/lfts.dump" --json --bisections "$BISECTIONS" \
        > "$dir/report.json" 2> /dev/null
    local note="routed by ${routed_by:-?}"
    [ -n "$needed" ] && note="$needed needed; $note"
    # shellcheck disable=SC2046
    row "$fab" "OpenSM $engine" "$route_s" $(summary "$dir/report.json" "$([ "$engine" = sssp ] && echo 1 || echo 0)") "$note"
}

row fabric engine "route s" EBB unreachable "credit loop" "VLs needed/used"
for fab in $fabrics; do
    net=$WORK/$fab.net
    make_net "$fab" "$net"
    for engine in sssp dfsssp; do ours "$fab" "$engine" "$net"; done
    if [ "${NO_OPENSM:-0}" != 1 ]; then
        for engine in sssp dfsssp; do theirs "$fab" "$engine" "$net"; done
    fi
done
