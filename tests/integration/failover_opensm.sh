#!/usr/bin/env bash
# Master/standby with OpenSM as the other SM, in both roles, on one ibsim
# (OpenSM's SM_Key set to 0, as ibsmd.yaml says to pair the two):
#  1. OpenSM master (priority 10), ibsmd started after it on another host
#     stands by (sminfo: STANDBY), programs nothing; OpenSM is killed:
#     ibsmd logs SUBNET UP within polling_interval * (retries + 1) + 1 s and
#     every port keeps its LID.
#  2. ibsmd master (priority 10), OpenSM (priority 1, polling 1 s, 2
#     retries) started after it stands by ("Entering STANDBY state": it
#     took ibsmd's SMInfo answers for a live master); ibsmd is killed:
#     OpenSM enters MASTER state and logs SUBNET UP; every port keeps its LID.
#
# usage: failover_opensm.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/opensm_run.sh"

command -v opensm > /dev/null || fail "opensm not found (apt-get install opensm)"

INTERVAL=1
RETRIES=2
"$IBSM" topogen pgft --m 4,8 --w 1,4 --p 1,1 --out "$WORK/fabric.net" > /dev/null
ibsim_start "$WORK/fabric.net"
OTHER_HOST=$(grep -m2 '^Ca' "$WORK/fabric.net" | tail -n1 | sed 's/^Ca[[:space:]]*[0-9]*[[:space:]]*"\([^"]*\)".*/\1/')

PIDS=()
cleanup() {
    local rc=$? p
    for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
    ibsim_cleanup "$rc"
}
trap cleanup EXIT
wait_for() { # LOG PATTERN [TIMEOUT_S]
    local log=$1 pat=$2 t=${3:-60}
    for _ in $(seq 1 $((t * 10))); do
        grep -q -- "$pat" "$log" 2> /dev/null && return 0
        sleep 0.1
    done
    tail -n 30 "$log" >&2
    fail "timed out waiting for '$pat' in $log"
}
lids() {
    sim ibnetdiscover 2> /dev/null | grep -o '# lid [0-9]*\|^Switch.*lid [0-9]*' | sed 's/.*lid //' | sort -n > "$1"
    [ -s "$1" ] || fail "ibnetdiscover showed no LIDs"
}
log_time() { date -d "$(echo "$1" | cut -c1-23)" +%s.%N; }

start_ibsmd() { # NAME PRIORITY [SIM_HOST]
    local name=$1 host=${3:-}
    mkdir -p "$WORK/$name"
    printf 'sm:\n  priority: %s\n  polling_interval_s: %s\n  polling_retries: %s\nstate_dir: %s\nsweep:\n  interval_s: 1\ncontrol:\n  socket: %s\n' \
        "$2" "$INTERVAL" "$RETRIES" "$WORK/$name/state" "$WORK/$name/control.sock" > "$WORK/$name/ibsmd.yaml"
    (cd "$WORK/$name" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" SIM_HOST=$host LD_PRELOAD="$SIM_PRELOAD" \
        exec "$IBSMD" --foreground --config "$WORK/$name/ibsmd.yaml") > "$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    LAST_PID=$!
}
start_opensm() { # NAME PRIORITY [SIM_HOST]
    local name=$1 host=${3:-}
    mkdir -p "$WORK/$name/cache"
    osm_config "$WORK/$name/osm.conf" "$WORK/$name.log" 's/^sm_key .*/sm_key 0x0000000000000000/' \
        "s/^sm_priority .*/sm_priority $2/" \
        "s/^sminfo_polling_timeout .*/sminfo_polling_timeout $((INTERVAL * 1000))/" \
        "s/^polling_retry_number .*/polling_retry_number $RETRIES/"
    (cd "$WORK/$name" && SIM_HOST=$host OSM_CACHE_DIR="$WORK/$name/cache" LD_PRELOAD="$SIM_PRELOAD" \
        exec opensm -F "$WORK/$name/osm.conf") > "$WORK/$name.out" 2>&1 &
    PIDS+=($!)
    LAST_PID=$!
}

echo "--- 1. OpenSM master, ibsmd standby; OpenSM killed"
start_opensm osm1 10
OSM1=$LAST_PID
wait_for "$WORK/osm1.log" "SUBNET UP"
start_ibsmd sm1 1 "$OTHER_HOST"
SM1=$LAST_PID
wait_for "$WORK/sm1.log" "STANDBY (heavy sweep): standing by for master SM"
grep "SM state\|STANDBY" "$WORK/sm1.log"
sleep $((INTERVAL * 2))
grep -q "SUBNET UP\|phase program" "$WORK/sm1.log" && fail "ibsmd programmed while OpenSM was master"
lids "$WORK/lids-before.txt"
kill -9 "$OSM1"
t_kill=$(date +%s.%N)
wait_for "$WORK/sm1.log" "SUBNET UP" $((INTERVAL * (RETRIES + 1) + 30))
up_line=$(grep -m1 "SUBNET UP" "$WORK/sm1.log")
took=$(awk -v a="$t_kill" -v b="$(log_time "$up_line")" 'BEGIN { printf "%.3f", b - a }')
limit=$((INTERVAL * (RETRIES + 1) + 1))
echo "failover OpenSM -> ibsmd: SUBNET UP ${took} s after OpenSM was killed (limit ${limit} s); $(echo "$up_line" | sed 's/.*LFT blocks sent/LFT blocks sent/')"
awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t <= l) }' || fail "failover took ${took} s > ${limit} s"
lids "$WORK/lids-after.txt"
diff "$WORK/lids-before.txt" "$WORK/lids-after.txt" > /dev/null || fail "LIDs changed in the takeover from OpenSM"

echo "--- 2. ibsmd master, OpenSM standby; ibsmd killed"
kill -9 "$SM1"
start_ibsmd sm2 10
SM2=$LAST_PID
wait_for "$WORK/sm2.log" "SUBNET UP"
start_opensm osm2 1 "$OTHER_HOST"
wait_for "$WORK/osm2.log" "Entering STANDBY state"
sleep $((INTERVAL * (RETRIES + 2)))
grep -q "Entering MASTER state" "$WORK/osm2.log" && fail "OpenSM did not take ibsmd's SMInfo answers for a live master"
lids "$WORK/lids-before2.txt"
kill -9 "$SM2"
t_kill=$(date +%s)
wait_for "$WORK/osm2.log" "Entering MASTER state" $((INTERVAL * (RETRIES + 1) + 30))
wait_for "$WORK/osm2.log" "SUBNET UP" 30
echo "failover ibsmd -> OpenSM: OpenSM entered MASTER state and logged SUBNET UP (killed at $(date -d @"$t_kill" +%T))"
grep "Entering\|SUBNET UP" "$WORK/osm2.log" | tail -n 4
lids "$WORK/lids-after2.txt"
diff "$WORK/lids-before2.txt" "$WORK/lids-after2.txt" > /dev/null || fail "LIDs changed in the takeover by OpenSM"
echo "PASS"
