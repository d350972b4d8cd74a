#!/usr/bin/env bash
# The SA of ibsmd on ibsim (Subnet Administration records), judged by infiniband-diags reading
# the fabric directly (smpquery, dump_fts, ibnetdiscover, sminfo):
#  - single-record `saquery` (NR, PIR, SWIR, LFTR, LR, SMIR, PR
#    --src-to-dst) returns exactly what the direct reads say
#    (tests/integration/sa_check.py compares them field by field);
#  - multi-record GetTable answers through our RMPP-aware client
#    (tests/tools/sa_client: reassembles segments, ACKs windows of 1..8,
#    drops a segment once so the SM must resend it): every node, every
#    port, every link, and a switch's whole LFT match the direct reads
#    (umad2sim delivers only the first 224 bytes of each MAD: the bytes it
#    drops are compared as unknown);
#  - malformed SA MADs (truncated, unknown attribute, bad component mask,
#    bad class version, unknown method, ...) get the SA status codes and
#    the SM stays MASTER with unchanged tables;
#  - with LMC 2 (a second ibsmd run), PathRecords between two hosts are 4
#    paths with the 4 distinct DLIDs of the destination, each SL the one
#    ibsmd's sl.txt gives the pair.
#
# usage: sa_queries.sh IBSMD IBSM SA_CLIENT -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); CLIENT=$(realpath "$3"); shift 3
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v saquery > /dev/null || fail "saquery not found (apt-get install infiniband-diags)"

"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
# The SM attaches to the first CA of the net file; the judge is the second.
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
[ "${#CAS[@]}" -ge 3 ] || fail "need 3 CAs in the fabric"
JUDGE=${CAS[1]}
judge() { SIM_HOST=$JUDGE sim "$@"; }
OUT=$WORK/out
mkdir -p "$OUT"

echo "--- ibsmd --foreground --engine dfsssp, LMC 0"
sm_start "$WORK/sm.log" --foreground --state-dir "$WORK/state" --log-level info --engine dfsssp
sm_wait_up 0 120
sm_quiet
judge sminfo > "$OUT/sminfo.txt"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$OUT/sminfo.txt")
[ -n "$sm_lid" ] || fail "no SM LID from sminfo"
judge ibnetdiscover -p > "$OUT/ibnetdiscover_p.txt"
judge dump_fts > "$OUT/dump_fts.txt"
# A CA, a switch (its LID and a cabled port) and a second CA to query.
read -r ca_lid < <(awk '$1 == "CA" && $2 != '"$sm_lid"' { print $2; exit }' "$OUT/ibnetdiscover_p.txt")
read -r sw_lid sw_port < <(awk '$1 == "SW" && $7 == "-" { print $2, $3; exit }' "$OUT/ibnetdiscover_p.txt")
read -r ca2_lid < <(awk '$1 == "CA" && $2 != '"$sm_lid"' && $2 != '"$ca_lid"' { print $2; exit }' "$OUT/ibnetdiscover_p.txt")
echo "SM LID $sm_lid; queries about CA LID $ca_lid, switch LID $sw_lid port $sw_port, path $ca_lid -> $ca2_lid"

echo "--- single-record saquery vs direct reads"
judge saquery NR "$ca_lid" > "$OUT/saquery_nr_ca.txt"
judge smpquery nodeinfo "$ca_lid" > "$OUT/smpquery_nodeinfo_ca.txt"
judge smpquery nodedesc "$ca_lid" > "$OUT/smpquery_nodedesc_ca.txt"
judge saquery NR "$sw_lid" > "$OUT/saquery_nr_sw.txt"
judge smpquery nodeinfo "$sw_lid" > "$OUT/smpquery_nodeinfo_sw.txt"
judge saquery PIR "$ca_lid/1" > "$OUT/saquery_pir_ca.txt"
judge smpquery portinfo "$ca_lid" 1 > "$OUT/smpquery_portinfo_ca.txt"
judge saquery PIR "$sw_lid/$sw_port" > "$OUT/saquery_pir_sw.txt"
judge smpquery portinfo "$sw_lid" "$sw_port" > "$OUT/smpquery_portinfo_sw.txt"
judge saquery SWIR "$sw_lid" > "$OUT/saquery_swir.txt"
judge smpquery switchinfo "$sw_lid" > "$OUT/smpquery_switchinfo.txt"
judge saquery LFTR "$sw_lid/0" > "$OUT/saquery_lftr.txt"
judge dump_fts "$sw_lid" > "$OUT/dump_fts_sw.txt"
judge saquery LR "$ca_lid" > "$OUT/saquery_lr.txt"
judge saquery SMIR > "$OUT/saquery_smir.txt"
judge saquery PR --src-to-dst "$ca_lid:$ca2_lid" > "$OUT/saquery_pr.txt"
judge smpquery portinfo "$ca2_lid" 1 > "$OUT/smpquery_portinfo_ca2.txt"
cp "$WORK/state/sl.txt" "$OUT/sl.txt" 2> /dev/null || true

