// The chain with its verification gate (routing/chain.h): tables that fail
// are refused and the chain moves on; when nothing passes, the least bad
// tables are kept and the outcome says degraded.
//
// Fabric: a ring of five switches with a host each (test_minhop_fabrics.h),
// where MinHop has a credit loop. "line" routes it deadlock-free by never
// using the cable from the last switch back to the first; its variants
// break it in known ways.
#include "routing/chain.h"
#include "routing/minhop.h"
#include "routing/registry.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::test;
using namespace ibsm::routing;

namespace {

enum class Flaw { none, drop_ca_lid, switch_lids_only_at_home };

class LineEngine final : public Engine {
public:
    LineEngine(std::string name, Flaw flaw) : name_(std::move(name)), flaw_(flaw) {}
    std::string name() const override { return name_; }
    Result compute(const topology::Fabric& f, const lidassign::LidMap& lids, const Options&) const override
    {
        // Ring switches are nodes 0..n-1 (ring() adds them first).
        RoutingTables t;
        t.linear_fdb_top = lids.top();
        for (auto id : f.node_ids()) {
            if (!f.node(id).is_switch()) continue;
            auto& row = t.lfts[id].port;
            row.assign(lids.top().value() + 1u, no_route);
            for (auto [port, pl] : lids.entries()) {
                const bool to_switch = f.node(port.node).is_switch();
                const auto home = to_switch ? port.node : f.port(port).remote->node;
                std::uint8_t out = home.value == id.value ? (to_switch ? 0 : f.port(port).remote->port.value())
                                   : home.value > id.value ? 1
                                                           : 2;
                if (flaw_ == Flaw::switch_lids_only_at_home && to_switch && home.value != id.value) out = no_route;
                row[pl.base.value()] = out;
            }
        }
        if (flaw_ == Flaw::drop_ca_lid) {
            // Switch 2 drops the host of switch 0: hosts 2, 3, 4 lose it.
            const auto host0 = lids.lids_of(pr(NodeId{5}, 1));
            t.lfts[NodeId{2}].port[host0->base.value()] = no_route;
        }
        return t;
    }

private:
    std::string name_;
    Flaw flaw_;
};

Registry gate_registry()
{
    Registry r;
    r.add("minhop", [] { return std::make_unique<MinHopEngine>(); });
    r.add("line", [] { return std::make_unique<LineEngine>("line", Flaw::none); });
    r.add("holes", [] { return std::make_unique<LineEngine>("holes", Flaw::drop_ca_lid); });
    r.add("no_switch_lids", [] { return std::make_unique<LineEngine>("no_switch_lids", Flaw::switch_lids_only_at_home); });
    return r;
}

struct Setup {
    topology::Fabric f = ring(5, 1);
    lidassign::LidMap lids = simple_lids(f);
    ChainOutcome run(std::vector<std::string> engines, bool no_fallback = false) const
    {
        return run_chain(gate_registry(), ChainSpec{std::move(engines), no_fallback}, f, lids, Options{});
    }
};

} // namespace

TEST_CASE("chain gate: tables that fail are refused with the gate's reason, the chain moves on")
{
    Setup s;
    auto out = s.run({"holes", "line"});
    REQUIRE(out.tables);
    CHECK(out.engine() == "line");
    CHECK_FALSE(out.degraded);
    CHECK(out.degraded_reason.empty());
    CHECK_FALSE(out.fell_back);
    REQUIRE(out.refusals.size() == 1);
    CHECK(out.refusals[0].engine == "holes");
    CHECK_THAT(out.refusals[0].reason, Catch::StartsWith("3 CA pairs unreachable, e.g. "));
    REQUIRE(out.verdicts.size() == 2);
    CHECK(out.verdicts[0].engine == "holes");
    CHECK(out.verdicts[0].ca_to_ca.unreachable == 3);
    CHECK(out.verdicts[1].passed());
    REQUIRE(out.verdict());
    CHECK(out.verdict()->engine == "line");
}

TEST_CASE("chain gate: MinHop as fallback is gated too; nothing passes -> least bad kept, degraded")
{
    Setup s;
    auto out = s.run({"holes"});
    REQUIRE(out.tables);
    // MinHop delivers every pair but has a credit loop on the ring; "holes"
    // drops CA pairs, which is worse.
    CHECK(out.engine() == "minhop");
    CHECK(out.fell_back);
    CHECK(out.degraded);
    CHECK_THAT(out.degraded_reason, Catch::StartsWith("minhop: credit loop on VL 0 in CA traffic: "));
    REQUIRE(out.refusals.size() == 2);
    CHECK(out.refusals[1].engine == "minhop");
    REQUIRE(out.verdict());
    CHECK(out.verdict()->ca_credit_loop);
    CHECK(out.verdict()->ca_to_ca.undelivered() == 0);
}

TEST_CASE("chain gate: least-bad order among failed results")
{
    Setup s;
    SECTION("no CA credit loop beats CA->switch holes")
    {
        auto out = s.run({"minhop", "no_switch_lids"}, true);
        CHECK(out.engine() == "no_switch_lids");
        CHECK(out.degraded);
        CHECK_FALSE(out.fell_back);
        CHECK_THAT(out.degraded_reason, Catch::StartsWith("no_switch_lids: ") && Catch::Contains("CA→switch pairs unreachable"));
        CHECK(out.verdict()->ca_to_switch.unreachable > 0);
        CHECK_FALSE(out.verdict()->ca_credit_loop);
    }
    SECTION("fewer unreachable CA pairs beat no credit loop")
    {
        auto out = s.run({"holes", "minhop"}, true);
        CHECK(out.engine() == "minhop");
        CHECK(out.degraded);
        CHECK(out.verdicts.size() == 2);
    }
    SECTION("a control for the fixture: the line alone passes, MinHop alone does not")
    {
        CHECK_FALSE(s.run({"line"}, true).degraded);
        CHECK(s.run({"minhop"}, true).degraded);
    }
}
