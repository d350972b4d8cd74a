#!/usr/bin/env bash
# The daemon at the end of the LID space, beside its targets: per fabric
# (default 27 648 and 43 776 hosts, fabrics.sh), on a fresh ibsim,
# `ibsmd --once` under /usr/bin/time, then the gate alone:
#   max RSS      ibsmd's maximum resident set (target <= 300 MB at 27 648
#                hosts, <= 400 MB at 43 776)
#   route        the "phase route" line: ftree + the verification gate
#   gate         gate_bench's median, ftree's tables, all cores (target <= 1 s)
#   UP->exit     from the "SUBNET UP" log line to the process's exit, i.e.
#                the dumps (target <= 2 s)
#   dumps        bytes written to the state directory
# When ibsim cannot load a fabric, the line says so with ibsim's error.
#
# usage: scale_bench.sh IBSMD IBSM GATE_BENCH [HOSTS...]
# Build release for the figures that count:
#   meson setup build-rel --buildtype=release -Dtests=true
#   ninja -C build-rel -j2 daemon/ibsmd tools/ibsm tests/bench/gate_bench
#   tests/bench/scale_bench.sh build-rel/daemon/ibsmd build-rel/tools/ibsm build-rel/tests/bench/gate_bench
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: scale_bench.sh IBSMD IBSM GATE_BENCH [HOSTS...]" >&2; exit 2; }
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); GATE=$(realpath "$3"); shift 3
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(27648 43776)
export IBSIM_READY_S=${IBSIM_READY_S:-600} # ibsim alone loads 27 648 hosts in ~50 s
. "$(dirname "$0")/../integration/ibsim_env.sh"
. "$(dirname "$0")/fabrics.sh"

# "YYYY-mm-dd HH:MM:SS.mmm" of a log line -> epoch seconds.
stamp() { date -d "$(echo "$1" | awk '{ print $1, $2 }')" +%s.%N; }
rss_target() { case $1 in 27648) echo "<= 300 MB" ;; 43776) echo "<= 400 MB" ;; *) echo "-" ;; esac; }

rows=()
loading=
print_table() {
    [ -n "$loading" ] && rows+=("$(printf '%-6s ibsim did not load it (why: above and in its log)' "$loading")")
    echo
    echo "ibsmd --once (ftree) on a fresh ibsim; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-6s %-22s %9s %20s %15s %11s\n' hosts "max RSS (target)" "route" "gate median" "UP->exit" dumps
    for r in "${rows[@]}"; do echo "$r"; done
}
trap 'rc=$?; print_table; ibsim_cleanup $rc' EXIT
for n in "${sizes[@]}"; do
    net="$WORK/pgft-$n.net"
    # shellcheck disable=SC2046
    "$IBSM" topogen pgft $(pgft_args "$n") --out "$net" > /dev/null
    # ibsim_start exits when ibsim cannot load the fabric; the EXIT trap
    # then prints the rows so far, this one, and ibsim's log.
    loading=$n
    ibsim_start "$net"
    loading=
    state="$WORK/state-$n"
    sim /usr/bin/time -f "maxrss_kb %M" "$IBSMD" --once --state-dir "$state" 2> "$WORK/ibsmd-$n.log" || true
    t_exit=$(date +%s.%N)
    ibsim_stop
    up=$(grep -m1 "SUBNET UP" "$WORK/ibsmd-$n.log" || true)
    if [ -z "$up" ]; then
        rows+=("$(printf '%-6s ibsmd did not bring the subnet up: %s' "$n" "$(tail -n 2 "$WORK/ibsmd-$n.log" | tr '\n' ' ')")")
        continue
    fi
    rss=$(sed -n 's/^maxrss_kb \([0-9]*\)$/\1/p' "$WORK/ibsmd-$n.log")
    route=$(awk '/ phase route / { for (i = 1; i <= NF; i++) if ($i == "route") { print $(i + 1); exit } }' "$WORK/ibsmd-$n.log")
    to_exit=$(awk -v a="$(stamp "$up")" -v b="$t_exit" 'BEGIN { printf "%.2f", b - a }')
    bytes=$(du -sb "$state" | cut -f1)
    rm -rf "$state"
    gate=$("$GATE" --repeat "${REPEAT:-3}" --engine ftree "$net" | awk 'NR > 1 && $4 == "ftree" { print $6 }')
    rows+=("$(printf '%-6s %7.0f MB (%-9s) %7s s %8s ms (<= 1000) %6s s (<= 2) %8.0f MB' "$n" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$(rss_target "$n")" "$route" "$gate" "$to_exit" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')")")
done
