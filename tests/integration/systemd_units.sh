#!/usr/bin/env bash
# The systemd units as built (systemd/): `systemd-analyze verify` passes on
# ibsmd.service, the ibsmd@.service template and one instance of it, and
# the sandbox keeps `systemd-analyze security` at "OK" (exposure <= 2.5).
#
# verify checks that ExecStart's program exists: the units name the
# installed path (e.g. /usr/local/sbin/ibsmd), so the test verifies
# temporary copies whose ExecStart points at this build's ibsmd instead.
# --man=no: the units' Documentation= man pages are only on the system
# once installed (tests/bench/deb_check.sh verifies the installed unit).
#
# usage: systemd_units.sh IBSMD UNIT_DIR
set -euo pipefail
IBSMD=$(realpath "$1"); UNITS=$(realpath "$2")
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v systemd-analyze > /dev/null || fail "systemd-analyze not found (apt-get install systemd)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-units.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

for unit in ibsmd.service ibsmd@.service; do
    [ -f "$UNITS/$unit" ] || fail "$UNITS/$unit was not built"
    grep -q '^ExecStart=/.*/ibsmd\( \|$\)' "$UNITS/$unit" || fail "$unit: no ExecStart running ibsmd"
    grep -q '@[A-Z]*@' "$UNITS/$unit" && fail "$unit: a Meson variable was left unsubstituted"
    sed "s|^ExecStart=/[^ ]*/ibsmd|ExecStart=$IBSMD|" "$UNITS/$unit" > "$WORK/$unit"
done
grep -q -- '--port-guid %i' "$WORK/ibsmd@.service" || fail "ibsmd@.service does not pass the instance as --port-guid"
cp "$WORK/ibsmd@.service" "$WORK/ibsmd@0x0002c90300001235.service"
(cd "$WORK" && systemd-analyze verify --man=no ibsmd.service ibsmd@.service ibsmd@0x0002c90300001235.service) \
    > "$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify failed"; }
[ ! -s "$WORK/verify.log" ] || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify printed warnings"; }
echo "systemd-analyze verify: ibsmd.service, ibsmd@.service, ibsmd@0x0002c90300001235.service clean"

for unit in ibsmd.service ibsmd@0x0002c90300001235.service; do
    (cd "$WORK" && systemd-analyze security --offline=yes --no-pager "$unit") > "$WORK/security.log" 2>&1 || true
    exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$WORK/security.log")
    [ -n "$exposure" ] || { cat "$WORK/security.log" >&2; fail "$unit: no exposure level from systemd-analyze security"; }
    echo "$unit: exposure $exposure"
    awk -v e="$exposure" 'BEGIN { exit !(e <= 2.5) }' || { cat "$WORK/security.log" >&2; fail "$unit: exposure $exposure > 2.5"; }
done
