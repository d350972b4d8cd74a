// sftree (seed 000 Algorithms 1 and 2) on top of ftree.
#include "routing/fattree/dmodk.h"
#include "routing/fattree/sftree.h"
#include "routing/minhop.h"
#include "test_ftree_support.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::ftest;

namespace {

// D-Mod-K alone (run_dmodk), what sftree starts from; the ftree engine now
// fills the same entries sftree does (dmodk.h, "CA<->switch").
routing::RoutingTables ftree_tables(const Fabric& f, const lidassign::LidMap& lids, const routing::Options& o = {})
{
    auto r = routing::fattree::run_dmodk(f, lids, o, "ftree");
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL("ftree refused: " << refusal->reason);
    return std::get<routing::fattree::DmodkRun>(r).tables;
}

routing::fattree::SftreeResult sftree(const Fabric& f, const lidassign::LidMap& lids, const routing::Options& o = {})
{
    auto r = routing::fattree::run_sftree(f, lids, o);
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL("sftree refused: " << refusal->reason);
    return std::move(std::get<routing::fattree::SftreeResult>(r));
}

// Seed 000 Fig. 1: several 2-level cores; leaves in horizontally linked
// pairs. `shared`: every leaf is cabled to every core (Ranger-like bottom
// layer); otherwise leaf a_i only to core 0 and b_i only to core 1, so the
// cores meet only through the horizontal links.
Fabric multicore(unsigned spines, unsigned pairs, unsigned hosts, bool shared)
{
    Fabric f;
    std::uint64_t g = 0x5000;
    std::vector<std::vector<NodeId>> core(2);
    const unsigned leaves_per_core = shared ? 2 * pairs : pairs;
    for (unsigned c = 0; c < 2; ++c)
        for (unsigned s = 0; s < spines; ++s)
            core[c].push_back(f.add_node(NodeType::switch_node, Guid(++g),
                                         static_cast<std::uint8_t>(leaves_per_core),
                                         "core" + std::to_string(c) + "_spine" + std::to_string(s)));
    std::vector<unsigned> next_port(f.node_count(), 1);
    const unsigned up = shared ? 2 * spines : spines;
    unsigned host = 0;
    for (unsigned i = 0; i < pairs; ++i) {
        NodeId pair[2];
        for (unsigned side = 0; side < 2; ++side) {
            auto L = f.add_node(NodeType::switch_node, Guid(++g), static_cast<std::uint8_t>(hosts + up + 1),
                                "leaf" + std::to_string(i) + (side ? "b" : "a"));
            pair[side] = L;
            unsigned port = 1;
            for (unsigned h = 0; h < hosts; ++h) {
                auto ca = f.add_node(NodeType::ca, Guid(++g), 1, "host" + std::to_string(host++));
                f.set_port_guid(pr(ca, 1), Guid(g + 0x100000000ull));
                f.connect(pr(ca, 1), pr(L, port++));
            }
            for (unsigned c = 0; c < 2; ++c) {
                if (!shared && c != side) continue;
                for (auto sp : core[c]) {
                    f.connect(pr(L, port++), pr(sp, next_port[sp.value]++));
                }
            }
        }
        f.connect(pr(pair[0], hosts + up + 1), pr(pair[1], hosts + up + 1));
    }
    make_healthy(f);
    return f;
}

struct Case {
    std::string name;
    Fabric fabric;
};

std::vector<Case> cases()
{
    std::vector<Case> out;
    const std::vector<std::pair<const char*, Pgft>> kinds = {
        {"PGFT(2;4,8;1,4;1,1)", pgft({4, 8}, {1, 4}, {1, 1})},
        {"PGFT(2;4,4;1,2;1,2)", pgft({4, 4}, {1, 2}, {1, 2})},
        {"PGFT(3;4,4,8;1,4,4;1,1,1)", pgft({4, 4, 8}, {1, 4, 4}, {1, 1, 1})},
        {"PGFT(3;4,2,4;1,2,2;1,2,2)", pgft({4, 2, 4}, {1, 2, 2}, {1, 2, 2})},
        {"PGFT(4;2,2,2,4;1,2,2,2;1,1,1,1)", pgft({2, 2, 2, 4}, {1, 2, 2, 2}, {1, 1, 1, 1})},
        {"PGFT(3;3,3,3;1,2,3;1,1,1)", pgft({3, 3, 3}, {1, 2, 3}, {1, 1, 1})},
    };
    for (auto& [name, g] : kinds)
        for (int variant = 0; variant < 4; ++variant) {
            BuildOptions o;
            o.scramble = variant >= 1;
            o.seed = 31 + variant;
            if (variant == 2) o.host_fill = 0.6;
            auto b = build_pgft(g, o);
            if (variant == 3) degrade(b, 4, 77);
            static const char* what[] = {"", " scrambled", " partial", " degraded"};
            out.push_back({std::string(name) + what[variant], std::move(b.fabric)});
        }
    out.push_back({"multi-core, shared leaves, siblings", multicore(3, 3, 2, true)});
    out.push_back({"multi-core, disjoint cores joined by siblings", multicore(3, 3, 2, false)});
    return out;
}

// Ranger-like fabrics (topology/gen_ranger.h), with and without host-less
// core pods (ranked without configured roots); variant 3 is degraded.
std::vector<std::pair<Case, int>> ranger_cases()
{
    std::vector<std::pair<Case, int>> out;
    auto kinds = multicore_kinds();
    for (const auto& k : multicore_hostless_kinds()) kinds.push_back(k);
    for (const auto& [name, params] : kinds) {
        const auto generated = topology::generate_multicore(params);
        for (int variant = 0; variant < 4; ++variant) {
            BuildOptions o;
            o.scramble = variant >= 1;
            o.seed = 31 + variant;
            if (variant == 2) o.host_fill = 0.6;
            auto b = rebuild(generated, o, generator_tops(generated));
            if (variant == 3) degrade(b, 4, 77);
            static const char* what[] = {"", " scrambled", " partial", " degraded"};
            out.push_back({{std::string(name) + what[variant], std::move(b.fabric)}, variant});
        }
    }
    return out;
}

// sftree's promise: every pair in every class reachable, no credit loop in
// one VL with or without switch-originated traffic.
void check_complete_and_deadlock_free(const Fabric& f, const lidassign::LidMap& lids,
                                      const routing::fattree::SftreeResult& sf)
{
    CHECK(sf.failed.empty());
    auto r = check_reach(f, lids, sf.tables);
    CHECK(r.ca_ca == 0);
    CHECK(r.ca_sw == 0);
    CHECK(r.sw_ca == 0);
    CHECK(r.sw_sw == 0);
    CHECK_FALSE(has_credit_loop(f, lids, sf.tables, false));
    CHECK_FALSE(has_credit_loop(f, lids, sf.tables, true));
}

} // namespace

