#!/usr/bin/env bash
# Bring-up benchmark: time to SUBNET UP, ibsmd --once vs OpenSM
# (`opensm -o -R ftree`), side by side in one run on the same generated net
# files, each SM on a freshly started ibsim (ports in INIT, no LIDs).
#
# Per SM and fabric:
#   to UP     wall time from launching the process to its "SUBNET UP" log line
#   exit      wall time until the process has exited (ibsmd writes its dumps
#             after SUBNET UP; OpenSM -o tears down its SA etc.)
#   SMPs      PortXmitPkts of the SM's own port, read from ibsim with
#             perfquery afterwards: every SMP that left the SM over its link,
#             counted the same way for both SMs (ibsmd's own count, which also
#             includes the few SMPs to its local port, is shown as well)
#   SMPs/s    SMPs / to UP
#   vs min    ibsmd's own count against the minimum below (both include the SMPs
#             to the local port)
#   cpu/SMP   the SM process's CPU time (user + system, all its threads, incl.
#             umad2sim's receiver thread) per SMP, from /usr/bin/time
#   cs/SMP    its context switches (voluntary + involuntary) per SMP
#   sim/SMP   ibsim's own CPU time per SMP over the same run (which side is
#             the bottleneck: both share the machine's CPUs)
#   RSS       the SM's maximum resident set size
#   sc/SMP    with SYSCALLS=1, one more run of each SM under `perf stat -e
#             raw_syscalls:sys_enter` (tracing slows it, so not the timed
#             run): system calls per SMP, all threads. With umad2sim every
#             SMP costs at least three: the SM's write() to the simulator's
#             socket, and its receiver thread's poll() and read().
# and the minimum SMP count of a bring-up, computed from the net file alone:
#   discovery  (links + 1) NodeInfo (every cable is crossed once, plus the
#              SM's node), one NodeDescription per node, SwitchInfo per
#              switch, PortInfo of every switch port 0..N and of every cabled
#              CA port;
#   program    per switch ceil((top LID + 1) / 64) LFT blocks, one SwitchInfo
#              Set (LinearFDBTop), one PortInfo Set of port 0 (LID); the
#              default partition's P_Key block on every CA port, every
#              switch's port 0 and every switch port facing a CA (ibsim's
#              switches enforce partitions); no VL table: ftree needs one
#              VL and there is no QoS policy (routing.vl_tables: auto);
#   activate   two PortInfo Sets per cabled port end (ARMED carrying LID and
#              link settings, then ACTIVE).
#
# and the simulator's ceiling: smp_rate_probe (env PROBE) keeping WINDOW
# NodeInfo Gets outstanding to the switch one hop away, on the same ibsim
# right after ibsmd exits. No SM sending the minimum SMP count can come up
# faster than minimum / ceiling on this machine; the line shows that bound
# and the speed-up over OpenSM it would give. The probe runs under
# /usr/bin/time too: its CPU per SMP (all threads, umad2sim's receiver
# included) is what the umad2sim path itself costs a client, and the line
# gives the SM's cpu/SMP over it (issue 36's target: at most 1.5).
#
# usage: bringup_bench.sh IBSMD IBSM [FABRIC...]
#   FABRIC: 648 | 3456 | 11664 | 27648 | 43776 (fabrics.sh; default: 648 3456;
#           the larger ones take minutes, OpenSM tens of minutes)
# env: SMP_WINDOW (ibsmd --smp-window, default 64), SKIP_OPENSM=1,
#      PROBE=path/to/smp_rate_probe (the ceiling line; omitted without it),
#      SYSCALLS=1 (the sc/SMP column; needs perf),
#      PIN=1: ibsim on CPU 1, the SM under test (ibsmd or OpenSM, all threads)
#      on CPU 0. Against ibsim most of an SMP's cost is waking threads across
#      CPUs (umad2sim's receiver thread hands every datagram to the SM's
#      thread); pinning removes that scheduler noise for both SMs alike.
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
# `sim` runs from the scratch directory: a relative PROBE must not break.
[ -n "${PROBE:-}" ] && PROBE=$(realpath "$PROBE")
fabrics=("$@")
[ ${#fabrics[@]} -eq 0 ] && fabrics=(648 3456)
WINDOW=${SMP_WINDOW:-64}
PROBE_COUNT=200000
PIN_SM=()
if [ "${PIN:-0}" = 1 ]; then
    [ "$(nproc)" -ge 2 ] || { echo "PIN=1 needs two CPUs" >&2; exit 2; }
    PIN_SM=(taskset -c 0)
fi
pin_ibsim() { [ "${PIN:-0}" = 1 ] && taskset -p -c 1 "$IBSIM_PID" > /dev/null || true; }
export IBSIM_READY_S=${IBSIM_READY_S:-900}
. "$(dirname "$0")/../integration/ibsim_env.sh"

. "$(dirname "$0")/fabrics.sh"

now() { date +%s.%N; }

# /usr/bin/time's record of the SM: user s, system s, voluntary and
# involuntary context switches, maximum RSS in KB.
TIME_FORMAT="%U %S %w %c %M"
CLK_TCK=$(getconf CLK_TCK)
# ibsim's CPU time so far, in clock ticks (utime + stime).
sim_cpu() { awk '{ print $14 + $15 }' "/proc/$IBSIM_PID/stat"; }
# syscalls_of PERF_STAT_CSV: the raw_syscalls:sys_enter count.
syscalls_of() { awk -F, '/raw_syscalls:sys_enter/ { print $1 }' "$1" 2> /dev/null; }
per_smp() { awk -v n="$1" -v s="$2" 'BEGIN { if (n + 0 > 0 && s + 0 > 0) printf "%.2f", n / s; else print "n/a" }'; }
# costs TIMEFILE SMPS SIM_TICKS SYSCALLS_PER_SMP: the cost columns.
costs() {
    [ -s "$1" ] || { printf '%9s %7s %9s %8s %7s' n/a n/a n/a n/a "$4"; return; }
    tail -n 1 "$1" | awk -v n="$2" -v sim="$3" -v hz="$CLK_TCK" -v sc="$4" '{
        if (n + 0 <= 0) { printf "%9s %7s %9s %8.0f %7s", "n/a", "n/a", "n/a", $5 / 1024, sc; exit }
        simus = sim == "" ? "n/a" : sprintf("%.1fus", 1e6 * sim / hz / n)
        printf "%7.1fus %7.3f %9s %8.0f %7s", 1e6 * ($1 + $2) / n, ($3 + $4) / n, simus, $5 / 1024, sc }'
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# The SM port's PortXmitPkts (perfquery answers from the local port).
xmit_pkts() { sim perfquery 2> /dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p'; }

# minimum_smps NETFILE: the formula in the header, from the net file.
minimum_smps() {
    awk '
        /^Switch/ { type = "sw"; nodes++; switches++; ports = $2; swports += ports + 1; next }
        /^(Ca|Hca)/ { type = "ca"; nodes++; next }
        /^\[/ { ends++; if (type == "ca") caports++ }
        END {
            links = ends / 2
            top = switches + caports
            blocks = int(top / 64) + 1
            discovery = (links + 1) + nodes + switches + swports + caports
            program = switches * (blocks + 2) + 2 * caports + switches
            activate = 2 * ends
            printf "%d %d %d %d\n", discovery + program + activate, discovery, program, activate
        }' "$1"
}

results=()
for fab in "${fabrics[@]}"; do
    net="$WORK/ft-$fab.net"
    # shellcheck disable=SC2046
    args=$(pgft_args "$fab")
    ours_sc="n/a"
    # shellcheck disable=SC2086
    "$IBSM" topogen pgft $args --out "$net" >&2
    read -r min min_disc min_prog min_act <<< "$(minimum_smps "$net")"

    # ---- ibsmd
    ibsim_start "$net"
    pin_ibsim
    state="$WORK/state-$fab"
    t0=$(now)
    sim0=$(sim_cpu)
    sim "${PIN_SM[@]}" /usr/bin/time -o "$WORK/time-ibsmd-$fab" -f "$TIME_FORMAT" \
        "$IBSMD" --once --state-dir "$state" --smp-window "$WINDOW" 2> "$WORK/ibsmd-$fab.log" || {
        cat "$WORK/ibsmd-$fab.log" >&2; echo "FAIL: ibsmd --once on $fab" >&2; exit 1; }
    ours_sim=$(( $(sim_cpu) - sim0 ))
    t_exit=$(now)
    up_line=$(grep -m1 "SUBNET UP" "$WORK/ibsmd-$fab.log")
    up_ts=$(date -d "$(echo "$up_line" | awk '{ print $1, $2 }')" +%s.%N)
    ours_up=$(elapsed "$t0" "$up_ts")
    ours_exit=$(elapsed "$t0" "$t_exit")
    ours_own=$(echo "$up_line" | sed -n 's/.* s, \([0-9]*\) SMPs (.*/\1/p')
    ours_smps=$(xmit_pkts)
    grep -E "phase" "$WORK/ibsmd-$fab.log" | sed 's/^[^ ]* [^ ]* info /  ibsmd /' >&2
    ceiling="n/a"; probe_cpu="n/a"
    if [ -n "${PROBE:-}" ]; then
        ceiling=$(probe_rate "$PROBE" "$WINDOW" "$PROBE_COUNT" "${PIN_SM[@]}" \
            /usr/bin/time -o "$WORK/time-probe-$fab" -f "$TIME_FORMAT")
        probe_cpu=$(tail -n 1 "$WORK/time-probe-$fab" |
            awk -v n="$PROBE_COUNT" '{ printf "%.1f", 1e6 * ($1 + $2) / n }')
    fi
    ibsim_stop
    ours_sc="n/a"
    if [ "${SYSCALLS:-0}" = 1 ]; then
        ibsim_start "$net"
        sim perf stat -x, -e raw_syscalls:sys_enter -o "$WORK/sc-ibsmd-$fab" \
            "$IBSMD" --once --state-dir "$state-sc" --smp-window "$WINDOW" 2> /dev/null || true
        ours_sc=$(per_smp "$(syscalls_of "$WORK/sc-ibsmd-$fab")" "$ours_own")
        ibsim_stop
    fi

    # ---- OpenSM
    osm_up="n/a"; osm_exit="n/a"; osm_smps="n/a"; osm_sc="n/a"; osm_sim=""
    if [ -z "${SKIP_OPENSM:-}" ]; then
        ibsim_start "$net"
    pin_ibsim
        mkdir -p "$WORK/osm-cache-$fab"
        t0=$(now)
        sim0=$(sim_cpu)
        # Private cache dir: OpenSM must not reuse another run's guid2lid.
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache-$fab" LD_PRELOAD="$SIM_PRELOAD" \
            "${PIN_SM[@]}" /usr/bin/time -o "$WORK/time-osm-$fab" -f "$TIME_FORMAT" \
            timeout 1800 opensm -o -R ftree -f "$WORK/osm-$fab.log" > "$WORK/osm-$fab.out" 2>&1) || true
        t_exit=$(now)
        osm_sim=$(( $(sim_cpu) - sim0 ))
        line=$(grep -m1 "SUBNET UP" "$WORK/osm-$fab.log" || true)
        if [ -n "$line" ]; then
            # "Nov 22 20:10:02 123456 [...] ... SUBNET UP"
            secs=$(date -d "$(echo "$line" | awk '{ print $1, $2, $3 }')" +%s)
            usec=$(echo "$line" | awk '{ print $4 }')
            osm_up=$(elapsed "$t0" "$(awk -v s="$secs" -v u="$usec" 'BEGIN { printf "%.6f", s + u / 1e6 }')")
        fi
        osm_exit=$(elapsed "$t0" "$t_exit")
        osm_smps=$(xmit_pkts)
        ibsim_stop
        if [ "${SYSCALLS:-0}" = 1 ]; then
            ibsim_start "$net"
            rm -rf "$WORK/osm-cache-$fab" && mkdir -p "$WORK/osm-cache-$fab"
            (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache-$fab" LD_PRELOAD="$SIM_PRELOAD" \
                perf stat -x, -e raw_syscalls:sys_enter -o "$WORK/sc-osm-$fab" \
                timeout 1800 opensm -o -R ftree -f "$WORK/osm-sc-$fab.log" > /dev/null 2>&1) || true
            osm_sc=$(per_smp "$(syscalls_of "$WORK/sc-osm-$fab")" "$osm_smps")
            ibsim_stop
        fi
    fi

    rate() { awk -v n="$1" -v t="$2" 'BEGIN { if (t + 0 > 0 && n != "n/a") printf "%.0f", n / t; else print "n/a" }'; }
    speedup=$(awk -v a="$osm_up" -v b="$ours_up" 'BEGIN { if (a != "n/a" && b > 0) printf "%.1fx", a / b; else print "n/a" }')
    over=$(awk -v n="$ours_own" -v m="$min" 'BEGIN { printf "%+.1f%%", 100 * (n - m) / m }')
    results+=("$(printf '%-6s %-7s %8s %8s %9s %9s %8s %9s %s' "$fab" ibsmd "$ours_up" "$ours_exit" "$ours_smps" "$ours_own" "$(rate "$ours_smps" "$ours_up")" "$over" "$(costs "$WORK/time-ibsmd-$fab" "$ours_own" "$ours_sim" "$ours_sc")")")
    results+=("$(printf '%-6s %-7s %8s %8s %9s %9s %8s %9s %s' "$fab" OpenSM "$osm_up" "$osm_exit" "$osm_smps" "" "$(rate "$osm_smps" "$osm_up")" "" "$(costs "$WORK/time-osm-$fab" "$osm_smps" "$osm_sim" "$osm_sc")")")
    results+=("$(printf '%-6s minimum SMPs %d (discovery %d, program %d, activate %d); OpenSM/ibsmd to UP: %s' "$fab" "$min" "$min_disc" "$min_prog" "$min_act" "$speedup")")
    if [ "$ceiling" != "n/a" ] && [ -n "$ceiling" ]; then
        bound=$(awk -v n="$min" -v r="$ceiling" 'BEGIN { printf "%.3f", n / r }')
        best=$(awk -v a="$osm_up" -v b="$bound" 'BEGIN { if (a != "n/a") printf "%.1fx", a / b; else print "n/a" }')
        results+=("$(printf '%-6s simulator ceiling %s SMPs/s (smp_rate_probe, %s outstanding, 1 hop): minimum SMPs take >= %s s, OpenSM/that: %s' "$fab" "$ceiling" "$WINDOW" "$bound" "$best")")
        ours_cpu=$(tail -n 1 "$WORK/time-ibsmd-$fab" | awk -v n="$ours_own" '{ if (n + 0 > 0) printf "%.1f", 1e6 * ($1 + $2) / n }')
        ratio=$(awk -v a="$ours_cpu" -v b="$probe_cpu" 'BEGIN { if (a != "" && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }')
        results+=("$(printf '%-6s probe cpu/SMP %sus; ibsmd cpu/SMP %sus = %sx the probe'"'"'s' "$fab" "$probe_cpu" "$ours_cpu" "$ratio")")
    fi
done

echo
echo "ibsmd --once --smp-window $WINDOW (ftree) vs opensm -o -R ftree, fresh ibsim each; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)$([ "${PIN:-0}" = 1 ] && echo ", SM pinned to CPU 0, ibsim to CPU 1")"
printf '%-6s %-7s %8s %8s %9s %9s %8s %9s %s\n' hosts SM "to UP[s]" "exit[s]" "SMPs" "own count" "SMPs/s" "vs min" \
    "$(printf '%9s %7s %9s %8s %7s' 'cpu/SMP' 'cs/SMP' 'sim/SMP' 'RSS[MB]' 'sc/SMP')"
for r in "${results[@]}"; do echo "$r"; done
