// sssp and dfsssp: hand-checked small fabrics, then properties over
// generated ones, judged by the route-quality analyzer (an independent
// tracer of the forwarding tables and the per-VL channel dependency graphs).
#include "routing/chain.h"
#include "routing/dfsssp.h"
#include "routing/sssp.h"

#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "test_minhop_fabrics.h"
#include "test_routed.h"
#include "topology/gen_degrade.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <set>

using namespace ibsm;
using namespace ibsm::test;
using routing::RoutingTables;

namespace {

// Every pair of all four classes delivered.
void require_complete(const routing::analysis::Report& rep)
{
    for (const auto& c : rep.classes) {
        INFO("class " << static_cast<int>(c.cls));
        CHECK(c.pairs > 0);
        CHECK(c.unreachable == 0);
        CHECK(c.loops == 0);
    }
}

// Every pair of all four classes delivered, along shortest paths.
void require_complete_and_minimal(const routing::analysis::Report& rep)
{
    for (const auto& c : rep.classes) {
        INFO("class " << static_cast<int>(c.cls));
        CHECK(c.pairs > 0);
        CHECK(c.unreachable == 0);
        CHECK(c.loops == 0);
        CHECK(c.nonminimal == 0);
        CHECK(c.stretch_max == Approx(1.0));
    }
}

Fabric pgft(std::vector<unsigned> m, std::vector<unsigned> w)
{
    topology::PgftParams p;
    p.m = std::move(m);
    p.w = std::move(w);
    p.p.assign(p.m.size(), 1);
    return topology::generate_pgft(p);
}


Lid lid_of(const lidassign::LidMap& lids, PortRef p, unsigned k = 0)
{
    return Lid(static_cast<std::uint16_t>(lids.lids_of(p)->base.value() + k));
}

} // namespace

TEST_CASE("sssp balances a two-level tree's uplinks globally and routes switch LIDs")
{
    // 4 leaves x 4 spines, 4 hosts a leaf: 12 remote hosts per leaf, so each
    // uplink of a leaf carries exactly 3 of the CA LIDs leaving it.
    auto t = two_level(4, 4, 4);
    auto r = route(routing::SsspEngine(), t.fabric);
    CHECK(r.tables.engine == "sssp");
    CHECK(r.tables.vls_used == 1);
    CHECK(r.tables.sl.empty());
    require_complete_and_minimal(analyze(r));
    for (NodeId leaf : t.leaves) {
        std::map<unsigned, unsigned> up;
        for (NodeId h : t.hosts) {
            const auto out = r.tables.lfts.at(leaf).at(lid_of(r.lids, pr(h, 1)));
            if (out > 4) ++up[out];
        }
        CHECK(up == std::map<unsigned, unsigned>{{5, 3}, {6, 3}, {7, 3}, {8, 3}});
    }
    // A switch's own LID is delivered at port 0; spine-to-spine goes via a leaf.
    CHECK(r.tables.lfts.at(t.spines[0]).at(lid_of(r.lids, pr(t.spines[0], 0))) == 0);
    CHECK(r.tables.lfts.at(t.spines[0]).at(lid_of(r.lids, pr(t.spines[1], 0))) != routing::no_route);
}

TEST_CASE("sssp with LMC 2 gives each LID of a destination its own tree over the parallel links")
{
    // Two leaves joined through 1 spine by 4 parallel cables each: the four
    // LIDs of a host on leaf 1 leave leaf 0 on four different cables and
    // reach leaf 1 on four different cables.
    auto t = two_level(2, 1, 2, 4);
    auto r = route(routing::SsspEngine(), t.fabric, 2);
    require_complete_and_minimal(analyze(r));
    for (NodeId h : {t.hosts[2], t.hosts[3]}) {
        std::set<unsigned> leaf_ports, spine_ports;
        for (unsigned k = 0; k < 4; ++k) {
            leaf_ports.insert(r.tables.lfts.at(t.leaves[0]).at(lid_of(r.lids, pr(h, 1), k)));
            spine_ports.insert(r.tables.lfts.at(t.spines[0]).at(lid_of(r.lids, pr(h, 1), k)));
        }
        CHECK(leaf_ports == std::set<unsigned>{3, 4, 5, 6});
        CHECK(spine_ports == std::set<unsigned>{5, 6, 7, 8});
    }
}

