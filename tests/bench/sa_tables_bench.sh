#!/usr/bin/env bash
# Whole SA tables read by a stock client on ibsim, ibsmd's SA against
# OpenSM's on the same generated fabric in the same run (each SM on a
# freshly started ibsim): `saquery -N` (every NodeRecord), `saquery PIR`
# (every PortInfoRecord) and `saquery -p` (every PathRecord), each through
# scripts/ibsim-client (umad2sim + libibsim-rmpp.so: RMPP reassembly and
# ACKs in the client, as the kernel does on hardware; OpenSM's SA, which
# leaves RMPP to the kernel, is segmented by the same library). Prints per
# SM and table: records, seconds, records per second.
#
# Every segment crosses ibsim twice (data and, per window, the ACK), so the
# simulator's packet rate bounds both SMs; this measures what a client on
# ibsim gets, not what hardware would give.
#
# usage: sa_tables_bench.sh IBSMD IBSM BUILD_DIR [HOSTS]
#   HOSTS: 648 | 3456 | ... (fabrics.sh), default 3456
# env: QUERY_TIMEOUT_S (600: a table not read by then is n/a),
#      OSM_UP_S (300), SKIP_OPENSM=1, TABLES ("N PIR p"), IBSMD_ARGS (more
#      ibsmd options, e.g. --config FILE)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); BUILD=$(realpath "$3")
HOSTS=${4:-3456}
QUERY_TIMEOUT_S=${QUERY_TIMEOUT_S:-600}
OSM_UP_S=${OSM_UP_S:-300}
TABLES=${TABLES:-"N PIR p"}
HERE=$(cd "$(dirname "$0")" && pwd)
CLIENT="$HERE/../../scripts/ibsim-client"
. "$HERE/../integration/ibsim_env.sh"
. "$HERE/fabrics.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$BUILD/ibsim_rmpp/libibsim-rmpp.so" ] || fail "no $BUILD/ibsim_rmpp/libibsim-rmpp.so (ninja -C $BUILD ibsim_rmpp/libibsim-rmpp.so)"

PIDS=()
cleanup_all() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
    ibsim_cleanup
}
trap cleanup_all EXIT

wait_log() { # FILE REGEX TIMEOUT_S
    local i
    for i in $(seq 1 $(($3 * 10))); do
        grep -qE "$2" "$1" 2> /dev/null && return 0
        sleep 0.1
    done
    return 1
}

# shellcheck disable=SC2046
"$IBSM" topogen pgft $(pgft_args "$HOSTS") --out "$WORK/fabric.net" > /dev/null
mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
READER=${CAS[1]}
echo "fabric: $HOSTS hosts, $(grep -c '^Switch' "$WORK/fabric.net") switches; reader $READER; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# quiet FILE: its log has not grown for 5 s (at most 300 s): the SM's
# work after SUBNET UP (dumps, the first counter sweep) is done, so the
# tables are read from an SM at rest.
quiet() {
    local last=-1 size stable=0 i
    for i in $(seq 1 3000); do
        size=$(stat -c %s "$1")
        if [ "$size" = "$last" ]; then
            stable=$((stable + 1))
            [ "$stable" -ge 50 ] && return 0
        else
            stable=0
        fi
        last=$size
        sleep 0.1
    done
}

