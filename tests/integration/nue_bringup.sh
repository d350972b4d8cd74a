#!/usr/bin/env bash
# Fabrics with cycles that need a deadlock-free engine, brought up on ibsim
# with ibsmd's default engine chain (no engine in the configuration): a 2-D
# torus (4 x 4 switches, 2 hosts each) and a small Dragonfly+ (4 groups of 2
# leaves and 2 spines, 2 hosts per leaf, every group pair on both spine
# planes). For each:
#  - SUBNET UP in ibsmd's log, and the engine it names is the one `ibsm route`
#    picks for the same net file (whatever the default chain is);
#  - the tables read back (ibnetdiscover + dump_fts) with ibsmd's sl.txt,
#    scored by `ibsm analyze --json`: 0 unreachable and 0 looping pairs in
#    all four classes, no credit loop in CA traffic nor with switch traffic
#    added, on the VLs the SLs map to;
#  - when the routing uses more than one VL: `smpquery sl2vl` on a switch,
#    towards a switch-to-switch port, maps every SL the routing uses to
#    its VL (SL s -> VL s, as the VL programmer writes it without QoS).
#
# usage: nue_bringup.sh IBSMD IBSM
set -euo pipefail
IBSMD=$(realpath "$1"); IBSM=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"
. "$HERE/sm_events_lib.sh"
command -v smpquery > /dev/null || fail "smpquery not found (apt-get install infiniband-diags)"

# bring_up TAG TOPOGEN-ARGS...: everything above for one fabric.
bring_up() {
    local tag=$1; shift
    local net="$WORK/$tag.net" state="$WORK/$tag.state"
    echo "=== $tag: ibsm topogen $*"
    "$IBSM" topogen "$@" --out "$net"
    # Each fabric its own ibsim (socket, console, log), stopped at the end.
    ibsim_start --name "$tag" "$net"
    printf 'state_dir: %s\n' "$state" > "$WORK/$tag.yaml"
    sm_start "$WORK/$tag.log" --foreground --config "$WORK/$tag.yaml" --log-level info
    sm_wait_up 0 60
    grep -E "engines|refused|phase route|SUBNET" "$SM_LOG"

    local routed expected
    routed=$(sed -n 's/.*SUBNET UP (generation [0-9]*,.*), engine \([^ ,]*\),.*/\1/p' "$SM_LOG" | tail -n1)
    [ -n "$routed" ] || fail "$tag: no engine named in the SUBNET UP line"
    "$IBSM" route --topology "$net" --out "$WORK/$tag.route" > "$WORK/$tag.route.txt" 2> "$WORK/$tag.route.err" || {
        cat "$WORK/$tag.route.txt" "$WORK/$tag.route.err" >&2; fail "$tag: ibsm route failed"; }
    expected=$(sed -n 's/^engine: \([^ ,]*\).*/\1/p' "$WORK/$tag.route.txt")
    [ "$routed" = "$expected" ] || fail "$tag: ibsmd routed with '$routed', ibsm route picks '$expected'"
    echo "$tag: routed by $routed (ibsm route picks the same)"

    sim ibnetdiscover > "$WORK/$tag.ibnet" 2> /dev/null || fail "$tag: ibnetdiscover failed"
    sim dump_fts > "$WORK/$tag.fts" 2> /dev/null || fail "$tag: dump_fts failed"
    local sl=()
    [ -f "$state/sl.txt" ] && sl=(--sl "$state/sl.txt")
    "$IBSM" analyze --topology "$WORK/$tag.ibnet" --lfts "$WORK/$tag.fts" "${sl[@]}" --json --bisections 10 \
        --threads 1 --out "$WORK/$tag.json" 2> "$WORK/$tag.analyze.err" || {
        cat "$WORK/$tag.analyze.err" >&2; fail "$tag: ibsm analyze failed"; }
    python3 - "$WORK/$tag.json" "$tag" << 'PY' || fail "$tag: the tables read back are wrong"
import json, sys
r, tag = json.load(open(sys.argv[1])), sys.argv[2]
bad = []
for cls in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch"):
    c = r["pairs"][cls]
    print(f"{tag}: {cls}: {c['pairs']} pairs, {c['unreachable']} unreachable, {c['loops']} looping")
    if not c["counted"] or c["pairs"] == 0 or c["unreachable"] or c["loops"]:
        bad.append(cls)
for traffic in ("ca_traffic", "all_traffic"):
    t = r["credit_loops"][traffic]
    vls = [v["vl"] for v in t["vls"]]
    print(f"{tag}: {traffic}: VLs {vls}, credit loop: {t['has_loop']}")
    if not t["computed"] or t["has_loop"]:
        bad.append(traffic)
if bad:
    print(f"{tag}: FAILED: {', '.join(bad)}", file=sys.stderr)
    sys.exit(1)
PY

    # The SLs the routing uses, from sl.txt (one hex digit per destination LID).
    local used=0
    [ -f "$state/sl.txt" ] && used=$(awk 'NF == 3 && $1 ~ /^0x/ { for (i = 1; i <= length($3); i++) print substr($3, i, 1) }' \
        "$state/sl.txt" | sort -u | tr '\n' ' ')
    echo "$tag: SLs used: $used"
    if [ "$(wc -w <<< "$used")" -gt 1 ]; then
        # A switch and one of its ports cabled to another switch.
        local lid out
        read -r lid out < <(awk '/^Switch/ { sw = match($0, / lid [0-9]+ /) ? substr($0, RSTART + 5, RLENGTH - 6) : "" }
            /^(Ca|Hca|Rt)/ { sw = "" }
            sw != "" && /^\[[0-9]+\][[:space:]]+"S-/ { print sw, substr($1, 2, index($1, "]") - 2); exit }' "$WORK/$tag.ibnet")
        [ -n "$lid" ] || fail "$tag: no switch-to-switch port in ibnetdiscover's output"
        sim smpquery sl2vl "$lid" "$out" > "$WORK/$tag.sl2vl" 2> /dev/null || fail "$tag: smpquery sl2vl $lid $out failed"
        # Rows "ports: in  N, out  M: |v0|v1|...|v15|": every SL used -> the same VL.
        awk -F'|' -v used="$used" '
            BEGIN { k = split(used, u, " ") }
            /^ports:/ { rows++; for (i = 1; i <= k; i++) { sl = index("0123456789abcdef", u[i]) - 1
                        if ($(sl + 2) + 0 != sl) bad = 1 } }
            END { exit !(rows > 0 && !bad) }' "$WORK/$tag.sl2vl" || {
            cat "$WORK/$tag.sl2vl" >&2; fail "$tag: SL2VL of switch LID $lid towards port $out does not map the SLs used to their VLs"; }
        echo "$tag: smpquery sl2vl $lid $out: SLs $used on their own VLs ($(grep -c '^ports:' "$WORK/$tag.sl2vl") input ports)"
    fi

    kill -TERM "$SM_PID"
    local rc=0
    wait "$SM_PID" || rc=$?
    SM_PID=""
    [ "$rc" -eq 0 ] || fail "$tag: ibsmd exited $rc after SIGTERM"
    ibsim_stop "$tag"
}

bring_up torus torus --x 4 --y 4 --hosts-per-switch 2
bring_up dragonfly dragonfly --groups 4 --leaves 2 --spines 2 --hosts-per-leaf 2
echo "PASS"
