# Shared by the counter tests (perf_counters.sh, health_drill.sh): the
# poller's log lines and metrics.prom's per-port samples. Needs SM_LOG
# (sm_events_lib.sh), STATE and `fail`.

# wait_counter_sweeps N: N more counter sweeps logged after now.
wait_counter_sweeps() {
    local want=$(( $(grep -c "counter sweep [0-9]* (generation" "$SM_LOG" || true) + $1 )) i
    for i in $(seq 1 200); do
        sm_alive
        [ "$(grep -c "counter sweep [0-9]* (generation" "$SM_LOG" || true)" -ge "$want" ] && { sleep 0.5; return 0; }
        sleep 0.1
    done
    fail "no $1 counter sweeps within 20 s"
}

# nonzero FAMILY: "guid port value" of every sample above 0.
nonzero() {
    python3 - "$STATE/metrics.prom" "$1" << 'PY'
import re, sys
path, fam = sys.argv[1:]
for line in open(path):
    m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.strip())
    if m and m.group(1) == fam and float(m.group(3)) > 0:
        g = re.search(r'node_guid="([^"]+)"', m.group(2)).group(1)
        p = re.search(r'(^|,)port="(\d+)"', m.group(2)).group(2)
        print(g, p, int(float(m.group(3))))
PY
}
# nonzero_file FILE FAMILY: as nonzero, of another exposition file (a scrape).
nonzero_file() { STATE_FILE=$1 python3 - "$1" "$2" << 'PY'
import re, sys
path, fam = sys.argv[1:]
for line in open(path):
    m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.strip())
    if m and m.group(1) == fam and float(m.group(3)) > 0:
        g = re.search(r'node_guid="([^"]+)"', m.group(2)).group(1)
        p = re.search(r'(^|,)port="(\d+)"', m.group(2)).group(2)
        print(g, p, int(float(m.group(3))))
PY
}
