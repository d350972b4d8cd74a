# Shared by the ibsim integration tests: start a private ibsim on a net file,
# run libibumad programs against it, stop it on exit.
#
#   . ibsim_env.sh
#   ibsim_start NETFILE [extra ibsim args]   # sets IBSIM_SOCKNAME, SIM_PRELOAD, WORK
#   sim ibnetdiscover ...                    # runs a tool under umad2sim
#   (ibsim is stopped by the EXIT trap)
#
# Tests must not skip when the simulator is missing: a missing package is a
# failed test with a clear message.

set -euo pipefail

SIM_PRELOAD=${SIM_PRELOAD:-$(dpkg -L libumad2sim0 2>/dev/null | grep 'libumad2sim.so$' | head -n1 || true)}
[ -n "$SIM_PRELOAD" ] && [ -f "$SIM_PRELOAD" ] || { echo "FAIL: libumad2sim.so not found (apt-get install libumad2sim0)" >&2; exit 1; }
command -v ibsim >/dev/null || { echo "FAIL: ibsim not found (apt-get install ibsim-utils)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-it.XXXXXX")
# ibsmd's control socket defaults to $RUNTIME_DIRECTORY/control.sock: one
# per test, so tests running side by side do not meet on /run/ibsmd.
export RUNTIME_DIRECTORY="$WORK/run"
IBSIM_PID=""
IBSIM_HOLD_PID=""

ibsim_stop() {
    [ -n "$IBSIM_PID" ] && kill "$IBSIM_PID" 2>/dev/null && wait "$IBSIM_PID" 2>/dev/null || true
    [ -n "$IBSIM_HOLD_PID" ] && kill "$IBSIM_HOLD_PID" 2>/dev/null || true
    IBSIM_PID=""
    IBSIM_HOLD_PID=""
}

# ibsim_cleanup [STATUS]: STATUS (default: $? on entry) is the script's exit status.
ibsim_cleanup() {
    local rc=${1:-$?}
    ibsim_stop
    # $rc is the test's status only when this is the EXIT trap itself; a
    # wrapping trap has run commands of its own by now.
    if [ $rc -ne 0 ] && [ -f "$WORK/ibsim.log" ]; then
        echo "--- ibsim log (last 20 lines) ---" >&2
        tail -n 20 "$WORK/ibsim.log" >&2 || true
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

# ibsim_start NETFILE [ibsim args...]: the console is a FIFO kept open by a
# sleeping writer so ibsim neither exits on EOF nor blocks; `ibsim_cmd`
# writes console commands to it.
ibsim_start() {
    local net=$1; shift
    export IBSIM_SOCKNAME="ibsmd-$$-$RANDOM"
    mkfifo "$WORK/console"
    sleep 1000000 > "$WORK/console" &
    IBSIM_HOLD_PID=$!
    ibsim "$@" -s "$net" < "$WORK/console" > "$WORK/ibsim.log" 2>&1 &
    IBSIM_PID=$!
    local i
    # IBSIM_READY_S: a 27 648-host fabric can take over a minute on a busy machine.
    for i in $(seq 1 $((${IBSIM_READY_S:-60} * 10))); do
        grep -q "Network simulator ready" "$WORK/ibsim.log" 2>/dev/null && return 0
        kill -0 "$IBSIM_PID" 2>/dev/null || { echo "FAIL: ibsim exited while loading $net" >&2; cat "$WORK/ibsim.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "FAIL: ibsim did not become ready on $net within ${IBSIM_READY_S:-60} s" >&2
    exit 1
}

ibsim_cmd() { echo "$*" > "$WORK/console"; }

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
# lfts.dump; needs a `fail` function. Leaves $WORK/fts.live and fts.ours.
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
