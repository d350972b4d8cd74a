# Shared by the ibsim integration tests: start private ibsim fabrics on net
# files, run libibumad programs against them, stop them on exit.
#
#   . ibsim_env.sh                      # sets WORK, SIM_PRELOAD; defines fail
#   ibsim_start NETFILE                 # the fabric "main", sized for NETFILE
#   ibsim_start --name B NETFILE        # any number more, each its own socket,
#                                       # console and log; the last started is
#                                       # the one `sim` and `ibsim_cmd` talk to
#   ibsim_use NAME                      # talk to another one
#   sim ibnetdiscover ...               # a tool under umad2sim, on the current fabric
#   ibsim_cmd 'Unlink "S-..."[1]'       # a console command to the current fabric
#   ibsim_stop [NAME]                   # one fabric, or every one
#   (every fabric is stopped by the EXIT trap)
#
# Tests must not skip when the simulator is missing: a missing package is a
# failed test with a clear message.

set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

SIM_PRELOAD=${SIM_PRELOAD:-$(dpkg -L libumad2sim0 2>/dev/null | grep 'libumad2sim.so$' | head -n1 || true)}
[ -n "$SIM_PRELOAD" ] && [ -f "$SIM_PRELOAD" ] || fail "libumad2sim.so not found (apt-get install libumad2sim0)"
command -v ibsim >/dev/null || fail "ibsim not found (apt-get install ibsim-utils)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-it.XXXXXX")
# ibsmd's control socket defaults to $RUNTIME_DIRECTORY/control.sock: one
# per test, so tests running side by side do not meet on /run/ibsmd.
export RUNTIME_DIRECTORY="$WORK/run"

# Per fabric name: its ibsim, the sleeping writer that holds its console
# open, and its socket name. The current fabric's are also in IBSIM_PID,
# IBSIM_CONSOLE, IBSIM_LOG and (exported, for umad2sim) IBSIM_SOCKNAME.
declare -gA IBSIM_PIDS=() IBSIM_HOLDS=() IBSIM_SOCKS=()
IBSIM_NAME=""
IBSIM_PID=""
IBSIM_CONSOLE=""
IBSIM_LOG=""

ibsim_console() { echo "$WORK/$1.console"; }
ibsim_log() { echo "$WORK/$1.ibsim.log"; }

# ibsim_use NAME: `sim` and `ibsim_cmd` talk to fabric NAME from now on.
ibsim_use() {
    [ -n "${IBSIM_SOCKS[$1]:-}" ] || fail "no ibsim fabric named '$1' is running"
    IBSIM_NAME=$1
    IBSIM_PID=${IBSIM_PIDS[$1]}
    IBSIM_CONSOLE=$(ibsim_console "$1")
    IBSIM_LOG=$(ibsim_log "$1")
    export IBSIM_SOCKNAME=${IBSIM_SOCKS[$1]}
}

