#!/usr/bin/env bash
# ibsmd as systemd sees it (Type=notify, journald), on PGFT(2; 6,12; 1,6; 1,1) in ibsim,
# with tests/tools/notify_listener standing in for systemd's notify socket
# and stderr posing as journald's stream (JOURNAL_STREAM = its dev:inode):
#  --foreground:
#  - READY=1 comes once, after SUBNET UP, with STATUS "up, gen 1, <ports>
#    LIDs, ftree, last heavy sweep ..." (LMC 0: one LID per CA port and per
#    switch);
#  - WATCHDOG=1 every WATCHDOG_USEC/2 (0.5 s here) while the SM runs;
#  - SIGHUP with a broken file: RELOADING=1, an error line (<3>) that keeps
#    the running configuration, then READY=1 after the reload's sweep;
#  - SIGTERM: STOPPING=1, exit 0;
#  - every stderr line starts with a priority "<N>" and none carries our
#    timestamp; info is <6>, the refused reload <3>.
#  service mode (no --foreground): the log file keeps its timestamps, the
#  journal stream gets the same lines with priorities; SIGUSR1 after the
#  file was renamed (logrotate) starts a new file at the same path.
#
# usage: sd_notify.sh IBSMD IBSM NOTIFY_LISTENER
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); LISTENER=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 6,12 --w 1,6 --p 1,1 --out "$WORK/fabric.net" > /dev/null
HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
ibsim_start "$WORK/fabric.net"

CFG="$WORK/ibsmd.yaml"
good_config() { printf 'state_dir: %s\nlog:\n  file: %s\nrouting:\n  engines: [ftree]\n' "$WORK/state" "$WORK/ibsmd.log" > "$CFG"; }
good_config

LISTENER_PID=""
stop_all() {
    [ -n "$LISTENER_PID" ] && kill "$LISTENER_PID" 2> /dev/null || true
    sm_stop_on_exit
}
trap stop_all EXIT

NOTES="$WORK/notify.log"
listen() {
    : > "$NOTES"
    "$LISTENER" "$WORK/notify.sock" "$NOTES" &
    LISTENER_PID=$!
    for _ in $(seq 1 50); do [ -S "$WORK/notify.sock" ] && return 0; sleep 0.1; done
    fail "notify_listener did not bind $WORK/notify.sock"
}
# note_wait REGEX [TIMEOUT_S]: a notification matching REGEX.
note_wait() {
    local i
    for i in $(seq 1 $((${2:-30} * 10))); do
        grep -qE "$1" "$NOTES" && return 0
        sm_alive
        sleep 0.1
    done
    cat "$NOTES" >&2
    fail "no notification matching '$1' within ${2:-30} s"
}
note_line() { grep -nE "$1" "$NOTES" | sed -n "${2:-1}p" | cut -d: -f1; }

# sm_start_journal LOGFILE ARGS...: stderr is LOGFILE, and JOURNAL_STREAM
# names it, as systemd does for StandardError=journal.
sm_start_journal() {
    local log=$1; shift
    : > "$log"
    NOTIFY_SOCKET="$WORK/notify.sock" WATCHDOG_USEC=1000000 JOURNAL_STREAM=$(stat -c '%d:%i' "$log") \
        sm_start "$log" "$@"
}

echo "--- --foreground under a fake systemd"
listen
sm_start_journal "$WORK/journal.log" --foreground --config "$CFG"
note_wait '^[0-9]+ READY=1' 60
grep -q "^<6>SUBNET UP" "$SM_LOG" || fail "READY=1 came before SUBNET UP was logged"
ready=$(grep -E '^[0-9]+ READY=1' "$NOTES" | head -n1)
echo "first READY: $ready"
echo "$ready" | has -E "READY=1 \| STATUS=up, gen 1, $((HOSTS + SWITCHES)) LIDs, ftree, last heavy sweep [0-9.]+ s$" ||
    fail "READY=1 does not carry the expected STATUS (expected $((HOSTS + SWITCHES)) LIDs)"

t0=$(grep -cE '^[0-9]+ WATCHDOG=1$' "$NOTES" || true)
sleep 2.2
t1=$(grep -cE '^[0-9]+ WATCHDOG=1$' "$NOTES" || true)
echo "watchdog pings in 2.2 s: $((t1 - t0))"
[ $((t1 - t0)) -ge 3 ] && [ $((t1 - t0)) -le 6 ] || fail "$((t1 - t0)) WATCHDOG=1 in 2.2 s, expected about 4 (every 0.5 s)"

