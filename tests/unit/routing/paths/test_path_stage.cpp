// Path engines as links of the chain (routing/paths/path_stage.h): both LID
// orders, persistence of the blocks, and the verification gate on the
// DLIDs the pairs use.
#include "routing/chain.h"
#include "routing/paths/path_stage.h"
#include "routing/registry.h"
#include "routing/verify.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <new>

using namespace ibsm;
using namespace ibsm::routing;
using topology::Fabric;

namespace {

Fabric random_fabric(std::uint64_t seed)
{
    topology::RandomParams p;
    p.switches = 8;
    p.hosts_per_switch = 4;
    p.ports_per_switch = 10;
    p.seed = seed;
    auto f = topology::generate_random(p);
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
    return f;
}

ChainOutcome run(const Fabric& f, const lidassign::LidMap& lids, const Options& o, const std::string& engine = "pathsel")
{
    return run_chain(default_registry(), ChainSpec{{engine}, true}, f, lids, o);
}

// pathsel's paths, but making the middle destination's paths runs out of
// memory on its `on_visit`-th visit: 1 in the LID stage's partition, 2 in
// realise_paths. Both visit on the stage's parallel loop, so the throw
// happens on whichever worker took that destination.
class OutOfMemoryPaths final : public paths::PathEngine {
public:
    OutOfMemoryPaths(int on_visit, std::shared_ptr<std::atomic<int>> visits)
        : inner_(paths::make_path_engine("pathsel", 0)), on_visit_(on_visit), visits_(std::move(visits))
    {
    }
    std::string name() const override { return "pathsel-oom"; }
    paths::PathResult compute(const Fabric& f, const Options& o) const override { return inner_->compute(f, o); }
    paths::PathSourceResult source(const Fabric& f, const Options& o) const override
    {
        auto got = inner_->source(f, o);
        if (auto* s = std::get_if<topology::PairPathSource>(&got)) {
            const std::size_t middle = s->destinations.size() / 2;
            s->visit = [visit = s->visit, middle, visits = visits_, on = on_visit_](
                           std::size_t i, const std::function<void(const topology::DestinationPaths&)>& fn) {
                if (i == middle && ++*visits == on) throw std::bad_alloc();
                visit(i, fn);
            };
        }
        return got;
    }

private:
    std::unique_ptr<paths::PathEngine> inner_;
    int on_visit_;
    std::shared_ptr<std::atomic<int>> visits_; // of the middle destination
};

} // namespace

TEST_CASE("pathsel through the chain, colour-first: own LIDs with per-port LMC, every pair verified on its DLID")
{
    const auto f = random_fabric(3);
    const auto base = lidassign::assign_base_lids(f, {}, {}).lids;
    Options o;
    auto out = run(f, base, o);
    REQUIRE(out.tables);
    INFO((out.refusals.empty() ? std::string() : out.refusals.front().reason));
    CHECK_FALSE(out.degraded);
    const auto& t = *out.tables;
    REQUIRE(t.lids);
    REQUIRE(t.pair_dlids);
    unsigned multi = 0;
    for (const auto& [port, pl] : t.lids->entries())
        if (!f.node(port.node).is_switch() && pl.lmc > 0) ++multi;
    CHECK(multi > 0);
    CHECK(t.lid_notes.back().find("color-l, colour-first") != std::string::npos);
    // Every source has a DLID for every other CA, switches included.
    CHECK(t.pair_dlids->sources.size() == f.ca_count() + f.switch_count());

    SECTION("the previous blocks are kept on the next run")
    {
        for (const auto& [port, pl] : t.lids->entries()) o.previous_lids[f.port(port).guid] = pl.base;
        auto again = run(f, base, o);
        REQUIRE(again.tables);
        REQUIRE(again.tables->lids);
        const auto a = again.tables->lids->entries(), b = t.lids->entries();
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            CHECK(a[i].first == b[i].first);
            CHECK(a[i].second.base == b[i].second.base);
            CHECK(a[i].second.lmc == b[i].second.lmc);
        }
        for (const auto& n : again.tables->lid_notes) CHECK(n.find("moved") == std::string::npos);
    }
    SECTION("the gate checks the non-base LIDs the pairs use")
    {
        const auto& dl = *t.pair_dlids;
        std::optional<std::pair<std::size_t, std::size_t>> pick;
        for (std::size_t s = 0; s < dl.sources.size() && !pick; ++s)
            for (std::size_t d = 0; d < dl.destinations.size() && !pick; ++d)
                if (dl.offset_of(s, d) != PairDlids::no_path && dl.offset_of(s, d) > 0 &&
                    !f.node(dl.sources[s].node).is_switch())
                    pick.emplace(s, d);
        REQUIRE(pick);
        RoutingTables broken = t;
        const auto src = dl.sources[pick->first];
        const auto first_switch = f.remote(src)->node;
        broken.lfts.at(first_switch).port[dl.dlid(pick->first, pick->second)->value()] = no_route;
        const Verdict v = verify(f, *t.lids, broken);
        CHECK_FALSE(v.passed());
        CHECK_THAT(v.reason, Catch::Contains("pairs not delivered on the DLID of their path"));
        CHECK(verify(f, *t.lids, t).passed());
    }
}

