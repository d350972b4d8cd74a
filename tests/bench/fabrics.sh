# The fat-trees the benchmarks compare on, by host count; sourced by the
# bench scripts so every table names the same fabrics.
#
#   . fabrics.sh
#   ibsm topogen pgft $(pgft_args 3456) ...

# pgft_args HOSTS -> `ibsm topogen pgft` options; fails naming the known sizes.
pgft_args() {
    case $1 in
    648) echo "--m 18,36 --w 1,18 --p 1,1" ;;                 # 2 levels, 54 switches
    3456) echo "--m 12,12,24 --w 1,12,12 --p 1,1,1" ;;        # 3 levels, 720 switches
    11664) echo "--m 18,18,36 --w 1,18,18 --p 1,1,1" ;;       # 3 levels, 1620 switches
    27648) echo "--m 24,24,48 --w 1,24,24 --p 1,1,1" ;;       # 3 levels, 2880 switches (48 ports, full)
    # Near the end of the unicast LID space (0xBFFF): 48-port switches, 38
    # hosts and 10 up-links per leaf (3.8:1), 43 776 hosts + 1872 switches =
    # 45 648 LIDs.
    43776) echo "--m 38,24,48 --w 1,10,24 --p 1,1,1" ;;       # 3 levels, 1872 switches
    *) echo "unknown fabric size '$1' (648, 3456, 11664, 27648 or 43776)" >&2; return 1 ;;
    esac
}

# The fabrics of the routing table in docs/routing.md, by name -> `ibsm topogen` arguments.
#   chain-744      3 two-level trees (12 spines, 24 leaves of 24 ports, 12
#                  hosts per leaf) joined by 30 leaf-to-leaf cables (seed 001's
#                  "Deimos-like" fabric; topogen chain's defaults)
#   random-64x24   64 24-port switches, 12 hosts each, the rest cabled at random
#   torus-8x8      2-D torus, 4 hosts per switch
#   hypercube-6    64 switches, 4 hosts per switch
#   tree-3456, tree-3456-m40   the 3-level tree complete and minus 40 switch links
#   (and tree-648, tree-11664)
# and those of the Nue comparison (nue_vs_opensm.sh):
#   torus3d-4x4x4  3-D torus, 2 hosts per switch
#   dragonfly-8x4x4  Dragonfly+: 8 groups of two-level trees (4 leaves, 4
#                  spines, 4 hosts per leaf), spines cabled across groups
#   tree-648-m20   the 2-level tree minus 20 switch links
# and the Dragonfly+ and torus variants of issue 35's wider comparison:
#   dragonfly-9x4x4-k4   9 groups (odd), 4 global links per spine (< G-1 = 8)
#   dragonfly-6x4x8-k3   6 groups (even), 8 hosts per leaf, 3 global links per spine
#   dragonfly-7x4x16-k2  7 groups (odd), 3 spines, 16 hosts per leaf, 2 global links per spine
#   torus-8x8-m6, torus3d-4x4x4-m8   the tori minus 6 / 8 switch links
# and nue's scale bench (nue_scale.sh), as many hosts as tree-11664:
#   torus3d-12x12x9  3-D torus of 1 296 switches (the tree has 1 620), 9 hosts
#                  per switch: 11 664 hosts
fabric_args() {
    case $1 in
    chain-744) echo "chain" ;;
    random-64x24) echo "random --switches 64 --hosts-per-switch 12 --ports 24 --seed 1" ;;
    torus-8x8) echo "torus --x 8 --y 8 --hosts-per-switch 4" ;;
    hypercube-6) echo "hypercube --dimension 6 --hosts-per-switch 4" ;;
    tree-648 | tree-3456 | tree-11664) echo "pgft $(pgft_args "${1#tree-}")" ;;
    tree-3456-m40) echo "pgft $(pgft_args 3456) --remove-links 40" ;;
    tree-648-m20) echo "pgft $(pgft_args 648) --remove-links 20" ;;
    torus3d-4x4x4) echo "torus3d --x 4 --y 4 --z 4 --hosts-per-switch 2" ;;
    dragonfly-8x4x4) echo "dragonfly --groups 8 --leaves 4 --spines 4 --hosts-per-leaf 4" ;;
    dragonfly-9x4x4-k4) echo "dragonfly --groups 9 --leaves 4 --spines 4 --hosts-per-leaf 4 --global-per-spine 4" ;;
    dragonfly-6x4x8-k3) echo "dragonfly --groups 6 --leaves 4 --spines 4 --hosts-per-leaf 8 --global-per-spine 3" ;;
    dragonfly-7x4x16-k2) echo "dragonfly --groups 7 --leaves 4 --spines 3 --hosts-per-leaf 16 --global-per-spine 2" ;;
    torus-8x8-m6) echo "torus --x 8 --y 8 --hosts-per-switch 4 --remove-links 6" ;;
    torus3d-4x4x4-m8) echo "torus3d --x 4 --y 4 --z 4 --hosts-per-switch 2 --remove-links 8" ;;
    torus3d-12x12x9) echo "torus3d --x 12 --y 12 --z 9 --hosts-per-switch 9" ;;
    *) echo "unknown fabric '$1' (chain-744 random-64x24 torus-8x8 hypercube-6 tree-648 tree-3456 tree-3456-m40 tree-11664 tree-648-m20 torus3d-4x4x4 dragonfly-8x4x4
          dragonfly-9x4x4-k4 dragonfly-6x4x8-k3 dragonfly-7x4x16-k2 torus-8x8-m6 torus3d-4x4x4-m8 torus3d-12x12x9)" >&2
       return 1 ;;
    esac
}

# fabric_make IBSM NAME NETFILE: `ibsm topogen` of fabric_args NAME. Returns 3,
# saying so, when this ibsm's topogen does not know the fabric's kind (a
# newer fabric on an older build), so a table can skip the fabric.
fabric_make() {
    local ibsm=$1 name=$2 out=$3 args
    args=$(fabric_args "$name") || return 1
    if ! "$ibsm" topogen --help 2> /dev/null | grep -qE "^ +${args%% *}( |$)"; then
        echo "skipping $name: this ibsm's topogen has no '${args%% *}' kind" >&2
        return 3
    fi
    # shellcheck disable=SC2086
    "$ibsm" topogen $args --out "$out" > /dev/null
}
