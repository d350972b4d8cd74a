#!/usr/bin/env bash
# End-to-end bring-up against ibsim: generate a fabric, simulate it, run
# `ibsmd --once`, and check the result with infiniband-diags only:
#  - exit 0 and a `SUBNET UP` line;
#  - iblinkinfo: every port whose link is up is ACTIVE (2 per link);
#  - ibnetdiscover: every port carries the LID of ibsmd's guid2lid;
#  - dump_fts read from the switches equals ibsmd's lfts.dump (per switch
#    GUID, LID -> port; headers differ legitimately: live dumps name
#    switches by DR path or LID);
#  - 1-VL engines (routing.vl_tables: auto): no VL table was written, the
#    SM port's SL2VL table is still ibsim's own (SL s -> VL s), and the log
#    says the ports keep their tables; with several VLs or
#    BRINGUP_VL_TABLES=1 (routing.vl_tables: always), the SM port's SL2VL
#    table maps every SL to VL0 (1-VL engines), and its VLArb tables (and
#    those of the leaf port facing it) list every operational VL with weight
#    64 and no high priority;
#  - ibtracert between sampled CA pairs leaves every switch by the port
#    lfts.dump names;
#  - with several VLs (the state dir has sl.txt: nue, dfsssp): the SM port's and
#    every switch's SL2VL tables (every input port towards one linked output
#    port per switch, by LID) map SL s to VL s mod n, n = the VLs of sl.txt;
#  - ibsm analyze on those two dumps of the live fabric (with sl.txt, per VL):
#    0 unreachable or looping CA-to-CA pairs and no credit loop in CA
#    traffic; for engines that promise switch pairs (sftree, nue, dfsssp, updn:
#    RoutingTables::switch_to_switch) 0 unreachable or looping pairs in all
#    four classes and no credit loop with switch traffic either;
#  - a second `ibsmd --once` keeps every LID and sends no LFT block and no
#    VL table;
#  - with BRINGUP_SWITCH_SL2VL=1 (config routing.switch_sl2vl: always, with
#    vl_tables: always and BRINGUP_VL_TABLES=1 in the test that sets it): every
#    input port's SL2VL table towards the leaf port facing the SM maps every
#    SL to VL0;
#  - `ibsmd --foreground`: sminfo reports our port as MASTER while it runs,
#    SIGTERM makes it exit 0.
#
# usage: bringup_fabric.sh IBSMD IBSM -- TOPOGEN ARGS...
# env: BRINGUP_IBSMD_ARGS  extra ibsmd flags for every run (e.g. "--lmc 2")
#      BRINGUP_ENGINE      the engine that must have routed (e.g. dfsssp when
#                          the default chain's ftree must refuse the fabric)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"


"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
STATE="$WORK/state"
read -r -a EXTRA <<< "${BRINGUP_IBSMD_ARGS:-}"

echo "--- ibsmd --once (first bring-up)"
rc=0; sim "$IBSMD" --once --state-dir "$STATE" --log-level info "${EXTRA[@]}" 2> "$WORK/once1.log" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/once1.log" >&2; fail "ibsmd --once exited with $rc"; }
grep -E "phase|SUBNET UP" "$WORK/once1.log"
grep -q "SUBNET UP" "$WORK/once1.log" || fail "no SUBNET UP line"
# ibsim trains every link to the best both ends allow: no link is downshifted.
grep "link check:" "$WORK/once1.log" | head -n 3
grep -q "link check: [0-9]* links, 0 downshifted, 0 with" "$WORK/once1.log" || fail "link check found findings on ibsim"
grep "routing engine .* refused" "$WORK/once1.log" || true
engine=$(sed -n 's/.*phase route .* engine \([a-z_]*\).*/\1/p' "$WORK/once1.log" | head -n1)
echo "routed by: ${engine:-?}"
if [ -n "${BRINGUP_ENGINE:-}" ] && [[ "|$BRINGUP_ENGINE|" != *"|$engine|"* ]]; then
    fail "routed by '$engine', expected $BRINGUP_ENGINE"
fi
for f in guid2lid lfts.dump topology.net summary.txt; do
    [ -s "$STATE/$f" ] || fail "state dir lacks $f"
done

echo "--- iblinkinfo: every up link ACTIVE"
sim iblinkinfo > "$WORK/iblinkinfo.txt" 2> /dev/null || fail "iblinkinfo failed"
links=$(grep -c '^\[' "$STATE/topology.net" || true)
up=$(grep -c 'LinkUp' "$WORK/iblinkinfo.txt" || true)
active=$(grep -c 'Active/  LinkUp' "$WORK/iblinkinfo.txt" || true)
echo "ports with link up: $up, ACTIVE: $active"
[ "$up" -gt 0 ] && [ "$up" -eq "$active" ] || {
    grep 'LinkUp' "$WORK/iblinkinfo.txt" | grep -v 'Active/' | head >&2; fail "ports with link up but not ACTIVE"; }
