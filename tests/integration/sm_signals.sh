#!/usr/bin/env bash
# Signals of the long-running SM (issue 10), with ibsmd in service mode (no
# --once/--foreground: it logs to log.file) on PGFT(3; 4,4,8; 1,4,4; 1,1,1),
# routing.engines [ftree]:
#  - SIGHUP with the file unchanged: "configuration unchanged, re-sweeping",
#    a heavy sweep brings the subnet up again and sends 0 LFT blocks;
#  - SIGHUP after the file says engines [sftree]: the new chain is applied
#    live, the next SUBNET UP names engine sftree, the LFT blocks sent are
#    exactly the blocks that changed on the switches (fewer than the
#    bring-up's), and the tables read back route every switch pair (ftree
#    leaves pairs of top switches unrouted, sftree does not);
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
# shellcheck disable=SC2046
ibsim_start "$WORK/fabric.net" $(ibsim_limits "$WORK/fabric.net")

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
ftree_s2s=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pairs"]["switch_to_switch"]["unreachable"])' "$WORK/up.json")
[ "$ftree_s2s" -gt 0 ] || fail "ftree routed every switch pair: the sftree check below would prove nothing"

echo "--- SIGHUP, file unchanged: a heavy sweep, nothing to send"
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
sm_since "$mark" | grep -E "SIGHUP|reload|heavy sweep|SUBNET" | cut -c 25-
sm_since "$mark" | grep -q "reload: configuration unchanged, re-sweeping" || fail "no 'configuration unchanged' line"
sm_since "$mark" | grep -q "SUBNET UP (generation [0-9]*, heavy sweep).*engine ftree,.*LFT blocks sent: 0$" ||
    fail "SIGHUP did not run a heavy sweep that sent 0 LFT blocks"

echo "--- SIGHUP, engines [sftree]: applied live"
config sftree
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
sm_since "$mark" | grep -E "SIGHUP|reload|heavy sweep|SUBNET|phase program" | cut -c 25-
sm_since "$mark" | grep -q "reload: new configuration applied (engines sftree)" || fail "the new chain was not applied"
sm_since "$mark" | grep -q "SUBNET UP (generation [0-9]*, .*engine sftree," || fail "the next SUBNET UP is not routed by sftree"
check_fabric sftree "$HOSTS" "$SWITCHES" "$LINKS"
s2s=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pairs"]["switch_to_switch"]["unreachable"])' "$WORK/sftree.json")
[ "$s2s" -eq 0 ] || fail "sftree's tables leave $s2s switch pairs unreachable"
sent=$(blocks_sent "$mark")
changed=$(blocks_changed up sftree)
echo "sftree: $sent LFT blocks sent, $changed changed on the switches, bring-up sent $FULL; switch pairs unreachable $ftree_s2s -> 0"
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
