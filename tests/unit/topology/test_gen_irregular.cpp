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