# Each cable has two ends, each listed once by iblinkinfo; topology.net lists
# every port line of every node, i.e. also two per cable.
[ "$active" -eq "$links" ] || fail "$active ACTIVE ports, $links cabled ports in ibsmd's topology.net"

echo "--- ibnetdiscover: LIDs are guid2lid's"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2> "$WORK/ibnetdiscover.err" || {
    cat "$WORK/ibnetdiscover.err" >&2; fail "ibnetdiscover failed"; }
python3 "$HERE/bringup_lids_check.py" "$STATE/guid2lid" "$WORK/ibnetdiscover.net" || fail "LIDs differ from guid2lid"

echo "--- dump_fts equals lfts.dump"
dump_fts_matches "$STATE/lfts.dump"

echo "--- SL2VL of the SM's port: untouched (1-VL engines, auto), every SL on VL0 (1-VL, vl_tables: always), SL s on VL s mod n (n-VL engines)"
sim smpquery -D sl2vl 0 > "$WORK/sl2vl.txt" 2> /dev/null || fail "smpquery sl2vl failed"
grep '^ports:' "$WORK/sl2vl.txt"
# all_on_vl0 FILE MIN_ROWS: smpquery sl2vl output with at least MIN_ROWS
# tables, every SL on VL0.
all_on_vl0() {
    awk -F'|' -v min="$2" '/^ports:/ { n++; for (i = 2; i < NF; i++) if ($i + 0 != 0) bad = 1 }
        END { exit !(n >= min && !bad) }' "$1"
}
if [ -s "$STATE/sl.txt" ]; then
    # A multi-VL engine (nue, dfsssp): SL s on VL s mod n, n = the VLs in sl.txt.
    vls=$(sed -n 's/^vls \([0-9]*\).*/\1/p' "$STATE/sl.txt" | head -n1)
    echo "engine uses $vls VLs (sl.txt)"
    awk -F'|' -v n="$vls" '/^ports:/ { for (i = 2; i < NF; i++) if ($i + 0 != (i - 2) % n) bad = 1; rows++ }
        END { exit !(rows >= 1 && !bad) }' "$WORK/sl2vl.txt" || fail "SL2VL table is not SL s -> VL s mod $vls"
    # ibsim's switches start with SL s -> VL s for s < 15 (SL 15 -> VL 7),
    # so SLs 8..15 tell a programmed table from the default one.
    echo "--- switch SL2VL: every linked input port (and port 0) towards one output port per switch maps SL s to VL s mod $vls"
    sim ibnetdiscover > "$WORK/ibnetdiscover-sl2vl.net" 2> /dev/null || fail "ibnetdiscover failed"
    # "LID PORT..." per switch: its linked ports, as ibnetdiscover lists them.
    mapfile -t sw_ports < <(awk 'function flush() { if (lid != "" && ports != "") print lid ports; lid = ""; ports = "" }
        /^Switch/ { flush(); if (match($0, / lid [0-9]+ /)) lid = substr($0, RSTART + 5, RLENGTH - 6); sw = 1; next }
        /^(Ca|Hca|Rt)/ { flush(); sw = 0 }
        sw && /^\[[0-9]+\]/ { ports = ports " " substr($1, 2, index($1, "]") - 2) }
        END { flush() }' "$WORK/ibnetdiscover-sl2vl.net")
    [ "${#sw_ports[@]}" -gt 0 ] || fail "no switch with a linked port in ibnetdiscover output"
    for sp in "${sw_ports[@]}"; do
        read -r lid out linked <<< "$sp"
        sim smpquery sl2vl "$lid" "$out" > "$WORK/sw-sl2vl.txt" 2> /dev/null || fail "smpquery sl2vl $lid $out failed"
        # Unlinked input ports carry nothing; the SM leaves them alone.
        awk -F'|' -v n="$vls" -v linked="0 $out $linked" '
            BEGIN { k = split(linked, l, " "); for (i = 1; i <= k; i++) want[l[i]] = 1 }
            /^ports:/ { split($1, w, /[ ,]+/); if (!(w[3] in want)) next
                        for (i = 2; i < NF; i++) if ($i + 0 != (i - 2) % n) bad = 1; rows++ }
            END { exit !(rows == length(want) && !bad) }' "$WORK/sw-sl2vl.txt" || {
            cat "$WORK/sw-sl2vl.txt" >&2; fail "switch LID $lid: SL2VL of its linked input ports towards port $out is not SL s -> VL s mod $vls"; }
    done
    echo "${#sw_ports[@]} switches checked"
