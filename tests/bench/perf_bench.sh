#!/usr/bin/env bash
# Counter polling benchmark (performance management, class 0x04), in one
# run, on fabrics generated with `ibsm topogen pgft` (fabrics.sh):
#
# 1. One counter sweep of the SWEEP fabric (default 11 664 hosts), ours
#    against OpenSM's PerfMgr, each on its own fresh ibsim, quiet fabric
#    (no light sweeps: ibsmd sweep.interval_s 0, opensm -s 0).
#    ibsmd --foreground, perf.interval_s PERF_S: the poller's timer runs from
#      the start and sweeps nothing before the first SUBNET UP, so its first
#      counter sweep starts within PERF_S s of SUBNET UP; the poller's own log
#      line gives ports read, MADs (requests answered or given up, retries
#      not counted), failures and time. Counter sweep 1 also asks each node's
#      ClassPortInfo (which counters it has); sweep 2 finds them cached. Both
#      are shown; the daemon is stopped after sweep 2.
#    OpenSM: brought up by `opensm -o -R ftree`, then `opensm -R ftree -s 0
#      --perfmgr --perfmgr_sweep_time_s OSM_PM_S -D 0x07` on the fabric it
#      left (see the note at the run for why two steps). PerfMgr logs no duration or MAD count of its own (its
#      "PerfMgr total sweep time" line exists only when built with
#      --enable-perf-mgr-profile, and times the sending loop, not the
#      answers). At log level 0x04 (VERBOSE) it logs "Gathering PerfMgr
#      stats" when a sweep starts, "Getting stats for node ... port" per
#      PortCounters query it sends and "Processing received MAD status"
#      per answer it processes, all with microsecond stamps. A sweep is the
#      log from one "Gathering" line to the next; its time is that first
#      line to the last answer processed; MADs are the answers processed
#      (plus ERR 5431 timeouts, counted apart). Its first sweep after SUBNET
#      UP sends only ClassPortInfo queries (one per switch, one per CA port)
#      and reads counters from the second on, so the table shows sweep 1
#      (ClassPortInfo) and the first sweep that read counters. The verbose
#      log costs OpenSM some time in that sweep; this is said in the table.
# 2. Re-route after one cable on the REROUTE fabric (default 3 456 hosts),
#    counter polling off (perf.enabled false) and on (perf.interval_s 1),
#    RUNS runs each, interleaved (off, on, off, on, ...), each run on a fresh
#    ibsim and ibsmd --foreground (ftree, light sweeps off: the trap starts
#    the re-route, as in reroute_bench.sh). With polling on, the cable
#    (`Unlink "<leaf 5>"[<first up port>]`) is pulled in the middle of a
#    counter sweep: the next sweep's start is predicted from the stamps of
#    the last two sweep lines (end to next start: perf.interval_s plus the
#    observers' work) and the Unlink goes out half a sweep after it; the
#    run checks the sweep in progress really did start before the
#    Unlink and end after it. re-route: wall time from writing the Unlink to
#    the SUBNET UP line; its SMPs from that line. Median and min-max.
# 3. Memory: VmRSS and VmHWM (/proc/PID/status) of ibsmd in each run of 2,
#    read just before the Unlink: with polling on after at least three
#    counter sweeps. (median on - median off) / ports polled. And the exact
#    heap of the poller's tables per port from perf_table_bytes (env
#    TABLE_BYTES; omitted without it).
#
# usage: perf_bench.sh IBSMD IBSM [SWEEP_HOSTS [REROUTE_HOSTS]]
#   HOSTS: 648 | 3456 | 11664 (defaults 11664 and 3456); 0 skips that part
# env: RUNS (re-route runs per mode, default 5), PERF_WINDOW (perf.window,
#      default 4: the shipped default), PERF_S (ibsmd perf.interval_s for
#      part 1, default 5), OSM_PM_S (OpenSM's perfmgr_sweep_time_s, default
#      30; must exceed its sweep's time), OSM_PM_WINDOW (OpenSM's
#      perfmgr_max_outstanding_queries, default PERF_WINDOW), OSM_UP_S (seconds OpenSM gets to come up, default 600),
#      SMP_WINDOW (ibsmd --smp-window, default 64), SKIP_OPENSM=1,
#      TABLE_BYTES=path/to/perf_table_bytes
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
SWEEP_HOSTS=${3:-11664}
REROUTE_HOSTS=${4:-3456}
RUNS=${RUNS:-5}
PERF_WINDOW=${PERF_WINDOW:-4}
PERF_S=${PERF_S:-5}
OSM_PM_S=${OSM_PM_S:-30}
OSM_PM_WINDOW=${OSM_PM_WINDOW:-$PERF_WINDOW}
OSM_UP_S=${OSM_UP_S:-600}
WINDOW=${SMP_WINDOW:-64}
BENCH=$(cd "$(dirname "$0")" && pwd)
HERE=$BENCH/../integration
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$BENCH/fabrics.sh"
command -v opensm > /dev/null || [ -n "${SKIP_OPENSM:-}" ] || fail "opensm not found (apt-get install opensm)"

