#!/usr/bin/env bash
# Master/standby (IBA 14.4.1) with two ibsmd processes on one ibsim, the
# second attached to another host (SIM_HOST), judged with infiniband-diags:
#  1. A (priority 5) comes up MASTER; B (priority 1) started after it finds
#     A in its heavy sweep and stands by: it programs nothing, `sminfo`
#     against B's port says STANDBY, and dump_fts is unchanged.
#  2. Both run with one SM_Key: B takes A for its master only because A
#     answers B's SMInfo Get (which presents the key) with it, and every
#     control packet below carries it. (Answers without the key to other
#     requesters and refused Sets are unit-tested, test_sm_election.cpp.)
#  3. A is killed (SIGKILL): B logs SUBNET UP within
#     polling_interval * (retries + 1) + 1 s, sending no LFT block (every
#     block a switch holds is already right) and keeping every LID;
#     dump_fts before and after are identical. The failover time is printed.
#  4. A restarted with priority 0 stands by for B and nothing changes
#     hands. A's file then says priority 9 and A gets SIGHUP: its next poll
#     finds B ranking below it and says so with trap 144 (SM priority
#     changed); B re-sweeps and hands over (HANDOVER, then ACKNOWLEDGE from
#     A): A logs SUBNET UP as master, B answers STANDBY, and the tables are
#     still identical.
# Both run as an operator's standby drill would: `ibsmd --foreground` on one
# host, no RUNTIME_DIRECTORY and no control.socket, each with its own
# state_dir. Each serves its own socket, <state_dir>/control.sock, and
# `ibsm --state-dir` reaches each: A answers up, B standby.
#
# usage: failover.sh IBSMD IBSM   (FAILOVER_TOPOGEN="pgft --m 18,36 --w 1,18 --p 1,1" picks
# another fabric; the default has 32 hosts)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"


INTERVAL=1
RETRIES=2
# shellcheck disable=SC2086
"$IBSM" topogen ${FAILOVER_TOPOGEN:-pgft --m 4,8 --w 1,4 --p 1,1} --out "$WORK/fabric.net" > /dev/null
ibsim_start "$WORK/fabric.net"
# The second SM's host: the second CA of the net file.
B_HOST=$(grep -m2 '^Ca' "$WORK/fabric.net" | tail -n1 | sed 's/^Ca[[:space:]]*[0-9]*[[:space:]]*"\([^"]*\)".*/\1/')
[ -n "$B_HOST" ] || fail "no second CA in the net file"