TEST_CASE("fixed-lmc: LIDs from before routing, a destination needing more than 2^LMC refuses by name")
{
    const auto f = random_fabric(4);
    Options o;
    o.lid_order = lidassign::LidOrder::fixed_lmc;
    const auto lmc0 = lidassign::assign_base_lids(f, {}, {}).lids;
    auto out = run(f, lmc0, o, "shortest-widest");
    REQUIRE_FALSE(out.tables);
    REQUIRE(out.refusals.size() == 1);
    CHECK_THAT(out.refusals[0].reason, Catch::Contains("fixed LMC too small") &&
                                           Catch::Contains("but LMC 0 gives 1 LIDs") &&
                                           Catch::Contains("configurations"));
    lidassign::BaseLidOptions bo;
    bo.lmc = 3;
    const auto lmc3 = lidassign::assign_base_lids(f, {}, bo).lids;
    auto ok = run(f, lmc3, o, "shortest-widest");
    REQUIRE(ok.tables);
    CHECK_FALSE(ok.degraded);
    CHECK_FALSE(ok.tables->lids); // the LIDs it was given
    CHECK(ok.tables->pair_dlids);
}

TEST_CASE("colour-first refuses when the LID space runs out, and the chain falls back")
{
    const auto f = random_fabric(5);
    Options o;
    o.max_lid = static_cast<std::uint16_t>(f.ca_count() + f.switch_count() + 2);
    const auto base = lidassign::assign_base_lids(f, {}, {}).lids;
    auto out = run_chain(default_registry(), ChainSpec{{"pathsel"}, false}, f, base, o);
    REQUIRE_FALSE(out.refusals.empty());
    CHECK(out.refusals[0].engine == "pathsel");
    CHECK_THAT(out.refusals[0].reason, Catch::Contains("LID assignment") && Catch::Contains("out of unicast LIDs"));
    REQUIRE(out.tables);
    CHECK(out.engine() == "minhop");
}

TEST_CASE("a path stage whose worker runs out of memory is a refusal, and the chain moves on")
{
    const auto f = random_fabric(7);
    const auto base = lidassign::assign_base_lids(f, {}, {}).lids;
    for (int on_visit : {1, 2}) {
        INFO("bad_alloc on visit " << on_visit);
        const auto visits = std::make_shared<std::atomic<int>>(0);
        Registry r = default_registry();
        r.add("pathsel-oom", [on_visit, visits] {
            return std::make_unique<paths::PathStageEngine>(std::make_unique<OutOfMemoryPaths>(on_visit, visits));
        });
        auto out = run_chain(r, ChainSpec{{"pathsel-oom", "updn"}, false}, f, base, Options{});
        CHECK(visits->load() >= on_visit); // the failing visit happened
        REQUIRE(out.refusals.size() == 1);
        CHECK(out.refusals[0].engine == "pathsel-oom");
        CHECK(out.refusals[0].reason == "engine failed: std::bad_alloc");
        REQUIRE(out.tables);
        CHECK(out.engine() == "updn");
        CHECK_FALSE(out.fell_back);
        REQUIRE(out.verdict());
        CHECK(out.verdict()->passed());
    }
}

TEST_CASE("updn-paths: Up*/Down* routes through the LID stage need one LID per destination")
{
    const auto f = random_fabric(6);
    const auto base = lidassign::assign_base_lids(f, {}, {}).lids;
    auto out = run(f, base, Options{}, "updn-paths");
    REQUIRE(out.tables);
    CHECK_FALSE(out.degraded);
    REQUIRE(out.tables->lids);
    for (const auto& [port, pl] : out.tables->lids->entries()) CHECK(pl.lmc == 0);
}
