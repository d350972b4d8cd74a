#!/usr/bin/env bash
# Where the SM's memory goes in a bring-up: per fabric (fabrics.sh, default
# 3 456 hosts), on a fresh ibsim, `ibsmd --once` under /usr/bin/time:
#   max RSS     the process's maximum resident set (docs/scale.md's RSS
#               column; targets <= 300 MB at 27 648 hosts, <= 400 MB at 43 776)
# With HEAPTRACK=1 the run goes under heaptrack instead (slow: minutes at
# 27 648 hosts) and the script prints heaptrack_print's peak heap and the
# allocation sites that contribute most to it (TOP, default 25); the raw
# profile stays in $HEAPTRACK_OUT (default: the scratch directory, removed).
#
# usage: memory_bench.sh IBSMD IBSM [HOSTS...]
#   meson setup build-rel --buildtype=release -Dtests=false
#   ninja -C build-rel -j2 daemon/ibsmd tools/ibsm
#   tests/bench/memory_bench.sh build-rel/daemon/ibsmd build-rel/tools/ibsm 3456 27648 43776
# (heaptrack wants symbols: a -Dbuildtype=debugoptimized build.)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: memory_bench.sh IBSMD IBSM [HOSTS...]" >&2; exit 2; }
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3456)
export IBSIM_READY_S=${IBSIM_READY_S:-900}
. "$(dirname "$0")/../integration/ibsim_env.sh"
. "$(dirname "$0")/fabrics.sh"

rows=()
for n in "${sizes[@]}"; do
    net="$WORK/pgft-$n.net"
    # shellcheck disable=SC2046
    "$IBSM" topogen pgft $(pgft_args "$n") --out "$net" > /dev/null
    ibsim_start "$net"
    log="$WORK/ibsmd-$n.log"
    if [ "${HEAPTRACK:-0}" = 1 ]; then
        out=${HEAPTRACK_OUT:-$WORK}/heaptrack-ibsmd-$n
        sim heaptrack -o "$out" "$IBSMD" --once --state-dir "$WORK/state-$n" 2> "$log" > "$WORK/heaptrack-$n.out" || true
        ibsim_stop
        grep -m1 "SUBNET UP" "$log" > /dev/null || fail "ibsmd did not bring $n hosts up: $(tail -n 2 "$log")"
        file=$(ls "$out".* | head -n 1)
        echo "== $n hosts: heaptrack ($file)"
        # Peak heap against peak RSS tells heap in use from heap freed but
        # kept by the allocator; the sites are merged by their innermost
        # frames, each with its few heaviest callers.
        heaptrack_print -f "$file" -p 1 -a 0 -T 0 -l 0 -n "${TOP:-25}" -s 3 | sed -n '/PEAK MEMORY CONSUMERS/,$p'
        continue
    fi
    sim /usr/bin/time -f "maxrss_kb %M" "$IBSMD" --once --state-dir "$WORK/state-$n" 2> "$log" || true
    ibsim_stop
    grep -m1 "SUBNET UP" "$log" > /dev/null || fail "ibsmd did not bring $n hosts up: $(tail -n 2 "$log")"
    rss=$(sed -n 's/^maxrss_kb \([0-9]*\)$/\1/p' "$log")
    rows+=("$(printf '%-6s %8.0f' "$n" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')")")
done
if [ ${#rows[@]} -gt 0 ]; then
    echo
    echo "ibsmd --once (ftree) on a fresh ibsim; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-6s %8s\n' hosts "RSS[MB]"
    for r in "${rows[@]}"; do echo "$r"; done
fi
