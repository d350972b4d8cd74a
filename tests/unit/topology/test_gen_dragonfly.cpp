#include "topology/gen_dragonfly.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

struct Role {
    bool spine = false;
    unsigned group = 0, index = 0;
};

// "dfly-g03-spine01" -> spine, group 3, index 1; FAILs on any other name.
Role role_of(const Node& n)
{
    Role r;
    char kind[8] = {};
    if (std::sscanf(n.description.c_str(), "dfly-g%u-%5[a-z]%u", &r.group, kind, &r.index) != 3)
        FAIL("not a dragonfly+ switch name: " << n.description);
    r.spine = std::string(kind) == "spine";
    return r;
}

// Nodes reachable from node 0 over any cable.
std::size_t reachable(const Fabric& f)
{
    std::vector<NodeId> stack{NodeId{0}};
    std::vector<bool> seen(f.node_count(), false);
    seen[0] = true;
    std::size_t n = 0;
    while (!stack.empty()) {
        NodeId id = stack.back();
        stack.pop_back();
        ++n;
        for (const Port& p : f.node(id).ports)
            if (p.remote && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = true;
                stack.push_back(p.remote->node);
            }
    }
    return n;
}

// Every property the header promises, for any parameters.
void check_shape(const DragonflyParams& p, unsigned K)
{
    INFO("G=" << p.groups << " L=" << p.leaves << " P=" << p.spines << " H=" << p.hosts_per_leaf << " K=" << K);
    Fabric f = generate_dragonfly(p);
    const unsigned G = p.groups, L = p.leaves, P = p.spines, H = p.hosts_per_leaf;
    CHECK(f.switch_count() == G * (L + P));
    CHECK(f.ca_count() == G * L * H);
    CHECK(f.link_count() == G * L * H + G * L * P + P * G * K / 2);
    CHECK(reachable(f) == f.node_count());
    for (std::size_t i = 0; i < f.ca_count(); ++i) CHECK(f.node(NodeId{static_cast<std::uint32_t>(i)}).type == NodeType::ca);
    for (const Node& n : f.nodes()) {
        if (!n.is_switch()) continue;
        const Role me = role_of(n);
        if (!me.spine) {
            REQUIRE(n.num_ports() == H + P);
            for (unsigned s = 0; s < P; ++s) {
                const auto peer = n.port(PortNum(static_cast<std::uint8_t>(H + 1 + s))).remote;
                REQUIRE(peer);
                const Role r = role_of(f.node(peer->node));
                CHECK((r.spine && r.group == me.group && r.index == s));
                CHECK(peer->port == PortNum(static_cast<std::uint8_t>(me.index + 1)));
            }
            continue;
        }
        REQUIRE(n.num_ports() == L + K);
        std::set<unsigned> groups;
        for (unsigned j = 1; j <= L + K; ++j) {
            const auto peer = n.port(PortNum(static_cast<std::uint8_t>(j))).remote;
            REQUIRE(peer);
            const Role r = role_of(f.node(peer->node));
            if (j <= L) {
                CHECK((!r.spine && r.group == me.group && r.index == j - 1));
            } else {
                CHECK((r.spine && r.index == me.index && r.group != me.group));
                groups.insert(r.group);
            }
        }
        CHECK(groups.size() == K); // no two cables to the same group
    }
}

} // namespace

TEST_CASE("Dragonfly+ with every group pair on every spine plane")
{
    Fabric f = generate_dragonfly(DragonflyParams{4, 2, 2, 2, 0});
    CHECK(f.switch_count() == 16);
    CHECK(f.ca_count() == 16);
    CHECK(f.link_count() == 16 + 16 + 12); // hosts, leaf-spine, 2 planes x 6 group pairs
    CHECK(f.node(NodeId{16}).description == "dfly-g00-leaf00");
    CHECK(f.node(NodeId{18}).description == "dfly-g00-spine00");
    // host-0005 = group 1, leaf 0, second host.
    CHECK(f.remote({NodeId{5}, PortNum(1)}) == PortRef{by_description(f, "dfly-g01-leaf00"), PortNum(2)});
    // Leaf up-port H+1+s to spine s, down-port leaf+1.
    CHECK(f.remote({by_description(f, "dfly-g02-leaf01"), PortNum(4)}) ==
          PortRef{by_description(f, "dfly-g02-spine01"), PortNum(2)});
    // Spine port L+i goes to group g+i and arrives on the port of offset G-i.
    const NodeId s = by_description(f, "dfly-g01-spine00");
    CHECK(f.remote({s, PortNum(3)}) == PortRef{by_description(f, "dfly-g02-spine00"), PortNum(5)});
    CHECK(f.remote({s, PortNum(4)}) == PortRef{by_description(f, "dfly-g03-spine00"), PortNum(4)});
    CHECK(f.remote({s, PortNum(5)}) == PortRef{by_description(f, "dfly-g00-spine00"), PortNum(3)});
    check_shape(DragonflyParams{4, 2, 2, 2, 0}, 3);
    check_shape(DragonflyParams{2, 1, 1, 0, 0}, 1);
    check_shape(DragonflyParams{5, 3, 2, 1, 0}, 4);
}

