#!/usr/bin/env bash
# The metrics endpoint on a live ibsmd (release build) in ibsim, per fabric
# (fabrics.sh's PGFTs, default 3 456 and 27 648 hosts), with the default
# metrics.port_series (`fabric`; PORT_SERIES to choose another):
#   bring the fabric up (ftree, light sweeps off, no dumps, perf.window 64,
#   perf.interval_s PERF_S), wait for the second counter sweep (rates need
#   two reads), then SCRAPES scrapes with `curl --compressed`, one after the
#   other. Printed: series in the text, bytes raw and gzipped (curl's
#   size_download is the gzipped body), the scrape's wall time (curl's
#   time_total, median), and the SM's CPU per scrape: utime + stime of the
#   ibsmd process (/proc/PID/stat, every thread: the loop's share and the
#   render thread's) over the scrapes, less its CPU over an equally long
#   quiet stretch without scrapes just before (the counter poller's and
#   timers' share), divided by SCRAPES. Both stretches run right after the
#   second counter sweep and take seconds; the third starts PERF_S after it.
#
# usage: metrics_bench.sh IBSMD IBSM [HOSTS...]
# env: SCRAPES (default 10), PERF_S (default 60), PORT_SERIES (default fabric)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
shift 2
SIZES=("${@:-3456 27648}")
read -r -a SIZES <<< "${SIZES[*]}"
SCRAPES=${SCRAPES:-10}
PERF_S=${PERF_S:-60}
PORT_SERIES=${PORT_SERIES:-fabric}
BENCH=$(cd "$(dirname "$0")" && pwd)
HERE=$BENCH/../integration
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$BENCH/fabrics.sh"
command -v curl > /dev/null || fail "curl is not installed"
trap 'sm_stop_on_exit' EXIT
ticks=$(getconf CLK_TCK)
# cpu PID: utime + stime in seconds (fields 14 and 15 of /proc/PID/stat).
cpu() { awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.3f\n", ($12 + $13) / t }' "/proc/$1/stat"; }

printf '%-7s %-7s %9s %12s %11s %10s %12s\n' hosts series samples "raw bytes" "gzip bytes" "scrape s" "SM CPU/scrape"
for hosts in "${SIZES[@]}"; do
    net=$WORK/ft-$hosts.net
    # shellcheck disable=SC2046
    "$IBSM" topogen pgft $(pgft_args "$hosts") --out "$net" > /dev/null
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$WORK/ibsmd-$hosts.yaml" << YAML
state_dir: $WORK/state-$hosts
routing:
  engines: [ftree]
sweep:
  interval_s: 0
dump:
  lfts: false
  topology: false
  summary: false
  sl: false
perf:
  interval_s: $PERF_S
  window: 64
metrics:
  listen: $PORT
  port_series: $PORT_SERIES
log:
  level: info
YAML
    ibsim_start "$net"
    sm_start "$WORK/ibsmd-$hosts.log" --foreground --config "$WORK/ibsmd-$hosts.yaml"
    sm_wait_for 0 "SUBNET UP" 1800
    # Rates need two reads: the first counter sweep runs at SUBNET UP, the
    # second PERF_S later.
    sm_wait_for 0 "counter sweep 2 " $((PERF_S * 2 + 1800))
    sleep 5 # the status publish after the sweep
    url=http://127.0.0.1:$PORT/metrics
    curl -sS --compressed -o "$WORK/scrape-$hosts.prom" "$url"
    samples=$(grep -vc '^#' "$WORK/scrape-$hosts.prom")
    raw=$(stat -c %s "$WORK/scrape-$hosts.prom")
    # Quiet stretch as long as the scrapes will take (estimated from one).
    one=$(curl -sS --compressed -o /dev/null -w '%{time_total}' "$url")
    quiet=$(awk -v t="$one" -v n="$SCRAPES" 'BEGIN { printf "%.1f", t * n + 1 }')
    c0=$(cpu "$SM_PID"); sleep "$quiet"; c1=$(cpu "$SM_PID")
    times=()
    t0=$(date +%s.%N)
    for i in $(seq 1 "$SCRAPES"); do
        times+=("$(curl -sS --compressed -o /dev/null -w '%{time_total} %{size_download}' "$url")")
    done
    t1=$(date +%s.%N)
    c2=$(cpu "$SM_PID")
    gz=$(printf '%s\n' "${times[@]}" | awk '{ print $2 }' | sort -n | tail -n1)
    med=$(printf '%s\n' "${times[@]}" | awk '{ print $1 }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    per=$(awk -v q="$(awk -v a="$c1" -v b="$c0" 'BEGIN { print a - b }')" -v s="$(awk -v a="$c2" -v b="$c1" 'BEGIN { print a - b }')" \
        -v qt="$quiet" -v st="$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')" -v n="$SCRAPES" \
        'BEGIN { printf "%.3f", (s - q * st / qt) / n }')
    printf '%-7s %-7s %9s %12s %11s %10s %12s\n' "$hosts" "$PORT_SERIES" "$samples" "$raw" "$gz" "$med" "$per s"
    grep -E "counter sweep 2 " "$SM_LOG" | tail -n1 | cut -c 25- >&2
    kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
    ibsim_stop
done
