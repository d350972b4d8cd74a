#!/usr/bin/env bash
# The SA with a QoS policy and an SM_Key, on ibsim, judged with saquery:
#  - ibsmd --foreground, ftree on a fat-tree with bundled (parallel) links
#    (one routing layer, so a level's SL is the host SL), sm.sm_key set,
#    and a qos: policy putting one host (by node description) in a group
#    whose traffic, both ways, gets level "bulk" (SL 3);
#  - `saquery PR --src-to-dst A:B` single records: SL 3 for a pair with
#    the grouped host at either end, the routing's SL (0: ftree routes on
#    one layer) for a pair without it;
#  - `saquery SMIR` without --smkey shows SM_Key 0; with the configured key
#    the real one; with a wrong key no answer at all (the request is
#    discarded) and ibsmd logs it naming the requester's LID.
#
# usage: sa_qos_trust.sh IBSMD IBSM -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v saquery > /dev/null || fail "saquery not found (apt-get install infiniband-diags)"

"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
# The SM attaches to the first CA of the net file; the second asks.
# Each CA line: its ibsim name (SIM_HOST), then its node description as a comment.
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
mapfile -t DESCS < <(sed -n 's/^Ca\s\+[0-9]\+ "[^"]*"\s*# "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
[ "${#CAS[@]}" -ge 4 ] && [ "${#DESCS[@]}" = "${#CAS[@]}" ] || fail "need 4 CAs with node descriptions in the fabric"
JUDGE=${CAS[1]}
STORAGE=${DESCS[2]}
judge() { SIM_HOST=$JUDGE sim "$@"; }
KEY=0x00000000005eed01

cat > "$WORK/ibsmd.yaml" << YAML
routing:
  engines: [ftree]
  no_fallback: true
sm:
  sm_key: $KEY
qos:
  port_groups:
    storage: {node_desc: ["$STORAGE"]}
  levels:
    bulk: {sl: 3}
  rules:
    - {destination: storage, level: bulk}
    - {source: storage, level: bulk}
YAML

echo "--- ibsmd --foreground: ftree, SM_Key, one host in group storage ($STORAGE)"
sm_start "$WORK/sm.log" --foreground --state-dir "$WORK/state" --config "$WORK/ibsmd.yaml" --log-level info
sm_wait_up 0 120
grep -q "phase route .* engine ftree" "$SM_LOG" || fail "not routed by ftree"
judge ibnetdiscover -p > "$WORK/ibnetdiscover_p.txt"
judge sminfo > "$WORK/sminfo.txt"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$WORK/sminfo.txt")
# LID of a CA by node description (ibnetdiscover -p ends its lines with it).
lid_of() { awk -v d="'$1'" '$1 == "CA" && index($0, d) { print $2; exit }' "$WORK/ibnetdiscover_p.txt"; }
judge_lid=$(lid_of "${DESCS[1]}")
storage_lid=$(lid_of "$STORAGE")
other_lid=$(lid_of "${DESCS[3]}")
[ -n "$judge_lid" ] && [ -n "$storage_lid" ] && [ -n "$other_lid" ] || fail "no LIDs for the CAs from ibnetdiscover -p"
echo "SM LID $sm_lid; ${DESCS[1]} LID $judge_lid, $STORAGE LID $storage_lid, ${DESCS[3]} LID $other_lid"

echo "--- saquery PR: the level's SL for the group, the routing's otherwise"
pr_sl() { # SRC DST: the SL of the one PathRecord saquery prints
    local out
    out=$(judge saquery PR --src-to-dst "$1:$2") || fail "saquery PR $1:$2 failed"
    sed -n 's/^[[:space:]]*sl\.*0x\([0-9A-Fa-f]*\)$/\1/p' <<< "$out" | head -n1
}
to_storage=$(pr_sl "$judge_lid" "$storage_lid")
from_storage=$(pr_sl "$storage_lid" "$other_lid")
plain=$(pr_sl "$judge_lid" "$other_lid")
echo "SL $judge_lid->$storage_lid: $to_storage; $storage_lid->$other_lid: $from_storage; $judge_lid->$other_lid: $plain"
[ "$to_storage" = 3 ] || fail "PathRecord towards the storage host has SL $to_storage, the level says 3"
[ "$from_storage" = 3 ] || fail "PathRecord from the storage host has SL $from_storage, the level says 3"
[ "$plain" = 0 ] || fail "PathRecord of an unmatched pair has SL $plain, ftree's one layer is SL 0"

echo "--- saquery SMIR: the SM_Key only with --smkey"
smir_key() { sed -n 's/^[[:space:]]*SM_Key\.*0x\([0-9a-f]*\)$/\1/p' | head -n1; }
untrusted=$(judge saquery SMIR | smir_key)
trusted=$(judge saquery --smkey "$KEY" SMIR | smir_key)
echo "SM_Key untrusted: 0x$untrusted, trusted: 0x$trusted"
[ "$((16#$untrusted))" = 0 ] || fail "an untrusted SMInfoRecord shows SM_Key 0x$untrusted"
[ "$((16#$trusted))" = "$((KEY))" ] || fail "a trusted SMInfoRecord shows SM_Key 0x$trusted, not $KEY"
n=$(sm_lines)
if judge timeout 30 saquery --smkey 0x1234 SMIR > "$WORK/wrong_key.txt" 2>&1; then
    cat "$WORK/wrong_key.txt" >&2
    fail "a request with a wrong SM_Key was answered"
fi
sm_wait_for "$n" "SA: request from LID $judge_lid .*carries SM_Key .*not ours: discarded" 10
sm_alive
echo "OK"
