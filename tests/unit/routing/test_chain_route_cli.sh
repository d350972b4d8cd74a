#!/bin/bash
# `ibsm route` end to end on ibsim's net.2sw2path4hca:
#  1. with OpenSM's guid2lid and LMC 2 it reproduces, byte for byte, the
#     dump_fts output of OpenSM's minhop on ibsim (switch blocks compared by
#     GUID; real dumps name a switch by DR path, ours by LID);
#  2. refusals reach the report and the chain falls back to minhop;
#  3. --no-fallback with only refusing engines fails (exit 1);
#  4. bad engine names are usage errors (exit 64, cli/app.h);
#  5. tables that fail the verification gate: on a ring MinHop has a credit
#     loop, so the result is DEGRADED, written anyway, exit 2; the 2-switch
#     fabric's tables are verified (exit 0);
#  6. without --engine, ibsmd's default chain routes (nue on the ring).
# usage: test_chain_route_cli.sh IBSM DATA_DIR WORK_DIR
set -euo pipefail
ibsm=$1 data=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# One switch block after another, keyed by GUID, header address blanked.
norm() {
    awk '/^Unicast lids/ { g = $0; sub(/.* guid /, "", g); sub(/ .*/, "", g); sub(/of switch .* guid/, "of switch X guid") }
         { n++; print g "\t" n "\t" $0 }' "$1" | sort -t$'\t' -k1,1 -k2,2n | cut -f3-
}

"$ibsm" route --topology "$data/2sw2path4hca.net" --engine minhop --lmc 2 --guid2lid "$data/2sw2path4hca_lmc2.guid2lid" \
    --out "$work/lmc2" > "$work/lmc2.out" 2> "$work/lmc2.err" || fail "route exited $?"
grep -qx "engine: minhop" "$work/lmc2.out" || fail "no 'engine: minhop' in report"
for f in topology.net lfts.dump guid2lid; do [ -s "$work/lmc2/$f" ] || fail "missing $f"; done
diff <(norm "$work/lmc2/lfts.dump") <(norm "$data/2sw2path4hca_lmc2.dump_fts") || fail "LFTs differ from OpenSM's"
diff <(grep . "$work/lmc2/guid2lid" | sort) <(grep . "$data/2sw2path4hca_lmc2.guid2lid" | sort) ||
    fail "guid2lid differs from OpenSM's"
grep -q 'Switch	8 "S-0000000000200000".*base port 0 lid 1 lmc 0' "$work/lmc2/topology.net" || fail "switch LID not shown"
grep -q '"H-0000000000100000"\[1\](100001) .*# "Hca1" lid 8 ' "$work/lmc2/topology.net" || fail "CA LID not shown"

"$ibsm" route --topology "$data/2sw2path4hca.net" --engine ftree,sftree --out "$work/fb" > "$work/fb.out" 2>/dev/null ||
    fail "fallback run exited $?"
grep -q "^refused: ftree: " "$work/fb.out" || fail "ftree refusal not reported"
grep -q "^refused: sftree: " "$work/fb.out" || fail "sftree refusal not reported"
grep -qx "engine: minhop (fallback)" "$work/fb.out" || fail "no fallback reported"

set +e
"$ibsm" route --topology "$data/2sw2path4hca.net" --engine ftree --no-fallback --out "$work/nf" > "$work/nf.out" 2>/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "--no-fallback exit $rc, expected 1"
grep -qx "engine: none (no fallback)" "$work/nf.out" || fail "no 'engine: none'"
[ ! -e "$work/nf/lfts.dump" ] || fail "tables written although no engine routed"

set +e
"$ibsm" route --topology "$data/2sw2path4hca.net" --engine minhop,nosuch --out "$work/bad" 2> "$work/bad.err"
rc=$?
set -e
[ $rc -eq 64 ] || fail "unknown engine exit $rc, expected 64"
[ "$(wc -l < "$work/bad.err")" -eq 1 ] || fail "usage error is not one line: $(cat "$work/bad.err")"
grep -q "unknown routing engine 'nosuch'" "$work/bad.err" || fail "unknown engine not named"
grep -q "^verified: " "$work/lmc2.out" || fail "no 'verified:' line for minhop on 2sw2path4hca"

"$ibsm" topogen ring --switches 5 --hosts-per-switch 1 --out "$work/ring5.net" > /dev/null
set +e
"$ibsm" route --topology "$work/ring5.net" --engine minhop --out "$work/ring" > "$work/ring.out" 2>/dev/null
rc=$?
set -e
[ $rc -eq 2 ] || fail "degraded route exit $rc, expected 2"
grep -q "^refused: minhop: credit loop on VL 0 in CA traffic: " "$work/ring.out" || fail "gate refusal not reported"
grep -q "^DEGRADED: .*minhop: credit loop" "$work/ring.out" || fail "no DEGRADED line"
[ -s "$work/ring/lfts.dump" ] || fail "degraded tables not written"

"$ibsm" route --topology "$work/ring5.net" --out "$work/ring-default" > "$work/ring-default.out" 2>/dev/null ||
    fail "default chain on the ring exited $?"
grep -q "^refused: ftree: " "$work/ring-default.out" || fail "default chain did not start with ftree"
grep -qx "engine: nue" "$work/ring-default.out" || fail "default chain did not route the ring with nue"
echo ok
