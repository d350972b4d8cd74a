# Shared by the tests of the long-running SM (traps, re-routes, signals): start ibsmd against
# the test's ibsim, wait for it to act on an event, read the fabric back with
# infiniband-diags and check it with `ibsm analyze`.
#
#   . ibsim_env.sh; . sm_events_lib.sh   (after IBSMD, IBSM, HERE are set)
#   sm_start LOGFILE ARGS...      ibsmd ARGS in the background (SM_PID, SM_LOG)
#   n=$(sm_lines)                 mark the log before an event
#   sm_wait_up "$n" [TIMEOUT_S]   the next SUBNET UP after mark n, then quiet
#   sm_wait_for "$n" REGEX [TIMEOUT_S]   a log line matching REGEX after mark n
#   sm_quiet [SECONDS]            the log stopped growing
#   sm_since "$n"                 the log after mark n
#   check_fabric TAG HOSTS SWITCHES LINKS
#                                 read back into $WORK/TAG.{net,fts,links,json}
#                                 and check: expected size, 0 unreachable CA
#                                 pairs, no loop, no credit loop in CA
#                                 traffic, every linked port ACTIVE, our port
#                                 MASTER (sminfo)
#   blocks_sent "$n"              LFT blocks the program phases after mark n sent
#   blocks_changed TAG_BEFORE TAG_AFTER   blocks that differ between two read-backs
#   small_tree                    the health and drain tests' fabric in $WORK/fabric.net
#                                 (LINKS, HOSTS, SWITCHES, LEAF1 set)
#   far_end SWITCH PORT           "SWITCH' PORT'" cabled to SWITCH's PORT (net file)
#   guid S-...                    a net file's switch id as a GUID (0x...)

SM_PID=""
SM_LOG=""
sm_stop_on_exit() {
    local rc=$?
    # Wait for the exit: ibsmd writes its last state.json as it stops, which
    # would race the removal of $WORK.
    [ -n "$SM_PID" ] && kill "$SM_PID" 2> /dev/null && wait "$SM_PID" 2> /dev/null || true
    ibsim_cleanup "$rc" # the test's status, not the kill's
}
trap sm_stop_on_exit EXIT

