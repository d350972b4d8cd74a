# ibsim's table sizes for a net file (its defaults are too small for the
# large fat-trees): room for every node, switch and port of the file, with a
# margin. Sourced by ibsim_env.sh and tests/bench/opensm_lib.sh.
#
#   ibsim -s NET $(ibsim_limits NET)

# ibsim's switches hold LinearFDBCap = -L entries (default 30720) and write
# LFT blocks past it into whatever follows (ibsim 0.12 checks only block <
# 768): fabrics with more LIDs than that get -L 49152, the whole unicast
# space (0xBFFF) and what real switches offer.
ibsim_limits() {
    local net=$1 nodes switches ports lids linearcap=""
    nodes=$(grep -cE '^(Switch|Ca|Hca)' "$net")
    switches=$(grep -c '^Switch' "$net")
    ports=$(( $(grep -cE '^\[' "$net") + nodes ))
    # One LID per switch and per CA port (LMC 0); LMC-using tests are small.
    lids=$(awk '/^Switch/ { sw = 1; n++; next } /^(Ca|Hca)/ { sw = 0; next } /^\[/ && !sw { n++ } END { print n }' "$net")
    [ "$lids" -ge 30000 ] && linearcap=" -L 49152"
    echo "-N $((nodes + 16)) -S $((switches + 16)) -P $((ports * 2 + 64))$linearcap"
}
