#!/usr/bin/env bash
# M_Key on ibsim, PGFT(2; 2,4; 1,2; 1,1), security.mkey per-port at protect
# level 1 (docs/operations.md, "M_Key"):
#  - a secret file of mode 0644 is refused at start, the message naming the
#    path and the mode;
#  - the subnet comes up routed (`ibsm analyze` on the read-back: 0
#    unreachable, no loop); `ibsm mkey show` gives every port (CA ports,
#    switch port 0 by node GUID) a key, none 0, no two alike; the secret
#    itself is in no log line and no file of the state directory;
#  - ibsim stores no M_Key (its PortInfo Set ignores the field), so
#    `smpquery --show_keys portinfo` reads 0; a simulator that stored it
#    would have to show the SM's key for the SM's own port (checked either
#    way);
#  - `ibsm mkey rotate` with the secret unchanged is refused naming the
#    file; after a new secret is written it re-keys: the log says the
#    rotation completed, every key changed, the fabric is still routed, and
#    metrics.prom / `ibsm status` count the rotation;
#  - a SIGHUP with the file made 0644 is refused (keys unchanged, daemon
#    running); back to 0600 with another secret, the SIGHUP rotates.
#
# usage: mkey_rotation.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LINKS=$(( $(grep -c '^\[' "$WORK/fabric.net") / 2 ))
HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
SOCK=$WORK/ctl/control.sock
SECRET=$WORK/mkey.secret
new_secret() { od -An -tx1 -N16 /dev/urandom | tr -d ' \n'; }
write_secret() { # write_secret HEX
    rm -f "$SECRET"
    (umask 077 && printf '# M_Key secret of the test fabric\n%s\n' "$1" > "$SECRET")
}
cat > "$WORK/ibsmd.yaml" << EOF
state_dir: $STATE
control: {socket: $SOCK}
security:
  mkey: {mode: per-port, secret_file: $SECRET, protect_bits: 1, lease_period_s: 60}
EOF

echo "--- a secret file readable by others is refused at start"
S1=$(new_secret)
write_secret "$S1"
chmod 0644 "$SECRET"
rc=0; sim "$IBSMD" --once --config "$WORK/ibsmd.yaml" 2> "$WORK/loose.log" || rc=$?
grep -i "mkey\|secret" "$WORK/loose.log" || true
[ "$rc" -ne 0 ] || fail "ibsmd started with a secret file of mode 0644"
has -F "$SECRET has mode 0644" "$WORK/loose.log" || fail "the refusal does not name the path and the mode"
chmod 0600 "$SECRET"

# keys TAG: every port's key as the SM holds it, "GUID KEY" per line, in
# $WORK/TAG.keys (CA ports by port GUID, switches by node GUID).
keys() {
    sim ibnetdiscover 2> /dev/null | awk '
        /^switchguid=0x/ { sub(/^switchguid=0x/, ""); sub(/\(.*/, ""); print }
        /^Ca/ { ca = 1; next } /^$/ { ca = 0 }
        ca && /^\[[0-9]+\]\(/ { sub(/^\[[0-9]+\]\(/, ""); sub(/\).*/, ""); print }' |
        while read -r hex; do printf '0x%016x\n' "0x$hex"; done | sort -u > "$WORK/$1.guids"
    [ "$(wc -l < "$WORK/$1.guids")" -eq $((HOSTS + SWITCHES)) ] ||
        fail "$1: $(wc -l < "$WORK/$1.guids") GUIDs read, expected $((HOSTS + SWITCHES))"
    : > "$WORK/$1.keys"
    local g k
    while read -r g; do
        k=$("$IBSM" mkey show --socket "$SOCK" --json "$g" | python3 -c 'import json, sys; print(json.load(sys.stdin)["held"])') ||
            fail "$1: ibsm mkey show $g"
        case $k in 0x0000000000000000 | None) fail "$1: port $g holds no key ($k)" ;; esac
        echo "$g $k" >> "$WORK/$1.keys"
    done < "$WORK/$1.guids"
    [ "$(cut -d' ' -f2 "$WORK/$1.keys" | sort -u | wc -l)" -eq "$(wc -l < "$WORK/$1.keys")" ] ||
        fail "$1: two ports share a key"
    echo "$1: $(wc -l < "$WORK/$1.keys") ports keyed, every key different"
}
# secret_nowhere HEX: neither the log nor the state directory holds it.
secret_nowhere() {
    ! grep -rqi "$1" "$SM_LOG" "$STATE" || fail "the secret is written in the log or the state directory"
}

echo "--- bring-up with per-port M_Keys"
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --log-level info
sm_wait_up 0 60
has "M_Key protection on: per-port keys" "$SM_LOG" || fail "the log does not say M_Key is on"
check_fabric keyed "$HOSTS" "$SWITCHES" "$LINKS"
keys first
secret_nowhere "$S1"
SM_KEY=$(awk -v g="$SM_GUID" '$1 == g { print $2 }' "$WORK/first.keys")
# --show_keys: smpquery hides the M_Key otherwise; --m_key: the Get carries
# the port's key, as a port at level 1 shows its key only then.
SHOWN=$(sim smpquery --show_keys --m_key "$SM_KEY" -D portinfo 0 1 2> /dev/null | sed -n 's/^Mkey:\.*//p')
echo "smpquery portinfo of the SM's port: M_Key '$SHOWN' (the SM holds $SM_KEY)"
case $SHOWN in 0x*) ;; *) fail "smpquery shows no M_Key ('$SHOWN')" ;; esac
if [ "$((SHOWN))" -eq 0 ]; then
    echo "ibsim stores no M_Key: nothing to read back beyond the SM's own book"
