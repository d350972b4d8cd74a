#!/usr/bin/env bash
# The QoS policy's VL tables on ibsim (2 switches, 4 CAs, updn on one
# layer: the configured tables are programmed as written):
#  - `ibsmd --once` brings the subnet up; `smpquery sl2vl` and `smpquery
#    vlarb` read back exactly the configured tables: CA ports (Hca2), the
#    group `storage` (Hca3: its own SL2VL and VLArb), switch external ports
#    (input port 3 to output 1) and switch port 0 (input 0 to output 1);
#  - `ibsmd --foreground`: a SIGHUP with a changed weight re-plans and
#    reprograms it; a SIGHUP with a policy that cannot fit (VL 5 with
#    routing.max_vls 6: the ports operate 4 VLs) is refused with the
#    numbers, the daemon keeps running and the tables stay;
#  - the same policy at start: exit status 78 (configuration error), the
#    numbers in the message.
# ibsim keeps SL2VL per (input, output) pair and both VLArb tables (8
# entries each), but not PortInfo VLHighLimit, so that is not read back.
#
# usage: qos_tables.sh IBSMD
set -euo pipefail
IBSMD=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"


ibsim_start "$HERE/../data/routing/2sw2path4hca.net"
STATE="$WORK/state"
CFG="$WORK/ibsmd.yaml"
# policy CA_LOW_WEIGHT_OF_VL1 CA_VL_OF_SL5
policy() {
    cat <<EOF
state_dir: $STATE
routing: {engines: [updn], no_fallback: true, max_vls: 6}
qos:
  port_groups:
    storage: {node_desc: ["Hca[34]"]}
  levels:
    bulk: {sl: 2}
    mpi: {sl: 5}
  rules:
    - {source: storage, level: bulk}
  sl2vl:
    ca: [0, 0, 1, 0, 0, $2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch: [0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    switch_port0: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    groups: {storage: [0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}
  vlarb:
    ca: {high: [{vl: 2, weight: 32}], low: [{vl: 0, weight: 64}, {vl: 1, weight: $1}], high_limit: 4}
    switch: {high: [{vl: 1, weight: 8}], low: [{vl: 0, weight: 128}, {vl: 2, weight: 4}], high_limit: 2}
    groups: {storage: {low: [{vl: 2, weight: 200}, {vl: 0, weight: 10}], high_limit: 1}}
EOF
}

# lid_of NAME: the LID ibnetdiscover shows for a CA's port 1 or a switch's port 0.
lid_of() {
    sim ibnetdiscover 2> /dev/null | awk -v n="\"$1\"" '
        /^Switch/ && index($0, "# " n " base port 0 lid ") { sub(/.* lid /, ""); print $1; exit }
        /^Ca/ { ca = index($0, "# " n) > 0; next }
        ca && /# lid / { sub(/.*# lid /, ""); print $1; exit }'
}
# sl2vl_row LID IN OUT: "0,0,1,..." (16 VLs) of the table from IN to OUT.
sl2vl_row() {
    sim smpquery sl2vl "$1" "$3" 2> /dev/null |
        sed -n "s/^ports: in *$2, out *$3: //p" | tr -d ' ' | sed 's/^|//; s/|$//; s/|/,/g'
}
# vlarb LID PORT PRIORITY: "vl:weight ..." of the non-zero-weight entries.
vlarb() {
    sim smpquery vlarb "$1" "$2" 2> /dev/null | awk -v want="$3" '
        function hex(s,   i, d) { d = 0; s = tolower(substr(s, 3))
            for (i = 1; i <= length(s); i++) d = d * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return d }
        /^# Low priority/ { t = "low" } /^# High priority/ { t = "high" }
        /^VL / && t == want { n = split($0, v, "|") }
        /^WEIGHT/ && t == want { split($0, w, "|"); for (i = 2; i < n; i++) { gsub(/ /, "", v[i]); gsub(/ /, "", w[i]);
            if (hex(w[i]) > 0) printf "%d:%d ", hex(v[i]), hex(w[i]) } }'
}
expect() { # expect WHAT GOT WANT
    [ "$2" = "$3" ] || fail "$1: read back '$2', configured '$3'"
    echo "ok  $1: $2"
}

policy 16 2 > "$CFG"
echo "--- ibsmd --once with the policy"
rc=0; sim "$IBSMD" --once --config "$CFG" 2> "$WORK/once.log" || rc=$?
grep -E "qos|SUBNET" "$WORK/once.log" || true
[ "$rc" -eq 0 ] || { cat "$WORK/once.log" >&2; fail "ibsmd --once exited $rc"; }
grep -q "qos: qos has 2 levels in 3 SL classes and 3 VL bands, ports carry 4 VLs: routing gets 1 layer" \
    "$WORK/once.log" || fail "the budget is not logged"

hca2=$(lid_of Hca2); hca3=$(lid_of Hca3); sw2=$(lid_of Switch2)
[ -n "$hca2" ] && [ -n "$hca3" ] && [ -n "$sw2" ] || fail "LIDs not found (Hca2 '$hca2', Hca3 '$hca3', Switch2 '$sw2')"
check_tables() { # check_tables CA_LOW_WEIGHT_OF_VL1
    expect "Hca2 SL2VL (ca)" "$(sl2vl_row "$hca2" 0 0)" "0,0,1,0,0,2,0,0,0,0,0,0,0,0,0,0"
    expect "Hca3 SL2VL (group storage)" "$(sl2vl_row "$hca3" 0 0)" "0,0,2,0,0,1,0,0,0,0,0,0,0,0,0,0"
    expect "Switch2 SL2VL in 3 out 1 (switch)" "$(sl2vl_row "$sw2" 3 1)" "0,0,1,0,0,2,0,0,0,0,0,0,0,0,0,0"
    expect "Switch2 SL2VL in 0 out 1 (switch_port0)" "$(sl2vl_row "$sw2" 0 1)" "0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0"
    expect "Hca2 VLArb low (ca)" "$(vlarb "$hca2" 1 low)" "0:64 1:$1 "
    expect "Hca2 VLArb high (ca)" "$(vlarb "$hca2" 1 high)" "2:32 "
    expect "Hca3 VLArb low (group storage)" "$(vlarb "$hca3" 1 low)" "2:200 0:10 "
    expect "Hca3 VLArb high (group storage)" "$(vlarb "$hca3" 1 high)" ""
    expect "Switch2 port 3 VLArb low (switch)" "$(vlarb "$sw2" 3 low)" "0:128 2:4 "
    expect "Switch2 port 3 VLArb high (switch)" "$(vlarb "$sw2" 3 high)" "1:8 "
}
check_tables 16

echo "--- ibsmd --foreground: SIGHUP with a new weight reprograms, one that cannot fit is refused"
(cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" \
    LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground --config "$CFG") > "$WORK/fg.log" 2>&1 &
FG_PID=$!
trap 'rc=$?; kill $FG_PID 2> /dev/null && wait $FG_PID 2> /dev/null || true; ibsim_cleanup $rc' EXIT
wait_count() { # wait_count PATTERN N: until PATTERN is in the log N times
    for _ in $(seq 1 300); do
        [ "$(grep -c "$1" "$WORK/fg.log" || true)" -ge "$2" ] && return 0
        kill -0 "$FG_PID" 2> /dev/null || { cat "$WORK/fg.log" >&2; fail "ibsmd --foreground exited early"; }
        sleep 0.1
    done
    cat "$WORK/fg.log" >&2
    fail "timed out waiting for '$1' ($2 times)"
}
wait_count "SUBNET UP" 1
policy 48 2 > "$CFG"
kill -HUP "$FG_PID"
wait_count "SUBNET UP" 2
grep -q "reload: new configuration applied" "$WORK/fg.log" || fail "the reload was not applied"
check_tables 48

policy 48 5 > "$CFG"
kill -HUP "$FG_PID"
wait_count "reload refused" 1
wait_count "SUBNET UP" 3
refusal="qos: the policy does not fit routing.max_vls 6: sl2vl.ca maps SL 5 to VL 5: qos has 2 levels in 3 SL classes and 6 VL bands, ports carry 4 VLs: 6 > 4"
grep -F "reload refused" "$WORK/fg.log"
grep -qF "reload refused, keeping the running configuration: $refusal" "$WORK/fg.log" || fail "the refusal does not give the numbers"
kill -0 "$FG_PID" 2> /dev/null || fail "the daemon stopped after a refused reload"
check_tables 48
kill -TERM "$FG_PID"
rc=0; wait "$FG_PID" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/fg.log" >&2; fail "exit $rc after SIGTERM"; }

echo "--- the same policy at start: a configuration error"
rc=0; sim "$IBSMD" --once --config "$CFG" 2> "$WORK/bad.log" || rc=$?
cat "$WORK/bad.log"
[ "$rc" -eq 78 ] || fail "expected exit 78 (configuration error), got $rc"
grep -qF "$refusal" "$WORK/bad.log" || fail "the start-up error does not give the numbers"
echo "PASS"
