#!/usr/bin/env bash
# QoS on a multi-layer routing, on ibsim: a ring of 5 switches with 2 hosts
# each, where dfsssp needs 2 layers, and a policy with 2 levels in 2 VL
# bands (bulk: SL 1 on VL band 1, towards the storage hosts; mpi: SL 2 on
# band 0), so the routing gets half of the 8 VLs: L = 4 layers.
#  - the log has the budget line and dfsssp's plan on 4 layers in 2 bands;
#  - `smpquery sl2vl` on every switch (each linked input port and port 0
#    towards one output port) and on a CA port reads the widened table:
#    SL s = class * L + layer -> VL band(class) * L + layer;
#  - `saquery PR` for a pair towards a storage host returns 1 * L + the
#    pair's routing layer (from the daemon's sl.txt), for an unmatched pair
#    the routing layer itself (pairs on a layer above 0 are chosen);
#  - the read-back tables (ibnetdiscover + dump_fts) with sl.txt and
#    `ibsm analyze --qos` on the same configuration: 0 unreachable or
#    looping pairs and no credit loop on any of the 8 VLs;
#  - VLHighLimit: ibsim does not store it (nor SubnetTimeout, MasterSMSL,
#    M_KeyLeasePeriod), so the first sweep warns once per CA port that it
#    keeps 0, and `ibsm resweep --heavy` sends no PortInfo Set (it sent one
#    to every CA port and switch port 0 before the SM learned this);
#  - a policy in 5 bands leaves 1 layer: dfsssp says so with the numbers
#    and puts what does not fit onto its escape layer (the only one), SUBNET
#    UP, and the tables read back have no credit loop on the 5 VLs.
#
# usage: qos_layers.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v saquery > /dev/null || fail "saquery not found (apt-get install infiniband-diags)"

"$IBSM" topogen ring --switches 5 --hosts-per-switch 2 --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
JUDGE=${CAS[1]}
judge() { SIM_HOST=$JUDGE sim "$@"; }
STATE="$WORK/state"

