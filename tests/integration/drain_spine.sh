#!/usr/bin/env bash
# Planned maintenance on ibsim (docs/operations.md, "Planned maintenance"):
# `ibsmd --foreground` on a two-level fat-tree, PGFT(2; 4,4; 1,4; 1,1)
# (4 leaves of 4 hosts, 4 spines). Then:
#   (a) `ibsm whatif` from the daemon's state directory and `ibsm drain
#       --dry-run` of a spine: nothing cut off, the gate passes, and the dry
#       run changes nothing on the switches;
#   (b) the spine drained: the re-route sends only the blocks that change
#       (blocks sent = blocks differing between the read-backs); read back
#       with ibnetdiscover + dump_fts, no other switch sends any LID but the
#       spine's own towards it, and its own LID is still routed; `ibsm
#       analyze` finds every CA pair reachable; `ibsm status`, `ibsm ports`
#       and metrics.prom show the drain;
#   (c) the daemon restarted: the drain is read from drains.json and the
#       spine still carries no transit route;
#   (d) undrained: the routes are those of before the drain again;
#   (e) a leaf's drain refused, naming its four hosts; nothing changes.
#
# usage: drain_spine.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

small_tree
SPINE=0x0002c90202000002   # level 2, index 2
LEAF=0x0002c90201000002    # level 1, index 2: hosts 8..11 on ports 1..4
echo "fabric: $SWITCHES switches, $HOSTS hosts, $LINKS links; draining spine $SPINE"

ibsim_start "$WORK/fabric.net"
cat > "$WORK/ibsmd.yaml" <<YAML
state_dir: $WORK/state
sweep:
  interval_s: 1
YAML
CFG=(--config "$WORK/ibsmd.yaml")
sm_start "$WORK/sm.log" --foreground "${CFG[@]}"
sm_wait_up 0 60
check_fabric before "$HOSTS" "$SWITCHES" "$LINKS"
before=$(python3 "$HERE/drain_check.py" towards "$WORK/before.net" "$WORK/before.fts" "$SPINE")
echo "before the drain, routes towards the spine: $before"
[ "${before#*transit }" -gt 0 ] || fail "no route crosses $SPINE before the drain: the test would prove nothing"

echo "--- (a) what-if and dry run"
rc=0; "$IBSM" whatif "${CFG[@]}" --without "switch:$SPINE" --json > "$WORK/whatif.json" 2> "$WORK/whatif.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/whatif.err" >&2; fail "ibsm whatif exited $rc"; }
python3 - "$WORK/whatif.json" <<'PY' || fail "ibsm whatif's prediction is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cut_off"] == [], r["cut_off"]
assert r["unreachable_pairs"] == 0, r
assert r["gate"] == "passed", r["gate"]
assert r["lft_blocks_changed"] > 0, r
assert r["ebb_after"] <= r["ebb_before"] + 1e-9, r
print(f"whatif: engine {r['engine']}, gate {r['gate']}, EBB {r['ebb_before']:.3f} -> {r['ebb_after']:.3f}, "
      f"{r['lft_blocks_changed']} LFT blocks would change")
PY
rc=0; "$IBSM" whatif "${CFG[@]}" --without "switch:$LEAF" > "$WORK/whatif-leaf.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/whatif-leaf.txt" >&2; fail "ibsm whatif without a leaf exited $rc, expected 2"; }
grep "cut off" "$WORK/whatif-leaf.txt"
mark=$(sm_lines)
"$IBSM" drain switch "$SPINE" --dry-run "${CFG[@]}" > "$WORK/dry.txt" || fail "ibsm drain --dry-run exited $?"
grep -q "dry run: nothing changed" "$WORK/dry.txt" || fail "the dry run does not say it changed nothing"
grep -q "cut off: *none" "$WORK/dry.txt" || { cat "$WORK/dry.txt" >&2; fail "the dry run cuts something off"; }
sm_quiet 2
sm_since "$mark" | has "re-route" && fail "the dry run re-routed"
readback dry
python3 "$HERE/reroute_check.py" same "$WORK/before.fts" "$WORK/dry.fts" > /dev/null || fail "the dry run changed an LFT"

