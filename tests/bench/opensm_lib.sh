# Shared by the benchmarks: run OpenSM once against a private ibsim on a net
# file and read its own timings from its log.
#
#   . opensm_lib.sh
#   opensm_measure ENGINE NETFILE DIR [TIMEOUT_S [OPENSM_ARG...]]   -> prints "route_s up_s routed_by"
#   (OPENSM_ARGs are added to opensm's command line, e.g. -a ROOT_GUID_FILE)
#   OPENSM_READBACK=1: once OpenSM is done, read its tables back from the
#   simulated switches as an operator would score a live fabric:
#   `ibnetdiscover` > DIR/topology.net and `dump_fts` > DIR/lfts.dump, for
#   `ibsm analyze --topology DIR/topology.net --lfts DIR/lfts.dump`.
#   OPENSM_PRERUN=ENGINE: first run `opensm -o -R ENGINE` (same OPENSM_ARGs)
#   on the same ibsim, so the measured run finds the port settings a first
#   sweep leaves (OperVLs from max_op_vls: OpenSM sets a switch's external
#   ports only after routing, so its first routing sees ibsim's 8 VLs).
#   OPENSM_SA_HOOK="FUNCTION [ARG...]": run OpenSM as a daemon instead of
#   with -o (log flushed per line, -d2, so SUBNET UP can be seen), and once
#   it is up (and the tables are read back) call
#   `FUNCTION ARG... DIR RUN...` while its SA still answers; RUN... runs a
#   program against the simulator. Then OpenSM is stopped. For what only the
#   SA tells, e.g. opensm_sl_by_dlid below.
#
# route_s: "building routing with 'ENGINE'" -> "ENGINE tables configured"
#          (OpenSM's routing computation plus queueing its LFT Sets; the
#          first line needs -D 0x07)
# up_s:    first log line -> "SUBNET UP" (inflated a little by -D 0x07)
# routed_by: the engine whose tables OpenSM configured (ENGINE, or the one it
#          fell back to, e.g. minhop when updn finds no root or dfsssp runs
#          out of VLs; route_s is then n/a: ENGINE did not route)
# "n/a" where a line is missing (OpenSM failed or timed out: see DIR).
# Each run gets its own OSM_CACHE_DIR so no run reuses another's LIDs.

. "$(dirname "${BASH_SOURCE[0]}")/../integration/ibsim_limits.sh"

opensm_umad2sim=${UMAD2SIM:-$(dpkg -L libumad2sim0 2>/dev/null | grep 'libumad2sim.so$' | head -n1)}

# "Nov 22 18:50:26 264397 [..] ..." on stdin -> seconds since midnight.
opensm_log_seconds() {
    awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6; exit }'
}

# opensm_dump_fts_top DUMP RUN...: dump_fts (infiniband-diags 3.x) never
# reads the LFT block that holds LinearFDBTop when that LID is a multiple of
# 64 (its last block is ALIGN(top, 64) / 64, exclusive; ibroute does the
# same), so the highest LID would look unrouted on every switch: on fabrics
# of 320 or 832 LIDs (an 8x8 torus, a 6-cube, 64 x 12 random) 1 destination
# in 320. Reads that block of each such switch with `smpdump` over the DR
# path of the dump's header and adds the entry. RUN... runs a program against
# the simulator (env + LD_PRELOAD).
opensm_dump_fts_top() {
    local dump=$1 fixes=$1.top path top port
    shift
    : > "$fixes"
    while read -r path top; do
        port=$("$@" smpdump -D "$path" 0x19 $((top / 64)) 2> /dev/null | head -n1 | cut -c1-2) || continue
        [ -n "$port" ] && [ "$port" != ff ] && echo "$path $top $((16#$port))" >> "$fixes"
    done < <(awk '/^Unicast lids \[0x0-0x[0-9a-f]+\] of switch DR path/ {
                 h = $3; sub(/^\[0x0-0x/, "", h); sub(/\]$/, "", h)
                 v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
                 if (v % 64 == 0 && match($0, /dlid 0; [0-9,]+ guid/)) print substr($0, RSTART + 8, RLENGTH - 13), v }' "$dump")
    [ -s "$fixes" ] || return 0
    awk 'NR == FNR { fix[$1] = $3; top[$1] = $2; next }
         /^Unicast lids/ { p = ""; if (match($0, /dlid 0; [0-9,]+ guid/)) p = substr($0, RSTART + 8, RLENGTH - 13) }
         / valid lids dumped/ && (p in fix) { printf "0x%04x %03d : (LinearFDBTop, read by smpdump)\n", top[p], fix[p]
                                              $1 = $1 + 1; print $0 " "; next }
         { print }' "$fixes" "$dump" > "$dump.fixed" && mv "$dump.fixed" "$dump"
}

