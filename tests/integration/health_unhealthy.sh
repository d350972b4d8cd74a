#!/usr/bin/env bash
# NVIDIA's unhealthy-port conditions on ibsim, end to end: `ibsmd
# --foreground` on a two-level fat-tree PGFT(2; 4,4; 1,4; 1,1) (8 switches,
# 16 hosts, 16 leaf-to-spine links) with `health.reboot: {count: 2,
# window_s: 300, action: isolate}` and the default isolation budget (20 %:
# 3 of the 16 switch-to-switch links), `ibsm events --follow` running:
#   (a) a spine "rebooting" twice: its four cables unlinked (it leaves the
#       fabric) and relinked (it comes back), twice. The daemon counts two
#       reboots, isolates three of its links (port order) and only reports
#       the fourth, saying the budget is spent; read back (ibnetdiscover +
#       dump_fts): no LFT entry of the spine sends out of an isolated port,
#       every link up, `ibsm analyze` complete; isolated_links.json names 3;
#   (b) reloaded (SIGHUP) with health.dry_run and a budget of 100 %, a second
#       spine rebooting twice: logged as `(dry run: would isolate)` three
#       times and `(dry run: isolation refused)` for its last link, nothing
#       isolated (the file still names 3, the tables read back unchanged);
#   (c) the events feed carried the reboot isolations, the over-budget
#       report and the dry-run decisions.
#
# usage: health_unhealthy.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

small_tree
# switch_ports SWITCH: the ports of SWITCH that carry a cable.
switch_ports() {
    awk -v id="\"$1\"" '$1 == "Switch" { cur = $3; next } /^$/ { cur = "" }
        cur == id && /^\[[0-9]+\]/ { match($0, /[0-9]+/); print substr($0, RSTART, RLENGTH) }' "$WORK/fabric.net"
}
read -r SPINE1 _ < <(far_end "$LEAF1" 5)
read -r SPINE2 _ < <(far_end "$LEAF1" 6)
[ -n "$SPINE1" ] && [ -n "$SPINE2" ] || fail "no spines on $LEAF1 ports 5, 6 in the net file"
SPINE1_PORTS=$(switch_ports "$SPINE1" | xargs)
[ "$(echo "$SPINE1_PORTS" | wc -w)" -eq 4 ] || fail "$SPINE1 has ports '$SPINE1_PORTS', expected 4"
echo "fabric: $SWITCHES switches, $HOSTS hosts, $LINKS links; rebooting $SPINE1 (ports $SPINE1_PORTS), then $SPINE2"

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
health:
  reboot: {count: 2, window_s: 300, action: isolate}
  isolation_budget_percent: $1
  dry_run: $2
YAML
}
config 20 false
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml"
sm_wait_up 0 60
"$IBSM" events --follow --socket "$SOCK" > "$WORK/events.jsonl" 2> "$WORK/events.err" &
EVENTS_PID=$!
unhealthy_exit() {
    local rc=$?
    kill "$EVENTS_PID" 2> /dev/null || true
    [ -n "$SM_PID" ] && kill "$SM_PID" 2> /dev/null && wait "$SM_PID" 2> /dev/null || true
    ibsim_cleanup "$rc"
}
trap unhealthy_exit EXIT
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"

# reboot SWITCH: every cable of SWITCH unlinked until the SM has lost it,
# then relinked until the SM counts it back.
reboot() {
    local sw=$1 ports mark p
    ports=$(switch_ports "$sw")
    mark=$(sm_lines)
    for p in $ports; do ibsim_cmd "Unlink \"$sw\"[$p]"; done
    sm_wait_for "$mark" "health: $(guid "$sw") left the fabric" 30
    sm_wait_for "$mark" "SUBNET UP" 30
    mark=$(sm_lines)
    for p in $ports; do ibsim_cmd "ReLink \"$sw\"[$p]"; done
    sm_wait_for "$mark" "health: '.*' \($(guid "$sw")\) is back [0-9]+ s after it left the fabric: counted as a reboot" 30
}

echo "--- (a) $SPINE1 reboots twice: 3 of its 4 links isolated, the 4th over the budget"
mark=$(sm_lines)
reboot "$SPINE1"
sm_since "$mark" | has "ISOLATING" && fail "one reboot isolated a link (the rule says 2)"
reboot "$SPINE1"
sm_wait_for "$mark" "isolation budget spent" 30
sm_wait_for "$mark" "SUBNET UP \(generation [0-9]+, re-route around isolated links\)" 30
sm_quiet 3
sm_since "$mark" | grep -E "ISOLATING|budget spent" | cut -c 25-
[ "$(sm_since "$mark" | grep -c "health: ISOLATING the link at .*: reboot: 2 reboots")" -eq 3 ] ||
    fail "expected 3 isolations by the reboot rule"
sm_since "$mark" | grep "budget spent" | grep -q "3 of 16 switch-to-switch links isolated, at most 3 = 20 %" ||
    fail "the over-budget report does not give the budget"
[ "$(grep -c '"node_guid"' "$STATE/isolated_links.json")" -eq 3 ] || fail "isolated_links.json does not name 3 links"
check_fabric isolated "$HOSTS" "$SWITCHES" "$LINKS"
# Three of the spine's ports carry no route any more, the fourth (only
# reported) still does.
unused=0
for p in $SPINE1_PORTS; do
    python3 "$HERE/reroute_check.py" unused "$WORK/isolated.fts" "$(guid "$SPINE1")" "$p" > /dev/null && unused=$((unused + 1))
done
[ "$unused" -eq 3 ] || fail "$unused of $SPINE1's ports carry no route, expected 3"

echo "--- (b) dry run: $SPINE2 reboots twice, nothing is done"
config 100 true
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$mark" "SUBNET UP" 30
sm_quiet 2
reboot "$SPINE2"
reboot "$SPINE2"
sm_wait_for "$mark" "dry run: isolation refused" 30
sm_quiet 3
sm_since "$mark" | grep "dry run" | cut -c 25-
[ "$(sm_since "$mark" | grep -c "(dry run: would isolate): 2 reboots")" -eq 3 ] || fail "expected 3 'would isolate'"
sm_since "$mark" | has "ISOLATING" && fail "a dry run isolated a link"
[ "$(grep -c '"node_guid"' "$STATE/isolated_links.json")" -eq 3 ] || fail "the dry run changed isolated_links.json"
check_fabric dryrun "$HOSTS" "$SWITCHES" "$LINKS"
diff <(sort "$WORK/isolated.fts") <(sort "$WORK/dryrun.fts") > /dev/null ||
    fail "the tables changed under a dry run"

echo "--- (c) the events feed"
python3 - "$WORK/events.jsonl" "$(guid "$SPINE1")" "$(guid "$SPINE2")" << 'PY' || { cat "$WORK/events.jsonl" >&2; fail "events feed"; }
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
s1, s2 = int(sys.argv[2], 16), int(sys.argv[3], 16)
def of(kind, guid): return [e for e in ev if e["event"] == kind and int(e.get("node_guid", "0"), 16) == guid]
assert len(of("isolation", s1)) == 3 and all(e["rule"] == "reboot" for e in of("isolation", s1)), of("isolation", s1)
assert len(of("isolation_over_budget", s1)) == 1, [e["event"] for e in ev]
dry = of("health_dry_run", s2)
assert [e["would"] for e in dry] == ["isolate"] * 4, dry
assert [e["refused"] for e in dry] == [False, False, False, True], dry
print(len(ev), "events:", len(of("isolation", s1)), "isolations,", len(of("isolation_over_budget", s1)),
      "over budget,", len(dry), "dry-run decisions")
PY

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
