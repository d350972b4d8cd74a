// Up*/Down* (routing/updn.h): roots it picks by itself, hand-checked routes
// on a ring, and properties over every generated fabric kind — every pair
// reachable in all four classes, every route up* down* in the engine's own
// orientation, no credit loop on one VL with switch traffic (the analyzer's
// CDG check), deterministic output — for both balancing modes and LMC 1.
#include "routing/updn.h"
#include "routing/updn_order.h"

#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "test_minhop_fabrics.h"
#include "topology/gen_degrade.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ibsm;
using namespace ibsm::routing;
using ibsm::test::pr;
using topology::Fabric;
using topology::NodeId;

namespace {

struct Routed {
    Fabric fabric;
    lidassign::LidMap lids;
    RoutingTables tables;
};

Routed route_updn(Fabric f, Options options = {})
{
    lidassign::BaseLidOptions lo;
    lo.lmc = options.lmc;
    auto assigned = lidassign::assign_base_lids(f, {}, lo);
    lidassign::apply_lids(assigned.lids, f);
    auto result = UpdnEngine().compute(f, assigned.lids, options);
    if (auto* refusal = std::get_if<Refusal>(&result)) FAIL("updn refused: " << refusal->reason);
    return Routed{std::move(f), std::move(assigned.lids), std::get<RoutingTables>(std::move(result))};
}

updn::Orientation orientation(const Fabric& f, const std::vector<Guid>& roots = {})
{
    auto o = updn::orient(f, roots);
    if (auto* reason = std::get_if<std::string>(&o)) FAIL("orient refused: " << *reason);
    return std::get<updn::Orientation>(std::move(o));
}

std::vector<Guid> guids_of(const Fabric& f, const updn::Orientation& o, const std::vector<std::uint32_t>& places)
{
    std::vector<Guid> out;
    for (auto p : places) out.push_back(f.node(o.switches[p]).guid);
    std::sort(out.begin(), out.end());
    return out;
}

// Follows every switch's route to every LID; each must arrive and never go
// up after going down in the engine's orientation. Switches in another
// connected component than the destination must have no route.
void require_up_down(const Routed& r, const updn::Orientation& o)
{
    const std::size_t S = o.size();
    std::vector<std::uint32_t> component(S, 0);
    {
        std::vector<bool> seen(S, false);
        std::uint32_t c = 0;
        for (std::uint32_t s0 = 0; s0 < S; ++s0) {
            if (seen[s0]) continue;
            std::vector<std::uint32_t> stack{s0};
            seen[s0] = true;
            while (!stack.empty()) {
                auto s = stack.back();
                stack.pop_back();
                component[s] = c;
                for (auto i = o.up_first[s]; i < o.up_first[s + 1]; ++i)
                    if (!seen[o.up[i].neighbour]) seen[o.up[i].neighbour] = true, stack.push_back(o.up[i].neighbour);
                for (auto i = o.down_first[s]; i < o.down_first[s + 1]; ++i)
                    if (!seen[o.down[i].neighbour]) seen[o.down[i].neighbour] = true, stack.push_back(o.down[i].neighbour);
            }
            ++c;
        }
    }
    std::size_t bad = 0;
    for (const auto& [ref, pl] : r.lids.entries()) {
        // The switch that delivers to this port.
        NodeId target = ref.node;
        if (!r.fabric.node(ref.node).is_switch()) target = r.fabric.remote(ref)->node;
        const auto t = static_cast<std::uint32_t>(o.place_of[target.value]);
        for (std::uint16_t k = 0; k < pl.count(); ++k) {
            const Lid lid(static_cast<std::uint16_t>(pl.base.value() + k));
            for (std::uint32_t s = 0; s < S; ++s) {
                const auto& lft = r.tables.lfts.at(o.switches[s]);
                if (component[s] != component[t]) {
                    if (lft.at(lid) != no_route) ++bad;
                    continue;
                }
                std::uint32_t at = s;
                bool went_down = false;
                unsigned hops = 0;
                while (at != t && hops <= S) {
                    const auto port = lft.at(lid) == no_route ? no_route
                                                               : r.tables.lfts.at(o.switches[at]).at(lid);
                    if (port == no_route) break;
                    const auto peer = r.fabric.remote({o.switches[at], PortNum(port)});
                    if (!peer || !r.fabric.node(peer->node).is_switch()) break;
                    const auto next = static_cast<std::uint32_t>(o.place_of[peer->node.value]);
                    const bool up = next < at;
                    if (up && went_down) break;
                    went_down = went_down || !up;
                    at = next;
                    ++hops;
                }
                if (at != t) {
                    ++bad;
                    continue;
                }
                // At the delivering switch: the CA's port, or 0 for its own LID.
                const std::uint8_t last = r.tables.lfts.at(o.switches[t]).at(lid);
                const std::uint8_t want = ref.node == target ? 0 : r.fabric.remote(ref)->port.value();
                if (last != want) ++bad;
            }
        }
    }
    CHECK(bad == 0);
}

// The analyzer's verdict: every pair in every class delivered, no
// forwarding loop, one VL without a credit loop, switch traffic included.
void require_clean(const Routed& r)
{
    analysis::Options ao;
    ao.run_ebb = false;
    ao.run_shifts = false;
    ao.switch_traffic = true;
    ao.threads = 1;
    const auto rep = analysis::analyze(r.fabric, r.tables, ao);
    for (const auto& c : rep.classes) {
        INFO(analysis::to_string(c.cls));
        CHECK(c.pairs > 0);
        CHECK(c.unreachable == 0);
        CHECK(c.loops == 0);
    }
    REQUIRE(rep.credit_all.computed);
    CHECK(rep.credit_all.vls.size() == 1);
    CHECK_FALSE(rep.credit_all.has_loop());
    CHECK_FALSE(rep.credit_ca_only.has_loop());
}

bool same_lfts(const RoutingTables& a, const RoutingTables& b)
{
    if (a.lfts.size() != b.lfts.size()) return false;
    for (const auto& [id, lft] : a.lfts)
        if (!b.lfts.contains(id) || b.lfts.at(id).port != lft.port) return false;
    return true;
}

double ebb(const Routed& r)
{
    analysis::Options ao;
    ao.run_shifts = false;
    ao.ebb.bisections = 100;
    ao.threads = 1;
    return analysis::analyze(r.fabric, r.tables, ao).ebb->ebb;
}

Fabric small_pgft() { return topology::generate_pgft(topology::PgftParams{{4, 4, 4}, {1, 4, 2}, {1, 1, 1}, false}); }

// Three 2-level trees (2 spines, 4 leaves with 2 hosts each) in a chain,
// neighbouring trees joined leaf to leaf on the leaves' port 3 (seed 001's
// chained trees).
Fabric chained_trees()
{
    Fabric f;
    std::uint64_t guid = 0x5000;
    std::vector<std::vector<NodeId>> leaves(3);
    for (unsigned t = 0; t < 3; ++t) {
        std::vector<NodeId> spines;
        for (unsigned s = 0; s < 2; ++s)
            spines.push_back(f.add_node(topology::NodeType::switch_node, Guid(++guid), 4,
                                        "spine" + std::to_string(t) + std::to_string(s)));
        for (unsigned l = 0; l < 4; ++l) {
            auto leaf = f.add_node(topology::NodeType::switch_node, Guid(++guid), 5,
                                   "leaf" + std::to_string(t) + std::to_string(l));
            leaves[t].push_back(leaf);
            for (unsigned s = 0; s < 2; ++s) f.connect(pr(leaf, 4 + s), pr(spines[s], 1 + l));
            for (unsigned h = 0; h < 2; ++h) {
                auto ca = f.add_node(topology::NodeType::ca, Guid(++guid), 1);
                f.set_port_guid(pr(ca, 1), Guid(guid | 0x4000000000000000ull));
                f.connect(pr(ca, 1), pr(leaf, 1 + h));
            }
        }
    }
    // Trees 0-1 joined at leaves 0 and 1, trees 1-2 at leaves 2 and 3.
    f.connect(pr(leaves[0][0], 3), pr(leaves[1][0], 3));
    f.connect(pr(leaves[0][1], 3), pr(leaves[1][1], 3));
    f.connect(pr(leaves[1][2], 3), pr(leaves[2][2], 3));
    f.connect(pr(leaves[1][3], 3), pr(leaves[2][3], 3));
    test::make_healthy(f);
    return f;
}

} // namespace

