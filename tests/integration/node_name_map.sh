#!/usr/bin/env bash
# node_name_map against a live ibsmd --foreground on PGFT(2; 2,4; 1,2; 1,1)
# in ibsim, with a map naming one leaf switch "leaf-one":
#  - `ibsm ports` lists the leaf's ports under "leaf-one", metrics.prom
#    labels them node_name="leaf-one" beside its NodeDescription, and a
#    cable pulled at the leaf is logged as "0x... (leaf-one) port 1";
#  - topology.net keeps the NodeDescription (other tools read it);
#  - the map changed and SIGHUP: same PID, the reload names node_name_map
#    and the new name replaces the old one in `ibsm ports` and metrics.prom;
#  - a map with a bad line and SIGHUP: the reload is refused naming file
#    and line, the daemon keeps running and keeps the names it had.
#
# usage: node_name_map.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/perf_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LEAF1=S-0002c90201000001
grep -q "\"$LEAF1\"" "$WORK/fabric.net" || fail "no switch $LEAF1 in the net file"
LEAF_GUID=0x${LEAF1#S-}
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
MAP=$WORK/node-name-map
cat > "$MAP" << MAP
# ibnetdiscover's node-name-map format
$LEAF_GUID "leaf-one"   # rack 1
MAP
cat > "$WORK/ibsmd.yaml" << YAML
node_name_map: $MAP
perf:
  interval_s: 2
YAML
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --state-dir "$STATE" --log-level info
sm_wait_up 0 60
wait_counter_sweeps 1

# ports_name GUID: the NODE column `ibsm ports` gives that node's rows.
ports_name() {
    "$IBSM" ports --state-dir "$STATE" > "$WORK/ports.txt" || fail "ibsm ports"
    grep -F " $1 " "$WORK/ports.txt" | head -n1 | sed -E 's/ +0x[0-9a-f]{16} .*//' || true
}
# prom_name GUID: the node_name label of that node's port samples.
prom_name() {
    sed -n "s/.*node_guid=\"$1\",node_desc=\"[^\"]*\",node_name=\"\([^\"]*\)\".*/\1/p" "$STATE/metrics.prom" | sort -u
}

name=$(ports_name "$LEAF_GUID")
[ "$name" = leaf-one ] || { cat "$WORK/ports.txt" >&2; fail "ibsm ports names the leaf '$name', not leaf-one"; }
[ "$(prom_name "$LEAF_GUID")" = leaf-one ] || fail "metrics.prom: node_name of the leaf is '$(prom_name "$LEAF_GUID")'"
desc=$(sed -n "s/.*node_guid=\"$LEAF_GUID\",node_desc=\"\([^\"]*\)\".*/\1/p" "$STATE/metrics.prom" | sort -u)
[ -n "$desc" ] && [ "$desc" != leaf-one ] || fail "metrics.prom: node_desc of the leaf is '$desc', not its NodeDescription"
has "\"$desc\"" "$STATE/topology.net" || fail "topology.net does not keep the NodeDescription '$desc'"
has "leaf-one" "$STATE/topology.net" && fail "topology.net carries the mapped name"

echo "--- pull the leaf's port 1"
mark=$(sm_lines)
ibsim_cmd "Unlink \"$LEAF1\"[1]"
sm_wait_up "$mark"
sm_since "$mark" | has "$LEAF_GUID (leaf-one) port 1" || { sm_since "$mark" >&2; fail "the log does not name the leaf by its mapped name"; }

echo "--- a new name and SIGHUP"
PID=$SM_PID
sed -i 's/"leaf-one"/"leaf-01"/' "$MAP"
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$mark" "reload: node_name_map: the file's content changed"
sm_wait_up "$mark"
wait_counter_sweeps 1
[ "$SM_PID" = "$PID" ] && sm_alive
name=$(ports_name "$LEAF_GUID")
[ "$name" = leaf-01 ] || fail "after the reload ibsm ports names the leaf '$name'"
[ "$(prom_name "$LEAF_GUID")" = leaf-01 ] || fail "after the reload metrics.prom names the leaf '$(prom_name "$LEAF_GUID")'"

echo "--- a bad line and SIGHUP"
echo "leaf-2 $LEAF_GUID" >> "$MAP"
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$mark" "reload refused, keeping the running configuration: node_name_map: $MAP:3: expected a GUID"
sm_wait_up "$mark"
sm_alive
name=$(ports_name "$LEAF_GUID")
[ "$name" = leaf-01 ] || fail "after a refused reload ibsm ports names the leaf '$name'"
echo "PASS"
