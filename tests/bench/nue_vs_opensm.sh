#!/usr/bin/env bash
# Deadlock-free routing within a VL budget: our sssp, updn, dfsssp and nue
# against OpenSM's nue and dfsssp at 1, 2, 4 and 8 VLs, in one run, on the
# non-tree fabrics of fabrics.sh (2-D and 3-D tori, a hypercube, a
# Dragonfly+, random, a chain of trees, degraded trees). Prints one table and
# a time line; exits 1 when one of OUR nue rows (CHECKED) has an unreachable
# pair, a credit loop (CA or switch traffic) or no verified tables: the
# property nue promises at every VL count.
#
#   tests/bench/nue_vs_opensm.sh [IBSM [FABRIC...]]
#     IBSM     a release build's ibsm (default build-rel/tools/ibsm)
#     FABRIC   names of fabrics.sh's fabric_args (default: torus-8x8
#              torus-8x8-m6 torus3d-4x4x4 torus3d-4x4x4-m8 hypercube-6
#              dragonfly-8x4x4 dragonfly-9x4x4-k4 dragonfly-6x4x8-k3
#              dragonfly-7x4x16-k2 random-64x24 chain-744 tree-648-m20
#              tree-3456-m40); a fabric whose kind this ibsm's topogen
#              lacks is skipped with a message
# env: VLS (default "1 2 4 8"; each 1, 2, 4 or 8), ENGINES (ours, default
#      "updn dfsssp nue"; sssp is always run once per fabric, on one VL, as
#      the reference: its minimal paths ignore deadlock, and 0.95 x its EBB
#      is the bar where dfsssp does not fit), OSM_ENGINES (default
#      "nue dfsssp"), SKIP_OPENSM=1, BEST_OF=N our fastest of N runs
#      (default 3), BISECTIONS (default 1000), OSM_TIMEOUT (s, default 900),
#      CHECKED (our engines whose rows must be clean, default "nue"),
#      CHAIN (default "ftree,dfsssp-or-nue,updn", ibsmd's default chain: a
#      row "ibsm default" per VL count, whose note names the engine it
#      picked; "" for none),
#      TIME_FABRIC (default tree-3456; "" for no time line), TIME_VLS
#      (default 8), KEEP_WORK=1 keeps the net files, tables and OpenSM logs.
#      QUICK=1: torus-8x8 and torus3d-4x4x4 at VLs 1 and 2, ENGINES nue,
#      BEST_OF 1, 200 bisections, no OpenSM, no time line (the CI check,
#      meson test nue-quick); it exits 77 (skipped) while this ibsm has none
#      of the CHECKED engines.
#
# Ours: `ibsm route --engine E --no-fallback --max-vls N`, compute time = its
# "routed by" line (the engine plus the verification gate), scored by `ibsm
# analyze` on the route directory with its sl.txt (SL = VL, the per-VL
# channel-dependency graphs). sssp with --max-vls 1: its tables fail the gate
# (credit loops), are written anyway (DEGRADED) and scored as they are.
#
# OpenSM: `opensm -R E` on a private ibsim (opensm_lib.sh), its tables read
# back with ibnetdiscover + dump_fts; compute time = its log's "building
# routing with" -> "tables configured". What makes it use exactly N VLs
# (read in OpenSM 3.3's osm_ucast_nue.c, osm_ucast_dfsssp.c, osm_subnet.c,
# osm_port.c, osm_lid_mgr.c, and ibsim's sim_net.c):
# - ibsim's ports report VLCap 4 (VL0-7: 8 data VLs) and start with
#   OperVLs = VLCap; a PortInfo Set may lower OperVLs, not raise it past
#   VLCap. So 8 is the most; 15 is not possible on ibsim.
# - `max_op_vls` (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7) caps OperVLs
#   (osm_physp_calc_link_op_vls: min of both ends' VLCap and max_op_vls), but
#   a switch's external ports get it from the link manager, after the
#   routing: a single `opensm -o` routes seeing ibsim's 8 VLs ("Virtual Lanes
#   available: 8" with max_op_vls 1). So each OpenSM run here follows an
#   `opensm -o -R minhop` with the same options on the same ibsim
#   (OPENSM_PRERUN), which leaves OperVLs = N on every port; checked:
#   dfsssp then logs "Virtual Lanes available: N".
# - dfsssp has no VL option of its own: it uses the smallest OperVLs of the
#   switch ports (get_avail_vl_in_subn), so max_op_vls is its budget; with
#   fewer VLs than "Virtual Lanes needed" it fails and OpenSM falls back
#   (see "routed by"). It spreads each layer's paths at random over spare VLs
#   and hands SLs out only in PathRecords, so its per-VL verdict is "-",
#   except when it needed 1 VL (every VL then holds part of one acyclic layer).
# - nue takes min(nue_max_num_vls, smallest OperVLs of connected switch
#   ports) (get_max_num_vls), and only with qos TRUE: without QoS it falls
#   back to 1 VL (WRN NUE48). So: max_op_vls for N, nue_max_num_vls N, qos
#   TRUE when N > 1 (no policy file: OpenSM's default SL2VL, SL i -> VL i).
#   nue_include_switches TRUE, so switch-to-switch paths are in its complete
#   CDG as ours are (by default OpenSM routes them afterwards on a spanning
#   tree, outside the deadlock-freedom).
# - nue hands its SLs out only in PathRecords too (nue_get_vl_for_path), but
#   there the SL depends on the destination LID only (dlid_to_vl_mapping),
#   and OpenSM has no file that dumps it (its dumps cover LFTs, SL2VL, paths
#   per port, not path SLs). So for N > 1 OpenSM runs as a daemon until
#   SUBNET UP and its SA is asked one PathRecord per destination LID
#   (opensm_lib.sh's opensm_sl_by_dlid: ibsim's SA answers single MADs
#   only, no multi-record tables), which becomes an sl.txt for `ibsm analyze
#   --sl`: a real per-VL verdict. Daemon runs flush the log per line (-d2),
#   which may add a little to its compute time; "-" if the SA gave no SL.
#
# Columns: VLs given | compute s | EBB | max stretch of CA->CA routes |
# unreachable (or looping) pairs CA->CA, CA->sw, sw->CA, sw->sw | credit loop
# in CA traffic / with switch traffic | VLs needed/used (ours; OpenSM
# dfsssp: its "needed", ">N" when more than N; OpenSM nue: -/the VLs its
# PathRecords use) | who routed, refusal or DEGRADED.
# Time line: our nue vs OpenSM's nue compute time on TIME_FABRIC at TIME_VLS
# VLs (OpenSM with -o, no SA queries) and the ratio (target: at most 0.2).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
IBSM=$(realpath "${1:-$here/build-rel/tools/ibsm}")
[ $# -gt 0 ] && shift
[ -x "$IBSM" ] || { echo "nue_vs_opensm: $IBSM not found (meson setup build-rel --buildtype=release)" >&2; exit 1; }
fabrics=("$@")
if [ "${QUICK:-0}" = 1 ]; then
    [ ${#fabrics[@]} -eq 0 ] && fabrics=(torus-8x8 torus3d-4x4x4)
    : "${VLS:=1 2}" "${ENGINES:=nue}" "${BEST_OF:=1}" "${BISECTIONS:=200}" "${SKIP_OPENSM:=1}"
    TIME_FABRIC=${TIME_FABRIC:-}
    CHAIN=${CHAIN-}
fi
[ ${#fabrics[@]} -eq 0 ] &&
    fabrics=(torus-8x8 torus-8x8-m6 torus3d-4x4x4 torus3d-4x4x4-m8 hypercube-6 dragonfly-8x4x4 dragonfly-9x4x4-k4
             dragonfly-6x4x8-k3 dragonfly-7x4x16-k2 random-64x24 chain-744 tree-648-m20 tree-3456-m40)
read -r -a vls_list <<< "${VLS:-1 2 4 8}"
read -r -a engines <<< "${ENGINES:-updn dfsssp nue}"
read -r -a osm_engines <<< "${OSM_ENGINES:-nue dfsssp}"
CHECKED=" ${CHECKED:-nue} "
CHAIN=${CHAIN-ftree,dfsssp-or-nue,updn}
BEST_OF=${BEST_OF:-3}
BISECTIONS=${BISECTIONS:-1000}
OSM_TIMEOUT=${OSM_TIMEOUT:-900}
SKIP_OPENSM=${SKIP_OPENSM:-0}
TIME_FABRIC=${TIME_FABRIC-tree-3456}
TIME_VLS=${TIME_VLS:-8}
. "$here/tests/bench/fabrics.sh"
. "$here/tests/bench/opensm_lib.sh"
. "$here/tests/bench/route_table_lib.sh"

# max_op_vls VLS -> OpenSM's OperVLs code (IBA PortInfo: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7)
max_op_vls() {
    case $1 in 1) echo 1 ;; 2) echo 2 ;; 4) echo 3 ;; 8) echo 4 ;;
    *) echo "nue_vs_opensm: VLS holds '$1'; ibsim's ports carry 1, 2, 4 or 8 VLs" >&2; return 1 ;;
    esac
}
for n in "${vls_list[@]}"; do max_op_vls "$n" > /dev/null; done

