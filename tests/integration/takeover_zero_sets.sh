#!/usr/bin/env bash
# A restart and a takeover that change nothing, on a degraded 3-level
# fat-tree in ibsim (a switch, links and hosts missing, so no engine's
# tables are fixed by symmetry), judged by each SM's SUBNET UP line and by
# dump_fts:
#  1. `ibsmd --once` configures the fabric; a second `ibsmd --once` on the
#     same state directory sends no LFT block, no P_Key block and no
#     PortInfo Set, and dump_fts reads back the same tables.
#  2. A master A (on the first CA) and a standby B on the last CA, under
#     another leaf switch, so B discovers the fabric in another DR-path
#     order. A is killed: B's first sweep sends no LFT block and no P_Key
#     block, and PortInfo Sets only to the ports whose MasterSMLID must now
#     name B (one per CA port and switch; the CA ports' carry
#     ClientReregister, since B's SA starts empty); those ports show B's
#     LID; dump_fts is unchanged.
#
# usage: takeover_zero_sets.sh IBSMD IBSM   (TAKEOVER_TOPOGEN picks another
# fabric; TAKEOVER_ENGINE=E runs every SM with --engine E: nue and dfsssp
# break ties in node order, which discovery from another place changed)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"

# shellcheck disable=SC2086
"$IBSM" topogen ${TAKEOVER_TOPOGEN:-pgft --m 4,4,4 --w 1,4,4 --p 1,1,1 --remove-links 6 --remove-switches 1 --hosts-missing 5 --seed 7} \
    --out "$WORK/fabric.net" > /dev/null
ibsim_start "$WORK/fabric.net"
ENGINE=()
[ -n "${TAKEOVER_ENGINE:-}" ] && ENGINE=(--engine "$TAKEOVER_ENGINE")
A_HOST=$(grep -m1 '^Ca' "$WORK/fabric.net" | sed 's/^Ca[[:space:]]*[0-9]*[[:space:]]*"\([^"]*\)".*/\1/')
B_HOST=$(grep '^Ca' "$WORK/fabric.net" | tail -n1 | sed 's/^Ca[[:space:]]*[0-9]*[[:space:]]*"\([^"]*\)".*/\1/')
[ -n "$A_HOST" ] && [ -n "$B_HOST" ] && [ "$A_HOST" != "$B_HOST" ] || fail "no two CAs in the net file"

fts() { sim dump_fts 2> /dev/null | grep -v '^ *$' > "$1" || fail "dump_fts failed"; }
# the three counts of a SUBNET UP line: "PKEY PORTINFO LFT"
counts() {
    echo "$1" | sed -n 's/.*P_Key blocks sent: \([0-9]*\), PortInfo Sets: \([0-9]*\), LFT blocks sent: \([0-9]*\)$/\1 \2 \3/p'
}

echo "--- 1. ibsmd --once twice on $A_HOST"
STATE="$WORK/once-state"
SIM_HOST="$A_HOST" sim "$IBSMD" --once --state-dir "$STATE" "${ENGINE[@]}" 2> "$WORK/once1.log" ||
    { cat "$WORK/once1.log" >&2; fail "first ibsmd --once failed"; }
grep "SUBNET UP" "$WORK/once1.log"
fts "$WORK/fts-once1.txt"
SIM_HOST="$A_HOST" sim "$IBSMD" --once --state-dir "$STATE" "${ENGINE[@]}" 2> "$WORK/once2.log" ||
    { cat "$WORK/once2.log" >&2; fail "second ibsmd --once failed"; }
grep -E "phase program|SUBNET UP" "$WORK/once2.log"
line=$(grep -m1 "SUBNET UP" "$WORK/once2.log") || fail "no SUBNET UP in the second run"
[ "$(counts "$line")" = "0 0 0" ] ||
    fail "the second --once sent P_Key blocks, PortInfo Sets or LFT blocks (want 0 0 0, got '$(counts "$line")'): $line"
fts "$WORK/fts-once2.txt"
diff "$WORK/fts-once1.txt" "$WORK/fts-once2.txt" > /dev/null ||
    { diff "$WORK/fts-once1.txt" "$WORK/fts-once2.txt" | head >&2; fail "dump_fts changed on the restart"; }

