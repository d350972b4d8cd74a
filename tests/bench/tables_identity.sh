#!/bin/bash
# What `ibsm route` writes, for every fabric kind `ibsm topogen` offers and
# every engine, so that a change which must not change any route can be
# shown not to: run it on the build before and after, then compare.
#
#   tests/bench/tables_identity.sh BUILD|IBSM OUTDIR      generate
#   tests/bench/tables_identity.sh --compare DIR_A DIR_B  cmp every file
#
# OUTDIR/<fabric>/<run>/ holds what `ibsm route --no-fallback` wrote
# (topology.net, lfts.dump, guid2lid, sl.txt, paths.txt, selected-paths.txt)
# and report.txt, its stdout without the timings plus its exit status, so an
# engine that refuses is compared on its reason. --compare fails unless both
# trees hold the same files, byte for byte, and prints how many.
#
# The sizes are small enough for a sanitizer build (about 15 minutes on
# two cores) but large enough that the parallel loops run on several
# threads: minhop splits from 64 switches, D-Mod-K from a million LFT
# entries (the 3 456-host tree), the path stage always. FABRICS="name ..."
# picks fabrics.
set -euo pipefail

if [ "${1:-}" = --compare ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --compare DIR_A DIR_B" >&2; exit 64; }
    a=$2 b=$3
    if ! diff <(cd "$a" && find . -type f | sort) <(cd "$b" && find . -type f | sort); then
        echo "tables_identity: the two trees do not hold the same files" >&2
        exit 1
    fi
    same=0 differ=0
    while IFS= read -r f; do
        if cmp -s "$a/$f" "$b/$f"; then
            same=$((same + 1))
        else
            echo "differs: $f"
            differ=$((differ + 1))
        fi
    done < <(cd "$a" && find . -type f | sort)
    echo "$same files identical, $differ differ"
    [ "$differ" -eq 0 ]
    exit
fi

[ $# -eq 2 ] || { echo "usage: $0 BUILD|IBSM OUTDIR | --compare DIR_A DIR_B" >&2; exit 64; }
if [ -x "$1" ] && [ ! -d "$1" ]; then ibsm=$(realpath "$1"); else ibsm=$(realpath "$1/tools/ibsm"); fi
[ -x "$ibsm" ] || { echo "tables_identity: no ibsm at $ibsm" >&2; exit 1; }
mkdir -p "$2"
out=$(realpath "$2")

# Fabric name -> `ibsm topogen` arguments.
fabric_args() {
    case $1 in
    pgft-648) echo "pgft --m 18,36 --w 1,18 --p 1,1" ;;
    pgft-3456) echo "pgft --m 12,12,24 --w 1,12,12 --p 1,1,1" ;;
    pgft-small) echo "pgft --m 4,4,4 --w 1,4,2 --p 1,1,1" ;;
    kary-4x3) echo "kary --k 4 --n 3" ;;
    degraded-648) echo "pgft --m 18,36 --w 1,18 --p 1,1 --remove-links 20 --remove-switches 1 --hosts-missing 9" ;;
    degraded-small) echo "pgft --m 4,4,4 --w 1,4,2 --p 1,1,1 --remove-links 6 --hosts-missing-per-leaf 1" ;;
    ranger-small) echo "ranger --cores 2 --nems 16 --hosts-per-nem 6 --uplinks-per-core 2 --core-m 4,4,8 --core-w 1,4,4 --core-p 1,1,1" ;;
    chain) echo "chain" ;;
    ring-8) echo "ring --switches 8 --hosts-per-switch 4" ;;
    torus-8x8) echo "torus --x 8 --y 8 --hosts-per-switch 4" ;;
    torus-4x4) echo "torus --x 4 --y 4 --hosts-per-switch 3" ;;
    mesh-6x6) echo "mesh --x 6 --y 6 --hosts-per-switch 2" ;;
    torus3d-4x4x4) echo "torus3d --x 4 --y 4 --z 4 --hosts-per-switch 2" ;;
    hypercube-6) echo "hypercube --dimension 6 --hosts-per-switch 4" ;;
    dragonfly-8x4x4) echo "dragonfly --groups 8 --leaves 4 --spines 4 --hosts-per-leaf 4" ;;
    dragonfly-4x2x2) echo "dragonfly --groups 4 --leaves 2 --spines 2 --hosts-per-leaf 3" ;;
    random-64x24) echo "random --switches 64 --hosts-per-switch 12 --ports 24 --seed 1" ;;
    random-24x16) echo "random --switches 24 --hosts-per-switch 4 --ports 16 --seed 3" ;;
    scattered-32) echo "scattered --switches 32 --machines 160 --seed 2" ;;
    *) echo "unknown fabric '$1'" >&2; return 1 ;;
    esac
}

