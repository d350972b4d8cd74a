#!/usr/bin/env bash
# Re-creates the captures in this folder: OpenSM 3.3.23 (opensm -F, minhop,
# force_log_flush so "SUBNET UP" reaches its log) as SM and SA on Hca1 of
# tests/data/routing/2sw2path4hca.net under ibsim; sa_client (tests/tools)
# on Hca3 sends each query and prints every MAD of the answer ("mad HEX",
# the 224 bytes umad2sim delivers); smpquery / dump_fts / sminfo on Hca3
# print the same attributes read directly, the independent values the unit
# tests check the decoded records against. Not a test (needs OpenSM).
#
#   tests/data/sa/capture_opensm.sh BUILD_DIR
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
j() { SIM_HOST=Hca3 sim "$@"; }

# LIDs OpenSM gave (opensm caches nothing here: a private OSM_CACHE_DIR):
# Hca1 1, Switch1 2, Switch2 3, Hca2 4, Hca3 5, Hca4 6 (checked below).
j ibnetdiscover -p > "$OUT/opensm_ibnetdiscover_p.txt"
grep -q "^CA     5  1 0x0000000000100007" "$OUT/opensm_ibnetdiscover_p.txt" || { echo "unexpected LIDs" >&2; exit 1; }

cap() { # NAME "DESCRIPTION" sa_client-query-args...
    local name=$1 what=$2
    shift 2
    { echo "# $what"; echo "# sa_client query $*"; j "$CLIENT" query "$@" --raw; } > "$OUT/$name.txt"
}
cap nr_lid5 "NodeRecord of LID 5 (Hca3), GetTable, mask LID" 1 0x11 gettable 0x1 0:2:5
cap nr_lid3 "NodeRecord of LID 3 (Switch2), GetTable, mask LID" 1 0x11 gettable 0x1 0:2:3
cap pir_lid5_port1 "PortInfoRecord of LID 5 port 1, GetTable, mask LID|PortNum" 1 0x12 gettable 0x3 0:2:5,2:1:1
cap pir_lid3_port5 "PortInfoRecord of LID 3 port 5 (switch port), GetTable" 1 0x12 gettable 0x3 0:2:3,2:1:5
cap swir_lid3 "SwitchInfoRecord of LID 3, GetTable, mask LID" 1 0x14 gettable 0x1 0:2:3
cap lftr_lid3_block0 "LinearForwardingTableRecord LID 3 block 0, GetTable" 1 0x15 gettable 0x3 0:2:3,2:2:0
cap lr_from5 "LinkRecord from LID 5, GetTable, mask FromLID" 1 0x20 gettable 0x1 0:2:5
cap smir "SMInfoRecord, GetTable, no mask" 1 0x18 gettable 0
cap gir_lid5 "GUIDInfoRecord of LID 5, GetTable, mask LID" 1 0x30 gettable 0x1 0:2:5
cap pr_5_to_4 "PathRecord SLID 5 DLID 4, GetTable, mask DLID|SLID" 1 0x35 gettable 0x30 40:2:4,42:2:5
cap cpi "ClassPortInfo, Get" 1 0x01 get 0
cap sr_set "ServiceRecord Set by Hca3: ID 0x1234, its GID, P_Key 0xffff, lease 0xffffffff, name 'ibsmd-test'" \
    1 0x31 set 0x57 0:8:0x1234,8:8:0xfe80000000000000,16:8:0x100007,24:2:0xffff,28:4:0xffffffff,48:8:0x6962736d642d7465,56:2:0x7374
cap sr_get "ServiceRecord Get by ServiceID 0x1234" 1 0x31 gettable 0x1 0:8:0x1234
cap ii_set "InformInfo Set: subscribe trap 128, any LID, QPN 1" \
    1 0x03 set 0 16:2:0xffff,22:1:1,23:1:1,24:2:0xffff,26:2:128,28:3:1,33:3:0xffffff
cap iir_all "InformInfoRecord GetTable, no mask" 1 0xf3 gettable 0

j smpquery nodeinfo 5 > "$OUT/smpquery_nodeinfo_5.txt"
j smpquery nodeinfo 3 > "$OUT/smpquery_nodeinfo_3.txt"
j smpquery nodedesc 5 > "$OUT/smpquery_nodedesc_5.txt"
j smpquery portinfo 5 1 > "$OUT/smpquery_portinfo_5_1.txt"
j smpquery portinfo 3 5 > "$OUT/smpquery_portinfo_3_5.txt"
j smpquery switchinfo 3 > "$OUT/smpquery_switchinfo_3.txt"
j dump_fts 3 > "$OUT/dump_fts_3.txt"
j sminfo > "$OUT/sminfo.txt"
echo "captured into $OUT"
