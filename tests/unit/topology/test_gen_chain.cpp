// Chained-trees generator (topology/gen_chain.h): counts, degrees,
// connectivity and seeded determinism, checked by walking the Fabric.
#include "topology/gen_chain.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

auto view(const Fabric& f) { return std::pair{nodes_by_guid(f), links_by_guid(f)}; }

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Number of nodes reachable from node 0 over cables.
std::size_t reachable(const Fabric& f)
{
    std::vector<char> seen(f.node_count(), 0);
    std::vector<NodeId> stack{NodeId{0}};
    seen[0] = 1;
    std::size_t n = 1;
    while (!stack.empty()) {
        NodeId id = stack.back();
        stack.pop_back();
        for (const auto& p : f.node(id).ports)
            if (p.remote && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = 1;
                ++n;
                stack.push_back(p.remote->node);
            }
    }
    return n;
}

// Leaf-to-leaf cables between two trees, keyed by the trees' names ("t0", "t1").
std::map<std::pair<std::string, std::string>, unsigned> chain_cables(const Fabric& f)
{
    std::map<std::pair<std::string, std::string>, unsigned> out;
    for (const Link& l : f.links()) {
        const auto& a = f.node(l.a.node).description;
        const auto& b = f.node(l.b.node).description;
        if (a.find("-leaf-") == std::string::npos || b.find("-leaf-") == std::string::npos) continue;
        auto ta = a.substr(0, a.find('-')), tb = b.substr(0, b.find('-'));
        ++out[{std::min(ta, tb), std::max(ta, tb)}];
    }
    return out;
}

} // namespace

TEST_CASE("chained trees: the benchmark fabric (3 x 12 spines, 24 leaves, 30 cables) has 744 hosts")
{
    const Fabric f = generate_chain(ChainParams{});
    CHECK(f.switch_count() == 3 * (12 + 24));
    CHECK(f.ca_count() == 744); // 3 * 24 * 12 host ports, minus 2 ends of 2 * 30 cables
    CHECK(f.link_count() == 744 + 3 * 24 * 12 + 2 * 30);
    CHECK(reachable(f) == f.node_count());
    CHECK(f.node(NodeId{0}).type == NodeType::ca);
    CHECK(f.node(NodeId{0}).description == "host-0000");

    // Degrees: a spine reaches every leaf of its tree; a leaf is full (hosts,
    // chain cables and one cable per spine); chain cables only between
    // neighbours, 30 each.
    std::size_t chain_ends = 0;
    for (const Node& n : f.nodes()) {
        if (!n.is_switch()) continue;
        unsigned spines = 0, leaves = 0, hosts = 0;
        for (std::uint8_t p = 1; p <= n.num_ports(); ++p) {
            const auto& r = n.port(PortNum(p)).remote;
            if (!r) continue;
            const auto& peer = f.node(r->node);
            if (!peer.is_switch())
                ++hosts;
            else if (peer.description.find("-spine-") != std::string::npos)
                ++spines;
            else
                ++leaves;
            // Cables stay inside a tree except leaf-to-leaf ones.
            if (peer.is_switch() && (n.description.find("-spine-") != std::string::npos ||
                                     peer.description.find("-spine-") != std::string::npos))
                CHECK(peer.description.substr(0, 3) == n.description.substr(0, 3));
        }
        if (n.description.find("-spine-") != std::string::npos) {
            CHECK(leaves == 24);
            CHECK(spines + hosts == 0);
        } else {
            CHECK(spines == 12);
            CHECK(hosts + leaves == 12);
            CHECK(leaves <= 4); // round robin over 24 leaves: at most 2 per boundary, and t1 has two
            // Chain cables sit on the highest host ports, hosts below them.
            for (unsigned p = 1; p <= 12; ++p) {
                const auto& r = n.port(PortNum(static_cast<std::uint8_t>(p))).remote;
                REQUIRE(r);
                CHECK(f.node(r->node).is_switch() == (p > hosts));
            }
            chain_ends += leaves;
        }
    }
    CHECK(chain_ends == 2 * 2 * 30);
    auto cables = chain_cables(f);
    CHECK(cables == std::map<std::pair<std::string, std::string>, unsigned>{{{"t0", "t1"}, 30}, {{"t1", "t2"}, 30}});
}

TEST_CASE("chained trees: a seed means the same fabric; another seed picks other leaves")
{
    ChainParams p;
    p.trees = 2;
    p.spines = 2;
    p.leaves = 6;
    p.ports = 8;
    p.hosts_per_leaf = 4;
    p.cables = 3;
    const auto a = view(generate_chain(p));
    CHECK(a == view(generate_chain(p)));
    bool differs = false;
    for (std::uint64_t seed = 2; seed < 6 && !differs; ++seed) {
        p.seed = seed;
        differs = !(view(generate_chain(p)) == a);
    }
    CHECK(differs);
    p.seed = 1;
    const Fabric f = generate_chain(p);
    CHECK(f.ca_count() == 2 * 6 * 4 - 2 * 3);
    CHECK(reachable(f) == f.node_count());
    CHECK(chain_cables(f).at({"t0", "t1"}) == 3);
    CHECK(starts_with(f.node(NodeId{static_cast<std::uint32_t>(f.ca_count())}).description, "t0-spine-"));

    // One tree is a plain two-level fat-tree.
    p.trees = 1;
    const Fabric one = generate_chain(p);
    CHECK(one.ca_count() == 24);
    CHECK(chain_cables(one).empty());
}

TEST_CASE("chained trees: impossible parameters are refused")
{
    ChainParams p;
    p.hosts_per_leaf = 13; // 13 + 12 spines > 24 ports
    CHECK_THROWS_WITH(generate_chain(p), Catch::Contains("do not fit a leaf of 24 ports"));
    p = ChainParams{};
    p.leaves = 25;
    CHECK_THROWS_WITH(generate_chain(p), Catch::Contains("do not fit a spine"));
    p = ChainParams{};
    p.cables = 24 * 12 + 1; // more than the host ports of a tree's leaves
    CHECK_THROWS_WITH(generate_chain(p), Catch::Contains("take more than the 12 host ports"));
    p = ChainParams{};
    p.cables = 0;
    CHECK_THROWS_AS(generate_chain(p), std::invalid_argument);
}
