#!/bin/bash
# Fat-tree routing compute time: ibsmd's `ftree` and `sftree` (via `ibsm route`)
# side by side with OpenSM's ftree routing time read from its log, on the same
# net files. Not a timed test: it prints a table.
#
# usage: tests/bench/ftree_bench.sh [BUILD_DIR] [SIZES]
#   BUILD_DIR  a release build (default: build-release next to this checkout)
#   SIZES      any of 648 3456 11664 ranger ranger-roots (default: all);
#              ranger is `ibsm topogen ranger` with its defaults: two 3456-port
#              cores and 328 12-host NEMs (3936 hosts, 1768 switches, 5
#              levels). Its 240 core leaves without NEMs are the switches
#              farthest from the hosts, so automatic ranking takes them (or
#              their spines) for roots; ranger-roots is the same net file with
#              the 288 core top switches given as roots to every engine
#              (`ibsm route --roots`, `opensm -a`).
# Set NO_OPENSM=1 to skip the OpenSM runs (they need ibsim and take minutes at
# 11664 hosts), BEST_OF=N to report the fastest of N runs of each of our
# engines (default 3: the machine is shared, a single run is noise-prone), and
# KEEP=1 to keep the work directory (net files, OpenSM's logs) and print it.
#
# OpenSM: `opensm -o -R ftree` against a private ibsim on the same net file;
# its routing time comes from its own log (tests/bench/opensm_lib.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-release}
sizes=${2:-"648 3456 11664 ranger ranger-roots"}
ibsm=$build/tools/ibsm
[ -x "$ibsm" ] || { echo "ftree_bench: $ibsm not found (meson setup $build -Dbuildtype=release)" >&2; exit 1; }
work=$(mktemp -d /tmp/ftree-bench.XXXXXX)
trap 'cleanup' EXIT
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "ftree_bench: kept $work" >&2; else rm -rf "$work"; fi
}

. "$(dirname "$0")/fabrics.sh"

# The net file of size $1, written to $2, and its label in the table.
make_net() {
    local args
    case $1 in
        ranger | ranger-roots) "$ibsm" topogen ranger --out "$2" > /dev/null ;;
        *)
            args=$(pgft_args "$1")
            "$ibsm" topogen pgft $args --out "$2" > /dev/null
            ;;
    esac
}
fabric_label() {
    case $1 in
        ranger) echo "Ranger: 2 x 3456-port cores, 328 NEMs" ;;
        ranger-roots) echo "Ranger, core tops given as roots" ;;
        *) echo "PGFT($(pgft_args "$1" | tr -s ' '))" ;;
    esac
}

# "routed by ENGINE (0.066 s)" from ibsm route's progress lines; the fastest
# of BEST_OF runs ("n/a" if none printed a time, e.g. the engine refused).
# Extra arguments go to `ibsm route`.
ibsm_time() {
    local net=$1 engine=$2 i t best=""
    shift 2
    for i in $(seq 1 "${BEST_OF:-3}"); do
        t=$("$ibsm" route --topology "$net" --out "$work/out-$engine" --engine "$engine" --no-fallback "$@" 2>&1 |
            sed -n "s/.*routed by $engine (\([0-9.]*\) s).*/\1/p")
        [ -n "$t" ] || continue
        best=$(printf "%s\n%s\n" "$t" "$best" | sed '/^$/d' | sort -g | head -n1)
    done
    echo "${best:-n/a}"
}

. "$(dirname "$0")/opensm_lib.sh"

# Extra arguments go to opensm.
opensm_time() {
    local net=$1 tag=$2
    shift 2
    [ "${NO_OPENSM:-0}" = 1 ] && { echo "skipped"; return; }
    local r
    r=$(opensm_measure ftree "$net" "$work/osm-$tag" 900 "$@" | cut -d' ' -f1)
    # ftree found no fat-tree and OpenSM fell back to minhop (reason in osm.log).
    if [ "$r" = n/a ] && grep -q "ftree: cannot build lid matrices" "$work/osm-$tag/osm.log" 2>/dev/null; then
        r=refused
    fi
    echo "$r"
}

# The node GUIDs of the core top switches of a `topogen ranger` net file, one
# per line, as both `ibsm route --roots` and `opensm -a` read them.
ranger_roots() {
    sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*# "core[0-9]*-top-.*/0x\1/p' "$1"
}

printf "%-8s %-40s %12s %12s %14s\n" hosts fabric "ftree (s)" "sftree (s)" "OpenSM ftree (s)"
for n in $sizes; do
    net=$work/fabric-$n.net
    make_net "$n" "$net"
    hosts=$(grep -c '^Ca' "$net")
    ours=() theirs=()
    if [ "$n" = ranger-roots ]; then
        ranger_roots "$net" > "$work/roots-$n"
        ours=(--roots "$work/roots-$n")
        theirs=(-a "$work/roots-$n")
    fi
    f=$(ibsm_time "$net" ftree "${ours[@]}")
    s=$(ibsm_time "$net" sftree "${ours[@]}")
    o=$(opensm_time "$net" "$n" "${theirs[@]}")
    printf "%-8s %-40s %12s %12s %14s\n" "$hosts" "$(fabric_label "$n")" "$f" "$s" "$o"
done
