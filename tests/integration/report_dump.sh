#!/usr/bin/env bash
# dump.report (report.html from the daemon): the running ibsmd writes report.html for
# every new generation, off the loop, and `ibsm status` points at it. On
# PGFT(2; 2,4; 1,2; 1,1) in ibsim, ibsmd --foreground with dump.report on:
#  - after the bring-up, report.html appears and state.json / `ibsm status`
#    name it with the generation the log says is up;
#  - headless Chromium opens it, and report_check.py finds the page complete
#    and its summary equal to `ibsm analyze --json` of the same state
#    directory (the dumps of that generation), one drawn line per cabled pair
#    of nodes in the state's topology.net;
#  - a cable pulled on the console: the re-route's generation gets its own
#    report, checked the same way against the new dumps;
#  - the re-route's page has the Link health section from the health
#    monitor: a row for both ends of every cable of that generation's
#    topology.net, one health line per drawn bundle, and its hover names
#    the ends and the errors;
#  - SIGHUP with dump.report off: report.html goes and `ibsm status` no
#    longer names one.
#
# usage: report_dump.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v chromium > /dev/null || fail "chromium not found (scripts/install-deps installs it)"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LEAF1=S-0002c90201000001
grep -q "\"$LEAF1\"" "$WORK/fabric.net" || fail "no switch $LEAF1 in the net file"
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
CFG=$WORK/ibsmd.yaml
config() { printf 'state_dir: %s\nrouting:\n  engines: [ftree]\ndump:\n  report: %s\n' "$STATE" "$1" > "$CFG"; }
config true
sm_start "$WORK/sm.log" --foreground --config "$CFG" --log-level info
sm_wait_up 0 60

# wait_report GEN: state.json names report.html of generation GEN.
wait_report() {
    local i
    for i in $(seq 1 300); do
        [ "$(status_json report generation 2> /dev/null)" = "$1" ] && return 0
        sleep 0.1
    done
    grep -E "report|error" "$SM_LOG" >&2 || true
    fail "state.json does not name a report of generation $1"
}

# check_report NAME: the page in Chromium against analyze of the state dir.
check_report() {
    local name=$1 chrome=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
                          --user-data-dir="$WORK/profile-$1" --enable-logging=stderr --v=0)
    cp "$STATE/report.html" "$WORK/$name.html"
    cp "$STATE/topology.net" "$WORK/$name.net"
    # The daemon's report runs the analysis with its defaults, as does this.
    "$IBSM" analyze "$STATE" --json > "$WORK/$name.analyze.json" 2> /dev/null || fail "ibsm analyze $STATE failed"
    # analyze names the tables by their file (dump_fts); the daemon's page
    # names the engine that routed them, which state.json gives.
    python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
j["engine"] = sys.argv[2]
json.dump(j, open(sys.argv[3], "w"))' "$WORK/$name.analyze.json" "$(status_json engine)" "$WORK/$name.json"
    timeout 120 "${chrome[@]}" --dump-dom "file://$WORK/$name.html#selftest" > "$WORK/$name.dom.html" \
        2> "$WORK/$name.dom.log" || fail "chromium --dump-dom $name"
    timeout 120 "${chrome[@]}" --screenshot="$WORK/$name.png" --window-size=1600,1200 "file://$WORK/$name.html" \
        > /dev/null 2> "$WORK/$name.shot.log" || fail "chromium --screenshot $name"
    if grep -h -E ':CONSOLE|Uncaught' "$WORK/$name.dom.log" "$WORK/$name.shot.log" >&2; then
        fail "$name: the page wrote to the browser console (above)"
    fi
    python3 "$HERE/report_check.py" "$WORK/$name.html" "$WORK/$name.dom.html" "$WORK/$name.png" \
        -- "$WORK/$name.json" "$WORK/$name.net" || fail "$name: report_check.py"
    echo "PASS $name ($(stat -c %s "$WORK/$name.html") bytes)"
}

