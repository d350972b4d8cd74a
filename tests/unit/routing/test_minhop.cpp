#include "routing/minhop.h"

#include "routing/lft_dump.h"
#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace ibsm;
using namespace ibsm::test;
using routing::MinHopEngine;
using routing::RoutingTables;

namespace {

RoutingTables route(const Fabric& f, const lidassign::LidMap& lids)
{
    auto r = MinHopEngine().compute(f, lids, routing::Options{});
    REQUIRE(std::holds_alternative<RoutingTables>(r));
    return std::get<RoutingTables>(std::move(r));
}

void require_clean(const RouteCheck& c)
{
    INFO(c.first_problem);
    CHECK(c.routes > 0);
    CHECK(c.unreachable == 0);
    CHECK(c.loops == 0);
    CHECK(c.wrong_end == 0);
    CHECK(c.not_shortest == 0);
    CHECK(c.routed_unreachable == 0);
}

// Routes of CA LIDs leaving `sw` through each of `ports`.
std::map<unsigned, unsigned> uplink_loads(const Fabric& f, const lidassign::LidMap& lids, const RoutingTables& t,
                                          NodeId sw, const std::set<unsigned>& ports)
{
    std::map<unsigned, unsigned> load;
    for (unsigned p : ports) load[p] = 0;
    for (const auto& [ref, pl] : lids.entries()) {
        if (f.node(ref.node).is_switch()) continue;
        for (unsigned k = 0; k < pl.count(); ++k) {
            const unsigned out = t.lfts.at(sw).at(Lid(static_cast<std::uint16_t>(pl.base.value() + k)));
            if (ports.contains(out)) ++load[out];
        }
    }
    return load;
}

} // namespace

TEST_CASE("MinHop routes a two-level tree: all pairs, no loops, least hops")
{
    auto t = two_level(6, 4, 4);
    auto lids = simple_lids(t.fabric);
    auto tables = route(t.fabric, lids);
    CHECK(tables.engine == "minhop");
    CHECK(tables.linear_fdb_top == lids.top());
    CHECK(tables.lfts.size() == 10);
    require_clean(check_routes(t.fabric, lids, tables));

    // Own LID -> port 0; a local host -> its port.
    const auto leaf0 = t.leaves[0];
    CHECK(tables.lfts.at(leaf0).at(lids.lids_of(pr(leaf0, 0))->base) == 0);
    CHECK(tables.lfts.at(leaf0).at(lids.lids_of(pr(t.hosts[2], 1))->base) == 3);
    // Nothing is routed for LID 0.
    CHECK(tables.lfts.at(leaf0).at(Lid(0)) == routing::no_route);
}

TEST_CASE("MinHop balances CA routes over a leaf's uplinks")
{
    SECTION("one link per spine")
    {
        auto t = two_level(8, 4, 6);
        auto lids = simple_lids(t.fabric);
        auto tables = route(t.fabric, lids);
        require_clean(check_routes(t.fabric, lids, tables));
        for (auto leaf : t.leaves) {
            auto load = uplink_loads(t.fabric, lids, tables, leaf, {7, 8, 9, 10});
            // 7 remote leaves x 6 hosts = 42 routes over 4 uplinks: 10 or 11 each.
            unsigned lo = 1000, hi = 0, sum = 0;
            for (auto [p, n] : load) lo = std::min(lo, n), hi = std::max(hi, n), sum += n;
            CHECK(sum == 42);
            CHECK(hi - lo <= 1);
        }
    }
    SECTION("parallel links")
    {
        auto t = two_level(4, 2, 5, 3);
        auto lids = simple_lids(t.fabric);
        auto tables = route(t.fabric, lids);
        require_clean(check_routes(t.fabric, lids, tables));
        for (auto leaf : t.leaves) {
            auto load = uplink_loads(t.fabric, lids, tables, leaf, {6, 7, 8, 9, 10, 11});
            unsigned lo = 1000, hi = 0;
            for (auto [p, n] : load) lo = std::min(lo, n), hi = std::max(hi, n);
            CHECK(hi - lo <= 1);
        }
        // Down at the spines: the 3 links to a leaf share its 5 hosts 2/2/1.
        for (auto spine : t.spines) {
            auto load = uplink_loads(t.fabric, lids, tables, spine, {1, 2, 3});
            unsigned lo = 1000, hi = 0;
            for (auto [p, n] : load) lo = std::min(lo, n), hi = std::max(hi, n);
            CHECK(hi == 2);
            CHECK(lo == 1);
        }
    }
}

TEST_CASE("MinHop spreads the LMC LIDs of a port over different next-hop nodes")
{
    for (std::uint8_t lmc : {std::uint8_t{1}, std::uint8_t{2}}) {
        auto t = two_level(5, 4, 3);
        auto lids = simple_lids(t.fabric, lmc);
        auto tables = route(t.fabric, lids);
        require_clean(check_routes(t.fabric, lids, tables));
        for (auto leaf : t.leaves)
            for (auto host : t.hosts) {
                const auto pl = *lids.lids_of(pr(host, 1));
                if (t.fabric.remote(pr(host, 1))->node == leaf) continue;
                std::set<NodeId> next;
                for (unsigned k = 0; k < pl.count(); ++k) {
                    const unsigned out = tables.lfts.at(leaf).at(Lid(static_cast<std::uint16_t>(pl.base.value() + k)));
                    next.insert(t.fabric.remote(pr(leaf, out))->node);
                }
                CHECK(next.size() == pl.count());
            }
    }
}

