#!/usr/bin/env bash
# The routing table of docs/routing.md: our sssp, dfsssp, updn (global balancing) and
# default chain against OpenSM's sssp, dfsssp and updn, in one run, on the
# fabrics of fabrics.sh's fabric_args (a chain of three trees, a random
# fabric, an 8x8 torus, a 6-dimensional hypercube, the 3 456-host tree
# complete and minus 40 switch links). Not a timed test: it prints a table.
#
#   tests/bench/routing_vs_opensm.sh [IBSM [FABRIC...]]
#     IBSM     a release build's ibsm (default build-rel/tools/ibsm)
#     FABRIC   names of fabric_args (default: the six above)
# env: BISECTIONS (default 1000), BEST_OF=N our fastest of N runs (default 3:
#      the machine is shared), SKIP_OPENSM=1, OSM_ENGINES (default
#      "sssp dfsssp updn"), OSM_TIMEOUT (s, default 900), KEEP_WORK=1 keeps the
#      net files, tables, reports and OpenSM logs.
#
# Ours: `ibsm route --engine E --no-fallback` (the default chain: `--engine
# ftree,dfsssp-or-nue,updn` with the minhop last resort, as ibsmd runs it); compute
# time = its "routed by" line: the chain with the verification gate, no LIDs
# or files. Scored by `ibsm analyze --bisections $BISECTIONS` on the route
# directory, with the SL file when the engine wrote one (credit loops per VL).
# OpenSM: `opensm -o -R E` on a private ibsim (opensm_lib.sh), its tables read
# back with ibnetdiscover + dump_fts and scored by the same analyzer; compute
# time = its log's "building routing with" -> "tables configured" (n/a when
# it fell back to another engine: see "routed by"); VLs needed from its log.
# OpenSM hands dfsssp's SLs out only in PathRecord answers (at random within
# a layer), so a dfsssp credit-loop verdict on its tables cannot be made:
# "-". Its sssp, updn and minhop use SL 0 only, checked on one VL.
#
# Columns: compute s | EBB | max stretch of CA->CA routes | unreachable (or looping) pairs CA->CA, CA->sw,
# sw->CA, sw->sw | credit loop in CA traffic / with switch traffic | VLs
# needed/used (ours; OpenSM: needed) | who routed, refusal or DEGRADED.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
IBSM=$(realpath "${1:-$here/build-rel/tools/ibsm}")
[ $# -gt 0 ] && shift
[ -x "$IBSM" ] || { echo "routing_vs_opensm: $IBSM not found (meson setup build-rel --buildtype=release)" >&2; exit 1; }
fabrics=("$@")
[ ${#fabrics[@]} -eq 0 ] && fabrics=(chain-744 random-64x24 torus-8x8 hypercube-6 tree-3456 tree-3456-m40)
BISECTIONS=${BISECTIONS:-1000}
BEST_OF=${BEST_OF:-3}
OSM_TIMEOUT=${OSM_TIMEOUT:-900}
read -r -a osm_engines <<< "${OSM_ENGINES:-sssp dfsssp updn}"
. "$here/tests/bench/fabrics.sh"
. "$here/tests/bench/opensm_lib.sh"
. "$here/tests/bench/route_table_lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/routing-vs-opensm.XXXXXX")
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
echo "work dir: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

row() { printf "%-14s %-18s %8s %7s %5s %6s %6s %6s %6s %7s %5s  %s\n" "$@"; }

# ours FABRIC LABEL NET ROUTE_ARGS...
ours() {
    local fab=$1 label=$2 net=$3 cells
    shift 3
    IFS=$'\t' read -r -a cells < <(ours_cells "$IBSM" "$BEST_OF" "$BISECTIONS" "$WORK/$fab-ours-${label// /_}" \
        --topology "$net" "$@")
    row "$fab" "ibsm $label" "${cells[@]}"
}

# theirs FABRIC ENGINE NET
theirs() {
    local fab=$1 engine=$2 net=$3 dir=$WORK/$1-osm-$2 route_s by cells
    read -r route_s _ by <<< "$(OPENSM_READBACK=1 opensm_measure "$engine" "$net" "$dir" "$OSM_TIMEOUT")"
    IFS=$'\t' read -r -a cells < <(theirs_cells "$IBSM" "$BISECTIONS" "$dir" "$route_s" "$by" \
        "$([ "$by" = dfsssp ] && echo 0 || echo 1)")
    row "$fab" "OpenSM $engine" "${cells[@]}"
}

row fabric engine compute_s EBB str "CA-CA" "CA-sw" "sw-CA" "sw-sw" "loop" VLs note
for fab in "${fabrics[@]}"; do
    net=$WORK/$fab.net
    rc=0
    fabric_make "$IBSM" "$fab" "$net" || rc=$?
    [ "$rc" -eq 3 ] && continue
    [ "$rc" -eq 0 ] || exit "$rc"
    for engine in sssp dfsssp updn; do
        ours "$fab" "$engine" "$net" --engine "$engine" --no-fallback
    done
    ours "$fab" "default chain" "$net" --engine ftree,dfsssp-or-nue,updn
    [ "${SKIP_OPENSM:-0}" = 1 ] && continue
    for engine in "${osm_engines[@]}"; do theirs "$fab" "$engine" "$net"; done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
