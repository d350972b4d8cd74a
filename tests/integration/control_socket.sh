#!/usr/bin/env bash
# Live control of a running ibsmd over its control socket (docs/operations.md,
# "Live control") on PGFT(2; 2,4; 1,2; 1,1) in ibsim:
#  - the socket is control.socket, mode 0600 in a directory ibsmd made 0700,
#    and state.json names it;
#  - `ibsm status` answers live (and says so); `ibsm ports --json` parses and
#    lists every linked port; the text table lists them too;
#  - `ibsm events --follow` in the background sees the heavy sweep that
#    `ibsm resweep --heavy` asks for (and the log a new heavy sweep), a light
#    `ibsm resweep`, and the trap 128 of an ibsim Unlink;
#  - `ibsm log-level debug` makes debug lines appear;
#  - a non-root client is refused twice over: by the socket's mode, and
#    (with the mode loosened by hand) by the peer credential check;
#  - a request line of more than 64 KiB gets an error and the connection
#    closes; a bad request gets a precise error and the daemon keeps serving;
#  - a second ibsmd on the same socket fails to start and says why; after
#    the daemon stops, ibsm says it is not running.
#
# usage: control_socket.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LEAF1=S-0002c90201000001
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
SOCK=$WORK/ctl/control.sock
printf 'state_dir: %s\ncontrol:\n  socket: %s\n' "$STATE" "$SOCK" > "$WORK/ibsmd.yaml"
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --log-level info
sm_wait_up 0 60
EVENTS_PID=""
cleanup_events() { [ -n "$EVENTS_PID" ] && kill "$EVENTS_PID" 2> /dev/null || true; }

[ -S "$SOCK" ] || fail "no socket at $SOCK"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket mode $(stat -c %a "$SOCK"), expected 600"
[ "$(stat -c %a "$WORK/ctl")" = 700 ] || fail "socket directory mode $(stat -c %a "$WORK/ctl"), expected 700"
for i in $(seq 1 50); do grep -q "\"socket\"" "$STATE/state.json" 2> /dev/null && break; sleep 0.1; done
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["control"]["socket"] == sys.argv[2], s.get("control")' \
    "$STATE/state.json" "$SOCK" || fail "state.json does not name the control socket"

echo "--- ibsm status (live)"
"$IBSM" status --state-dir "$STATE" > "$WORK/status.txt" || fail "ibsm status exited $?"
cat "$WORK/status.txt"
grep -q "^source:       live from ibsmd over $SOCK$" "$WORK/status.txt" || fail "ibsm status is not live"
grep -q "SUBNET UP$" "$WORK/status.txt" || fail "live status does not say SUBNET UP"
"$IBSM" status --config "$WORK/ibsmd.yaml" --json 2> /dev/null | python3 -c 'import json, sys; assert json.load(sys.stdin)["state"] == "up"' ||
    fail "ibsm status --config --json (live)"

echo "--- ibsm ports"
"$IBSM" ports --state-dir "$STATE" --json > "$WORK/ports.json" || fail "ibsm ports --json"
LINKS=$(grep -cE '^\[[0-9]+\].*"' "$WORK/fabric.net")
python3 - "$WORK/ports.json" "$LINKS" << 'PY' || fail "ibsm ports --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["ports"], list(d)
ports = d["ports"]
assert len(ports) == int(sys.argv[2]), (len(ports), sys.argv[2])
for p in ports:
    # health/port_health_json.h: counters, rates and poll only once polled
    # (this daemon does not poll), link once checked, remote when linked.
    for k in ("node_guid", "node_desc", "port", "state", "link", "reasons", "remote"):
        assert k in p, (k, p)
    assert not any(k in p for k in ("counters", "rates", "poll")), p
    assert p["node_guid"].startswith("0x") and 1 <= p["port"] <= 254 and p["state"] == "ok", p
print(len(ports), "ports")
PY
"$IBSM" ports --state-dir "$STATE" --limit 3 > "$WORK/ports.txt" || fail "ibsm ports"
cat "$WORK/ports.txt"
[ "$(wc -l < "$WORK/ports.txt")" = 5 ] || fail "ibsm ports --limit 3: header, 3 rows and the count expected"
grep -q "^NODE " "$WORK/ports.txt" || fail "ibsm ports prints no header"
rc=0; "$IBSM" port isolate --socket "$SOCK" 0x0002c90201000001 1 2> "$WORK/isolate.err" || rc=$?
[ "$rc" = 1 ] && grep -q "would cut off host-0002: its only link" "$WORK/isolate.err" ||
    fail "port isolate of a host's only link: rc $rc, $(cat "$WORK/isolate.err")"

echo "--- ibsm events --follow, ibsm resweep"
"$IBSM" events --follow --socket "$SOCK" > "$WORK/events.jsonl" 2> "$WORK/events.err" &
EVENTS_PID=$!
trap 'cleanup_events; sm_stop_on_exit' EXIT
for i in $(seq 1 50); do [ -f "$WORK/events.jsonl" ] && sleep 0.1 && break; done
sleep 0.3
mark=$(sm_lines)
"$IBSM" resweep --heavy --socket "$SOCK" | grep -q "heavy sweep queued" || fail "ibsm resweep --heavy"
sm_wait_for "$mark" "heavy sweep \(requested by ibsm resweep --heavy\)"
sm_wait_up "$mark"
"$IBSM" resweep --socket "$SOCK" | grep -q "light sweep queued" || fail "ibsm resweep"