TEST_CASE("dfsssp splits a ring of 5 into 2 acyclic layers; with 1 VL its escape layer takes the overflow")
{
    // On a ring of 5 every minimal route is unique and the clockwise 2-hop
    // routes alone close a cycle, so one layer cannot do and two do.
    auto ring5 = ring(5, 1);
    auto sssp = route(routing::SsspEngine(), ring5);
    CHECK(analyze(sssp).credit_ca_only.has_loop());

    auto r = route(routing::DfssspEngine(), ring5);
    CHECK(r.tables.engine == "dfsssp");
    CHECK(r.tables.layers_needed == 2);
    // Spare VLs are spread over the layers: all 8 in use, SLs below 8.
    CHECK(r.tables.vls_used == 8);
    CHECK(r.tables.sl.max_sl() == 7);
    // Same paths as sssp; only the SLs differ.
    CHECK(same_lfts(r.tables, sssp.tables));
    auto rep = analyze(r);
    require_complete_and_minimal(rep);
    REQUIRE(rep.credit_all.computed);
    CHECK_FALSE(rep.credit_ca_only.has_loop());
    CHECK_FALSE(rep.credit_all.has_loop());

    auto two = route(routing::DfssspEngine(), ring5, 0, 2);
    CHECK(two.tables.vls_used == 2);
    CHECK(two.tables.sl.max_sl() == 1);
    CHECK_FALSE(analyze(two).credit_all.has_loop());

    lidassign::LidMap lids = lidassign::assign_base_lids(ring5, {}, {}).lids;
    // One VL: no refusal. Every LID has units on layer 0 (the escape layer):
    // those whose shortest-path trees fit beside the escape paths keep them,
    // the others are re-routed by Nue; the note says how many of each.
    auto one = route(routing::DfssspEngine(), ring5, 0, 1);
    CHECK(one.tables.vls_used == 1);
    CHECK(one.tables.sl.empty());
    REQUIRE(one.tables.notes.size() == 1);
    const auto& note = one.tables.notes[0];
    CHECK_THAT(note, Catch::StartsWith("needs 2 virtual layers, 1 VL available: routes of 10 destination LIDs went "
                                       "onto escape layer 0 (Nue's escape paths reserved first); "));
    const auto kept = std::stoul(note.substr(note.find("first); ") + 8));
    const auto again = std::stoul(note.substr(note.find("paths, ") + 7));
    CHECK(kept + again == 10);
    CHECK(again > 0); // the clockwise 2-hop routes cannot all stay
    auto one_rep = analyze(one);
    REQUIRE(one_rep.credit_all.computed);
    CHECK_FALSE(one_rep.credit_all.has_loop());
    require_complete(one_rep);
}

TEST_CASE("dfsssp next to QoS: the budget in its escape note, the gate on the combined VLs")
{
    auto ring5 = ring(5, 1);
    const lidassign::LidMap lids = lidassign::assign_base_lids(ring5, {}, {}).lids;
    routing::ChainSpec spec{{"dfsssp", "updn"}, true};
    routing::Options o;
    o.max_vls = 1; // the routing's share: QoS took the other VLs
    o.budget_refusal = [](const std::string& engine, unsigned needed) {
        return engine + " needs " + std::to_string(needed) + " layers, the budget gives 1";
    };
    auto out = routing::run_chain(routing::default_registry(), spec, ring5, lids, o);
    CHECK(out.refusals.empty());
    REQUIRE(out.engine() == "dfsssp");
    CHECK_FALSE(out.degraded);
    REQUIRE(out.tables->notes.size() == 1);
    CHECK_THAT(out.tables->notes[0], Catch::StartsWith("dfsssp needs 2 layers, the budget gives 1: routes of 10 "
                                                       "destination LIDs went onto escape layer 0"));

    // Two layers fit, but a QoS SL2VL that folds both onto VL 0 closes the
    // ring's loop: the gate refuses dfsssp and updn (one layer) wins.
    o.max_vls = 2;
    unsigned asked = 0;
    o.vl_masks = [&](unsigned vls_used) {
        asked = std::max(asked, vls_used);
        std::array<std::uint16_t, 16> m{};
        m.fill(1);
        return m;
    };
    auto folded = routing::run_chain(routing::default_registry(), spec, ring5, lids, o);
    CHECK(asked == 2);
    REQUIRE_FALSE(folded.refusals.empty());
    CHECK(folded.refusals[0].engine == "dfsssp");
    CHECK_THAT(folded.refusals[0].reason, Catch::StartsWith("credit loop on VL 0"));
    CHECK(folded.engine() == "updn");

    // Layers kept apart (SL l on VL l and a QoS VL 2 + l): dfsssp passes.
    o.vl_masks = [](unsigned) {
        std::array<std::uint16_t, 16> m{};
        m[0] = 0b0101;
        m[1] = 0b1010;
        return m;
    };
    o.max_vls = 2;
    auto apart = routing::run_chain(routing::default_registry(), spec, ring5, lids, o);
    CHECK(apart.engine() == "dfsssp");
    CHECK(apart.refusals.empty());
}

