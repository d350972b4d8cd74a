// ftree (D-Mod-K, seed 003) and fat-tree recognition.
#include "routing/fattree/ca_order.h"
#include "routing/fattree/dmodk.h"
#include "routing/fattree/ranking.h"
#include "routing/fattree/sftree.h"
#include "routing/verify.h"
#include "test_ftree_support.h"
#include "topology/gen_chain.h"
#include "topology/gen_degrade.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;
using namespace ibsm::ftest;
using routing::fattree::FtreeEngine;

namespace {

routing::RoutingTables route_ftree(const Fabric& f, const lidassign::LidMap& lids, routing::Options o = {})
{
    auto r = FtreeEngine().compute(f, lids, o);
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL("ftree refused: " << refusal->reason);
    return std::get<routing::RoutingTables>(r);
}

std::string refusal_of(const Fabric& f, const routing::Options& o = {})
{
    auto lids = lidassign::assign_base_lids(f, {}, {}).lids;
    auto r = FtreeEngine().compute(f, lids, o);
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) return refusal->reason;
    return {};
}

struct Kind {
    const char* name;
    Pgft g;
};

// 2-4 levels, p = 1 and 2; the RLFTs satisfy seed 003 eq. (1).
std::vector<Kind> kinds()
{
    return {
        {"PGFT(2;4,8;1,4;1,1) RLFT", pgft({4, 8}, {1, 4}, {1, 1})},
        {"PGFT(2;4,4;1,2;1,2) RLFT p=2", pgft({4, 4}, {1, 2}, {1, 2})},
        {"PGFT(3;4,4,8;1,4,4;1,1,1) RLFT", pgft({4, 4, 8}, {1, 4, 4}, {1, 1, 1})},
        {"PGFT(3;4,2,4;1,2,2;1,2,2) RLFT p=2", pgft({4, 2, 4}, {1, 2, 2}, {1, 2, 2})},
        {"PGFT(3;4,2,8;1,2,4;1,2,1) RLFT", pgft({4, 2, 8}, {1, 2, 4}, {1, 2, 1})},
        {"PGFT(4;2,2,2,4;1,2,2,2;1,1,1,1) RLFT", pgft({2, 2, 2, 4}, {1, 2, 2, 2}, {1, 1, 1, 1})},
        {"PGFT(3;3,3,3;1,2,3;1,1,1) oversubscribed", pgft({3, 3, 3}, {1, 2, 3}, {1, 1, 1})},
    };
}

// Variant 0: as generated; 1: scrambled; 2: scrambled, some hosts missing;
// 3: scrambled and degraded (CA<->switch pairs are promised there too:
// dmodk.h, "CA<->switch"; not yet on degraded multi-core trees, where
// Algorithm 2 can fail for some pairs: `multicore` relaxes that, and the
// verification gate refuses such tables).
void check_ftree_properties(Built b, int variant, std::uint8_t lmc, bool multicore = false)
{
    if (variant == 3) degrade(b, 3, 5 + lmc);
    auto lids = lids_for(b.fabric, lmc);
    auto t = route_ftree(b.fabric, lids);
    auto r = check_reach(b.fabric, lids, t);
    CHECK(r.ca_ca == 0);
    if (!(multicore && variant == 3)) {
        CHECK(r.ca_sw == 0);
        CHECK(r.sw_ca == 0);
    }
    CHECK_FALSE(has_credit_loop(b.fabric, lids, t, false));
    CHECK_FALSE(has_credit_loop(b.fabric, lids, t, true));
}

BuildOptions variant_options(int variant, std::uint32_t seed)
{
    BuildOptions o;
    o.scramble = variant >= 1;
    o.seed = seed;
    if (variant == 2) o.host_fill = 0.7;
    return o;
}

bool is_rlft(const Pgft& g)
{
    const unsigned K = g.m[1] * g.p[1];
    for (unsigned l = 1; l < g.h; ++l)
        if (g.m[l] * g.p[l] != K || g.w[l + 1] * g.p[l + 1] != K) return false;
    return g.m[g.h] * g.p[g.h] == 2 * K;
}

} // namespace

