#!/usr/bin/env bash
# Discovery benchmark, everything on the same generated fabric
# and the same ibsim in one run:
#   probe   ibsim's raw answer rate: smp_rate_probe keeping K NodeInfo Gets
#           outstanding (K = our window, and 64)
#   ibsmd   `ibsmd --discover-only`: wall time of the sweep, SMPs, SMPs/s
#           (best of RUNS), at the default window 16 and at 64
#   OpenSM  `opensm -o -R ftree` on the same simulator, its discovery time
#           from its own log: "Entering DISCOVERING state" -> "Entering
#           MASTER state" (the first heavy sweep), plus its time to SUBNET UP
# Prints figures; judges nothing. OpenSM runs last because it configures the
# fabric (our discovery does not change it).
#
# usage: discovery_bench.sh IBSMD IBSM PROBE [PGFT args...]
#   default fabric: PGFT(3; 12,12,24; 1,12,12; 1,1,1), 3456 hosts, 720 switches
# env: RUNS (default 3), SKIP_OPENSM=1
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); PROBE=$(realpath "$3"); shift 3
pgft=("$@")
[ ${#pgft[@]} -eq 0 ] && pgft=(--m 12,12,24 --w 1,12,12 --p 1,1,1)
RUNS=${RUNS:-3}
. "$(dirname "$0")/../integration/ibsim_env.sh"

"$IBSM" topogen pgft "${pgft[@]}" --out "$WORK/fabric.net" >&2
nodes=$(grep -cE '^(Switch|Ca)' "$WORK/fabric.net")
switches=$(grep -c '^Switch' "$WORK/fabric.net")
ibsim_start "$WORK/fabric.net"

raw16=$(probe_rate "$PROBE" 16 60000)
raw64=$(probe_rate "$PROBE" 64 60000)

# "discovered N nodes (...), L links in T s: S SMPs, R SMPs/s" -> "T S R"
discover() {
    local best="" line
    for _ in $(seq 1 "$RUNS"); do
        sim "$IBSMD" --discover-only --smp-window "$1" 2> "$WORK/ibsmd.log" || { cat "$WORK/ibsmd.log" >&2; exit 1; }
        line=$(sed -n 's/.* links in \([0-9.]*\) s: \([0-9]*\) SMPs, \([0-9]*\) SMPs\/s.*/\1 \2 \3/p' "$WORK/ibsmd.log")
        if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; then
            best=$line
        fi
    done
    echo "$best"
}
read -r t16 s16 r16 <<< "$(discover 16)"
read -r t64 s64 r64 <<< "$(discover 64)"

osm_disc="n/a"; osm_up="n/a"
if [ -z "${SKIP_OPENSM:-}" ]; then
    mkdir -p "$WORK/osm-cache"
    # Private cache dir: OpenSM must not reuse another run's guid2lid.
    (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache" LD_PRELOAD="$SIM_PRELOAD" \
        timeout 900 opensm -o -R ftree -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1) || true
    ts() { grep -m1 "$1" "$WORK/osm.log" | awk '{ split($3, t, ":"); printf "%.6f", t[1]*3600 + t[2]*60 + t[3] + $4/1e6 }'; }
    d0=$(ts "Entering DISCOVERING state"); d1=$(ts "Entering MASTER state"); up=$(ts "SUBNET UP")
    first=$(head -n1 "$WORK/osm.log" | awk '{ split($3, t, ":"); printf "%.6f", t[1]*3600 + t[2]*60 + t[3] + $4/1e6 }')
    [ -n "$d0" ] && [ -n "$d1" ] && osm_disc=$(awk -v a="$d0" -v b="$d1" 'BEGIN { printf "%.3f", b - a }')
    [ -n "$first" ] && [ -n "$up" ] && osm_up=$(awk -v a="$first" -v b="$up" 'BEGIN { printf "%.3f", b - a }')
fi

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else print "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "n/a") printf "%.1fx", a / b; else print "n/a" }'; }
echo
echo "fabric: PGFT ${pgft[*]}: $nodes nodes, $switches switches"
printf '%-34s %10s %8s %10s %12s\n' "" "time [s]" "SMPs" "SMPs/s" "of raw rate"
printf '%-34s %10s %8s %10s %12s\n' "ibsim raw, 16 outstanding" "" "" "$raw16" ""
printf '%-34s %10s %8s %10s %12s\n' "ibsim raw, 64 outstanding" "" "" "$raw64" ""
printf '%-34s %10s %8s %10s %12s\n' "ibsmd discovery, window 16" "$t16" "$s16" "$r16" "$(pct "$r16" "$raw16")"
printf '%-34s %10s %8s %10s %12s\n' "ibsmd discovery, window 64" "$t64" "$s64" "$r64" "$(pct "$r64" "$raw64")"
printf '%-34s %10s\n' "OpenSM discovery (from its log)" "$osm_disc"
printf '%-34s %10s\n' "OpenSM start to SUBNET UP" "$osm_up"
echo "OpenSM discovery / ibsmd (window 16): $(ratio "$osm_disc" "$t16"); (window 64): $(ratio "$osm_disc" "$t64")"
