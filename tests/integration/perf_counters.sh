#!/usr/bin/env bash
# The counter poller against ibsim, PGFT(2; 2,4; 1,2; 1,1), perf.interval_s 2:
#  - PerformanceSet sets SymbolErrorCounter=N on one switch port: metrics.prom
#    reports exactly that port with N and no other port with symbol errors;
#    perfquery reads the same error counters ibsmd exports, and its data
#    counters are at least what ibsmd exported before (they only grow);
#  - LinkDownedCounter set near saturation on another port: ibsmd clears it
#    on the switch (perfquery reads less) and its total keeps the value;
#  - a counter set lower than before (another tool's reset) is counted in
#    resets_seen and the total keeps growing;
#  - the log has one line per counter sweep; metrics.prom parses.
#
# usage: perf_counters.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/perf_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LEAF1=S-0002c90201000001
grep -q "\"$LEAF1\"" "$WORK/fabric.net" || fail "no switch $LEAF1 in the net file"
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
cat > "$WORK/ibsmd.yaml" << YAML
perf:
  interval_s: 2
metrics:
  port_series: all # every counter of every port, host links' included
YAML
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --state-dir "$STATE" --log-level info
sm_wait_up 0 60


# metric FAMILY NODE_GUID PORT: the sample of that port ('' when none).
metric() {
    python3 - "$STATE/metrics.prom" "$1" "$2" "$3" << 'PY'
import re, sys
path, fam, guid, port = sys.argv[1:]
for line in open(path):
    m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.strip())
    if m and m.group(1) == fam and f'node_guid="{guid}"' in m.group(2) and re.search(rf'(^|,)port="{port}"', m.group(2)):
        print(int(float(m.group(3)))); break
PY
}
# pq [-x] LID PORT FIELD: perfquery's value of FIELD.
pq() {
    local opt=()
    [ "$1" = -x ] && { opt=(-x); shift; }
    sim perfquery "${opt[@]}" "$1" "$2" 2> /dev/null | sed -n "s/^$3:\.*\([0-9]*\)$/\1/p"
}

wait_counter_sweeps 1
grep -qE "counter sweep 1 \(generation [0-9]+\): [0-9]+ of [0-9]+ ports read, [0-9]+ MADs, 0 failed" "$SM_LOG" ||
    fail "first counter sweep line: $(grep 'counter sweep 1 ' "$SM_LOG")"
