#!/usr/bin/env bash
# The health drill on ibsim, end to end, on a two-level fat-tree
# PGFT(2; 4,4; 1,4; 1,1) (8 switches, 16 hosts), perf.interval_s 2 and the
# rule `symbol_errors: {per_interval: 20, action: isolate}`, with
# `ibsm events --follow` running through all of it:
#   (a) PerformanceSet SymbolErrorCounter=50 on one leaf-to-spine port:
#       `ibsm ports` lists exactly that port first, isolated (`--json`
#       parses, its first entry); metrics.prom has symbol errors on that
#       port only, the total perfquery reads; read back (dump_fts): no route
#       leaves through either end of the cable, `ibsm analyze` complete;
#   (b) `ibsm port clear`: the isolation is gone from `ibsm ports`, a
#       re-route puts routes back on the cable;
#   (c) reloaded with health.disable_port true, the operator isolates the
#       same link: one switch-side port reads back Disabled (smpquery);
#       cleared, it reads Polling; the cable re-linked in ibsim carries
#       routes again. ibsim models neither link training (a port set to
#       Polling stays down) nor the far end of a disabled port going down
#       (it reads LinkUp, so sweeps see a port leading nowhere until the
#       clear); hardware does both;
#   (d) the events feed showed the isolations, the re-routes and the clears.
#
# usage: health_drill.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/perf_lib.sh"

small_tree
read -r SPINE SPINE_PORT < <(far_end "$LEAF1" 5)
[ -n "$SPINE" ] || fail "no cable on $LEAF1 port 5 in the net file"
LEAF_GUID=$(guid "$LEAF1"); SPINE_GUID=$(guid "$SPINE")
echo "fabric: $SWITCHES switches, $HOSTS hosts, $LINKS links; erring cable $LEAF1[5] - $SPINE[$SPINE_PORT]"

ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
SOCK=$WORK/ctl/control.sock
config() {
    cat > "$WORK/ibsmd.yaml" <<YAML
state_dir: $STATE
control:
  socket: $SOCK
sweep:
  interval_s: 1
perf:
  interval_s: 2
health:
  symbol_errors: {per_interval: 20, action: isolate}
  disable_port: $1
YAML
}
config false
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml"
sm_wait_up 0 60
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/up.fts" "$LEAF_GUID" 5 > /dev/null &&
    fail "before the errors, no route uses $LEAF1 port 5: the test would prove nothing"

"$IBSM" events --follow --socket "$SOCK" > "$WORK/events.jsonl" 2> "$WORK/events.err" &
EVENTS_PID=$!
drill_exit() {
    local rc=$?
    kill "$EVENTS_PID" 2> /dev/null || true
    [ -n "$SM_PID" ] && kill "$SM_PID" 2> /dev/null && wait "$SM_PID" 2> /dev/null || true
    ibsim_cleanup "$rc"
}
trap drill_exit EXIT
# The counter sweeps log every 2 s, so the log never goes quiet: a SUBNET UP
# line comes after the last Set of its sweep; a second is left for stragglers.
settle() { sleep "${1:-1}"; }