GEN=$(sm_up_generation 0) || fail "no SUBNET UP generation in the log"
wait_report "$GEN"
[ "$(status_json report path)" = "$STATE/report.html" ] || fail "state.json names $(status_json report path)"
"$IBSM" status --state-dir "$STATE" > "$WORK/status.txt" || fail "ibsm status"
grep -E "^report:" "$WORK/status.txt"
grep -qE "^report: +$STATE/report.html \(generation $GEN, " "$WORK/status.txt" || fail "ibsm status does not point at the report"
has -E "generation $GEN: wrote report.html" "$SM_LOG" || fail "the log does not say the report was written"
check_report bringup

echo "--- pull host-0004's cable"
mark=$(sm_lines)
ibsim_cmd "Unlink \"$LEAF1\"[1]"
sm_wait_up "$mark"
GEN2=$(sm_up_generation "$mark")
[ -n "$GEN2" ] && [ "$GEN2" -gt "$GEN" ] || fail "no new generation after the cable pull"
wait_report "$GEN2"
# The dumps of GEN2 are written on their own thread: wait for topology.net to lose the host.
for _ in $(seq 1 100); do
    [ "$(grep -c '^Ca' "$STATE/topology.net")" -lt "$(grep -c '^Ca' "$WORK/fabric.net")" ] && break
    sleep 0.1
done
check_report reroute
grep -c '^Ca' "$WORK/reroute.net" | has -vx "$(grep -c '^Ca' "$WORK/bringup.net")" ||
    fail "the re-route's topology.net still has every host"
# The health monitor has the bring-up's heavy sweep by now: every cabled port
# of the re-route's topology has a row (link checks), matched to its cable.
python3 - "$WORK/reroute.html" "$WORK/reroute.dom.html" "$WORK/reroute.net" << 'PY' || fail "reroute: the Link health section"
import re, sys
page, dom, net = (open(p, encoding="utf-8").read() for p in sys.argv[1:4])
ends = len(re.findall(r'^\[\d+\].*"[^"]+"\[\d+\]', net, re.M))  # each cable appears at both ends
m = re.search(r'data-rows="(\d+)" data-matched="(\d+)" data-unmatched="(\d+)">Health rows from [^:]*generation', page)
if "<h2>Link health</h2>" not in page or not m:
    sys.exit("no Link health section drawn from the monitor")
rows, matched, unmatched = map(int, m.groups())
if matched != ends or rows != matched + unmatched:
    sys.exit(f"{rows} rows, {matched} matched, {unmatched} not: topology.net has {ends} cabled ports")
fab = re.search(r'<svg class="fab".*?</svg>', page, re.S).group(0)
hlt = re.search(r'<svg class="hlt".*?</svg>', page, re.S).group(0)
if len(re.findall(r'<line [^>]*data-i=', hlt)) != len(re.findall(r'<line [^>]*data-i=', fab)):
    sys.exit("the health drawing has not one line per bundle")
hover = re.search(r'data-hover-1="([^"]*)"', dom)
if not hover or "\u2194" not in hover.group(1) or "errors" not in hover.group(1):
    sys.exit(f"hovering the health drawing showed {hover.group(1) if hover else None!r}")
print(f"link health: {matched} of {rows} ports matched the {ends} cabled ports; hover: {hover.group(1)[:80]}")
PY

echo "--- SIGHUP with dump.report off"
config false
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_for "$mark" "reload: new configuration applied" 30
for _ in $(seq 1 100); do [ -e "$STATE/report.html" ] || break; sleep 0.1; done
[ ! -e "$STATE/report.html" ] || fail "report.html is still there with dump.report off"
for _ in $(seq 1 100); do status_json report > /dev/null 2>&1 || break; sleep 0.1; done
"$IBSM" status --state-dir "$STATE" > "$WORK/status2.txt" || fail "ibsm status after the reload"
has "^report:" "$WORK/status2.txt" && fail "ibsm status still names a report"
echo "PASS"
