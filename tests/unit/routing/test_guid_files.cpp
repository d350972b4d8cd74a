// OpenSM's GUID files in the engines (routing/guid_roles.h): the compute-
// and I/O-node files change ftree's balance and the sssp/dfsssp order, the
// routing-order file the order of minhop, sssp and dfsssp. Each test shows
// the tables without the files first, so it fails if the files change nothing.
#include "routing/dfsssp.h"
#include "routing/fattree/dmodk.h"
#include "routing/fattree/sftree.h"
#include "routing/minhop.h"
#include "routing/sssp.h"
#include "routing/verify.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace ibsm;
using namespace ibsm::test;

namespace {

Guid port_guid(const Fabric& f, NodeId ca) { return f.port(pr(ca, 1)).guid; }

Lid lid_of(const lidassign::LidMap& lids, NodeId ca) { return lids.lids_of(pr(ca, 1))->base; }

routing::RoutingTables tables_of(const routing::Engine& e, const Fabric& f, const lidassign::LidMap& lids,
                                 const routing::Options& o)
{
    auto r = e.compute(f, lids, o);
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL(e.name() << " refused: " << refusal->reason);
    return std::get<routing::RoutingTables>(r);
}

std::uint8_t port_at(const routing::RoutingTables& t, NodeId sw, Lid lid) { return t.lfts.at(sw).port[lid.value()]; }

} // namespace

TEST_CASE("ftree: I/O nodes do not count in the compute nodes' balance (cn_guid_file, io_guid_file)")
{
    // 4 leaves of 4 hosts, 2 spines. Host 0 of every leaf is an I/O node.
    // D-Mod-K spreads destinations over a leaf's 2 up ports by index: with
    // the I/O node holding index 0 of each leaf, the 3 compute nodes of a
    // leaf take up ports 1, 0, 1, so every leaf sends 2 of them up one port
    // and 1 up the other. With the files, only the 12 compute nodes are
    // indexed and the up ports take them in turn.
    auto t = two_level(4, 2, 4);
    const auto lids = simple_lids(t.fabric);
    routing::Options files;
    for (std::size_t i = 0; i < t.hosts.size(); ++i)
        (i % 4 == 0 ? files.io_nodes : files.compute_nodes).push_back(port_guid(t.fabric, t.hosts[i]));

    // Up-port use at leaf 0 for the compute nodes of the other leaves.
    auto spread = [&](const routing::RoutingTables& tables) {
        std::map<std::uint8_t, int> use;
        for (std::size_t i = 4; i < t.hosts.size(); ++i)
            if (i % 4 != 0) ++use[port_at(tables, t.leaves[0], lid_of(lids, t.hosts[i]))];
        int lo = 1 << 30, hi = 0;
        for (auto [port, n] : use) {
            lo = std::min(lo, n);
            hi = std::max(hi, n);
        }
        return std::pair{use.size(), hi - lo};
    };
    const routing::fattree::FtreeEngine ftree;
    const auto plain = spread(tables_of(ftree, t.fabric, lids, {}));
    CHECK(plain.first == 2);
    CHECK(plain.second == 3); // 6 on one up port, 3 on the other

    const auto with_files = tables_of(ftree, t.fabric, lids, files);
    const auto balanced = spread(with_files);
    CHECK(balanced.first == 2);
    CHECK(balanced.second <= 1);
    // The I/O nodes are still routed from every switch.
    for (std::size_t i = 0; i < t.hosts.size(); i += 4)
        for (auto [sw, lft] : with_files.lfts) CHECK(lft.port[lid_of(lids, t.hosts[i]).value()] != routing::no_route);
}

TEST_CASE("ftree: a compute-node file naming no port of the fabric is refused, naming the file's key")
{
    auto t = two_level(2, 2, 2);
    const auto lids = simple_lids(t.fabric);
    routing::Options o;
    o.compute_nodes = {Guid(0xdead), Guid(0xbeef)};
    auto r = routing::fattree::FtreeEngine().compute(t.fabric, lids, o);
    REQUIRE(std::holds_alternative<routing::Refusal>(r));
    CHECK(std::get<routing::Refusal>(r).reason ==
          "none of the 2 compute nodes listed (cn_guid_file) is a CA port on a leaf of this fabric");
}

