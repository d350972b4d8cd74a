# ibsim's table sizes for a net file (its defaults are too small for the
# large fat-trees): room for every node, switch and port of the file, with a
# margin. Sourced by ibsim_env.sh and tests/bench/opensm_lib.sh.
#
#   ibsim -s NET $(ibsim_limits NET)

ibsim_limits() {
    local net=$1 nodes switches ports
    nodes=$(grep -cE '^(Switch|Ca|Hca)' "$net")
    switches=$(grep -c '^Switch' "$net")
    ports=$(( $(grep -cE '^\[' "$net") + nodes ))
    echo "-N $((nodes + 16)) -S $((switches + 16)) -P $((ports * 2 + 64))"
}
