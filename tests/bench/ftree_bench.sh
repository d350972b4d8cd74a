#!/bin/bash
# Fat-tree routing compute time: ibsmd's `ftree` and `sftree` (via `ibsm route`)
# side by side with OpenSM's ftree routing time read from its log, on the same
# net files (issue 4 §6). Not a timed test: it prints a table.
#
# usage: tests/bench/ftree_bench.sh [BUILD_DIR] [SIZES]
#   BUILD_DIR  a release build (default: build-release next to this checkout)
#   SIZES      any of 648 3456 11664 (default: all three)
# Set NO_OPENSM=1 to skip the OpenSM runs (they need ibsim and take minutes at
# 11664 hosts).
#
# OpenSM: `ibsim -s -N -S -P` with large limits, `opensm -o -R ftree` under
# libumad2sim; its routing time is the span of its log between the first line
# of the routing phase ("ucast_mgr" / "ftree") and the line that reports the
# LFTs done, both timestamped by OpenSM itself.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-release}
sizes=${2:-"648 3456 11664"}
ibsm=$build/tools/ibsm
[ -x "$ibsm" ] || { echo "ftree_bench: $ibsm not found (meson setup $build -Dbuildtype=release)" >&2; exit 1; }
work=$(mktemp -d /tmp/ftree-bench.XXXXXX)
trap 'cleanup' EXIT
ibsim_pid=""
sleeper_pid=""
cleanup() {
    [ -n "$ibsim_pid" ] && kill "$ibsim_pid" 2>/dev/null || true
    [ -n "$sleeper_pid" ] && kill "$sleeper_pid" 2>/dev/null || true
    rm -rf "$work"
}

pgft_args() {
    case $1 in
        648) echo "--m 18,36 --w 1,18 --p 1,1" ;;
        3456) echo "--m 12,12,24 --w 1,12,12 --p 1,1,1" ;;
        11664) echo "--m 18,18,36 --w 1,18,18 --p 1,1,1" ;;
        *) echo "ftree_bench: unknown size $1" >&2; exit 1 ;;
    esac
}

# "routed by ENGINE (0.066 s)" from ibsm route's progress lines.
ibsm_time() {
    local net=$1 engine=$2
    "$ibsm" route --topology "$net" --out "$work/out-$engine" --engine "$engine" --no-fallback 2>&1 |
        sed -n "s/.*routed by $engine (\([0-9.]*\) s).*/\1/p"
}

# Seconds between two OpenSM log lines (their "Mon DD HH:MM:SS usec" stamps).
log_seconds() {
    awk -v a="$2" -v b="$3" '
        function t(line,   f) { split(line, f, " "); split(f[3], h, ":"); return h[1]*3600 + h[2]*60 + h[3] + f[4]/1e6 }
        start == "" && $0 ~ a { start = t($0) }
        start != "" && $0 ~ b { end = t($0) }
        END { if (start != "" && end != "") printf "%.3f", end - start; else printf "n/a" }' "$1"
}

opensm_time() {
    local net=$1 tag=$2
    [ "${NO_OPENSM:-0}" = 1 ] && { echo "skipped"; return; }
    command -v ibsim >/dev/null && command -v opensm >/dev/null || { echo "n/a"; return; }
    local sock="ftree-bench-$$-$tag" cons="$work/cons-$tag" log="$work/opensm-$tag.log"
    mkfifo "$cons"
    sleep 100000 > "$cons" & sleeper_pid=$!
    IBSIM_SOCKNAME=$sock ibsim -s -N 60000 -S 8000 -P 600000 "$net" < "$cons" > "$work/ibsim-$tag.log" 2>&1 &
    ibsim_pid=$!
    sleep 3
    IBSIM_SOCKNAME=$sock LD_PRELOAD=$(dpkg -L libumad2sim0 | grep 'libumad2sim.so$' | head -1) \
        timeout 900 opensm -o -R ftree -f "$log" > "$work/opensm-$tag.out" 2>&1 || true
    kill "$ibsim_pid" 2>/dev/null || true; ibsim_pid=""
    kill "$sleeper_pid" 2>/dev/null || true; sleeper_pid=""
    log_seconds "$log" "ucast_mgr_process|ftree_construct_fabric|Fat-tree routing" \
        "ucast_mgr_process: .*(LFT|done)|Fat-tree routing .*(done|finished)|fabric_route"
}

printf "%-8s %-40s %12s %12s %14s\n" hosts fabric "ftree (s)" "sftree (s)" "OpenSM ftree (s)"
for n in $sizes; do
    net=$work/pgft-$n.net
    "$ibsm" topogen pgft $(pgft_args "$n") --out "$net" > /dev/null
    f=$(ibsm_time "$net" ftree)
    s=$(ibsm_time "$net" sftree)
    o=$(opensm_time "$net" "$n")
    printf "%-8s %-40s %12s %12s %14s\n" "$n" "PGFT($(pgft_args "$n" | tr -s ' '))" "$f" "$s" "$o"
done