else
    [ "$((SHOWN))" -eq "$((SM_KEY))" ] || fail "the port shows M_Key $SHOWN, the SM holds $SM_KEY"
fi

echo "--- ibsm mkey rotate"
rc=0; "$IBSM" mkey rotate --socket "$SOCK" 2> "$WORK/same.err" || rc=$?
cat "$WORK/same.err"
[ "$rc" -eq 1 ] && has -F "$SECRET holds the secret in use" "$WORK/same.err" ||
    fail "a rotation with the secret unchanged: rc $rc"
rc=0; "$IBSM" mkey show --socket "$SOCK" 0x00000000deadbeef 2> "$WORK/unknown.err" || rc=$?
[ "$rc" -eq 1 ] && has "no port with GUID 0x00000000deadbeef" "$WORK/unknown.err" || fail "mkey show of an unknown GUID: rc $rc"
S2=$(new_secret)
write_secret "$S2"
n=$(sm_lines)
"$IBSM" mkey rotate --socket "$SOCK" | tee "$WORK/rotate.out"
has "M_Key rotation started" "$WORK/rotate.out" || fail "ibsm mkey rotate did not start a rotation"
sm_wait_for "$n" "M_Key rotation complete" 60
sm_wait_up "$n" 60
check_fabric rotated "$HOSTS" "$SWITCHES" "$LINKS"
keys rotated
changed() { # changed A B: every port's key differs between the two
    join "$WORK/$1.keys" "$WORK/$2.keys" | awk -v a="$1" -v b="$2" '
        $2 == $3 { print "FAIL: " $1 " kept its key from " a " to " b > "/dev/stderr"; bad = 1 } END { exit bad }' ||
        fail "a port kept its key"
}
changed first rotated
secret_nowhere "$S2"
for i in $(seq 1 60); do grep -q '^ibsmd_mkey_rotations_completed_total 1$' "$STATE/metrics.prom" 2> /dev/null && break; sleep 0.2; done
grep '^ibsmd_mkey_' "$STATE/metrics.prom"
has '^ibsmd_mkey_rotations_completed_total 1$' "$STATE/metrics.prom" || fail "metrics.prom does not count the rotation"
"$IBSM" status --state-dir "$STATE" | grep "^M_Key:" | tee "$WORK/status.line"
has "per-port, protect bits 1, lease 60 s" "$WORK/status.line" && has ", 1 rotations" "$WORK/status.line" ||
    fail "ibsm status does not show the M_Key line"

echo "--- SIGHUP: a refused secret file keeps the keys, a new secret rotates"
chmod 0644 "$SECRET"
n=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$n" "reload refused, keeping the running configuration: security.mkey.secret_file: $SECRET has mode 0644"
sm_wait_up "$n" 60
sm_alive
keys refused
join "$WORK/rotated.keys" "$WORK/refused.keys" | awk '$2 != $3 { exit 1 }' || fail "a refused reload changed keys"
S3=$(new_secret)
write_secret "$S3"
n=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$n" "reload: M_Key rotation started" 30
sm_wait_for "$n" "M_Key rotation complete" 60
sm_wait_up "$n" 60
check_fabric reloaded "$HOSTS" "$SWITCHES" "$LINKS"
keys reloaded
changed rotated reloaded
secret_nowhere "$S3"
echo "PASS"
