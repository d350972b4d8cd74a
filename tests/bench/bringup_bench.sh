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
# and the minimum SMP count of a bring-up, computed from the net file alone:
#   discovery  (links + 1) NodeInfo (every cable is crossed once, plus the
#              SM's node), one NodeDescription per node, SwitchInfo per
#              switch, PortInfo of every switch port 0..N and of every cabled
#              CA port;
#   program    per switch ceil((top LID + 1) / 64) LFT blocks, one SwitchInfo
#              Set (LinearFDBTop), one PortInfo Set of port 0 (LID);
#              per cabled CA port one SL2VL Set (a fresh port is written
#              without reading it); per cabled port end (CA and switch) the
#              low- and high-priority VLArb blocks, one Set each (ibsim's
#              ports have 8-entry tables, one block each);
#   activate   two PortInfo Sets per cabled port end (ARMED carrying LID and
#              link settings, then ACTIVE).
#
# and the simulator's ceiling: smp_rate_probe (env PROBE) keeping WINDOW
# NodeInfo Gets outstanding to the switch one hop away, on the same ibsim
# right after ibsmd exits. No SM sending the minimum SMP count can come up
# faster than minimum / ceiling on this machine; the line shows that bound
# and the speed-up over OpenSM it would give.
#
# usage: bringup_bench.sh IBSMD IBSM [FABRIC...]
#   FABRIC: 648 | 3456 | 11664 (default: 648 3456; 11664 takes minutes)
# env: SMP_WINDOW (ibsmd --smp-window, default 64), SKIP_OPENSM=1,
#      PROBE=path/to/smp_rate_probe (the ceiling line; omitted without it),
#      PIN=1: ibsim on CPU 1, the SM under test (ibsmd or OpenSM, all threads)
#      on CPU 0. Against ibsim most of an SMP's cost is waking threads across
#      CPUs (umad2sim's receiver thread hands every datagram to the SM's
#      thread); pinning removes that scheduler noise for both SMs alike.
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); shift 2
fabrics=("$@")
[ ${#fabrics[@]} -eq 0 ] && fabrics=(648 3456)
WINDOW=${SMP_WINDOW:-64}
PIN_SM=()
if [ "${PIN:-0}" = 1 ]; then
    [ "$(nproc)" -ge 2 ] || { echo "PIN=1 needs two CPUs" >&2; exit 2; }
    PIN_SM=(taskset -c 0)
fi
pin_ibsim() { [ "${PIN:-0}" = 1 ] && taskset -p -c 1 "$IBSIM_PID" > /dev/null || true; }
. "$(dirname "$0")/../integration/ibsim_env.sh"

. "$(dirname "$0")/fabrics.sh"

now() { date +%s.%N; }
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
            program = switches * (blocks + 2) + caports + 2 * ends
            activate = 2 * ends
            printf "%d %d %d %d\n", discovery + program + activate, discovery, program, activate
        }' "$1"
}