# opensm_readback NET DIR SOCK: ibnetdiscover and dump_fts against the simulator.
opensm_readback() {
    local net=$1 dir=$2 sock=$3
    rm -f "$dir/topology.net" "$dir/lfts.dump"
    (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim ibnetdiscover > "$dir/topology.net" 2> "$dir/readback.err" &&
        IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim dump_fts > "$dir/lfts.dump" 2>> "$dir/readback.err" &&
        opensm_dump_fts_top "$dir/lfts.dump" env IBSIM_SOCKNAME="$sock" LD_PRELOAD="$opensm_umad2sim") ||
        echo "reading OpenSM's tables back failed on $net (see $dir/readback.err)" >&2
}

# opensm_serve ENGINE NET DIR SOCK TIMEOUT_S [OPENSM_ARG...]: OpenSM as a
# daemon until SUBNET UP (or TIMEOUT_S), then the read-back and
# OPENSM_SA_HOOK while the SA answers, then SIGTERM (its log is flushed per
# line: -d2).
opensm_serve() {
    local engine=$1 net=$2 dir=$3 sock=$4 timeout_s=$5 osm_pid up=0 hook
    shift 5
    (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim OSM_CACHE_DIR=$dir/cache \
        exec opensm -R "$engine" -D 0x07 -d2 -f "$dir/osm.log" "$@" > "$dir/osm.out" 2>&1) &
    osm_pid=$!
    for _ in $(seq 1 $((timeout_s * 5))); do
        grep -q "SUBNET UP" "$dir/osm.log" 2> /dev/null && { up=1; break; }
        kill -0 "$osm_pid" 2> /dev/null || break
        sleep 0.2
    done
    if [ "$up" = 1 ]; then
        if [ "${OPENSM_READBACK:-0}" = 1 ]; then opensm_readback "$net" "$dir" "$sock"; fi
        read -r -a hook <<< "$OPENSM_SA_HOOK"
        "${hook[@]}" "$dir" env IBSIM_SOCKNAME="$sock" LD_PRELOAD="$opensm_umad2sim" ||
            echo "$OPENSM_SA_HOOK failed on $net (see $dir)" >&2
    else
        echo "opensm $engine did not bring the subnet up on $net within ${timeout_s} s (see $dir)" >&2
    fi
    kill "$osm_pid" 2> /dev/null || true
    wait "$osm_pid" 2> /dev/null || true
}

# opensm_sl_by_dlid VLS DIR RUN...: DIR/sl.txt (routing/sl_file.h's format,
# for `ibsm analyze --sl`) from OpenSM's SA, for engines whose path SL
# depends on the destination LID only (nue: nue_get_vl_for_path returns
# dlid_to_vl_mapping[dlid]): one PathRecord from the first CA port to every
# LID of DIR/topology.net (ibsim's SA answers no multi-MAD tables, so one
# saquery per LID), the same SL string for every source port. Fails when a
# record is missing or an SL is not below VLS.
opensm_sl_by_dlid() {
    local vls=$1 dir=$2 src lid sl
    shift 2
    opensm_topology_ports "$dir/topology.net" > "$dir/ports.txt" || return 1
    src=$(awk '$2 != 0 { print $3; exit }' "$dir/ports.txt")
    [ -n "$src" ] || return 1
    : > "$dir/dlid_sl.txt"
    while read -r _ _ lid; do
        sl=$("$@" saquery PR --src-to-dst "$src:$lid" 2> /dev/null | sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\)$/\1/p' | head -n1)
        [ -n "$sl" ] || { echo "no PathRecord $src -> $lid from OpenSM's SA" >&2; return 1; }
        echo "$lid $((sl))" >> "$dir/dlid_sl.txt"
    done < "$dir/ports.txt"
    awk -v vls="$vls" '
        NR == FNR { sl[$1] = $2; if ($1 > top) top = $1; if ($2 >= vls) bad = $2; next }
        FNR == 1 { if (bad != "") { print "SL " bad " is not below " vls > "/dev/stderr"; exit 1 }
                   printf "# OpenSM PathRecord SLs by destination LID\nvls %d\nlids %d\n", vls, top + 1
                   for (l = 0; l <= top; l++) s = s sprintf("%x", (l in sl) ? sl[l] : 0)
                   sub(/0+$/, "", s) }
        { print $1, $2, s }' "$dir/dlid_sl.txt" "$dir/ports.txt" > "$dir/sl.txt"
}