TEST_CASE("ranking: levels of a PGFT, directions of its links", "[ftree][ranking]")
{
    auto b = build_pgft(pgft({4, 4, 8}, {1, 4, 4}, {1, 1, 1}), {.scramble = true, .seed = 7});
    auto r = routing::fattree::rank_fat_tree(b.fabric, {});
    REQUIRE(std::holds_alternative<routing::fattree::FatTree>(r));
    const auto& t = std::get<routing::fattree::FatTree>(r);
    CHECK(t.height == 3);
    for (unsigned l = 1; l <= 3; ++l)
        for (auto id : b.level[l]) {
            auto s = t.index_of_node[id.value];
            CHECK(t.level[s] == l);
            CHECK(t.up[s].size() == (l < 3 ? 4u : 0u));
            CHECK(t.down[s].size() == (l > 1 ? (l == 3 ? 8u : 4u) : 0u));
            CHECK(t.sibling[s].empty());
        }
    CHECK(t.leaves.size() == b.level[1].size());
}

TEST_CASE("ranking: configured roots, a middle switch without down links, an empty leaf", "[ftree][ranking]")
{
    auto g = pgft({2, 2, 2}, {1, 2, 2}, {1, 1, 1});
    {
        auto b = build_pgft(g);
        std::vector<Guid> roots;
        for (auto id : b.level[3]) roots.push_back(b.fabric.node(id).guid);
        auto r = routing::fattree::rank_fat_tree(b.fabric, roots);
        REQUIRE(std::holds_alternative<routing::fattree::FatTree>(r));
        CHECK(std::get<routing::fattree::FatTree>(r).height == 3);
        // Roots that make CAs sit at different ranks are refused, naming them.
        auto bad = routing::fattree::rank_fat_tree(b.fabric, {b.fabric.node(b.level[1][0]).guid});
        REQUIRE(std::holds_alternative<std::string>(bad));
        CHECK_THAT(std::get<std::string>(bad), Catch::Contains("configured roots"));
        auto unknown = routing::fattree::rank_fat_tree(b.fabric, {Guid(0xdead)});
        CHECK_THAT(std::get<std::string>(unknown), Catch::Contains("0x000000000000dead"));
    }
    {
        // A level-2 switch loses both leaves: it is not the root.
        auto b = build_pgft(g);
        auto mid = b.level[2][0];
        for (auto& p : b.fabric.node(mid).ports)
            if (p.remote && b.fabric.node(p.remote->node).is_switch()) {
                auto peer = p.remote->node;
                if (std::find(b.level[1].begin(), b.level[1].end(), peer) != b.level[1].end())
                    b.fabric.disconnect(PortRef{mid, p.num});
            }
        make_healthy(b.fabric);
        auto r = routing::fattree::rank_fat_tree(b.fabric, {});
        REQUIRE(std::holds_alternative<routing::fattree::FatTree>(r));
        const auto& t = std::get<routing::fattree::FatTree>(r);
        CHECK(t.height == 3);
        CHECK(t.level[t.index_of_node[b.level[3][0].value]] == 3);
    }
}