echo "--- ibsm log-level debug"
mark=$(sm_lines)
"$IBSM" log-level debug --socket "$SOCK" > "$WORK/level.txt" || fail "ibsm log-level debug"
grep -q "^log level info -> debug$" "$WORK/level.txt" || fail "log-level answer: $(cat "$WORK/level.txt")"
"$IBSM" resweep --socket "$SOCK" > /dev/null
sm_wait_for "$mark" "debug light sweep: [0-9]+ SMPs" 10

echo "--- ibsim Unlink: trap 128 on the feed"
mark=$(sm_lines)
ibsim_cmd "Unlink \"$LEAF1\"[1]"
sm_wait_up "$mark"
for i in $(seq 1 50); do grep -q '"event":"trap"' "$WORK/events.jsonl" && grep -q '"kind":"re-route"' "$WORK/events.jsonl" && break; sleep 0.1; done
cat "$WORK/events.jsonl"
python3 - "$WORK/events.jsonl" << 'PY' || fail "events feed"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert all("time" in e and "event" in e for e in ev), ev
kinds = [(e["event"], e.get("kind"), e.get("heavy")) for e in ev]
assert ("sweep-requested", None, True) in kinds, kinds
assert ("sweep", "heavy sweep", None) in kinds, kinds
assert ("sweep-requested", None, False) in kinds, kinds
assert any(e["event"] == "trap" and e["number"] == 128 for e in ev), kinds
assert any(e["event"] == "sweep" and e["kind"] == "re-route" and e["outcome"] == "up" for e in ev), kinds
PY

echo "--- bad requests"
python3 - "$SOCK" << 'PY' || fail "bad requests"
import json, socket, sys
def talk(lines):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
    try:
        s.sendall(lines)
    except OSError:
        pass  # an overlong line: the daemon answers and closes while we send
    data = b""
    try:
        while data.count(b"\n") < max(1, lines.count(b"\n")):
            b = s.recv(65536)
            if not b: break
            data += b
    except ConnectionResetError:
        pass
    s.close(); return [json.loads(l) for l in data.splitlines()]
a = talk(b'{"id": 7, "cmd": "frobnicate"}\n{"cmd": "ports", "limit": "3"}\nnot json\n{"id": "s", "cmd": "status"}\n')
assert a[0]["id"] == 7 and not a[0]["ok"] and "unknown cmd 'frobnicate'" in a[0]["error"], a[0]
assert not a[1]["ok"] and "'limit'" in a[1]["error"], a[1]
assert not a[2]["ok"] and "invalid JSON" in a[2]["error"], a[2]
assert a[3]["id"] == "s" and a[3]["ok"] and a[3]["status"]["state"] == "up", a[3]
b = talk(b"x" * (70 * 1024))
assert len(b) == 1 and not b[0]["ok"] and "longer than 65536" in b[0]["error"], b
PY
sm_alive

echo "--- a non-root client"
rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$IBSM" resweep --socket "$SOCK" 2> "$WORK/nobody.err" || rc=$?
cat "$WORK/nobody.err"
[ "$rc" = 1 ] && grep -q "permission denied" "$WORK/nobody.err" || fail "non-root client: rc $rc"
# The mode loosened by hand: the peer credential check still refuses.
chmod 755 "$WORK" "$WORK/ctl"; chmod 666 "$SOCK"
mark=$(sm_lines)
rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$IBSM" resweep --socket "$SOCK" 2> "$WORK/nobody2.err" || rc=$?
cat "$WORK/nobody2.err"
[ "$rc" = 1 ] && grep -q "permission denied: the control socket serves root only" "$WORK/nobody2.err" ||
    fail "non-root client past the mode: rc $rc"
sm_wait_for "$mark" "control: refused a client: permission denied" 5
sm_since "$mark" | has "light sweep requested" && fail "a non-root client's resweep was acted on"
chmod 600 "$SOCK"; chmod 700 "$WORK/ctl" "$WORK"

echo "--- a second ibsmd on the same socket"
rc=0; (cd "$WORK" && LD_PRELOAD="$SIM_PRELOAD" ASAN_OPTIONS="$SIM_ASAN_OPTIONS" timeout 30 "$IBSMD" --foreground \
    --config "$WORK/ibsmd.yaml" --state-dir "$WORK/state2") > "$WORK/second.log" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "control socket $SOCK is served by a running process" "$WORK/second.log" ||
    { cat "$WORK/second.log" >&2; fail "a second ibsmd on the same socket: rc $rc"; }
[ -S "$SOCK" ] || fail "the second ibsmd removed the first one's socket"
"$IBSM" status --socket "$SOCK" > /dev/null || fail "the first ibsmd no longer answers"

echo "--- stop"
cleanup_events
kill "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
[ -e "$SOCK" ] && fail "the socket outlives the daemon"
rc=0; "$IBSM" resweep --socket "$SOCK" 2> "$WORK/down.err" || rc=$?
[ "$rc" = 1 ] && grep -q "ibsmd is not running (no control socket at $SOCK)" "$WORK/down.err" || fail "ibsm with no daemon: rc $rc"
"$IBSM" status --state-dir "$STATE" > "$WORK/status3.txt" 2> "$WORK/status3.err" || true
grep -q "^source:       from $STATE/state.json (no live answer: ibsmd is not running (no control socket at $SOCK))$" "$WORK/status3.txt" || fail "ibsm status does not fall back to state.json"
echo "PASS"
