#!/usr/bin/env bash
# `ibsm whatif` on a generated 4-ary 2-tree: a core taken away (exit 0,
# nothing cut off), a leaf (exit 2, exactly its hosts cut off), two targets
# at once, bad targets (exit 64 naming the problem), and --out drawn by
# `ibsm report --compare`.
# usage: test_whatif_cli.sh IBSM
set -euo pipefail
IBSM=$(realpath "$1")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/whatif-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$WORK"
"$IBSM" topogen kary --k 4 --n 2 --out k.net > /dev/null

rc=0; "$IBSM" whatif --topology k.net --without switch:core-L2-0001 --json > core.json || rc=$?
[ "$rc" -eq 0 ] || fail "a core taken away: exit $rc"
python3 - core.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cut_off"] == [] and r["unreachable_pairs"] == 0 and r["gate"] == "passed", r
assert r["engine"] == "ftree" and r["lft_blocks_changed"] > 0, r
assert r["ebb_after"] < r["ebb_before"], r
PY

rc=0; "$IBSM" whatif --topology k.net --without switch:0x0002c90201000002 --json > leaf.json || rc=$?
[ "$rc" -eq 2 ] || fail "a leaf taken away: exit $rc, expected 2"
python3 - leaf.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(r["cut_off"]) == ["host-0008", "host-0009", "host-0010", "host-0011"], r["cut_off"]
assert r["unreachable_pairs"] == 4 * 15 + 12 * 4, r["unreachable_pairs"]
PY

# Two cores and a link at once: still nothing cut off.
rc=0; "$IBSM" whatif --topology k.net --without switch:core-L2-0000 --without switch:core-L2-0001 \
    --without link:leaf-L1-0003/7 > two.txt || rc=$?
[ "$rc" -eq 0 ] || { cat two.txt >&2; fail "two cores and a link: exit $rc"; }
grep -q "^without: .*core-L2-0000.*core-L2-0001.*leaf-L1-0003/7" two.txt || fail "the three targets are not all named"
grep -q "^cut off: *none" two.txt || fail "two cores and a link cut something off"

for bad in "spine" "switch:host-0001" "switch:nowhere" "link:leaf-L1-0000/99" "rack:1"; do
    rc=0; "$IBSM" whatif --topology k.net --without "$bad" > /dev/null 2> bad.err || rc=$?
    [ "$rc" -eq 64 ] || fail "--without $bad: exit $rc, expected 64"
    grep -q "without" bad.err || fail "--without $bad: the error does not name the option: $(cat bad.err)"
done
rc=0; "$IBSM" whatif --topology k.net > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 64 ] || fail "no --without: exit $rc, expected 64"

"$IBSM" whatif --topology k.net --without switch:core-L2-0003 --out routes > /dev/null 2>&1
for f in before/topology.net before/lfts.dump after/topology.net after/lfts.dump; do
    [ -s "routes/$f" ] || fail "--out wrote no $f"
done
"$IBSM" report routes/before --compare routes/after --out compare.html 2> report.err || { cat report.err >&2; fail "ibsm report --compare"; }
grep -q "routes/after" compare.html || fail "the report does not draw the after side"
echo PASS
