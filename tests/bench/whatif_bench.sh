#!/bin/bash
# How long `ibsm whatif --without switch:<a spine>` takes on the benchmark
# fat-trees (fabrics.sh): the fabric read, both routings by ibsmd's default
# chain through the gate, both analyses (EBB over 100 bisections, the
# busiest channel), the LFT block diff. Build release for the figures:
#   meson setup build-rel --buildtype=release -Dtests=false && ninja -C build-rel tools/ibsm
#   tests/bench/whatif_bench.sh build-rel [SIZE...]   SIZE in 648 3456 11664 27648 43776 (default 3456 27648)
# Under `meson test --benchmark` the ibsm binary comes as the argument.
# Prints per size the wall time (GNU time), the peak RSS and the prediction.
set -euo pipefail
if [ $# -ge 1 ] && [ -x "$1" ] && [ ! -d "$1" ]; then
    ibsm=$1
    shift
else
    build=${1:-build-rel}
    [ $# -gt 0 ] && shift
    ibsm=$build/tools/ibsm
fi
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3456 27648)
[ -x "$ibsm" ] || { echo "whatif_bench: build $ibsm first" >&2; exit 1; }
. "$(dirname "$0")/fabrics.sh"
work=$(mktemp -d /tmp/whatif-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '%-7s %-20s %8s %8s %9s %7s %13s %s\n' hosts without wall_s rss_MB ebb_before ebb_after lft_blocks "engine gate cut_off"
for n in "${sizes[@]}"; do
    net=$work/pgft-$n.net
    # shellcheck disable=SC2046
    "$ibsm" topogen pgft $(pgft_args "$n") --out "$net" > /dev/null 2>&1
    # The first switch of the top level: a spine (core) of the tree.
    spine=$(awk '/^Switch/ && /"core-/ { gsub(/"/, "", $3); sub(/^S-/, "0x", $3); print $3; exit }' "$net")
    [ -n "$spine" ] || { echo "whatif_bench: no core switch in $net" >&2; exit 1; }
    /usr/bin/time -f '%e %M' -o "$work/time" "$ibsm" whatif --topology "$net" --without "switch:$spine" --json \
        > "$work/out.json" 2> "$work/err" || [ $? -eq 2 ] || { cat "$work/err" >&2; exit 1; }
    read -r wall rss < "$work/time"
    python3 - "$work/out.json" "$n" "$spine" "$wall" "$rss" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n, spine, wall, rss = sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
print(f"{n:<7} switch:{spine:<13} {wall:8.2f} {rss / 1024:8.0f} {r['ebb_before']:9.4f} {r['ebb_after']:7.4f} "
      f"{r['lft_blocks_changed']:13d} {r['engine']} {r['gate']} {len(r['cut_off'])} (library's own time {r['seconds']:.2f} s)")
PY
done