config() { # NAME PRIORITY
    mkdir -p "$WORK/$1"
    printf 'sm:\n  sm_key: 0x5eed0000cafe\n  priority: %s\n  polling_interval_s: %s\n  polling_retries: %s\nstate_dir: %s\nsweep:\n  interval_s: 1\n' \
        "$2" "$INTERVAL" "$RETRIES" "$WORK/$1/state" > "$WORK/$1/ibsmd.yaml"
}
# Outside systemd: no RUNTIME_DIRECTORY (ibsim_env.sh sets one for the other tests).
unset RUNTIME_DIRECTORY
PIDS=()
start_sm() { # NAME LOG [SIM_HOST]
    local name=$1 log=$2 host=${3:-}
    (cd "$WORK/$name" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" SIM_HOST=$host LD_PRELOAD="$SIM_PRELOAD" \
        exec "$IBSMD" --foreground --config "$WORK/$name/ibsmd.yaml") > "$WORK/$log.log" 2>&1 &
    PIDS+=($!)
    eval "${name}_PID=$!"
}
cleanup() {
    local rc=$? p
    for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
    ibsim_cleanup "$rc"
}
trap cleanup EXIT
wait_for() { # LOG PATTERN [COUNT] [TIMEOUT_S]
    local log=$1 pat=$2 count=${3:-1} t=${4:-60}
    for _ in $(seq 1 $((t * 10))); do
        [ "$(grep -c -- "$pat" "$log" 2> /dev/null || true)" -ge "$count" ] && return 0
        sleep 0.1
    done
    cat "$log" >&2
    fail "timed out waiting for '$pat' in $log"
}
sminfo_of() { sim sminfo "$@" 2> /dev/null; }
fts() { sim dump_fts 2> /dev/null | grep -v '^ *$' > "$1" || fail "dump_fts failed"; }
lids() {
    sim ibnetdiscover 2> /dev/null | grep -o 'lid [0-9]*' | sort > "$1" || fail "ibnetdiscover failed"
    [ -s "$1" ] || fail "ibnetdiscover showed no LIDs"
}
# "2026-11-23 14:48:57.205 ..." -> seconds since the epoch
log_time() { date -d "$(echo "$1" | cut -c1-23)" +%s.%N; }

echo "--- 1-2. A master, B (started later, on $B_HOST) standby"
config A 5
config B 1
start_sm A A
wait_for "$WORK/A.log" "SUBNET UP"
start_sm B B "$B_HOST"
wait_for "$WORK/B.log" "STANDBY (heavy sweep): standing by for master SM"
grep "STANDBY\|SM state" "$WORK/B.log"
sleep $((INTERVAL * 2))
grep -q "SUBNET UP" "$WORK/B.log" && fail "the standby configured the subnet"
grep -q "phase program\|phase lids" "$WORK/B.log" && fail "the standby assigned LIDs or programmed"
B_PORT_LID=$(sim ibnetdiscover 2> /dev/null |
    awk -v h="\"$B_HOST\"" '/^Ca/ { f = index($0, h) > 0 } f && /# lid / { sub(/.*# lid /, ""); print $1; exit }')
[ -n "$B_PORT_LID" ] || fail "cannot read the LID of B's port"
echo "B's port LID: $B_PORT_LID"
sminfo_of > "$WORK/sminfo-a.txt" || fail "sminfo (master) failed"
sminfo_of "$B_PORT_LID" > "$WORK/sminfo-b.txt" || fail "sminfo $B_PORT_LID failed"
cat "$WORK/sminfo-a.txt" "$WORK/sminfo-b.txt"
grep -q "state 3 SMINFO_MASTER" "$WORK/sminfo-a.txt" || fail "A does not answer MASTER"
grep -q "state 2 SMINFO_STANDBY" "$WORK/sminfo-b.txt" || fail "B does not answer STANDBY"
grep -q "priority 1" "$WORK/sminfo-b.txt" || fail "B does not answer its priority"
fts "$WORK/fts-before.txt"
lids "$WORK/lids-before.txt"
[ -s "$WORK/fts-before.txt" ] || fail "empty dump_fts"

echo "--- each SM serves its own control socket in its state directory; ibsm --state-dir reaches each"
for sm in A B; do
    [ -S "$WORK/$sm/state/control.sock" ] || fail "$sm: no control socket at $WORK/$sm/state/control.sock"
    grep -q "control: serving $WORK/$sm/state/control.sock (root only)" "$WORK/$sm.log" ||
        fail "$sm does not say it serves $WORK/$sm/state/control.sock"
done
live_state() { # NAME: the state `ibsm status --state-dir` gets over the socket
    "$IBSM" status --state-dir "$WORK/$1/state" > "$WORK/status-$1.txt" || fail "ibsm status --state-dir for $1"
    grep -q "^source:       live from ibsmd over $WORK/$1/state/control.sock$" "$WORK/status-$1.txt" ||
        { cat "$WORK/status-$1.txt" >&2; fail "ibsm status --state-dir does not reach $1 over its socket"; }
    "$IBSM" status --state-dir "$WORK/$1/state" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'
}
[ "$(live_state A)" = up ] || fail "A does not answer up over its socket"
[ "$(live_state B)" = standby ] || fail "B does not answer standby over its socket"
echo "A up over $WORK/A/state/control.sock, B standby over $WORK/B/state/control.sock"

echo "--- 3. kill A: B takes over"
sleep 0.$((RANDOM % 10))
kill -9 "$A_PID"
t_kill=$(date +%s.%N)
wait_for "$WORK/B.log" "SUBNET UP" 1 $((INTERVAL * (RETRIES + 1) + 30))
up_line=$(grep -m1 "SUBNET UP" "$WORK/B.log")
t_up=$(log_time "$up_line")
grep "poll:\|SM state\|SUBNET UP\|phase" "$WORK/B.log" | tail -n 12
limit=$((INTERVAL * (RETRIES + 1) + 1))
took=$(awk -v a="$t_kill" -v b="$t_up" 'BEGIN { printf "%.3f", b - a }')
echo "failover: SUBNET UP on the standby ${took} s after the master was killed (limit ${limit} s: polling_interval ${INTERVAL} s x (retries ${RETRIES} + 1) + 1 s)"
awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t <= l) }' || fail "failover took ${took} s > ${limit} s"
echo "$up_line" | has "LFT blocks sent: 0" || fail "the new master resent LFT blocks: $up_line"
fts "$WORK/fts-after.txt"
lids "$WORK/lids-after.txt"
diff "$WORK/fts-before.txt" "$WORK/fts-after.txt" > /dev/null || { diff "$WORK/fts-before.txt" "$WORK/fts-after.txt" | head; fail "dump_fts changed"; }
diff "$WORK/lids-before.txt" "$WORK/lids-after.txt" > /dev/null || fail "LIDs changed"
sminfo_of "$B_PORT_LID" | has "SMINFO_MASTER" || fail "B does not answer MASTER after the takeover"

echo "--- 4. A back with priority 0 stands by; raised to 9 by SIGHUP, it gets the subnet handed over"
config A 0
start_sm A A2
wait_for "$WORK/A2.log" "STANDBY (heavy sweep): standing by for master SM" 1
sleep $((INTERVAL * 2))
grep -q "handed the subnet over\|HANDOVER" "$WORK/B.log" "$WORK/A2.log" && fail "a handover to a lower SM"
config A 9
kill -HUP "$A_PID"
wait_for "$WORK/A2.log" "SM priority 0 -> 9"
wait_for "$WORK/B.log" "trap 144: SM priority changed" 1 $((INTERVAL * 3 + 10))
wait_for "$WORK/B.log" "handed the subnet over to SM"
wait_for "$WORK/A2.log" "SUBNET UP"
grep "poll:\|trap 144\|HANDOVER\|ACKNOWLEDGE\|SM state\|SUBNET UP" "$WORK/A2.log" "$WORK/B.log" | tail -n 12
grep -q "ACKNOWLEDGE from" "$WORK/B.log" || fail "B got no ACKNOWLEDGE"
sminfo_of | has "SMINFO_MASTER" || fail "A does not answer MASTER after the handover"
sminfo_of "$B_PORT_LID" | has "SMINFO_STANDBY" || fail "B does not answer STANDBY after the handover"
fts "$WORK/fts-handover.txt"
diff "$WORK/fts-before.txt" "$WORK/fts-handover.txt" > /dev/null || fail "dump_fts changed after the handover"
echo "PASS"
