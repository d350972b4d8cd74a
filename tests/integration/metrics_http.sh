#!/usr/bin/env bash
# The metrics endpoint (metrics.listen) scraped by a real client, curl, from
# a live ibsmd on PGFT(2; 2,4; 1,2; 1,1) in ibsim (perf.interval_s 2):
#  - `curl --compressed` gets gzip (Content-Encoding), the text parses
#    (prom_check.py: Debian 12's prometheus package carries promtool, but
#    installing it starts a Prometheus server; the strict reader checks the
#    same format rules) with the generation the log gives, and `ibsm status`
#    names the URL;
#  - the default port_series `fabric`: a transmit rate for exactly the
#    switch-to-switch ports of the net file, none for host links, no traffic
#    totals, one ibsmd_leaf_host_ports per leaf with its host count; an error
#    set on a host port (PerformanceSet) appears as that port's one series;
#    metrics.prom carries the same selection;
#  - 404 for another path, 405 for POST, 400 for a malformed request (logged),
#    four scrapes at once all answered, the daemon serving on;
#  - SIGHUP with port_series all: the host links' traffic totals appear.
#
# usage: metrics_http.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
. "$HERE/perf_lib.sh"
command -v curl > /dev/null || fail "curl is not installed (scripts/install-deps)"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --p 1,1 --out "$WORK/fabric.net" > /dev/null
LEAF1=S-0002c90201000001
LEAF_GUID=0x${LEAF1#S-}
ibsim_start "$WORK/fabric.net"
STATE=$WORK/state
# A free port on the loopback (the kernel's choice, released for ibsmd).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT/metrics
write_config() {
    cat > "$WORK/ibsmd.yaml" << YAML
perf:
  interval_s: 2
metrics:
  listen: $PORT
  port_series: $1
YAML
}
write_config fabric
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml" --state-dir "$STATE" --log-level info
sm_wait_up 0 60
grep -q "metrics: serving $URL" "$SM_LOG" || fail "the log does not say where metrics are served"
GEN=$(sm_up_generation 0)
wait_counter_sweeps 2

scrape() { curl -sS --compressed --max-time 10 -D "$WORK/$1.headers" -o "$WORK/$1.prom" "$URL"; }
scrape first || fail "curl could not scrape $URL"
grep -qi '^content-encoding: gzip' "$WORK/first.headers" || fail "no gzip for curl --compressed: $(cat "$WORK/first.headers")"
grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/first.headers" || fail "wrong Content-Type"
python3 "$HERE/prom_check.py" "$WORK/first.prom" "ibsmd_generation=$GEN" "ibsmd_subnet_up=1" "ibsmd_perf_sweeps_total>=2" ||
    fail "the scraped text"
"$IBSM" status --state-dir "$STATE" | grep -q "^metrics:      $URL$" || fail "ibsm status does not name $URL"

echo "--- port_series fabric: what the net file's links give"
# check_selection FILE: the transmit rates are exactly the switch-to-switch
# ports', nothing of host links' traffic, one leaf line per leaf with hosts.
check_selection() {
    python3 - "$WORK/fabric.net" "$1" << 'PY'
import re, sys
net, prom = sys.argv[1:]
switches, links, node = set(), [], None
for line in open(net):
    m = re.match(r'(Switch|Ca)\s+\d+\s+"([SH]-([0-9a-f]+))"', line)
    if m:
        node = m.group(2)
        if m.group(1) == "Switch": switches.add(node)
        continue
    m = re.match(r'\[(\d+)\].*?"([SH]-[0-9a-f]+)"\[(\d+)\]', line)
    if m and node: links.append((node, int(m.group(1)), m.group(2)))
guid = lambda n: "0x" + n[2:].rjust(16, "0")
fabric = {(guid(a), p) for a, p, b in links if a in switches and b in switches}
hosts_per_leaf = {}
for a, p, b in links:
    if a in switches and b not in switches: hosts_per_leaf[guid(a)] = hosts_per_leaf.get(guid(a), 0) + 1
rates, leaves, bad = set(), {}, []
for line in open(prom):
    m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.strip())
    if not m: continue
    name, labels, value = m.groups()
    gm = re.search(r'node_guid="([^"]+)"', labels)
    if not gm: continue  # the SM's own series
    g = gm.group(1)
    if name == "ibsmd_port_xmit_bytes_per_second":
        rates.add((g, int(re.search(r',port="(\d+)"', labels).group(1))))
    elif name == "ibsmd_leaf_host_ports":
        leaves[g] = int(float(value))
    elif name in ("ibsmd_port_rcv_bytes_per_second", "ibsmd_port_xmit_bytes_total", "ibsmd_port_rcv_pkts_total"):
        bad.append(line.strip())
ok = True
if rates != fabric: print(f"transmit rates for {len(rates)} ports, {len(fabric)} switch-to-switch ports; differ: {sorted(rates ^ fabric)[:4]}"); ok = False
if leaves != hosts_per_leaf: print(f"leaf host ports {leaves}, net file {hosts_per_leaf}"); ok = False
if bad: print(f"host traffic series under fabric: {bad[:2]}"); ok = False
print(f"{len(rates)} switch-to-switch ports with a transmit rate, {len(leaves)} leaves")
sys.exit(0 if ok else 1)
PY
}
check_selection "$WORK/first.prom" || fail "the scrape's selection"
check_selection "$STATE/metrics.prom" || fail "metrics.prom's selection"
[ -z "$(nonzero_file "$WORK/first.prom" ibsmd_port_symbol_errors_total)" ] || fail "symbol errors before any were set"

