// Per-pair path engines (routing/paths/): on generated fabrics (random,
// torus, fat-tree with parallel links, a 2-switch ring = two parallel
// cables) every path is checked against the fabric's cables and the engine's
// Up*/Down* orientation — one per (CA, CA) and (switch, CA) pair, connected,
// loop-free, no hop up after a hop down, ending at the destination — plus
// the candidate enumeration, determinism across thread counts, pathsel's
// load balance against the plain shortest candidate, and the switch paths
// costing no split where a CA path crosses the switch.
#include "routing/paths/path_engine.h"
#include "routing/paths/pathsel.h"
#include "routing/paths/shortest_widest.h"
#include "routing/paths/updn_paths.h"

#include "common/parallel_for.h"
#include "lidassign/path_configs.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace ibsm;
using namespace ibsm::routing;
using namespace ibsm::routing::paths;
using topology::Fabric;
using topology::NodeId;
using topology::PairPaths;
using topology::PortRef;

namespace {

UpdnGraph graph_of(const Fabric& f)
{
    auto g = build_updn_graph(f, Options{});
    if (auto* why = std::get_if<std::string>(&g))
        FAIL("refused: " << *why);
    return std::get<UpdnGraph>(std::move(g));
}

PairPaths run(const PathEngine& engine, const Fabric& f)
{
    auto r = engine.compute(f, Options{});
    if (auto* refusal = std::get_if<Refusal>(&r))
        FAIL(engine.name() << " refused: " << refusal->reason);
    return std::get<PairPaths>(std::move(r));
}

std::vector<PortRef> ca_ports(const Fabric& f)
{
    std::vector<PortRef> out;
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.is_switch())
            continue;
        for (std::size_t p = 1; p < n.ports.size(); ++p)
            if (n.ports[p].remote && f.node(n.ports[p].remote->node).is_switch())
                out.push_back(PortRef{id, PortNum(static_cast<std::uint8_t>(p))});
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The orientations an engine may have chosen (updn_paths.h: root_trials).
std::vector<UpdnGraph> orientations(const Fabric& f)
{
    std::vector<UpdnGraph> out;
    out.push_back(graph_of(f));
    for (const auto& o : root_trials(out.front(), f, Options{}, 8))
        out.push_back(std::get<UpdnGraph>(build_updn_graph(f, o)));
    return out;
}

// True when every path is up* down* in g's orientation.
bool legal_in(const UpdnGraph& g, const PairPaths& pp)
{
    for (const auto& d : pp.destinations)
        for (const auto& p : d.paths) {
            bool gone_down = false;
            for (std::size_t h = 0; h + 1 < p.hops.size(); ++h) {
                const bool up = g.order.place_of[p.hops[h + 1].sw.value] < g.order.place_of[p.hops[h].sw.value];
                if (up && gone_down)
                    return false;
                gone_down = gone_down || !up;
            }
        }
    return true;
}

// The contract of path_engine.h, checked against the cables themselves.
void check_contract(const Fabric& f, const PairPaths& pp)
{
    const auto candidates = orientations(f);
    // Up*/Down*: no hop up after a hop down, all paths in one orientation.
    REQUIRE(std::any_of(candidates.begin(), candidates.end(), [&](const UpdnGraph& g) { return legal_in(g, pp); }));
    const auto cas = ca_ports(f);
    std::vector<PortRef> switches;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch())
            switches.push_back(PortRef{id, PortNum(0)});

