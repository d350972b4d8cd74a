// Realising per-pair paths in LFTs (routing/path_tables.h) and reading paths
// off destination-based tables (routing/paths/paths_from_tables.h). The
// judge is an independent LFT walk: for each LID, following the tables from
// every source of the LID's configuration must cross exactly the chosen
// path, and every LID must be delivered from every switch.
#include "lidassign/path_lids.h"
#include "routing/minhop.h"
#include "routing/path_tables.h"
#include "routing/paths/path_engine.h"
#include "routing/paths/paths_from_tables.h"
#include "routing/updn.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace ibsm;
using namespace ibsm::routing;
using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PathHop;
using topology::PortRef;

namespace {

PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }
PathHop hop(NodeId s, unsigned p) { return PathHop{s, PortNum(static_cast<std::uint8_t>(p))}; }

void make_healthy(Fabric& f)
{
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
}

// The hops a packet to `dlid` takes from switch `sw` until it leaves to a
// CA port (*arrived), is dropped or loops (nullopt).
std::optional<std::vector<PathHop>> walk(const Fabric& f, const RoutingTables& t, NodeId sw, Lid dlid, PortRef* arrived)
{
    std::vector<PathHop> hops;
    for (std::size_t n = 0; n <= f.switch_count(); ++n) {
        const std::uint8_t p = t.lfts.at(sw).at(dlid);
        if (p == no_route || p == 0 || p > f.node(sw).num_ports()) return std::nullopt;
        hops.push_back(hop(sw, p));
        auto r = f.remote(pr(sw, p));
        if (!r) return std::nullopt;
        if (!f.node(r->node).is_switch()) {
            *arrived = *r;
            return hops;
        }
        sw = r->node;
    }
    return std::nullopt;
}

NodeId first_switch(const Fabric& f, PortRef src) { return f.node(src.node).is_switch() ? src.node : f.remote(src)->node; }

// Every path follows its configuration's LID exactly, the pair map names
// that LID, and every LID of every CA is delivered from every switch.
void check_realised(const Fabric& f, const lidassign::LidMap& lids, const topology::PairPaths& paths,
                    const std::vector<lidassign::DestinationConfigs>& configs, const PathRealisation& r)
{
    REQUIRE(r.tables.pair_dlids);
    const PairDlids& dl = *r.tables.pair_dlids;
    for (std::size_t d = 0; d < paths.destinations.size(); ++d) {
        const auto& dest = paths.destinations[d];
        const auto block = *lids.lids_of(dest.dst);
        for (std::size_t i = 0; i < dest.paths.size(); ++i) {
            const auto& path = dest.paths[i];
            const Lid lid(static_cast<std::uint16_t>(block.base.value() + configs[d].of_path[i]));
            // Every LID of the block that carries this configuration.
            for (std::uint32_t o = configs[d].of_path[i]; o < block.count(); o += configs[d].count) {
                PortRef arrived{};
                auto got = walk(f, r.tables, first_switch(f, path.src),
                                Lid(static_cast<std::uint16_t>(block.base.value() + o)), &arrived);
                REQUIRE(got);
                CHECK(*got == path.hops);
                CHECK(arrived == dest.dst);
            }
            CHECK(dl.dlid(*dl.source_index(path.src), *dl.destination_index(dest.dst)) == lid);
        }
    }
    for (const auto& [port, pl] : lids.entries()) {
        if (f.node(port.node).is_switch()) continue;
        for (std::uint32_t o = 0; o < pl.count(); ++o)
            for (auto id : f.node_ids()) {
                if (!f.node(id).is_switch()) continue;
                PortRef arrived{};
                auto got = walk(f, r.tables, id, Lid(static_cast<std::uint16_t>(pl.base.value() + o)), &arrived);
                REQUIRE(got);
                CHECK(arrived == port);
            }
    }
}

// Seed 002 Figure 6: paths p1..p4 to m0; greedy needs 3 LIDs, the optimum 2.
struct Figure6 {
    Fabric f;
    std::vector<NodeId> s, m;
    topology::PairPaths paths;
};