TEST_CASE("ranking refuses what is not a fat-tree, with a reason", "[ftree][ranking]")
{
    SECTION("ring of switches, each with CAs")
    {
        Fabric f;
        std::vector<NodeId> sw;
        for (unsigned i = 0; i < 6; ++i) sw.push_back(f.add_node(NodeType::switch_node, Guid(0x100 + i), 4, "r"));
        for (unsigned i = 0; i < 6; ++i) f.connect(pr(sw[i], 1), pr(sw[(i + 1) % 6], 2));
        for (unsigned i = 0; i < 6; ++i) {
            auto h = f.add_node(NodeType::ca, Guid(0x900 + i), 1, "h");
            f.set_port_guid(pr(h, 1), Guid(0x1900 + i));
            f.connect(pr(h, 1), pr(sw[i], 3));
        }
        make_healthy(f);
        CHECK_THAT(refusal_of(f), Catch::Contains("not a fat-tree") && Catch::Contains("torus"));
    }
    SECTION("torus 3x3 with CAs on some switches only")
    {
        Fabric f;
        std::vector<NodeId> sw;
        for (unsigned i = 0; i < 9; ++i) sw.push_back(f.add_node(NodeType::switch_node, Guid(0x100 + i), 6, "t"));
        for (unsigned y = 0; y < 3; ++y)
            for (unsigned x = 0; x < 3; ++x) {
                f.connect(pr(sw[y * 3 + x], 1), pr(sw[y * 3 + (x + 1) % 3], 2));
                f.connect(pr(sw[y * 3 + x], 3), pr(sw[((y + 1) % 3) * 3 + x], 4));
            }
        for (unsigned i : {0u, 4u}) {
            auto h = f.add_node(NodeType::ca, Guid(0x900 + i), 1, "h");
            f.set_port_guid(pr(h, 1), Guid(0x1900 + i));
            f.connect(pr(h, 1), pr(sw[i], 5));
        }
        make_healthy(f);
        CHECK_THAT(refusal_of(f), Catch::Contains("not a fat-tree"));
    }
    SECTION("CA-to-CA link")
    {
        auto b = build_pgft(pgft({2, 2}, {1, 2}, {1, 1}));
        auto a = b.fabric.add_node(NodeType::ca, Guid(0xa1), 1, "x");
        auto c = b.fabric.add_node(NodeType::ca, Guid(0xa2), 1, "y");
        b.fabric.connect(pr(a, 1), pr(c, 1));
        make_healthy(b.fabric);
        CHECK_THAT(refusal_of(b.fabric), Catch::Contains("CA-to-CA"));
    }
    SECTION("CAs at different ranks (ranked from the configured root)")
    {
        // Leaves L0..L3 under M0 (L0, L1) and M1 (L2, L3), M0 and M1 under
        // T, and a CA on T.
        Fabric f;
        auto sw = [&](unsigned g, unsigned ports) { return f.add_node(NodeType::switch_node, Guid(g), ports, "s"); };
        auto T = sw(0x10, 3), M0 = sw(0x20, 3), M1 = sw(0x21, 3);
        f.connect(pr(T, 1), pr(M0, 3));
        f.connect(pr(T, 2), pr(M1, 3));
        std::vector<NodeId> leaves;
        for (unsigned i = 0; i < 4; ++i) {
            auto L = sw(0x30 + i, 2);
            f.connect(pr(L, 2), pr(i < 2 ? M0 : M1, 1 + i % 2));
            auto h = f.add_node(NodeType::ca, Guid(0x40 + i), 1, "h");
            f.connect(pr(h, 1), pr(L, 1));
        }
        auto h = f.add_node(NodeType::ca, Guid(0x50), 1, "on-top");
        f.connect(pr(h, 1), pr(T, 3));
        make_healthy(f);
        routing::Options o;
        o.root_guids = {Guid(0x10)};
        CHECK_THAT(refusal_of(f, o), Catch::Contains("CAs at different ranks"));
    }
    SECTION("chain of trees: spines of three trees joined in a line")
    {
        Fabric f;
        std::uint64_t g = 0x100;
        std::vector<std::vector<NodeId>> spines(3);
        for (unsigned tree = 0; tree < 3; ++tree) {
            for (unsigned s = 0; s < 2; ++s)
                spines[tree].push_back(f.add_node(NodeType::switch_node, Guid(++g), 4, "spine"));
            for (unsigned l = 0; l < 2; ++l) {
                auto L = f.add_node(NodeType::switch_node, Guid(++g), 3, "leaf");
                f.connect(pr(L, 2), pr(spines[tree][0], 1 + l));
                f.connect(pr(L, 3), pr(spines[tree][1], 1 + l));
                auto h = f.add_node(NodeType::ca, Guid(++g), 1, "h");
                f.connect(pr(h, 1), pr(L, 1));
            }
        }
        f.connect(pr(spines[0][0], 3), pr(spines[1][0], 3));
        f.connect(pr(spines[1][1], 4), pr(spines[2][0], 4));
        make_healthy(f);
        CHECK_THAT(refusal_of(f), Catch::Contains("not a fat-tree") && Catch::Contains("same rank"));
    }
}