TEST_CASE("sftree on generated fabrics: full reachability, no credit loops with switch traffic", "[sftree][property]")
{
    for (auto& c : cases()) {
        INFO(c.name);
        auto lids = lids_for(c.fabric);
        auto ft = ftree_tables(c.fabric, lids);
        auto sf = sftree(c.fabric, lids);
        check_complete_and_deadlock_free(c.fabric, lids, sf);
        // ftree's routes are untouched (so CA->CA routes are identical).
        std::size_t changed = 0, filled = 0;
        for (auto& [node, lft] : ft.lfts) {
            const auto& s = sf.tables.lfts.at(node).port;
            REQUIRE(s.size() == lft.port.size());
            for (std::size_t l = 0; l < s.size(); ++l) {
                if (lft.port[l] != routing::no_route) changed += s[l] != lft.port[l];
                else filled += s[l] != routing::no_route;
            }
        }
        CHECK(changed == 0);
        // A PGFT leaf's parents share no ancestor (nor do the spines above a
        // seed 000 Fig. 1 leaf): Algorithms 1-2 as published, no gateway.
        CHECK(sf.gateways.empty());
        CHECK(sf.root_entries_pinned == 0);
        // ftree leaves switch pairs unroutable on every multi-level tree here.
        auto fr = check_reach(c.fabric, lids, ft);
        CHECK(fr.sw_sw > 0);
        CHECK(filled > 0);
    }
}

// Multi-core trees joined only through their edge switches (NEMs, the
// leaves): every switch pair across cores needs a U-turn at the subtree root
// R, a NEM whose parents in one core share their ancestors (seed 000 §5
// assumes they share none). With one gateway cable per core (sftree.h step
// 2a) every switch reaches every switch and every CA, with no credit loop
// even with switch-originated traffic, and no CA-destined entry of ftree
// changes (so CA->CA routes are ftree's); only R's switch-LID entries may
// move onto the gateways.
TEST_CASE("sftree on Ranger-like multi-core fabrics: full reachability, deadlock-free, CA routes kept",
          "[sftree][multicore]")
{
    for (auto& [c, variant] : ranger_cases()) {
        INFO(c.name);
        auto lids = lids_for(c.fabric);
        auto ft = ftree_tables(c.fabric, lids);
        auto sf = sftree(c.fabric, lids);
        check_complete_and_deadlock_free(c.fabric, lids, sf);
        // One gateway per core: R's parents in one core share their tops
        // (a degraded tree may leave R a single parent in a core: a class
        // of one, no gateway needed).
        const auto cores = static_cast<std::size_t>(c.name[0] - '0');
        if (variant != 3) CHECK(sf.gateways.size() == cores);
        else CHECK(sf.gateways.size() <= cores);
        // ftree left cross-core switch pairs unroutable; sftree filled them.
        CHECK(check_reach(c.fabric, lids, ft).sw_sw > 0);
        std::size_t ca_changed = 0, sw_changed = 0;
        auto a = addressable(c.fabric, lids);
        std::set<Lid> ca_lids;
        for (auto& [ca, l] : a.cas) ca_lids.insert(l);
        for (auto& [node, lft] : ft.lfts) {
            const auto& s = sf.tables.lfts.at(node).port;
            for (std::size_t l = 0; l < s.size(); ++l) {
                if (lft.port[l] == routing::no_route || s[l] == lft.port[l]) continue;
                if (ca_lids.contains(Lid(static_cast<std::uint16_t>(l)))) ++ca_changed;
                else if (node == sf.subtree_root) ++sw_changed;
                else FAIL("an ftree entry changed away from the subtree root");
            }
        }
        CHECK(ca_changed == 0);
        CHECK(sw_changed == sf.root_entries_pinned);
    }
}

