// Dragonfly+ through the chain and its gate: the fat-tree engine must refuse
// it by name, the general engines must route it completely and loop-free.
#include "routing/chain.h"
#include "routing/registry.h"
#include "topology/gen_dragonfly.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::test;
using namespace ibsm::routing;

namespace {

void check_complete(const Verdict& v)
{
    INFO(v.engine << ": " << v.reason);
    CHECK(v.passed());
    CHECK(v.switch_pairs_checked);
    for (const PairCounts* c : {&v.ca_to_ca, &v.ca_to_switch, &v.switch_to_ca, &v.switch_to_switch}) {
        CHECK(c->pairs > 0);
        CHECK(c->unreachable == 0);
        CHECK(c->looping == 0);
    }
    CHECK_FALSE(v.ca_credit_loop);
    CHECK_FALSE(v.switch_credit_loop);
}

} // namespace

TEST_CASE("Dragonfly+: ftree refuses it as not a fat-tree, updn and dfsssp route every pair")
{
    // Every group pair on every plane, and a sparser one (K < G-1) whose
    // shortest paths between some groups cross a third group.
    for (auto params : {topology::DragonflyParams{4, 2, 2, 2, 0}, topology::DragonflyParams{8, 2, 3, 1, 2}}) {
        INFO("groups " << params.groups << ", global links per spine " << params.global_per_spine);
        const auto f = topology::generate_dragonfly(params);
        const auto lids = simple_lids(f);
        const Registry registry = default_registry();

        auto ftree = run_chain(registry, ChainSpec{{"ftree"}, true}, f, lids, Options{});
        CHECK_FALSE(ftree.tables);
        REQUIRE(ftree.refusals.size() == 1);
        CHECK_THAT(ftree.refusals[0].reason,
                   Catch::StartsWith("not a fat-tree: switch \"dfly-g00-spine00\"") &&
                       Catch::Contains("are linked at the same rank") &&
                       Catch::Contains("(only leaf switches may be linked horizontally)"));

        for (const char* engine : {"updn", "dfsssp"}) {
            auto out = run_chain(registry, ChainSpec{{engine}, true}, f, lids, Options{});
            REQUIRE(out.tables);
            CHECK(out.engine() == engine);
            CHECK(out.refusals.empty());
            REQUIRE(out.verdict());
            check_complete(*out.verdict());
        }

        // A chain led by ftree moves on past its refusal to dfsssp.
        auto chain = run_chain(registry, ChainSpec{{"ftree", "dfsssp", "updn"}, false}, f, lids, Options{});
        REQUIRE(chain.tables);
        CHECK(chain.engine() == "dfsssp");
        CHECK_FALSE(chain.degraded);
    }
}