    REQUIRE(pp.destinations.size() == cas.size());
    for (std::size_t d = 0; d < cas.size(); ++d) {
        const auto& dest = pp.destinations[d];
        REQUIRE(dest.dst == cas[d]);
        std::vector<PortRef> expected;
        for (const auto& c : cas)
            if (c != dest.dst)
                expected.push_back(c);
        expected.insert(expected.end(), switches.begin(), switches.end());
        std::sort(expected.begin(), expected.end());
        std::vector<PortRef> got;
        for (const auto& p : dest.paths)
            got.push_back(p.src);
        REQUIRE(got == expected); // one per pair, sorted by source

        const auto dst_switch = f.remote(dest.dst)->node;
        for (const auto& p : dest.paths) {
            INFO("path to node " << dest.dst.node.value << " from node " << p.src.node.value);
            REQUIRE(!p.hops.empty());
            const auto first_switch = f.node(p.src.node).is_switch() ? p.src.node : f.remote(p.src)->node;
            REQUIRE(p.hops.front().sw == first_switch);
            REQUIRE(p.hops.back().sw == dst_switch);
            REQUIRE(f.remote(PortRef{p.hops.back().sw, p.hops.back().out}) == dest.dst);
            std::set<std::uint32_t> seen;
            for (std::size_t h = 0; h < p.hops.size(); ++h) {
                REQUIRE(seen.insert(p.hops[h].sw.value).second); // loop-free
                if (h + 1 == p.hops.size())
                    break;
                const auto far = f.remote(PortRef{p.hops[h].sw, p.hops[h].out});
                REQUIRE(far.has_value());
                REQUIRE(far->node == p.hops[h + 1].sw); // connected
            }
        }
    }
}

// Directed switch-to-switch channel loads of the CA-to-CA paths.
std::uint64_t max_ca_load(const Fabric& f, const PairPaths& pp)
{
    std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint64_t> load;
    for (const auto& d : pp.destinations)
        for (const auto& p : d.paths) {
            if (f.node(p.src.node).is_switch())
                continue;
            for (std::size_t h = 0; h + 1 < p.hops.size(); ++h)
                ++load[{p.hops[h].sw.value, p.hops[h].out.value()}];
        }
    std::uint64_t worst = 0;
    for (const auto& [k, v] : load)
        worst = std::max(worst, v);
    return worst;
}

Fabric small_random(std::uint64_t seed)
{
    topology::RandomParams r;
    r.switches = 12;
    r.hosts_per_switch = 2;
    r.ports_per_switch = 7;
    r.seed = seed;
    return topology::generate_random(r);
}

Fabric small_tree()
{
    // 2 levels, 4 leaves of 3 hosts, 2 spines, 2 parallel links leaf-spine.
    topology::PgftParams p;
    p.m = {3, 4};
    p.w = {1, 2};
    p.p = {1, 2};
    return topology::generate_pgft(p);
}

std::vector<std::pair<std::string, Fabric>> fabrics()
{
    std::vector<std::pair<std::string, Fabric>> out;
    out.emplace_back("random-12", small_random(3));
    out.emplace_back("random-12b", small_random(11));
    out.emplace_back("torus-4x3", topology::generate_torus({4, 3, 2, true}));
    out.emplace_back("pgft-parallel", small_tree());
    out.emplace_back("ring-2 (parallel cables)", topology::generate_ring({2, 3}));
    return out;
}

} // namespace

TEST_CASE("path engines honour the PairPaths contract on generated fabrics", "[paths]")
{
    for (const auto& [label, f] : fabrics()) {
        for (const auto& name : path_engine_names()) {
            INFO(label << " / " << name);
            const auto engine = make_path_engine(name);
            REQUIRE(engine);
            CHECK(engine->name() == name);
            check_contract(f, run(*engine, f));
        }
    }
    CHECK_FALSE(make_path_engine("minhop"));
}

TEST_CASE("legal_paths: shortest first, legal, loop-free, distinct, bounded", "[paths]")
{
    const auto f = small_random(5);
    const auto g = graph_of(f);
    for (std::uint32_t a = 0; a < g.size(); ++a)
        for (std::uint32_t b = 0; b < g.size(); ++b) {
            if (a == b)
                continue;
            const auto paths = legal_paths(g, a, b, 16, 2);
            const auto min_hops = g.legal_hops(a, b, false);
            REQUIRE(min_hops != no_legal_path);
            REQUIRE(!paths.empty());
            REQUIRE(paths.size() <= 16);
            CHECK(paths.front().size() == min_hops);
            std::set<std::vector<std::uint32_t>> distinct;
            for (std::size_t i = 0; i < paths.size(); ++i) {
                CHECK(legal_loop_free(g, paths[i], a, b));
                CHECK(paths[i].size() <= min_hops + 2u);
                if (i > 0)
                    CHECK(paths[i - 1].size() <= paths[i].size());
                distinct.insert(paths[i]);
            }
            CHECK(distinct.size() == paths.size());
        }
}