elif [ "${BRINGUP_VL_TABLES:-0}" = 1 ]; then
    all_on_vl0 "$WORK/sl2vl.txt" 1 || fail "SL2VL table is not the 1-VL identity"
else
    # ibsim's ports start with SL s -> VL s (s < 15), SL 15 -> VL 7.
    awk -F'|' '/^ports:/ { rows++; for (i = 2; i < NF; i++) if ($i + 0 != (i - 2 < 15 ? i - 2 : 7)) bad = 1 }
        END { exit !(rows >= 1 && !bad) }' "$WORK/sl2vl.txt" || fail "a 1-VL engine's bring-up wrote the SM port's SL2VL table"
    grep -q "VL tables: [0-9]* port(s) keep their own SL2VL and VLArb tables" "$WORK/once1.log" ||
        fail "no log line saying the ports keep their VL tables"
    grep -q "VL tables read 0 set 0 " "$WORK/once1.log" || fail "a 1-VL engine's bring-up sent VL-table SMPs"
fi

leaf_port=$(sim smpquery -D nodeinfo 0,1 2> /dev/null | sed -n 's/^LocalPort:\.*\([0-9]*\)$/\1/p')
[ -n "$leaf_port" ] || fail "no LocalPort in the leaf's NodeInfo"
if [ -s "$STATE/sl.txt" ] || [ "${BRINGUP_VL_TABLES:-0}" = 1 ]; then
echo "--- VL arbitration of the SM's port and of the switch port facing it: every operational VL weight 64, no high priority"
# OperVLs of the port -> number of VLs the low table must list.
check_vlarb() {
    local what=$1 path=$2 port=${3:-}
    sim smpquery -D portinfo "$path" $port > "$WORK/vlarb-pi.txt" 2> /dev/null || fail "smpquery portinfo $path $port failed"
    local vls
    vls=$(sed -n 's/^OperVLs:\.*VL0-\([0-9]*\)$/\1/p; s/^OperVLs:\.*VL0$/0/p' "$WORK/vlarb-pi.txt")
    [ -n "$vls" ] || fail "$what: no OperVLs in PortInfo"
    sim smpquery -D vlarb "$path" $port > "$WORK/vlarb.txt" 2> /dev/null || fail "smpquery vlarb $path $port failed"
    grep '^WEIGHT' "$WORK/vlarb.txt" | sed "s/^/$what /"
    awk -F'|' -v n=$((vls + 1)) '
        /^WEIGHT/ { t++; for (i = 2; i < NF; i++) { w = $i; gsub(/ /, "", w); e = i - 2
                    if (t == 1 && (e < n ? w != "0x40" : w != "0x0")) bad = 1
                    if (t == 2 && w != "0x0") bad = 1 } }
        END { exit !(t == 2 && !bad) }' "$WORK/vlarb.txt" || fail "$what: VL arbitration is not the default"
}
check_vlarb "SM port" 0
check_vlarb "leaf port $leaf_port" 0,1 "$leaf_port"
fi
if [ "${BRINGUP_SWITCH_SL2VL:-0}" = 1 ]; then
    echo "--- switch SL2VL: every input port towards leaf port $leaf_port maps every SL to VL0"
    sim smpquery -D sl2vl 0,1 "$leaf_port" > "$WORK/sw-sl2vl.txt" 2> /dev/null || fail "smpquery sl2vl 0,1 failed"
    head -n 4 "$WORK/sw-sl2vl.txt"
    all_on_vl0 "$WORK/sw-sl2vl.txt" 2 || fail "switch SL2VL tables are not the 1-VL identity"
fi

echo "--- ibsm analyze on the live fabric"
# With the SLs the SM used (nue, dfsssp), credit loops are judged per VL.
SLARGS=()
[ -s "$STATE/sl.txt" ] && SLARGS=(--sl "$STATE/sl.txt")
"$IBSM" analyze --topology "$WORK/ibnetdiscover.net" --lfts "$WORK/dump_fts.txt" "${SLARGS[@]}" > "$WORK/analyze.txt" 2>&1 || {
    cat "$WORK/analyze.txt" >&2; fail "ibsm analyze failed"; }
grep -E "_to_|traffic:" "$WORK/analyze.txt" || true
grep -qE "ca_to_ca: [0-9]+ pairs, 0 unreachable, 0 looping" "$WORK/analyze.txt" || fail "unreachable or looping CA pairs"
# Every engine owes a CA-traffic CDG without a cycle on each VL.
grep -q "^  CA traffic: none" "$WORK/analyze.txt" || fail "credit loop in CA traffic in the tables read back"
# What every engine owes besides (routing/verify.h): CA->switch and
# switch->CA pairs; the engines that set RoutingTables::switch_to_switch
# also owe switch pairs and a CDG with switch traffic without a cycle.
classes="ca_to_switch switch_to_ca"
case $engine in sftree | nue | dfsssp | updn) classes="$classes switch_to_switch" ;; esac
for c in $classes; do
    grep -qE "^  $c: [0-9]+ pairs, 0 unreachable, 0 looping" "$WORK/analyze.txt" || fail "unreachable or looping $c pairs"
