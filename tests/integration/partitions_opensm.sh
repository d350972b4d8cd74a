#!/usr/bin/env bash
# An OpenSM partitions.conf, loaded unchanged, programs what OpenSM
# programs; and it changes live. Judged with infiniband-diags and OpenSM
# itself, never with ibsmd's word:
#  1. The file has no Default rule (every end port a limited member of
#     0x7fff, the SM's port a full one), a partition with `ipoib, mtu=5,
#     rate=7` and `ALL_CAS=limi`, defined twice; a `defmember=full` list
#     with one `=limited` member; a `both` member; an `indx0` partition.
#  2. OpenSM (-o, on a fresh ibsim) programs the fabric with that file;
#     `smpquery pkeys` reads every CA port, every switch's port 0 and every
#     switch port facing a CA. ibsmd on another fresh ibsim with the same
#     file (partitions_file) must leave exactly the same tables, port by
#     port (keyed by GUID and port: the LIDs may differ).
#  3. `saquery PR` between two limited members sharing no partition with a
#     full member finds no path; between a full and a limited member, one.
#  4. The partition's IPoIB broadcast group exists with MTU 5 and rate 7
#     (saquery MCMR).
#  5. The file changes (a partition removed, one added, a member limited ->
#     full) and SIGHUP is sent: the same process (PID) programs only the
#     ports whose tables change (the P_Key blocks the log says were sent
#     equal the tables read back that differ), a kept partition keeps its
#     index on every port, and the removed partition's group is gone: the
#     multicast forwarding entries of its MLID, which had members, are
#     cleared on every switch (dump_fts -M).
#
# usage: partitions_opensm.sh IBSMD IBSM MCAST_JOIN
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); JOIN=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/opensm_run.sh"
command -v opensm > /dev/null || fail "opensm not found (apt-get install opensm)"
command -v smpquery > /dev/null || fail "smpquery not found (apt-get install infiniband-diags)"

"$IBSM" topogen pgft --m 4,8 --w 1,4 --p 1,1 --out "$WORK/fabric.net" > /dev/null
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
sed -n 's/^\[1\](\([0-9a-fA-F]*\)).*/\1/p' "$WORK/fabric.net" > "$WORK/all-ports.txt"
[ "$(wc -l < "$WORK/all-ports.txt")" -ge 12 ] || fail "expected at least 12 CA ports"
H() { printf '0x%016x' "0x$(sed -n "$(($1 + 1))p" "$WORK/all-ports.txt")"; }

# 1. The site's file. CA 0 runs the SM (both SMs take the first CA).
cat > "$WORK/partitions.conf" << EOF
# no Default rule: ALL=limited, SELF=full in 0x7fff
Storage=0x0010, ipoib, mtu=5, rate=7 :
    ALL_CAS=limi, $(H 1)=full ;
Compute=0x0020, defmember=full : $(H 2), $(H 3)=limited, $(H 4) ;
Both=0x0030 : $(H 5)=both, $(H 6) ;
# the second definition of 0x0010 merges into the first
Storage=0x0010 : $(H 7)=full ;
Gone=0x0040, ipoib : $(H 8)=full, $(H 9) ;
Admin=0x0006, indx0 : $(H 11)=full ;
EOF
cat "$WORK/partitions.conf"

# pkeys TAG: every CA port, switch port 0 and switch port facing a CA,
# "CA <guid>: keys..." / "SW <guid> <port>: keys...", sorted, into $WORK/TAG.pkeys.
pkeys() {
    sim ibnetdiscover -p > "$WORK/$1.ports" 2> /dev/null || fail "$1: ibnetdiscover -p failed"
    : > "$WORK/$1.pkeys"
    local kind lid port guid keys
    # CA lines: CA LID PORT GUID ...; switch lines facing a CA: SW LID PORT GUID ... CA ...
    awk '$1 == "CA" { print "CA", $2, $3, $4 }
         $1 == "SW" && $8 == "CA" { print "SW", $2, $3, $4 }
         $1 == "SW" { print "SW", $2, 0, $4 }' "$WORK/$1.ports" | sort -u > "$WORK/$1.targets"
    while read -r kind lid port guid; do
        if [ "$kind" = CA ]; then
            keys=$(sim smpquery pkeys "$lid" 2> /dev/null | sed -n 's/^ *[0-9]*: //p' | tr -s ' ' | tr '\n' ' ')
            echo "CA $guid: $keys" >> "$WORK/$1.pkeys"
        else
            keys=$(sim smpquery pkeys "$lid" "$port" 2> /dev/null | sed -n 's/^ *[0-9]*: //p' | tr -s ' ' | tr '\n' ' ')
            echo "SW $guid $port: $keys" >> "$WORK/$1.pkeys"
        fi
        [ -n "$keys" ] || fail "$1: smpquery pkeys $lid $port read nothing"
    done < "$WORK/$1.targets"
    sort -o "$WORK/$1.pkeys" "$WORK/$1.pkeys"
    echo "$1: $(wc -l < "$WORK/$1.pkeys") P_Key tables read"
}
lid_of() { awk -v g="$1" '$1 == "CA" && $4 == g { print $2; exit }' "$WORK/$2.ports"; }
keys_of() { sed -n "s/^CA $1: //p" "$WORK/$2.pkeys"; }
index_of() { # KEY GUID TAG: the index of KEY in that CA port's table
    keys_of "$2" "$3" | tr ' ' '\n' | awk -v k="$1" '$1 == k { print NR - 1 }'
}