# opensm_topology_ports NETFILE -> "NODE_GUID PORT LID" per CA port and
# switch port 0 of an ibnetdiscover file.
opensm_topology_ports() {
    awk '/^switchguid=/ { g = $0; sub(/^switchguid=/, "", g); sub(/\(.*/, "", g) }
         /^caguid=/     { g = $0; sub(/^caguid=/, "", g) }
         /^Switch/ && match($0, /base port 0 lid [0-9]+/) { print g, 0, substr($0, RSTART + 16, RLENGTH - 16) }
         /^Ca/          { ca = 1; next }
         /^$/           { ca = 0 }
         ca && /^\[[0-9]+\]/ && match($0, /# lid [0-9]+/) {
             p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p)
             print g, p, substr($0, RSTART + 6, RLENGTH - 6) }' "$1"
}

opensm_measure() {
    local engine=$1 net=$2 dir=$3 timeout_s=${4:-900}
    shift $(( $# < 4 ? $# : 4 ))
    local sock ibsim_pid hold_pid
    mkdir -p "$dir/cache"
    rm -f "$dir/cons" "$dir/osm.log"
    mkfifo "$dir/cons"
    sleep 1000000 > "$dir/cons" &
    hold_pid=$!
    sock="osm-bench-$$-$RANDOM"
    # shellcheck disable=SC2046
    IBSIM_SOCKNAME=$sock ibsim $(ibsim_limits "$net") -s "$net" \
        < "$dir/cons" > "$dir/ibsim.log" 2>&1 &
    ibsim_pid=$!
    for _ in $(seq 1 900); do
        grep -q "Network simulator ready" "$dir/ibsim.log" 2>/dev/null && break
        kill -0 "$ibsim_pid" 2>/dev/null || break
        sleep 0.2
    done
    if grep -q "Network simulator ready" "$dir/ibsim.log"; then
        if [ -n "${OPENSM_PRERUN:-}" ]; then
            (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim OSM_CACHE_DIR=$dir/cache \
                timeout -s KILL "$timeout_s" opensm -o -R "$OPENSM_PRERUN" -f "$dir/osm-prerun.log" "$@" > "$dir/osm-prerun.out" 2>&1) ||
                echo "opensm $OPENSM_PRERUN (the run before) failed or timed out on $net (see $dir)" >&2
        fi
        if [ -n "${OPENSM_SA_HOOK:-}" ]; then
            opensm_serve "$engine" "$net" "$dir" "$sock" "$timeout_s" "$@"
        else
            (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim OSM_CACHE_DIR=$dir/cache \
                timeout -s KILL "$timeout_s" opensm -o -R "$engine" -D 0x07 -f "$dir/osm.log" "$@" > "$dir/osm.out" 2>&1) ||
                echo "opensm $engine failed or timed out on $net (see $dir)" >&2
            if [ "${OPENSM_READBACK:-0}" = 1 ]; then opensm_readback "$net" "$dir" "$sock"; fi
        fi
    else
        echo "ibsim did not start on $net (see $dir/ibsim.log)" >&2
    fi
    kill "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
    kill "$hold_pid" 2>/dev/null || true
    local log=$dir/osm.log t_first="" t_start="" t_end="" t_up="" routed_by=""
    if [ -f "$log" ]; then
        routed_by=$(grep -m1 -oE "[a-z_]+ tables configured on all switches" "$log" | cut -d' ' -f1 || true)
        t_first=$(head -n1 "$log" | opensm_log_seconds)
        t_start=$(grep -m1 "building routing with '$engine'" "$log" | opensm_log_seconds || true)
        t_end=$(grep -m1 "$engine tables configured" "$log" | opensm_log_seconds || true)
        t_up=$(grep -m1 "SUBNET UP" "$log" | opensm_log_seconds || true)
    fi
    awk -v a="$t_start" -v b="$t_end" -v f="$t_first" -v u="$t_up" -v by="${routed_by:-n/a}" 'BEGIN {
        r = (a != "" && b != "") ? sprintf("%.3f", b - a) : "n/a";
        s = (f != "" && u != "") ? sprintf("%.3f", u - f) : "n/a";
        print r, s, by }'
}