# sm_start LOGFILE ARGS...: the daemon's console (or, in service mode, its
# stderr) goes to LOGFILE.
sm_start() {
    SM_LOG=$1; shift
    (cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" exec "$IBSMD" "$@") > "$SM_LOG" 2>&1 &
    SM_PID=$!
}

sm_alive() {
    kill -0 "$SM_PID" 2> /dev/null || { tail -n 40 "$SM_LOG" >&2; fail "ibsmd exited (see above)"; }
}

sm_lines() { wc -l < "$SM_LOG"; }
sm_since() { tail -n "+$(($1 + 1))" "$SM_LOG"; }
# sm_up_generation MARK: the generation of the last SUBNET UP after MARK
# (fails when there is none).
sm_up_generation() { sm_since "$1" | grep -oE "SUBNET UP \(generation [0-9]+" | tail -n1 | grep -oE "[0-9]+$"; }
sm_ups_since() { sm_since "$1" | grep -cE "SUBNET (UP|DEGRADED)" || true; }

# sm_wait_for MARK REGEX [TIMEOUT_S]: a line matching REGEX after MARK.
sm_wait_for() {
    local mark=$1 re=$2 timeout=${3:-30} i
    for i in $(seq 1 $((timeout * 10))); do
        sm_since "$mark" | has -E "$re" && return 0
        sm_alive
        sleep 0.1
    done
    sm_since "$mark" | tail -n 30 >&2
    fail "no '$re' in ibsmd's log within $timeout s"
}

# sm_quiet [SECONDS]: the log has not grown for SECONDS (default 1.5: the
# debounce window and a dump being written have passed).
sm_quiet() {
    local need size last=-1 stable=0 i
    need=$(awk -v s="${1:-1.5}" 'BEGIN { printf "%d", s * 10 }')
    for i in $(seq 1 300); do
        size=$(stat -c %s "$SM_LOG")
        if [ "$size" = "$last" ]; then
            stable=$((stable + 1))
            [ "$stable" -ge "$need" ] && return 0
        else
            stable=0
        fi
        last=$size
        sm_alive
        sleep 0.1
    done
    fail "ibsmd's log kept growing for 30 s"
}

sm_wait_up() {
    sm_wait_for "$1" "SUBNET (UP|DEGRADED)" "${2:-30}"
    sm_quiet
    if sm_since "$1" | has "SUBNET DEGRADED"; then
        sm_since "$1" | grep -E "SUBNET|refused|error" >&2
        fail "the subnet came up degraded"
    fi
}

blocks_sent() {
    sm_since "$1" | sed -n 's/.*phase program .*LFT blocks sent: \([0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}

blocks_changed() { python3 "$HERE/reroute_check.py" blockdiff "$WORK/$1.fts" "$WORK/$2.fts"; }

readback() {
    local tag=$1
    sim ibnetdiscover > "$WORK/$tag.net" 2> "$WORK/$tag.err" || { cat "$WORK/$tag.err" >&2; fail "$tag: ibnetdiscover failed"; }
    sim dump_fts > "$WORK/$tag.fts" 2> "$WORK/$tag.err" || { cat "$WORK/$tag.err" >&2; fail "$tag: dump_fts failed"; }
    sim iblinkinfo > "$WORK/$tag.links" 2> "$WORK/$tag.err" || { cat "$WORK/$tag.err" >&2; fail "$tag: iblinkinfo failed"; }
}

SM_GUID=""
check_fabric() {
    local tag=$1 hosts=$2 switches=$3 links=$4
    readback "$tag"
    local up active
    up=$(grep -c 'LinkUp' "$WORK/$tag.links" || true)
    active=$(grep -c 'Active/  LinkUp' "$WORK/$tag.links" || true)
    [ "$up" -eq "$active" ] || {
        grep 'LinkUp' "$WORK/$tag.links" | grep -v 'Active/' | head >&2; fail "$tag: $((up - active)) linked port(s) not ACTIVE"; }
    # iblinkinfo lists each cable from both ends.
    [ "$active" -eq $((2 * links)) ] || fail "$tag: $active ACTIVE port ends, expected $((2 * links)) ($links links)"
    "$IBSM" analyze --topology "$WORK/$tag.net" --lfts "$WORK/$tag.fts" --json --bisections 100 --threads 1 \
        --out "$WORK/$tag.json" 2> "$WORK/$tag.analyze.err" || { cat "$WORK/$tag.analyze.err" >&2; fail "$tag: ibsm analyze failed"; }
    python3 "$HERE/reroute_check.py" analyze "$WORK/$tag.json" "$hosts" "$switches" "$links" || fail "$tag: routes read back are wrong"
    [ -n "$SM_GUID" ] || SM_GUID=$(sed -n 's/.*(port GUID \(0x[0-9a-f]*\)).*/\1/p' "$SM_LOG" | head -n1)
    sim sminfo > "$WORK/$tag.sminfo" 2>&1 || { cat "$WORK/$tag.sminfo" >&2; fail "$tag: sminfo failed"; }
    grep -q "SMINFO_MASTER" "$WORK/$tag.sminfo" || { cat "$WORK/$tag.sminfo" >&2; fail "$tag: sminfo does not say MASTER"; }
    local seen
    seen=$(sed -n 's/.*sm guid \(0x[0-9a-f]*\),.*/\1/p' "$WORK/$tag.sminfo")
    [ -n "$seen" ] && [ "$((seen))" -eq "$((SM_GUID))" ] || fail "$tag: sminfo names SM $seen, ours is $SM_GUID"
    echo "$tag: $active port ends ACTIVE, SM $SM_GUID MASTER"
}

# status_json KEY...: a field of $STATE/state.json (python3 json: fails on
# invalid JSON or a missing key).
status_json() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(v)' "$STATE/state.json" "$@"; }

# The two-level fat-tree PGFT(2; 4,4; 1,4; 1,1) the health and drain tests
# share: 8 switches, 16 hosts, 16 leaf-to-spine links; every leaf has its
# hosts on ports 1..4 and the spines on 5..8. LEAF1 is the first leaf.
small_tree() {
    "$IBSM" topogen pgft --m 4,4 --w 1,4 --p 1,1 --out "$WORK/fabric.net" > /dev/null
    LINKS=$(( $(grep -c '^\[' "$WORK/fabric.net") / 2 ))
    HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
    SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
    LEAF1=S-0002c90201000001
}
far_end() {
    awk -v id="\"$1\"" -v port="[$2]" '$1 == "Switch" { cur = $3 }
        cur == id && index($0, port) == 1 { match($0, /"S-[0-9a-f]+"\[[0-9]+\]/); s = substr($0, RSTART, RLENGTH);
        gsub(/[\[\]"]/, " ", s); print s; exit }' "$WORK/fabric.net"
}
guid() { echo "0x${1#S-}"; }