echo "--- 2. OpenSM with the file"
ibsim_start "$WORK/fabric.net"
mkdir -p "$WORK/osm/cache"
osm_config "$WORK/osm/osm.conf" "$WORK/osm.log" "s|^partition_config_file .*|partition_config_file $WORK/partitions.conf|"
grep -q "^partition_config_file $WORK/partitions.conf" "$WORK/osm/osm.conf" || fail "cannot point OpenSM at the file"
(cd "$WORK/osm" && OSM_CACHE_DIR="$WORK/osm/cache" LD_PRELOAD="$SIM_PRELOAD" \
    timeout 120 opensm -o -F "$WORK/osm/osm.conf") > "$WORK/osm.out" 2>&1 || true
grep -q "SUBNET UP" "$WORK/osm.log" || { tail -n 20 "$WORK/osm.log" >&2; fail "OpenSM did not bring the subnet up"; }
grep -i "partition\|pkey" "$WORK/osm.log" | grep -i "err\|warn" | head -5 || true
pkeys osm
ibsim_stop
rm -f "$WORK/console"

echo "--- 2. ibsmd with the same file"
ibsim_start "$WORK/fabric.net"
cat > "$WORK/ibsmd.yaml" << EOF
state_dir: $WORK/state
sm:
  sm_key: 0x1
partitions_file: $WORK/partitions.conf
EOF
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml"
PID=$SM_PID
sm_wait_up 0 120
grep -E "^.*partition |phase program" "$WORK/sm.log" | head -12
pkeys before
if ! diff "$WORK/osm.pkeys" "$WORK/before.pkeys" > "$WORK/osm.diff"; then
    head -20 "$WORK/osm.diff" >&2
    fail "P_Key tables differ from OpenSM's with the same file ($(grep -c '^>' "$WORK/osm.diff") port(s))"
fi
echo "every P_Key table equals OpenSM's ($(wc -l < "$WORK/before.pkeys") ports)"
grep -q "^CA $(H 3): 0x7fff 0x0010 0x0020 " "$WORK/before.pkeys" || fail "the =limited member of a defmember=full list"
grep -q "^CA $(H 5): 0x7fff 0x0010 0x8030 " "$WORK/before.pkeys" || fail "a both member (full without allow_both_pkeys)"
grep -q "^CA $(H 0): 0xffff 0x0010 " "$WORK/before.pkeys" || fail "the SM's port: 0x7fff full (SELF=full)"

echo "--- 3. PathRecords"
LIM_A=$(lid_of "$(H 10)" before); LIM_B=$(lid_of "$(H 11)" before); FULL=$(lid_of "$(H 1)" before)
pr() { SIM_HOST=${CAS[1]} sim saquery PR --slid "$1" --dlid "$2" 2> /dev/null | grep -ci "dlid" || true; }
n=$(pr "$LIM_A" "$LIM_B")
[ "$n" -eq 0 ] || fail "two limited members sharing no partition with a full member got $n PathRecord(s)"
n=$(pr "$FULL" "$LIM_A")
[ "$n" -ge 1 ] || fail "a full and a limited member of 0x0010 got no PathRecord"
echo "PR limited<->limited: none; full<->limited: $n record(s)"