TEST_CASE("ftree on generated fabrics: reachability, no loops, no credit loops", "[ftree][property]")
{
    for (const auto& kind : kinds())
        for (int variant = 0; variant < 4; ++variant)
            for (std::uint8_t lmc : {std::uint8_t(0), std::uint8_t(1)}) {
                INFO(kind.name << " variant " << variant << " lmc " << int(lmc));
                check_ftree_properties(build_pgft(kind.g, variant_options(variant, 11 + variant)), variant, lmc);
            }
    for (const auto& [name, params] : multicore_kinds()) {
        const auto generated = topology::generate_multicore(params);
        for (int variant = 0; variant < 4; ++variant)
            for (std::uint8_t lmc : {std::uint8_t(0), std::uint8_t(1)}) {
                INFO(name << " variant " << variant << " lmc " << int(lmc));
                auto b = rebuild(generated, variant_options(variant, 11 + variant));
                // The rebuild found the levels: hosts, NEMs, then the core's.
                CHECK(b.level.size() == params.core.m.size() + 2);
                CHECK(b.level[1].size() == params.nems);
                check_ftree_properties(std::move(b), variant, lmc, true);
            }
    }
}

TEST_CASE("ranking: a multi-core tree is one fat-tree, NEMs the leaves, every core's tops on top", "[ftree][ranking]")
{
    for (const auto& [name, params] : multicore_kinds()) {
        INFO(name);
        auto b = rebuild(topology::generate_multicore(params), {.scramble = true, .seed = 4});
        auto r = routing::fattree::rank_fat_tree(b.fabric, {});
        REQUIRE(std::holds_alternative<routing::fattree::FatTree>(r));
        const auto& t = std::get<routing::fattree::FatTree>(r);
        const unsigned h = static_cast<unsigned>(params.core.m.size()) + 1;
        CHECK(t.height == h);
        for (unsigned l = 1; l <= h; ++l)
            for (auto id : b.level[l]) CHECK(t.level[t.index_of_node[id.value]] == l);
        for (auto id : b.level[1]) {
            const auto s = t.index_of_node[id.value];
            CHECK(t.up[s].size() == params.cores * params.uplinks_per_core);
            CHECK(t.ca_ports[s].size() == params.hosts_per_nem);
        }
        CHECK(t.leaves.size() == params.nems);
    }
}

TEST_CASE("ranking: core leaves without NEMs, with the core tops configured as roots", "[ftree][ranking]")
{
    // Ranger itself (328 NEMs on 2 x 288 core leaves) leaves whole pods of a
    // core without NEMs: those leaves are the switches farthest from every
    // host, so the farthest-switch rule cannot be right there (the
    // connecting-distance rule is, see the next test); configured roots
    // must rank them as core leaves.
    auto params = multicore_kinds().front().second;
    params.nems = 3; // core leaves 0..3 carry NEMs, 4..7 (two pods) none
    auto f = topology::generate_multicore(params);
    make_healthy(f);
    routing::Options o;
    for (auto id : f.node_ids())
        if (f.node(id).description.find("-top-") != std::string::npos) o.root_guids.push_back(f.node(id).guid);
    REQUIRE(o.root_guids.size() == 8);
    auto r = routing::fattree::rank_fat_tree(f, o.root_guids);
    REQUIRE(std::holds_alternative<routing::fattree::FatTree>(r));
    const auto& t = std::get<routing::fattree::FatTree>(r);
    CHECK(t.height == 4);
    std::map<std::string, std::set<unsigned>> levels; // role -> levels seen
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (!n.is_switch()) continue;
        const auto role = n.description.substr(0, 3) == "nem" ? "nem" : n.description.substr(6, 4);
        levels[role].insert(t.level[t.index_of_node[id.value]]);
    }
    CHECK(levels["nem"] == std::set<unsigned>{1});
    CHECK(levels["leaf"] == std::set<unsigned>{2});
    CHECK(levels["spin"] == std::set<unsigned>{3});
    CHECK(levels["top-"] == std::set<unsigned>{4});
    auto lids = lids_for(f);
    auto tables = route_ftree(f, lids, o);
    auto reach = check_reach(f, lids, tables);
    CHECK(reach.ca_ca == 0);
    CHECK(reach.ca_sw == 0);
    CHECK(reach.sw_ca == 0);
    CHECK_FALSE(has_credit_loop(f, lids, tables, true));
}

