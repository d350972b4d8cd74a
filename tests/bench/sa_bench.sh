#!/usr/bin/env bash
# SA benchmark: PathRecord queries answered per second, ibsmd's
# SA vs OpenSM's on the same generated fabric in the same run, each SM on a
# freshly started ibsim; and whether the query load slows ibsmd's sweeps.
#
# Load: tests/tools/sa_client bench on one host keeps OUTSTANDING (64)
# SubnAdmGet(PathRecord) requests (SLID and DLID drawn at random from every
# assigned LID) in flight for SECONDS, counting answers (errors and
# requests unanswered after 1 s are counted apart). Every request and answer
# crosses ibsim, so the simulator's packet rate is a ceiling for both SMs.
#
# Sweeps: with ibsmd up, SIGHUP makes it rediscover, route and reprogram
# (a heavy sweep; LFT blocks already held are not resent); its log gives
# the sweep's seconds ("SUBNET UP (generation N, heavy sweep): ... X s").
# REPS sweeps without load and REPS with the load running, interleaved, are
# compared (median); the SA answers from the last confirmed snapshot
# throughout.
#
# Sizes: with more than one HOSTS each size runs in turn, on its own fresh
# ibsim, and the last table gives every size's rate and its ratio to the
# first size's, beside the target (the largest at least half the smallest:
# `sa_bench.sh ... 3456 27648`, ratio >= 0.50).
#
# usage: sa_bench.sh IBSMD IBSM SA_CLIENT [HOSTS...]
#   HOSTS: 648 | 3456 | 11664 | 27648 | 43776 (fabrics.sh), default 3456
# env: OUTSTANDING (64), SECONDS_LOAD (10), REPS (3; 0 leaves out the heavy
#      sweeps, about a minute each at 27 648 hosts), SKIP_OPENSM=1,
#      OSM_UP_S (300)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); CLIENT=$(realpath "$3")
shift 3
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(3456)
OUTSTANDING=${OUTSTANDING:-64}
SECONDS_LOAD=${SECONDS_LOAD:-10}
REPS=${REPS:-3}
OSM_UP_S=${OSM_UP_S:-300}
HERE=$(cd "$(dirname "$0")" && pwd)
IBSMD_SOURCE_ROOT=${IBSMD_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}
. "$HERE/../integration/ibsim_env.sh"
. "$HERE/fabrics.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

PIDS=()
cleanup_all() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
    ibsim_cleanup
}
trap cleanup_all EXIT