TEST_CASE("legal_paths finds parallel cables as distinct paths", "[paths]")
{
    const auto f = topology::generate_ring({2, 1}); // two switches, two cables between them
    const auto g = graph_of(f);
    const auto paths = legal_paths(g, 0, 1, 16, 2);
    REQUIRE(paths.size() == 2);
    CHECK(g.port[paths[0][0]] != g.port[paths[1][0]]);
}

TEST_CASE("legal_loop_free rejects a down->up turn and a revisit", "[paths]")
{
    const auto f = topology::generate_torus({3, 3, 1, true});
    const auto g = graph_of(f);
    // Find a down channel followed by an up channel.
    bool checked = false;
    for (std::uint32_t c = 0; c < g.channel_count() && !checked; ++c) {
        if (g.up[c])
            continue;
        const auto v = g.to[c];
        for (auto d = g.first[v]; d < g.first[v + 1]; ++d)
            if (g.up[d] && g.to[d] != g.from[c]) {
                const std::vector<std::uint32_t> turn{c, d};
                CHECK_FALSE(legal_loop_free(g, turn, g.from[c], g.to[d]));
                checked = true;
                break;
            }
    }
    CHECK(checked);
    const auto c = g.first[0];
    std::uint32_t back = 0;
    for (auto d = g.first[g.to[c]]; d < g.first[g.to[c] + 1]; ++d)
        if (g.to[d] == 0)
            back = d;
    const std::vector<std::uint32_t> loop{c, back};
    CHECK_FALSE(legal_loop_free(g, loop, 0, 0));
}

TEST_CASE("path engines: equal output whatever the thread count", "[paths]")
{
    const auto f = small_random(7);
    for (const auto& name : path_engine_names()) {
        INFO(name);
        const auto one = run(*make_path_engine(name, 1), f);
        const auto three = run(*make_path_engine(name, 3), f);
        REQUIRE(one.destinations.size() == three.destinations.size());
        for (std::size_t d = 0; d < one.destinations.size(); ++d) {
            REQUIRE(one.destinations[d].paths.size() == three.destinations[d].paths.size());
            for (std::size_t p = 0; p < one.destinations[d].paths.size(); ++p)
                CHECK(one.destinations[d].paths[p].hops == three.destinations[d].paths[p].hops);
        }
    }
}

TEST_CASE("path sources: each destination visited alone equals the engine's whole result", "[paths]")
{
    const auto f = small_random(5);
    for (const auto& name : path_engine_names()) {
        INFO(name);
        const auto engine = make_path_engine(name, 2);
        const auto whole = run(*engine, f);
        auto got = engine->source(f, Options{});
        REQUIRE(std::holds_alternative<topology::PairPathSource>(got));
        const auto& source = std::get<topology::PairPathSource>(got);
        CHECK(source.roots == whole.roots);
        REQUIRE(source.destinations.size() == whole.destinations.size());
        // Visited from three threads, last destination first: a visit must
        // not depend on the ones before it.
        const auto n = whole.destinations.size();
        std::vector<topology::DestinationPaths> seen(n);
        common::parallel_for(n, 3, [&](std::size_t k, unsigned) {
            source.visit(n - 1 - k, [&](const topology::DestinationPaths& d) { seen[n - 1 - k] = d; });
        });
        for (std::size_t d = 0; d < n; ++d) {
            CHECK(source.destinations[d] == whole.destinations[d].dst);
            CHECK(seen[d].dst == whole.destinations[d].dst);
            REQUIRE(seen[d].paths.size() == whole.destinations[d].paths.size());
            for (std::size_t p = 0; p < seen[d].paths.size(); ++p) {
                CHECK(seen[d].paths[p].src == whole.destinations[d].paths[p].src);
                CHECK(seen[d].paths[p].hops == whole.destinations[d].paths[p].hops);
            }
        }
    }
}

TEST_CASE("pathsel balances: max link load no worse than the first candidate everywhere", "[paths]")
{
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        INFO("seed " << seed);
        const auto f = small_random(seed);
        const auto chosen = run(PathselEngine(), f);
        PathselParams one;
        one.k = 1; // every pair on its first (shortest) candidate
        const auto first = run(PathselEngine(one), f);
        check_contract(f, first);
        CHECK(max_ca_load(f, chosen) < max_ca_load(f, first));
    }
}