// The automatic root choice (ranking.h) against the ranking from the
// generator's own top switches: on Ranger-like fabrics whose host-less core
// pods lie farther from every host than the tops, both must give every switch
// the same level (the old farthest-switch rule put those pods above the tops,
// ranking Ranger 6 levels high).
TEST_CASE("ranking: automatic roots of multi-core trees with host-less pods are the core tops", "[ftree][ranking]")
{
    auto same_levels = [](const Fabric& f, const std::vector<NodeId>& tops, unsigned height) {
        std::vector<Guid> guids;
        for (auto id : tops) guids.push_back(f.node(id).guid);
        auto from_tops = routing::fattree::rank_fat_tree(f, guids);
        auto automatic = routing::fattree::rank_fat_tree(f, {});
        REQUIRE(std::holds_alternative<routing::fattree::FatTree>(from_tops));
        REQUIRE(std::holds_alternative<routing::fattree::FatTree>(automatic));
        const auto& a = std::get<routing::fattree::FatTree>(automatic);
        const auto& t = std::get<routing::fattree::FatTree>(from_tops);
        CHECK(t.height == height);
        CHECK(a.height == t.height);
        CHECK(a.level == t.level);
        for (auto id : tops) CHECK(a.level[a.index_of_node[id.value]] == height);
    };
    auto kinds = multicore_kinds();
    for (const auto& k : multicore_hostless_kinds()) kinds.push_back(k);
    for (const auto& [name, params] : kinds) {
        const auto generated = topology::generate_multicore(params);
        const unsigned h = static_cast<unsigned>(params.core.m.size()) + 1;
        for (int variant = 0; variant < 4; ++variant) {
            INFO(name << " variant " << variant);
            auto b = rebuild(generated, variant_options(variant, 21 + variant), generator_tops(generated));
            REQUIRE(b.level.size() == h + 1);
            if (variant == 3) degrade(b, 4, 13);
            same_levels(b.fabric, b.level[h], h);
        }
    }
    SECTION("Ranger itself: 2 x 3456-port cores, core leaves 168..287 without NEMs")
    {
        auto f = topology::generate_multicore({});
        make_healthy(f);
        same_levels(f, generator_tops(f), 4);
    }
}

// ftree's properties on them without configured roots.
TEST_CASE("ftree on multi-core trees with host-less pods, roots found automatically", "[ftree][property]")
{
    for (const auto& [name, params] : multicore_hostless_kinds()) {
        const auto generated = topology::generate_multicore(params);
        for (int variant = 0; variant < 4; ++variant)
            for (std::uint8_t lmc : {std::uint8_t(0), std::uint8_t(1)}) {
                INFO(name << " variant " << variant << " lmc " << int(lmc));
                auto b = rebuild(generated, variant_options(variant, 11 + variant), generator_tops(generated));
                check_ftree_properties(std::move(b), variant, lmc);
            }
    }
}