TEST_CASE("updn on a ring of 4 picks the central switch with the smallest GUID and routes around the turn ban")
{
    // s0..s3, GUIDs ascending; port 1 -> next, port 2 -> previous, host on 3.
    Fabric f = test::ring(4, 1);
    const auto o = orientation(f);
    CHECK(o.rule == updn::RootRule::central);
    REQUIRE(o.roots.size() == 1);
    CHECK(o.switches[o.roots[0]] == NodeId{0}); // every switch has eccentricity 2: the smallest GUID wins
    // Ranks 0, 1, 2, 1 for s0..s3; order s0, s1, s3, s2.
    CHECK(o.switches == std::vector<NodeId>{NodeId{0}, NodeId{1}, NodeId{3}, NodeId{2}});

    Routed r = route_updn(std::move(f));
    auto lid_of = [&](unsigned node, unsigned port) { return r.lids.lids_of(pr(NodeId{node}, port))->base; };
    auto out = [&](unsigned sw, Lid lid) { return unsigned(r.tables.lfts.at(NodeId{sw}).at(lid)); };
    // s1 -> s3: s1-s2-s3 would go down (to s2) then up (to s3), so s1 goes
    // up to s0 and down to s3; likewise s3 -> s1.
    CHECK(out(1, lid_of(3, 0)) == 2);
    CHECK(out(0, lid_of(3, 0)) == 2);
    CHECK(out(3, lid_of(1, 0)) == 1);
    CHECK(out(0, lid_of(1, 0)) == 1);
    // s1 -> s2 and s3 -> s2 go straight down; s2's own LID is port 0, its host port 3.
    CHECK(out(1, lid_of(2, 0)) == 1);
    CHECK(out(3, lid_of(2, 0)) == 2);
    CHECK(out(2, lid_of(2, 0)) == 0);
    CHECK(out(2, lid_of(6, 1)) == 3); // the CA on s2 (hosts follow the 4 switches)
    require_clean(r);
    require_up_down(r, orientation(r.fabric));
}

