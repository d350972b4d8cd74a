#!/bin/bash
# MinHop benchmark: our MinHop compute time (ibsm route) next to OpenSM's
# minhop routing time on the same generated fat-trees, in one run.
#
#   tests/bench/minhop_bench.sh [SIZE...]      SIZE in 648 3456 11664 (default: all)
#
# Environment: IBSM (ibsm binary, default build/tools/ibsm), WORK (scratch
# directory, default a fresh mktemp dir, kept), OSM_TIMEOUT (seconds for one
# OpenSM run, default 900), SKIP_OPENSM=1 to time only ibsm.
#
# Ours: the "routed by minhop (X s)" line `ibsm route` prints (engine only:
# hop tables + LFTs; not LID assignment or file output), plus the whole
# command's wall time.
# OpenSM: it runs once (-o) against ibsim on the same net file with
# -R minhop -D 0x07; its log timestamps (microseconds) give
#   route  = "building routing with 'minhop'" -> "minhop tables configured"
#            (min-hop matrices + LFT computation + queueing the LFT Sets)
#   up     = first log line -> "SUBNET UP".
# Not a timed test: it prints figures, it does not judge them.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
IBSM=${IBSM:-$here/build/tools/ibsm}
WORK=${WORK:-$(mktemp -d /tmp/minhop-bench.XXXXXX)}
OSM_TIMEOUT=${OSM_TIMEOUT:-900}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(648 3456 11664)

[ -x "$IBSM" ] || { echo "no ibsm binary at $IBSM (build first)" >&2; exit 1; }
mkdir -p "$WORK"
echo "work dir: $WORK" >&2

pgft_args() {
    case $1 in
    648) echo "--m 18,36 --w 1,18 --p 1,1" ;;
    3456) echo "--m 12,12,24 --w 1,12,12 --p 1,1,1" ;;
    11664) echo "--m 18,18,36 --w 1,18,18 --p 1,1,1" ;;
    *) echo "unknown size $1 (648, 3456, 11664)" >&2; return 1 ;;
    esac
}

# "Nov 22 18:50:26 264397 [..] ..." -> seconds since midnight, microseconds.
log_seconds() {
    awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6; exit }'
}

ibsim_pid=
cleanup() {
    [ -n "$ibsim_pid" ] && kill "$ibsim_pid" 2>/dev/null || true
    [ -n "${sleeper_pid:-}" ] && kill "$sleeper_pid" 2>/dev/null || true
}
trap cleanup EXIT

run_opensm() { # size net -> prints "route_s up_s" or "n/a n/a"
    local n=$1 net=$2 dir=$WORK/osm-$n
    mkdir -p "$dir/cache"
    rm -f "$dir/cons"
    mkfifo "$dir/cons"
    sleep 100000 > "$dir/cons" &
    sleeper_pid=$!
    local sock="minhopbench-$$-$n"
    IBSIM_SOCKNAME=$sock ibsim -N 15000 -S 2000 -P 100000 -s "$net" < "$dir/cons" > "$dir/ibsim.log" 2>&1 &
    ibsim_pid=$!
    for _ in $(seq 1 600); do
        grep -q "Network simulator ready" "$dir/ibsim.log" 2>/dev/null && break
        kill -0 "$ibsim_pid" 2>/dev/null || break
        sleep 0.2
    done
    if ! grep -q "Network simulator ready" "$dir/ibsim.log"; then
        echo "ibsim did not start on $net (see $dir/ibsim.log)" >&2
        cleanup; ibsim_pid=; echo "n/a n/a"; return
    fi
    rm -f "$dir/osm.log"
    if ! IBSIM_SOCKNAME=$sock LD_PRELOAD=$UMAD2SIM OSM_CACHE_DIR=$dir/cache \
        timeout "$OSM_TIMEOUT" opensm -o -R minhop -D 0x07 -f "$dir/osm.log" > "$dir/osm.out" 2>&1; then
        echo "opensm failed or timed out after ${OSM_TIMEOUT}s on $net (see $dir/osm.log)" >&2
    fi
    kill "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
    kill "$sleeper_pid" 2>/dev/null || true
    ibsim_pid=; sleeper_pid=
    local log=$dir/osm.log t_first t_start t_end t_up
    t_first=$(head -1 "$log" | log_seconds)
    t_start=$(grep -m1 "building routing with 'minhop'" "$log" | log_seconds || true)
    t_end=$(grep -m1 "minhop tables configured" "$log" | log_seconds || true)
    t_up=$(grep -m1 "SUBNET UP" "$log" | log_seconds || true)
    awk -v a="$t_start" -v b="$t_end" -v f="$t_first" -v u="$t_up" 'BEGIN {
        r = (a != "" && b != "") ? sprintf("%.3f", b - a) : "n/a";
        s = (f != "" && u != "") ? sprintf("%.3f", u - f) : "n/a";
        print r, s }'
}

printf "%-7s %-9s %-8s | %-14s %-12s | %-14s %-12s\n" hosts switches lids "ibsm minhop s" "ibsm total s" "opensm route s" "opensm up s"
for n in "${sizes[@]}"; do
    args=$(pgft_args "$n")
    net=$WORK/pgft-$n.net
    # shellcheck disable=SC2086
    "$IBSM" topogen pgft $args --out "$net" >&2
    start=$(date +%s.%N)
    "$IBSM" route --topology "$net" --engine minhop --out "$WORK/route-$n" > "$WORK/route-$n.out" 2> "$WORK/route-$n.err"
    end=$(date +%s.%N)
    ours=$(sed -n 's/.*routed by minhop (\([0-9.]*\) s).*/\1/p' "$WORK/route-$n.err")
    total=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    switches=$(sed -n 's/^switches: //p' "$WORK/route-$n.out")
    lids=$(sed -n 's/^lids: .* top \([0-9]*\),.*/\1/p' "$WORK/route-$n.out")
    if [ "${SKIP_OPENSM:-0}" = 1 ]; then
        osm="skipped skipped"
    else
        osm=$(run_opensm "$n" "$net")
    fi
    read -r osm_route osm_up <<< "$osm"
    printf "%-7s %-9s %-8s | %-14s %-12s | %-14s %-12s\n" "$n" "$switches" "$lids" "$ours" "$total" "$osm_route" "$osm_up"
done
