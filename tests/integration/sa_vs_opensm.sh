#!/usr/bin/env bash
# Every record type saquery knows, asked of OpenSM's SA and then of ibsmd's
# on the same ibsim fabric with the same LIDs, compared field by field
# (tests/integration/sa_compare.py; its rules say which differences are
# expected and why, docs/operations.md "ibsmd's SA beside OpenSM's" too):
#  1. OpenSM (minhop, force_log_flush; its SM_Key and SA key 1) masters
#     the fabric from Hca1; every query runs from Hca3 and is kept.
#  2. OpenSM is stopped; ibsmd starts on the same port with an empty state
#     directory, so it keeps the LIDs the ports carry (lidassign: a port's
#     own LID when valid, lidassign/base_lids.h), routes with minhop,
#     writes every VL table (routing.vl_tables/switch_sl2vl: always) and
#     trusts SM_Key 1. The same queries run again.
#  3. The two answer sets must agree but for the documented rules; ibsmd's
#     SL2VL, VLArb and LFT records must equal what smpquery and dump_fts
#     read from the ports under it (never more than the switches hold).
# Queries: single records, or answers that fit the first MAD (umad2sim does
# no RMPP for saquery), but `saquery -p`, which runs through
# scripts/ibsim-client (libibsim-rmpp.so ACKs every segment): ibsmd's SA,
# unlike OpenSM's under umad2sim, sends every segment of an answer and
# resends those nobody ACKs, and umad2sim hands them to the next client
# on the judging node, which it crashes (a query that then looked
# unanswered: a PathRecord, a NodeRecord, a GUIDInfoRecord, at random).
# The other queries: every NodeRecord, PortInfoRecord (switch ports 0..N
# too), LinkRecord by LID, PathRecord between every pair of LIDs,
# GUIDInfo, SwitchInfo, LFT block 0, MFT, SMInfo, ClassPortInfo, MCMember,
# SL2VL (CA ports, every switch input/output pair of cabled ports and port
# 0), VLArb blocks 1-4, P_KeyTable (with the SM_Key), and a ServiceRecord
# and an InformInfo subscription made by sa_client, listed back.
#
# usage: sa_vs_opensm.sh IBSMD SA_CLIENT BUILD_DIR
set -euo pipefail
IBSMD=$(realpath "$1"); CLIENT=$(realpath "$2"); BUILD=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
RMPP_CLIENT="$HERE/../../scripts/ibsim-client"
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/opensm_run.sh"
command -v opensm > /dev/null || fail "opensm not found (apt-get install opensm)"
command -v saquery > /dev/null || fail "saquery not found (apt-get install infiniband-diags)"

ibsim_start "$HERE/../data/routing/2sw2path4hca.net"
judge() { SIM_HOST=Hca3 sim "$@"; }
judge_rmpp() { (cd "$WORK" && SIM_HOST=Hca3 "$RMPP_CLIENT" --build "$BUILD" "$@"); }
[ -f "$BUILD/ibsim_rmpp/libibsim-rmpp.so" ] || fail "no $BUILD/ibsim_rmpp/libibsim-rmpp.so"
OUT=$WORK/out
mkdir -p "$OUT/opensm" "$OUT/ibsmd"

osm_cleanup_on_exit

