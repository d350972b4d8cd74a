#!/usr/bin/env bash
# Discovery under faults, on a small 2-level tree in ibsim:
#  1. a spine that drops every PortInfo Get (ibsim `Error ... 21`): the sweep
#     completes, lists that switch's ports as missing, exits 2, and still
#     finds every node and link (the leaves see the spine's links);
#  2. a leaf given another leaf's GUID (ibsim `Guid`): reported as a
#     duplicate GUID naming both DR paths, exit 2, no crash.
# usage: discovery_faults.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
. "$(dirname "$0")/ibsim_env.sh"

"$IBSM" topogen pgft --m 4,8 --w 1,4 --p 1,1 --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
spine=$(grep '^Switch' "$WORK/fabric.net" | grep '"spine\|core' | head -n1 | sed 's/.*"\(S-[0-9a-f]*\)".*/\1/')
[ -n "$spine" ] || spine=$(grep '^Switch' "$WORK/fabric.net" | tail -n1 | sed 's/.*"\(S-[0-9a-f]*\)".*/\1/')
spine_guid=0x${spine#S-}
ibsim_cmd "Error \"$spine\" 100 21"
sleep 0.3

rc=0
sim "$IBSMD" --discover-only --dump-dir "$WORK/dump" --smp-timeout-ms 20 --smp-retries 1 2> "$WORK/faulty.log" || rc=$?
cat "$WORK/faulty.log"
[ $rc -eq 2 ] || fail "expected exit 2 for an incomplete sweep, got $rc"
missing=$(grep -c "missing: PortInfo port" "$WORK/faulty.log" || true)
ports=$(grep "^Switch" "$WORK/fabric.net" | grep "$spine" | awk '{print $2}')
[ "$missing" -eq $((ports + 1)) ] || fail "expected $((ports + 1)) missing PortInfo lines for $spine, got $missing"
grep -q "sweep incomplete: $missing missing item(s), 0 duplicate GUID(s)" "$WORK/faulty.log" || fail "no incomplete-sweep summary"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2>/dev/null
"$IBSM" topodiff "$WORK/dump/topology.net" "$WORK/ibnetdiscover.net" > "$WORK/diff.txt" || { cat "$WORK/diff.txt"; fail "node/link set differs"; }

ibsim_cmd "Error \"$spine\" 0 21"
leaves=($(grep '^Switch' "$WORK/fabric.net" | sed 's/.*"\(S-[0-9a-f]*\)".*/\1/' | grep -v "$spine" | head -n2))
ibsim_cmd "Guid \"${leaves[1]}\" 0x${leaves[0]#S-}"
sleep 0.3
rc=0
sim "$IBSMD" --discover-only --smp-timeout-ms 20 --smp-retries 1 2> "$WORK/dup.log" || rc=$?
cat "$WORK/dup.log"
[ $rc -eq 2 ] || fail "expected exit 2 with a duplicate GUID, got $rc"
grep -q "duplicate GUID 0x0*${leaves[0]#S-}: first at DR path" "$WORK/dup.log" || fail "duplicate GUID not reported"
echo PASS