OSM_PID=""
trap '[ -n "$OSM_PID" ] && kill "$OSM_PID" 2> /dev/null; sm_stop_on_exit' EXIT

# Seconds since midnight: now, and of an ibsmd / OpenSM log line's stamp.
sod_now() { date +'%H %M %S %N' | awk '{ printf "%.6f\n", $1 * 3600 + $2 * 60 + $3 + $4 / 1e9 }'; }
sod_ibsmd() { awk '{ split($2, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < -43200) d += 86400; printf "%.3f", d }'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { if (t + 0 > 0) printf "%.0f", n / t; else print "n/a" }'; }
# status_kb PID FIELD: VmRSS / VmHWM in kB.
status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# make_net HOSTS -> path of the generated net file (made once per size).
make_net() {
    local net="$WORK/ft-$1.net"
    # shellcheck disable=SC2046
    [ -f "$net" ] || "$IBSM" topogen pgft $(pgft_args "$1") --out "$net" >&2
    echo "$net"
}

# ibsmd_config FILE TAG PERF_ENABLED PERF_INTERVAL: quiet fabric (no light
# sweeps), no dumps (lfts.dump is 1.5 GB at 11 664 hosts), ftree.
ibsmd_config() {
    cat > "$1" <<EOF
state_dir: $WORK/state-$2
routing:
  engines: [ftree]
sweep:
  interval_s: 0
dump:
  lfts: false
  topology: false
  summary: false
  sl: false
perf:
  enabled: $3
  interval_s: $4
  window: $PERF_WINDOW
log:
  level: info
EOF
}

# counter_sweep_field LINE N: from "counter sweep S (generation G): R of P
# ports read, M MADs, F failed, T s, ..." field N of "S G R P M F T".
counter_sweep_fields() {
    sed -n 's/.*counter sweep \([0-9]*\) (generation \([0-9]*\)): \([0-9]*\) of \([0-9]*\) ports read, \([0-9]*\) MADs, \([0-9]*\) failed, \([0-9.]*\) s,.*/\1 \2 \3 \4 \5 \6 \7/p'
}

results=()
stop_sm() { kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""; ibsim_stop; }

# ---------------------------------------------------------------- 1. sweep
if [ "$SWEEP_HOSTS" != 0 ]; then
    fab=$SWEEP_HOSTS
    net=$(make_net "$fab")

    ibsim_start "$net"
    ibsmd_config "$WORK/sweep.yaml" sweep true "$PERF_S"
    sm_start "$WORK/ibsmd-sweep.log" --foreground --config "$WORK/sweep.yaml" --smp-window "$WINDOW"
    sm_wait_for 0 "SUBNET UP" 1200
    up=$(grep -m1 "SUBNET UP" "$SM_LOG")
    echo "ibsmd $fab: ${up#* * }" >&2
    sm_wait_for 0 "counter sweep 2 " $((PERF_S * 4 + 600))
    rss=$(status_kb "$SM_PID" VmRSS); hwm=$(status_kb "$SM_PID" VmHWM)
    for s in 1 2; do
        read -r _ _ nread nports mads failed secs <<< "$(grep -m1 "counter sweep $s " "$SM_LOG" | counter_sweep_fields)"
        what=$([ "$s" = 1 ] && echo "ClassPortInfo + counters" || echo "counters (ClassPortInfo cached)")
        results+=("$(printf '%-6s %-7s %-5s %-32s %8s %7s %8s %8s %7s' "$fab" ibsmd "$s" "$what" "$secs" "$nread/$nports" \
            "$mads" "$(rate "$mads" "$secs")" "$failed")")
    done
    grep "counter sweep" "$SM_LOG" | sed 's/^[0-9-]* //' >&2
    results+=("$(printf '%-6s ibsmd   perf.window %s, ibsmd VmRSS %s MB, VmHWM %s MB after 2 counter sweeps' "$fab" "$PERF_WINDOW" \
        $((rss / 1024)) $((hwm / 1024)))")
    stop_sm

    if [ -z "${SKIP_OPENSM:-}" ]; then
        ibsim_start "$net"
        mkdir -p "$WORK/osm-cache"
        osm_log="$WORK/osm-sweep.log"
        # Bring-up with `opensm -o`, then the daemon with PerfMgr on the
        # fabric it left ACTIVE (same cache: same LIDs). Brought up by the
        # daemon itself, OpenSM 3.3.23 deadlocks against ibsim here (its
        # umad2sim sender blocks on ibsim's full socket while ibsim spins
        # sending it the traps of the ports going ACTIVE: seen at 648 hosts).
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache" LD_PRELOAD="$SIM_PRELOAD" \
            timeout "$OSM_UP_S" opensm -o -R ftree -f "$WORK/osm-once.log" > "$WORK/osm-once.out" 2>&1) || true
        grep -q "SUBNET UP" "$WORK/osm-once.log" || echo "opensm -o did not bring $fab up (see $WORK/osm-once.log)" >&2
        # perfmgr_max_outstanding_queries: OpenSM's default, 500, deadlocks
        # the same way at once (net.unix.max_dgram_qlen is 10 here); the
        # same window as ours keeps it running and compares like with like.
        echo "perfmgr_max_outstanding_queries $OSM_PM_WINDOW" > "$WORK/osm-pm.conf"
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache" LD_PRELOAD="$SIM_PRELOAD" \
            exec opensm -F "$WORK/osm-pm.conf" -R ftree -s 0 --perfmgr --perfmgr_sweep_time_s "$OSM_PM_S" \
            -D 0x07 -f "$osm_log") \
            > "$WORK/osm-sweep.out" 2>&1 &
        OSM_PID=$!
        # osm_sweeps: per PerfMgr sweep started after SUBNET UP, one line
        # "index start_sod end_sod stats_queries answers timeouts".
        osm_sweeps() {
            awk 'function sod() { split($3, t, ":"); return t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6 }
                 function out() { printf "%d %.6f %.6f %d %d %d\n", n, s, e, g, p, to }
                 /SUBNET UP/ { up = 1 }
                 !up { next }
                 /Gathering PerfMgr stats/ { if (n) out(); n++; s = sod(); e = s; g = p = to = 0; next }
                 !n { next }
                 /Getting stats for node/ { g++ }
                 /Processing received MAD status/ { p++; e = sod() }
                 /ERR 5431/ { to++ }
                 END { if (n) out() }' "$osm_log"
        }
        # The log is buffered: wait for the third sweep's start (sweeps
        # start every OSM_PM_S s, so the second has had that long), then
        # stop OpenSM, which flushes it.
        osm_t0=$SECONDS
        while kill -0 "$OSM_PID" 2> /dev/null && [ $((SECONDS - osm_t0)) -lt $((OSM_UP_S + 4 * OSM_PM_S)) ]; do
            [ "$(grep -c "Gathering PerfMgr stats" "$osm_log" 2> /dev/null)" -ge 3 ] && break
            sleep 1
        done
        kill "$OSM_PID" 2> /dev/null || true
        for _ in $(seq 1 60); do kill -0 "$OSM_PID" 2> /dev/null || break; sleep 1; done
        kill -9 "$OSM_PID" 2> /dev/null || true
        wait "$OSM_PID" 2> /dev/null || true; OSM_PID=""
        ibsim_stop
        osm_ok=$(osm_sweeps | awk '$1 >= 2 && $4 > 0 { print 1; exit }')
        if [ -z "$osm_ok" ]; then
            results+=("$(printf '%-6s OpenSM  n/a: no PerfMgr counter sweep seen (last log line: %s)' "$fab" "$(tail -n1 "$osm_log" 2> /dev/null)")")
        else
            osm_sweeps | sed 's/^/OpenSM PerfMgr sweep (index start end stats answers timeouts): /' >&2
            first=$(osm_sweeps | head -n1)
            counters=$(osm_sweeps | awk '$1 >= 2 && $4 > 0 { print; exit }')
            for line in "$first" "$counters"; do
                read -r idx s e g p to <<< "$line"
                secs=$(minus "$e" "$s")
                what=$([ "$g" = 0 ] && echo "ClassPortInfo only" || echo "counters ($g PortCounters Gets)")
                results+=("$(printf '%-6s %-7s %-5s %-32s %8s %7s %8s %8s %7s' "$fab" OpenSM "$idx" "$what" "$secs" "$g" \
                    "$p" "$(rate "$p" "$secs")" "$to")")
            done
            results+=("$(printf '%-6s OpenSM  perfmgr_max_outstanding_queries %s, log level 0x07 (its per-MAD lines are the clock)' "$fab" "$OSM_PM_WINDOW")")
        fi
    fi
fi

# ------------------------------------------------------ 2. re-route, 3. memory
declare -A rr_t rr_smps rss_kb hwm_kb rr_hit
rr_ports=""
if [ "$REROUTE_HOSTS" != 0 ]; then
    fab=$REROUTE_HOSTS
    net=$(make_net "$fab")
    down=$(pgft_args "$fab" | sed -n 's/^--m \([0-9]*\),.*/\1/p')
    LEAF=S-0002c90201000005
    grep -q "^Switch.*\"$LEAF\"" "$net" || fail "no leaf $LEAF in $net"
    UNLINK="Unlink \"$LEAF\"[$((down + 1))]"
    for run in $(seq 1 "$RUNS"); do
        for mode in off on; do
            tag=rr-$mode-$run
            ibsim_start "$net"
            ibsmd_config "$WORK/$tag.yaml" "$tag" "$([ $mode = on ] && echo true || echo false)" 1
            sm_start "$WORK/$tag.log" --foreground --config "$WORK/$tag.yaml" --smp-window "$WINDOW"
            sm_wait_for 0 "SUBNET UP" 1200
            if [ $mode = on ]; then
                sm_wait_for 0 "counter sweep 3 " 300
                mark=$(sm_lines)
                sm_wait_for "$mark" "counter sweep [0-9]+ " 300
                # From the stamps of the last two sweep lines: the gap from
                # a sweep's end to the next one's start (interval plus the
                # observers' work); pull the cable halfway through the next.
                read -r cs _ _ rr_ports _ _ csecs <<< "$(grep "counter sweep" "$SM_LOG" | tail -n1 | counter_sweep_fields)"
                e1=$(grep "counter sweep" "$SM_LOG" | tail -n2 | head -n1 | sod_ibsmd)
                e2=$(grep "counter sweep" "$SM_LOG" | tail -n1 | sod_ibsmd)
                at=$(awk -v a="$e1" -v b="$e2" -v s="$csecs" 'BEGIN { printf "%.6f", b + (b - a - s) + s / 2 }')
                wait_s=$(minus "$at" "$(sod_now)")
                awk -v w="$wait_s" 'BEGIN { exit !(w > 0) }' && sleep "$wait_s"
            else
                sleep 8 # about as long after SUBNET UP as the on runs wait
            fi
            rss_kb[$tag]=$(status_kb "$SM_PID" VmRSS); hwm_kb[$tag]=$(status_kb "$SM_PID" VmHWM)
            mark=$(sm_lines)
            t0=$(sod_now)
            ibsim_cmd "$UNLINK"
            sm_wait_for "$mark" "SUBNET (UP|DEGRADED)" 120
            line=$(sm_since "$mark" | grep -m1 -E "SUBNET (UP|DEGRADED)")
            rr_t[$tag]=$(minus "$(echo "$line" | sod_ibsmd)" "$t0")
            rr_smps[$tag]=$(echo "$line" | sed -n 's/.* s, \([0-9]*\) SMPs (.*/\1/p')
            note=""
            if [ $mode = on ]; then
                # The first sweep to end after the Unlink was in progress
                # at it if it started before it (short sweeps may miss).
                sm_wait_for "$mark" "counter sweep [0-9]+ " 120
                cl=$(sm_since "$mark" | grep -m1 "counter sweep")
                read -r cs _ nread nports _ failed secs <<< "$(echo "$cl" | counter_sweep_fields)"
                end=$(echo "$cl" | sod_ibsmd)
                started=$(minus "$t0" "$(awk -v e="$end" -v s="$secs" 'BEGIN { printf "%.6f", e - s }')")
                ended=$(minus "$end" "$t0")
                note="counter sweep $cs started ${started} s before the Unlink, ended ${ended} s after it ($nread/$nports read, $failed failed, $secs s)"
                if awk -v a="$started" -v b="$ended" 'BEGIN { exit !(a > 0 && b > 0) }'; then
                    rr_hit[$tag]=1
                else
                    note="$note: NOT in progress at the Unlink"
                fi
            fi
            echo "$tag: re-route ${rr_t[$tag]} s, ${rr_smps[$tag]} SMPs; VmRSS ${rss_kb[$tag]} kB; $note" >&2
            stop_sm
        done
    done
fi

# median / min / max of the values on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
values() { local -n arr=$1; local k; for k in "${!arr[@]}"; do [[ $k == rr-$2-* ]] && echo "${arr[$k]}"; done; }

echo
echo "counter polling benchmark; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$SWEEP_HOSTS" != 0 ]; then
    echo "1. one counter sweep, $SWEEP_HOSTS hosts (pgft $(pgft_args "$SWEEP_HOSTS")), quiet fabric, fresh ibsim each"
    printf '%-6s %-7s %-5s %-32s %8s %7s %8s %8s %7s\n' hosts SM sweep what "time[s]" ports MADs "MADs/s" failed
    for r in "${results[@]}"; do echo "$r"; done
