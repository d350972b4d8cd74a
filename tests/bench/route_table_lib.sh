# Shared by the routing tables (routing_vs_opensm.sh, nue_vs_opensm.sh): one
# engine's row cells, ours from `ibsm route`, OpenSM's from its read-back
# tables, both scored by the same `ibsm analyze`.
#
#   . route_table_lib.sh
#   ours_cells IBSM BEST_OF BISECTIONS OUT ROUTE_ARG...
#   theirs_cells IBSM BISECTIONS DIR ROUTE_S ROUTED_BY SL_KNOWN
#     -> one line, tab-separated: compute_s EBB stretch CA-CA CA-sw sw-CA
#        sw-sw loop VLs note   (read it with IFS=$'\t' read -r -a cells)
#
# Ours: `ibsm route ROUTE_ARG... --out OUT`, the fastest of BEST_OF runs
# (its "routed by" line: the chain with the verification gate, no LIDs or
# files), scored on the route directory with its sl.txt when the engine
# wrote one. VLs: needed/used.
# Theirs: DIR/topology.net + DIR/lfts.dump (opensm_lib.sh's read-back), with
# DIR/sl.txt when there is one; SL_KNOWN=0 when OpenSM's SLs are not known
# (dfsssp hands them out only in PathRecords): loop "-". VLs: "Virtual Lanes
# needed" from its log (">N" when more than the N available), "-" when absent.
# unreachable counts unreachable and looping pairs; loop is "yes/no" for CA
# traffic / with switch traffic, per VL.

command -v python3 > /dev/null || { echo "route_table_lib: python3 is needed to read the JSON reports" >&2; exit 1; }

# route_score JSON SL_KNOWN -> "EBB STRETCH CA->CA CA->sw sw->CA sw->sw LOOP"
route_score() {
    python3 - "$1" "$2" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ebb = (d.get("ebb") or {}).get("value")
un = [d["pairs"][c]["unreachable"] + d["pairs"][c]["loops"]
      for c in ("ca_to_ca", "ca_to_switch", "switch_to_ca", "switch_to_switch")]
yn = lambda b: "yes" if b else "no"
cl = d["credit_loops"]
loop = f'{yn(cl["ca_traffic"]["has_loop"])}/{yn(cl["all_traffic"]["has_loop"])}' if sys.argv[2] == "1" else "-"
st = d["pairs"]["ca_to_ca"].get("stretch", {}).get("max")
print(f"{ebb:.4f}" if ebb is not None else "n/a", f"{st:.2f}" if st is not None else "n/a", *un, loop)
PY
}

# cells FIELD... -> the fields tab-separated (the last, the note, may hold spaces)
route_cells() { local IFS=$'\t'; echo "$*"; }

ours_cells() {
    local ibsm=$1 best_of=$2 bisections=$3 out=$4 t best="" rc vls engine note why
    shift 4
    for _ in $(seq 1 "$best_of"); do
        rc=0
        "$ibsm" route "$@" --out "$out" > "$out.route" 2> "$out.err" || rc=$?
        # 2: degraded (no engine passed the gate), tables written anyway
        [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || break
        t=$(sed -n 's/.*routed by [a-z_]* (\([0-9.]*\) s).*/\1/p' "$out.err")
        [ -n "$t" ] || continue
        best=$(printf "%s\n%s\n" "$t" "$best" | sed '/^$/d' | sort -g | head -n1)
    done
    if [ -z "$best" ]; then
        why=$(sed -n 's/^refused: //p' "$out.route" | tr '\n' ';')
        [ -n "$why" ] || why=$(tail -n1 "$out.err")  # an error before any engine ran
        route_cells n/a - - - - - - - - "refused: $(echo "$why" | cut -c1-160)"
        return
    fi
    "$ibsm" analyze "$out" --json --bisections "$bisections" > "$out.json" 2> "$out.analyze.err"
    vls=$(sed -n 's/^vls: \([0-9]*\) used, \([0-9]*\) needed/\2\/\1/p' "$out.route")
    engine=$(sed -n 's/^engine: //p' "$out.route")
    note="routed by $engine"
    grep -q '^DEGRADED' "$out.route" && note="DEGRADED, $note"
    # shellcheck disable=SC2046
    route_cells "$best" $(route_score "$out.json" 1) "${vls:--}" "$note"
}

theirs_cells() {
    local ibsm=$1 bisections=$2 dir=$3 route_s=$4 by=$5 sl_known=$6 needed avail sl=()
    if ! grep -q "SUBNET UP" "$dir/osm.log" 2> /dev/null || [ ! -s "$dir/lfts.dump" ]; then
        route_cells n/a - - - - - - - - "no SUBNET UP or no tables read back (see $dir)"
        return
    fi
    [ -s "$dir/sl.txt" ] && sl=(--sl "$dir/sl.txt")
    "$ibsm" analyze --topology "$dir/topology.net" --lfts "$dir/lfts.dump" "${sl[@]}" --json \
        --bisections "$bisections" > "$dir/report.json" 2> "$dir/analyze.err"
    needed=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$dir/osm.log" | tail -n1)
    avail=$(sed -n 's/.*Virtual Lanes available: \([0-9]*\).*/\1/p' "$dir/osm.log" | tail -n1)
    # dfsssp stops counting one past what it has: "needed 9" of 8 is "more than 8"
    if [ -n "$needed" ] && [ -n "$avail" ] && [ "$needed" -gt "$avail" ]; then needed=">$avail"; fi
    # shellcheck disable=SC2046
    route_cells "$route_s" $(route_score "$dir/report.json" "$sl_known") "${needed:--}" "routed by $by"
}
