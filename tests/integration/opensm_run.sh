# Shared by the integration tests that run OpenSM on the test's ibsim beside
# (or instead of) ibsmd, to compare the two or hand over between them.
#
#   . ibsim_env.sh; . opensm_run.sh
#   osm_config CONF LOG [SED_EXPR...]   OpenSM's own defaults (opensm -c) in
#                                       CONF, every log line flushed to LOG;
#                                       each SED_EXPR edits CONF further
#   osm_wait_up LOG PID [TIMEOUT_S]     SUBNET UP in LOG (default 30 s);
#                                       fails if PID exits first
#   osm_stop PID                        SIGTERM, SIGKILL after 5 s: OpenSM
#                                       under umad2sim may not leave on SIGTERM
#   osm_cleanup_on_exit                 the EXIT trap also kills $OSM_PID and
#                                       $SM_PID, when set

osm_config() {
    local conf=$1 log=$2 expr
    shift 2
    opensm -c "$conf" > /dev/null 2>&1 || true
    [ -s "$conf" ] || fail "opensm -c wrote no $conf"
    local args=(-e 's/^force_log_flush .*/force_log_flush TRUE/' -e "s|^log_file .*|log_file $log|")
    for expr in "$@"; do args+=(-e "$expr"); done
    sed -i "${args[@]}" "$conf"
}

osm_wait_up() {
    local log=$1 pid=$2 timeout=${3:-30} i
    for i in $(seq 1 $((timeout * 10))); do
        grep -q "SUBNET UP" "$log" 2> /dev/null && return 0
        kill -0 "$pid" 2> /dev/null || { tail -n 20 "$log" >&2; fail "opensm exited before SUBNET UP"; }
        sleep 0.1
    done
    tail -n 20 "$log" >&2
    fail "OpenSM: no SUBNET UP within $timeout s"
}

osm_stop() {
    local pid=$1 i
    kill "$pid" 2> /dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
}

OSM_PID=""
osm_cleanup_on_exit() {
    _osm_cleanup() {
        local rc=$?
        [ -n "$OSM_PID" ] && kill -9 "$OSM_PID" 2> /dev/null || true
        [ -n "${SM_PID:-}" ] && kill -9 "$SM_PID" 2> /dev/null || true
        ibsim_cleanup "$rc"
    }
    trap _osm_cleanup EXIT
}