LEAF_GUID=0x$(echo "${LEAF1#S-}")
# Every port, live over the control socket (state.json names only the
# notable ones).
"$IBSM" ports --state-dir "$STATE" --json > "$WORK/ports.json" || fail "ibsm ports --json"
LEAF_LID=$(python3 -c "
import json,sys
for p in json.load(open('$WORK/ports.json'))['ports']:
    if p['node_guid'] == '$LEAF_GUID': print(p['lid']); break")
[ -n "$LEAF_LID" ] || fail "ibsm ports lists no port of $LEAF_GUID"
PORTS=$(python3 -c "import json; print(sum('counters' in p for p in json.load(open('$WORK/ports.json'))['ports']))")
LINKS=$(grep -c '^\[[0-9]*\].*"' "$WORK/fabric.net")
# Every cable has two ends, every one a linked port, every one polled.
[ "$PORTS" -eq "$LINKS" ] || fail "ibsm ports shows $PORTS polled ports, the net file has $LINKS linked ports"

echo "--- SymbolErrorCounter=7 on $LEAF1 port 1"
ibsim_cmd "PerformanceSet \"$LEAF1\"[1] PortCounters.SymbolErrorCounter=7"
echo "--- LinkDownedCounter=200 (of 255) on $LEAF1 port 2"
ibsim_cmd "PerformanceSet \"$LEAF1\"[2] PortCounters.LinkDownedCounter=200"
sleep 0.5
[ "$(pq "$LEAF_LID" 1 SymbolErrorCounter)" = 7 ] || fail "perfquery does not read the SymbolErrorCounter ibsim was given"
wait_counter_sweeps 2
python3 "$HERE/prom_check.py" "$STATE/metrics.prom" "ibsmd_perf_sweeps_total>=3" "ibsmd_perf_mads_total>=10" \
    "ibsmd_perf_failures_total=0" > /dev/null || fail "metrics.prom does not parse or lacks the perf totals"
SYM=$(nonzero ibsmd_port_symbol_errors_total)
echo "symbol errors exported: $SYM"
[ "$SYM" = "$LEAF_GUID 1 7" ] || fail "expected exactly $LEAF_GUID port 1 with 7 symbol errors, got: $SYM"
[ "$(pq "$LEAF_LID" 1 SymbolErrorCounter)" = 7 ] || fail "ibsmd cleared a counter far from saturation"

echo "--- the near-saturated LinkDownedCounter is cleared on the switch, kept in the total"
[ "$(metric ibsmd_port_link_downed_total "$LEAF_GUID" 2)" = 200 ] || fail "link_downed total of port 2 is not 200"
LD=$(pq "$LEAF_LID" 2 LinkDownedCounter)
[ -n "$LD" ] && [ "$LD" -lt 200 ] || fail "LinkDownedCounter of port 2 still $LD on the switch (not cleared)"
grep -qE "counter sweep [0-9]+ .*, [1-9][0-9]* cleared near saturation" "$SM_LOG" || fail "no clear in the sweep log lines"

echo "--- another tool resets: SymbolErrorCounter 7 -> 2"
ibsim_cmd "PerformanceSet \"$LEAF1\"[1] PortCounters.SymbolErrorCounter=2"
wait_counter_sweeps 2
[ "$(metric ibsmd_port_symbol_errors_total "$LEAF_GUID" 1)" = 9 ] || fail "total after a reset is not 7 + 2"
# state.json names the notable ports: this one has errors counted.
python3 -c "
import json,sys
for p in json.load(open('$STATE/state.json'))['ports']:
    if p['node_guid'] == '$LEAF_GUID' and p['port'] == 1:
        sys.exit(0 if p['poll']['resets_seen'] >= 1 else 1)
sys.exit(1)" || fail "state.json does not count the reset"
grep -qE "counter sweep [0-9]+ .*, [1-9][0-9]* reset by others" "$SM_LOG" || fail "no reset in the sweep log lines"

echo "--- perfquery reads the totals ibsmd exports (data counters only grow)"
for port in 1 2 3; do
    for pair in "PortXmitData ibsmd_port_xmit_bytes_total" "PortRcvPkts ibsmd_port_rcv_pkts_total"; do
        set -- $pair
        ours=$(metric "$2" "$LEAF_GUID" "$port")
        theirs=$(pq -x "$LEAF_LID" "$port" "$1")
        [ -n "$ours" ] && [ -n "$theirs" ] || fail "no $1 for port $port (ibsmd '$ours', perfquery '$theirs')"
        [ "$2" = ibsmd_port_xmit_bytes_total ] && theirs=$((theirs * 4))
        [ "$ours" -le "$theirs" ] || fail "port $port: ibsmd exports $2 $ours > perfquery's $theirs"
    done
    for pair in "LinkErrorRecoveryCounter ibsmd_port_link_error_recovery_total" "PortRcvErrors ibsmd_port_rcv_errors_total"; do
        set -- $pair
        [ "$(metric "$2" "$LEAF_GUID" "$port")" = "$(pq "$LEAF_LID" "$port" "$1")" ] || fail "port $port: $1 differs"
    done
done
"$IBSM" status --state-dir "$STATE" > "$WORK/status.txt" || fail "ibsm status"
cat "$WORK/status.txt"
grep -qE "^counters: +$PORTS ports monitored \($PORTS read\), [0-9]+ counter sweeps" "$WORK/status.txt" ||
    fail "ibsm status has no counter paragraph"
grep -qE "^  $LEAF_GUID/1 .*symbol_errors 9" "$WORK/status.txt" || fail "ibsm status does not list the erring port first"
kill -TERM "$SM_PID"; wait "$SM_PID" || true
echo "PASS"