# An engine this ibsm lacks (nue before it is merged) is left out, saying so.
known_engines=()
for e in "${engines[@]}"; do
    if [[ "$("$IBSM" route --topology /dev/null --engine "$e" --out /dev/null 2>&1)" == *"unknown routing engine"* ]]; then
        echo "nue_vs_opensm: this ibsm has no '$e' engine: its rows are left out" >&2
    else
        known_engines+=("$e")
    fi
done
checked_known=0
for e in "${known_engines[@]}"; do [[ "$CHECKED" == *" $e "* ]] && checked_known=1; done
if [ "${QUICK:-0}" = 1 ] && [ "$checked_known" = 0 ]; then
    echo "nue_vs_opensm: QUICK checks our$CHECKED, which this ibsm lacks: skipped" >&2
    exit 77
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nue-vs-opensm.XXXXXX")
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
echo "work dir: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

row() { printf "%-16s %3s %-14s %8s %7s %5s %6s %6s %6s %6s %7s %5s  %s\n" "$@"; }
failures=()

# ours FABRIC VLS ENGINE NET (ENGINE "default": the chain CHAIN)
ours() {
    local fab=$1 vls=$2 engine=$3 net=$4 cells spec=$3
    [ "$engine" = default ] && spec=$CHAIN
    IFS=$'\t' read -r -a cells < <(ours_cells "$IBSM" "$BEST_OF" "$BISECTIONS" "$WORK/$fab-$vls-ours-$engine" \
        --topology "$net" --engine "$spec" --no-fallback --max-vls "$vls")
    row "$fab" "$vls" "ibsm $engine" "${cells[@]}"
    # cells: compute EBB str CA-CA CA-sw sw-CA sw-sw loop VLs note
    if [[ "$CHECKED" == *" $engine "* ]] && { [ "${cells[3]}" != 0 ] || [ "${cells[4]}" != 0 ] || [ "${cells[5]}" != 0 ] ||
        [ "${cells[6]}" != 0 ] || [ "${cells[7]}" != no/no ] || [[ "${cells[9]}" != "routed by $engine" ]]; }; then
        failures+=("$engine on $fab at $vls VLs: ${cells[*]:3}")
    fi
}