echo "--- SymbolErrorCounter=3 on $LEAF1 port 1 (a host link): its series appears"
ibsim_cmd "PerformanceSet \"$LEAF1\"[1] PortCounters.SymbolErrorCounter=3"
wait_counter_sweeps 2
scrape errors || fail "second scrape"
SYM=$(nonzero_file "$WORK/errors.prom" ibsmd_port_symbol_errors_total)
[ "$SYM" = "$LEAF_GUID 1 3" ] || fail "expected one symbol error series, $LEAF_GUID port 1 = 3; got: $SYM"
grep -qE "^ibsmd_port_symbol_errors_total\{node_guid=\"$LEAF_GUID\",.*port=\"1\"" "$WORK/errors.prom" || fail "series"

echo "--- 404, 405, 400, concurrent scrapes"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
[ "$(code "http://127.0.0.1:$PORT/")" = 404 ] || fail "/ is not 404"
[ "$(code -X POST "$URL")" = 405 ] || fail "POST is not 405"
[ "$(code -I "$URL")" = 200 ] || fail "HEAD is not 200"
exec 3<> "/dev/tcp/127.0.0.1/$PORT"
printf 'BOGUS REQUEST\r\n\r\n' >&3
head -c 12 <&3 | grep -q "^HTTP/1.1 400" || fail "a malformed request did not get 400"
exec 3>&-
sm_wait_for 0 "metrics: malformed request from 127.0.0.1:[0-9]+ .*answered 400" 5
pids=()
for i in 1 2 3 4; do scrape "c$i" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent scrape failed"; done
for i in 1 2 3 4; do python3 "$HERE/prom_check.py" "$WORK/c$i.prom" "ibsmd_subnet_up=1" > /dev/null || fail "scrape c$i"; done
sm_alive

echo "--- SIGHUP with port_series all: host links' traffic appears"
write_config all
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
wait_counter_sweeps 1
scrape all || fail "scrape after the reload"
HOST_TOTALS=$(grep -c "^ibsmd_port_rcv_bytes_total{node_guid=\"$LEAF_GUID\",.*,port=\"1\"," "$WORK/all.prom" || true)
[ "$HOST_TOTALS" = 1 ] || fail "no rcv_bytes_total of the host link $LEAF_GUID/1 under port_series all"
kill -TERM "$SM_PID"; wait "$SM_PID" || true; SM_PID=""
echo "PASS"
