#include "topology/fabric.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ibsm;
using namespace ibsm::topology;

TEST_CASE("Fabric connects ports and finds nodes by GUID")
{
    Fabric f;
    auto sw = f.add_node(NodeType::switch_node, Guid(0x10), 8, "sw");
    auto ca = f.add_node(NodeType::ca, Guid(0x20), 2, "ca");
    f.set_port_guid({ca, PortNum(1)}, Guid(0x21));
    f.connect({sw, PortNum(3)}, {ca, PortNum(1)});
    f.connect({sw, PortNum(3)}, {ca, PortNum(1)}); // idempotent

    CHECK(f.link_count() == 1);
    CHECK(f.find_node(Guid(0x20)) == ca);
    CHECK(f.find_port(Guid(0x21)) == PortRef{ca, PortNum(1)});
    CHECK(f.find_port(Guid(0x10)) == PortRef{sw, PortNum(0)});
    CHECK(f.remote({ca, PortNum(1)}) == PortRef{sw, PortNum(3)});
    CHECK(f.switch_count() == 1);
    CHECK(f.ca_count() == 1);

    auto links = f.links();
    REQUIRE(links.size() == 1);
    CHECK(links[0].a == PortRef{sw, PortNum(3)});

    f.disconnect({ca, PortNum(1)});
    CHECK(f.link_count() == 0);
    CHECK_FALSE(f.remote({sw, PortNum(3)}));
}

TEST_CASE("Fabric rejects duplicate GUIDs and double cabling")
{
    Fabric f;
    auto a = f.add_node(NodeType::switch_node, Guid(1), 4);
    auto b = f.add_node(NodeType::switch_node, Guid(2), 4);
    CHECK_THROWS_AS(f.add_node(NodeType::ca, Guid(1), 1), std::invalid_argument);
    f.connect({a, PortNum(1)}, {b, PortNum(1)});
    CHECK_THROWS_AS(f.connect({a, PortNum(1)}, {b, PortNum(2)}), std::invalid_argument);
    CHECK_THROWS_AS(f.connect({a, PortNum(2)}, {a, PortNum(2)}), std::invalid_argument);
    CHECK_THROWS_AS(f.connect({a, PortNum(0)}, {b, PortNum(3)}), std::invalid_argument);
    auto c = f.add_node(NodeType::ca, Guid(3), 1);
    f.set_port_guid({c, PortNum(1)}, Guid(4));
    CHECK_THROWS_AS(f.set_port_guid({a, PortNum(0)}, Guid(4)), std::invalid_argument);
    // A switch port cannot take another GUID; a switch cannot reuse a CA port GUID.
    CHECK_THROWS_AS(f.set_port_guid({a, PortNum(2)}, Guid(9)), std::invalid_argument);
    CHECK(f.find_port(Guid(1)) == PortRef{a, PortNum(0)});
    CHECK_THROWS_AS(f.add_node(NodeType::switch_node, Guid(4), 4), std::invalid_argument);
}
