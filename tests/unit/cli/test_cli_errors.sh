#!/usr/bin/env bash
# Every command-line and configuration error path of ibsmd and ibsm that
# needs no fabric: each prints exactly ONE line on stderr and exits with the
# documented status (cli/app.h): 64 usage, 78 configuration, 1 run-time;
# help and --version print to stdout and exit 0. The ibsim-backed start-up
# paths (wrong --port-guid, unwritable state dir, SM port without link,
# SIGHUP with a bad file) are in tests/integration/startup_errors.sh.
#
# usage: test_cli_errors.sh IBSMD IBSM
set -uo pipefail
IBSMD=$1 IBSM=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect STATUS PATTERN CMD...: exit STATUS, one stderr line matching PATTERN
# (grep -E), nothing on stdout.
expect() {
    local status=$1 pattern=$2 rc lines
    shift 2
    "$@" > "$WORK/out" 2> "$WORK/err"
    rc=$?
    lines=$(wc -l < "$WORK/err")
    if [ "$rc" -ne "$status" ]; then
        fail "$* exited $rc, expected $status: $(cat "$WORK/err")"
    elif [ "$lines" -ne 1 ]; then
        fail "$* printed $lines lines on stderr, expected one: $(cat "$WORK/err")"
    elif ! grep -qE -- "$pattern" "$WORK/err"; then
        fail "$* said '$(cat "$WORK/err")', expected /$pattern/"
    elif [ -s "$WORK/out" ]; then
        fail "$* wrote to stdout: $(head -n 3 "$WORK/out")"
    else
        echo "ok $status  $*: $(cut -c 1-140 "$WORK/err")"
    fi
}

# expect_ok CMD...: exit 0, something on stdout, nothing on stderr.
expect_ok() {
    local rc
    "$@" > "$WORK/out" 2> "$WORK/err"
    rc=$?
    if [ "$rc" -ne 0 ] || [ ! -s "$WORK/out" ] || [ -s "$WORK/err" ]; then
        fail "$* exited $rc (stdout $(wc -c < "$WORK/out") bytes, stderr: $(cat "$WORK/err"))"
    else
        echo "ok 0   $*"
    fi
}

echo "--- ibsmd: usage errors (64)"
expect 64 "unknown engine 'ftre'" "$IBSMD" --engine=ftre
expect 64 "unknown engine 'nosuch'" "$IBSMD" --engine ftree,nosuch
expect 64 "not expected: --bogus" "$IBSMD" --bogus
expect 64 "--once excludes --foreground" "$IBSMD" --once --foreground
expect 64 "excludes" "$IBSMD" --discover-only --print-config
expect 64 "--dump-dir requires --discover-only" "$IBSMD" --once --dump-dir "$WORK"
expect 64 "--dump-dir requires --discover-only" "$IBSMD" --dump-dir "$WORK"
expect 64 "excludes --engine" "$IBSMD" --discover-only --engine ftree
expect 64 "excludes --config" "$IBSMD" --discover-only --config "$WORK/x.yaml"
expect 64 "--lmc: .*8.* range 0 to 7" "$IBSMD" --lmc 8
expect 64 "--lmc" "$IBSMD" --lmc=x
expect 64 "--lmc" "$IBSMD" --lmc 1 --lmc 2
expect 64 "--port: .*0.* range 1 to 254" "$IBSMD" --port 0
expect 64 "--smp-window" "$IBSMD" --smp-window 0
expect 64 "--smp-timeout-ms" "$IBSMD" --smp-timeout-ms 60001
expect 64 "--smp-retries" "$IBSMD" --smp-retries 101
expect 64 "--port-guid: expected a non-zero hex port GUID" "$IBSMD" --port-guid xyz
expect 64 "--port-guid excludes --ca" "$IBSMD" --port-guid 0x1 --ca mlx5_0
expect 64 "--port-guid excludes --port" "$IBSMD" --port-guid 0x1 --port 1
expect 64 "unknown level 'loud'" "$IBSMD" --log-level=loud
expect 64 "--state-dir" "$IBSMD" --state-dir
expect 64 "not expected: stray" "$IBSMD" stray

echo "--- ibsmd: configuration errors (78), before any port is opened"
expect 78 "nonexistent.yaml: cannot open" "$IBSMD" --once --config "$WORK/nonexistent.yaml"
printf 'routing:\n  lmx: 1\n' > "$WORK/key.yaml"
expect 78 "key.yaml:2: key 'routing.lmx': unknown key \(did you mean 'routing.lmc'\?\)" "$IBSMD" --once --config "$WORK/key.yaml"
expect 78 "key.yaml:2: key 'routing.lmx'" "$IBSMD" --print-config --config "$WORK/key.yaml"
expect 78 "key.yaml:2" "$IBSMD" --once --config "$WORK/key.yaml" --log-level off
# OpenSM's partitions.conf: its errors name the file and line.
printf 'Storage=0x0010, ipoib : ALL_CAS=limi ;\nShareIO = 0x80 : defmember=limited : 0x123456 ;\n' > "$WORK/partitions.conf"
printf 'partitions_file: %s\n' "$WORK/partitions.conf" > "$WORK/prtn.yaml"
expect 78 "partitions.conf:2: 'defmember' is not a port: partition flags go before the ':'" "$IBSMD" --once --config "$WORK/prtn.yaml"
printf 'routing: [\n' > "$WORK/syntax.yaml"
expect 78 "syntax.yaml" "$IBSMD" --once --config "$WORK/syntax.yaml"
printf 'smp:\n  window: 0\n' > "$WORK/range.yaml"
expect 78 "range.yaml:2: key 'smp.window'" "$IBSMD" --foreground --config "$WORK/range.yaml"
printf 'routing:\n  root_guid_file: %s/no-roots\n' "$WORK" > "$WORK/roots.yaml"
expect 78 "routing.root_guid_file .*no-roots.*cannot read" "$IBSMD" --once --config "$WORK/roots.yaml" --state-dir "$WORK/s"
expect 78 "is a directory" "$IBSMD" --once --config "$WORK"

