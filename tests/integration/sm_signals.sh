#!/usr/bin/env bash
# Signals of the long-running SM (SIGHUP, SIGUSR1, SIGTERM), with ibsmd in service mode (no
# --once/--foreground: it logs to log.file) on PGFT(3; 4,4,8; 1,4,4; 1,1,1),
# routing.engines [ftree]:
#  - SIGHUP with the file unchanged: "configuration unchanged, re-sweeping",
#    a heavy sweep brings the subnet up again and sends 0 LFT blocks;
#  - SIGHUP after the file says engines [updn]: the new chain is applied
#    live, the next SUBNET UP names engine updn, the LFT blocks sent are
#    exactly the blocks that changed on the switches (fewer than the
#    bring-up's, more than none), and the tables read back are updn's: the
#    ones `ibsm route --engine updn` computes offline for this fabric and
#    these LIDs, which differ from ftree's (the bring-up's tables must equal
#    `ibsm route --engine ftree`'s the same way). ftree and sftree now give
#    this fabric the same tables (ftree fills switch pairs with sftree's
#    Algorithm 2), so the reload goes to updn to change something;
#  - SIGUSR1 after the log file was moved away (logrotate): a new file
#    appears at log.file and gets the next lines; the moved file gets none.
#
# usage: sm_signals.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 4,4,8 --w 1,4,4 --p 1,1,1 --out "$WORK/fabric.net" > /dev/null
LINKS=$(( $(grep -c '^\[' "$WORK/fabric.net") / 2 ))
HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")
ibsim_start "$WORK/fabric.net"

CFG="$WORK/ibsmd.yaml"
LOGFILE="$WORK/ibsmd.log"
config() { printf 'state_dir: %s\nlog:\n  file: %s\nrouting:\n  engines: [%s]\n  no_fallback: true\n' "$WORK/state" "$LOGFILE" "$1" > "$CFG"; }
config ftree
sm_start "$WORK/stderr.log" --config "$CFG"
for _ in $(seq 1 100); do [ -f "$LOGFILE" ] && break; sleep 0.1; done
[ -f "$LOGFILE" ] || { cat "$WORK/stderr.log" >&2; fail "service mode wrote no $LOGFILE"; }
SM_LOG=$LOGFILE
sm_wait_up 0 60
FULL=$(blocks_sent 0)
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"
# offline ENGINE: what `ibsm route` computes for the fabric ibsim runs with
# the LIDs the SM gave out (its guid2lid), in $WORK/offline-ENGINE.
offline() {
    "$IBSM" route --topology "$WORK/fabric.net" --guid2lid "$WORK/state/guid2lid" --engine "$1" --no-fallback \
        --out "$WORK/offline-$1" > "$WORK/offline-$1.log" 2>&1 || { cat "$WORK/offline-$1.log" >&2; fail "ibsm route --engine $1 failed"; }
}
offline ftree
offline updn
python3 "$HERE/reroute_check.py" same "$WORK/up.fts" "$WORK/offline-ftree/lfts.dump" || fail "the bring-up's tables are not ftree's"
engines_differ=$(python3 "$HERE/reroute_check.py" blockdiff "$WORK/offline-ftree/lfts.dump" "$WORK/offline-updn/lfts.dump")
[ "$engines_differ" -gt 0 ] || fail "ftree and updn give this fabric the same tables: the reload check below would prove nothing"

echo "--- SIGHUP, file unchanged: a heavy sweep, nothing to send"
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
sm_since "$mark" | grep -E "SIGHUP|reload|heavy sweep|SUBNET" | cut -c 25-
sm_since "$mark" | has "reload: configuration unchanged, re-sweeping" || fail "no 'configuration unchanged' line"
sm_since "$mark" | has "SUBNET UP (generation [0-9]*, heavy sweep).*engine ftree,.*LFT blocks sent: 0$" ||
    fail "SIGHUP did not run a heavy sweep that sent 0 LFT blocks"

echo "--- SIGHUP, engines [updn]: applied live"
config updn
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
sm_since "$mark" | grep -E "SIGHUP|reload|heavy sweep|SUBNET|phase program" | cut -c 25-
sm_since "$mark" | has "reload: new configuration applied (engines updn)" || fail "the new chain was not applied"
sm_since "$mark" | has "SUBNET UP (generation [0-9]*, .*engine updn," || fail "the next SUBNET UP is not routed by updn"
check_fabric updn "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" same "$WORK/updn.fts" "$WORK/offline-updn/lfts.dump" || fail "the tables read back are not updn's"
sent=$(blocks_sent "$mark")
changed=$(blocks_changed up updn)
echo "updn: $sent LFT blocks sent, $changed changed on the switches, bring-up sent $FULL; offline ftree and updn differ in $engines_differ"
[ "$sent" -eq "$changed" ] && [ "$sent" -gt 0 ] || fail "$sent LFT blocks sent for $changed changed"
[ "$sent" -lt "$FULL" ] || fail "the engine change resent every block ($sent)"

echo "--- SIGUSR1 after logrotate moved the file"
mv "$LOGFILE" "$LOGFILE.1"
old_size=$(stat -c %s "$LOGFILE.1")
kill -USR1 "$SM_PID"
for _ in $(seq 1 100); do [ -f "$LOGFILE" ] && break; sleep 0.1; done
[ -f "$LOGFILE" ] || fail "SIGUSR1 did not reopen $LOGFILE"
sm_wait_for 0 "SIGUSR1: log file .* reopened" 10
kill -HUP "$SM_PID"
sm_wait_up 0
grep -q "SUBNET UP" "$LOGFILE" || fail "the reopened log file does not get the next sweep's lines"
[ "$(stat -c %s "$LOGFILE.1")" -eq "$old_size" ] || fail "the moved log file still gets lines"
echo "new log file: $(wc -l < "$LOGFILE") lines; moved file unchanged at $old_size bytes"

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$LOGFILE" >&2; cat "$WORK/stderr.log" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
grep -q "signal 15 received: stopping" "$LOGFILE" || fail "no clean shutdown line in the log file"
echo "PASS"
