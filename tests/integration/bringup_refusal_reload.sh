#!/usr/bin/env bash
# The failure path and SIGHUP, on a fabric ftree cannot route (a torus):
#  - `ibsmd --once` with the chain [ftree] and no fallback exits 1, logs why
#    ("subnet NOT up: no routing engine ... ftree: ...") and leaves every
#    port un-activated (nothing is programmed without routes);
#  - `ibsmd --foreground` with the same file stays running, not up; after
#    the file is changed to [updn] and SIGHUP is sent it re-sweeps and
#    brings the subnet up, routed by updn (iblinkinfo: every up port ACTIVE),
#    then a change that needs a restart (state_dir) is refused by name and
#    SIGTERM stops it. (Not minhop: on a torus its routes close a credit
#    loop, which the verification gate reports as SUBNET DEGRADED; updn
#    routes a torus without one.)
#  - sm.port_guid selects the SM's port (the foreground run uses it), and an
#    unknown GUID is refused with the local port GUIDs named.
#
# usage: bringup_refusal_reload.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"


"$IBSM" topogen torus --x 4 --y 3 --hosts-per-switch 2 --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
STATE="$WORK/state"
CFG="$WORK/ibsmd.yaml"
printf 'routing:\n  engines: [ftree]\n  no_fallback: true\nstate_dir: %s\n' "$STATE" > "$CFG"

echo "--- ibsmd --once with [ftree] only: not up, exit 1"
rc=0; sim "$IBSMD" --once --config "$CFG" 2> "$WORK/once.log" || rc=$?
grep -E "refused|NOT up" "$WORK/once.log" || true  # shown for the log; checked below
[ "$rc" -eq 1 ] || { cat "$WORK/once.log" >&2; fail "expected exit 1, got $rc"; }
grep -q "subnet NOT up: no routing engine could route the fabric; ftree: " "$WORK/once.log" || fail "no reason logged"
sim iblinkinfo > "$WORK/links0.txt" 2> "$WORK/links0.err" || { cat "$WORK/links0.err" >&2; fail "iblinkinfo failed"; }
# The cables are up (so "no port ACTIVE" is not an empty read-back).
grep -q 'LinkUp' "$WORK/links0.txt" || { cat "$WORK/links0.txt" >&2; fail "iblinkinfo shows no link up"; }
if grep -q 'Active/' "$WORK/links0.txt"; then fail "ports were activated without routes"; fi

echo "--- sm.port_guid: an unknown GUID is refused naming the local ports; the real one selects the SM's port"
sm_guid=$(sim ibstat -p 2> /dev/null | head -n1)
[ -n "$sm_guid" ] || fail "ibstat -p printed no port GUID"
printf 'sm:\n  port_guid: "0x00000000deadbeef"\nstate_dir: %s\n' "$STATE" > "$WORK/bad-guid.yaml"
rc=0; sim "$IBSMD" --once --config "$WORK/bad-guid.yaml" 2> "$WORK/bad-guid.log" || rc=$?
cat "$WORK/bad-guid.log"
[ "$rc" -ne 0 ] || fail "an unknown sm.port_guid was accepted"
grep -q "no local port has GUID 0x00000000deadbeef (local ports: .*$sm_guid" "$WORK/bad-guid.log" ||
    fail "the error does not name the local port GUIDs"
printf 'sm:\n  port_guid: "%s"\n' "$sm_guid" >> "$CFG"  # kept by every rewrite below

echo "--- ibsmd --foreground: not up, SIGHUP with [updn] brings it up"
(cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" \
    LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground --config "$CFG") > "$WORK/fg.log" 2>&1 &
FG_PID=$!
trap 'rc=$?; kill $FG_PID 2> /dev/null && wait $FG_PID 2> /dev/null || true; ibsim_cleanup $rc' EXIT
wait_for() {
    for _ in $(seq 1 300); do
        grep -q "$1" "$WORK/fg.log" && return 0
        kill -0 "$FG_PID" 2> /dev/null || { cat "$WORK/fg.log" >&2; fail "ibsmd --foreground exited early"; }
        sleep 0.1
    done
    cat "$WORK/fg.log" >&2
    fail "timed out waiting for '$1'"
}
wait_for "subnet NOT up"
printf 'routing:\n  engines: [updn]\n  no_fallback: true\nstate_dir: %s\nsm:\n  port_guid: "%s"\n' "$STATE" "$sm_guid" > "$CFG"
kill -HUP "$FG_PID"
wait_for "SUBNET \(UP\|DEGRADED\)"
grep -E "reload|SUBNET (UP|DEGRADED)" "$WORK/fg.log"
grep -q "SUBNET DEGRADED" "$WORK/fg.log" && fail "the subnet came up degraded after the reload"
grep -q "SUBNET UP (generation [0-9]*, heavy sweep).*engine updn," "$WORK/fg.log" || fail "the subnet did not come up routed by updn"
sim iblinkinfo > "$WORK/links1.txt" 2> /dev/null || fail "iblinkinfo failed"
up=$(grep -c 'LinkUp' "$WORK/links1.txt" || true)
active=$(grep -c 'Active/  LinkUp' "$WORK/links1.txt" || true)
echo "ports with link up: $up, ACTIVE: $active"
[ "$up" -gt 0 ] && [ "$up" -eq "$active" ] || fail "not every up port is ACTIVE after the reload"

echo "--- a change that needs a restart is refused by name"
printf 'routing:\n  engines: [updn]\n  no_fallback: true\nstate_dir: %s\nsm:\n  port_guid: "%s"\n' "$WORK/elsewhere" "$sm_guid" > "$CFG"
kill -HUP "$FG_PID"
wait_for "reload refused: state_dir"
kill -TERM "$FG_PID"
rc=0; wait "$FG_PID" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/fg.log" >&2; fail "exit $rc after SIGTERM"; }
echo "PASS"
