#!/usr/bin/env bash
# Bring-up with M_Key on against off (docs/operations.md, "M_Key"): the same
# generated tree, each run on a freshly started ibsim (ports in INIT, no
# LIDs), `ibsmd --once` with security.mkey per-port at protect level 1
# against no security section. Runs are interleaved (off on, on off, ...) so
# a drift of the machine's speed hits both alike.
#
# Per run: the bring-up's own figures from the SUBNET UP line (seconds of
# the heavy sweep, SMPs it sent). Then per mode the median seconds and the
# SMP counts; the target is equal SMP counts (every SMP carries its key,
# none is added) and a median within 5 %. ibsim checks no key, so this
# measures what M_Key costs the SM (the key look-up per SMP, the PortInfo
# Sets' keys), not a fabric's checking.
#
# usage: mkey_bench.sh IBSMD IBSM [HOSTS [RUNS]]   (HOSTS 648 | 3456, default 648; RUNS default 5)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HOSTS=${3:-648}; RUNS=${4:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/ibsim_env.sh"
. "$HERE/fabrics.sh"

net=$WORK/tree-$HOSTS.net
# shellcheck disable=SC2046
"$IBSM" topogen pgft $(pgft_args "$HOSTS") --out "$net" > /dev/null
SECRET=$WORK/mkey.secret
(umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$SECRET")
printf 'state_dir: %s\n' "$WORK/state-off" > "$WORK/off.yaml"
printf 'state_dir: %s\nsecurity:\n  mkey: {mode: per-port, secret_file: %s, protect_bits: 1}\n' \
    "$WORK/state-on" "$SECRET" > "$WORK/on.yaml"

# bringup MODE: "SECONDS SMPS" of one bring-up on a fresh ibsim.
bringup() {
    ibsim_start "$net"
    local log=$WORK/$1.log
    sim "$IBSMD" --once --config "$WORK/$1.yaml" 2> "$log" || { cat "$log" >&2; echo "FAIL: ibsmd --once ($1)" >&2; exit 1; }
    ibsim_stop
    if [ "$1" = on ]; then grep -q "M_Key protection on" "$log" || { echo "FAIL: M_Key not on" >&2; exit 1; }; fi
    grep -m1 "SUBNET UP" "$log" | sed -n 's/.* \([0-9.]*\) s, \([0-9]*\) SMPs .*/\1 \2/p'
}

declare -a t_off t_on s_off s_on
printf '%-4s %-4s %9s %9s\n' run mode seconds SMPs
for i in $(seq 1 "$RUNS"); do
    order="off on"
    [ $((i % 2)) -eq 0 ] && order="on off"
    for mode in $order; do
        read -r secs smps <<< "$(bringup "$mode")"
        [ -n "$smps" ] || { echo "FAIL: no SUBNET UP figures ($mode)" >&2; exit 1; }
        printf '%-4s %-4s %9s %9s\n' "$i" "$mode" "$secs" "$smps"
        if [ "$mode" = on ]; then t_on+=("$secs"); s_on+=("$smps"); else t_off+=("$secs"); s_off+=("$smps"); fi
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m_off=$(median "${t_off[@]}"); m_on=$(median "${t_on[@]}")
smps_off=$(printf '%s\n' "${s_off[@]}" | sort -u | tr '\n' ' '); smps_on=$(printf '%s\n' "${s_on[@]}" | sort -u | tr '\n' ' ')
echo "tree-$HOSTS, $RUNS runs each: median off $m_off s, on $m_on s ($(awk -v a="$m_on" -v b="$m_off" 'BEGIN { printf "%+.1f %%", (a / b - 1) * 100 }')); SMPs off: ${smps_off}on: $smps_on"
[ "$smps_off" = "$smps_on" ] || { echo "FAIL: M_Key changed the SMP count" >&2; exit 1; }
