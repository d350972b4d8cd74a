// The force-directed layout through Graphviz: neato on a small torus, sfdp
// on a random fabric past the threshold, reproducible, every node inside the
// drawing, cabled nodes nearer than others; a bad engine is named.
#include "report/graphviz_layout.h"
#include "report/host_placement.h"
#include "report/layout.h"
#include "tests/unit/report/fabric_model.h"
#include "topology/gen_irregular.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace ibsm;
using namespace ibsm::report;

namespace {

Model torus(unsigned x, unsigned y, unsigned hosts)
{
    return test::model_of_fabric(topology::generate_torus({.x = x, .y = y, .hosts_per_switch = hosts}));
}

double distance(const Layout& l, const Model& m, std::size_t a, std::size_t b)
{
    const Point p = l.at.at(m.nodes[a].guid), q = l.at.at(m.nodes[b].guid);
    return std::hypot(p.x - q.x, p.y - q.y);
}

void require_inside(const Layout& l, const Model& m)
{
    REQUIRE(l.at.size() == m.nodes.size());
    REQUIRE(l.width > 0);
    REQUIRE(l.height > 0);
    for (const Node& n : m.nodes) {
        REQUIRE(l.at.count(n.guid) == 1);
        const Point p = l.at.at(n.guid);
        REQUIRE(std::isfinite(p.x));
        REQUIRE(std::isfinite(p.y));
        REQUIRE(p.x >= 0);
        REQUIRE(p.y >= 0);
        REQUIRE(p.x <= l.width);
        REQUIRE(p.y <= l.height);
    }
}

// Cabled nodes should sit closer than nodes picked without regard to the
// cabling: the mean link length against the mean distance of all pairs.
void require_links_short(const Layout& l, const Model& m)
{
    double links = 0;
    for (const Link& link : m.links)
        links += distance(l, m, link.a, link.b);
    links /= static_cast<double>(m.links.size());
    double pairs = 0;
    std::size_t count = 0;
    for (std::size_t a = 0; a < m.nodes.size(); a += 3)
        for (std::size_t b = a + 1; b < m.nodes.size(); b += 7, ++count)
            pairs += distance(l, m, a, b);
    pairs /= static_cast<double>(count);
    REQUIRE(links * 2 < pairs);
}

bool same(const Layout& a, const Layout& b)
{
    if (a.method != b.method || a.width != b.width || a.height != b.height || a.at.size() != b.at.size())
        return false;
    for (const auto& [guid, p] : a.at) {
        auto it = b.at.find(guid);
        if (it == b.at.end() || it->second.x != p.x || it->second.y != p.y)
            return false;
    }
    return true;
}

} // namespace

TEST_CASE("graphviz: a 6x6 torus with hosts is laid out by neato, reproducibly, without overlaps")
{
    const Model m = torus(6, 6, 2);
    REQUIRE(m.height == 0);
    REQUIRE(m.nodes.size() == 108);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "neato");
    require_inside(l, m);
    require_links_short(l, m);
    // prism removes overlaps of the node circles.
    double closest = 1e300;
    for (std::size_t a = 0; a < m.nodes.size(); ++a)
        for (std::size_t b = a + 1; b < m.nodes.size(); ++b)
            closest = std::min(closest, distance(l, m, a, b));
    REQUIRE(closest >= 0.9 * l.node_spacing);
    REQUIRE(same(l, compute_layout(m)));
}

TEST_CASE("graphviz: a random fabric past the threshold is laid out by sfdp, reproducibly")
{
    const Model m = test::model_of_fabric(
        topology::generate_random({.switches = 120, .hosts_per_switch = 4, .ports_per_switch = 10, .seed = 7}));
    REQUIRE(m.nodes.size() >= sfdp_from_nodes);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "sfdp");
    require_inside(l, m);
    require_links_short(l, m);
    // Every host beside its switch, on the ring reserved for it (sfdp alone
    // flings them to the rim, hundreds of units away).
    const double min_distance = graphviz_node_size + 8;
    const auto hosts_of = hosts_by_switch(m);
    std::size_t hosts = 0;
    for (std::size_t s = 0; s < m.nodes.size(); ++s)
        for (std::size_t h : hosts_of[s]) {
            ++hosts;
            REQUIRE(distance(l, m, s, h) <= host_ring_radius(hosts_of[s].size(), min_distance) + 0.1);
        }
    REQUIRE(hosts == 480);
    double closest = 1e300;
    for (std::size_t a = 0; a < m.nodes.size(); ++a)
        for (std::size_t b = a + 1; b < m.nodes.size(); ++b)
            closest = std::min(closest, distance(l, m, a, b));
    REQUIRE(closest >= l.node_spacing);
    REQUIRE(same(l, compute_layout(m)));
}

TEST_CASE("graphviz: separate components are all placed")
{
    Model m = torus(3, 3, 0);
    const std::size_t first = m.nodes.size();
    const Model other = torus(4, 1, 1);
    for (Node n : other.nodes) {
        n.guid = Guid{n.guid.value() ^ 0xF000000000000000ull};
        m.nodes.push_back(n);
    }
    for (Link link : other.links) {
        link.a += first;
        link.b += first;
        m.links.push_back(link);
    }
    const Layout l = compute_layout(m);
    require_inside(l, m);
}

TEST_CASE("graphviz: two unranked models share one layout over the union of their nodes")
{
    const Model a = torus(4, 4, 1);
    Model b = a;
    b.nodes.back().guid = Guid{0x5eed}; // a host replaced
    const Layout l = compute_layout(a, b);
    REQUIRE(l.method == "neato");
    REQUIRE(l.at.size() == a.nodes.size() + 1);
    REQUIRE(l.at.count(a.nodes.back().guid) == 1);
    REQUIRE(l.at.count(Guid{0x5eed}) == 1);
}

TEST_CASE("graphviz: a failing layout throws and names the engine")
{
    const Model m = torus(3, 3, 0);
    LayoutInput in = layout_input(m);
    in.engine = "nosuch";
    try {
        graphviz_layout(m, in);
        FAIL("no exception");
    } catch (const std::runtime_error& e) {
        INFO(e.what());
        REQUIRE(std::string(e.what()).find("nosuch") != std::string::npos);
    }
    // The failure leaves Graphviz usable.
    require_inside(compute_layout(m), m);
}

TEST_CASE("graphviz: bundles of parallel cables are drawn shorter than single cables")
{
    // Along x = 2 the torus wraps onto the same neighbour: two cables.
    const Model m = torus(2, 6, 1);
    const LayoutInput in = layout_input(m);
    REQUIRE(std::count(in.edge_weight.begin(), in.edge_weight.end(), 2u) == 6);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "neato");
    require_inside(l, m);
    double bundled = 0, single = 0;
    std::size_t nb = 0, ns = 0;
    for (const Link& link : m.links) {
        if (!link.switch_link)
            continue;
        (link.cables.size() == 2 ? bundled : single) += distance(l, m, link.a, link.b);
        ++(link.cables.size() == 2 ? nb : ns);
    }
    REQUIRE(nb == 6);
    REQUIRE(ns == 12);
    // 0.43 here; with every ideal length equal the ladder's rungs come out
    // at 0.60 of the rails.
    REQUIRE(bundled / static_cast<double>(nb) < 0.5 * single / static_cast<double>(ns));
}