TEST_CASE("ftree is deterministic", "[ftree]")
{
    auto b = build_pgft(pgft({4, 2, 4}, {1, 2, 2}, {1, 2, 2}), {.scramble = true, .seed = 3});
    auto lids = lids_for(b.fabric);
    auto a = route_ftree(b.fabric, lids), c = route_ftree(b.fabric, lids);
    REQUIRE(a.lfts.size() == c.lfts.size());
    for (auto& [node, lft] : a.lfts) CHECK(lft.port == c.lfts.at(node).port);
}

namespace {

// Seed 003 theorems 1 and 2 on a complete RLFT, checked by tracing.
void check_theorems(const Built& b, const lidassign::LidMap& lids, const routing::RoutingTables& t)
{
    auto ranked = routing::fattree::rank_fat_tree(b.fabric, {});
    const auto& tree = std::get<routing::fattree::FatTree>(ranked);
    auto order = routing::fattree::compute_ca_order(b.fabric, tree);
    const std::size_t N = order.cas.size();
    REQUIRE(N == b.hosts.size());
    Tracer tr{b.fabric, lids, t};
    // Paths by (source index, destination index).
    std::vector<std::vector<std::vector<PortRef>>> paths(N, std::vector<std::vector<PortRef>>(N));
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < N; ++k) {
            if (i == k) continue;
            auto lid = lids.lids_of(order.cas[k].ca)->base;
            REQUIRE(tr.path(b.fabric.port(order.cas[i].ca).remote->node, lid, paths[i][k]));
        }
    // Theorem 1: every shift permutation loads every link at most once.
    std::size_t worst = 0;
    for (std::size_t shift = 1; shift < N; ++shift) {
        std::map<PortRef, unsigned> load;
        for (std::size_t i = 0; i < N; ++i)
            for (auto& c : paths[i][(i + shift) % N]) worst = std::max<std::size_t>(worst, ++load[c]);
    }
    CHECK(worst == 1);
    // Theorem 2: every down port carries exactly one destination.
    std::map<PortRef, std::set<std::size_t>> dests;
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < N; ++k)
            for (auto& c : paths[i][k]) dests[c];
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < N; ++k)
            for (auto& c : paths[i][k]) {
                auto s = tree.index_of_node[c.node.value];
                auto peer = b.fabric.port(c).remote->node;
                bool down = !b.fabric.node(peer).is_switch() ||
                            tree.level[tree.index_of_node[peer.value]] < tree.level[s];
                if (down) dests[c].insert(k);
            }
    std::size_t down_ports = 0, bad = 0;
    for (auto id : b.fabric.node_ids()) {
        if (!b.fabric.node(id).is_switch()) continue;
        auto s = tree.index_of_node[id.value];
        for (auto& d : tree.down[s]) {
            ++down_ports;
            bad += dests[pr(id, d.port)].size() != 1;
        }
        for (auto p : tree.ca_ports[s]) {
            ++down_ports;
            bad += dests[pr(id, p)].size() != 1;
        }
    }
    CHECK(down_ports > 0);
    CHECK(bad == 0);
}

} // namespace

TEST_CASE("ftree on complete RLFTs: seed 003 theorems 1 and 2", "[ftree][theorem]")
{
    for (const auto& kind : kinds()) {
        if (!is_rlft(kind.g)) continue;
        for (bool scramble : {false, true}) {
            INFO(kind.name << (scramble ? " scrambled" : ""));
            auto b = build_pgft(kind.g, {.scramble = scramble, .seed = 21});
            auto lids = lids_for(b.fabric);
            check_theorems(b, lids, route_ftree(b.fabric, lids));
        }
    }
}