wait_log() { # FILE REGEX TIMEOUT_S [COUNT]
    local i n
    for i in $(seq 1 $(($3 * 10))); do
        n=$(grep -cE "$2" "$1" 2> /dev/null) || n=0
        [ "$n" -ge "${4:-1}" ] && return 0
        sleep 0.1
    done
    return 1
}
load() { SIM_HOST=$LOADER sim "$@"; }
# The highest LID assigned: the load draws SLID and DLID from 1..it.
top_lid() { load ibnetdiscover -p 2> /dev/null | awk '$1 == "CA" || $1 == "SW" { if ($2 > m) m = $2 } END { print m + 0 }'; }
# The SM's LID, by sminfo; asked again for a while: at 27 648 hosts the
# first answer can take longer than sminfo waits while the SM writes its
# first dumps.
sm_lid() {
    local i l
    for i in $(seq 1 20); do
        l=$(load sminfo 2> /dev/null | sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p') || l=""
        [ -n "$l" ] && { echo "$l"; return 0; }
        sleep 1
    done
    return 1
}
qps() { sed -n 's/.* = \([0-9]*\) queries\/s.*/\1/p' <<< "$1"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# bench_size HOSTS: the ibsmd part (and OpenSM's unless SKIP_OPENSM) on one
# fabric; sets OURS and THEIRS (queries/s, THEIRS empty without OpenSM).
bench_size() {
    local HOSTS=$1 SM_PID LOAD_PID lid top up_s ours_line theirs_line r q_med l_med quiet loaded
    rm -f "$WORK/ibsmd.log"
    rm -rf "$WORK/state" "$WORK/osm"
    # shellcheck disable=SC2046
    "$IBSM" topogen pgft $(pgft_args "$HOSTS") --out "$WORK/fabric.net" > /dev/null
    mapfile -t CAS < <(sed -n 's/^Ca\s\+[0-9]\+ "\([^"]*\)".*/\1/p' "$WORK/fabric.net")
    LOADER=${CAS[1]}
    echo "fabric: $HOSTS hosts ($(grep -c '^Switch' "$WORK/fabric.net") switches); load: $OUTSTANDING PathRecord Gets outstanding for ${SECONDS_LOAD} s from $LOADER; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

    # ---- ibsmd
    ibsim_start "$WORK/fabric.net"
    (cd "$WORK" && SIM_HOST=${CAS[0]} LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" --foreground --state-dir "$WORK/state" \
        --log-level info --smp-window 64) > "$WORK/ibsmd.log" 2>&1 &
    SM_PID=$!
    PIDS+=("$SM_PID")
    wait_log "$WORK/ibsmd.log" "SUBNET (UP|DEGRADED)" 300 || { tail "$WORK/ibsmd.log" >&2; fail "ibsmd not up within 300 s"; }
    up_s=$(sed -n 's/.*SUBNET UP (generation 1, heavy sweep): .*, \([0-9.]*\) s, .*/\1/p' "$WORK/ibsmd.log" | head -n1)
    sleep 2
    lid=$(sm_lid) || fail "no SM LID from sminfo"
    # Every LID up to the top the SM logged (no ibnetdiscover, minutes at 27 648 hosts).
    top=$(sed -n 's/.*phase lids .* top LID \([0-9]*\),.*/\1/p' "$WORK/ibsmd.log" | tail -n1)
    [ -n "$lid" ] && [ "${top:-0}" -gt 0 ] || fail "no SM LID from sminfo or top LID in the log"
    echo "ibsmd: SUBNET UP in ${up_s} s (first bring-up), SM LID $lid, LIDs 1..$top"
    ours_line=$(load "$CLIENT" bench "$lid" 1 "$top" --outstanding "$OUTSTANDING" --seconds "$SECONDS_LOAD")
    echo "ibsmd SA:  $ours_line"
    OURS=$(qps "$ours_line")

    ups() { grep -cE "SUBNET (UP|DEGRADED) \(generation [0-9]+, heavy sweep\)" "$WORK/ibsmd.log" || true; }
    sweep_seconds() { # SIGHUP, then the seconds of the heavy sweep it caused
        local before i
        before=$(ups)
        kill -HUP "$SM_PID"
        for i in $(seq 1 3000); do
            if [ "$(ups)" -gt "$before" ]; then
                grep -E "SUBNET (UP|DEGRADED) \(generation [0-9]+, heavy sweep\)" "$WORK/ibsmd.log" | tail -n1 |
                    sed -n 's/.*, \([0-9.]*\) s, .*/\1/p'
                return 0
            fi
            sleep 0.1
        done
        echo "n/a"
    }
    quiet=(); loaded=()
    for r in $(seq 1 "$REPS"); do
        quiet+=("$(sweep_seconds)")
        sleep 1
        # exec: $! is the client itself, so the kill below ends this load
        # (ibsim takes at most 10 clients).
        (cd "$WORK" && SIM_HOST=$LOADER LD_PRELOAD="$SIM_PRELOAD" exec "$CLIENT" bench "$lid" 1 "$top" \
            --outstanding "$OUTSTANDING" --seconds 600) > "$WORK/load-$r.txt" 2>&1 &
        LOAD_PID=$!
        PIDS+=("$LOAD_PID")
        sleep 1
        loaded+=("$(sweep_seconds)")
        kill "$LOAD_PID" 2> /dev/null || true
        wait "$LOAD_PID" 2> /dev/null || true
        sleep 1
    done
    if [ "$REPS" -gt 0 ]; then
        q_med=$(printf '%s\n' "${quiet[@]}" | median)
        l_med=$(printf '%s\n' "${loaded[@]}" | median)
        echo "ibsmd heavy sweeps (SIGHUP -> SUBNET UP), s: without load ${quiet[*]} (median $q_med); with the load ${loaded[*]} (median $l_med); ratio $(awk -v a="$l_med" -v b="$q_med" 'BEGIN { printf "%.3f", a / b }')"
        echo "heavy sweep with / without the load: $(awk -v a="$l_med" -v b="$q_med" 'BEGIN { printf "%+.1f %%", (a / b - 1) * 100 }')"
    fi
    # What the SA answered (from its own counters at exit).
    kill -TERM "$SM_PID"; wait "$SM_PID" 2> /dev/null || true
    grep -E "SA: " "$WORK/ibsmd.log" | tail -n 2 || true
    ibsim_stop

    # ---- OpenSM
    THEIRS=""
    if [ -z "${SKIP_OPENSM:-}" ]; then
        local OSM_PID
        command -v opensm > /dev/null || fail "opensm not found (apt-get install opensm)"
        ibsim_start "$WORK/fabric.net"
        mkdir -p "$WORK/osm/cache"
        opensm -c "$WORK/osm/osm.conf" > /dev/null 2>&1 || true
        sed -i -e 's/^force_log_flush .*/force_log_flush TRUE/' -e "s|^log_file .*|log_file $WORK/osm/osm.log|" \
            "$WORK/osm/osm.conf"
        (cd "$WORK/osm" && SIM_HOST=${CAS[0]} OSM_CACHE_DIR="$WORK/osm/cache" LD_PRELOAD="$SIM_PRELOAD" \
            exec opensm -F "$WORK/osm/osm.conf" -R ftree) > "$WORK/osm/osm.out" 2>&1 &
        OSM_PID=$!
        PIDS+=("$OSM_PID")
        if wait_log "$WORK/osm/osm.log" "SUBNET UP" "$OSM_UP_S"; then
            sleep 2
            lid=$(sm_lid) || fail "no SM LID from sminfo (OpenSM)"
            top=$(top_lid)
            echo "OpenSM: SUBNET UP, SM LID $lid, LIDs 1..$top"
            theirs_line=$(load "$CLIENT" bench "$lid" 1 "$top" --outstanding "$OUTSTANDING" --seconds "$SECONDS_LOAD")
            echo "OpenSM SA: $theirs_line"
            THEIRS=$(qps "$theirs_line")
        else
            echo "OpenSM: no SUBNET UP within $OSM_UP_S s (last: $(tail -n1 "$WORK/osm/osm.log"))"
        fi
        kill "$OSM_PID" 2> /dev/null || true
        wait "$OSM_PID" 2> /dev/null || true
        ibsim_stop
    fi
}

ours_of=(); theirs_of=()
for h in "${SIZES[@]}"; do
    bench_size "$h"
    ours_of+=("$OURS"); theirs_of+=("${THEIRS:-n/a}")
    echo
done

printf '%-8s %14s %14s %12s\n' hosts "ibsmd q/s" "OpenSM q/s" "ibsmd/OpenSM"
for i in "${!SIZES[@]}"; do
    vs=n/a
    [ "${theirs_of[$i]}" != n/a ] && [ "${theirs_of[$i]}" -gt 0 ] &&
        vs=$(awk -v a="${ours_of[$i]}" -v b="${theirs_of[$i]}" 'BEGIN { printf "%.1fx", a / b }')
    printf '%-8s %14s %14s %12s\n' "${SIZES[$i]}" "${ours_of[$i]}" "${theirs_of[$i]}" "$vs"
done
if [ ${#SIZES[@]} -gt 1 ]; then
    last=$((${#SIZES[@]} - 1))
    ratio=$(awk -v a="${ours_of[$last]}" -v b="${ours_of[0]}" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.5) ? "met" : "MISSED" }')
    echo "ibsmd PathRecord Gets/s at ${SIZES[$last]} / at ${SIZES[0]} hosts: $ratio (target >= 0.50: $verdict)"
fi