TEST_CASE("dfsssp routes an 8x8 torus in 8 VLs through its escape layer, naming the layers it needed")
{
    auto f = topology::generate_torus({8, 8, 4, true});
    auto r = route(routing::DfssspEngine(), f, 0, 8);
    CHECK(r.tables.vls_used == 8);
    CHECK(r.tables.layers_needed == 8);
    CHECK(r.tables.sl.max_sl() == 7);
    REQUIRE(r.tables.notes.size() == 1);
    const auto& note = r.tables.notes[0];
    REQUIRE(note.starts_with("needs "));
    CHECK(std::stoi(note.substr(6)) > 8);
    CHECK(note.find(" virtual layers, 8 VLs available: routes of ") != std::string::npos);
    CHECK(note.find("escape layer 7") != std::string::npos);
    auto rep = analyze(r);
    REQUIRE(rep.credit_all.computed);
    CHECK_FALSE(rep.credit_all.has_loop());
    require_complete(rep);
}

TEST_CASE("sssp and dfsssp on generated fabrics: complete, minimal, deterministic, dfsssp acyclic per VL")
{
    struct Case {
        const char* name;
        Fabric fabric;
        bool loops; // sssp's routes have a credit loop
    };
    topology::DegradeSpec spec;
    spec.links = 6;
    spec.seed = 3;
    std::vector<Case> cases;
    cases.push_back({"pgft 3-level 64 hosts", pgft({4, 4, 4}, {1, 4, 2}), true});
    cases.push_back({"pgft minus 6 links", topology::degrade(pgft({4, 4, 4}, {1, 4, 2}), spec).fabric, true});
    cases.push_back({"ring 6", topology::generate_ring({6, 2}), true});
    cases.push_back({"torus 4x4", topology::generate_torus({4, 4, 2, true}), true});
    cases.push_back({"mesh 3x4", topology::generate_torus({3, 4, 1, false}), false});
    cases.push_back({"random 12 switches", random_fabric(12, 8, 60, 2, 6), true});

    for (auto& c : cases) {
        DYNAMIC_SECTION(c.name)
        {
            auto sssp = route(routing::SsspEngine(), c.fabric);
            require_complete_and_minimal(analyze(sssp));
            CHECK(same_lfts(route(routing::SsspEngine(), c.fabric).tables, sssp.tables));

            auto df = route(routing::DfssspEngine(), c.fabric);
            CHECK(same_lfts(df.tables, sssp.tables));
            // One layer exactly when sssp's own routes (switch traffic
            // included) have no credit loop; the rings, tori, trees (U-turns
            // of switch traffic) and the random fabric do have one.
            const bool sssp_loops = analyze(sssp).credit_all.has_loop();
            CHECK(sssp_loops == (df.tables.layers_needed > 1));
            CHECK(sssp_loops == c.loops);
            CHECK(df.tables.vls_used == 8);
            auto rep = analyze(df);
            require_complete_and_minimal(rep);
            REQUIRE(rep.credit_all.computed);
            CHECK_FALSE(rep.credit_ca_only.has_loop());
            CHECK_FALSE(rep.credit_all.has_loop());
            auto again = route(routing::DfssspEngine(), c.fabric);
            CHECK(again.tables.sl == df.tables.sl);
        }
    }
}