TEST_CASE("ftree: the theorem check fails when routing is not D-Mod-K", "[ftree][theorem]")
{
    // Guard against a vacuous checker: send everything up the first port.
    auto b = build_pgft(pgft({4, 8}, {1, 4}, {1, 1}));
    auto lids = lids_for(b.fabric);
    auto t = route_ftree(b.fabric, lids);
    for (auto leaf : b.level[1]) {
        auto& lft = t.lfts.at(leaf).port;
        for (auto& e : lft)
            if (e != routing::no_route && e > 4) e = 5; // first up port (ports 5..8 go up)
    }
    auto ranked = routing::fattree::rank_fat_tree(b.fabric, {});
    auto order = routing::fattree::compute_ca_order(b.fabric, std::get<routing::fattree::FatTree>(ranked));
    Tracer tr{b.fabric, lids, t};
    std::map<PortRef, unsigned> load;
    std::vector<PortRef> path;
    unsigned worst = 0;
    const std::size_t N = order.cas.size();
    for (std::size_t i = 0; i < N; ++i) {
        REQUIRE(tr.path(b.fabric.port(order.cas[i].ca).remote->node,
                        lids.lids_of(order.cas[(i + 4) % N].ca)->base, path));
        for (auto& c : path) worst = std::max(worst, ++load[c]);
    }
    CHECK(worst > 1);
}

TEST_CASE("ftree with LMC: the LIDs of a port climb to different top switches", "[ftree][lmc]")
{
    auto g = pgft({4, 8}, {1, 4}, {1, 1});
    auto b = build_pgft(g, {.scramble = true, .seed = 5});
    auto lids = lids_for(b.fabric, 2);
    auto t = route_ftree(b.fabric, lids);
    Tracer tr{b.fabric, lids, t};
    std::vector<PortRef> path;
    std::set<NodeId> tops(b.level[2].begin(), b.level[2].end());
    for (auto h : b.hosts) {
        auto pl = *lids.lids_of(pr(h, 1));
        auto my_leaf = b.fabric.port(pr(h, 1)).remote->node;
        NodeId src = b.level[1][0] == my_leaf ? b.level[1][1] : b.level[1][0];
        std::set<NodeId> used;
        for (std::uint16_t o = 0; o < pl.count(); ++o) {
            REQUIRE(tr.path(src, Lid(static_cast<std::uint16_t>(pl.base.value() + o)), path));
            auto top = b.fabric.port(path[0]).remote->node;
            REQUIRE(tops.contains(top));
            used.insert(top);
        }
        CHECK(used.size() == 4);
    }
}

TEST_CASE("ftree: a top switch that lost its down path is avoided", "[ftree][degraded]")
{
    auto g = pgft({4, 4, 8}, {1, 4, 4}, {1, 1, 1});
    auto b = build_pgft(g);
    // Cut every link between top 0 and the level-2 switches of pod 0.
    auto top = b.level[3][0];
    for (auto& p : b.fabric.node(top).ports)
        if (p.remote && p.remote->port.value() > 0) {
            auto peer = p.remote->node;
            if (peer == b.level[2][0]) b.fabric.disconnect(PortRef{top, p.num});
        }
    make_healthy(b.fabric);
    auto lids = lids_for(b.fabric);
    auto t = route_ftree(b.fabric, lids);
    auto r = check_reach(b.fabric, lids, t);
    CHECK(r.ca_ca == 0);
    CHECK_FALSE(has_credit_loop(b.fabric, lids, t, true));
}

TEST_CASE("CA order file: LID and description per line, in index order", "[ftree][order]")
{
    auto b = build_pgft(pgft({2, 2}, {1, 2}, {1, 1}));
    auto lids = lids_for(b.fabric);
    auto t = std::get<routing::fattree::FatTree>(routing::fattree::rank_fat_tree(b.fabric, {}));
    auto order = routing::fattree::compute_ca_order(b.fabric, t);
    REQUIRE(order.cas.size() == 4);
    CHECK(order.slots_per_leaf == 2);
    for (std::size_t i = 0; i < order.cas.size(); ++i) CHECK(order.cas[i].index == i);
    std::ostringstream out;
    routing::fattree::write_ca_order(out, b.fabric, lids, order);
    std::istringstream in(out.str());
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line)) {
        const auto& ca = order.cas[n++];
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%04x\t", lids.lids_of(ca.ca)->base.value());
        CHECK(line == buf + b.fabric.node(ca.ca.node).description);
    }
    CHECK(n == 4);
    // Hosts of one leaf are consecutive.
    CHECK(order.cas[0].leaf == order.cas[1].leaf);
    CHECK(order.cas[2].leaf == order.cas[3].leaf);
}

