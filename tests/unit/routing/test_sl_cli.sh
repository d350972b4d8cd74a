#!/bin/bash
# The SL file end to end: `ibsm route --engine dfsssp` on a ring of 5 (one
# layer cannot be deadlock-free there) writes sl.txt, and `ibsm analyze`
#  1. reads it from the route directory: no credit loop, exit 0 with
#     --fail-on-problem;
#  2. without it (--topology/--lfts) sees every pair on VL 0: credit loop,
#     exit 2; with --sl the loop is gone again;
#  3. sssp writes no sl.txt, and re-routing a dfsssp directory with sssp
#     removes the stale one.
# usage: test_sl_cli.sh IBSM WORK_DIR
set -euo pipefail
ibsm=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ibsm" topogen ring --switches 5 --hosts-per-switch 1 --out "$work/ring5.net" > /dev/null
"$ibsm" route --topology "$work/ring5.net" --engine dfsssp --no-fallback --out "$work/df" > "$work/df.out" 2>/dev/null ||
    fail "dfsssp route exited $?"
grep -qx "engine: dfsssp" "$work/df.out" || fail "not routed by dfsssp"
grep -qx "vls: 8 used, 2 needed" "$work/df.out" || fail "expected 'vls: 8 used, 2 needed' in $(cat "$work/df.out")"
head -n1 "$work/df/sl.txt" | grep -q "^# ibsm SL file" || fail "sl.txt has no header"
grep -qx "vls 8" "$work/df/sl.txt" || fail "sl.txt has no 'vls 8'"

"$ibsm" analyze "$work/df" --fail-on-problem --bisections 10 > "$work/a1.txt" 2>/dev/null || fail "analyze with sl.txt exited $?"
grep -q "VL 1: .*acyclic" "$work/a1.txt" || fail "no per-VL report: $(cat "$work/a1.txt")"

set +e
"$ibsm" analyze --topology "$work/df/topology.net" --lfts "$work/df/lfts.dump" --fail-on-problem --bisections 10 \
    > "$work/a2.txt" 2>/dev/null
rc=$?
set -e
[ $rc -eq 2 ] || fail "analyze without the SL file exited $rc, expected 2 (credit loop on VL 0)"
grep -q "CREDIT LOOP" "$work/a2.txt" || fail "no credit loop reported without the SL file"
"$ibsm" analyze --topology "$work/df/topology.net" --lfts "$work/df/lfts.dump" --sl "$work/df/sl.txt" \
    --fail-on-problem --bisections 10 > /dev/null 2>&1 || fail "analyze --sl exited $?"

# sssp's one-VL routes on a ring have a credit loop: the verification gate
# refuses them and, with nothing else in the chain, they are written as
# degraded (exit 2).
set +e
"$ibsm" route --topology "$work/ring5.net" --engine sssp --no-fallback --out "$work/df" > /dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "sssp route on a ring exited $rc, expected 2 (degraded: credit loop)"
[ ! -e "$work/df/sl.txt" ] || fail "stale sl.txt left after routing with sssp"
echo ok
