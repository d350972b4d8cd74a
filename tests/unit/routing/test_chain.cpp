#include "routing/chain.h"
#include "routing/registry.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ibsm;
using namespace ibsm::test;
using namespace ibsm::routing;

namespace {

class RefusingEngine final : public Engine {
public:
    RefusingEngine(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
    std::string name() const override { return name_; }
    Result compute(const topology::Fabric&, const lidassign::LidMap&, const Options&) const override
    {
        return Refusal{name_, reason_};
    }

private:
    std::string name_, reason_;
};

class ThrowingEngine final : public Engine {
public:
    std::string name() const override { return "broken"; }
    Result compute(const topology::Fabric&, const lidassign::LidMap&, const Options&) const override
    {
        throw std::runtime_error("boom");
    }
};

// Routes nothing but says it did: lets the test see which engine won.
class EmptyEngine final : public Engine {
public:
    std::string name() const override { return "empty"; }
    Result compute(const topology::Fabric&, const lidassign::LidMap& lids, const Options&) const override
    {
        RoutingTables t;
        t.engine = "set-by-chain";
        t.linear_fdb_top = lids.top();
        return t;
    }
};

Registry test_registry()
{
    Registry r = default_registry();
    r.add("fake_ftree", [] { return std::make_unique<RefusingEngine>("fake_ftree", "not a fat-tree: switch 0x1 has CAs at rank 2"); });
    r.add("fake_updn", [] { return std::make_unique<RefusingEngine>("fake_updn", "no root switches found"); });
    r.add("broken", [] { return std::make_unique<ThrowingEngine>(); });
    r.add("empty", [] { return std::make_unique<EmptyEngine>(); });
    return r;
}

} // namespace

TEST_CASE("Registry maps names to engines")
{
    Registry r = test_registry();
    CHECK(r.names() == std::vector<std::string>{"broken", "dfsssp", "dfsssp-or-nue", "empty", "fake_ftree", "fake_updn",
                                                "ftree", "minhop", "nue", "pathsel", "sftree", "shortest-widest",
                                                "sssp", "updn", "updn-paths"});
    CHECK(r.contains("minhop"));
    CHECK_FALSE(r.contains("lash"));
    CHECK(r.create("lash") == nullptr);
    REQUIRE(r.create("minhop") != nullptr);
    CHECK(r.create("minhop")->name() == "minhop");
    CHECK_THROWS_AS(r.add("minhop", [] { return std::make_unique<EmptyEngine>(); }), std::invalid_argument);
    CHECK_THROWS_AS(r.add("", [] { return std::make_unique<EmptyEngine>(); }), std::invalid_argument);
}

TEST_CASE("Chain records every refusal and falls back to MinHop")
{
    auto t = two_level(3, 2, 2);
    auto lids = simple_lids(t.fabric);
    auto out = run_chain(test_registry(), ChainSpec{{"fake_ftree", "fake_updn"}, false}, t.fabric, lids, Options{});
    REQUIRE(out.tables);
    CHECK(out.engine() == "minhop");
    CHECK(out.fell_back);
    REQUIRE(out.refusals.size() == 2);
    CHECK(out.refusals[0].engine == "fake_ftree");
    CHECK(out.refusals[0].reason == "not a fat-tree: switch 0x1 has CAs at rank 2");
    CHECK(out.refusals[1].engine == "fake_updn");
    CHECK(out.refusals[1].reason == "no root switches found");
    auto c = check_routes(t.fabric, lids, *out.tables);
    CHECK(c.unreachable == 0);
    CHECK(c.loops == 0);
}

TEST_CASE("Chain respects no_fallback")
{
    auto t = two_level(2, 1, 1);
    auto lids = simple_lids(t.fabric);
    auto out = run_chain(test_registry(), ChainSpec{{"fake_ftree", "fake_updn"}, true}, t.fabric, lids, Options{});
    CHECK_FALSE(out.tables);
    CHECK(out.engine().empty());
    CHECK_FALSE(out.fell_back);
    CHECK(out.refusals.size() == 2);
}

TEST_CASE("Chain stops at the first engine that routes")
{
    auto t = two_level(2, 1, 1);
    auto lids = simple_lids(t.fabric);
    auto out = run_chain(test_registry(), ChainSpec{{"fake_ftree", "minhop", "empty"}, false}, t.fabric, lids, Options{});
    REQUIRE(out.tables);
    CHECK(out.engine() == "minhop"); // the chain stamps the engine's name
    CHECK_FALSE(out.fell_back);
    CHECK_FALSE(out.degraded);
    REQUIRE(out.refusals.size() == 1);
    CHECK(out.refusals[0].engine == "fake_ftree");
    REQUIRE(out.verdicts.size() == 1); // "empty" was never run
    CHECK(out.verdicts[0].passed());

    // MinHop named in the chain is not run a second time as fallback.
    auto mh = run_chain(test_registry(), ChainSpec{{"minhop"}, false}, t.fabric, lids, Options{});
    CHECK(mh.engine() == "minhop");
    CHECK_FALSE(mh.fell_back);
    CHECK(mh.verdicts.size() == 1);

    // Tables that route nothing are produced, but the gate refuses them.
    auto e = run_chain(test_registry(), ChainSpec{{"empty"}, false}, t.fabric, lids, Options{});
    CHECK(e.engine() == "minhop");
    CHECK(e.fell_back);
    REQUIRE(e.refusals.size() == 1);
    CHECK(e.refusals[0].engine == "empty");
    CHECK_THAT(e.refusals[0].reason, Catch::StartsWith("2 CA pairs unreachable, e.g. "));
}

TEST_CASE("Chain turns an engine exception into a refusal")
{
    auto t = two_level(2, 1, 1);
    auto lids = simple_lids(t.fabric);
    auto out = run_chain(test_registry(), ChainSpec{{"broken"}, false}, t.fabric, lids, Options{});
    CHECK(out.engine() == "minhop");
    REQUIRE(out.refusals.size() == 1);
    CHECK(out.refusals[0].engine == "broken");
    CHECK(out.refusals[0].reason == "engine failed: boom");
}

TEST_CASE("Chain rejects bad specs up front")
{
    auto reg = test_registry();
    CHECK_THROWS_WITH(validate(reg, ChainSpec{{"fake_ftree", "sftre"}, false}),
                      "unknown routing engine 'sftre' (known: broken, dfsssp, dfsssp-or-nue, empty, fake_ftree, fake_updn, "
                      "ftree, minhop, nue, pathsel, sftree, shortest-widest, sssp, updn, updn-paths)");
    CHECK_THROWS_WITH(validate(reg, ChainSpec{{"fake_ftree", "fake_ftree"}, false}),
                      "routing engine 'fake_ftree' appears twice in the chain");
    CHECK_THROWS_WITH(validate(reg, ChainSpec{{}, false}), "routing chain is empty");
    Registry bare;
    bare.add("fake_ftree", [] { return std::make_unique<RefusingEngine>("fake_ftree", "x"); });
    CHECK_THROWS_WITH(validate(bare, ChainSpec{{"fake_ftree"}, false}), "fallback engine 'minhop' is not registered");
    CHECK_NOTHROW(validate(bare, ChainSpec{{"fake_ftree"}, true}));
}

TEST_CASE("Engine lists split on commas")
{
    CHECK(split_engine_list("sftree,updn, minhop") == std::vector<std::string>{"sftree", "updn", "minhop"});
    CHECK(split_engine_list("minhop") == std::vector<std::string>{"minhop"});
    CHECK_THROWS_WITH(split_engine_list("a,,b"), "empty engine name in list 'a,,b'");
    CHECK_THROWS_AS(split_engine_list(""), std::invalid_argument);
}