echo "--- GetTable through the RMPP client"
judge "$CLIENT" query "$sm_lid" 0x11 gettable 0 > "$OUT/client_nr_all.txt"
judge "$CLIENT" query "$sm_lid" 0x12 gettable 0 --window 3 > "$OUT/client_pir_all.txt"
judge "$CLIENT" query "$sm_lid" 0x20 gettable 0 --window 1 --lose 2 > "$OUT/client_lr_all.txt"
judge "$CLIENT" query "$sm_lid" 0x15 gettable 0x1 "0:2:$sw_lid" --window 8 > "$OUT/client_lftr_sw.txt"
judge "$CLIENT" query "$sm_lid" 0x14 gettable 0 > "$OUT/client_swir_all.txt"
head -n1 "$OUT"/client_*.txt

python3 "$HERE/sa_check.py" lmc0 "$OUT" "$sm_lid" "$ca_lid" "$sw_lid" "$sw_port" "$ca2_lid"

echo "--- malformed SA MADs"
judge "$CLIENT" malformed "$sm_lid" "$ca_lid" || { tail -n 20 "$WORK/sm.log" >&2; fail "wrong answers to malformed SA MADs"; }
sm_alive
judge sminfo > "$OUT/sminfo_after.txt"
grep -q SMINFO_MASTER "$OUT/sminfo_after.txt" || fail "the SM is no longer MASTER: $(cat "$OUT/sminfo_after.txt")"
judge dump_fts > "$OUT/dump_fts_after.txt"
diff -q "$OUT/dump_fts.txt" "$OUT/dump_fts_after.txt" > /dev/null || fail "the LFTs changed"
echo "SM still MASTER, LFTs unchanged"
n=$(sm_lines)
kill -TERM "$SM_PID"
wait "$SM_PID" || fail "ibsmd exited $? on SIGTERM"
grep "SA:" "$WORK/sm.log" | tail -n 3 || true
SM_PID=""

echo "--- ibsmd --foreground --engine dfsssp, LMC 2"
sm_start "$WORK/sm2.log" --foreground --state-dir "$WORK/state2" --log-level info --lmc 2 --engine dfsssp
sm_wait_up 0 120
sm_quiet
judge sminfo > "$OUT/sminfo2.txt"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$OUT/sminfo2.txt")
judge ibnetdiscover -p > "$OUT/ibnetdiscover_p2.txt"
src_guid=$(awk '$1 == "CA" && $2 != '"$sm_lid"' { print $4; exit }' "$OUT/ibnetdiscover_p2.txt")
dst_guid=$(awk '$1 == "CA" && $2 != '"$sm_lid"' && $4 != "'"$src_guid"'" { print $4; exit }' "$OUT/ibnetdiscover_p2.txt")
# PathRecord by SGID/DGID (mask 0xc): all 4 paths of the pair.
judge "$CLIENT" query "$sm_lid" 0x35 gettable 0xc \
    "24:8:0xfe80000000000000,32:8:$src_guid,8:8:0xfe80000000000000,16:8:$dst_guid" > "$OUT/client_pr_lmc2.txt"
cp "$WORK/state2/sl.txt" "$OUT/sl2.txt" 2> /dev/null || true
python3 "$HERE/sa_check.py" lmc2 "$OUT" "$src_guid" "$dst_guid"
echo "PASS"