TEST_CASE("switch paths follow a CA path where one crosses the switch", "[paths]")
{
    const auto f = small_random(9);
    for (const auto& name : path_engine_names()) {
        INFO(name);
        const auto pp = run(*make_path_engine(name), f);
        for (const auto& d : pp.destinations) {
            for (const auto& sp : d.paths) {
                if (!f.node(sp.src.node).is_switch())
                    continue;
                bool crossed = false, joins = false;
                for (const auto& cp : d.paths) {
                    if (f.node(cp.src.node).is_switch())
                        continue;
                    const bool crosses = std::any_of(cp.hops.begin(), cp.hops.end(),
                                                     [&](const auto& h) { return h.sw == sp.src.node; });
                    crossed = crossed || crosses;
                    joins = joins || (crosses && !lidassign::paths_split(sp, cp));
                }
                if (crossed)
                    CHECK(joins);
            }
        }
    }
}

TEST_CASE("pathsel per source switch: sources on one switch share the path to a destination", "[paths]")
{
    const auto f = small_random(4);
    PathselParams shared; // the default
    REQUIRE(shared.per_source_switch);
    PathselParams per_pair;
    per_pair.per_source_switch = false;
    const auto a = run(PathselEngine(shared), f);
    const auto b = run(PathselEngine(per_pair), f);
    check_contract(f, b);
    std::size_t differing = 0;
    for (std::size_t d = 0; d < a.destinations.size(); ++d) {
        std::map<std::uint32_t, std::vector<topology::PathHop>> by_switch_a, by_switch_b;
        for (const auto& p : a.destinations[d].paths) {
            if (f.node(p.src.node).is_switch())
                continue;
            const auto sw = f.remote(p.src)->node.value;
            auto [it, fresh] = by_switch_a.try_emplace(sw, p.hops);
            if (!fresh)
                CHECK(it->second == p.hops);
        }
        for (const auto& p : b.destinations[d].paths) {
            if (f.node(p.src.node).is_switch())
                continue;
            auto [it, fresh] = by_switch_b.try_emplace(f.remote(p.src)->node.value, p.hops);
            if (!fresh && it->second != p.hops)
                ++differing;
        }
    }
    // Per CA pair, some sources of one switch do take different paths (the
    // sharing above is a choice, not an accident of the fabric).
    CHECK(differing > 0);
}

TEST_CASE("the Up*/Down* check rejects a down->up turn; root trials keep the lowest max load", "[paths]")
{
    const auto f = small_random(3);
    const auto pp = run(PathselEngine(), f);
    const auto all = orientations(f);
    REQUIRE(all.size() == 9); // the central orientation and 8 trial roots
    // Reversing every path's hop order is not possible in general, so break
    // one path: splice a legal down hop followed by an up hop into a copy.
    const auto& g = all.front();
    PairPaths broken = pp;
    bool spliced = false;
    for (std::uint32_t c = 0; c < g.channel_count() && !spliced; ++c) {
        if (g.up[c])
            continue;
        for (auto d = g.first[g.to[c]]; d < g.first[g.to[c] + 1]; ++d)
            if (g.up[d] && g.to[d] != g.from[c]) {
                topology::PairPath p;
                p.src = PortRef{g.node(g.from[c]), PortNum(0)};
                p.hops = {{g.node(g.from[c]), PortNum(g.port[c])}, {g.node(g.to[c]), PortNum(g.port[d])},
                          {g.node(g.to[d]), PortNum(1)}};
                broken.destinations.front().paths.push_back(p);
                spliced = true;
                break;
            }
    }
    REQUIRE(spliced);
    CHECK_FALSE(legal_in(g, broken));
    CHECK(std::any_of(all.begin(), all.end(), [&](const UpdnGraph& x) { return legal_in(x, pp); }));

    // More trials never give a higher maximum load than the central root alone.
    PathselParams central;
    central.root_trials = 1;
    CHECK(max_ca_load(f, pp) <= max_ca_load(f, run(PathselEngine(central), f)));
    CHECK(max_ca_load(f, run(ShortestWidestEngine(1, 8), f)) <= max_ca_load(f, run(ShortestWidestEngine(1, 1), f)));
}
