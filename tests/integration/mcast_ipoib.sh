#!/usr/bin/env bash
# Multicast and partitions on ibsim (IPoIB groups, MFTs, P_Key tables), judged with
# infiniband-diags and our own clients, never with ibsmd's word:
#  1. P_Key tables (`smpquery pkeys`): every CA port and switch port 0
#     holds the default partition 0xffff; the ports a `partitions:` entry
#     lists hold its key with their membership bit (0x8001 full, 0x0001
#     limited); a leaf's port facing such a CA enforces the same keys; the
#     SM's port holds what the rules give it (as OpenSM: not listed, none).
#  2. IPoIB-style joins of the broadcast group ff12:401b:ffff::ffff:ffff
#     (MGID, PortGID, P_Key, JoinState: what the kernel's ipoib sends):
#     three hosts join for themselves (tests/tools/mcast_join as ibsim
#     clients on their own nodes, SIM_HOST), then one client joins every
#     other CA port by proxy. Every join must succeed (648 on the default
#     fabric).
#  3. `saquery` (trusted with the SM_Key) shows members of MLID 0xC000 and,
#     asked by PortGID, exactly the port asked for; `saquery -g` shows the
#     group.
#  4. The MFTs read back with `dump_fts -M` deliver a packet from every
#     member to every other member exactly once, without loops
#     (mcast_check.py floods them).
#  5. The 18 hosts of one leaf leave: the tables read back then deliver to
#     the others only, and that leaf is off the tree.
#  6. The root spine's cable to a member leaf is pulled: after the re-route
#     the tables still deliver to every member.
#  7. Partition rules on joins: a port outside partition 0x0001 cannot join
#     its broadcast group (ERR_REQ_INVALID), a limited member can; a join
#     without the create components gets ERR_REQ_INSUFFICIENT_COMPONENTS.
#
# usage: mcast_ipoib.sh IBSMD IBSM MCAST_JOIN [-- TOPOGEN ARGS...]
#        (default: the 648-host two-level tree of examples/fat-tree-648.net)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); JOIN=$(realpath "$3"); shift 3
[ "${1:-}" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v saquery > /dev/null || fail "saquery not found (apt-get install infiniband-diags)"

if [ $# -gt 0 ]; then
    "$IBSM" topogen "$@" --out "$WORK/fabric.net" > /dev/null
else
    cp "$HERE/../../examples/fat-tree-648.net" "$WORK/fabric.net"
fi
ibsim_start "$WORK/fabric.net"

# CA names and port-1 GUIDs in net-file order (the SM is on the first).
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
sed -n 's/^\[1\](\([0-9a-fA-F]*\)).*/\1/p' "$WORK/fabric.net" > "$WORK/all-ports.txt"
N=$(wc -l < "$WORK/all-ports.txt")
[ "$N" -eq "${#CAS[@]}" ] && [ "$N" -ge 8 ] || fail "expected one port line per CA and at least 8 CAs ($N ports, ${#CAS[@]} CAs)"
port() { sed -n "$(($1 + 1))p" "$WORK/all-ports.txt"; }
JUDGE=${CAS[1]}
judge() { SIM_HOST=$JUDGE sim "$@"; }
SMKEY=0x1

# Partition 0x0001: CA 1 full, CAs 2 and 3 limited. With partitions given,
# every port is a limited member of 0x7fff unless a rule says otherwise (as
# OpenSM with a partitions file): here every port is a full member, with
# the broadcast group.
cat > "$WORK/ibsmd.yaml" << EOF
sm:
  sm_key: $SMKEY
state_dir: $WORK/state
partitions:
  - {name: Default, pkey: 0x7fff, ipoib: true, full: [ALL]}
  - name: storage
    pkey: 0x0001
    full: [0x$(port 1)]
    limited: [0x$(port 2), 0x$(port 3)]
EOF
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" ${MCAST_IBSMD_ARGS:-}
sm_wait_up 0 120
grep -E "IPoIB broadcast group|phase program" "$WORK/sm.log"

echo "--- 1. P_Key tables"
judge ibnetdiscover -p > "$WORK/ports.txt" 2> /dev/null || fail "ibnetdiscover -p failed"
lid_of() { # PORT_GUID -> LID of that CA port
    awk -v g="$(printf '0x%016x' "0x$1")" '$1 == "CA" && $4 == g { print $2; exit }' "$WORK/ports.txt"
}
# "0: 0xffff 0x8001 0x0000 ..." -> the first three keys
keys() { sed -n 's/^ *0: \(0x[0-9a-f]*\) \(0x[0-9a-f]*\) \(0x[0-9a-f]*\).*/\1 \2 \3/p'; }
expect_keys() { # WHAT WANT SMPQUERY_ARGS...
    local what=$1 want=$2 got
    shift 2
    got=$(judge smpquery pkeys "$@" 2> /dev/null | keys)
    echo "$what: $got"
    [ "$got" = "$want" ] || fail "$what holds '$got', expected '$want'"
}
expect_keys "SM port (${CAS[0]})" "0xffff 0x0000 0x0000" "$(lid_of "$(port 0)")"
expect_keys "full member (${CAS[1]})" "0xffff 0x8001 0x0000" "$(lid_of "$(port 1)")"
expect_keys "limited member (${CAS[2]})" "0xffff 0x0001 0x0000" "$(lid_of "$(port 2)")"
expect_keys "no partition (${CAS[4]})" "0xffff 0x0000 0x0000" "$(lid_of "$(port 4)")"
# The leaf port facing CA 1, and that leaf's port 0.
read -r leaf_lid leaf_port < <(awk -v g="$(printf '0x%016x' "0x$(port 1)")" \
    '$1 == "SW" && $8 == "CA" && $11 == g { print $2, $3; exit }' "$WORK/ports.txt")
[ -n "${leaf_lid:-}" ] || fail "cannot find the switch port facing ${CAS[1]}"
expect_keys "leaf LID $leaf_lid port $leaf_port (facing ${CAS[1]})" "0xffff 0x8001 0x0000" "$leaf_lid" "$leaf_port"
expect_keys "leaf LID $leaf_lid port 0" "0xffff 0x0000 0x0000" "$leaf_lid" 0

echo "--- 2. IPoIB broadcast joins: 3 hosts for themselves, the rest by proxy"
for i in 5 6 7; do
    out=$(SIM_HOST=${CAS[$i]} sim "$JOIN" join 2>&1) || { echo "$out"; fail "${CAS[$i]} could not join"; }
    echo "${CAS[$i]}: $(echo "$out" | grep joined)"
done
grep -v -x -e "$(port 5)" -e "$(port 6)" -e "$(port 7)" "$WORK/all-ports.txt" > "$WORK/proxy.txt"
judge "$JOIN" join "$WORK/proxy.txt" --window 32 | tee "$WORK/join.txt" || fail "proxy joins failed"
grep -q "^joined $((N - 3)) of $((N - 3)), MLID 0xc000" "$WORK/join.txt" || fail "not every port joined"
sm_wait_for 0 "multicast: [0-9]+ group\(s\), $N membership\(s\)" 30
sm_quiet

echo "--- 3. saquery"
# umad2sim passes saquery only the first MAD of an answer, so a listing
# shows its first records: they must be members of 0xC000. saquery does
# not ACK the RMPP segments, so the SA resends them until it aborts; a
# later client on that node would get the resends, which umad2sim does
# not survive: the listing runs from a node nothing else uses.
SIM_HOST=${CAS[8]} sim saquery -m --smkey "$SMKEY" > "$WORK/saquery-m.txt" 2>&1 || true
grep -q "PortGid.*fe80::" "$WORK/saquery-m.txt" && grep -q "Mlid.*0xC000" "$WORK/saquery-m.txt" ||
    { cat "$WORK/saquery-m.txt"; fail "saquery -m lists no member of 0xC000"; }
grep -m3 "PortGid" "$WORK/saquery-m.txt"
for i in 2 5 $((N - 1)); do
    g=$(printf '%x' "0x$(port "$i")")
    gid="fe80::$(printf '%x:%x:%x:%x' $((0x$g >> 48 & 0xffff)) $((0x$g >> 32 & 0xffff)) $((0x$g >> 16 & 0xffff)) $((0x$g & 0xffff)) | sed 's/^0://; s/^0://; s/^0://')"
    judge saquery MCMR --smkey "$SMKEY" --mgid ff12:401b:ffff::ffff:ffff --gid "$gid" > "$WORK/mcmr-$i.txt" 2>&1 || true
    grep -q "PortGid.*$gid\$" "$WORK/mcmr-$i.txt" && grep -q "mlid.*0xc000" "$WORK/mcmr-$i.txt" ||
        { cat "$WORK/mcmr-$i.txt"; fail "saquery MCMR --gid $gid does not show that member of 0xc000"; }
    echo "saquery MCMR --gid $gid: member of 0xc000"
done
judge saquery -g > "$WORK/saquery-g.txt" 2>&1 || true
grep -q "ff12:401b:ffff::ffff:ffff" "$WORK/saquery-g.txt" || { cat "$WORK/saquery-g.txt"; fail "saquery -g does not show the broadcast group"; }

echo "--- 4. MFTs read back deliver to every member"
mft_check() { # TAG MEMBERS_FILE
    judge ibnetdiscover > "$WORK/$1.net" 2> "$WORK/$1.err" || { cat "$WORK/$1.err" >&2; fail "$1: ibnetdiscover failed"; }
    judge dump_fts -M > "$WORK/$1.mfts" 2> "$WORK/$1.err" || { cat "$WORK/$1.err" >&2; fail "$1: dump_fts -M failed"; }
    python3 "$HERE/mcast_check.py" "$WORK/$1.net" "$WORK/$1.mfts" 0xc000 "$2" || fail "$1: the MFTs do not deliver"
}
mft_check all "$WORK/all-ports.txt"

echo "--- 5. the hosts of the last leaf leave"
# The last 18 ports of the net file share a leaf on the two-level trees.
LEAVERS=$(awk -v n="$N" 'NR > n - 18' "$WORK/all-ports.txt")
echo "$LEAVERS" | grep -v -x -e "$(port 5)" -e "$(port 6)" -e "$(port 7)" > "$WORK/leavers.txt"
mark=$(sm_lines)
judge "$JOIN" leave "$WORK/leavers.txt" | tee "$WORK/leave.txt" || fail "leaves failed"
grep -v -x -F -f "$WORK/leavers.txt" "$WORK/all-ports.txt" > "$WORK/stayers.txt"
sm_wait_for "$mark" "multicast: [0-9]+ group\(s\), $(wc -l < "$WORK/stayers.txt") membership\(s\)" 30
sm_quiet
sm_since "$mark" | grep "multicast:"
mft_check left "$WORK/stayers.txt"

echo "--- 6. re-route: the root's cable to a member leaf"
# The root: the switch with the most ports in 0xC000's mask (a spine).
root_of() {
    awk '/^Multicast mlids/ { match($0, /guid 0x[0-9a-f]+/); g = substr($0, RSTART + 5, RLENGTH - 5) }
         /^0xc000/ { n[g] = gsub(/x/, "x") } END { for (s in n) if (n[s] > best) { best = n[s]; r = s } print r }' "$1"
}
root=$(root_of "$WORK/left.mfts")
root_name=$(printf 'S-%016x' "$root")
link=$(awk -v s="\"$root_name\"" 'index($0, s) == 1 || $0 ~ "^Switch.*" s { f = 1; next } f && /^\[/ { print; exit } /^$/ { f = 0 }' "$WORK/left.net")
rport=$(echo "$link" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
[ -n "$rport" ] || fail "cannot find a cabled port of the root $root_name"
echo "root $root_name: unlinking its port $rport"
mark=$(sm_lines)
ibsim_cmd "Unlink \"$root_name\"[$rport]"
sm_wait_up "$mark" 60
sm_wait_for "$mark" "multicast: .* on generation" 30
sm_quiet
mft_check rerouted "$WORK/stayers.txt"
new_root=$(root_of "$WORK/rerouted.mfts")
echo "root after the re-route: $(printf 'S-%016x' "$new_root")"
[ "$((new_root))" -ne "$((root))" ] || fail "the tree kept the root that lost a member leaf"

echo "--- 7. partition rules on joins"
STORAGE=ff12401b80010000:00000000ffffffff
out=$(SIM_HOST=${CAS[4]} sim "$JOIN" join --mgid "$STORAGE" --expect-status 0x0200 2>&1) ||
    { echo "$out"; fail "a port outside partition 0x0001 joined its broadcast group"; }
echo "${CAS[4]} (no partition) -> storage group: $(echo "$out" | grep status)"
out=$(SIM_HOST=${CAS[2]} sim "$JOIN" join --mgid "$STORAGE" --pkey 0x0001 2>&1) || { echo "$out"; fail "a limited member could not join"; }
echo "${CAS[2]} (limited) -> storage group: $(echo "$out" | grep joined)"
out=$(SIM_HOST=${CAS[4]} sim "$JOIN" join --mgid ff15000000000000:0000000000000042 --expect-status 0x0600 2>&1) ||
    { echo "$out"; fail "creating a group without Q_Key, TClass, FlowLabel, SL was not refused"; }
echo "create without components: $(echo "$out" | grep status)"
sm_alive
judge sminfo | grep -q SMINFO_MASTER || fail "the SM is no longer MASTER"
echo "PASS"
