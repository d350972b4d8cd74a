#!/usr/bin/env bash
# Whole SA tables read by stock clients on ibsim (scripts/ibsim-client:
# umad2sim + libibsim-rmpp.so), from ibsmd and from OpenSM on one fabric:
#  - `saquery -N` prints one NodeRecord per node (single-port CAs), with
#    every node GUID, port GUID and NodeDescription of the net file;
#  - `saquery PIR` prints one PortInfoRecord per cabled port and per
#    switch port 0, each (LID, port) once;
#  - a MultiPathRecord GetMulti of 1 SGID and 12 DGIDs (232 bytes: two RMPP
#    segments, sent whole by tests/tools/multipath_client as a kernel-RMPP
#    client sends it) is reassembled by ibsmd's SA and answered with one
#    path per pair, from the LIDs the hosts have; OpenSM's SA reads the
#    same request and answers it.
# ibsmd runs under scripts/ibsim-client too: umad2sim cuts the last 32
# bytes off every MAD it delivers, which the library repairs, and a
# request's second segment needs them.
#
# usage: sa_whole_tables.sh IBSMD IBSM MULTIPATH_CLIENT BUILD_DIR -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); MPC=$(realpath "$3"); BUILD=$(realpath "$4"); shift 4
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
CLIENT="$HERE/../../scripts/ibsim-client"
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/opensm_run.sh"
for tool in saquery opensm python3; do
    command -v "$tool" > /dev/null || fail "$tool not found (apt-get install infiniband-diags opensm python3)"
done
LIB="$BUILD/ibsim_rmpp/libibsim-rmpp.so"
[ -f "$LIB" ] || fail "no $LIB"

"$IBSM" topogen "$@" --out "$WORK/fabric.net"
# shellcheck disable=SC2046
ibsim_start "$WORK/fabric.net" $(ibsim_limits "$WORK/fabric.net")
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
[ "${#CAS[@]}" -ge 16 ] || fail "need 16 CAs in the fabric"
JUDGE=${CAS[1]}
# Each query from a node of its own (CAs 6, 7, ...): should an SA resend
# to a client that has gone, umad2sim would crash the next client attached
# to that node (DEVELOPERS.md, "Things that bite").
NEXT=6
client() {
    local host=${CAS[$NEXT]}
    NEXT=$((NEXT + 1))
    (cd "$WORK" && SIM_HOST=$host IBSIM_RMPP_STATS=1 "$CLIENT" --build "$BUILD" "$@")
}
# Expected: node GUID, port GUID, description per node (a switch's port
# GUID is its node GUID), and (GUID, cabled port) lines.
python3 - "$WORK/fabric.net" "$WORK/expected" <<'PY'
import re, sys
net, out = sys.argv[1], sys.argv[2]
nodes, ports, guid = [], [], None
kind = None
for line in open(net):
    m = re.match(r'(switchguid|caguid)=0x([0-9a-f]+)', line)
    if m:
        guid = int(m.group(2), 16)
        continue
    m = re.match(r'(Switch|Ca)\s+(\d+)\s+"[^"]*"\s*#\s*"([^"]*)"', line)
    if m:
        kind, desc = m.group(1), m.group(3)
        if kind == 'Switch':
            nodes.append((guid, guid, desc))
            ports.append((guid, 0))
        continue
    m = re.match(r'\[(\d+)\].*"[^"]*"\[\d+\]', line)
    if m and kind:
        p = int(m.group(1))
        if kind == 'Ca':
            nodes.append((guid, guid + p, desc))
            ports.append((guid + p, p))
        else:
            ports.append((guid, p))
with open(out + '.nodes', 'w') as f:
    for n in sorted(nodes):
        f.write('0x%016x 0x%016x %s\n' % n)
with open(out + '.ports', 'w') as f:
    f.write('%d\n' % len(ports))
PY
nodes=$(wc -l < "$WORK/expected.nodes")
pirs=$(cat "$WORK/expected.ports")
echo "fabric: $nodes nodes, $pirs PortInfoRecords expected (cabled ports and switch port 0)"

# check_tables SM: saquery -N and PIR through the client, judged against the net file.
check_tables() {
    local sm=$1
    client saquery -N > "$WORK/$sm.nr" 2> "$WORK/$sm.nr.err" || { cat "$WORK/$sm.nr.err" >&2; fail "$sm: saquery -N failed"; }
    python3 - "$WORK/$sm.nr" "$WORK/expected.nodes" "$sm" <<'PY'
import re, sys
text, want, sm = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines(), sys.argv[3]
got = []
for rec in text.split('NodeRecord dump:')[1:]:
    f = dict(re.findall(r'(\w+)\.{2,}(.*)', rec))
    got.append('0x%016x 0x%016x %s' % (int(f['node_guid'], 16), int(f['port_guid'], 16), f['NodeDescription'].strip()))
got.sort()
if got != want:
    missing = sorted(set(want) - set(got))[:5]
    extra = sorted(set(got) - set(want))[:5]
    sys.exit(f"FAIL: {sm}: saquery -N printed {len(got)} NodeRecords, {len(want)} nodes expected; missing {missing} unexpected {extra}")
print(f"{sm}: saquery -N: {len(got)} NodeRecords, every node GUID, port GUID and NodeDescription")
PY
    grep -h "libibsim-rmpp" "$WORK/$sm.nr.err" || true
    client saquery PIR > "$WORK/$sm.pir" 2> "$WORK/$sm.pir.err" || { cat "$WORK/$sm.pir.err" >&2; fail "$sm: saquery PIR failed"; }
    grep -h "libibsim-rmpp" "$WORK/$sm.pir.err" || true
    python3 - "$WORK/$sm.pir" "$pirs" "$sm" <<'PY'
import re, sys
text, want, sm = open(sys.argv[1]).read(), int(sys.argv[2]), sys.argv[3]
keys = [(int(l), int(p)) for l, p in re.findall(r'EndPortLid\.+(\d+)\s+PortNum\.+(\d+)', text)]
if len(keys) != want or len(set(keys)) != len(keys):
    sys.exit(f"FAIL: {sm}: saquery PIR printed {len(keys)} PortInfoRecords ({len(set(keys))} distinct), {want} expected")
print(f"{sm}: saquery PIR: {len(keys)} PortInfoRecords, each (LID, port) once")
PY
}

