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
    *) echo "unknown fabric size '$1' (648, 3456 or 11664)" >&2; return 1 ;;
    esac
}
