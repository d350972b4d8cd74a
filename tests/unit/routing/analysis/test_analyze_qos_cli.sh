#!/bin/bash
# `ibsm analyze --qos CONFIG` on a dfsssp routing of a ring of 5 on 2 layers
# (`ibsm route --max-vls 2`):
#  1. a policy in 2 VL bands: each layer is checked on its VL in both bands
#     (VLs 0..3 in the report, all acyclic), exit 0 with --fail-on-problem;
#     without --qos only VLs 0 and 1 carry traffic;
#  2. the same policy with routing.max_vls 2 leaves the routing 1 layer:
#     refused with the numbers, exit 1;
#  3. a configuration without a qos: section is an error naming the file.
# usage: test_analyze_qos_cli.sh IBSM WORK_DIR
set -euo pipefail
ibsm=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ibsm" topogen ring --switches 5 --hosts-per-switch 1 --out "$work/ring5.net" > /dev/null
"$ibsm" route --topology "$work/ring5.net" --engine dfsssp --no-fallback --max-vls 2 --out "$work/df" \
    > "$work/df.out" 2> /dev/null || fail "dfsssp route exited $?"
grep -qx "vls 2" "$work/df/sl.txt" || fail "sl.txt has no 'vls 2'"
policy() { # policy MAX_VLS
    cat <<EOT
routing: {max_vls: $1}
qos:
  levels: {bulk: {sl: 1}}
  rules: [{service_id: [0x10], level: bulk}]
  sl2vl:
    ca: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch_port0: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
EOT
}
policy 8 > "$work/qos.yaml"
policy 2 > "$work/qos-small.yaml"
echo "state_dir: $work/state" > "$work/noqos.yaml"

"$ibsm" analyze "$work/df" --bisections 10 > "$work/plain.txt" 2> /dev/null || fail "analyze exited $?"
grep -q "VL 1: .*acyclic" "$work/plain.txt" || fail "no VL 1 without --qos: $(cat "$work/plain.txt")"
! grep -q "VL 2:" "$work/plain.txt" || fail "VL 2 carries traffic without --qos"

"$ibsm" analyze "$work/df" --qos "$work/qos.yaml" --fail-on-problem --bisections 10 \
    > "$work/qos.txt" 2> "$work/qos.err" || { cat "$work/qos.err" >&2; fail "analyze --qos exited $?"; }
grep -q "qos: .*qos.yaml: 2 layers in 2 VL bands, 4 VLs" "$work/qos.err" || fail "no qos line: $(cat "$work/qos.err")"
for vl in 0 1 2 3; do
    grep -q "VL $vl: .*acyclic" "$work/qos.txt" || fail "VL $vl not checked with --qos: $(cat "$work/qos.txt")"
done

set +e
"$ibsm" analyze "$work/df" --qos "$work/qos-small.yaml" --bisections 10 > /dev/null 2> "$work/small.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "analyze --qos with routing.max_vls 2 exited $rc, expected 1"
grep -q "qos-small.yaml: qos: the routing needs 2 layers, .*ports carry 2 VLs: 2 × 2 = 4 > 2" "$work/small.err" ||
    fail "the refusal does not give the numbers: $(cat "$work/small.err")"

set +e
"$ibsm" analyze "$work/df" --qos "$work/noqos.yaml" --bisections 10 > /dev/null 2> "$work/noqos.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "analyze --qos without a qos: section exited $rc, expected 1"
grep -q "noqos.yaml: no qos: section" "$work/noqos.err" || fail "no error naming the file: $(cat "$work/noqos.err")"
echo ok
