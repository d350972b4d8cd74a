// Chained-trees generator (shape and naming in gen_chain.h).
#include "topology/gen_chain.h"

#include "topology/gen_common.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ibsm::topology {

namespace {

// Switch-family bytes of the GUIDs (gen_common.h): leaves and spines; the
// index is tree * index_stride + position.
constexpr unsigned family_chain_leaf = 0xd1;
constexpr unsigned family_chain_spine = 0xd2;
constexpr std::uint64_t index_stride = 1u << 12;

void check(const ChainParams& p)
{
    auto fail = [](const std::string& why) { throw std::invalid_argument("chained trees: " + why); };
    if (p.trees < 1 || p.spines < 1 || p.leaves < 1) fail("need at least 1 tree, 1 spine and 1 leaf");
    if (p.ports > PortNum::max_port) fail("at most " + std::to_string(PortNum::max_port) + " ports per switch");
    if (p.hosts_per_leaf + p.spines > p.ports)
        fail(std::to_string(p.hosts_per_leaf) + " hosts and " + std::to_string(p.spines) +
             " spine cables do not fit a leaf of " + std::to_string(p.ports) + " ports");
    if (p.leaves > p.ports) fail(std::to_string(p.leaves) + " leaves do not fit a spine of " + std::to_string(p.ports) + " ports");
    if (p.leaves >= index_stride || p.spines >= index_stride) fail("too many switches per tree");
    if (p.trees > 1 && p.cables == 0) fail("neighbouring trees need at least one cable");
}

} // namespace

Fabric generate_chain(const ChainParams& p)
{
    check(p);
    const unsigned N = p.trees, S = p.spines, L = p.leaves, H = p.hosts_per_leaf;
    std::mt19937_64 rng(p.seed);

    // Chain cables per leaf, [tree][leaf] -> the boundaries' cable ends, in
    // cable order: left boundary (to tree t-1) first, then right.
    struct End {
        unsigned tree, leaf;
    };
    std::vector<std::vector<unsigned>> taken(N, std::vector<unsigned>(L, 0));
    std::vector<std::pair<End, End>> cables;
    for (unsigned t = 0; t + 1 < N; ++t) {
        std::vector<unsigned> left(L), right(L);
        for (unsigned i = 0; i < L; ++i) left[i] = right[i] = i;
        gen::shuffle(left, rng);
        gen::shuffle(right, rng);
        for (unsigned c = 0; c < p.cables; ++c) {
            End a{t, left[c % L]}, b{t + 1, right[c % L]};
            if (++taken[a.tree][a.leaf] > H || ++taken[b.tree][b.leaf] > H)
                throw std::invalid_argument("chained trees: " + std::to_string(p.cables) +
                                            " cables between neighbours take more than the " + std::to_string(H) +
                                            " host ports of a leaf");
            cables.push_back({a, b});
        }
    }

    Fabric f;
    // Hosts: tree by tree, leaf by leaf, on the host ports chain cables leave free.
    std::vector<std::vector<std::vector<NodeId>>> hosts(N, std::vector<std::vector<NodeId>>(L));
    std::uint64_t host_index = 0;
    for (unsigned t = 0; t < N; ++t)
        for (unsigned l = 0; l < L; ++l)
            for (unsigned h = 0; h < H - taken[t][l]; ++h) hosts[t][l].push_back(gen::add_host(f, host_index++, 1));

    std::vector<std::vector<NodeId>> spine(N), leaf(N);
    const auto ports = static_cast<std::uint8_t>(p.ports);
    for (unsigned t = 0; t < N; ++t) {
        const std::string tree = "t" + std::to_string(t);
        for (unsigned s = 0; s < S; ++s)
            spine[t].push_back(f.add_node(NodeType::switch_node, gen::switch_guid(family_chain_spine, t * index_stride + s),
                                          ports, gen::numbered(tree + "-spine", s)));
        for (unsigned l = 0; l < L; ++l)
            leaf[t].push_back(f.add_node(NodeType::switch_node, gen::switch_guid(family_chain_leaf, t * index_stride + l),
                                         ports, gen::numbered(tree + "-leaf", l)));
    }
    auto port = [](unsigned n) { return PortNum(static_cast<std::uint8_t>(n)); };
    for (unsigned t = 0; t < N; ++t)
        for (unsigned l = 0; l < L; ++l) {
            for (unsigned h = 0; h < hosts[t][l].size(); ++h)
                f.connect({hosts[t][l][h], PortNum(1)}, {leaf[t][l], port(h + 1)});
            for (unsigned s = 0; s < S; ++s) f.connect({leaf[t][l], port(H + 1 + s)}, {spine[t][s], port(l + 1)});
        }
    // Chain cables take the highest free host ports.
    std::vector<std::vector<unsigned>> next_free(N, std::vector<unsigned>(L, H));
    for (const auto& [a, b] : cables)
        f.connect({leaf[a.tree][a.leaf], port(next_free[a.tree][a.leaf]--)},
                  {leaf[b.tree][b.leaf], port(next_free[b.tree][b.leaf]--)});
    gen::finish_ports(f);
    return f;
}

} // namespace ibsm::topology