TEST_CASE("Dragonfly+ with fewer global links spreads the planes round robin")
{
    // G=8, K=2: one offset pair per plane; plane 0 takes ±1, plane 1 ±2, plane 2 ±3.
    Fabric f = generate_dragonfly(DragonflyParams{8, 1, 3, 1, 2});
    CHECK(f.link_count() == 8 + 8 * 3 + 3 * 8);
    CHECK(f.remote({by_description(f, "dfly-g00-spine00"), PortNum(2)}) ==
          PortRef{by_description(f, "dfly-g01-spine00"), PortNum(3)});
    CHECK(f.remote({by_description(f, "dfly-g00-spine01"), PortNum(2)}) ==
          PortRef{by_description(f, "dfly-g02-spine01"), PortNum(3)});
    CHECK(f.remote({by_description(f, "dfly-g00-spine01"), PortNum(3)}) ==
          PortRef{by_description(f, "dfly-g06-spine01"), PortNum(2)});
    CHECK(f.remote({by_description(f, "dfly-g07-spine02"), PortNum(2)}) ==
          PortRef{by_description(f, "dfly-g02-spine02"), PortNum(3)});
    check_shape(DragonflyParams{8, 1, 3, 1, 2}, 2);

    // An odd K on an even G adds the opposite group: G=6, K=3 is offsets 1, 3, 5.
    Fabric odd = generate_dragonfly(DragonflyParams{6, 2, 1, 1, 3});
    CHECK(odd.remote({by_description(odd, "dfly-g01-spine00"), PortNum(4)}) ==
          PortRef{by_description(odd, "dfly-g04-spine00"), PortNum(4)});
    check_shape(DragonflyParams{6, 2, 1, 1, 3}, 3);

    // Large G: 40 groups, 4 planes of 6 links, wrapping past the 19 offsets.
    check_shape(DragonflyParams{40, 2, 4, 2, 6}, 6);
    check_shape(DragonflyParams{17, 2, 9, 1, 4}, 4);
}

TEST_CASE("Dragonfly+ refuses impossible parameters with the numbers")
{
    auto refusal = [](DragonflyParams p) -> std::string {
        try {
            generate_dragonfly(p);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "accepted";
    };
    CHECK(refusal({1, 2, 2, 2, 0}) == "dragonfly+ needs at least 2 groups (one group is a two-level fat-tree)");
    CHECK(refusal({4, 0, 2, 2, 0}) == "dragonfly+ needs at least 1 leaf per group");
    CHECK(refusal({4, 2, 0, 2, 0}) == "dragonfly+ needs at least 1 spine per group");
    CHECK(refusal({4, 2, 5, 250, 0}) == "a leaf needs 250 host ports + 5 spine ports = 255 ports, more than 254");
    CHECK(refusal({300, 2, 1, 1, 0}) ==
          "a spine needs 2 leaf ports + 299 global ports = 301 ports, more than 254 (set fewer global links per spine)");
    CHECK(refusal({4, 2, 2, 2, 4}) == "global links per spine must be 1..3 with 4 groups, not 4");
    CHECK(refusal({5, 2, 2, 2, 3}) == "an odd number of groups (5) cannot give every spine an odd number (3) of "
                                      "global links: every cable has two ends; use an even number");
    // K=1 is the opposite group only: pairs {0,2} and {1,3}, on every plane.
    CHECK(refusal({4, 1, 2, 1, 1}) ==
          "dragonfly+ of 4 groups, 2 spines per group and 1 global link per spine is not connected: every global link joins groups "
          "whose numbers differ by a multiple of 2, so the groups fall into 2 unconnected parts (more global links "
          "per spine or more spines)");
    CHECK(refusal({70000, 1, 1, 0, 2}).starts_with("dragonfly+ too large: 140000 switches"));
    // Two groups with one link per spine are fine: the single pair.
    CHECK(refusal({2, 1, 1, 1, 1}) == "accepted");
}
