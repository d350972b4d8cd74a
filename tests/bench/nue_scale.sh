#!/usr/bin/env bash
# nue at scale (issue 36): time (wall and CPU) and maximum RSS of
# `ibsm route --engine nue` at 11 664 hosts, at 1 and 8 VLs, on the
# 3-level tree (fabrics.sh tree-11664, 1 620 switches) and on a 3-D torus
# as large (torus3d-12x12x9: 1 296 switches, 9 hosts each); optionally the
# same with a second ibsm (e.g. main's) for a before/after table. Not a
# timed test: it prints a table; the targets (nue <= 5 s and <= 400 MB) are
# read from it into docs/scale.md.
#
#   tests/bench/nue_scale.sh [BUILD_DIR [BEFORE_IBSM]]
#     BUILD_DIR    a release build (default build-rel)
#     BEFORE_IBSM  another ibsm binary to measure the same way (e.g. a copy of
#                  main's build-rel/tools/ibsm), printed as "before"
# env: BEST_OF=N the least of N runs per row (default 1: a row takes up to
#      minutes before issue 36's item 5), VLS (default "1 8"), FABRICS
#      (default "tree-11664 torus3d-12x12x9"), KEEP_WORK=1 keeps the net
#      files and tables.
#
# Columns: engine s = nue's compute alone, wall and CPU (the build's
# tests/bench/engine_time --max-vls N: no gate, no files; "-" for BEFORE,
# whose build may lack it); route s = ibsm's "routed by" line (nue and the
# verification gate, no parsing or file writing); CPU s = user + system of the whole
# `ibsm route` process (reading the net file, LIDs, nue, the gate, writing
# the tables); wall s of the same; max RSS of the process (GNU time's %M);
# layers / impasses = nue's note. The machine is shared: the load is printed.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-rel}
ibsm=$(realpath "$build/tools/ibsm")
before=${2:-}
[ -x "$ibsm" ] || { echo "nue_scale: $ibsm not found (meson setup $build --buildtype=release)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] || { echo "nue_scale: $before is not executable" >&2; exit 1; }
engine_time=$build/tests/bench/engine_time
[ -x "$engine_time" ] || echo "nue_scale: no $engine_time (ninja -C $build tests/bench/engine_time): no engine column" >&2
[ -x /usr/bin/time ] || { echo "nue_scale: GNU time (/usr/bin/time) is needed for the RSS" >&2; exit 1; }
BEST_OF=${BEST_OF:-1}
VLS=${VLS:-"1 8"}
FABRICS=${FABRICS:-"tree-11664 torus3d-12x12x9"}

. "$here/tests/bench/fabrics.sh"

work=$(mktemp -d /tmp/nue_scale.XXXXXX)
if [ "${KEEP_WORK:-0}" = 1 ]; then echo "work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi

# row LABEL IBSM NET VLS: one table row, the least of BEST_OF runs (by CPU).
row() {
    local label=$1 bin=$2 net=$3 vls=$4 best="" i out
    for ((i = 0; i < BEST_OF; i++)); do
        out=$work/out-$label-$vls
        rm -rf "$out"
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
            "$bin" route --engine nue --no-fallback --max-vls "$vls" --topology "$net" --out "$out" \
            > "$work/log" 2>&1 || { echo "nue_scale: $label at $vls VLs failed:" >&2; tail -5 "$work/log" >&2; return 1; }
        grep -q "^verified:" "$work/log" || { echo "nue_scale: $label at $vls VLs: no verified tables" >&2; return 1; }
        local route wall user sys rss notes
        route=$(sed -n 's/^route time: \([0-9.]*\) s$/\1/p' "$work/log")
        read -r wall user sys rss < "$work/time"
        notes=$(sed -n 's/^note: nue: \([0-9]*\) destination LIDs in \([0-9]*\) layers\{0,1\} .*; \([0-9]*\) impasses repaired.*; \([0-9]*\) LIDs took escape.*/\2 layers, \3 repaired, \4 escaped/p' "$work/log")
        local engine="-"
        if [ "$label" = after ] && [ -x "$engine_time" ]; then
            engine=$("$engine_time" --max-vls "$vls" nue "$net" |
                sed -n 's/.*compute \([0-9.]*\) s wall, \([0-9.]*\) s CPU.*/\1 \/ \2/p')
        fi
        local cpu
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        local line
        line=$(printf '%-7s | %-17s | %3s | %15s | %8s | %7s | %7s | %6.0f | %s' "$label" "$fabric" "$vls" "$engine" \
            "$route" "$cpu" "$wall" "$((rss / 1024))" "$notes")
        if [ -z "$best" ] || awk -v a="$cpu" -v b="${best_cpu}" 'BEGIN { exit !(a < b) }'; then
            best=$line
            best_cpu=$cpu
        fi
    done
    echo "$best"
}

echo "load: $(uptime | sed 's/.*load average: //') ($(nproc) CPUs); best of $BEST_OF"
printf '%-7s | %-17s | %3s | %15s | %8s | %7s | %7s | %6s | %s\n' build fabric VLs "engine s / CPU" "route s" "CPU s" \
    "wall s" "RSS MB" "nue's note"
for fabric in $FABRICS; do
    net=$work/$fabric.net
    fabric_make "$ibsm" "$fabric" "$net"
    for vls in $VLS; do
        [ -z "$before" ] || row before "$before" "$net" "$vls"
        row after "$ibsm" "$net" "$vls"
    done
done
echo "load: $(uptime | sed 's/.*load average: //')"
