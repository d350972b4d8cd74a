// Random irregular fabric: counts, degrees, no self or duplicate cables,
// connectivity, and the same fabric for the same seed.
#include "topology/gen_random.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <utility>
#include <vector>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

// Switch-to-switch cables as (switch index, switch index) pairs, smaller first.
std::vector<std::pair<std::uint32_t, std::uint32_t>> switch_cables(const Fabric& f)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const Link& l : f.links())
        if (f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch())
            out.emplace_back(std::min(l.a.node.value, l.b.node.value), std::max(l.a.node.value, l.b.node.value));
    return out;
}

bool switches_connected(const Fabric& f)
{
    std::map<std::uint32_t, std::uint32_t> parent;
    for (NodeId id : f.node_ids())
        if (f.node(id).is_switch()) parent[id.value] = id.value;
    auto find = [&](std::uint32_t x) {
        while (parent[x] != x) x = parent[x];
        return x;
    };
    std::size_t groups = parent.size();
    for (auto [a, b] : switch_cables(f)) {
        auto ra = find(a), rb = find(b);
        if (ra != rb) {
            parent[ra] = rb;
            --groups;
        }
    }
    return groups == 1;
}

} // namespace

TEST_CASE("Random fabric of seed 001's size: 64 switches x 24 ports, 12 hosts each")
{
    const RandomParams p{64, 12, 24, 7};
    Fabric f = generate_random(p);
    CHECK(f.switch_count() == 64);
    CHECK(f.ca_count() == 64 * 12);
    const auto cables = switch_cables(f);
    CHECK(cables.size() == 64 * 12 / 2); // every switch port cabled
    std::set<std::pair<std::uint32_t, std::uint32_t>> distinct;
    for (auto c : cables) {
        CHECK(c.first != c.second);
        distinct.insert(c);
    }
    CHECK(distinct.size() == cables.size()); // no two cables between the same switches
    CHECK(switches_connected(f));
    for (const Node& n : f.nodes())
        if (n.is_switch()) {
            CHECK(n.num_ports() == 24);
            for (std::uint8_t port = 1; port <= 24; ++port) {
                REQUIRE(n.port(PortNum(port)).remote);
                const bool to_switch = f.node(n.port(PortNum(port)).remote->node).is_switch();
                CHECK(to_switch == (port > 12)); // hosts on 1..12, switches above
            }
        }

    // Same seed, same fabric; another seed, another cabling.
    Fabric again = generate_random(p);
    CHECK(links_by_guid(again) == links_by_guid(f));
    CHECK(nodes_by_guid(again) == nodes_by_guid(f));
    Fabric other = generate_random(RandomParams{64, 12, 24, 8});
    CHECK(links_by_guid(other) != links_by_guid(f));
}

TEST_CASE("Random fabric: odd port total leaves one port free; parallel cables only when forced")
{
    Fabric odd = generate_random(RandomParams{5, 1, 4, 3}); // 5 x 3 switch ports = 15
    CHECK(switch_cables(odd).size() == 7);
    CHECK(switches_connected(odd));
    std::size_t free_ports = 0;
    for (const Node& n : odd.nodes())
        if (n.is_switch())
            for (std::uint8_t port = 1; port <= n.num_ports(); ++port) free_ports += !n.port(PortNum(port)).remote;
    CHECK(free_ports == 1);

    // 3 switches with 4 switch ports each: more ports than other switches.
    Fabric dense = generate_random(RandomParams{3, 0, 4, 1});
    CHECK(switch_cables(dense).size() == 6);
    for (auto c : switch_cables(dense)) CHECK(c.first != c.second);
    CHECK(switches_connected(dense));

    CHECK_THROWS_AS(generate_random(RandomParams{1, 1, 4, 1}), std::invalid_argument);
    CHECK_THROWS_AS(generate_random(RandomParams{4, 4, 4, 1}), std::invalid_argument);  // no switch port
    CHECK_THROWS_AS(generate_random(RandomParams{8, 3, 4, 1}), std::invalid_argument);  // 8 ports cannot join 8
}
