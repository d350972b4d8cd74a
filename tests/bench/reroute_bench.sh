#!/usr/bin/env bash
# Re-route benchmark: the long-running SM after one leaf-to-spine
# cable is unlinked, ibsmd --foreground vs OpenSM (`opensm -R ftree`), both in
# one run on the same generated net file, each on its own fresh ibsim and
# brought up first.
#
# Per SM and fabric:
#   re-route   wall time from writing `Unlink "<leaf>"[<first up port>]` to
#              the ibsim console to the SM's next "SUBNET UP" log line
#              (ibsmd's console log; OpenSM's own log file, -f)
#   SMPs       ibsmd: its own count on that SUBNET UP line; both: the SM
#              port's PortXmitPkts (perfquery) from just before the Unlink to
#              1 s after SUBNET UP (a light sweep that falls in the window is
#              counted too)
#   of full    ibsmd's re-route SMPs / its bring-up's SMPs
#   quality    the tables read back (ibnetdiscover + dump_fts) scored by
#              `ibsm analyze --bisections 1000`: unreachable pairs per class
#              CA->CA / CA->switch / switch->CA / switch->switch (ftree, ours
#              and OpenSM's, routes no pair of top switches by design, so the
#              last class is never 0 with ftree; ftree also leaves the hosts
#              of the leaf that lost the cable without routes to and from
#              the switches above that cable, sftree does not), EBB, shift
#              minimum
#   light      light sweeps on the quiet fabric before the Unlink: ibsmd's
#              own debug lines ("light sweep: N SMPs in T s"), LIGHT_N of
#              them, median (and the slowest); OpenSM: the SM port's
#              PortXmitPkts over two sweep periods / 2
# Both SMs sweep every LIGHT_S seconds (ibsmd sweep.interval_s, opensm -s).
#
# Targets (printed last, per ibsmd run): re-route <= 1 s and a quiet light
# sweep <= 100 ms (median) at 27 648 hosts, release build:
#   SKIP_OPENSM=1 ENGINES=ftree reroute_bench.sh build-rel/daemon/ibsmd build-rel/tools/ibsm 27648
#
# usage: reroute_bench.sh IBSMD IBSM [FABRIC...]
#   FABRIC: 648 | 3456 | 11664 | 27648 (default 3456; 27648 takes about 5
#   minutes per SM, most of it the read-back for the quality columns)
# env: SMP_WINDOW (ibsmd --smp-window, default 64), LIGHT_S (default 5),
#      LIGHT_N (quiet light sweeps timed, default 5), SKIP_QUALITY=1 (no
#      read-back: the quality columns say n/a),
#      ENGINES (ibsmd's chains to run, one engine each, default "ftree sftree"),
#      SKIP_OPENSM=1, OSM_UP_S (seconds OpenSM gets to come up, default 300),
#      DELTA=spine (the first top switch loses every cable, ibsim's
#      `Unlink "<top>"`, instead of one leaf-to-spine cable; ibsmd only,
#      the quality columns then score the fabric without it), or
#      DELTA=host (the cable of leaf 5's first host: the host leaves, and
#      its LID with it),
#      PERF_OUT=PREFIX (ibsmd's re-route under `perf record -g`, from just
#      before the Unlink to SUBNET UP, into PREFIX-FABRIC-ENGINE.data: where
#      the re-route's CPU goes; a release build with -g names the functions)
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
fabrics=("$@")
[ ${#fabrics[@]} -eq 0 ] && fabrics=(3456)
WINDOW=${SMP_WINDOW:-64}
LIGHT_S=${LIGHT_S:-5}
LIGHT_N=${LIGHT_N:-5}
OSM_UP_S=${OSM_UP_S:-300}
ENGINES=${ENGINES:-ftree sftree}
BENCH=$(cd "$(dirname "$0")" && pwd)
HERE=$BENCH/../integration
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$BENCH/fabrics.sh"
command -v opensm > /dev/null || [ -n "${SKIP_OPENSM:-}" ] || fail "opensm not found (apt-get install opensm)"

OSM_PID=""
# The script's status reaches sm_stop_on_exit (it shows ibsim's log on a failure).
trap 'rc=$?; [ -n "$OSM_PID" ] && kill "$OSM_PID" 2> /dev/null; (exit $rc); sm_stop_on_exit' EXIT

xmit_pkts() { sim perfquery 2> /dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p'; }
# Seconds since midnight, now and of a log line's time stamp.
sod_now() { date +'%H %M %S %N' | awk '{ printf "%.6f\n", $1 * 3600 + $2 * 60 + $3 + $4 / 1e9 }'; }
sod_ibsmd() { awk '{ split($2, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] }'; }
sod_osm() { awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d += 86400; printf "%.3f", d }'; }

# quality TAG -> "ca2ca ca2sw sw2ca sw2sw ebb shiftmin" of a read-back.
quality() {
    local tag=$1
    if [ -n "${SKIP_QUALITY:-}" ]; then echo "n/a n/a n/a n/a n/a n/a"; return 0; fi
    sim ibnetdiscover > "$WORK/$tag.net" 2> /dev/null || fail "$tag: ibnetdiscover failed"
    sim dump_fts > "$WORK/$tag.fts" 2> /dev/null || fail "$tag: dump_fts failed"
    "$IBSM" analyze --topology "$WORK/$tag.net" --lfts "$WORK/$tag.fts" --json --bisections 1000 \
        --out "$WORK/$tag.json" 2> "$WORK/$tag.analyze.err" || { cat "$WORK/$tag.analyze.err" >&2; fail "$tag: ibsm analyze failed"; }
    python3 - "$WORK/$tag.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["pairs"]
u = [p[c]["unreachable"] for c in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch")]
ebb = r["ebb"]["value"] if r["ebb"] else float("nan")
sh = r["shifts"]["min"] if r["shifts"] else float("nan")
print(*u, f"{ebb:.4f}", f"{sh:.4f}")
EOF
}

results=()
targets=()
for fab in "${fabrics[@]}"; do
    args=$(pgft_args "$fab")
    net="$WORK/ft-$fab.net"
    # shellcheck disable=SC2086
    "$IBSM" topogen pgft $args --out "$net" >&2
    down=$(echo "$args" | sed -n 's/^--m \([0-9]*\),.*/\1/p')
    LEAF=S-0002c90201000005
    PORT=$((down + 1))
    grep -q "^Switch.*\"$LEAF\"" "$net" || fail "no leaf $LEAF in $net"
    UNLINK="Unlink \"$LEAF\"[$PORT]"
    if [ "${DELTA:-cable}" = spine ]; then
        TOP=S-0002c90203000000
        grep -q "^Switch.*\"$TOP\"" "$net" || fail "no top switch $TOP in $net"
        UNLINK="Unlink \"$TOP\""
        SKIP_OPENSM=1
    elif [ "${DELTA:-cable}" = host ]; then
        UNLINK="Unlink \"$LEAF\"[1]"
        SKIP_OPENSM=1
    fi

    # ---- ibsmd, once per engine
    for engine in $ENGINES; do
    tag=$fab-$engine
    ibsim_start "$net"
    printf 'state_dir: %s\nrouting:\n  engines: [%s]\nsweep:\n  interval_s: %s\nlog:\n  level: debug\n' \
        "$WORK/state-$tag" "$engine" "$LIGHT_S" > "$WORK/ibsmd-$tag.yaml"
    sm_start "$WORK/ibsmd-$tag.log" --foreground --config "$WORK/ibsmd-$tag.yaml" --smp-window "$WINDOW"
    sm_wait_for 0 "SUBNET UP" 1200
    up_line=$(grep -m1 "SUBNET UP" "$SM_LOG")
    full_smps=$(echo "$up_line" | sed -n 's/.* s, \([0-9]*\) SMPs (.*/\1/p')
    full_s=$(echo "$up_line" | sed -n 's/.*, \([0-9.]*\) s, [0-9]* SMPs (.*/\1/p')
    # Quiet light sweeps after the first (which may still meet the bring-up's
    # dumps); the Unlink follows the last at once, so no light sweep runs
    # during the re-route.
    mark=$(sm_lines)
    sm_wait_for "$mark" "light sweep: [0-9]* SMPs" $((3 * LIGHT_S + 30))
    light_all=()
    for _ in $(seq 1 "$LIGHT_N"); do
        mark=$(sm_lines)
        sm_wait_for "$mark" "light sweep: [0-9]* SMPs" $((3 * LIGHT_S + 30))
        light=$(sm_since "$mark" | grep -m1 "light sweep: [0-9]* SMPs")
        echo "ibsmd $fab: $light" | sed 's/ [0-9-]* [0-9:.]* debug / /' >&2
        light_all+=("$(echo "$light" | sed -n 's/.*light sweep: [0-9]* SMPs in \([0-9.]*\) s.*/\1/p')")
    done
    light_smps=$(echo "$light" | sed -n 's/.*light sweep: \([0-9]*\) SMPs in \([0-9.]*\) s.*/\1/p')
    light_ms=$(printf '%s\n' "${light_all[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.1f", 1000 * a[int((NR + 1) / 2)] }')
    light_max=$(printf '%s\n' "${light_all[@]}" | sort -g | tail -n1 | awk '{ printf "%.1f", $1 * 1000 }')
    before=$(xmit_pkts)
    mark=$(sm_lines)
    perf_pid=""
    if [ -n "${PERF_OUT:-}" ]; then
        perf record -g -F 2000 -k realtime -p "$SM_PID" -o "$PERF_OUT-$tag.data" > /dev/null 2>&1 &
        perf_pid=$!
        sleep 1 # perf attaches
    fi
    t0=$(sod_now)
    ibsim_cmd "$UNLINK"
    sm_wait_for "$mark" "SUBNET (UP|DEGRADED)" 120
    [ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; echo "perf profile of the re-route: $PERF_OUT-$tag.data" >&2; }
    line=$(sm_since "$mark" | grep -m1 -E "SUBNET (UP|DEGRADED)")
    ours_t=$(minus "$(echo "$line" | sod_ibsmd)" "$t0")
    ours_own=$(echo "$line" | sed -n 's/.* s, \([0-9]*\) SMPs (.*/\1/p')
    ours_kind=$(echo "$line" | sed -n 's/.*(generation [0-9]*, \(heavy sweep\|re-route of [0-9]* event(s)\)).*/\1/p')
    sleep 1
    ours_xmit=$(( $(xmit_pkts) - before ))
    sm_since "$mark" | grep -E "info (trap|re-route|phase|  link|SUBNET|heavy)" | sed 's/^[0-9-]* //' >&2
    ours_q=$(quality "ibsmd-$tag")
    kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
    ibsim_stop
    of_full=$(awk -v a="$ours_own" -v b="$full_smps" 'BEGIN { printf "%.2f%%", 100 * a / b }')
    results+=("$(printf '%-6s %-7s %9s %7s %7s %7s  %-30s %-35s %6s %6s %8s' "$fab" "$engine" "$ours_t" "$ours_own" "$ours_xmit" "$of_full" \
        "$(echo "$ours_q" | awk '{ print $1 "/" $2 "/" $3 "/" $4 }')" "$ours_kind" \
        "$(echo "$ours_q" | awk '{ print $5 }')" "$(echo "$ours_q" | awk '{ print $6 }')" "$light_smps/${light_ms}ms")")
    results+=("$(printf '%-6s %-7s bring-up: %s SMPs in %s s (window %s)' "$fab" "$engine" "$full_smps" "$full_s" "$WINDOW")")
    targets+=("$(printf '%-6s %-7s re-route %s s (target <= 1 s: %s); quiet light sweep median %s ms of %s, slowest %s ms (target <= 100 ms: %s)' \
        "$fab" "$engine" "$ours_t" "$(awk -v t="$ours_t" 'BEGIN { print (t <= 1) ? "met" : "MISSED" }')" "$light_ms" "$LIGHT_N" \
        "$light_max" "$(awk -v t="$light_ms" 'BEGIN { print (t <= 100) ? "met" : "MISSED" }')")")
    done

    # ---- OpenSM
    if [ -z "${SKIP_OPENSM:-}" ]; then
        ibsim_start "$net"
        mkdir -p "$WORK/osm-cache-$fab"
        osm_log="$WORK/osm-$fab.log"
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache-$fab" LD_PRELOAD="$SIM_PRELOAD" \
            exec opensm -R ftree -s "$LIGHT_S" -f "$osm_log") > "$WORK/osm-$fab.out" 2>&1 &
        OSM_PID=$!
        for _ in $(seq 1 $((OSM_UP_S * 10))); do
            grep -q "SUBNET UP" "$osm_log" 2> /dev/null && break
            kill -0 "$OSM_PID" 2> /dev/null || fail "opensm exited (see $WORK/osm-$fab.out)"
            sleep 0.1
        done
    fi
    if [ -z "${SKIP_OPENSM:-}" ] && ! grep -q "SUBNET UP" "$osm_log"; then
        # Seen here with OpenSM 3.3.23 in daemon mode (not with -o): it
        # logs "Entering MASTER state" and then nothing, waiting for good.
        echo "opensm did not bring $fab up within $OSM_UP_S s; last line: $(tail -n1 "$osm_log")" >&2
        kill "$OSM_PID"; wait "$OSM_PID" 2> /dev/null || true; OSM_PID=""
        ibsim_stop
        results+=("$(printf '%-6s OpenSM   n/a: no SUBNET UP within %s s of starting opensm -R ftree (hangs after "Entering MASTER state")' "$fab" "$OSM_UP_S")")
    elif [ -z "${SKIP_OPENSM:-}" ]; then
        sleep "$LIGHT_S"
        x0=$(xmit_pkts); sleep $((2 * LIGHT_S)); x1=$(xmit_pkts)
        osm_light=$(( (x1 - x0) / 2 ))
        ups=$(grep -c "SUBNET UP" "$osm_log")
        before=$(xmit_pkts)
        t0=$(sod_now)
        ibsim_cmd "$UNLINK"
        for _ in $(seq 1 1200); do
            [ "$(grep -c "SUBNET UP" "$osm_log")" -gt "$ups" ] && break
            sleep 0.1
        done
        [ "$(grep -c "SUBNET UP" "$osm_log")" -gt "$ups" ] || fail "opensm logged no SUBNET UP within 120 s of the Unlink"
        osm_t=$(minus "$(grep "SUBNET UP" "$osm_log" | sed -n "$((ups + 1))p" | sod_osm)" "$t0")
        sleep 1
        osm_xmit=$(( $(xmit_pkts) - before ))
        osm_q=$(quality "osm-$fab")
        kill "$OSM_PID"; wait "$OSM_PID" 2> /dev/null || true; OSM_PID=""
        ibsim_stop
        results+=("$(printf '%-6s %-7s %9s %7s %7s %7s  %-30s %-35s %6s %6s %8s' "$fab" OpenSM "$osm_t" n/a "$osm_xmit" "" \
            "$(echo "$osm_q" | awk '{ print $1 "/" $2 "/" $3 "/" $4 }')" "heavy sweep (OpenSM)" \
            "$(echo "$osm_q" | awk '{ print $5 }')" "$(echo "$osm_q" | awk '{ print $6 }')" "$osm_light/n/a")")
    fi
done

echo
echo "re-route after $UNLINK ($(case "${DELTA:-cable}" in spine) echo "every cable of the first top switch" ;; host) echo "the cable of leaf 5's first host" ;; *) echo "first up port of leaf 5" ;; esac)); ibsmd --foreground --smp-window $WINDOW (engines: $ENGINES) vs opensm -R ftree, light sweeps every $LIGHT_S s; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %9s %7s %7s %7s  %-30s %-35s %6s %6s %8s\n' hosts "SM/eng." "re-route" "SMPs" "xmit" "of full" \
    "unreachable ca2ca/ca2sw/sw2ca/sw2sw" "what ran" "EBB" "shift" "light sweep"
for r in "${results[@]}"; do echo "$r"; done
echo
for t in "${targets[@]}"; do echo "$t"; done
