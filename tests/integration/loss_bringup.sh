#!/usr/bin/env bash
# Bring-up through packet loss against ibsim (DEVELOPERS.md, "Packet loss"): every switch port
# drops LOSS % of the packets (console `Error "<switch>" LOSS`; ibsim answers
# a dropped SMP at once with umad status 110, and a Set whose answer is lost
# on the way back has still been applied). `ibsmd --once` must:
#  - exit 0 with a SUBNET UP line;
#  - leave every port whose link is up ACTIVE (iblinkinfo, read with the loss
#    switched off so the check itself loses nothing);
#  - leave forwarding tables `ibsm analyze` finds complete (ibnetdiscover +
#    dump_fts of the live fabric: every CA pair reachable, no loops);
#  - have had SMPs dropped (the transport's "drops reported" count > 0), so
#    the test cannot pass on a fabric that lost nothing.
#
# usage: loss_bringup.sh IBSMD IBSM LOSS -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); LOSS=$3; shift 3
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"

"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
mapfile -t switches < <(sed -n 's/^Switch[[:space:]]*[0-9]* "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
[ ${#switches[@]} -gt 0 ] || fail "no switches in the generated net file"
set_loss() { local sw; for sw in "${switches[@]}"; do ibsim_cmd "Error \"$sw\" $1"; done; sleep 0.3; }

echo "--- ibsmd --once with $LOSS % loss at every port of ${#switches[@]} switches"
set_loss "$LOSS"
start=$(date +%s.%N)
rc=0; sim "$IBSMD" --once --state-dir "$WORK/state" 2> "$WORK/once.log" || rc=$?
[ "$rc" -eq 0 ] || { tail -n 40 "$WORK/once.log" >&2; fail "ibsmd --once exited with $rc"; }
end=$(date +%s.%N)
grep -E "phase|transport:|resume|SUBNET UP" "$WORK/once.log" || true
awk -v a="$start" -v b="$end" 'BEGIN { printf "ibsmd --once took %.2f s\n", b - a }'
grep -q "SUBNET UP" "$WORK/once.log" || fail "no SUBNET UP line"
drops=$(sed -n 's/.*transport: [0-9]* sent, [0-9]* timeouts, \([0-9]*\) drops reported.*/\1/p' "$WORK/once.log" | tail -n1)
[ -n "$drops" ] && [ "$drops" -gt 0 ] || fail "no SMP was dropped: the loss was not in effect"

set_loss 0
echo "--- iblinkinfo: every up link ACTIVE"
sim iblinkinfo > "$WORK/iblinkinfo.txt" 2> /dev/null || fail "iblinkinfo failed"
up=$(grep -c 'LinkUp' "$WORK/iblinkinfo.txt" || true)
active=$(grep -c 'Active/  LinkUp' "$WORK/iblinkinfo.txt" || true)
echo "ports with link up: $up, ACTIVE: $active"
[ "$up" -gt 0 ] && [ "$up" -eq "$active" ] || {
    grep 'LinkUp' "$WORK/iblinkinfo.txt" | grep -v 'Active/' | head >&2; fail "ports with link up but not ACTIVE"; }

echo "--- ibsm analyze on the live fabric"
sim ibnetdiscover > "$WORK/live.net" 2> /dev/null || fail "ibnetdiscover failed"
sim dump_fts > "$WORK/live.fts" 2> /dev/null || fail "dump_fts failed"
"$IBSM" analyze --topology "$WORK/live.net" --lfts "$WORK/live.fts" > "$WORK/analyze.txt" 2>&1 || {
    cat "$WORK/analyze.txt" >&2; fail "ibsm analyze failed"; }
grep -E "ca_to_ca" "$WORK/analyze.txt" || true
grep -qE "ca_to_ca: [0-9]+ pairs, 0 unreachable, 0 looping" "$WORK/analyze.txt" || fail "unreachable or looping CA pairs"
echo "PASS"