echo "--- ibsmd: run-time start-up failures (1)"
touch "$WORK/a-file"
expect 1 "state directory .*a-file/state cannot be created .*set state_dir \(--state-dir\)" \
    "$IBSMD" --once --config none --state-dir "$WORK/a-file/state"
printf 'state_dir: %s/s\nlog:\n  file: %s/a-file/ibsmd.log\n' "$WORK" "$WORK" > "$WORK/log.yaml"
expect 1 "cannot open log.file .*--foreground to log to the console" "$IBSMD" --config "$WORK/log.yaml"
# A CA that does not exist: the port cannot be opened (safe on a machine
# with real InfiniBand hardware: nothing is touched).
expect 1 "no usable InfiniBand port on CA no-such-ca: .*ibstat" \
    "$IBSMD" --once --config none --state-dir "$WORK/s" --ca no-such-ca
expect 1 "no usable InfiniBand port on CA no-such-ca" "$IBSMD" --discover-only --ca no-such-ca

echo "--- ibsmd: help and version (0)"
expect_ok "$IBSMD" --help
expect_ok "$IBSMD" -h
expect_ok "$IBSMD" --version
grep -qE '^ibsmd [0-9]+\.[0-9]+\.[0-9]+' "$WORK/out" || fail "--version printed '$(cat "$WORK/out")'"
expect_ok "$IBSMD" --print-config --config none --engine=sftree --port-guid 0x0002c90300001235
grep -q "engines: \[sftree\]" "$WORK/out" || fail "--engine=sftree did not reach --print-config"
grep -q "port_guid: 0x0002c90300001235" "$WORK/out" || fail "--port-guid did not reach --print-config"
expect_ok "$IBSMD" --print-config --config=none --engine ftree,minhop --lmc=2
grep -q "engines: \[ftree, minhop\]" "$WORK/out" || fail "--engine ftree,minhop: $(grep engines "$WORK/out")"
grep -q "lmc: 2" "$WORK/out" || fail "--lmc=2 did not reach --print-config"

echo "--- ibsm: usage errors (64)"
expect 64 "^ibsm: expected one of: topogen, route, topodiff, analyze" "$IBSM"
expect 64 "^ibsm: expected one of: topogen" "$IBSM" bogus
expect 64 "^ibsm topogen: expected one of: pgft" "$IBSM" topogen
expect 64 "^ibsm topogen: expected one of: pgft" "$IBSM" topogen hypercub
expect 64 "^ibsm topogen ring: .*--bogus" "$IBSM" topogen ring --switches 4 --hosts-per-switch 1 --bogus 1
expect 64 "^ibsm topogen pgft: --levels 3 but" "$IBSM" topogen pgft --levels 3 --m 2,2 --w 1,2
expect 64 "^ibsm topogen ring: --switches: 'x' is not a number" "$IBSM" topogen ring --switches=x --hosts-per-switch 1
expect 64 "^ibsm route: --topology is required" "$IBSM" route --out "$WORK/r"
expect 64 "^ibsm route: --engine: .*nosuch" "$IBSM" route --topology "$WORK/x.net" --out "$WORK/r" --engine nosuch
expect 64 "^ibsm route: --lmc" "$IBSM" route --topology "$WORK/x.net" --out "$WORK/r" --lmc 1 --lmc=2
expect 64 "^ibsm route: --balancing: expected global or local" \
    "$IBSM" route --topology "$WORK/x.net" --out "$WORK/r" --balancing=wide
expect 64 "^ibsm topodiff: expected exactly two" "$IBSM" topodiff a.net
expect 64 "^ibsm analyze: .*--bogus" "$IBSM" analyze --bogus
expect 64 "^ibsm analyze: give either a route directory or --topology" "$IBSM" analyze "$WORK" --topology x

expect 64 "^ibsm status: give --state-dir or --config, not both" "$IBSM" status --state-dir "$WORK" --config x.yaml

echo "--- ibsm: configuration errors (78)"
expect 78 "^ibsm status: .*missing.yaml: cannot open" "$IBSM" status --config "$WORK/missing.yaml"

echo "--- ibsm: run-time failures (1)"
expect 1 "^ibsm status: .*state.json: cannot read" "$IBSM" status --state-dir "$WORK/no-state"
expect 1 "^ibsm route: .*x.net.*cannot open" "$IBSM" route --topology "$WORK/x.net" --out "$WORK/r"
expect 1 "^ibsm topodiff: .*x.net" "$IBSM" topodiff "$WORK/x.net" "$WORK/y.net"

echo "--- ibsm: help and version (0), -h on every (sub)command"
expect_ok "$IBSM" --version
expect_ok "$IBSM" help
for cmd in "" route topodiff analyze status topogen "topogen pgft" "topogen random"; do
    # shellcheck disable=SC2086
    expect_ok "$IBSM" $cmd -h
    # shellcheck disable=SC2086
    expect_ok "$IBSM" $cmd --help
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo ok