TEST_CASE("MinHop on rings and random graphs keeps every property")
{
    SECTION("ring")
    {
        for (unsigned n : {3u, 4u, 5u, 8u}) {
            auto f = ring(n, 2);
            auto lids = simple_lids(f);
            require_clean(check_routes(f, lids, route(f, lids)));
        }
    }
    SECTION("random graphs, including disconnected ones")
    {
        for (std::uint32_t seed = 1; seed <= 12; ++seed) {
            auto f = random_fabric(20, 12, seed % 3 == 0 ? 12 : 60, 2, seed);
            auto lids = simple_lids(f, static_cast<std::uint8_t>(seed % 2));
            auto c = check_routes(f, lids, route(f, lids));
            INFO("seed " << seed);
            require_clean(c);
        }
    }
}

TEST_CASE("MinHop skips unhealthy links")
{
    auto t = two_level(4, 2, 2);
    // leaf0's link to spine0 (leaf port 3): one end DOWN.
    t.fabric.port(pr(t.leaves[0], 3)).state = topology::PortState::down;
    // leaf1's link to spine1 (leaf port 4): the far end never answered.
    t.fabric.port(pr(t.spines[1], 2)).known = false;
    auto lids = simple_lids(t.fabric);
    auto tables = route(t.fabric, lids);
    require_clean(check_routes(t.fabric, lids, tables)); // check_routes rejects unusable hops
    for (const auto& [ref, pl] : lids.entries()) {
        CHECK(tables.lfts.at(t.leaves[0]).at(pl.base) != 3);
        CHECK(tables.lfts.at(t.spines[0]).at(pl.base) != 1);
        CHECK(tables.lfts.at(t.leaves[1]).at(pl.base) != 4);
    }
    // leaf0 -> leaf1 now needs spine0 ... which leaf0 cannot use, and spine1,
    // which leaf1 cannot use: 4 hops via leaf2/leaf3.
    const auto d = switch_distances(t.fabric, t.leaves[0]);
    CHECK(d[t.leaves[1].value] == 4);
}

TEST_CASE("MinHop leaves unreachable LIDs at no_route")
{
    auto t = two_level(2, 1, 2);
    // Cut host 0 off: its only link is down.
    t.fabric.port(pr(t.hosts[0], 1)).state = topology::PortState::down;
    // A switch island with its own host.
    auto island = t.fabric.add_node(topology::NodeType::switch_node, Guid(0x9999), 4, "island");
    auto lonely = t.fabric.add_node(topology::NodeType::ca, Guid(0x9990), 1, "lonely");
    t.fabric.set_port_guid(pr(lonely, 1), Guid(0x9991));
    t.fabric.connect(pr(lonely, 1), pr(island, 1));
    make_healthy(t.fabric);
    t.fabric.port(pr(t.hosts[0], 1)).state = topology::PortState::down;

    auto lids = simple_lids(t.fabric);
    auto tables = route(t.fabric, lids);
    require_clean(check_routes(t.fabric, lids, tables));
    const Lid h0 = lids.lids_of(pr(t.hosts[0], 1))->base;
    const Lid isl = lids.lids_of(pr(island, 0))->base;
    const Lid lon = lids.lids_of(pr(lonely, 1))->base;
    for (auto sw : {t.leaves[0], t.leaves[1], t.spines[0]}) {
        CHECK(tables.lfts.at(sw).at(h0) == routing::no_route);
        CHECK(tables.lfts.at(sw).at(isl) == routing::no_route);
        CHECK(tables.lfts.at(sw).at(lon) == routing::no_route);
    }
    CHECK(tables.lfts.at(island).at(isl) == 0);
    CHECK(tables.lfts.at(island).at(lon) == 1);
    CHECK(tables.lfts.at(island).at(h0) == routing::no_route);
}

TEST_CASE("MinHop is deterministic, also when run on several threads")
{
    // 96 switches: enough for the engine to split the work over threads.
    auto t = two_level(64, 32, 4);
    auto lids = simple_lids(t.fabric, 1);
    auto a = route(t.fabric, lids);
    auto b = route(t.fabric, lids);
    REQUIRE(a.lfts.size() == 96);
    for (const auto& [id, lft] : a.lfts) CHECK(lft.port == b.lfts.at(id).port);
    require_clean(check_routes(t.fabric, lids, a));
}

namespace {

routing::RoutingTables opensm_tables(const Fabric& f, const std::string& file)
{
    const std::string path = std::string(IBSM_ROUTING_TEST_DATA) + "/" + file;
    std::ifstream in(path);
    REQUIRE(in);
    return routing::tables_from_dump(routing::parse_dump_fts(in, path), f, path);
}

} // namespace

TEST_CASE("MinHop matches OpenSM's minhop tables on ibsim's 2sw2path4hca")
{
    auto e = ibsim_2sw2path4hca();
    SECTION("LMC 0")
    {
        const auto lids = opensm_lids_lmc0(e);
        auto ours = route(e.f, lids);
        auto theirs = opensm_tables(e.f, "2sw2path4hca.dump_fts");
        for (auto sw : {e.sw1, e.sw2}) CHECK(ours.lfts.at(sw).port == theirs.lfts.at(sw).port);
    }
    SECTION("LMC 2: the 4 LIDs alternate over the two parallel links as in OpenSM")
    {
        const auto lids = opensm_lids_lmc2(e);
        auto ours = route(e.f, lids);
        auto theirs = opensm_tables(e.f, "2sw2path4hca_lmc2.dump_fts");
        for (auto sw : {e.sw1, e.sw2}) CHECK(ours.lfts.at(sw).port == theirs.lfts.at(sw).port);
    }
}