Figure6 figure6()
{
    Figure6 x;
    for (int i = 0; i < 6; ++i)
        x.s.push_back(x.f.add_node(NodeType::switch_node, Guid(0x10 + i), 4, "s" + std::to_string(i)));
    for (int i = 0; i < 5; ++i) {
        x.m.push_back(x.f.add_node(NodeType::ca, Guid(0x20 + i), 1, "m" + std::to_string(i)));
        x.f.set_port_guid(pr(x.m.back(), 1), Guid(0x30 + i));
    }
    auto& f = x.f;
    auto& s = x.s;
    f.connect(pr(s[0], 1), pr(x.m[0], 1));
    f.connect(pr(s[0], 2), pr(s[1], 1));
    f.connect(pr(s[0], 3), pr(s[2], 1));
    f.connect(pr(s[1], 2), pr(s[4], 1));
    f.connect(pr(s[1], 3), pr(s[3], 2));
    f.connect(pr(s[2], 2), pr(s[3], 1));
    f.connect(pr(s[2], 3), pr(s[5], 1));
    f.connect(pr(s[3], 3), pr(s[4], 2));
    f.connect(pr(s[3], 4), pr(s[5], 2));
    f.connect(pr(s[4], 3), pr(x.m[1], 1));
    f.connect(pr(s[4], 4), pr(x.m[2], 1));
    f.connect(pr(s[5], 3), pr(x.m[3], 1));
    f.connect(pr(s[5], 4), pr(x.m[4], 1));
    make_healthy(f);
    topology::DestinationPaths d;
    d.dst = pr(x.m[0], 1);
    d.paths = {
        {pr(x.m[1], 1), {hop(s[4], 1), hop(s[1], 1), hop(s[0], 1)}},               // p1
        {pr(x.m[2], 1), {hop(s[4], 2), hop(s[3], 1), hop(s[2], 1), hop(s[0], 1)}}, // p2
        {pr(x.m[3], 1), {hop(s[5], 2), hop(s[3], 2), hop(s[1], 1), hop(s[0], 1)}}, // p4
        {pr(x.m[4], 1), {hop(s[5], 1), hop(s[2], 1), hop(s[0], 1)}},               // p3
    };
    x.paths.engine = "test";
    x.paths.destinations.push_back(d);
    return x;
}

lidassign::LidMap lmc0(const Fabric& f) { return lidassign::assign_base_lids(f, {}, {}).lids; }

RoutingTables minhop(const Fabric& f, const lidassign::LidMap& lids)
{
    auto r = MinHopEngine().compute(f, lids, {});
    REQUIRE(std::holds_alternative<RoutingTables>(r));
    return std::get<RoutingTables>(r);
}

lidassign::LidMap colour_first(const Fabric& f, const topology::PairPaths& paths,
                               const std::vector<lidassign::DestinationConfigs>& configs)
{
    std::vector<lidassign::DestinationNeed> needs;
    for (std::size_t d = 0; d < paths.destinations.size(); ++d) needs.push_back({paths.destinations[d].dst, configs[d].count});
    auto r = lidassign::assign_path_lids(f, {}, needs, {});
    REQUIRE(std::holds_alternative<lidassign::PathLids>(r));
    return std::get<lidassign::PathLids>(r).lids;
}

// A first-fit partition, independent of lidassign/path_configs: path i goes
// to the first configuration with no other output port at its switches.
lidassign::DestinationConfigs first_fit(const topology::DestinationPaths& d)
{
    lidassign::DestinationConfigs out;
    std::vector<std::map<NodeId, PortNum>> used;
    for (const auto& p : d.paths) {
        std::size_t c = 0;
        for (; c < used.size(); ++c) {
            bool ok = true;
            for (const auto& h : p.hops)
                if (auto it = used[c].find(h.sw); it != used[c].end() && it->second != h.out) ok = false;
            if (ok) break;
        }
        if (c == used.size()) used.emplace_back();
        for (const auto& h : p.hops) used[c][h.sw] = h.out;
        out.of_path.push_back(static_cast<std::uint16_t>(c));
    }
    out.count = static_cast<std::uint16_t>(used.size());
    return out;
}

} // namespace

TEST_CASE("Figure 6: two configurations realised by two LIDs, each path on its own LID's LFT walk")
{
    auto x = figure6();
    // C1' = {p1, p4}, C2' = {p2, p3} (paths sorted by source: m1, m2, m3, m4).
    std::vector<lidassign::DestinationConfigs> configs{{{0, 1, 0, 1}, 2}};
    const auto base_lids = lmc0(x.f);
    const auto base = minhop(x.f, base_lids);
    const auto lids = colour_first(x.f, x.paths, configs);
    CHECK(lids.lids_of(pr(x.m[0], 1))->count() == 2);
    auto r = realise_paths(x.f, lids, x.paths, configs, base, base_lids);
    REQUIRE(std::holds_alternative<PathRealisation>(r));
    check_realised(x.f, lids, x.paths, configs, std::get<PathRealisation>(r));
    // The switch LIDs are routed as in the destination-based tables.
    const auto& t = std::get<PathRealisation>(r).tables;
    for (auto sw : x.s)
        for (auto other : x.s)
            CHECK(t.lfts.at(sw).at(lids.lids_of(pr(other, 0))->base) ==
                  base.lfts.at(sw).at(base_lids.lids_of(pr(other, 0))->base));
}