declare -A RESULT
# read_table SM TABLE: one saquery through the client, timed.
read_table() {
    local sm=$1 t=$2 args pattern start end n rc=0
    case $t in
        N) args=(-N); pattern="NodeRecord dump:" ;;
        PIR) args=(PIR); pattern="PortInfoRecord dump:" ;;
        p) args=(-p); pattern="PathRecord dump:" ;;
    esac
    start=$(date +%s.%N)
    (cd "$WORK" && SIM_HOST=$READER IBSIM_RMPP_STATS=1 timeout "$QUERY_TIMEOUT_S" \
        "$CLIENT" --build "$BUILD" saquery -t $((QUERY_TIMEOUT_S * 1000)) "${args[@]}") \
        > "$WORK/$sm.$t.out" 2> "$WORK/$sm.$t.err" || rc=$?
    end=$(date +%s.%N)
    n=$(grep -c "$pattern" "$WORK/$sm.$t.out" || true)
    if [ "$rc" -ne 0 ] || [ "$n" -eq 0 ]; then
        local why
        why=$(grep -v libibsim-rmpp "$WORK/$sm.$t.err" | tail -n1 || true)
        [ "$rc" -eq 124 ] && why="not read within $QUERY_TIMEOUT_S s"
        RESULT[$sm.$t]="n/a (exit $rc, $n records: $why)"
    else
        RESULT[$sm.$t]=$(awk -v n="$n" -v a="$start" -v b="$end" 'BEGIN { printf "%d records in %.2f s = %.0f records/s", n, b - a, n / (b - a) }')
    fi
    echo "$sm saquery ${args[*]}: ${RESULT[$sm.$t]}"
    grep -h "libibsim-rmpp: sent\|libibsim-rmpp: received\|repaired" "$WORK/$sm.$t.err" | sed 's/^/    /' || true
}

# ---- ibsmd
# shellcheck disable=SC2046
ibsim_start "$WORK/fabric.net" $(ibsim_limits "$WORK/fabric.net")
(cd "$WORK" && SIM_HOST=${CAS[0]} ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground \
    --state-dir "$WORK/state" --log-level info ${IBSMD_ARGS:-}) > "$WORK/ibsmd.log" 2>&1 &
SM_PID=$!
PIDS+=("$SM_PID")
wait_log "$WORK/ibsmd.log" "SUBNET (UP|DEGRADED)" 300 || { tail "$WORK/ibsmd.log" >&2; fail "ibsmd not up within 300 s"; }
quiet "$WORK/ibsmd.log"
echo "ibsmd: $(grep -m1 -oE 'SUBNET (UP|DEGRADED) \(generation 1[^)]*\).*' "$WORK/ibsmd.log" | cut -c1-120)"
for t in $TABLES; do read_table ibsmd "$t"; done
kill -TERM "$SM_PID"; wait "$SM_PID" 2> /dev/null || true
grep -E "SA: " "$WORK/ibsmd.log" | tail -n 1 | sed 's/^.*SA:/ibsmd SA:/' || true
ibsim_stop

# ---- OpenSM
if [ -z "${SKIP_OPENSM:-}" ]; then
    command -v opensm > /dev/null || fail "opensm not found (apt-get install opensm)"
    rm -f "$WORK/console"
    # shellcheck disable=SC2046
    ibsim_start "$WORK/fabric.net" $(ibsim_limits "$WORK/fabric.net")
    mkdir -p "$WORK/osm/cache"
    opensm -c "$WORK/osm/osm.conf" > /dev/null 2>&1 || true
    sed -i -e 's/^force_log_flush .*/force_log_flush TRUE/' -e "s|^log_file .*|log_file $WORK/osm/osm.log|" "$WORK/osm/osm.conf"
    (cd "$WORK/osm" && SIM_HOST=${CAS[0]} OSM_CACHE_DIR="$WORK/osm/cache" IBSIM_RMPP_STATS=1 \
        exec "$CLIENT" --build "$BUILD" opensm -F "$WORK/osm/osm.conf" -R ftree) > "$WORK/osm/osm.out" 2>&1 &
    OSM_PID=$!
    PIDS+=("$OSM_PID")
    if wait_log "$WORK/osm/osm.log" "SUBNET UP" "$OSM_UP_S"; then
        quiet "$WORK/osm/osm.log"
        echo "OpenSM: SUBNET UP"
        for t in $TABLES; do read_table opensm "$t"; done
    else
        echo "OpenSM: no SUBNET UP within $OSM_UP_S s"
        for t in $TABLES; do RESULT[opensm.$t]="n/a (not up)"; done
    fi
    kill "$OSM_PID" 2> /dev/null || true
    wait "$OSM_PID" 2> /dev/null || true
    ibsim_stop
fi

echo
printf '%-6s %-58s %s\n' table ibsmd OpenSM
for t in $TABLES; do
    printf '%-6s %-58s %s\n' "$t" "${RESULT[ibsmd.$t]}" "${RESULT[opensm.$t]:-skipped}"
done
