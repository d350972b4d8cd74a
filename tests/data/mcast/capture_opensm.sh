#!/usr/bin/env bash
# Re-creates the captures in this folder: OpenSM 3.3.23 (opensm -F, minhop)
# as SM and SA on Hca1 of tests/data/routing/2sw2path4hca.net under ibsim
# (the setup of tests/data/sa/capture_opensm.sh). sa_client (tests/tools)
# sends IPoIB's broadcast join (MGID ff12:401b:ffff::ffff:ffff, PortGID,
# P_Key 0xffff, JoinState FullMember) from Hca3 and Hca4 and a Get by MGID
# and PortGID, printing every MAD of the answers; dump_fts -M and smpquery
# pkeys read what OpenSM programmed. tests/unit/mcast/test_opensm_mcast.cpp
# decodes them and checks our rules answer the same join byte for byte.
# Not a test (needs OpenSM).
#
#   tests/data/mcast/capture_opensm.sh BUILD_DIR
set -euo pipefail
BUILD=$(realpath "$1")
OUT=$(cd "$(dirname "$0")" && pwd)
IBSMD_SOURCE_ROOT=$(cd "$OUT/../../.." && pwd)
. "$IBSMD_SOURCE_ROOT/tests/integration/ibsim_env.sh"
CLIENT=$BUILD/tests/tools/sa_client
ibsim_start "$IBSMD_SOURCE_ROOT/tests/data/routing/2sw2path4hca.net"
mkdir -p "$WORK/cache"
opensm -c "$WORK/osm.conf" > /dev/null 2>&1 || true
sed -i -e 's/^force_log_flush .*/force_log_flush TRUE/' -e "s|^log_file .*|log_file $WORK/osm.log|" "$WORK/osm.conf"
(cd "$WORK" && OSM_CACHE_DIR=$WORK/cache SIM_HOST=Hca1 LD_PRELOAD="$SIM_PRELOAD" exec opensm -F "$WORK/osm.conf" -R minhop) \
    > "$WORK/osm.out" 2>&1 &
OSM_PID=$!
trap 'kill $OSM_PID 2> /dev/null || true; ibsim_cleanup' EXIT
for _ in $(seq 1 300); do grep -q "SUBNET UP" "$WORK/osm.log" 2> /dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$WORK/osm.log" || { tail "$WORK/osm.log" >&2; exit 1; }
sleep 1
SIM_HOST=Hca3 sim ibnetdiscover -p > "$WORK/p.txt"
grep -q "^CA     5  1 0x0000000000100007" "$WORK/p.txt" || { echo "unexpected LIDs" >&2; exit 1; }

cap() { # NAME HOST "DESCRIPTION" sa_client-query-args...
    local name=$1 host=$2 what=$3
    shift 3
    { echo "# $what"; echo "# sa_client query $*"; SIM_HOST=$host sim "$CLIENT" query "$@" --raw; } > "$OUT/$name.txt"
}
# MGID | PortGID | P_Key | JoinState, as the kernel's ipoib joins the broadcast group.
BCAST=0:8:0xff12401bffff0000,8:8:0x00000000ffffffff,16:8:0xfe80000000000000
cap opensm_join_hca3 Hca3 "MCMemberRecord Set by Hca3 (port GUID 0x100007): IPoIB broadcast join" \
    1 0x38 set 0x10083 "$BCAST,24:8:0x100007,40:2:0xffff,48:1:0x01"
cap opensm_join_hca4 Hca4 "MCMemberRecord Set by Hca4 (port GUID 0x10000a): IPoIB broadcast join" \
    1 0x38 set 0x10083 "$BCAST,24:8:0x10000a,40:2:0xffff,48:1:0x01"
cap opensm_get_hca3 Hca3 "MCMemberRecord Get by MGID and PortGID (Hca3), SM_Key 0 (untrusted)" \
    1 0x38 get 0x3 "$BCAST,24:8:0x100007"
sleep 1
SIM_HOST=Hca3 sim dump_fts -M > "$OUT/opensm_dump_fts_M.txt"
SIM_HOST=Hca3 sim smpquery pkeys 5 > "$OUT/opensm_pkeys_5.txt"
echo "captured into $OUT"