// Degraded trees: on the 3-level tree with switch links removed, D-Mod-K
// alone leaves CA<->switch pairs unreachable (a top cut off from a pod);
// ftree and sftree must deliver every one of them, with no credit loop in CA
// traffic (sftree: with switch traffic too), and the verification gate must
// agree.
TEST_CASE("ftree and sftree on degraded trees reach every CA<->switch pair", "[ftree][sftree][degraded][property]")
{
    topology::PgftParams p;
    p.m = {4, 4, 8};
    p.w = {1, 4, 4};
    p.p = {1, 1, 1};
    const auto full = topology::generate_pgft(p);
    std::size_t dmodk_holes = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        topology::DegradeSpec spec;
        spec.links = 8;
        spec.seed = seed;
        const auto f = topology::degrade(full, spec).fabric;
        const auto lids = lidassign::assign_base_lids(f, {}, {}).lids;
        INFO("seed " << seed);
        // What D-Mod-K alone leaves (the test would prove nothing without holes).
        auto d = routing::fattree::run_dmodk(f, lids, {}, "ftree");
        REQUIRE(std::holds_alternative<routing::fattree::DmodkRun>(d));
        const auto raw = check_reach(f, lids, std::get<routing::fattree::DmodkRun>(d).tables);
        CHECK(raw.ca_ca == 0);
        dmodk_holes += raw.ca_sw + raw.sw_ca;

        const auto t = route_ftree(f, lids);
        const auto r = check_reach(f, lids, t);
        CHECK(r.ca_ca == 0);
        CHECK(r.ca_sw == 0);
        CHECK(r.sw_ca == 0);
        CHECK_FALSE(has_credit_loop(f, lids, t, false));
        CHECK(routing::verify(f, lids, t).passed());

        auto s = routing::fattree::SftreeEngine().compute(f, lids, {});
        REQUIRE(std::holds_alternative<routing::RoutingTables>(s));
        const auto& st = std::get<routing::RoutingTables>(s);
        const auto sr = check_reach(f, lids, st);
        CHECK(sr.ca_ca + sr.ca_sw + sr.sw_ca + sr.sw_sw == 0);
        CHECK_FALSE(has_credit_loop(f, lids, st, true));
        CHECK(st.switch_to_switch);
        CHECK(routing::verify(f, lids, st).reason == "");
    }
    CHECK(dmodk_holes > 0);
}

TEST_CASE("ranking refuses chained trees, naming two leaves no up*/down* route joins", "[ftree][ranking]")
{
    topology::ChainParams c;
    c.trees = 3;
    c.spines = 2;
    c.leaves = 4;
    c.ports = 8;
    c.hosts_per_leaf = 4;
    c.cables = 2;
    const auto f = topology::generate_chain(c);
    const auto reason = refusal_of(f);
    CHECK_THAT(reason, Catch::StartsWith("not one fat-tree: no top switch above switch \"t0-leaf-") &&
                           Catch::Contains("reaches switch \"t1-leaf-") &&
                           Catch::Contains("several trees joined by leaf-to-leaf cables"));
    // Two trees joined leaf to leaf: a leaf without a chain cable reaches
    // the other tree's leaves only through a down->up turn.
    c.trees = 2;
    CHECK_THAT(refusal_of(topology::generate_chain(c)), Catch::StartsWith("not one fat-tree: "));
    // One tree of the chain alone is a fat-tree.
    c.trees = 1;
    CHECK(refusal_of(topology::generate_chain(c)).empty());
}