# lid_of SM PORT_GUID: the LID the SM's NodeRecords give that port.
lid_of() {
    python3 - "$WORK/$1.nr" "$2" <<'PY'
import re, sys
for rec in open(sys.argv[1]).read().split('NodeRecord dump:')[1:]:
    f = dict(re.findall(r'(\w+)\.{2,}(.*)', rec))
    if int(f['port_guid'], 16) == int(sys.argv[2], 16):
        print(f['lid'].strip())
PY
}

# check_multipath SM: the GetMulti of two segments, answered pair by pair.
check_multipath() {
    local sm=$1 guids src dst1 dst2 lsrc ld1 ld2 want got
    # Port 1 of the third, fourth and fifth CA: node GUID + 1.
    mapfile -t guids < <(sed -n 's/^caguid=0x\([0-9a-f]*\).*/\1/p' "$WORK/fabric.net" | sed -n 3,5p)
    src=$(printf '0x%x' $((0x${guids[0]} + 1)))
    dst1=$(printf '0x%x' $((0x${guids[1]} + 1)))
    dst2=$(printf '0x%x' $((0x${guids[2]} + 1)))
    client "$MPC" "$sm_lid" "$src" "$dst1" "$dst2" --repeat 6 > "$WORK/$sm.mpr" 2> "$WORK/$sm.mpr.err" ||
        { cat "$WORK/$sm.mpr" "$WORK/$sm.mpr.err" >&2; fail "$sm: the GetMulti of two segments got no good answer"; }
    grep -h "libibsim-rmpp" "$WORK/$sm.mpr.err" || true
    lsrc=$(lid_of "$sm" "$src"); ld1=$(lid_of "$sm" "$dst1"); ld2=$(lid_of "$sm" "$dst2")
    [ -n "$lsrc" ] && [ -n "$ld1" ] && [ -n "$ld2" ] || fail "$sm: no NodeRecord for $src, $dst1 or $dst2"
    head -n1 "$WORK/$sm.mpr"
    if [ "$sm" = opensm ]; then
        grep -qE "^status 0x0000 records [1-9]" "$WORK/$sm.mpr" || fail "$sm: MultiPathRecord answer: $(head -n1 "$WORK/$sm.mpr")"
        echo "$sm: GetMulti in 2 segments answered"
        return
    fi
    grep -q "^status 0x0000 records 12 " "$WORK/$sm.mpr" || fail "$sm: MultiPathRecord answer: $(head -n1 "$WORK/$sm.mpr"), 12 records expected"
    want=$(for _ in 1 2 3 4 5 6; do echo "path $lsrc $ld1"; echo "path $lsrc $ld2"; done | sort)
    got=$(grep '^path ' "$WORK/$sm.mpr" | sort)
    [ "$want" = "$got" ] || { echo "$got" | head -4 >&2; fail "$sm: the paths are not SLID $lsrc to DLIDs $ld1 and $ld2"; }
    echo "$sm: GetMulti in 2 segments answered: 12 PathRecords from LID $lsrc to $ld1 and $ld2"
}

echo "--- ibsmd"
SIM_PRELOAD="$SIM_PRELOAD $LIB" sm_start "$WORK/sm.log" --foreground --state-dir "$WORK/state" --log-level info
sm_wait_up 0 120
SIM_HOST=$JUDGE sim sminfo > "$WORK/sminfo.txt"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$WORK/sminfo.txt")
[ -n "$sm_lid" ] || fail "no SM LID from sminfo"
check_tables ibsmd
check_multipath ibsmd
kill -TERM "$SM_PID"
wait "$SM_PID" || fail "ibsmd exited $? on SIGTERM"
SM_PID=""
# Every answer's last ACK reached the SA: no transfer was given up.
sa_line=$(grep "SA: .*MADs received" "$WORK/sm.log" | tail -n1)
echo "$sa_line"
echo "$sa_line" | has -E "RMPP transfers \(([0-9]+) completed, 0 aborted" || fail "ibsmd's SA gave up a transfer: $sa_line"

echo "--- OpenSM on the same fabric"
export OSM_CACHE_DIR="$WORK/osm-cache" OSM_TMP_DIR="$WORK/osm-tmp"
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
osm_config "$WORK/osm.conf" "$WORK/osm.log"
(cd "$WORK" && IBSIM_RMPP_STATS=1 exec "$CLIENT" --build "$BUILD" opensm -F "$WORK/osm.conf") > "$WORK/osm.out" 2>&1 &
SM_PID=$!
osm_wait_up "$WORK/osm.log" "$SM_PID" 60
SIM_HOST=$JUDGE sim sminfo > "$WORK/sminfo_osm.txt"
sm_lid=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' "$WORK/sminfo_osm.txt")
check_tables opensm
# The same GetMulti: OpenSM reads the GIDs at byte 24 of the record, as
# ours are (ib_multipath_rec_t; it answered ERR_INVALID_GID, 0x0500, while
# mad/sa/records.h put them at byte 32), and answers with paths of its own
# choosing (fewer: it does not repeat a pair's path as ibsmd does).
check_multipath opensm
echo "PASS"
