#!/usr/bin/env bash
# Packet-loss benchmark (DEVELOPERS.md, "Packet loss"): bring-up of the 648-host tree with
# ibsim dropping a percentage of the packets at every switch port
# (console `Error "<switch>" <percent>`: each switch port a packet enters, and
# the target port, drops it with that chance; ibsim answers a dropped SMP at
# once with umad status 110). Same runs for ibsmd and OpenSM, each on a freshly
# started ibsim.
#
# Per loss rate and SM:
#   to UP     seconds from launch to the "SUBNET UP" log line ("-": never)
#   exit      the exit status (ibsmd --once: 0 up; OpenSM -o: its own)
#   ACTIVE    ports ACTIVE / ports with link up (iblinkinfo, read after the
#             loss is switched off again, so the check itself loses nothing)
#   analyze   `ibsm analyze` of the live fabric (ibnetdiscover + dump_fts):
#             "complete" when every CA pair is reachable without loops
#   SMPs      PortXmitPkts of the SM's port (every SMP it sent, retries
#             included), and that count against the loss-free run's
#   x time    to UP against the loss-free run of the same SM
# ibsmd --once runs at every rate; at --foreground-rates (default 10) ibsmd
# --foreground runs instead (the service, which resumes a partial outcome)
# and "to UP" is its first SUBNET UP.
#
# Targets: --once up with every port ACTIVE and complete tables at 1 % in
# <= 2x and at 5 % in <= 5x the loss-free time; --foreground up within 10 s
# at 10 %.
#
# usage: loss_bench.sh IBSMD IBSM [RATE...]   (default rates: 0 1 5 10)
# env: FOREGROUND_RATES ("10"), SKIP_OPENSM=1, RUNS (per rate and SM, default 1;
#      the table shows the median time to UP)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
rates=("$@")
[ ${#rates[@]} -eq 0 ] && rates=(0 1 5 10)
read -r -a fg_rates <<< "${FOREGROUND_RATES:-10}"
RUNS=${RUNS:-1}
. "$(dirname "$0")/../integration/ibsim_env.sh"
. "$(dirname "$0")/fabrics.sh"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
xmit_pkts() { sim perfquery 2> /dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }

net="$WORK/ft-648.net"
# shellcheck disable=SC2046
"$IBSM" topogen pgft $(pgft_args 648) --out "$net" >&2
mapfile -t switches < <(sed -n 's/^Switch[[:space:]]*[0-9]* "\([^"]*\)".*/\1/p' "$net")

set_loss() { local sw; for sw in "${switches[@]}"; do ibsim_cmd "Error \"$sw\" $1"; done; sleep 0.3; }

# check_fabric -> "ACTIVE/UP analyze" (loss already off)
check_fabric() {
    sim iblinkinfo > "$WORK/iblinkinfo.txt" 2> /dev/null || true
    local up active verdict
    up=$(grep -c 'LinkUp' "$WORK/iblinkinfo.txt" || true)
    active=$(grep -c 'Active/  LinkUp' "$WORK/iblinkinfo.txt" || true)
    verdict=incomplete
    if sim ibnetdiscover > "$WORK/live.net" 2> /dev/null && sim dump_fts > "$WORK/live.fts" 2> /dev/null &&
        "$IBSM" analyze --topology "$WORK/live.net" --lfts "$WORK/live.fts" > "$WORK/analyze.txt" 2>&1 &&
        grep -qE "ca_to_ca: [0-9]+ pairs, 0 unreachable, 0 looping" "$WORK/analyze.txt"; then
        verdict=complete
    fi
    echo "$active/$up $verdict"
}

# up_seconds LOG T0 KIND: seconds from T0 to the first SUBNET UP line, or "-".
up_seconds() {
    local line ts
    if [ "$3" = ibsmd ]; then
        line=$(grep -m1 "SUBNET UP" "$1" || true)
        [ -n "$line" ] || { echo "-"; return; }
        ts=$(date -d "$(echo "$line" | awk '{ print $1, $2 }')" +%s.%N)
    else
        line=$(grep -m1 "SUBNET UP" "$1" || true)
        [ -n "$line" ] || { echo "-"; return; }
        local secs usec
        secs=$(date -d "$(echo "$line" | awk '{ print $1, $2, $3 }')" +%s)
        usec=$(echo "$line" | awk '{ print $4 }')
        ts=$(awk -v s="$secs" -v u="$usec" 'BEGIN { printf "%.6f", s + u / 1e6 }')
    fi
    elapsed "$2" "$ts"
}

# run_sm SM RATE I -> "to_up exit active analyze smps"
run_sm() {
    local sm=$1 rate=$2 i=$3 log="$WORK/$1-$2-$3.log" rc=0 t0 up
    ibsim_start "$net"
    [ "$rate" != 0 ] && set_loss "$rate"
    t0=$(now)
    case $sm in
    ibsmd)
        sim "$IBSMD" --once --state-dir "$WORK/state-$rate-$i" 2> "$log" || rc=$?
        ;;
    ibsmd-fg)
        (cd "$WORK" && LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground --state-dir "$WORK/state-fg-$rate-$i" \
            2> "$log") &
        local fg=$!
        # Up to 30 s: the target is 10 s, longer shows how far off it is.
        for _ in $(seq 1 300); do grep -q "SUBNET UP" "$log" 2> /dev/null && break; sleep 0.1; done
        kill "$fg" 2> /dev/null || true
        wait "$fg" 2> /dev/null || rc=$?
        ;;
    opensm)
        mkdir -p "$WORK/osm-cache-$rate-$i"
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache-$rate-$i" LD_PRELOAD="$SIM_PRELOAD" \
            timeout 300 opensm -o -R ftree -f "$log" > "$WORK/osm.out" 2>&1) || rc=$?
        ;;
    esac
    up=$(up_seconds "$log" "$t0" "$([ "$sm" = opensm ] && echo opensm || echo ibsmd)")
    [ "$rate" != 0 ] && set_loss 0
    local smps fabric
    smps=$(xmit_pkts)
    fabric=$(check_fabric)
    ibsim_stop
    echo "$up $rc $fabric $smps"
}

