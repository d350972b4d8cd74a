#!/usr/bin/env bash
# Malformed and unsolicited MADs on the wire (reliability): ibsmd --foreground
# runs on Hca1 of the 2-switch/4-HCA ibsim example; tests/tools/
# malformed_mad_client, its own ibsim client on Hca2, sends it truncated
# MADs, wrong base/class versions, an SMInfo Set with a wrong SM_Key,
# unknown attributes and methods, a 31-hop directed route and overlong ones,
# responses with unknown TIDs and a burst of BURST (default 100 000)
# unsolicited MADs, and checks each answer against IBA (see the client's
# header). Then, judged with infiniband-diags from a third node:
#  - the SM is still MASTER (sminfo) and its tables are unchanged (dump_fts
#    before and after identical);
#  - it logged each kind of bad MAD once (the counters carry the totals:
#    the "inbound MADs" line at SIGTERM), and exits 0 on SIGTERM.
#
# usage: malformed_mads.sh IBSMD CLIENT [BURST]
set -euo pipefail
IBSMD=$(realpath "$1"); CLIENT=$(realpath "$2"); BURST=${3:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"


ibsim_start "$IBSMD_SOURCE_ROOT/tests/data/routing/2sw2path4hca.net"
LOG="$WORK/ibsmd.log"
(cd "$WORK" && SIM_HOST=Hca1 ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" \
    exec "$IBSMD" --foreground --state-dir "$WORK/state") > "$LOG" 2>&1 &
SM_PID=$!
trap 'rc=$?; kill $SM_PID 2> /dev/null && wait $SM_PID 2> /dev/null || true; ibsim_cleanup $rc' EXIT
for _ in $(seq 1 300); do
    grep -q "SUBNET UP" "$LOG" && break
    kill -0 "$SM_PID" 2> /dev/null || { cat "$LOG" >&2; fail "ibsmd exited early"; }
    sleep 0.1
done
grep -q "SUBNET UP" "$LOG" || { cat "$LOG" >&2; fail "no SUBNET UP within 30 s"; }

# Judged from Hca3, neither the SM's node nor the sender's.
judge() { SIM_HOST=Hca3 sim "$@"; }
judge sminfo > "$WORK/sminfo0.txt" 2>&1 || { cat "$WORK/sminfo0.txt" >&2; fail "sminfo failed"; }
cat "$WORK/sminfo0.txt"
grep -q "SMINFO_MASTER" "$WORK/sminfo0.txt" || fail "the SM is not MASTER before the test"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$WORK/sminfo0.txt")
[ -n "$sm_lid" ] || fail "no SM LID in sminfo's output"
judge dump_fts > "$WORK/before.dump" 2> /dev/null || fail "dump_fts failed"

# Hca2 -> Switch2, 29 hops back and forth on the Switch1[3]-Switch2[3]
# cable (ending on Switch1), then Switch1[1] -> Hca1: 31 hops, the longest
# route ibsim carries (IBA allows 63; the SM's side of 64 and more is
# covered by the transport's unit tests).
path="0,1$(printf ',3%.0s' $(seq 1 29)),1"
echo "--- malformed_mad_client (on Hca2) -> SM LID $sm_lid, burst $BURST"
rc=0
(cd "$WORK" && SIM_HOST=Hca2 ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" \
    "$CLIENT" "$sm_lid" "$path" "$BURST") > "$WORK/client.txt" 2>&1 || rc=$?
cat "$WORK/client.txt"
[ "$rc" -eq 0 ] || { tail -n 30 "$LOG" >&2; fail "the SM's answers broke IBA's rules (client exit $rc)"; }
kill -0 "$SM_PID" 2> /dev/null || { tail -n 30 "$LOG" >&2; fail "ibsmd died"; }

judge sminfo > "$WORK/sminfo1.txt" 2>&1 || fail "sminfo failed after the burst"
grep -q "SMINFO_MASTER" "$WORK/sminfo1.txt" || { cat "$WORK/sminfo1.txt" >&2; fail "the SM is no longer MASTER"; }
judge dump_fts > "$WORK/after.dump" 2> /dev/null || fail "dump_fts failed after the burst"
diff "$WORK/before.dump" "$WORK/after.dump" > /dev/null || { diff "$WORK/before.dump" "$WORK/after.dump" | head -n 20 >&2; fail "the forwarding tables changed"; }
echo "SM still MASTER, dump_fts unchanged ($(grep -c '^0x' "$WORK/after.dump") entries)"

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
[ "$rc" -eq 0 ] || { tail -n 30 "$LOG" >&2; fail "exit $rc after SIGTERM"; }

echo "--- the SM's log: each kind once"
once() {
    local n
    n=$(grep -c -- "$1" "$LOG" || true)
    echo "$n x $1"
    [ "$n" -eq 1 ] || fail "'$1' logged $n times, expected once"
}
once "truncated request: "
once "bad class version: "
once "unmatched response: "
once "unsolicited MAD answered 'unsupported attribute': class 0x01 method 0x01 attribute 0xff00"
once "unsolicited MAD answered 'unsupported attribute': class 0x01 method 0x02 attribute 0x0030"
once "unsolicited MAD answered 'unsupported attribute': class 0x81 method 0x01 attribute 0xff00"
once "unsolicited MAD ignored: class 0x01 method 0x03 attribute 0xff00"
grep "inbound MADs:" "$LOG" || fail "no inbound MAD totals at exit"
malformed=$(sed -n 's/.*inbound MADs: .*, \([0-9]*\) malformed, .*/\1/p' "$LOG")
# truncated 2 + class version 2 + the burst's truncated and class-version ones
want=$(( 4 + 2 * (BURST / 5) + (BURST % 5 > 1) + (BURST % 5 > 2) ))
[ "$malformed" -eq "$want" ] || fail "$malformed malformed MADs counted, $want sent"
echo "PASS"