TEST_CASE("updn picks the spines of a 3-level tree and still joins them all")
{
    // PGFT(3; 4,4,4; 1,4,2): 8 spines in 4 groups no cable joins. OpenSM's
    // (rank, GUID) orientation makes every spine a top of its own: spine to
    // spine and middle-to-middle across groups have no legal path.
    Fabric f = small_pgft();
    const auto o = orientation(f);
    CHECK(o.rule == updn::RootRule::tree_tops);
    std::vector<Guid> spines;
    for (NodeId id : f.node_ids())
        if (f.node(id).is_switch() && f.node(id).description.find("L3") != std::string::npos) spines.push_back(f.node(id).guid);
    std::sort(spines.begin(), spines.end());
    REQUIRE(spines.size() == 8);
    CHECK(guids_of(f, o, o.roots) == spines);
    // Only the first place has no up link.
    for (std::size_t p = 1; p < o.size(); ++p) CHECK(o.up_first[p + 1] > o.up_first[p]);
    CHECK(o.up_first[1] == 0);

    for (auto b : {Balancing::global, Balancing::local}) {
        Options opt;
        opt.balancing = b;
        Routed r = route_updn(f, opt);
        require_clean(r);
        require_up_down(r, o);
    }
}

TEST_CASE("updn on chained trees takes every tree's spines as roots")
{
    Fabric f = chained_trees();
    const auto o = orientation(f);
    CHECK(o.rule == updn::RootRule::tree_tops);
    std::vector<Guid> spines;
    for (NodeId id : f.node_ids())
        if (f.node(id).description.rfind("spine", 0) == 0) spines.push_back(f.node(id).guid);
    CHECK(guids_of(f, o, o.roots) == spines);
    Routed r = route_updn(f);
    require_clean(r);
    require_up_down(r, o);
}