lid_of() { "$IBSM" ports --socket "$SOCK" --json | python3 -c "
import json, sys
for p in json.load(sys.stdin)['ports']:
    if p['node_guid'] == sys.argv[1]: print(p['lid']); break" "$1"; }
# ports_first: node_guid port state of the first entry of `ibsm ports --json`.
ports_json() { "$IBSM" ports --socket "$SOCK" --json > "$WORK/ports.json" || fail "ibsm ports --json"; }
first_port() { python3 -c "
import json
p = json.load(open('$WORK/ports.json'))['ports'][0]
print(p['node_guid'], p['port'], p['state'])"; }
isolated_ports() { python3 -c "
import json
print(sum(p['state'] == 'isolated' for p in json.load(open('$WORK/ports.json'))['ports']))"; }
phys_state() { sim smpquery portinfo "$1" "$2" 2> /dev/null | sed -n 's/^PhysLinkState:\.*\(.*\)$/\1/p'; }

wait_counter_sweeps 1
LEAF_LID=$(lid_of "$LEAF_GUID"); SPINE_LID=$(lid_of "$SPINE_GUID")
[ -n "$LEAF_LID" ] && [ -n "$SPINE_LID" ] || fail "ibsm ports names no LID for $LEAF_GUID or $SPINE_GUID"

echo "--- (a) SymbolErrorCounter=50 on $LEAF1 port 5: isolated"
mark=$(sm_lines)
ibsim_cmd "PerformanceSet \"$LEAF1\"[5] PortCounters.SymbolErrorCounter=50"
sm_wait_for "$mark" "health: ISOLATING the link at" 20
sm_since "$mark" | grep "ISOLATING" | cut -c 25- | head -n1
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 20
settle
ports_json
[ "$(first_port)" = "$LEAF_GUID 5 isolated" ] || fail "ibsm ports --json: first entry $(first_port)"
[ "$(isolated_ports)" = 1 ] || fail "ibsm ports --json: $(isolated_ports) isolated ports"
"$IBSM" ports --socket "$SOCK" --limit 1 > "$WORK/ports.txt" || fail "ibsm ports"
sed -n 2p "$WORK/ports.txt"
sed -n 2p "$WORK/ports.txt" | grep -q "$LEAF_GUID.*isolated" || fail "ibsm ports: first row is not $LEAF_GUID, isolated"
SYM=$(nonzero ibsmd_port_symbol_errors_total)
[ "$SYM" = "$LEAF_GUID 5 50" ] || fail "metrics.prom: expected only $LEAF_GUID port 5 with 50 symbol errors, got: $SYM"
PQ=$(sim perfquery "$LEAF_LID" 5 2> /dev/null | sed -n 's/^SymbolErrorCounter:\.*\([0-9]*\)$/\1/p')
[ "$PQ" = 50 ] || fail "perfquery reads SymbolErrorCounter $PQ, ibsmd exports 50"
check_fabric isolated "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/isolated.fts" "$LEAF_GUID" 5 || fail "a route still uses $LEAF1 port 5"
python3 "$HERE/reroute_check.py" unused "$WORK/isolated.fts" "$SPINE_GUID" "$SPINE_PORT" ||
    fail "a route still uses $SPINE port $SPINE_PORT"

echo "--- (b) ibsm port clear: the cable carries routes again"
mark=$(sm_lines)
"$IBSM" port clear --socket "$SOCK" "$LEAF_GUID" 5 || fail "ibsm port clear"
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 20
settle
wait_counter_sweeps 1
ports_json
[ "$(isolated_ports)" = 0 ] || fail "ibsm ports --json: still $(isolated_ports) isolated after the clear"
check_fabric cleared "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/cleared.fts" "$LEAF_GUID" 5 > /dev/null &&
    fail "after the clear no route uses $LEAF1 port 5"

echo "--- (c) disable_port: the isolated link's switch port reads Disabled, Polling after clear"
config true
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$mark" "reload: new configuration applied" 20
sm_wait_up "$mark"
settle
mark=$(sm_lines)
"$IBSM" port isolate --socket "$SOCK" "$LEAF_GUID" 5 || fail "ibsm port isolate"
sm_wait_for "$mark" "DISABLED \(isolated link, health.disable_port\)" 20
sm_wait_for "$mark" "SUBNET UP" 20
sm_since "$mark" | grep "DISABLED (isolated link" | cut -c 25-
L=$(phys_state "$LEAF_LID" 5); S=$(phys_state "$SPINE_LID" "$SPINE_PORT")
echo "PhysLinkState: $LEAF1[5] $L, $SPINE[$SPINE_PORT] $S"
[ "$L" = Disabled ] || [ "$S" = Disabled ] || fail "neither end of the isolated link reads Disabled"
[ "$L" = Disabled ] && [ "$S" = Disabled ] && fail "both ends of the isolated link were disabled"
ports_json
[ "$(first_port)" = "$LEAF_GUID 5 isolated" ] || fail "disabled: ibsm ports --json first entry $(first_port)"
mark=$(sm_lines)
"$IBSM" port clear --socket "$SOCK" "$LEAF_GUID" 5 || fail "ibsm port clear (disabled)"
sm_wait_for "$mark" "set to Polling \(isolation lifted\)" 20
L=$(phys_state "$LEAF_LID" 5); S=$(phys_state "$SPINE_LID" "$SPINE_PORT")
echo "after clear: $LEAF1[5] $L, $SPINE[$SPINE_PORT] $S"
[ "$L" != Disabled ] && [ "$S" != Disabled ] || fail "a port still reads Disabled after the clear"
# ibsim leaves a port set to Polling untrained: plug the cable again.
mark=$(sm_lines)
ibsim_cmd "Unlink \"$LEAF1\"[5]"; sleep 1
ibsim_cmd "ReLink \"$LEAF1\"[5]"
sm_wait_up "$mark"
settle
check_fabric relinked "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/relinked.fts" "$LEAF_GUID" 5 > /dev/null &&
    fail "after the clear and relink no route uses $LEAF1 port 5"

echo "--- (d) the events feed"
python3 - "$WORK/events.jsonl" "$LEAF_GUID" << 'PY' || { cat "$WORK/events.jsonl" >&2; fail "events feed"; }
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
guid = sys.argv[2]
def n(kind): return sum(e["event"] == kind and e.get("node_guid") == guid and e.get("port") == 5 for e in ev)
assert n("isolation") == 2, [e["event"] for e in ev]
assert n("isolation_cleared") == 2, [e["event"] for e in ev]
# Each isolation and clear is followed by a sweep that brings the subnet up
# (a re-route; a heavy sweep where ibsim's half-disabled link makes the
# refresh incomplete) before the next one.
marks = [i for i, e in enumerate(ev) if e["event"] in ("isolation", "isolation_cleared")] + [len(ev)]
for a, b in zip(marks, marks[1:]):
    assert any(e["event"] == "sweep" and e["outcome"] == "up" for e in ev[a + 1:b]), ev[a]
reroutes = [e for e in ev if e["event"] == "sweep" and e["kind"] == "re-route" and e["outcome"] == "up"]
assert len(reroutes) >= 3, reroutes
print(len(ev), "events:", n("isolation"), "isolations,", n("isolation_cleared"), "clears,", len(reroutes), "re-routes")
PY

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