TEST_CASE("LMC rounding realised: five configurations get 8 LIDs, LIDs 5..7 repeat configurations 0..2")
{
    auto x = figure6();
    // Add the switch-originated paths of s4 and s5 and give every path its own configuration.
    auto& d = x.paths.destinations[0];
    d.paths.push_back({pr(x.s[4], 0), {hop(x.s[4], 1), hop(x.s[1], 1), hop(x.s[0], 1)}});
    std::sort(d.paths.begin(), d.paths.end(), [](const auto& a, const auto& b) { return a.src < b.src; });
    std::vector<lidassign::DestinationConfigs> configs{{{0, 1, 2, 3, 4}, 5}};
    const auto base_lids = lmc0(x.f);
    const auto lids = colour_first(x.f, x.paths, configs);
    const auto block = *lids.lids_of(d.dst);
    CHECK(block.count() == 8);
    CHECK(block.base.value() % 8 == 0);
    auto r = realise_paths(x.f, lids, x.paths, configs, minhop(x.f, base_lids), base_lids);
    REQUIRE(std::holds_alternative<PathRealisation>(r));
    check_realised(x.f, lids, x.paths, configs, std::get<PathRealisation>(r));
    const auto& dl = std::get<PathRealisation>(r).dlids;
    CHECK(dl.dlid(*dl.source_index(pr(x.s[4], 0)), 0) == Lid(static_cast<std::uint16_t>(block.base.value() + 0)));
}

TEST_CASE("realisation refuses a configuration that splits, a path off the fabric and too few LIDs")
{
    auto x = figure6();
    const auto base_lids = lmc0(x.f);
    const auto base = minhop(x.f, base_lids);
    SECTION("p1 and p2 split at s4")
    {
        std::vector<lidassign::DestinationConfigs> configs{{{0, 0, 1, 1}, 2}};
        const auto lids = colour_first(x.f, x.paths, configs);
        auto r = realise_paths(x.f, lids, x.paths, configs, base, base_lids);
        REQUIRE(std::holds_alternative<Refusal>(r));
        CHECK_THAT(std::get<Refusal>(r).reason, Catch::Contains("splits at switch 0x0000000000000014"));
    }
    SECTION("a hop whose port does not lead to the next hop's switch")
    {
        x.paths.destinations[0].paths[0].hops[1].out = PortNum(3); // s1 port 3 goes to s3, not s0
        std::vector<lidassign::DestinationConfigs> configs{{{0, 1, 0, 1}, 2}};
        const auto lids = colour_first(x.f, x.paths, configs);
        auto r = realise_paths(x.f, lids, x.paths, configs, base, base_lids);
        REQUIRE(std::holds_alternative<Refusal>(r));
        CHECK_THAT(std::get<Refusal>(r).reason, Catch::Contains("'m1'") && Catch::Contains("hop 1 does not lead"));
    }
    SECTION("two configurations on a port with one LID (fixed LMC 0)")
    {
        std::vector<lidassign::DestinationConfigs> configs{{{0, 1, 0, 1}, 2}};
        auto r = realise_paths(x.f, base_lids, x.paths, configs, base, base_lids);
        REQUIRE(std::holds_alternative<Refusal>(r));
        CHECK_THAT(std::get<Refusal>(r).reason, Catch::Contains("2 configurations but 1 LIDs"));
    }
}

TEST_CASE("random fabric: MinHop's LFT walks as paths need one LID per destination and reproduce the routes")
{
    topology::RandomParams p;
    p.switches = 12;
    p.hosts_per_switch = 3;
    p.ports_per_switch = 8;
    p.seed = 7;
    auto f = topology::generate_random(p);
    make_healthy(f);
    const auto lids = lmc0(f);
    const auto base = minhop(f, lids);
    auto got = paths::paths_from_tables(f, lids, base);
    REQUIRE(std::holds_alternative<topology::PairPaths>(got));
    const auto& pp = std::get<topology::PairPaths>(got);
    CHECK(pp.destinations.size() == f.ca_count());
    // Every CA and every switch is a source of every other CA.
    for (const auto& d : pp.destinations) CHECK(d.paths.size() == f.ca_count() - 1 + f.switch_count());
    std::vector<lidassign::DestinationConfigs> configs;
    for (const auto& d : pp.destinations) {
        configs.push_back(first_fit(d));
        CHECK(configs.back().count == 1); // a destination-based tree never splits
    }
    auto r = realise_paths(f, lids, pp, configs, base, lids);
    REQUIRE(std::holds_alternative<PathRealisation>(r));
    check_realised(f, lids, pp, configs, std::get<PathRealisation>(r));
    for (const auto& [sw, lft] : base.lfts) CHECK(std::get<PathRealisation>(r).tables.lfts.at(sw).port == lft.port);
}