TEST_CASE("updn uses configured roots and refuses when none is a switch")
{
    auto t = test::two_level(4, 2, 2);
    Options opt;
    opt.root_guids = {t.fabric.node(t.leaves[2]).guid, Guid(0xdead)};
    const auto o = orientation(t.fabric, opt.root_guids);
    CHECK(o.rule == updn::RootRule::configured);
    CHECK(guids_of(t.fabric, o, o.roots) == std::vector<Guid>{t.fabric.node(t.leaves[2]).guid});
    CHECK(o.switches[0] == t.leaves[2]);
    Routed r = route_updn(t.fabric, opt);
    require_clean(r);
    require_up_down(r, o);

    opt.root_guids = {Guid(0xdead), t.fabric.node(t.hosts[0]).guid};
    auto refused = UpdnEngine().compute(t.fabric, r.lids, opt);
    REQUIRE(std::holds_alternative<Refusal>(refused));
    CHECK(std::get<Refusal>(refused).reason == "none of the 2 configured root GUIDs is a switch of this fabric");
}

TEST_CASE("updn on a fabric split in two routes each part on its own")
{
    // 12 switches, few random cables: several components.
    Fabric f = test::random_fabric(12, 8, 9, 2, 3);
    const auto o = orientation(f);
    Routed r = route_updn(f);
    require_up_down(r, o);
    analysis::Options ao;
    ao.run_ebb = false;
    ao.run_shifts = false;
    ao.threads = 1;
    const auto rep = analysis::analyze(r.fabric, r.tables, ao);
    CHECK(rep.of(analysis::PairClass::ca_to_ca).unreachable > 0); // across the split
    CHECK(rep.of(analysis::PairClass::ca_to_ca).loops == 0);
    CHECK_FALSE(rep.credit_all.has_loop());
}

TEST_CASE("updn global balancing beats local balancing on a tree")
{
    Options local;
    local.balancing = Balancing::local;
    const double g = ebb(route_updn(small_pgft()));
    const double l = ebb(route_updn(small_pgft(), local));
    CHECK(g > l + 0.1);
}

TEST_CASE("updn property: every generated kind reachable, up*/down*, acyclic on one VL, deterministic")
{
    struct Kind {
        std::string name;
        Fabric fabric;
    };
    auto degraded = topology::degrade(small_pgft(), topology::DegradeSpec{0, 12, 5, true}).fabric;
    std::vector<Kind> kinds;
    kinds.push_back({"pgft", small_pgft()});
    kinds.push_back({"pgft minus 12 links", std::move(degraded)});
    kinds.push_back({"ring 7", topology::generate_ring({7, 2})});
    kinds.push_back({"torus 4x5", topology::generate_torus({4, 5, 2, true})});
    kinds.push_back({"torus3d 3x3x2", topology::generate_torus3d({3, 3, 2, 1})});
    kinds.push_back({"hypercube 4", topology::generate_hypercube({4, 2})});
    kinds.push_back({"random 24x8", topology::generate_random({24, 3, 8, 11})});
    kinds.push_back({"chained trees", chained_trees()});
    for (const auto& kind : kinds)
        for (auto b : {Balancing::global, Balancing::local})
            for (std::uint8_t lmc : {0, 1}) {
                INFO(kind.name << (b == Balancing::global ? " global" : " local") << " LMC " << int(lmc));
                Options opt;
                opt.balancing = b;
                opt.lmc = lmc;
                Routed r = route_updn(kind.fabric, opt);
                require_clean(r);
                require_up_down(r, orientation(r.fabric));
                CHECK(same_lfts(route_updn(kind.fabric, opt).tables, r.tables));
            }
}
