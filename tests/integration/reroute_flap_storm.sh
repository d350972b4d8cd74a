#!/usr/bin/env bash
# A flap storm against the long-running SM (traps, debounce, re-route): `ibsmd --foreground`
# (light sweep every 2 s) on PGFT(3; 4,4,8; 1,4,4; 1,1,1), then 100
# Unlink/ReLink console commands on random switch-to-switch cables (seeded),
# one every 0.1 s; several links are down at once, and every one is
# relinked by the end. Then quiet. Checks:
#  - ibsmd is still running and brought the subnet up after the last event;
#  - the fabric read back (ibnetdiscover + dump_fts + iblinkinfo) is the
#    whole fabric, every port ACTIVE, 0 unreachable CA pairs, no loops, no
#    credit loop in CA traffic, our port MASTER;
#  - what the switches hold is ibsmd's own lfts.dump;
#  - the tables the re-routes left are those of a fresh heavy sweep of the
#    final fabric: SIGHUP (configuration unchanged) runs a heavy sweep,
#    which sends 0 LFT blocks and leaves dump_fts unchanged.
# Prints how many re-routes and heavy sweeps the storm cost and how many
# events they absorbed.
#
# usage: reroute_flap_storm.sh IBSMD IBSM [SEED]
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); SEED=${3:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 4,4,8 --w 1,4,4 --p 1,1,1 --out "$WORK/fabric.net" > /dev/null
LINKS=$(( $(grep -c '^\[' "$WORK/fabric.net") / 2 ))
HOSTS=$(grep -c '^Ca' "$WORK/fabric.net")
SWITCHES=$(grep -c '^Switch' "$WORK/fabric.net")

# 100 console commands: each Unlink of a cable that is up, each ReLink of
# one that is down; the last ones relink whatever is still down.
python3 - "$WORK/fabric.net" "$SEED" > "$WORK/storm.txt" <<'EOF'
import random, re, sys
cables = []
node = None
for line in open(sys.argv[1]):
    m = re.match(r'^Switch\s+\d+\s+"(S-[0-9a-f]+)"', line)
    if m:
        node = m.group(1)
        continue
    if line.startswith(('Ca', 'Hca')):
        node = None
    m = re.match(r'^\[(\d+)\]\s+"(S-[0-9a-f]+)"\[(\d+)\]', line)
    if m and node and (node, int(m.group(1))) < (m.group(2), int(m.group(3))):
        cables.append((node, int(m.group(1))))
rng = random.Random(int(sys.argv[2]))
down, total = [], 100
for i in range(total):
    left = total - i
    if down and (left == len(down) or rng.random() < 0.5):
        c = down.pop(rng.randrange(len(down)))
        print(f'ReLink "{c[0]}"[{c[1]}]')
    else:
        c = rng.choice([c for c in cables if c not in down])
        down.append(c)
        print(f'Unlink "{c[0]}"[{c[1]}]')
assert not down
EOF
echo "storm: $(grep -c Unlink "$WORK/storm.txt") Unlink + $(grep -c ReLink "$WORK/storm.txt") ReLink on $LINKS links (seed $SEED)"

ibsim_start "$WORK/fabric.net"
printf 'state_dir: %s\nsweep:\n  interval_s: 2\n' "$WORK/state" > "$WORK/ibsmd.yaml"
sm_start "$WORK/sm.log" --foreground --config "$WORK/ibsmd.yaml"
sm_wait_up 0 60
check_fabric up "$HOSTS" "$SWITCHES" "$LINKS"

echo "--- storm"
mark=$(sm_lines)
# One writer on a fixed schedule (command i at 0.1 s * i), so a loaded
# machine does not stretch the storm.
python3 - "$WORK/storm.txt" "$IBSIM_CONSOLE" <<'EOF'
import sys, time
cmds = open(sys.argv[1]).read().splitlines()
t0 = time.monotonic()
with open(sys.argv[2], "w") as console:
    for i, cmd in enumerate(cmds):
        delay = t0 + 0.1 * i - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        console.write(cmd + "\n")
        console.flush()
print(f"{len(cmds)} events in {time.monotonic() - t0:.1f} s")
EOF
# After the last event: a SUBNET UP, then 3 s without a log line (more than a
# light sweep period: a light sweep that finds nothing logs at debug level).
last=$(sm_lines)
sm_wait_for "$last" "SUBNET (UP|DEGRADED)|nothing changed" 30
sm_quiet 3
sm_alive
since=$(sm_since "$mark")
reroutes=$(grep -c "SUBNET UP (generation [0-9]*, re-route of" <<< "$since" || true)
heavy=$(grep -c "SUBNET UP (generation [0-9]*, heavy sweep" <<< "$since" || true)
unchanged=$(grep -c "nothing changed" <<< "$since" || true)
notup=$(grep -cE "subnet NOT up|needs a heavy sweep" <<< "$since" || true)
absorbed=$(sed -n 's/.*re-route: \([0-9]*\) event(s).*/\1/p' <<< "$since" | awk '{ s += $1; if ($1 > m) m = $1 } END { printf "%d (at most %d in one)", s, m }')
traps=$(grep -c "trap 128" <<< "$since" || true)
echo "storm handled: $reroutes re-route(s) up, $heavy heavy sweep(s) up, $unchanged re-route(s) found nothing changed, $notup not up / escalated; $traps trap(s) logged, $absorbed event(s) absorbed by re-routes"
[ "$((reroutes + heavy))" -gt 0 ] || fail "the storm brought no SUBNET UP"
grep -qE "SUBNET UP" <<< "$(sm_since "$last")" || echo "(no event after the last command needed a new generation)"
check_fabric after-storm "$HOSTS" "$SWITCHES" "$LINKS"
python3 "$HERE/reroute_check.py" same "$WORK/after-storm.fts" "$WORK/state/lfts.dump" ||
    fail "the switches hold other tables than ibsmd's lfts.dump"

echo "--- SIGHUP: a heavy sweep of the final fabric finds nothing to send"
mark=$(sm_lines)
kill -HUP "$SM_PID"
sm_wait_up "$mark"
sm_since "$mark" | grep -E "reload|heavy sweep|SUBNET" | cut -c 25-
sm_since "$mark" | has "reload: configuration unchanged, re-sweeping" || fail "SIGHUP did not report an unchanged configuration"
sm_since "$mark" | has "SUBNET UP (generation [0-9]*, heavy sweep).*LFT blocks sent: 0$" ||
    fail "the heavy sweep after the storm sent LFT blocks: the re-routes left other tables than a heavy sweep computes"
readback after-sighup
python3 "$HERE/reroute_check.py" same "$WORK/after-storm.fts" "$WORK/after-sighup.fts" || fail "the heavy sweep changed the tables"

kill -TERM "$SM_PID"
rc=0; wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || { tail -n 20 "$SM_LOG" >&2; fail "ibsmd exited with $rc after SIGTERM"; }
echo "PASS"
