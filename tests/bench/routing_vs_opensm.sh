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
# ftree,nue,dfsssp` with the minhop last resort, as ibsmd runs it); compute
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
command -v python3 > /dev/null || { echo "routing_vs_opensm: python3 is needed to read the JSON reports" >&2; exit 1; }
. "$here/tests/bench/fabrics.sh"
. "$here/tests/bench/opensm_lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/routing-vs-opensm.XXXXXX")
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
echo "work dir: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# score JSON SL_KNOWN -> "EBB STRETCH CA->CA CA->sw sw->CA sw->sw LOOP"
score() {
    python3 - "$1" "$2" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ebb = (d.get("ebb") or {}).get("value")
un = [d["pairs"][c]["unreachable"] + d["pairs"][c]["loops"]
      for c in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch")]
yn = lambda b: "yes" if b else "no"
cl = d["credit_loops"]
loop = f'{yn(cl["ca_traffic"]["has_loop"])}/{yn(cl["all_traffic"]["has_loop"])}' if sys.argv[2] == "1" else "-"
st = d["pairs"]["ca_to_ca"].get("stretch", {}).get("max")
print(f"{ebb:.4f}" if ebb is not None else "n/a", f"{st:.2f}" if st is not None else "n/a", *un, loop)
PY
}

row() { printf "%-14s %-18s %8s %7s %5s %6s %6s %6s %6s %7s %5s  %s\n" "$@"; }

# ours FABRIC LABEL NET ROUTE_ARGS...
ours() {
    local fab=$1 label=$2 net=$3 out=$WORK/$1-ours-${2// /_} t best="" rc
    shift 3
    for _ in $(seq 1 "$BEST_OF"); do
        rc=0
        "$IBSM" route --topology "$net" "$@" --out "$out" > "$out.route" 2> "$out.err" || rc=$?
        # 2: degraded (no engine passed the gate), tables written anyway
        [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || break
        t=$(sed -n 's/.*routed by [a-z_]* (\([0-9.]*\) s).*/\1/p' "$out.err")
        [ -n "$t" ] || continue
        best=$(printf "%s\n%s\n" "$t" "$best" | sed '/^$/d' | sort -g | head -n1)
    done
    if [ -z "$best" ]; then
        row "$fab" "ibsm $label" n/a - - - - - - - - "refused: $(sed -n 's/^refused: //p' "$out.route" | tr '\n' ';' | cut -c1-160)"
        return
    fi
    "$IBSM" analyze "$out" --json --bisections "$BISECTIONS" > "$out.json" 2> "$out.analyze.err"
    local vls engine note
    vls=$(sed -n 's/^vls: \([0-9]*\) used, \([0-9]*\) needed/\2\/\1/p' "$out.route")
    engine=$(sed -n 's/^engine: //p' "$out.route")
    note="routed by $engine"
    grep -q '^DEGRADED' "$out.route" && note="DEGRADED, $note"
    # shellcheck disable=SC2046
    row "$fab" "ibsm $label" "$best" $(score "$out.json" 1) "$vls" "$note"
}

# theirs FABRIC ENGINE NET
theirs() {
    local fab=$1 engine=$2 net=$3 dir=$WORK/$1-osm-$2 route_s by needed sl_known=1
    read -r route_s _ by <<< "$(OPENSM_READBACK=1 opensm_measure "$engine" "$net" "$dir" "$OSM_TIMEOUT")"
    if ! grep -q "SUBNET UP" "$dir/osm.log" 2> /dev/null || [ ! -s "$dir/lfts.dump" ]; then
        row "$fab" "OpenSM $engine" n/a - - - - - - - - "no SUBNET UP or no tables read back (see $dir)"
        return
    fi
    "$IBSM" analyze --topology "$dir/topology.net" --lfts "$dir/lfts.dump" --json --bisections "$BISECTIONS" \
        > "$dir/report.json" 2> "$dir/analyze.err"
    needed=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$dir/osm.log" | tail -n1)
    [ "$by" = dfsssp ] && sl_known=0
    # shellcheck disable=SC2046
    row "$fab" "OpenSM $engine" "$route_s" $(score "$dir/report.json" "$sl_known") "${needed:--}" "routed by $by"
}

row fabric engine compute_s EBB str "CA-CA" "CA-sw" "sw-CA" "sw-sw" "loop" VLs note
for fab in "${fabrics[@]}"; do
    net=$WORK/$fab.net
    # shellcheck disable=SC2046
    "$IBSM" topogen $(fabric_args "$fab") --out "$net" > /dev/null
    for engine in sssp dfsssp updn; do
        ours "$fab" "$engine" "$net" --engine "$engine" --no-fallback
    done
    ours "$fab" "default chain" "$net" --engine ftree,nue,dfsssp
    [ "${SKIP_OPENSM:-0}" = 1 ] && continue
    for engine in "${osm_engines[@]}"; do theirs "$fab" "$engine" "$net"; done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