# opensm_conf ENGINE VLS FILE: the options that make OpenSM use VLS VLs (header)
opensm_conf() {
    {
        echo "max_op_vls $(max_op_vls "$2")"
        if [ "$1" = nue ]; then
            echo "nue_max_num_vls $2"
            echo "nue_include_switches TRUE"
            if [ "$2" -gt 1 ]; then echo "qos TRUE"; fi
        fi
    } > "$3"
}

# theirs FABRIC VLS ENGINE NET
theirs() {
    local fab=$1 vls=$2 engine=$3 net=$4 dir=$WORK/$1-$2-osm-$3 route_s by known=0 hook="" cells needed
    mkdir -p "$dir"
    opensm_conf "$engine" "$vls" "$dir/opensm.conf"
    if [ "$engine" = nue ] && [ "$vls" -gt 1 ]; then hook="opensm_sl_by_dlid $vls"; fi
    read -r route_s _ by <<< "$(OPENSM_READBACK=1 OPENSM_PRERUN=minhop OPENSM_SA_HOOK=$hook \
        opensm_measure "$engine" "$net" "$dir" "$OSM_TIMEOUT" -F "$dir/opensm.conf")"
    needed=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$dir/osm.log" 2> /dev/null | tail -n1 || true)
    case $by in
    nue) { [ "$vls" = 1 ] || [ -s "$dir/sl.txt" ]; } && known=1 ;;
    dfsssp) [ "$needed" = 1 ] && known=1 ;;
    *) known=1 ;;  # a fallback engine (minhop) uses SL 0 only
    esac
    IFS=$'\t' read -r -a cells < <(theirs_cells "$IBSM" "$BISECTIONS" "$dir" "$route_s" "$by" "$known")
    # nue: the VLs its PathRecords use
    if [ "$by" = nue ]; then
        if [ -s "$dir/sl.txt" ]; then
            cells[8]="-/$(awk '$1 ~ /^0x/ { for (i = 1; i <= length($3); i++) { v = index("0123456789abcdef", substr($3, i, 1)); if (v > m) m = v } }
                              END { print m + 0 }' "$dir/sl.txt")"
        elif [ "$vls" = 1 ]; then
            cells[8]="-/1"
        fi
    fi
    grep -q "WRN NUE4[78]" "$dir/osm.log" 2> /dev/null && cells[9]="${cells[9]}; $(grep -m1 -o 'WRN NUE4[78].*' "$dir/osm.log")"
    row "$fab" "$vls" "OpenSM $engine" "${cells[@]}"
}