echo "--- SIGHUP with a broken configuration"
printf 'routing:\n  engines: [ftree]\n  bogus_key: 1\n' > "$CFG"
mark=$(sm_lines)
kill -HUP "$SM_PID"
note_wait '^[0-9]+ RELOADING=1 \| MONOTONIC_USEC=[0-9]+ \| STATUS=reloading the configuration$' 10
sm_wait_up "$mark" 60
for _ in $(seq 1 50); do [ "$(grep -cE '^[0-9]+ READY=1' "$NOTES")" -ge 2 ] && break; sleep 0.1; done
readies=$(grep -cE '^[0-9]+ READY=1' "$NOTES" || true)
[ "$readies" -eq 2 ] || { cat "$NOTES" >&2; fail "$readies READY=1 notifications, expected 2 (start, reload)"; }
reloading_at=$(note_line 'RELOADING=1')
ready_at=$(note_line '^[0-9]+ READY=1' 2)
[ "$ready_at" -gt "$reloading_at" ] || fail "the reload's READY=1 came before RELOADING=1"
sm_since "$mark" | has -E "^<3>reload refused" || fail "the refused reload is not logged at priority 3 (err)"
good_config

echo "--- SIGTERM"
kill -TERM "$SM_PID"
rc=0
wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
note_wait '^[0-9]+ STOPPING=1' 10
wait "$LISTENER_PID" || true
LISTENER_PID=""
echo "notifications:"
grep -v 'WATCHDOG=1$' "$NOTES" | sed 's/^/  /'
echo "  (+ $(grep -c 'WATCHDOG=1$' "$NOTES") WATCHDOG=1)"

echo "--- journald stream format"
# libumad2sim (the simulator's preload, not ibsmd) prints "ibwarn: ...
# sim_connect: attached ..." on stderr itself: the one line left out.
ours() { grep -vE '^ibwarn: \[[0-9]+\] sim_connect: ' "$1" || true; }
bad=$(ours "$WORK/journal.log" | grep -cvE '^<[0-7]>' || true)
[ "$bad" -eq 0 ] || { ours "$WORK/journal.log" | grep -vE '^<[0-7]>' | head >&2; fail "$bad stderr line(s) without a <N> priority"; }
stamped=$(grep -cE '^<[0-7]>.*[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}' "$WORK/journal.log" || true)
[ "$stamped" -eq 0 ] || { grep -E '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:' "$WORK/journal.log" | head >&2; fail "$stamped line(s) carry our timestamp"; }
echo "$(wc -l < "$WORK/journal.log") lines, priorities: $(sed -n 's/^<\([0-7]\)>.*/\1/p' "$WORK/journal.log" | sort | uniq -c | awk '{ printf "<%s> %s  ", $2, $1 }')"

echo "--- service mode under a fake systemd: file with timestamps, journal with priorities"
listen
sm_start_journal "$WORK/service-journal.log" --config "$CFG"
note_wait '^[0-9]+ READY=1' 60
grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+ .*info.* SUBNET UP" "$WORK/ibsmd.log" ||
    fail "the log file has no timestamped SUBNET UP line"
grep -q "^<6>SUBNET UP" "$WORK/service-journal.log" || fail "the journal stream has no <6>SUBNET UP line"
# logrotate: the file is moved away, SIGUSR1 makes ibsmd write a new one.
# Lines logged between the rename and the signal land in the moved file, as
# with any daemon under logrotate (no copytruncate): the moved file's size is
# taken once the reopen is seen, and a second SIGUSR1 must not touch it.
mv "$WORK/ibsmd.log" "$WORK/ibsmd.log.1"
reopens() { grep -cs "SIGUSR1: log file .* reopened" "$WORK/ibsmd.log" || true; }
wait_reopens() {
    for _ in $(seq 1 100); do [ "$(reopens)" -ge "$1" ] && return 0; sleep 0.1; done
    return 1
}
kill -USR1 "$SM_PID"
wait_reopens 1 || fail "SIGUSR1 did not reopen the log file at its path"
grep -q "^<6>SIGUSR1: log file .* reopened" "$WORK/service-journal.log" || fail "the journal stream missed the reopen line"
old_size=$(stat -c %s "$WORK/ibsmd.log.1")
kill -USR1 "$SM_PID"
wait_reopens 2 || fail "a second SIGUSR1 did not log its reopen in the new file"
[ "$(stat -c %s "$WORK/ibsmd.log.1")" -eq "$old_size" ] || fail "the moved log file still gets lines after the reopen"
echo "SIGUSR1 after a rename: new log file, the moved one unchanged at $old_size bytes"
kill -TERM "$SM_PID"
wait "$SM_PID" || fail "ibsmd (service mode) did not exit 0 on SIGTERM"
SM_PID=""
note_wait '^[0-9]+ STOPPING=1' 10
echo "OK"
