# Shared by the benchmarks: run OpenSM once against a private ibsim on a net
# file and read its own timings from its log.
#
#   . opensm_lib.sh
#   opensm_measure ENGINE NETFILE DIR [TIMEOUT_S [OPENSM_ARG...]]   -> prints "route_s up_s"
#   (OPENSM_ARGs are added to opensm's command line, e.g. -a ROOT_GUID_FILE)
#
# route_s: "building routing with 'ENGINE'" -> "ENGINE tables configured"
#          (OpenSM's routing computation plus queueing its LFT Sets; the
#          first line needs -D 0x07)
# up_s:    first log line -> "SUBNET UP" (inflated a little by -D 0x07)
# "n/a" where a line is missing (OpenSM failed or timed out: see DIR).
# Each run gets its own OSM_CACHE_DIR so no run reuses another's LIDs.

. "$(dirname "${BASH_SOURCE[0]}")/../integration/ibsim_limits.sh"

opensm_umad2sim=${UMAD2SIM:-$(dpkg -L libumad2sim0 2>/dev/null | grep 'libumad2sim.so$' | head -n1)}

# "Nov 22 18:50:26 264397 [..] ..." on stdin -> seconds since midnight.
opensm_log_seconds() {
    awk '{ split($3, t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3] + $4 / 1e6; exit }'
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
        (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$opensm_umad2sim OSM_CACHE_DIR=$dir/cache \
            timeout -s KILL "$timeout_s" opensm -o -R "$engine" -D 0x07 -f "$dir/osm.log" "$@" > "$dir/osm.out" 2>&1) ||
            echo "opensm $engine failed or timed out on $net (see $dir)" >&2
    else
        echo "ibsim did not start on $net (see $dir/ibsim.log)" >&2
    fi
    kill "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
    kill "$hold_pid" 2>/dev/null || true
    local log=$dir/osm.log t_first="" t_start="" t_end="" t_up=""
    if [ -f "$log" ]; then
        t_first=$(head -n1 "$log" | opensm_log_seconds)
        t_start=$(grep -m1 "building routing with '$engine'" "$log" | opensm_log_seconds || true)
        t_end=$(grep -m1 "$engine tables configured" "$log" | opensm_log_seconds || true)
        t_up=$(grep -m1 "SUBNET UP" "$log" | opensm_log_seconds || true)
    fi
    awk -v a="$t_start" -v b="$t_end" -v f="$t_first" -v u="$t_up" 'BEGIN {
        r = (a != "" && b != "") ? sprintf("%.3f", b - a) : "n/a";
        s = (f != "" && u != "") ? sprintf("%.3f", u - f) : "n/a";
        print r, s }'
}
