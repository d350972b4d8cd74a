#!/usr/bin/env bash
# `ibsm status` and metrics.prom (status without reading logs) against a live ibsmd
# --foreground on PGFT(2; 2,4; 1,2; 1,1) in ibsim:
#  - after the bring-up, `ibsm status --state-dir` exits 0, says running and
#    SUBNET UP with the generation and the LID count the log and the fabric
#    give; metrics.prom parses (prom_check.py) with the same generation;
#  - a cable pulled on the console: trap 128 shows up among the last events
#    and in ibsmd_traps_total, the re-route raises the generation, and
#    summary.txt carries the same activity;
#  - after SIGTERM, state "stopped" and `ibsm status` exits 1.
#
# usage: status_metrics.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
LEAF1=S-0002c90201000001
grep -q "\"$LEAF1\"" "$WORK/fabric.net" || fail "no switch $LEAF1 in the net file"
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
sm_start "$WORK/sm.log" --foreground --state-dir "$STATE" --log-level info
sm_wait_up 0 60


# wait_generation N: state.json names generation N (the status is written
# off the loop, just after the dumps).
wait_generation() {
    local i
    for i in $(seq 1 100); do
        [ -f "$STATE/state.json" ] && [ "$(status_json generation 2> /dev/null)" = "$1" ] && return 0
        sleep 0.1
    done
    fail "state.json does not reach generation $1 (has $(status_json generation 2> /dev/null || echo none))"
}

GEN=$(sm_up_generation 0) || fail "no SUBNET UP generation in the log"
wait_generation "$GEN"
rc=0; "$IBSM" status --state-dir "$STATE" > "$WORK/status.txt" || rc=$?
cat "$WORK/status.txt"
[ "$rc" -eq 0 ] || fail "ibsm status exited $rc on an up subnet"
grep -q "^ibsmd (pid $SM_PID, running): SUBNET UP$" "$WORK/status.txt" || fail "status does not say running and up"
grep -q "^generation:   $GEN$" "$WORK/status.txt" || fail "status does not give generation $GEN"
NODES=$((HOSTS + SWITCHES))
# Every CA port and every switch holds one LID (LMC 0).
grep -q "^LIDs:         $NODES ports, top LID $NODES, LMC 0$" "$WORK/status.txt" || fail "status does not give $NODES LIDs"
grep -q "^fabric:       $NODES nodes ($SWITCHES switches, $HOSTS CAs)" "$WORK/status.txt" || fail "status: wrong fabric size"
grep -qE "^  discover +[0-9.]+ s +[0-9]+ SMPs" "$WORK/status.txt" || fail "status lists no discover phase"
ENGINE=$(sed -n 's/.*SUBNET UP (generation [0-9]*, heavy sweep): .*engine \([a-z_]*\),.*/\1/p' "$SM_LOG" | tail -n1)
[ -n "$ENGINE" ] || fail "no engine in the SUBNET UP line"
grep -q "^engine:       $ENGINE$" "$WORK/status.txt" || fail "status does not name engine $ENGINE"
python3 "$HERE/prom_check.py" "$STATE/metrics.prom" "ibsmd_generation=$GEN" "ibsmd_subnet_up=1" "ibsmd_lids=$NODES" \
    "ibsmd_sweeps_total{kind=heavy}=1" "ibsmd_smps_sent_total>=100" "ibsmd_phase_runs_total{phase=discover}=1" \
    "ibsmd_info{sm_port_guid=$(status_json sm_port_guid),state=up,engine=$ENGINE}=1" || fail "metrics.prom"
"$IBSM" status --state-dir "$STATE" --json | python3 -c 'import json, sys; json.load(sys.stdin)' || fail "ibsm status --json"

echo "--- pull host-0004's cable"
mark=$(sm_lines)
ibsim_cmd "Unlink \"$LEAF1\"[1]"
sm_wait_up "$mark"
GEN2=$(sm_up_generation "$mark")
[ -n "$GEN2" ] && [ "$GEN2" -gt "$GEN" ] || fail "no new generation after the cable pull"
wait_generation "$GEN2"
"$IBSM" status --state-dir "$STATE" > "$WORK/status2.txt" || fail "ibsm status after the re-route"
cat "$WORK/status2.txt"
grep -q "^generation:   $GEN2$" "$WORK/status2.txt" || fail "status does not give generation $GEN2"
# The lost CA's LID stays reserved (guid2lid) but no port holds it.
grep -q "^LIDs:         $((NODES - 1)) ports, top LID $NODES, LMC 0$" "$WORK/status2.txt" || fail "status: LIDs after the cable pull"
grep -qE "^  .*  trap 128 \(link state change\) from LID [0-9]+$" "$WORK/status2.txt" || fail "no trap 128 among the last events"
grep -qE "^  .*  re-route: up, generation $GEN2, " "$WORK/status2.txt" || fail "the re-route is not among the last events"
python3 "$HERE/prom_check.py" "$STATE/metrics.prom" "ibsmd_generation=$GEN2" "ibsmd_traps_total{number=128}>=1" \
    "ibsmd_reroutes_total>=1" "ibsmd_nodes{type=ca}=$((HOSTS - 1))" || fail "metrics.prom after the re-route"
grep -q "^generation:   $GEN2 (re-route)$" "$STATE/summary.txt" || fail "summary.txt: generation"
grep -q "trap 128 (link state change)" "$STATE/summary.txt" || fail "summary.txt has no last events"
grep -q "^SMPs: " "$STATE/summary.txt" || fail "summary.txt has no SMP counters"
ls "$STATE" | grep -v -E '^(state\.json|metrics\.prom|summary\.txt|lfts\.dump|topology\.net|guid2lid|sl\.txt|port_fields_kept)$' &&
    fail "unexpected files in the state directory (temporary files left?)"

echo "--- SIGTERM"
kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || fail "ibsmd exited with $rc after SIGTERM"
[ "$(status_json state)" = stopped ] || fail "state.json does not say stopped after the exit"
rc=0; "$IBSM" status --state-dir "$STATE" > "$WORK/status3.txt" || rc=$?
head -n1 "$WORK/status3.txt"
[ "$rc" -eq 1 ] || fail "ibsm status exited $rc for a stopped daemon, expected 1"
grep -q "NOT RUNNING" "$WORK/status3.txt" || fail "status does not say NOT RUNNING"
echo "PASS"
