// layout_input: what Graphviz is handed for a model, and which engine.
#include "report/layout.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::report;

namespace {

Node node(std::uint64_t guid, NodeKind kind)
{
    Node n;
    n.name = "n" + std::to_string(guid);
    n.guid = Guid{guid};
    n.kind = kind;
    return n;
}

Link link(std::size_t a, std::size_t b, std::size_t cables)
{
    Link l;
    l.a = a;
    l.b = b;
    for (std::size_t c = 0; c < cables; ++c)
        l.cables.push_back({static_cast<unsigned>(c + 1), static_cast<unsigned>(c + 1), 0, 0});
    return l;
}

// A ring of `n` switches, each pair of neighbours joined by one cable.
Model ring(std::size_t n)
{
    Model m;
    for (std::size_t i = 0; i < n; ++i)
        m.nodes.push_back(node(0x1000 + i, NodeKind::switch_node));
    for (std::size_t i = 0; i < n; ++i)
        m.links.push_back(link(std::min(i, (i + 1) % n), std::max(i, (i + 1) % n), 1));
    return m;
}

} // namespace

TEST_CASE("layout_input: one vertex per node, one edge per bundle weighted by its cables")
{
    Model m;
    m.nodes = {node(0xa1, NodeKind::switch_node), node(0xa2, NodeKind::switch_node),
               node(0xb1, NodeKind::host), node(0xb2, NodeKind::host)};
    m.links = {link(0, 1, 3), link(0, 2, 1), link(1, 3, 2)};

    const LayoutInput in = layout_input(m);
    REQUIRE(in.vertices == std::vector<std::string>{"0x00000000000000a1", "0x00000000000000a2",
                                                    "0x00000000000000b1", "0x00000000000000b2"});
    REQUIRE(in.edges == std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {0, 2}, {1, 3}});
    REQUIRE(in.edge_weight == std::vector<unsigned>{3, 1, 2});
    REQUIRE(in.engine == "neato");
}

TEST_CASE("layout_input: neato below sfdp_from_nodes nodes, sfdp from there on")
{
    REQUIRE(layout_input(ring(sfdp_from_nodes - 1)).engine == "neato");
    REQUIRE(layout_input(ring(sfdp_from_nodes)).engine == "sfdp");
    const LayoutInput big = layout_input(ring(sfdp_from_nodes));
    REQUIRE(big.vertices.size() == sfdp_from_nodes);
    REQUIRE(big.edges.size() == sfdp_from_nodes);
}

TEST_CASE("layout_input: a link to a node the model does not have is refused")
{
    Model m = ring(3);
    m.links.push_back(link(1, 7, 1));
    REQUIRE_THROWS_AS(layout_input(m), std::invalid_argument);
    Model self = ring(3);
    self.links.push_back(link(2, 2, 1));
    REQUIRE_THROWS_AS(layout_input(self), std::invalid_argument);
}