fi
if [ "$REROUTE_HOSTS" != 0 ]; then
    echo "2. re-route after $UNLINK, $REROUTE_HOSTS hosts, ibsmd --foreground --smp-window $WINDOW (ftree), $RUNS runs per mode interleaved"
    printf '%-24s %9s %17s %9s\n' "counter polling" "median[s]" "min-max[s]" "SMPs"
    read -r m_off lo_off hi_off <<< "$(values rr_t off | stats)"
    read -r m_on lo_on hi_on <<< "$(values rr_t on | stats)"
    printf '%-24s %9s %17s %9s\n' "off" "$m_off" "$lo_off-$hi_off" "$(values rr_smps off | stats | cut -d' ' -f1)"
    printf '%-24s %9s %17s %9s\n' "on (interval 1 s, w $PERF_WINDOW)" "$m_on" "$lo_on-$hi_on" "$(values rr_smps on | stats | cut -d' ' -f1)"
    awk -v a="$m_on" -v b="$m_off" 'BEGIN { printf "on vs off (medians): %+.1f%% (target: within 10%%)\n", 100 * (a - b) / b }'
    echo "on runs with a counter sweep in progress at the Unlink: ${#rr_hit[@]} of $RUNS (the others: see stderr)"
    echo "3. memory of ibsmd before the Unlink ($REROUTE_HOSTS hosts, $rr_ports ports polled)"
    read -r r_off _ _ <<< "$(values rss_kb off | stats)"; read -r r_on _ _ <<< "$(values rss_kb on | stats)"
    read -r h_off _ _ <<< "$(values hwm_kb off | stats)"; read -r h_on _ _ <<< "$(values hwm_kb on | stats)"
    printf 'VmRSS median: off %s kB, on %s kB: %s B per polled port\n' "$r_off" "$r_on" \
        "$(awk -v a="$r_on" -v b="$r_off" -v n="$rr_ports" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }')"
    printf 'VmHWM median: off %s kB, on %s kB: %s B per polled port\n' "$h_off" "$h_on" \
        "$(awk -v a="$h_on" -v b="$h_off" -v n="$rr_ports" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }')"
    if [ -n "${TABLE_BYTES:-}" ]; then "$TABLE_BYTES" "$rr_ports"; fi
fi
