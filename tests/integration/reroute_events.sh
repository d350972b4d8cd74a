#!/usr/bin/env bash
# The long-running SM acts on fabric events (traps, re-routes): `ibsmd --foreground`
# on a 3-level fat-tree, PGFT(3; 4,4,8; 1,4,4; 1,1,1) (80 switches, 128
# hosts), then, one at a time on the ibsim console:
#   1. Unlink of a leaf-to-spine cable
#   2. Unlink of a host's cable (not the SM's host)
#   3. ReLink of both
#   4. Unlink of a whole spine switch (every port; the four core switches
#      above it lose their route to the SM, so their traps cannot arrive)
#   5. Link of a new CA to a free leaf port. ibsim cannot create nodes at
#      run time: the net file carries the last host of the generated tree
#      uncabled from the start (127 hosts cabled), and the SM has never seen
#      it when it is linked in.
# After each: the next SUBNET UP line (30 s at most), then the fabric read
# back with ibnetdiscover + dump_fts + iblinkinfo and checked with
# `ibsm analyze`: the expected hosts, switches and links, 0 unreachable CA
# pairs, no forwarding loop, no credit loop in CA traffic, every linked port
# ACTIVE (relinked and new ones included), sminfo says our port is MASTER;
# and the LFT blocks the SM sent are the blocks that changed on the switches
# (equal when one program phase ran, at least as many otherwise), well
# below the bring-up's. The SM runs with --verify-incremental: the lost
# switch link (LIDs and switches unchanged) must be gated incrementally, and
# no run of the incremental gate may differ from the full gate's verdict.
#
# usage: reroute_events.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 4,4,8 --w 1,4,4 --p 1,1,1 --out "$WORK/full.net" > /dev/null
# The last CA of the file and the switch port it is cabled to; both port
# lines are dropped, the CA stanza stays.
NEW_CA=$(awk '$1 == "Ca" { id = $3 } END { print id }' "$WORK/full.net" | tr -d '"')
NEW_PEER=$(awk -v id="\"$NEW_CA\"" '$1 == "Ca" { cur = $3 } /^\[/ && cur == id { print $2; exit }' "$WORK/full.net")
[ -n "$NEW_CA" ] && [ -n "$NEW_PEER" ] || fail "cannot find the last CA of the generated net file"
awk -v id="\"$NEW_CA\"" '$1 == "Ca" || $1 == "Switch" { cur = $3 }
    /^\[/ && (cur == id || index($0, id "[")) { next } { print }' "$WORK/full.net" > "$WORK/fabric.net"
LINKS=$(( $(grep -c '^\[' "$WORK/fabric.net") / 2 ))
HOSTS=$(( $(grep -c '^Ca' "$WORK/fabric.net") - 1 ))
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
echo "fabric: $SWITCHES switches, $HOSTS cabled hosts, $LINKS links; $NEW_CA uncabled (later linked to $NEW_PEER)"

# Names as topogen writes them (level-1 switch i = S-0002c902010000ii, ...).
LEAF5=S-0002c90201000005    # leaf of pod 1, up ports 5..8
LEAF1=S-0002c90201000001    # port 1: host-0004
SPINE3=S-0002c90202000003   # pod 0's fourth spine: 4 leaves below, 4 cores above
for n in "$LEAF5" "$LEAF1" "$SPINE3"; do grep -q "\"$n\"" "$WORK/fabric.net" || fail "no switch $n in the net file"; done

ibsim_start "$WORK/fabric.net"
sm_start "$WORK/sm.log" --foreground --state-dir "$WORK/state" --log-level info --verify-incremental
sm_wait_up 0 60
grep -E "SUBNET UP" "$SM_LOG"
sm_since 0 | has "SUBNET UP (generation 1, heavy sweep)" || fail "the first sweep is not a heavy sweep"
FULL=$(blocks_sent 0)
echo "bring-up: $FULL LFT blocks sent"
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"

# step TAG HOSTS SWITCHES LINKS CONSOLE-COMMAND...: one event, then the checks.
prev=up
LIMIT_PCT=50 # a step sends less than this share of the bring-up's LFT blocks
step() {
    local tag=$1 hosts=$2 switches=$3 links=$4
    shift 4
    echo "--- $tag: $*"
    local mark
    mark=$(sm_lines)
    local cmd
    for cmd in "$@"; do ibsim_cmd "$cmd"; done
    sm_wait_up "$mark"
    sm_since "$mark" | grep -E "re-route|heavy sweep|SUBNET|link (up|down)|new |lost |error|warn" | cut -c 25- | head -n 20
    check_fabric "$tag" "$hosts" "$switches" "$links"
    local sent changed programs
    sent=$(blocks_sent "$mark")
    changed=$(blocks_changed "$prev" "$tag")
    programs=$(sm_since "$mark" | grep -c "phase program" || true)
    echo "$tag: LFT blocks sent $sent in $programs program phase(s), $changed block(s) changed on the switches, bring-up sent $FULL"
    [ "$changed" -gt 0 ] || fail "$tag: no forwarding table changed"
    if [ "$programs" -eq 1 ]; then
        [ "$sent" -eq "$changed" ] || fail "$tag: $sent LFT blocks sent for $changed changed"
    else
        [ "$sent" -ge "$changed" ] || fail "$tag: $sent LFT blocks sent for $changed changed"
    fi
    [ $((100 * sent)) -lt $((LIMIT_PCT * FULL)) ] || fail "$tag: $sent LFT blocks sent, not below $LIMIT_PCT % of the bring-up's $FULL"
    prev=$tag
}

step unlink-switch-link "$HOSTS" "$SWITCHES" $((LINKS - 1)) "Unlink \"$LEAF5\"[6]"
sm_since 0 | has "SUBNET UP (generation [0-9]*, re-route of" || fail "a lost switch link was not re-routed as a delta"
# The routing too: ftree re-decides only the entries the cable may change.
last_route() { sm_since 0 | grep "phase route" | tail -n1; }
last_route | grep -q "; incremental (1 link(s) down; 2 of $SWITCHES switch rows" ||
    fail "the lost link was not routed incrementally: $(last_route)"
sm_since 0 | has "incremental gate, [0-9 ]* of [0-9 ]* destinations re-traced, cross-checked" ||
    fail "the lost switch link was not gated incrementally"
step unlink-host-link $((HOSTS - 1)) "$SWITCHES" $((LINKS - 2)) "Unlink \"$LEAF1\"[1]"
step relink-both "$HOSTS" "$SWITCHES" "$LINKS" "ReLink \"$LEAF5\"[6]" "ReLink \"$LEAF1\"[1]"
# A lost spine cuts 4 cores off pod 0, so nearly every switch re-routes
# some pod-0 destination. The re-route is incremental (D-Mod-K keeps every
# parent's digit and re-decides only the destinations whose routes crossed
# the spine or the 4 cores; no other entry moves), but those destinations
# are pod 0's, whose LIDs (handed out in GUID order: switches 1..80, each
# pod's hosts contiguous after them) share one or two blocks on nearly every
# switch: 166 of 320 blocks here, the fewest any change of those routes
# can send. Blocks sent equal blocks changed.
LIMIT_PCT=52
step unlink-spine "$HOSTS" $((SWITCHES - 1)) $((LINKS - 8)) "Unlink \"$SPINE3\""
last_route | grep -q "; incremental (" || fail "the lost spine was not routed incrementally: $(last_route)"
LIMIT_PCT=50
step link-new-ca $((HOSTS + 1)) $((SWITCHES - 1)) $((LINKS - 7)) "Link \"$NEW_CA\"[1] $NEW_PEER"
grep -q "new CA 0x${NEW_CA#H-}" "$SM_LOG" || fail "the new CA was not reported as new"

! grep -q "incremental gate MISMATCH" "$SM_LOG" || { grep "MISMATCH" "$SM_LOG" >&2; fail "the incremental gate differed from the full gate"; }
grep -o "full gate[^,]*\|incremental gate, [^,]*" "$SM_LOG" | sort | uniq -c

reroutes=$(grep -c "SUBNET UP (generation [0-9]*, re-route of" "$SM_LOG" || true)
heavy=$(grep -c "SUBNET UP (generation [0-9]*, heavy sweep" "$SM_LOG" || true)
echo "--- $reroutes re-route(s) and $heavy heavy sweep(s) brought the subnet up"
kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
