// topology::PortIndex: a map's values found by (node, port) in a flat array.
#include "topology/port_index.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using topology::PortRef;

TEST_CASE("PortIndex finds every value of the map, and nothing the map lacks", "[port_index]")
{
    topology::Fabric f;
    const auto ca = f.add_node(topology::NodeType::ca, Guid(0x10), 2);
    const auto sw = f.add_node(topology::NodeType::switch_node, Guid(0x20), 4);
    std::map<PortRef, int> values{{{ca, PortNum(1)}, 11}, {{sw, PortNum(0)}, 20}, {{sw, PortNum(4)}, 24}};
    const topology::PortIndex<int> index(f, values);
    for (const auto& [ref, v] : values) {
        REQUIRE(index.find(ref));
        CHECK(index.find(ref) == &values.at(ref)); // the map's own value, not a copy
    }
    CHECK_FALSE(index.find({ca, PortNum(2)}));
    CHECK_FALSE(index.find({sw, PortNum(1)}));
    // Past a node's ports, and past the fabric: no neighbour's slot.
    CHECK_FALSE(index.find({ca, PortNum(3)}));
    CHECK_FALSE(index.find({topology::NodeId{2}, PortNum(0)}));
}