# ibsim_stop [NAME]: stops fabric NAME (every fabric without one) and
# removes its console, so the name can be started again.
ibsim_stop() {
    local names=("$@") n pid
    [ $# -gt 0 ] || names=("${!IBSIM_PIDS[@]}")
    for n in "${names[@]}"; do
        pid=${IBSIM_PIDS[$n]:-}
        [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
        pid=${IBSIM_HOLDS[$n]:-}
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        unset "IBSIM_PIDS[$n]" "IBSIM_HOLDS[$n]" "IBSIM_SOCKS[$n]"
        rm -f "$(ibsim_console "$n")"
        if [ "$n" = "$IBSIM_NAME" ]; then
            IBSIM_NAME=""; IBSIM_PID=""; IBSIM_CONSOLE=""; IBSIM_LOG=""
        fi
    done
}

# ibsim_cleanup [STATUS]: STATUS (default: $? on entry) is the script's exit status.
ibsim_cleanup() {
    local rc=${1:-$?} log
    ibsim_stop
    # $rc is the test's status only when this is the EXIT trap itself; a
    # wrapping trap has run commands of its own by now.
    if [ $rc -ne 0 ]; then
        for log in "$WORK"/*.ibsim.log; do
            [ -f "$log" ] || continue
            echo "--- $(basename "$log") (last 20 lines) ---" >&2
            tail -n 20 "$log" >&2 || true
        done
    fi
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
    # No `exit $rc`: tests wrap this in traps of their own that run other
    # commands first (kill ... || true), so $rc may be 0 for a failed test;
    # an EXIT trap that does not call exit keeps the script's own status.
}
trap ibsim_cleanup EXIT

# `producer | has PATTERN`: like `grep -q`, but reads all its input. With
# pipefail, `grep -q` exiting at the first match can kill a producer that is
# still writing (SIGPIPE, status 141) and turn a match into a failure.
has() { grep "$@" > /dev/null; }

# ibsim_start [--name NAME] NETFILE [ibsim args...]: starts fabric NAME
# (default "main"; one of that name running is stopped first) with ibsim's
# tables sized for NETFILE (ibsim_limits; later args override), its own
# socket name, its console on a FIFO kept open by a sleeping writer (so
# ibsim neither exits on EOF nor blocks) and its log, waits until it is
# ready and makes it the current fabric. Exits the test when ibsim fails.
ibsim_start() {
    local name=main
    if [ "${1:-}" = "--name" ]; then name=$2; shift 2; fi
    local net=$1; shift
    [ -f "$net" ] || fail "no net file $net"
    ibsim_stop "$name"
    local console log pid i
    console=$(ibsim_console "$name")
    log=$(ibsim_log "$name")
    mkfifo "$console"
    sleep 1000000 > "$console" &
    IBSIM_HOLDS[$name]=$!
    IBSIM_SOCKS[$name]="ibsmd-$$-$name-$RANDOM"
    # shellcheck disable=SC2046
    IBSIM_SOCKNAME=${IBSIM_SOCKS[$name]} ibsim $(ibsim_limits "$net") "$@" -s "$net" < "$console" > "$log" 2>&1 &
    pid=$!
    IBSIM_PIDS[$name]=$pid
    # IBSIM_READY_S: how long loading may take (the largest fabrics need minutes).
    for i in $(seq 1 $(( ${IBSIM_READY_S:-60} * 10 ))); do
        if grep -q "Network simulator ready" "$log" 2>/dev/null; then
            ibsim_use "$name"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "ibsim ($name) exited while loading $net"; }
        sleep 0.1
    done
    fail "ibsim ($name) did not become ready on $net within ${IBSIM_READY_S:-60} s"
}

# ibsim_cmd [--name NAME] COMMAND...: one console command to the current
# fabric (or to NAME).
ibsim_cmd() {
    local console=$IBSIM_CONSOLE
    if [ "${1:-}" = "--name" ]; then
        [ -n "${IBSIM_SOCKS[$2]:-}" ] || fail "no ibsim fabric named '$2' is running"
        console=$(ibsim_console "$2")
        shift 2
    fi
    [ -n "$console" ] || fail "ibsim_cmd: no ibsim fabric is running"
    echo "$*" > "$console"
}

# sim CMD...: run a libibumad program against our ibsim. umad2sim writes a
# sysfs mirror into the current directory, so run from $WORK.
# Sanitized builds: the ASan runtime cannot come first when umad2sim is
# preloaded, LeakSanitizer would report the simulator library's own
# allocations, and umad2sim's read() copies past the end of its own receive
# buffer (a 320-byte memcpy from 288 bytes), which ASan's memcpy interceptor
# reports; those three checks are off for simulator runs only.
SIM_ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0:replace_intrin=0"
sim() {
    (cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" "$@")
}

# probe_rate PROBE K COUNT [WRAPPER...]: the SMPs/s tests/bench/smp_rate_probe
# gets keeping K NodeInfo Gets outstanding to the switch one hop from the SM
# (path 0,1) until COUNT are answered: the simulator's own ceiling. WRAPPER
# (e.g. taskset -c 0) runs the probe.
probe_rate() {
    local probe=$1 k=$2 count=$3
    shift 3
    sim "$@" "$probe" --outstanding "$k" --count "$count" --path 0,1 2> /dev/null |
        sed -n 's/.* = \([0-9]*\) SMPs\/s/\1/p'
}

# ibsim_limits NETFILE: table sizes for that fabric.
. "$(dirname "${BASH_SOURCE[0]}")/ibsim_limits.sh"

# dump_fts_matches LFTS_DUMP: the unicast tables dump_fts reads from the
# switches, entry by entry (switch GUID, LID, port), equal the SM's
# lfts.dump. Leaves $WORK/fts.live and fts.ours.
dump_fts_matches() {
    sim dump_fts > "$WORK/dump_fts.txt" 2> "$WORK/dump_fts.err" || { cat "$WORK/dump_fts.err" >&2; fail "dump_fts failed"; }
    local normalize='/^Unicast lids/ { g = ""; for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1); next }
                     /^0x[0-9a-f]+ [0-9]+ :/ { print g, $1, $2 }'
    awk "$normalize" "$WORK/dump_fts.txt" | sort > "$WORK/fts.live"
    awk "$normalize" "$1" | sort > "$WORK/fts.ours"
    [ -s "$WORK/fts.ours" ] || fail "lfts.dump has no entries"
    if ! diff -q "$WORK/fts.live" "$WORK/fts.ours" > /dev/null; then
        diff "$WORK/fts.live" "$WORK/fts.ours" | head -20 >&2
        fail "forwarding tables read from the fabric differ from lfts.dump"
    fi
    echo "$(wc -l < "$WORK/fts.ours") LFT entries identical"
}