results=()
for fab in "${fabrics[@]}"; do
    net="$WORK/ft-$fab.net"
    # shellcheck disable=SC2046
    args=$(pgft_args "$fab")
    # shellcheck disable=SC2086
    "$IBSM" topogen pgft $args --out "$net" >&2
    read -r -a limits <<< "$(ibsim_limits "$net")"
    read -r min min_disc min_prog min_act <<< "$(minimum_smps "$net")"

    # ---- ibsmd
    ibsim_start "$net" "${limits[@]}"
    pin_ibsim
    state="$WORK/state-$fab"
    t0=$(now)
    sim "${PIN_SM[@]}" "$IBSMD" --once --state-dir "$state" --smp-window "$WINDOW" 2> "$WORK/ibsmd-$fab.log" || {
        cat "$WORK/ibsmd-$fab.log" >&2; echo "FAIL: ibsmd --once on $fab" >&2; exit 1; }
    t_exit=$(now)
    up_line=$(grep -m1 "SUBNET UP" "$WORK/ibsmd-$fab.log")
    up_ts=$(date -d "$(echo "$up_line" | awk '{ print $1, $2 }')" +%s.%N)
    ours_up=$(elapsed "$t0" "$up_ts")
    ours_exit=$(elapsed "$t0" "$t_exit")
    ours_own=$(echo "$up_line" | sed -n 's/.* s, \([0-9]*\) SMPs (.*/\1/p')
    ours_smps=$(xmit_pkts)
    grep -E "phase" "$WORK/ibsmd-$fab.log" | sed 's/^[^ ]* [^ ]* info /  ibsmd /' >&2
    ceiling="n/a"
    [ -n "${PROBE:-}" ] && ceiling=$(probe_rate "$PROBE" "$WINDOW" 100000 "${PIN_SM[@]}")
    ibsim_stop
    rm -f "$WORK/console"

    # ---- OpenSM
    osm_up="n/a"; osm_exit="n/a"; osm_smps="n/a"
    if [ -z "${SKIP_OPENSM:-}" ]; then
        ibsim_start "$net" "${limits[@]}"
    pin_ibsim
        mkdir -p "$WORK/osm-cache-$fab"
        t0=$(now)
        # Private cache dir: OpenSM must not reuse another run's guid2lid.
        (cd "$WORK" && OSM_CACHE_DIR="$WORK/osm-cache-$fab" LD_PRELOAD="$SIM_PRELOAD" \
            "${PIN_SM[@]}" timeout 1800 opensm -o -R ftree -f "$WORK/osm-$fab.log" > "$WORK/osm-$fab.out" 2>&1) || true
        t_exit=$(now)
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
        rm -f "$WORK/console"
    fi

    rate() { awk -v n="$1" -v t="$2" 'BEGIN { if (t + 0 > 0 && n != "n/a") printf "%.0f", n / t; else print "n/a" }'; }
    speedup=$(awk -v a="$osm_up" -v b="$ours_up" 'BEGIN { if (a != "n/a" && b > 0) printf "%.1fx", a / b; else print "n/a" }')
    over=$(awk -v n="$ours_own" -v m="$min" 'BEGIN { printf "%+.1f%%", 100 * (n - m) / m }')
    results+=("$(printf '%-6s %-7s %8s %8s %9s %9s %8s %9s' "$fab" ibsmd "$ours_up" "$ours_exit" "$ours_smps" "$ours_own" "$(rate "$ours_smps" "$ours_up")" "$over")")
    results+=("$(printf '%-6s %-7s %8s %8s %9s %9s %8s %9s' "$fab" OpenSM "$osm_up" "$osm_exit" "$osm_smps" "" "$(rate "$osm_smps" "$osm_up")" "")")
    results+=("$(printf '%-6s minimum SMPs %d (discovery %d, program %d, activate %d); OpenSM/ibsmd to UP: %s' "$fab" "$min" "$min_disc" "$min_prog" "$min_act" "$speedup")")
    if [ "$ceiling" != "n/a" ] && [ -n "$ceiling" ]; then
        bound=$(awk -v n="$min" -v r="$ceiling" 'BEGIN { printf "%.3f", n / r }')
        best=$(awk -v a="$osm_up" -v b="$bound" 'BEGIN { if (a != "n/a") printf "%.1fx", a / b; else print "n/a" }')
        results+=("$(printf '%-6s simulator ceiling %s SMPs/s (smp_rate_probe, %s outstanding, 1 hop): minimum SMPs take >= %s s, OpenSM/that: %s' "$fab" "$ceiling" "$WINDOW" "$bound" "$best")")
    fi
done

echo
echo "ibsmd --once --smp-window $WINDOW (ftree) vs opensm -o -R ftree, fresh ibsim each; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)$([ "${PIN:-0}" = 1 ] && echo ", SM pinned to CPU 0, ibsim to CPU 1")"
printf '%-6s %-7s %8s %8s %9s %9s %8s %9s\n' hosts SM "to UP[s]" "exit[s]" "SMPs" "own count" "SMPs/s" "vs min"
for r in "${results[@]}"; do echo "$r"; done