done
case $engine in
    sftree | nue | dfsssp | updn)
        grep -q "^  CA + switch traffic: none" "$WORK/analyze.txt" || fail "credit loop with switch traffic in the tables read back ($engine)" ;;
esac

echo "--- ibtracert between sampled CA pairs follows lfts.dump"
mapfile -t ca_lids < <(awk '/^(Ca|Hca)/ { ca = 1; next } /^(Switch|Rt)/ { ca = 0 }
    ca && /^\[/ && match($0, /# lid [0-9]+/) { print substr($0, RSTART + 6, RLENGTH - 6) }' "$WORK/ibnetdiscover.net")
n=${#ca_lids[@]}
[ "$n" -ge 2 ] || fail "fewer than two CA LIDs in ibnetdiscover output"
for i in 0 1 2 3 4; do
    src=${ca_lids[$(( (i * 7) % n ))]}; dst=${ca_lids[$(( n - 1 - (i * 5) % n ))]}
    [ "$src" = "$dst" ] && continue
    sim ibtracert "$src" "$dst" > "$WORK/tracert.txt" 2>&1 || { cat "$WORK/tracert.txt" >&2; fail "ibtracert $src $dst failed"; }
    python3 "$HERE/bringup_tracert_check.py" "$STATE/lfts.dump" "$dst" "$WORK/tracert.txt" || fail "ibtracert $src $dst does not follow lfts.dump"
done

echo "--- ibsmd --once again: same LIDs, no LFT block sent"
cp "$STATE/guid2lid" "$WORK/guid2lid.first"
sim "$IBSMD" --once --state-dir "$STATE" "${EXTRA[@]}" 2> "$WORK/once2.log" || { cat "$WORK/once2.log" >&2; fail "second ibsmd --once failed"; }
grep -E "phase|SUBNET UP" "$WORK/once2.log"
grep -q "SUBNET UP.*LFT blocks sent: 0$" "$WORK/once2.log" || fail "the restart sent LFT blocks"
grep -q "VL tables read [0-9]* set 0 " "$WORK/once2.log" || fail "the restart rewrote SL2VL/VLArb tables"
cmp -s "$WORK/guid2lid.first" "$STATE/guid2lid" || { diff "$WORK/guid2lid.first" "$STATE/guid2lid" | head >&2; fail "LIDs changed on restart"; }
sim ibnetdiscover > "$WORK/ibnetdiscover2.net" 2> /dev/null
python3 "$HERE/bringup_lids_check.py" "$STATE/guid2lid" "$WORK/ibnetdiscover2.net" > /dev/null || fail "LIDs on the fabric changed on restart"

echo "--- ibsmd --foreground: sminfo sees MASTER, SIGTERM stops it"
(cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" \
    LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground --state-dir "$STATE" "${EXTRA[@]}") > "$WORK/fg.log" 2>&1 &
FG_PID=$!
for _ in $(seq 1 600); do
    grep -q "SUBNET UP" "$WORK/fg.log" && break
    kill -0 "$FG_PID" 2> /dev/null || { cat "$WORK/fg.log" >&2; fail "ibsmd --foreground exited early"; }
    sleep 0.1
done
grep -q "SUBNET UP" "$WORK/fg.log" || { kill "$FG_PID"; fail "ibsmd --foreground did not bring the subnet up"; }
sm_guid=$(awk '/^SM port:/ { print $3 }' "$STATE/summary.txt")
sim sminfo > "$WORK/sminfo.txt" 2>&1 || { kill "$FG_PID"; cat "$WORK/sminfo.txt" >&2; fail "sminfo failed"; }
grep -v ibwarn "$WORK/sminfo.txt"
grep -q "SMINFO_MASTER" "$WORK/sminfo.txt" || { kill "$FG_PID"; fail "sminfo does not report MASTER"; }
grep -qi "sm guid $(printf '0x%x' "$((sm_guid))")," "$WORK/sminfo.txt" || { kill "$FG_PID"; fail "sminfo reports another SM than $sm_guid"; }
kill -TERM "$FG_PID"
rc=0; wait "$FG_PID" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/fg.log" >&2; fail "ibsmd --foreground exited with $rc after SIGTERM"; }
grep -q "signal 15 received" "$WORK/fg.log" || fail "no clean shutdown message"
echo "PASS"