echo "--- (b) the spine drained"
mark=$(sm_lines)
"$IBSM" drain switch "$SPINE" "${CFG[@]}" | tee "$WORK/drain.txt"
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 30
sm_quiet 3
check_fabric drained "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/drain_check.py" drained "$WORK/drained.net" "$WORK/drained.fts" "$SPINE" || fail "routes still cross the drained spine"
sent=$(blocks_sent "$mark"); changed=$(blocks_changed before drained)
echo "LFT blocks sent $sent, changed $changed"
[ "$sent" -eq "$changed" ] || fail "the drain's re-route sent $sent LFT blocks, $changed differ"
"$IBSM" status "${CFG[@]}" > "$WORK/status.txt" || true
grep -A1 "^drains:" "$WORK/status.txt"
grep -q "^drains: *1" "$WORK/status.txt" || fail "ibsm status does not show the drain"
"$IBSM" ports "${CFG[@]}" --json > "$WORK/ports.json" || fail "ibsm ports --json"
python3 - "$WORK/ports.json" "$SPINE" <<'PY' || fail "ibsm ports does not show the drained links"
import json, sys
ports = json.load(open(sys.argv[1]))["ports"]
drained = [p for p in ports if p["node_guid"] == sys.argv[2] and p["state"] == "isolated"
           and any(r.startswith("drain: switch") for r in p.get("reasons", []))]
assert len(drained) == 3, [(p["port"], p["state"], p.get("reasons")) for p in ports if p["node_guid"] == sys.argv[2]]
PY
grep -q '^ibsmd_drains 1$' "$WORK/state/metrics.prom" || fail "metrics.prom has no ibsmd_drains 1"
[ -s "$WORK/state/drains.json" ] || fail "no drains.json in the state directory"

echo "--- (c) restarted, the spine stays drained"
kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
sm_start "$WORK/sm2.log" --foreground "${CFG[@]}"
sm_wait_up 0 60
sm_since 0 | has "stays drained" || fail "the restarted daemon did not take the drain from the state directory"
sm_quiet 3
check_fabric restarted "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/drain_check.py" drained "$WORK/restarted.net" "$WORK/restarted.fts" "$SPINE" ||
    fail "after the restart routes cross the drained spine"

echo "--- (d) undrained, the routes come back"
mark=$(sm_lines)
"$IBSM" undrain switch "$SPINE" "${CFG[@]}"
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 30
sm_quiet 3
check_fabric undrained "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" same "$WORK/before.fts" "$WORK/undrained.fts" || fail "the undrain did not bring the routes back"
"$IBSM" status "${CFG[@]}" | grep -q "^drains: *none" || fail "ibsm status still shows a drain"

echo "--- (e) a leaf's drain refused, with its hosts"
mark=$(sm_lines)
rc=0; "$IBSM" drain switch "$LEAF" "${CFG[@]}" > "$WORK/leaf.out" 2> "$WORK/leaf.err" || rc=$?
cat "$WORK/leaf.err"
[ "$rc" -ne 0 ] || fail "the leaf's drain was not refused"
for h in host-0008 host-0009 host-0010 host-0011; do
    grep -q "$h" "$WORK/leaf.err" || fail "the refusal does not name $h"
done
[ "$(grep -o 'host-[0-9]*' "$WORK/leaf.err" | sort -u | wc -l)" -eq 4 ] || fail "the refusal names other than the leaf's 4 hosts"
sm_quiet 2
sm_since "$mark" | has "re-route" && fail "a refused drain re-routed"
readback refused
python3 "$HERE/reroute_check.py" same "$WORK/before.fts" "$WORK/refused.fts" > /dev/null || fail "a refused drain changed an LFT"

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
