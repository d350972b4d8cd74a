#!/usr/bin/env bash
# Per-pair path routing + the color/L LID-assignment stage (seed 002)
# brought up on ibsim and judged with infiniband-diags:
#  - `ibsmd --once` with routing.engines [ENGINE] (no fallback),
#    lid_assignment color-l, lid_order colour-first: exit 0, SUBNET UP,
#    routed by ENGINE, paths.txt in the state dir;
#  - ibnetdiscover: every CA port carries its guid2lid block (LID and LMC),
#    switches LMC 0, some CA ports more than one LID;
#  - dump_fts read from the switches equals ibsmd's lfts.dump (every LID of
#    every block);
#  - smpquery portinfo: the LMC of the CA ports;
#  - ibtracert from chosen sources (CA ports and switches) to the DLIDs of
#    the path file leaves every switch by the port of the path the engine
#    selected: `ibsm route --selected-paths` runs the same engine on ibsmd's
#    own topology.net dump (same fabric, same order, deterministic engine),
#    and its paths.txt must equal ibsmd's;
#  - `ibsm analyze --paths` on the live dumps: every pair delivered on its
#    DLID, no credit loop;
#  - a second `ibsmd --once` keeps every block (guid2lid unchanged, no
#    "moved to" note) and sends no LFT block.
#
# usage: paths_bringup.sh IBSMD IBSM ENGINE -- TOPOGEN ARGS...
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2"); ENGINE=$3; shift 3
[ "$1" = "--" ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
export WORK SIM_PRELOAD SIM_ASAN_OPTIONS


"$IBSM" topogen "$@" --out "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
STATE="$WORK/state"
cat > "$WORK/ibsmd.yaml" <<YAML
routing:
  engines: [$ENGINE]
  no_fallback: true
  lid_assignment: color-l
  lid_order: colour-first
YAML

echo "--- ibsmd --once with $ENGINE + color/L"
sim "$IBSMD" --once --state-dir "$STATE" --config "$WORK/ibsmd.yaml" --log-level info 2> "$WORK/once.log" || {
    tail -n 30 "$WORK/once.log" >&2; fail "ibsmd --once exited with $?"; }
grep -E "phase|SUBNET UP|LID note" "$WORK/once.log"
grep -q "SUBNET UP" "$WORK/once.log" || fail "no SUBNET UP line"
grep -q "phase route .* engine $ENGINE, verified" "$WORK/once.log" || fail "not routed (and verified) by $ENGINE"
for f in guid2lid lfts.dump topology.net paths.txt; do
    [ -s "$STATE/$f" ] || fail "state dir lacks $f"
done

echo "--- ibnetdiscover: LID blocks are guid2lid's"
sim ibnetdiscover > "$WORK/ibnetdiscover.net" 2> "$WORK/ibnetdiscover.err" || {
    cat "$WORK/ibnetdiscover.err" >&2; fail "ibnetdiscover failed"; }
python3 "$HERE/paths_check.py" lids "$STATE/guid2lid" "$WORK/ibnetdiscover.net" || fail "LID blocks differ from guid2lid"

echo "--- dump_fts equals lfts.dump"
dump_fts_matches "$STATE/lfts.dump"

echo "--- smpquery portinfo: LMC per CA port"
python3 "$HERE/paths_check.py" portinfo "$STATE/guid2lid" "$WORK/ibnetdiscover.net" || fail "PortInfo LMC differs"

echo "--- the selected paths: $ENGINE again, offline, on ibsmd's topology.net"
"$IBSM" route --topology "$STATE/topology.net" --out "$WORK/offline" --engine "$ENGINE" --no-fallback \
    --lid-assignment color-l --lid-order colour-first --selected-paths > "$WORK/route.out" 2> "$WORK/route.err" || {
    cat "$WORK/route.out" "$WORK/route.err" >&2; fail "ibsm route failed"; }
[ -s "$WORK/offline/selected-paths.txt" ] || fail "ibsm route wrote no selected-paths.txt"
# Line order follows each side's node numbering (ibsmd's is by GUID, the
# net file's by its lines); the lines themselves must be the same.
grep -v '^#' "$STATE/paths.txt" | LC_ALL=C sort > "$WORK/paths.ours"
grep -v '^#' "$WORK/offline/paths.txt" | LC_ALL=C sort > "$WORK/paths.offline"
diff -q "$WORK/paths.ours" "$WORK/paths.offline" > /dev/null || {
    diff "$WORK/paths.ours" "$WORK/paths.offline" | head -10 >&2; fail "ibsm route's path file differs from ibsmd's"; }

echo "--- ibtracert on the path file's DLIDs follows the selected paths"
python3 "$HERE/paths_check.py" tracert "$STATE/guid2lid" "$STATE/paths.txt" "$WORK/offline/selected-paths.txt" 40 ||
    fail "traced paths differ from the selected ones"

echo "--- ibsm analyze --paths on the live dumps"
mkdir -p "$WORK/live"
cp "$WORK/ibnetdiscover.net" "$WORK/live/topology.net"
cp "$WORK/dump_fts.txt" "$WORK/live/lfts.dump"
"$IBSM" analyze "$WORK/live" --paths "$STATE/paths.txt" --fail-on-problem --bisections 20 > "$WORK/analyze.out" 2>&1 || {
    cat "$WORK/analyze.out" >&2; fail "ibsm analyze --paths found problems"; }
grep -iE "pairs|paths|credit|load" "$WORK/analyze.out" | head -20
echo "--- a second ibsmd --once keeps every LID block and sends no LFT block"
cp "$STATE/guid2lid" "$WORK/guid2lid.first"
sim "$IBSMD" --once --state-dir "$STATE" --config "$WORK/ibsmd.yaml" --log-level info 2> "$WORK/once2.log" || {
    tail -n 30 "$WORK/once2.log" >&2; fail "second ibsmd --once exited with $?"; }
grep -E "phase (lids|route|program)|LID note" "$WORK/once2.log"
cmp -s "$WORK/guid2lid.first" "$STATE/guid2lid" || { diff "$WORK/guid2lid.first" "$STATE/guid2lid" | head >&2; fail "LID blocks moved"; }
grep -q "LFT blocks sent: 0 " "$WORK/once2.log" || fail "the second run sent LFT blocks"
grep -q "moved to" "$WORK/once2.log" && fail "the second run moved a block"
echo "PASS"
