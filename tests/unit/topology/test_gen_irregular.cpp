#include "topology/gen_irregular.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

std::size_t switch_links(const Fabric& f)
{
    std::size_t n = 0;
    for (const Link& l : f.links()) n += f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch();
    return n;
}

} // namespace

TEST_CASE("Ring of switches with hosts")
{
    Fabric f = generate_ring(RingParams{6, 2});
    CHECK(f.switch_count() == 6);
    CHECK(f.ca_count() == 12);
    CHECK(f.link_count() == 12 + 6);
    CHECK(f.node(NodeId{0}).type == NodeType::ca);
    NodeId s0 = by_description(f, "ring-0000");
    NodeId s1 = by_description(f, "ring-0001");
    NodeId s5 = by_description(f, "ring-0005");
    CHECK(f.remote({s0, PortNum(3)}) == PortRef{s1, PortNum(4)}); // +1 port after the 2 host ports
    CHECK(f.remote({s0, PortNum(4)}) == PortRef{s5, PortNum(3)});
    CHECK(f.remote({NodeId{3}, PortNum(1)}) == PortRef{s1, PortNum(2)}); // host-0003 = switch 1, host 1

    Fabric two = generate_ring(RingParams{2, 0});
    CHECK(two.link_count() == 2); // both directions of the ring: parallel cables
    CHECK_THROWS_AS(generate_ring(RingParams{1, 1}), std::invalid_argument);
    CHECK_THROWS_AS(generate_ring(RingParams{4, 253}), std::invalid_argument);
}

TEST_CASE("Torus and mesh")
{
    Fabric torus = generate_torus(TorusParams{4, 3, 1, true});
    CHECK(torus.switch_count() == 12);
    CHECK(torus.ca_count() == 12);
    CHECK(switch_links(torus) == 2 * 12);
    for (const Node& n : torus.nodes())
        if (n.is_switch())
            for (std::uint8_t p = 1; p <= n.num_ports(); ++p) CHECK(n.port(PortNum(p)).remote);

    Fabric mesh = generate_torus(TorusParams{4, 3, 1, false});
    CHECK(switch_links(mesh) == 3 * 3 + 4 * 2);
    NodeId corner = by_description(mesh, "mesh-x00-y00");
    CHECK_FALSE(mesh.remote({corner, PortNum(3)})); // no -x neighbour at the edge
    CHECK(mesh.remote({corner, PortNum(2)}) == PortRef{by_description(mesh, "mesh-x01-y00"), PortNum(3)});
    CHECK(mesh.remote({corner, PortNum(4)}) == PortRef{by_description(mesh, "mesh-x00-y01"), PortNum(5)});

    Fabric line = generate_torus(TorusParams{2, 1, 0, true});
    CHECK(line.link_count() == 2); // wrap-around of a 2-long dimension doubles the cable
    CHECK_THROWS_AS(generate_torus(TorusParams{1, 1, 1, true}), std::invalid_argument);
    CHECK_THROWS_AS(generate_torus(TorusParams{0, 3, 1, true}), std::invalid_argument);
}

namespace {

// Number of switches reachable from the first switch over switch cables.
std::size_t reachable_switches(const Fabric& f)
{
    std::vector<NodeId> stack;
    std::vector<bool> seen(f.node_count(), false);
    for (NodeId id : f.node_ids())
        if (f.node(id).is_switch()) {
            stack.push_back(id);
            seen[id.value] = true;
            break;
        }
    std::size_t n = 0;
    while (!stack.empty()) {
        NodeId s = stack.back();
        stack.pop_back();
        ++n;
        for (const Port& p : f.node(s).ports)
            if (p.remote && f.node(p.remote->node).is_switch() && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = true;
                stack.push_back(p.remote->node);
            }
    }
    return n;
}

} // namespace

TEST_CASE("3-D torus: six neighbours per switch, wrap-around on every axis")
{
    Fabric t = generate_torus3d(Torus3dParams{4, 3, 2, 2});
    CHECK(t.switch_count() == 24);
    CHECK(t.ca_count() == 48);
    // x and y: one cable per switch each; z of size 2: the wrap doubles the cable.
    CHECK(switch_links(t) == 24 * 3);
    CHECK(reachable_switches(t) == 24);
    for (const Node& n : t.nodes())
        if (n.is_switch()) {
            CHECK(n.num_ports() == 8);
            for (std::uint8_t p = 1; p <= n.num_ports(); ++p) CHECK(n.port(PortNum(p)).remote);
        }
    NodeId a = by_description(t, "torus3d-x03-y02-z01");
    CHECK(t.remote({a, PortNum(3)}) == PortRef{by_description(t, "torus3d-x00-y02-z01"), PortNum(4)}); // +x wraps
    CHECK(t.remote({a, PortNum(5)}) == PortRef{by_description(t, "torus3d-x03-y00-z01"), PortNum(6)}); // +y wraps
    CHECK(t.remote({a, PortNum(7)}) == PortRef{by_description(t, "torus3d-x03-y02-z00"), PortNum(8)}); // +z wraps

    Fabric flat = generate_torus3d(Torus3dParams{3, 1, 1, 0});
    CHECK(switch_links(flat) == 3); // only x has more than one switch
    CHECK_FALSE(flat.remote({by_description(flat, "torus3d-x00-y00-z00"), PortNum(3)}));
    CHECK_THROWS_AS(generate_torus3d(Torus3dParams{1, 1, 1, 1}), std::invalid_argument);
    CHECK_THROWS_AS(generate_torus3d(Torus3dParams{2, 2, 2, 249}), std::invalid_argument);
}

TEST_CASE("Hypercube: switch i cabled to i xor 2^b on port hosts+1+b")
{
    Fabric h = generate_hypercube(HypercubeParams{4, 3});
    CHECK(h.switch_count() == 16);
    CHECK(h.ca_count() == 48);
    CHECK(switch_links(h) == 16 * 4 / 2);
    CHECK(reachable_switches(h) == 16);
    NodeId s5 = by_description(h, "hcube-0005");
    CHECK(h.remote({s5, PortNum(4)}) == PortRef{by_description(h, "hcube-0004"), PortNum(4)}); // bit 0
    CHECK(h.remote({s5, PortNum(5)}) == PortRef{by_description(h, "hcube-0007"), PortNum(5)}); // bit 1
    CHECK(h.remote({s5, PortNum(7)}) == PortRef{by_description(h, "hcube-0013"), PortNum(7)}); // bit 3
    for (const Node& n : h.nodes())
        if (n.is_switch()) CHECK(n.num_ports() == 7);
    CHECK(generate_hypercube(HypercubeParams{1, 0}).link_count() == 1);
    CHECK_THROWS_AS(generate_hypercube(HypercubeParams{0, 1}), std::invalid_argument);
    CHECK_THROWS_AS(generate_hypercube(HypercubeParams{6, 250}), std::invalid_argument);
}
