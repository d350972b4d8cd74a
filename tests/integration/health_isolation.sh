#!/usr/bin/env bash
# The health policy's isolation of a flapping link, on ibsim: `ibsmd
# --foreground` with `health.flapping: {downs: 5, window_s: 60, action:
# isolate}` on a two-level fat-tree, PGFT(2; 4,4; 1,4; 1,1) (8 switches,
# 16 hosts). Then:
#   (a) one leaf-to-spine cable unlinked and relinked 5 times within 30 s:
#       the daemon logs the isolation as flapping, the re-route around it
#       comes up; read back (ibnetdiscover + dump_fts): every link still up,
#       no LFT entry of either end uses the cable, `ibsm analyze` complete
#       (0 unreachable CA pairs);
#   (b) the daemon restarted: the isolation is read from isolated_links.json
#       in the state directory and the cable still carries no route;
#   (c) a host's only cable flapping: reported as isolation refused ("its
#       only link"), not isolated (the file still names one link).
# Counter-threshold isolations and `ibsm port clear` extend this script once
# the counter poller and the control socket are in (a step each below).
#
# usage: health_isolation.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

small_tree
LEAF2=S-0002c90201000002
read -r SPINE SPINE_PORT < <(far_end "$LEAF1" 5) # the spine on LEAF1 port 5, and its port
[ -n "$SPINE" ] || fail "no cable on $LEAF1 port 5 in the net file"
echo "fabric: $SWITCHES switches, $HOSTS hosts, $LINKS links; flapping cable $LEAF1[5] - $SPINE[$SPINE_PORT]"

ibsim_start "$WORK/fabric.net"
cat > "$WORK/ibsmd.yaml" <<YAML
state_dir: $WORK/state
sweep:
  interval_s: 1
health:
  flapping: {downs: 5, window_s: 60, action: isolate}
YAML
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml"
sm_wait_up 0 60
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/up.fts" "$(guid "$LEAF1")" 5 > /dev/null &&
    fail "before any flap, no route uses $LEAF1 port 5: the test would prove nothing"

# flap PORT-SPEC: 5 Unlink/ReLink pairs, 2.5 s apart (25 s in all).
flap() {
    for _ in 1 2 3 4 5; do
        ibsim_cmd "Unlink $1"; sleep 2.5
        ibsim_cmd "ReLink $1"; sleep 2.5
    done
}

echo "--- (a) a switch-to-switch cable flapping 5 times in 25 s is isolated"
mark=$(sm_lines)
flap "\"$LEAF1\"[5]"
sm_wait_for "$mark" "health: ISOLATING the link at" 30
sm_since "$mark" | grep "ISOLATING" | cut -c 25- | head -n1
sm_since "$mark" | grep "ISOLATING" | grep -q "flapping: [0-9]* link-downs within 60 s" || fail "the isolation does not say flapping"
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 30
sm_quiet 3
sm_since "$mark" | grep -E "SUBNET UP .*re-route around isolated links" | cut -c 25-
check_fabric isolated "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/isolated.fts" "$(guid "$LEAF1")" 5 || fail "a route still uses $LEAF1 port 5"
python3 "$HERE/reroute_check.py" unused "$WORK/isolated.fts" "$(guid "$SPINE")" "$SPINE_PORT" ||
    fail "a route still uses $SPINE port $SPINE_PORT"
[ -s "$WORK/state/isolated_links.json" ] || fail "no isolated_links.json in the state directory"

echo "--- (b) restarted, the cable stays isolated"
kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
mark=0
sm_start "$WORK/sm2.log" --foreground --config "$WORK/ibsmd.yaml"
sm_wait_up 0 60
sm_since 0 | has "stays isolated" || fail "the restarted daemon did not take the isolation from the state directory"
sm_quiet 3
check_fabric restarted "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" unused "$WORK/restarted.fts" "$(guid "$LEAF1")" 5 ||
    fail "after the restart a route uses $LEAF1 port 5 again"

echo "--- (c) a host's only cable flapping: isolation refused, not isolated"
mark=$(sm_lines)
flap "\"$LEAF2\"[1]"
sm_wait_for "$mark" "isolation refused" 30
sm_since "$mark" | grep "isolation refused" | cut -c 25- | head -n1
sm_since "$mark" | grep "isolation refused" | grep -q "its only link" || fail "the refusal does not say why"
sm_since "$mark" | has "ISOLATING" && fail "a host's only link was isolated"
[ "$(grep -c '"node_guid"' "$WORK/state/isolated_links.json")" -eq 1 ] || fail "isolated_links.json names more than one link"
sm_quiet 3
check_fabric refused "$HOSTS" "$SWITCHES" "$LINKS"

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