# queries DIR SM_LID: every query, one file each (saquery's text; a
# failing query keeps its error text, which is compared too).
queries() {
    local dir=$1 sm_lid=$2 lid port sw in out b
    q() { # NAME ARGS...
        local name=$1; shift
        judge saquery "$@" > "$dir/$name.txt" 2>&1 || true
    }
    judge ibnetdiscover -p > "$dir/ibnetdiscover_p.txt"
    judge dump_fts > "$dir/dump_fts.txt"
    q cpi -c
    q smir SMIR
    q smir_key --smkey 1 SMIR
    q mcmr MCMR
    judge_rmpp saquery -p > "$dir/pr_all.txt" 2>&1 || true
    # A ServiceRecord and an InformInfo subscription from the judge, then
    # listed back (sa_client's captures, tests/data/sa/capture_opensm.sh).
    judge "$CLIENT" query "$sm_lid" 0x31 set 0x57 \
        0:8:0x1234,8:8:0xfe80000000000000,16:8:0x100007,24:2:0xffff,28:4:0xffffffff,48:8:0x6962736d642d7465,56:2:0x7374 \
        > "$dir/sr_set.txt" 2>&1 || true
    q sr SR
    judge "$CLIENT" query "$sm_lid" 0x03 set 0 16:2:0xffff,22:1:1,23:1:1,24:2:0xffff,26:2:128,28:3:1,33:3:0xffffff \
        > "$dir/ii_set.txt" 2>&1 || true
    q iir IIR
    mapfile -t LIDS < <(awk '{ print $2 }' "$dir/ibnetdiscover_p.txt" | sort -un)
    for lid in "${LIDS[@]}"; do
        q "nr_$lid" NR "$lid"
        q "gir_$lid" GIR "$lid/0"
        for dst in "${LIDS[@]}"; do q "pr_${lid}_$dst" PR --src-to-dst "$lid:$dst"; done
    done
    # CA ports: PortInfo, link, SL2VL, VLArb, P_Keys.
    while read -r lid port; do
        q "pir_${lid}_$port" PIR "$lid/$port"
        q "lr_$lid" LR "$lid"
        q "sl2vl_$lid" SL2VL "$lid"
        for b in 1 2 3 4; do q "vlar_${lid}_${port}_$b" VLAR "$lid/$port/$b"; done
        q "pktr_${lid}_$port" --smkey 1 PKTR "$lid/$port/0"
    done < <(awk '$1 == "CA" { print $2, $3 }' "$dir/ibnetdiscover_p.txt" | sort -u)
    # Switches: SwitchInfo, LFT block 0, MFT, every port's PortInfo, the
    # SL2VL of each (input, output) pair among port 0 and cabled ports.
    for sw in $(awk '$1 == "SW" { print $2 }' "$dir/ibnetdiscover_p.txt" | sort -un); do
        q "swir_$sw" SWIR "$sw"
        q "lftr_$sw" LFTR "$sw/0"
        q "mftr_$sw" MFTR "$sw"
        q "pktr_${sw}_0" --smkey 1 PKTR "$sw/0/0"
        mapfile -t PORTS < <(awk -v s="$sw" '$1 == "SW" && $2 == s { print $3 }' "$dir/ibnetdiscover_p.txt" | sort -n)
        q "pir_${sw}_0" PIR "$sw/0"
        for port in "${PORTS[@]}"; do q "pir_${sw}_$port" PIR "$sw/$port"; done
        mapfile -t CABLED < <(awk -v s="$sw" '$1 == "SW" && $2 == s && $7 == "-" { print $3 }' "$dir/ibnetdiscover_p.txt" | sort -n)
        for out in "${CABLED[@]}"; do
            for in in 0 "${CABLED[@]}"; do q "sl2vl_${sw}_${in}_$out" SL2VL "$sw/$in/$out"; done
            for b in 1 2 3 4; do q "vlar_${sw}_${out}_$b" VLAR "$sw/$out/$b"; done
            judge smpquery sl2vl "$sw" "$out" > "$dir/smp_sl2vl_${sw}_$out.txt" 2>&1 || true
            judge smpquery vlarb "$sw" "$out" > "$dir/smp_vlarb_${sw}_$out.txt" 2>&1 || true
        done
    done
    while read -r lid; do
        judge smpquery sl2vl "$lid" > "$dir/smp_sl2vl_$lid.txt" 2>&1 || true
        judge smpquery vlarb "$lid" > "$dir/smp_vlarb_$lid.txt" 2>&1 || true
    done < <(awk '$1 == "CA" { print $2 }' "$dir/ibnetdiscover_p.txt" | sort -un)
}

echo "--- OpenSM on Hca1"
mkdir -p "$WORK/osm-cache"
osm_config "$WORK/osm.conf" "$WORK/osm.log"
(cd "$WORK" && OSM_CACHE_DIR=$WORK/osm-cache SIM_HOST=Hca1 LD_PRELOAD="$SIM_PRELOAD" exec opensm -F "$WORK/osm.conf") \
    > "$WORK/osm.out" 2>&1 &
OSM_PID=$!
osm_wait_up "$WORK/osm.log" "$OSM_PID"
sleep 1
osm_lid=$(judge sminfo | sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p')
[ -n "$osm_lid" ] || fail "no SM LID from sminfo under OpenSM"
queries "$OUT/opensm" "$osm_lid"
osm_stop "$OSM_PID"
OSM_PID=""

echo "--- ibsmd on Hca1, the same LIDs"
cat > "$WORK/ibsmd.yaml" << YAML
routing:
  engines: [minhop]
  vl_tables: always
  switch_sl2vl: always
sm:
  sm_key: 0x1
  priority: 0
YAML
SIM_HOST=Hca1 sm_start "$WORK/sm.log" --foreground --state-dir "$WORK/state" --config "$WORK/ibsmd.yaml" --log-level info
sm_wait_up 0 120
sm_lid=$(judge sminfo | sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p')
[ "$sm_lid" = "$osm_lid" ] || fail "ibsmd's LID $sm_lid is not OpenSM's $osm_lid"
queries "$OUT/ibsmd" "$sm_lid"
sm_alive

# `saquery -p` (every pair), whole through libibsim-rmpp.so: one PathRecord
# for each ordered pair of LIDs (OpenSM's answer under plain umad2sim is
# its first segment only, so it is not compared).
n_lids=$(awk '{ print $2 }' "$OUT/ibsmd/ibnetdiscover_p.txt" | sort -un | wc -l)
n_pr=$(grep -c "PathRecord dump" "$OUT/ibsmd/pr_all.txt" || true)
[ "$n_pr" -eq $((n_lids * n_lids)) ] || fail "saquery -p: $n_pr PathRecords from ibsmd, $((n_lids * n_lids)) pairs of LIDs: $(head -c 300 "$OUT/ibsmd/pr_all.txt")"
python3 "$HERE/sa_compare.py" "$OUT/opensm" "$OUT/ibsmd"
echo "PASS"