// 2 leaves of 3 hosts, 2 spines: leaf 0 reaches leaf 1's hosts over either
// spine, and the engines give its two up ports to leaf 1's hosts in the
// order they route them. In their own order (by port) hosts 0 and 2 of
// leaf 1 share an up port; routed first (as compute nodes, or by the
// routing-order file) they get one each.
TEST_CASE("sssp, dfsssp, minhop: the GUID files change the order destinations are balanced in")
{
    auto t = two_level(2, 2, 3);
    const auto lids = simple_lids(t.fabric);
    const NodeId a = t.hosts[3], b = t.hosts[4], c = t.hosts[5]; // leaf 1's hosts, ports 1..3
    auto same_port = [&](const routing::RoutingTables& tables) {
        return port_at(tables, t.leaves[0], lid_of(lids, a)) == port_at(tables, t.leaves[0], lid_of(lids, c));
    };

    routing::Options classes;
    for (std::size_t i = 0; i < 3; ++i) classes.compute_nodes.push_back(port_guid(t.fabric, t.hosts[i]));
    classes.compute_nodes.push_back(port_guid(t.fabric, a));
    classes.compute_nodes.push_back(port_guid(t.fabric, c));
    classes.io_nodes.push_back(port_guid(t.fabric, b));

    routing::Options order;
    order.routing_order = {port_guid(t.fabric, a), port_guid(t.fabric, c)};

    const routing::SsspEngine sssp;
    const routing::DfssspEngine dfsssp;
    const routing::MinHopEngine minhop;
    for (const routing::Engine* e : {static_cast<const routing::Engine*>(&sssp),
                                     static_cast<const routing::Engine*>(&dfsssp)}) {
        INFO(e->name());
        CHECK(same_port(tables_of(*e, t.fabric, lids, {})));
        CHECK_FALSE(same_port(tables_of(*e, t.fabric, lids, classes)));
        CHECK_FALSE(same_port(tables_of(*e, t.fabric, lids, order)));
    }
    // OpenSM's minhop takes only the routing-order file.
    CHECK(same_port(tables_of(minhop, t.fabric, lids, {})));
    CHECK(same_port(tables_of(minhop, t.fabric, lids, classes)));
    CHECK_FALSE(same_port(tables_of(minhop, t.fabric, lids, order)));
}

TEST_CASE("sssp order: routing-order file first, then compute nodes, I/O nodes, the rest, switches")
{
    auto t = two_level(2, 1, 2);
    const auto lids = simple_lids(t.fabric);
    const auto g = routing::build_switch_graph(t.fabric, lids);
    routing::Options o;
    o.routing_order = {port_guid(t.fabric, t.hosts[3])};
    o.compute_nodes = {port_guid(t.fabric, t.hosts[2])};
    o.io_nodes = {port_guid(t.fabric, t.hosts[1])};
    std::vector<Guid> seen;
    for (auto i : routing::sssp_routing_order(g, o)) seen.push_back(g.destinations[i].port_guid);
    REQUIRE(seen.size() == 4 + 3);
    CHECK(seen[0] == port_guid(t.fabric, t.hosts[3]));
    CHECK(seen[1] == port_guid(t.fabric, t.hosts[2]));
    CHECK(seen[2] == port_guid(t.fabric, t.hosts[1]));
    CHECK(seen[3] == port_guid(t.fabric, t.hosts[0]));
    for (std::size_t i = 4; i < seen.size(); ++i) CHECK(t.fabric.find_node(seen[i]).has_value());
}

namespace {

// A two-level tree (4 leaves of 2 hosts, 2 spines) with one I/O node on
// each spine's spare port: from either I/O node the other lies below no
// switch it can climb to, so the pair needs a reverse hop (down to a leaf,
// up to the other spine).
struct IoOnSpines {
    Tree t;
    NodeId io0, io1;
};

IoOnSpines io_on_spines()
{
    IoOnSpines e;
    auto& f = e.t.fabric;
    std::uint64_t guid = 0x1000;
    for (unsigned s = 0; s < 2; ++s)
        e.t.spines.push_back(f.add_node(NodeType::switch_node, Guid(++guid), 5, "spine" + std::to_string(s)));
    for (unsigned l = 0; l < 4; ++l)
        e.t.leaves.push_back(f.add_node(NodeType::switch_node, Guid(++guid), 4, "leaf" + std::to_string(l)));
    for (unsigned l = 0; l < 4; ++l)
        for (unsigned s = 0; s < 2; ++s) f.connect(pr(e.t.leaves[l], 3 + s), pr(e.t.spines[s], 1 + l));
    auto add_ca = [&](const std::string& name, NodeId sw, unsigned port) {
        const Guid g(++guid);
        auto ca = f.add_node(NodeType::ca, g, 1, name);
        f.set_port_guid(pr(ca, 1), Guid(g.value() | 0x8000000000000000ull));
        f.connect(pr(ca, 1), pr(sw, port));
        return ca;
    };
    for (unsigned l = 0; l < 4; ++l)
        for (unsigned h = 0; h < 2; ++h)
            e.t.hosts.push_back(add_ca("host" + std::to_string(l) + "-" + std::to_string(h), e.t.leaves[l], 1 + h));
    e.io0 = add_ca("io0", e.t.spines[0], 5);
    e.io1 = add_ca("io1", e.t.spines[1], 5);
    make_healthy(f);
    return e;
}

// Down hops taken before a later up hop on the route from `from`'s switch
// to `lid` (spines up, leaves down), traced here from the tables.
unsigned reverse_hops(const IoOnSpines& e, const routing::RoutingTables& tables, NodeId from, Lid lid)
{
    const auto& f = e.t.fabric;
    auto is_spine = [&](NodeId n) { return std::find(e.t.spines.begin(), e.t.spines.end(), n) != e.t.spines.end(); };
    NodeId sw = f.port(pr(from, 1)).remote->node;
    unsigned reverse = 0, pending = 0;
    for (int hop = 0; hop < 8; ++hop) {
        const auto port = port_at(tables, sw, lid);
        REQUIRE(port != routing::no_route);
        const auto next = f.node(sw).ports[port].remote->node;
        if (!f.node(next).is_switch()) return reverse;
        if (is_spine(next)) {
            reverse += pending;
            pending = 0;
        } else {
            ++pending;
        }
        sw = next;
    }
    FAIL("no route from " << f.node(from).description);
    return 0;
}

} // namespace

