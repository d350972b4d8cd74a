#include "topology/gen_degrade.h"

#include "fabric_view.h"
#include "topology/fabric_subset.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

bool connected(const Fabric& f)
{
    if (f.node_count() == 0) return true;
    std::vector<bool> seen(f.node_count(), false);
    std::vector<NodeId> stack{NodeId{0}};
    seen[0] = true;
    std::size_t count = 1;
    while (!stack.empty()) {
        NodeId n = stack.back();
        stack.pop_back();
        for (const Port& p : f.node(n).ports)
            if (p.remote && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = true;
                ++count;
                stack.push_back(p.remote->node);
            }
    }
    return count == f.node_count();
}

std::size_t hosts_on(const Fabric& f, NodeId sw)
{
    std::size_t n = 0;
    for (const Port& p : f.node(sw).ports)
        if (p.remote && f.node(p.remote->node).type == NodeType::ca) ++n;
    return n;
}

Fabric tree() { return generate_pgft(PgftParams{{4, 4, 4}, {1, 4, 4}, {1, 1, 1}, false}); }

} // namespace

TEST_CASE("without_nodes keeps everything else and renumbers")
{
    Fabric f = generate_ring(RingParams{3, 1});
    std::vector<bool> drop(f.node_count(), false);
    drop[1] = true; // host-0001
    Fabric g = without_nodes(f, drop);
    CHECK(g.node_count() == f.node_count() - 1);
    CHECK(g.link_count() == f.link_count() - 1);
    CHECK_FALSE(g.find_node(f.node(NodeId{1}).guid));
    CHECK(g.find_port(Guid(f.node(NodeId{2}).guid.value() + 1)) == PortRef{NodeId{1}, PortNum(1)});
    // The ring port that lost its host lost its rate too.
    NodeId sw1 = by_description(g, "ring-0001");
    CHECK_FALSE(g.remote({sw1, PortNum(1)}));
    CHECK(g.port({sw1, PortNum(1)}).link_width_active == 0);
    CHECK(g.port({sw1, PortNum(2)}).link_width_active == 2);
}

TEST_CASE("Random host removal is seeded and says what it removed")
{
    Fabric f = tree();
    auto a = remove_random_hosts(f, 10, 42);
    auto b = remove_random_hosts(f, 10, 42);
    auto c = remove_random_hosts(f, 10, 43);
    CHECK(a.fabric.ca_count() == 54);
    CHECK(a.fabric.switch_count() == f.switch_count());
    CHECK(a.fabric.link_count() == f.link_count() - 10);
    REQUIRE(a.removed.hosts.size() == 10);
    CHECK(a.removed.hosts == b.removed.hosts);
    CHECK(a.removed.hosts != c.removed.hosts);
    for (Guid g : a.removed.hosts) {
        CHECK(f.find_node(g));
        CHECK_FALSE(a.fabric.find_node(g));
    }
    CHECK_THROWS_AS(remove_random_hosts(f, 65, 1), std::invalid_argument);
}

TEST_CASE("Per-leaf host removal takes the last hosts of every leaf")
{
    Fabric f = tree();
    auto d = remove_hosts_per_leaf(f, 1);
    CHECK(d.removed.hosts.size() == 16);
    CHECK(d.fabric.ca_count() == 48);
    for (NodeId id : d.fabric.node_ids()) {
        const Node& n = d.fabric.node(id);
        if (!n.is_switch() || n.description.rfind("leaf", 0) != 0) continue;
        CHECK(hosts_on(d.fabric, id) == 3);
        CHECK_FALSE(n.port(PortNum(4)).remote); // the highest down port is now empty
    }
}

TEST_CASE("Seeded link and switch removal")
{
    Fabric f = tree();
    SECTION("links")
    {
        DegradeSpec spec;
        spec.links = 20;
        spec.seed = 7;
        auto d = degrade(f, spec);
        CHECK(d.fabric.link_count() == f.link_count() - 20);
        CHECK(d.fabric.node_count() == f.node_count());
        REQUIRE(d.removed.links.size() == 20);
        for (const auto& l : d.removed.links) {
            auto a = f.find_node(l.a_node), b = f.find_node(l.b_node);
            REQUIRE(a);
            REQUIRE(b);
            CHECK(f.node(*a).is_switch());
            CHECK(f.node(*b).is_switch());
            CHECK(f.remote({*a, l.a_port}) == PortRef{*b, l.b_port});
            CHECK_FALSE(d.fabric.remote({*d.fabric.find_node(l.a_node), l.a_port}));
        }
        CHECK(connected(d.fabric));
        auto again = degrade(f, spec);
        CHECK(links_by_guid(again.fabric) == links_by_guid(d.fabric));
        spec.seed = 8;
        CHECK(links_by_guid(degrade(f, spec).fabric) != links_by_guid(d.fabric));
    }
    SECTION("switches, then links among what is left")
    {
        DegradeSpec spec;
        spec.switches = 5;
        spec.links = 3;
        spec.seed = 3;
        auto d = degrade(f, spec);
        CHECK(d.fabric.switch_count() == f.switch_count() - 5);
        CHECK(d.fabric.ca_count() == f.ca_count());
        REQUIRE(d.removed.switches.size() == 5);
        std::size_t cables_lost = 0;
        for (Guid g : d.removed.switches) {
            auto id = f.find_node(g);
            REQUIRE(id);
            CHECK(hosts_on(f, *id) == 0);
            for (const Port& p : f.node(*id).ports) cables_lost += p.remote ? 1 : 0;
        }
        CHECK(d.fabric.link_count() == f.link_count() - cables_lost - 3);
        CHECK(connected(d.fabric));
    }
}

TEST_CASE("Removal that must keep the fabric connected can be impossible")
{
    Fabric ring = generate_ring(RingParams{3, 1});
    DegradeSpec spec;
    spec.links = 1;
    CHECK(connected(degrade(ring, spec).fabric)); // a ring minus one cable is a path
    spec.links = 2;
    CHECK_THROWS_AS(degrade(ring, spec), std::invalid_argument);
    spec.keep_connected = false;
    CHECK_FALSE(connected(degrade(ring, spec).fabric));

    DegradeSpec sw;
    sw.switches = 1; // every ring switch has a host
    CHECK_THROWS_AS(degrade(ring, sw), std::invalid_argument);
}