declare -A base_up base_smps
rows=()
sms=(ibsmd)
[ -z "${SKIP_OPENSM:-}" ] && sms+=(opensm)
for rate in "${rates[@]}"; do
    for sm in "${sms[@]}"; do
        run_kind=$sm
        if [ "$sm" = ibsmd ]; then
            for r in "${fg_rates[@]}"; do [ "$r" = "$rate" ] && run_kind=ibsmd-fg; done
        fi
        ups=(); last=""
        for i in $(seq 1 "$RUNS"); do
            res=$(run_sm "$run_kind" "$rate" "$i")
            echo "  $run_kind $rate % run $i: $res" >&2
            ups+=("$(echo "$res" | awk '{ print $1 }')")
            last=$res
        done
        up=$(printf '%s\n' "${ups[@]}" | { grep -v '^-$' || true; } | median)
        [ "$(printf '%s\n' "${ups[@]}" | grep -c '^-$' || true)" -gt 0 ] && up="$up ($(printf '%s\n' "${ups[@]}" | grep -c '^-$') never)"
        read -r _ rc active verdict smps <<< "$last"
        if [ "$rate" = 0 ]; then base_up[$sm]=${up%% *}; base_smps[$sm]=$smps; fi
        xtime=$(awk -v a="${up%% *}" -v b="${base_up[$sm]:-}" 'BEGIN { if (a != "-" && b + 0 > 0) printf "%.2fx", a / b; else print "-" }')
        xsmps=$(awk -v a="$smps" -v b="${base_smps[$sm]:-}" 'BEGIN { if (b + 0 > 0 && a != "") printf "%.2fx", a / b; else print "-" }')
        rows+=("$(printf '%-5s %-14s %12s %6s %5s %11s %-10s %8s %7s' "$rate" "$run_kind" "$up" "$xtime" "$rc" "$active" "$verdict" "$smps" "$xsmps")")
    done
done

echo
echo "648-host tree ($(pgft_args 648)), loss at every switch port; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); runs per cell: $RUNS"
printf '%-5s %-14s %12s %6s %5s %11s %-10s %8s %7s\n' "loss%" SM "to UP[s]" "x time" exit "ACTIVE/up" analyze SMPs "x SMPs"
for r in "${rows[@]}"; do echo "$r"; done
