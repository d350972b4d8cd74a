#!/usr/bin/env bash
# Discovery equals ibnetdiscover: generate a fabric, simulate it in a private
# ibsim, run `ibsmd --discover-only --dump-dir`, and compare the dumped
# topology with what `ibnetdiscover` reports on the same simulator (node set,
# port counts, descriptions, link set with port numbers) and with the
# generated file itself.
#
# usage: discovery_matches_ibnetdiscover.sh IBSMD IBSM -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
[ "$1" = "--" ] && shift
. "$(dirname "$0")/ibsim_env.sh"

"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"

sim "$IBSMD" --discover-only --dump-dir "$WORK/dump" --log-level info 2> "$WORK/ibsmd.log" || {
    echo "FAIL: ibsmd --discover-only exited with $?" >&2; cat "$WORK/ibsmd.log" >&2; exit 1; }
grep -E "discovered" "$WORK/ibsmd.log"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2> "$WORK/ibnetdiscover.err" || {
    echo "FAIL: ibnetdiscover failed" >&2; cat "$WORK/ibnetdiscover.err" >&2; exit 1; }

echo "--- ibsmd vs ibnetdiscover"
"$IBSM" topodiff "$WORK/dump/topology.net" "$WORK/ibnetdiscover.net" | tail -n 20
echo "--- ibsmd vs generated net file"
"$IBSM" topodiff "$WORK/dump/topology.net" "$WORK/fabric.net" | tail -n 20
echo "PASS"