echo "--- 4. the IPoIB broadcast group of 0x0010"
SIM_HOST=${CAS[1]} sim saquery MCMR --mgid ff12:401b:8010::ffff:ffff > "$WORK/mcmr.txt" 2>&1 || true
cat "$WORK/mcmr.txt"
grep -qi "mgid.*ff12:401b:8010::ffff:ffff" "$WORK/mcmr.txt" || fail "no broadcast group of 0x0010"
grep -Eqi "^\s*mtu\.*0x85$" "$WORK/mcmr.txt" || fail "the group's MTU is not 5 (exactly)"
grep -Eqi "^\s*rate\.*0x87$" "$WORK/mcmr.txt" || fail "the group's rate is not 7 (exactly)"
# Members of Gone's group, so its MLID has forwarding entries to lose.
out=$(SIM_HOST=${CAS[8]} sim "$JOIN" join --mgid ff12401b80400000:00000000ffffffff --pkey 0x8040 2>&1) ||
    { echo "$out"; fail "${CAS[8]} could not join 0x0040's broadcast group"; }
echo "$out"
GONE_MLID=$(echo "$out" | sed -n 's/.*MLID 0x\([0-9a-fA-F]*\).*/\1/p')
[ -n "$GONE_MLID" ] || fail "no MLID in the join's answer"
sm_quiet
SIM_HOST=${CAS[1]} sim dump_fts -M > "$WORK/mft-before.txt" 2> /dev/null || fail "dump_fts -M failed"
grep -qi "^0x$GONE_MLID " "$WORK/mft-before.txt" || fail "MLID 0x$GONE_MLID forwards nowhere before the change"

echo "--- 5. the file changes, SIGHUP"
cat > "$WORK/partitions.conf" << EOF
Storage=0x0010, ipoib, mtu=5, rate=7 :
    ALL_CAS=limi, $(H 1)=full ;
Compute=0x0020, defmember=full : $(H 2), $(H 3), $(H 4) ;
Both=0x0030 : $(H 5)=both, $(H 6) ;
Storage=0x0010 : $(H 7)=full ;
New=0x0050 : $(H 9)=full, $(H 10) ;
Admin=0x0006, indx0 : $(H 11)=full ;
EOF
mark=$(sm_lines)
kill -HUP "$PID"
sm_wait_up "$mark" 60
kill -0 "$PID" 2> /dev/null || fail "ibsmd is gone after SIGHUP"
[ "$SM_PID" = "$PID" ] || fail "another process"
sm_since "$mark" | grep -E "partition|P_Key|multicast: group" || true
pkeys after
# The same ports in the same order: a table changed where its line differs.
cmp <(cut -d: -f1 "$WORK/before.pkeys") <(cut -d: -f1 "$WORK/after.pkeys") > /dev/null || fail "the ports changed"
changed=$(paste -d'|' "$WORK/before.pkeys" "$WORK/after.pkeys" | awk -F'|' '$1 != $2' | wc -l)
sent=$(sm_since "$mark" | sed -n 's/.*phase program .*P_Key blocks sent \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
echo "P_Key tables changed: $changed; P_Key blocks sent: $sent"
[ "$changed" -gt 0 ] || fail "no table changed"
[ "$sent" -eq "$changed" ] || fail "sent $sent P_Key blocks for $changed changed table(s) of one block each"
grep -q "^CA $(H 3): 0x7fff 0x0010 0x8020 " "$WORK/after.pkeys" || fail "$(H 3) is not full in 0x0020 at its old index"
if keys_of "$(H 8)" after | has -e 0x8040 -e 0x0040; then fail "$(H 8) still holds 0x0040"; fi
keys_of "$(H 9)" after | grep -q "0x8050" || fail "$(H 9) does not hold 0x8050"
# The kept partition 0x0010 at the same index on every CA port.
for g in $(awk '$1 == "CA" { print $2 }' "$WORK/before.pkeys" | tr -d :); do
    a=$(index_of 0x0010 "$g" before; index_of 0x8010 "$g" before)
    b=$(index_of 0x0010 "$g" after; index_of 0x8010 "$g" after)
    [ "$a" = "$b" ] || fail "0x0010 moved on $g: index $a -> $b"
done
echo "0x0010 kept its index on every CA port"
SIM_HOST=${CAS[1]} sim dump_fts -M > "$WORK/mft-after.txt" 2> /dev/null || fail "dump_fts -M failed"
if grep -qi "^0x$GONE_MLID " "$WORK/mft-after.txt"; then fail "MLID 0x$GONE_MLID of the removed partition still forwards"; fi
echo "the removed partition's group (MLID 0x$GONE_MLID) forwards nowhere"
sm_alive
echo PASS
