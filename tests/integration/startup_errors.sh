#!/usr/bin/env bash
# Start-up and run-time failure paths of ibsmd that need a fabric (no crash,
# one line saying what to do), on ibsim with PGFT(2; 2,4; 1,2). Each failure
# ends with ONE error line saying what to do, and --once exits with the
# documented status (cli/app.h: 1 run-time; 78 configuration is covered by
# tests/unit/cli/test_cli_errors.sh); the service keeps running where
# docs/design.md's "Error tiers" say so:
#  1. --port-guid of no local port: exit 1, the line lists the local ports;
#     --port-guid of the SM's port selects it (--discover-only and --once);
#  2. a state directory that cannot be created: exit 1 before any SMP;
#  3. the SM's own port without link: --once exits 1 with one "subnet NOT
#     up" line naming the port; the service logs it, keeps running, and
#     brings the subnet up once the cable is back (ReLink);
#  4. SIGHUP with a broken file: one "reload refused" line, the SM keeps
#     its configuration and the subnet, SIGTERM then exits 0.
#
# usage: startup_errors.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"

"$IBSM" topogen pgft --m 2,4 --w 1,2 --out "$WORK/fabric.net" > /dev/null
SM_NODE=$(sed -n 's/^Ca\t[0-9]* "\([^"]*\)".*/\1/p' "$WORK/fabric.net" | head -n1)
[ -n "$SM_NODE" ] || fail "no CA in the generated fabric"
ibsim_start "$WORK/fabric.net"

# once STATUS ERROR_REGEX ARGS...: ibsmd --once ARGS exits STATUS with exactly
# one error line, matching ERROR_REGEX.
once() {
    local status=$1 re=$2 rc=0
    shift 2
    (cd "$WORK" && ASAN_OPTIONS="$SIM_ASAN_OPTIONS" LD_PRELOAD="$SIM_PRELOAD" timeout 120 "$IBSMD" "$@") \
        > "$WORK/once.log" 2>&1 || rc=$?
    local errors
    errors=$(grep -E "^[0-9-]+ [0-9:.]+ (error|critical) " "$WORK/once.log" || true)
    echo "ibsmd $* -> exit $rc: $(echo "$errors" | cut -c 25- | head -n 3)"
    [ "$rc" -eq "$status" ] || { tail -n 20 "$WORK/once.log" >&2; fail "exit $rc, expected $status"; }
    if [ -z "$re" ]; then
        [ -z "$errors" ] || fail "unexpected error lines"
        return 0
    fi
    [ "$(echo "$errors" | wc -l)" -eq 1 ] || { cat "$WORK/once.log" >&2; fail "expected one error line"; }
    echo "$errors" | has -E "$re" || fail "the error line does not match /$re/"
}

echo "--- 1. --port-guid"
once 1 "no local port has GUID 0x0000000000001234 \(local ports: .*0x[0-9a-f]{16}\): give one of these" \
    --once --config none --state-dir "$WORK/s1" --port-guid 0x1234
SM_GUID=$(grep -oE "local ports: [^ ]+ port [0-9]+ 0x[0-9a-f]{16}" "$WORK/once.log" | grep -oE "0x[0-9a-f]{16}")
once 0 "" --discover-only --port-guid "$SM_GUID"
grep -q "port GUID $SM_GUID" "$WORK/once.log" || fail "--discover-only --port-guid did not use $SM_GUID"
once 0 "" --once --config none --state-dir "$WORK/s1" --port-guid="$SM_GUID"
grep -q "SUBNET UP" "$WORK/once.log" || fail "--once --port-guid: no SUBNET UP"

echo "--- 2. state directory that cannot be created"
touch "$WORK/a-file"
once 1 "state directory .*/a-file/state cannot be created \(Not a directory\): .*--state-dir" \
    --once --config none --state-dir "$WORK/a-file/state"
grep -q "heavy sweep" "$WORK/once.log" && fail "a sweep ran although the state directory is unusable"

echo "--- 3. the SM's port without link"
ibsim_cmd "Unlink \"$SM_NODE\"[1]"
sleep 0.5
once 1 "subnet NOT up: the SM's own port has no link .*check its cable" --once --config none --state-dir "$WORK/s3"
printf 'state_dir: %s/s3\nsweep:\n  retry_interval_s: 1\n' "$WORK" > "$WORK/retry.yaml"
sm_start "$WORK/fg.log" --foreground --config "$WORK/retry.yaml"
sm_wait_for 0 "subnet NOT up: the SM's own port has no link .*next attempt in 1.0 s" 30
sleep 1.5
sm_alive
ibsim_cmd "ReLink \"$SM_NODE\"[1]"
sm_wait_up 0 60
echo "the service kept running and came up after ReLink"

echo "--- 4. SIGHUP with a broken file"
mark=$(sm_lines)
printf 'routing:\n  engines: [ftree, nosuch]\n' > "$WORK/retry.yaml"
kill -HUP "$SM_PID"
sm_wait_for "$mark" "reload refused" 30
sm_wait_up "$mark" 60
sm_since "$mark" | grep -E " error " | cut -c 25-
[ "$(sm_since "$mark" | grep -cE " error ")" -eq 1 ] || fail "expected one error line after the bad SIGHUP"
sm_since "$mark" | has -E "reload refused, keeping the running configuration: .*retry.yaml:2: key 'routing.engines'.*nosuch" ||
    fail "the refusal does not name the file, line and key"
sm_alive
kill -TERM "$SM_PID"
rc=0
wait "$SM_PID" || rc=$?
SM_PID=""
[ "$rc" -eq 0 ] || fail "SIGTERM: exit $rc, expected 0"
echo ok