# Runs on a fabric: "name:ibsm route options" (the name is the directory).
destination_runs=(
    "minhop:--engine minhop"
    "minhop-lmc2:--engine minhop --lmc 2"
    "updn:--engine updn"
    "updn-local:--engine updn --balancing local"
    "ftree:--engine ftree"
    "sftree:--engine sftree"
    "sssp:--engine sssp"
    "dfsssp:--engine dfsssp"
    "dfsssp-vl1:--engine dfsssp --max-vls 1"
    "dfsssp-vl2:--engine dfsssp --max-vls 2"
    "dfsssp-lmc1:--engine dfsssp --lmc 1"
    "nue-vl1:--engine nue --max-vls 1"
    "nue-vl2:--engine nue --max-vls 2"
    "nue-vl4:--engine nue --max-vls 4"
)
path_runs=(
    "pathsel:--engine pathsel --selected-paths"
    "pathsel-greedy:--engine pathsel --lid-assignment greedy"
    "pathsel-fixed-lmc2:--engine pathsel --lid-order fixed-lmc --lmc 2"
    "shortest-widest:--engine shortest-widest --selected-paths"
    "shortest-widest-split-merge-s:--engine shortest-widest --lid-assignment split-merge-s"
    "updn-paths:--engine updn-paths"
    "updn-paths-color-s:--engine updn-paths --lid-assignment color-s"
)
# The 3 456-host tree only with the engines that finish there in seconds
# under a sanitizer (D-Mod-K's rows go parallel only at this size).
big_runs=("minhop:--engine minhop" "updn:--engine updn" "ftree:--engine ftree" "sftree:--engine sftree"
    "sssp:--engine sssp")

runs_of() {
    case $1 in
    pgft-3456) printf '%s\n' "${big_runs[@]}" ;;
    pgft-648 | degraded-648 | chain | torus-8x8 | torus3d-4x4x4 | hypercube-6 | dragonfly-8x4x4 | random-64x24)
        printf '%s\n' "${destination_runs[@]}" ;;
    *) printf '%s\n' "${destination_runs[@]}" "${path_runs[@]}" ;;
    esac
}

fabrics=${FABRICS:-"pgft-small pgft-648 pgft-3456 kary-4x3 degraded-small degraded-648 ranger-small chain ring-8
    torus-4x4 torus-8x8 mesh-6x6 torus3d-4x4x4 hypercube-6 dragonfly-4x2x2 dragonfly-8x4x4 random-24x16
    random-64x24 scattered-32"}
scratch=$(mktemp -d /tmp/tables-identity.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
for f in $fabrics; do
    args=$(fabric_args "$f")
    mkdir -p "$out/$f"
    # Written here first: the file's header repeats the command line.
    # shellcheck disable=SC2086
    "$ibsm" topogen $args --out fabric.net > /dev/null
    mv fabric.net "$out/$f/fabric.net"
    while IFS= read -r run; do
        name=${run%%:*} opts=${run#*:}
        dir=$out/$f/$name
        mkdir -p "$dir"
        status=0
        # shellcheck disable=SC2086
        "$ibsm" route --topology "$out/$f/fabric.net" --out "$dir" --no-fallback $opts > "$dir/report.raw" \
            2> "$dir/stderr" || status=$?
        grep -v -E '^(route time|time): ' "$dir/report.raw" > "$dir/report.txt" || true
        echo "exit status: $status" >> "$dir/report.txt"
        rm -f "$dir/report.raw" "$dir/stderr"
        printf '%-16s %-30s exit %s\n' "$f" "$name" "$status"
    done < <(runs_of "$f")
done