# policy BULK_VL: bulk's SL 1 goes to VL BULK_VL (1: 2 bands; 4: 5 bands).
policy() {
    cat << YAML
state_dir: $STATE
routing: {engines: [dfsssp, updn]}
qos:
  port_groups:
    storage: {node_desc: ["host-000[5-9]"]}
  levels:
    bulk: {sl: 1}
    mpi: {sl: 2}
  rules:
    - {service_id: [0x0000000000010000], level: mpi}
    - {destination: storage, level: bulk}
  sl2vl:
    ca: [0, $1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch: [0, $1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch_port0: [0, $1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  vlarb:
    ca: {high: [{vl: $1, weight: 32}], low: [{vl: 0, weight: 64}], high_limit: 4}
YAML
}
policy 1 > "$WORK/ibsmd.yaml"

echo "--- ibsmd --foreground: dfsssp under a 2-band policy"
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --log-level info
sm_wait_up 0 120
grep -E "qos|engine .* refused|phase route" "$SM_LOG" | head -n 20
grep -qF "qos: qos has 2 levels in 3 SL classes and 2 VL bands, ports carry 8 VLs: routing gets 4 layers" "$SM_LOG" ||
    fail "no budget line"
grep -qF "qos: SL/VL plan for engine dfsssp: 4 routing layer(s) in each of 2 VL band(s), 8 VL(s)" "$SM_LOG" ||
    fail "dfsssp did not route on 4 layers in 2 bands"
L=$(sed -n 's/^vls \([0-9]*\)$/\1/p' "$STATE/sl.txt")
[ "$L" = 4 ] || fail "sl.txt says '$L' layers, the plan 4"

# want_row: the widened table, "0,1,...": class c = s / L (SL 0, SL 1 = bulk,
# SL 2 = mpi, then unused), band of the class (bulk: 1, others 0).
want_row=$(awk -v L="$L" 'BEGIN { for (s = 0; s < 16; s++) { c = int(s / L); b = (c == 1) ? 1 : 0
    printf "%s%d", (s ? "," : ""), b * L + s % L } }')
echo "--- SL2VL read back: $want_row"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2> /dev/null || fail "ibnetdiscover failed"
mapfile -t sw_ports < <(awk 'function flush() { if (lid != "" && ports != "") print lid ports; lid = ""; ports = "" }
    /^Switch/ { flush(); if (match($0, / lid [0-9]+ /)) lid = substr($0, RSTART + 5, RLENGTH - 6); sw = 1; next }
    /^(Ca|Hca|Rt)/ { flush(); sw = 0 }
    sw && /^\[[0-9]+\]/ { ports = ports " " substr($1, 2, index($1, "]") - 2) }
    END { flush() }' "$WORK/ibnetdiscover.net")
[ "${#sw_ports[@]}" = 5 ] || fail "expected 5 switches in ibnetdiscover output, found ${#sw_ports[@]}"
for sp in "${sw_ports[@]}"; do
    read -r lid out linked <<< "$sp"
    sim smpquery sl2vl "$lid" "$out" > "$WORK/sw-sl2vl.txt" 2> /dev/null || fail "smpquery sl2vl $lid $out failed"
    awk -F'|' -v want="$want_row" -v linked="0 $out $linked" '
        BEGIN { k = split(linked, l, " "); for (i = 1; i <= k; i++) need[l[i]] = 1; split(want, w, ",") }
        /^ports:/ { split($1, p, /[ ,]+/); if (!(p[3] in need)) next
                    for (i = 2; i < NF; i++) if ($i + 0 != w[i - 1]) bad = 1; rows++ }
        END { exit !(rows == length(need) && !bad) }' "$WORK/sw-sl2vl.txt" || {
        cat "$WORK/sw-sl2vl.txt" >&2; fail "switch LID $lid: SL2VL towards port $out is not the widened table"; }
done
judge ibnetdiscover -p > "$WORK/ibnetdiscover_p.txt" 2> /dev/null
lid_of() { awk -v d="'$1'" '$1 == "CA" && index($0, d) { print $2; exit }' "$WORK/ibnetdiscover_p.txt"; }
ca_row=$(sim smpquery sl2vl "$(lid_of host-0003)" 2> /dev/null | sed -n 's/^ports: in *0, out *0: //p' |
    tr -d ' ' | sed 's/^|//; s/|$//; s/|/,/g')
[ "$ca_row" = "$want_row" ] || fail "host-0003 SL2VL reads '$ca_row', want '$want_row'"
echo "ok  5 switches and host-0003"

echo "--- saquery PR: bulk = 1 * $L + layer towards storage, the layer otherwise"
# "SRC_LID DST_LID LAYER STORAGE" for one CA pair on a layer above 0 towards
# storage and one elsewhere (sl.txt rows: node GUID, port, one hex digit per
# destination LID; ibsim's port GUID is the node GUID + the port).
python3 - "$STATE/sl.txt" "$WORK/ibnetdiscover_p.txt" > "$WORK/pairs.txt" << 'PY'
import re, sys
ca = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w and w[0] == 'CA':
        ca[int(w[3], 16) - 1] = (int(w[1]), re.search(r"\( '([^']*)'", line).group(1))
rows = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) == 3 and w[0].startswith('0x') and w[1] == '1':
        rows[int(w[0], 16)] = w[2]
seen = set()
for src, sls in sorted(rows.items()):
    if src not in ca:
        continue
    for dst, (dlid, desc) in sorted(ca.items()):
        if dst == src or dlid >= len(sls) or sls[dlid] == '0':
            continue
        kind = 1 if re.match(r'host-000[5-9]$', desc) else 0
        if kind not in seen:
            seen.add(kind)
            print(ca[src][0], dlid, int(sls[dlid], 16), kind)
PY
cat "$WORK/pairs.txt"
[ "$(wc -l < "$WORK/pairs.txt")" = 2 ] || fail "no pair on a layer above 0 towards storage and elsewhere"
pr_sl() { # SRC DST: the SL of the one PathRecord saquery prints
    local out
    out=$(judge saquery PR --src-to-dst "$1:$2") || fail "saquery PR $1:$2 failed"
    sed -n 's/^[[:space:]]*sl\.*0x\([0-9A-Fa-f]*\)$/\1/p' <<< "$out" | head -n1
}
while read -r slid dlid layer storage; do
    want=$((storage * L + layer))
    got=$((16#$(pr_sl "$slid" "$dlid")))
    echo "PR $slid -> $dlid (layer $layer, towards storage: $storage): SL $got, want $want"
    [ "$got" = "$want" ] || fail "PathRecord $slid -> $dlid has SL $got, want $want"
done < "$WORK/pairs.txt"

echo "--- ibsm analyze --qos on the tables read back"
sim dump_fts > "$WORK/dump_fts.txt" 2> /dev/null || fail "dump_fts failed"
"$IBSM" analyze --topology "$WORK/ibnetdiscover.net" --lfts "$WORK/dump_fts.txt" --sl "$STATE/sl.txt" \
    --qos "$WORK/ibsmd.yaml" --bisections 10 --fail-on-problem > "$WORK/analyze.txt" 2> "$WORK/analyze.err" || {
    cat "$WORK/analyze.txt" "$WORK/analyze.err" >&2; fail "ibsm analyze --qos failed"; }
grep -E "qos:" "$WORK/analyze.err"
grep -E "_to_|traffic:|VL [0-9]+:" "$WORK/analyze.txt" | head -n 30
grep -qF "4 layers in 2 VL bands, 8 VLs" "$WORK/analyze.err" || fail "analyze did not take the 2-band plan"
for c in ca_to_ca ca_to_switch switch_to_ca switch_to_switch; do
    grep -qE "^  $c: [0-9]+ pairs, 0 unreachable, 0 looping" "$WORK/analyze.txt" || fail "unreachable or looping $c pairs"
done
grep -q "^  CA + switch traffic: none" "$WORK/analyze.txt" || fail "credit loop in the tables read back"
for vl in 0 1 2 3 4 5 6 7; do
    grep -qE "^    VL $vl: .*acyclic" "$WORK/analyze.txt" || fail "VL $vl not checked (or not acyclic) with --qos"
done

echo "--- VLHighLimit: ibsim keeps 0; warned once per CA port, no PortInfo Set on the next heavy sweep"
# More than three ports with the same note come as one line: "N ports: keeps ...".
kept=$(awk '/keeps VLHighLimit 0, the policy.s 4 is not applied/ {
        if (match($0, /[0-9]+ ports: keeps/)) n += substr($0, RSTART, RLENGTH) + 0; else n++ } END { print n + 0 }' "$SM_LOG")
[ "$kept" = 10 ] || fail "expected 10 CA ports noted as keeping VLHighLimit 0, got $kept"
mark=$(sm_lines)
"$IBSM" resweep --heavy > /dev/null || fail "ibsm resweep --heavy failed"
sm_wait_up "$mark" 60
sm_since "$mark" | grep "phase program" || true
sm_since "$mark" | has -E "phase program .*PortInfo sets 0( |,|$)" || fail "the heavy sweep sent PortInfo Sets again"
if sm_since "$mark" | has "keeps VLHighLimit"; then fail "VLHighLimit warned again"; fi
kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || fail "exit $rc after SIGTERM"

echo "--- 5 bands: dfsssp on one layer, its escape layer taking what does not fit"
policy 4 > "$WORK/ibsmd5.yaml"
rc=0; sim "$IBSMD" --once --config "$WORK/ibsmd5.yaml" --state-dir "$WORK/state5" --log-level info 2> "$WORK/five.log" || rc=$?
grep -E "qos|refused|routing note|SUBNET" "$WORK/five.log"
[ "$rc" -eq 0 ] || fail "ibsmd --once exited $rc"
grep -qF "routing note: dfsssp: dfsssp needs 2 layers, qos has 2 levels in 3 SL classes and 5 VL bands, ports carry 8 VLs: 2 × 5 = 10 > 8: routes of" \
    "$WORK/five.log" || fail "no budget note from dfsssp"
grep -qE "went onto escape layer 0 \(Nue's escape paths reserved first\); [0-9]+ kept their shortest paths, [0-9]+ re-routed by Nue" \
    "$WORK/five.log" || fail "dfsssp did not say what its escape layer took"
grep -q "routing engine dfsssp refused" "$WORK/five.log" && fail "dfsssp refused"
grep -qF "qos: SL/VL plan for engine dfsssp: 1 routing layer(s) in each of 5 VL band(s), 5 VL(s)" "$WORK/five.log" ||
    fail "dfsssp did not route on one layer"
grep -q "SUBNET UP" "$WORK/five.log" || fail "no SUBNET UP"
sim ibnetdiscover > "$WORK/five.net" 2> /dev/null || fail "ibnetdiscover failed"
sim dump_fts > "$WORK/five.fts" 2> /dev/null || fail "dump_fts failed"
"$IBSM" analyze --topology "$WORK/five.net" --lfts "$WORK/five.fts" --qos "$WORK/ibsmd5.yaml" --json > "$WORK/five.json" 2> /dev/null ||
    fail "ibsm analyze failed on the 5-band tables"
python3 - "$WORK/five.json" << 'PY' || fail "the 5-band tables read back are not deadlock-free and complete"
import json, sys
d = json.load(open(sys.argv[1]))
bad = {c: p["unreachable"] + p["loops"] for c, p in d["pairs"].items() if p["unreachable"] + p["loops"]}
loop = d["credit_loops"]["all_traffic"]["has_loop"]
print("5 bands read back: unreachable/looping", bad or "none", "credit loop with switch traffic:", loop)
sys.exit(1 if bad or loop else 0)
PY
echo "PASS"
