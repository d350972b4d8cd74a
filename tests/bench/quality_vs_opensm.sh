#!/usr/bin/env bash
# Route quality side by side: our engine (`ibsm route`) and OpenSM's (run on
# ibsim, its tables read back from the simulated switches with ibnetdiscover +
# dump_fts, as an operator would score a live fabric), both scored by
# `ibsm analyze` with the same seed and number of bisections.
#
# usage: quality_vs_opensm.sh IBSM OUR_ENGINE OPENSM_ENGINE [topogen args...]
#   default fabric: pgft --m 12,12,24 --w 1,12,12 --p 1,1,1 (3456 hosts)
# env: BISECTIONS (default 1000), KEEP_WORK=1 keeps the tables and reports
set -euo pipefail
IBSM=$(realpath "$1"); ours=$2; theirs=$3; shift 3
gen=("$@")
[ ${#gen[@]} -eq 0 ] && gen=(pgft --m 12,12,24 --w 1,12,12 --p 1,1,1)
BISECTIONS=${BISECTIONS:-1000}
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON reports" >&2; exit 1; }
. "$(dirname "$0")/../integration/ibsim_env.sh"

"$IBSM" topogen "${gen[@]}" --out "$WORK/fabric.net" >&2

t0=$(date +%s.%N)
"$IBSM" route --topology "$WORK/fabric.net" --engine "$ours" --out "$WORK/ours" > "$WORK/ours.route" 2> "$WORK/ours.err" || [ $? -eq 2 ] # 2: degraded (gate), tables written
t1=$(date +%s.%N)
grep -E "^engine|refused" "$WORK/ours.route" >&2 || true
"$IBSM" analyze "$WORK/ours" --json --bisections "$BISECTIONS" > "$WORK/ours.json"

ibsim_start "$WORK/fabric.net"
mkdir -p "$WORK/osm-cache"
(cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache" LD_PRELOAD="$SIM_PRELOAD" \
    timeout -s KILL 900 opensm -o -R "$theirs" -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1) || true
grep -m1 "SUBNET UP" "$WORK/osm.log" > /dev/null || { echo "OpenSM did not reach SUBNET UP (see $WORK/osm.log)" >&2; exit 1; }
routed_by=$(grep -oE "[a-z_]+ tables configured on all switches" "$WORK/osm.log" | head -n1 | cut -d' ' -f1)
sim ibnetdiscover > "$WORK/osm-topology.net" 2>/dev/null
sim dump_fts > "$WORK/osm-lfts.dump" 2>/dev/null
"$IBSM" analyze --topology "$WORK/osm-topology.net" --lfts "$WORK/osm-lfts.dump" --json \
    --bisections "$BISECTIONS" > "$WORK/theirs.json"

python3 - "$WORK/ours.json" "$WORK/theirs.json" "ibsmd $ours" "OpenSM $theirs (routed by ${routed_by:-?})" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" <<'PY'
import json, sys
ours, theirs = (json.load(open(p)) for p in sys.argv[1:3])
names = sys.argv[3:5]
def row(label, f):
    vals = []
    for d in (ours, theirs):
        try:
            v = f(d)
        except (KeyError, TypeError):
            v = "n/a"
        vals.append(f"{v:.4f}" if isinstance(v, float) else str(v))
    print(f"{label:<38} {vals[0]:>22} {vals[1]:>32}")
print(f"{'':<38} {names[0]:>22} {names[1]:>32}")
for cls in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch"):
    row(f"unreachable {cls}", lambda d, c=cls: d["pairs"][c]["unreachable"])
    row(f"loops {cls}", lambda d, c=cls: d["pairs"][c]["loops"])
row("credit loop (CA traffic)", lambda d: d["credit_loops"]["ca_traffic"]["has_loop"])
row("credit loop (CA + switch traffic)", lambda d: d["credit_loops"]["all_traffic"]["has_loop"])
row("effective bisection bandwidth", lambda d: d["ebb"]["value"])
row("shift average", lambda d: d["shifts"]["average"])
row("shift minimum", lambda d: d["shifts"]["min"])
row("edge forwarding max (switch links)", lambda d: d["edge_forwarding"]["switch_links"]["max"])
row("CA-to-CA hops mean", lambda d: d["pairs"]["ca_to_ca"]["hops"]["mean"])
print(f"ibsm route wall time (LIDs + routing + files): {sys.argv[5]} s")
PY