TEST_CASE("sftree: get_path_length hop counts match the routes", "[sftree][hops]")
{
    auto all = cases();
    for (auto& [c, variant] : ranger_cases()) all.push_back(std::move(c));
    for (auto& c : all) {
        INFO(c.name);
        auto lids = lids_for(c.fabric);
        auto sf = sftree(c.fabric, lids);
        Tracer tr{c.fabric, lids, sf.tables};
        std::vector<PortRef> path;
        std::size_t checked = 0;
        for (auto& [lid, hops] : sf.hops)
            for (std::uint32_t s = 0; s < hops.size(); ++s) {
                if (hops[s] == 0xFF) continue;
                REQUIRE(tr.path(sf.tree.switches[s], lid, path));
                CHECK(hops[s] == path.size());
                ++checked;
            }
        CHECK(checked > 0);
    }
}

TEST_CASE("sftree: the subtree root avoids the SM's leaf, and reaches everything", "[sftree]")
{
    auto b = build_pgft(pgft({4, 4, 8}, {1, 4, 4}, {1, 1, 1}), {.scramble = true, .seed = 9});
    auto lids = lids_for(b.fabric);
    auto first = sftree(b.fabric, lids);
    CHECK(first.root_routes_everything);
    // Put the SM on a CA of the chosen root: another leaf is chosen.
    Guid sm;
    for (auto h : b.hosts)
        if (b.fabric.port(pr(h, 1)).remote->node == first.subtree_root) sm = b.fabric.node(h).ports[1].guid;
    REQUIRE(!sm.is_zero());
    routing::Options o;
    o.sm_port_guid = sm;
    auto second = sftree(b.fabric, lids, o);
    CHECK(second.subtree_root != first.subtree_root);
    CHECK(second.failed.empty());
    CHECK_FALSE(has_credit_loop(b.fabric, lids, second.tables, true));
}

TEST_CASE("seed 000 Fig. 2-like tree: MinHop with switch traffic has a credit loop, sftree none", "[sftree][fig2]")
{
    // A 3-stage tree with more than one root contains the 6-switch rings
    // of seed 000 Fig. 2(a).
    auto b = build_pgft(pgft({2, 2, 2}, {1, 2, 2}, {1, 1, 1}));
    auto lids = lids_for(b.fabric);
    auto mh = routing::MinHopEngine().compute(b.fabric, lids, {});
    REQUIRE(std::holds_alternative<routing::RoutingTables>(mh));
    CHECK(has_credit_loop(b.fabric, lids, std::get<routing::RoutingTables>(mh), true));
    auto sf = sftree(b.fabric, lids);
    CHECK(sf.failed.empty());
    CHECK(check_reach(b.fabric, lids, sf.tables).sw_sw == 0);
    CHECK_FALSE(has_credit_loop(b.fabric, lids, sf.tables, true));
}

TEST_CASE("sftree and ftree refuse the same non-trees", "[sftree]")
{
    Fabric f;
    std::vector<NodeId> sw;
    for (unsigned i = 0; i < 5; ++i) sw.push_back(f.add_node(NodeType::switch_node, Guid(0x100 + i), 3, "r"));
    for (unsigned i = 0; i < 5; ++i) f.connect(pr(sw[i], 1), pr(sw[(i + 1) % 5], 2));
    for (unsigned i = 0; i < 5; ++i) f.connect(pr(f.add_node(NodeType::ca, Guid(0x900 + i), 1, "h"), 1), pr(sw[i], 3));
    make_healthy(f);
    auto lids = lids_for(f);
    auto r = routing::fattree::SftreeEngine().compute(f, lids, {});
    REQUIRE(std::holds_alternative<routing::Refusal>(r));
    CHECK(std::get<routing::Refusal>(r).engine == "sftree");
    CHECK_THAT(std::get<routing::Refusal>(r).reason, Catch::Contains("not a fat-tree"));
}