row fabric VLs engine compute_s EBB str "CA-CA" "CA-sw" "sw-CA" "sw-sw" "loop" VLs note
for fab in "${fabrics[@]}"; do
    net=$WORK/$fab.net
    rc=0
    fabric_make "$IBSM" "$fab" "$net" || rc=$?
    [ "$rc" -eq 3 ] && continue
    [ "$rc" -eq 0 ] || exit "$rc"
    ours "$fab" 1 sssp "$net"
    for vls in "${vls_list[@]}"; do
        for engine in "${known_engines[@]}"; do ours "$fab" "$vls" "$engine" "$net"; done
        if [ -n "$CHAIN" ]; then ours "$fab" "$vls" default "$net"; fi
        [ "$SKIP_OPENSM" = 1 ] && continue
        for engine in "${osm_engines[@]}"; do theirs "$fab" "$vls" "$engine" "$net"; done
    done
done

if [ -n "$TIME_FABRIC" ] && [ "$SKIP_OPENSM" != 1 ] && [[ " ${known_engines[*]} " == *" nue "* ]]; then
    net=$WORK/$TIME_FABRIC.net
    if fabric_make "$IBSM" "$TIME_FABRIC" "$net"; then
        IFS=$'\t' read -r -a cells < <(ours_cells "$IBSM" "$BEST_OF" 1 "$WORK/time-ours" \
            --topology "$net" --engine nue --no-fallback --max-vls "$TIME_VLS")
        opensm_conf nue "$TIME_VLS" "$WORK/time-opensm.conf"
        read -r theirs_s _ by <<< "$(opensm_measure nue "$net" "$WORK/time-osm" "$OSM_TIMEOUT" -F "$WORK/time-opensm.conf")"
        awk -v f="$TIME_FABRIC" -v n="$TIME_VLS" -v a="${cells[0]}" -v b="$theirs_s" -v by="$by" 'BEGIN {
            r = (a + 0 > 0 && b + 0 > 0) ? sprintf("%.3f", a / b) : "n/a"
            printf "time %s at %s VLs: ours nue %s s, OpenSM nue %s s (routed by %s), ratio %s (target <= 0.2)\n",
                   f, n, a, b, by, r }'
    fi
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ ${#failures[@]} -gt 0 ]; then
    printf "our%sbroke the promise (unreachable pairs, a credit loop or no verified tables):\n" "$CHECKED" >&2
    printf "  %s\n" "${failures[@]}" >&2
    exit 1
fi