TEST_CASE("random fabric: paths mixed from Up*/Down* and MinHop split, and every configuration is realisable")
{
    topology::RandomParams p;
    p.switches = 16;
    p.hosts_per_switch = 4;
    p.ports_per_switch = 10;
    p.seed = 11;
    auto f = topology::generate_random(p);
    make_healthy(f);
    const auto base_lids = lmc0(f);
    const auto mh = minhop(f, base_lids);
    auto ud = UpdnEngine().compute(f, base_lids, {});
    REQUIRE(std::holds_alternative<RoutingTables>(ud));
    auto a = paths::paths_from_tables(f, base_lids, mh);
    auto b = paths::paths_from_tables(f, base_lids, std::get<RoutingTables>(ud));
    REQUIRE(std::holds_alternative<topology::PairPaths>(a));
    REQUIRE(std::holds_alternative<topology::PairPaths>(b));
    auto mixed = std::get<topology::PairPaths>(a);
    const auto& other = std::get<topology::PairPaths>(b);
    for (std::size_t d = 0; d < mixed.destinations.size(); ++d)
        for (std::size_t i = 1; i < mixed.destinations[d].paths.size(); i += 2)
            mixed.destinations[d].paths[i] = other.destinations[d].paths[i];
    std::vector<lidassign::DestinationConfigs> configs;
    std::uint32_t most = 0;
    for (const auto& d : mixed.destinations) {
        configs.push_back(first_fit(d));
        most = std::max<std::uint32_t>(most, configs.back().count);
    }
    CHECK(most > 1);
    const auto lids = colour_first(f, mixed, configs);
    auto r = realise_paths(f, lids, mixed, configs, std::get<RoutingTables>(ud), base_lids);
    REQUIRE(std::holds_alternative<PathRealisation>(r));
    check_realised(f, lids, mixed, configs, std::get<PathRealisation>(r));
}

TEST_CASE("realising from a path source on several threads gives the tables of the whole paths on one")
{
    topology::RandomParams p;
    p.switches = 16;
    p.hosts_per_switch = 4;
    p.ports_per_switch = 10;
    p.seed = 13;
    auto f = topology::generate_random(p);
    make_healthy(f);
    const auto base_lids = lmc0(f);
    const auto mh = minhop(f, base_lids);
    auto ud = UpdnEngine().compute(f, base_lids, {});
    REQUIRE(std::holds_alternative<RoutingTables>(ud));
    auto a = paths::paths_from_tables(f, base_lids, mh);
    auto b = paths::paths_from_tables(f, base_lids, std::get<RoutingTables>(ud));
    REQUIRE(std::holds_alternative<topology::PairPaths>(a));
    REQUIRE(std::holds_alternative<topology::PairPaths>(b));
    // Paths that split, so destinations need several LIDs (configurations).
    auto mixed = std::get<topology::PairPaths>(a);
    const auto& other = std::get<topology::PairPaths>(b);
    for (std::size_t d = 0; d < mixed.destinations.size(); ++d)
        for (std::size_t i = 1; i < mixed.destinations[d].paths.size(); i += 2)
            mixed.destinations[d].paths[i] = other.destinations[d].paths[i];
    std::vector<lidassign::DestinationConfigs> configs;
    for (const auto& d : mixed.destinations) configs.push_back(first_fit(d));
    const auto lids = colour_first(f, mixed, configs);
    const auto& base = std::get<RoutingTables>(ud);
    auto whole = realise_paths(f, lids, mixed, configs, base, base_lids);
    REQUIRE(std::holds_alternative<PathRealisation>(whole));
    const auto& want = std::get<PathRealisation>(whole);

    const auto source = paths::held_source(mixed);
    std::vector<PortRef> sources;
    for (const auto& d : mixed.destinations)
        for (const auto& path : d.paths) sources.push_back(path.src);
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (unsigned threads : {1u, 3u}) {
        INFO(threads << " threads");
        auto got = realise_paths(f, lids, source, sources, configs, base, base_lids, threads);
        REQUIRE(std::holds_alternative<PathRealisation>(got));
        const auto& r = std::get<PathRealisation>(got);
        REQUIRE(r.tables.lfts.size() == want.tables.lfts.size());
        for (const auto& [sw, lft] : want.tables.lfts) CHECK(r.tables.lfts.at(sw).port == lft.port);
        CHECK(r.dlids.sources == want.dlids.sources);
        CHECK(r.dlids.offset == want.dlids.offset);
    }

    // A configuration that splits is refused on many threads as on one.
    auto broken = configs;
    for (auto& c : broken) std::fill(c.of_path.begin(), c.of_path.end(), 0);
    auto one = realise_paths(f, lids, source, sources, broken, base, base_lids, 1);
    auto three = realise_paths(f, lids, source, sources, broken, base, base_lids, 3);
    REQUIRE(std::holds_alternative<Refusal>(one));
    REQUIRE(std::holds_alternative<Refusal>(three));
    CHECK(std::get<Refusal>(one).reason == std::get<Refusal>(three).reason);
}