TEST_CASE("ftree: I/O nodes on spines are reached with max_reverse_hops, and the gate passes")
{
    auto e = io_on_spines();
    const auto& f = e.t.fabric;
    const auto lids = simple_lids(f);
    const routing::fattree::FtreeEngine ftree;
    const routing::fattree::SftreeEngine sftree;

    // Without the I/O file the CAs on the spines make no fat-tree.
    {
        auto r = ftree.compute(f, lids, {});
        REQUIRE(std::holds_alternative<routing::Refusal>(r));
        CHECK_THAT(std::get<routing::Refusal>(r).reason, Catch::Contains("not a fat-tree"));
    }

    routing::Options o;
    o.io_nodes = {port_guid(f, e.io0), port_guid(f, e.io1)};
    // With it, but no reverse hop allowed (OpenSM's default): io1 -> io0
    // (and back) has no up*/down* route, so ftree refuses, naming a pair.
    for (const routing::Engine* engine : {static_cast<const routing::Engine*>(&ftree),
                                          static_cast<const routing::Engine*>(&sftree)}) {
        INFO(engine->name());
        auto r = engine->compute(f, lids, o);
        REQUIRE(std::holds_alternative<routing::Refusal>(r));
        const auto& why = std::get<routing::Refusal>(r).reason;
        CHECK_THAT(why, Catch::StartsWith("2 CA pair(s) need more reverse hops than allowed, e.g. CA \"io"));
        CHECK_THAT(why, Catch::Contains("1 reverse hop(s), routing.max_reverse_hops allows 0"));
    }

    o.max_reverse_hops = 1;
    for (const routing::Engine* engine : {static_cast<const routing::Engine*>(&ftree),
                                          static_cast<const routing::Engine*>(&sftree)}) {
        INFO(engine->name());
        const auto tables = tables_of(*engine, f, lids, o);
        // The gate: every pair delivered, no credit loop (CA traffic, and
        // switch traffic where the engine promises switch pairs).
        const auto verdict = routing::verify(f, lids, tables);
        INFO(verdict.reason);
        CHECK(verdict.passed());
        CHECK(verdict.ca_to_ca.undelivered() == 0);
        CHECK_FALSE(verdict.ca_credit_loop);
        // The I/O nodes reach each other with one reverse hop; every host
        // reaches both straight up, and they reach every host straight down.
        CHECK(reverse_hops(e, tables, e.io1, lid_of(lids, e.io0)) == 1);
        CHECK(reverse_hops(e, tables, e.io0, lid_of(lids, e.io1)) == 1);
        for (auto h : e.t.hosts) {
            CHECK(reverse_hops(e, tables, h, lid_of(lids, e.io0)) == 0);
            CHECK(reverse_hops(e, tables, h, lid_of(lids, e.io1)) == 0);
            CHECK(reverse_hops(e, tables, e.io0, lid_of(lids, h)) == 0);
        }
    }
}

TEST_CASE("ftree: a non-compute node above the leaves that is not an I/O node gets no reverse hop")
{
    auto e = io_on_spines();
    const auto& f = e.t.fabric;
    const auto lids = simple_lids(f);
    routing::Options o;
    for (auto h : e.t.hosts) o.compute_nodes.push_back(port_guid(f, h));
    o.io_nodes = {port_guid(f, e.io1)};
    o.max_reverse_hops = 3;
    auto r = routing::fattree::FtreeEngine().compute(f, lids, o);
    REQUIRE(std::holds_alternative<routing::Refusal>(r));
    CHECK_THAT(std::get<routing::Refusal>(r).reason,
               Catch::Contains("reaches non-compute node \"io0\"") &&
                   Catch::Contains("only the I/O nodes of routing.io_guid_file may take any"));
    // Listed as an I/O node, it is routed.
    o.io_nodes.push_back(port_guid(f, e.io0));
    CHECK(std::holds_alternative<routing::RoutingTables>(routing::fattree::FtreeEngine().compute(f, lids, o)));
}