echo "--- 2. master A on $A_HOST, standby B on $B_HOST; A killed"
INTERVAL=1
RETRIES=2
config() { # NAME PRIORITY
    mkdir -p "$WORK/$1"
    printf 'sm:\n  priority: %s\n  polling_interval_s: %s\n  polling_retries: %s\nstate_dir: %s\nsweep:\n  interval_s: 1\n' \
        "$2" "$INTERVAL" "$RETRIES" "$WORK/$1/state" > "$WORK/$1/ibsmd.yaml"
}
unset RUNTIME_DIRECTORY
PIDS=()
start_sm() { # NAME HOST
    (cd "$WORK/$1" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" SIM_HOST=$2 LD_PRELOAD="$SIM_PRELOAD" \
        exec "$IBSMD" --foreground --config "$WORK/$1/ibsmd.yaml" "${ENGINE[@]}") > "$WORK/$1.log" 2>&1 &
    PIDS+=($!)
    eval "${1}_PID=$!"
}
cleanup() {
    local rc=$? p
    for p in "${PIDS[@]}"; do kill -9 "$p" 2> /dev/null || true; done
    ibsim_cleanup "$rc"
}
trap cleanup EXIT
wait_for() { # LOG PATTERN [TIMEOUT_S]
    local t=${3:-60}
    for _ in $(seq 1 $((t * 10))); do
        grep -q -- "$2" "$1" 2> /dev/null && return 0
        sleep 0.1
    done
    cat "$1" >&2
    fail "timed out waiting for '$2' in $1"
}
config A 5
config B 1
start_sm A "$A_HOST"
wait_for "$WORK/A.log" "SUBNET UP"
start_sm B "$B_HOST"
wait_for "$WORK/B.log" "STANDBY (heavy sweep): standing by for master SM"
fts "$WORK/fts-before.txt"
diff "$WORK/fts-once1.txt" "$WORK/fts-before.txt" > /dev/null || fail "the master's first sweep changed the tables"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2> /dev/null || fail "ibnetdiscover failed"
switches=$(grep -c '^Switch' "$WORK/ibnetdiscover.net")
ca_ports=$(awk '/^(Ca|Hca)/ { ca = 1; next } /^(Switch|Rt)/ { ca = 0 } ca && /^\[/ { n++ } END { print n + 0 }' "$WORK/ibnetdiscover.net")
B_LID=$(awk -v h="\"$B_HOST\"" '/^(Ca|Hca)/ { f = index($0, h) > 0 } f && /# lid / { sub(/.*# lid /, ""); print $1; exit }' \
    "$WORK/ibnetdiscover.net")
[ -n "$B_LID" ] || fail "cannot read the LID of B's port"

kill -9 "$A_PID"
wait_for "$WORK/B.log" "SUBNET UP" $((INTERVAL * (RETRIES + 1) + 30))
grep -E "phase program|SUBNET UP" "$WORK/B.log"
line=$(grep -m1 "SUBNET UP" "$WORK/B.log")
read -r pkeys portinfo lfts <<< "$(counts "$line")"
[ -n "$lfts" ] || fail "no Set counts in B's SUBNET UP line: $line"
[ "$lfts" = 0 ] || fail "the standby sent $lfts LFT blocks: its routes differ from the master's: $line"
[ "$pkeys" = 0 ] || fail "the standby sent $pkeys P_Key blocks: $line"
want=$((switches + ca_ports))
[ "$portinfo" = "$want" ] ||
    fail "the standby sent $portinfo PortInfo Sets; want $want (MasterSMLID on $ca_ports CA ports and $switches switches): $line"
fts "$WORK/fts-after.txt"
diff "$WORK/fts-before.txt" "$WORK/fts-after.txt" > /dev/null ||
    { diff "$WORK/fts-before.txt" "$WORK/fts-after.txt" | head >&2; fail "dump_fts changed at the takeover"; }
# The Sets did what they were for: MasterSMLID names B (a few ports by LID).
for lid in $(grep -o '# lid [0-9]*' "$WORK/ibnetdiscover.net" | awk '{ print $3 }' | sort -un | awk 'NR % 9 == 1'); do
    sm_lid=$(sim smpquery portinfo "$lid" 2> /dev/null | sed -n 's/^SMLid:\.*\([0-9]*\)$/\1/p')
    [ "$sm_lid" = "$B_LID" ] || fail "LID $lid: MasterSMLID '$sm_lid', not B's $B_LID"
done
echo "takeover: 0 LFT blocks, 0 P_Key blocks, $portinfo PortInfo Sets (MasterSMLID -> $B_LID), tables unchanged"
echo "PASS"
