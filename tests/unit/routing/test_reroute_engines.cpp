// Incremental re-route of minhop, updn and sssp against a full run (issue 36,
// item 1): random sequences of deltas (links down and up, switches gone and
// back, hosts gone and back) routed through one routing::ChainMemory, as the
// daemon does, and after every delta compared with a fresh chain on the same
// fabric and LIDs: the re-route must pass the gate the full run passes,
// reach every pair it reaches, have no credit loop the full run has not, and
// be within 1 % of its EBB. Comparing after every step, and once more when
// everything is back, is what shows drift.
//
// That the incremental path is taken is checked, not assumed: minhop must
// re-route incrementally after every verified routing; updn and sssp may
// run in full only for the reasons their re-route gives (the Up*/Down*
// ranking changed, a switch came back), never silently; and each sequence
// must have had incremental steps.
#include "reroute_world.h"

#include "routing/chain.h"
#include "routing/registry.h"
#include "topology/gen_chain.h"
#include "topology/gen_degrade.h"
#include "topology/gen_dragonfly.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace ibsm;
using namespace ibsm::routing;
using namespace ibsm::reroute_test;
using topology::Fabric;

namespace {

unsigned env_or(const char* name, unsigned fallback)
{
    const char* v = std::getenv(name);
    return v && *v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : fallback;
}

enum class Expect { every_step, or_says_why };

struct Counts {
    unsigned steps = 0, incremental = 0;
};

// EBB re-route / full run over every incremental step of a TEST_CASE: a
// re-route that drifts (balance lost step after step) pulls the mean down;
// one step's ratio on a small fabric spreads both ways.
struct Ratios {
    double sum = 0;
    unsigned n = 0;
    double mean() const { return n ? sum / n : 1.0; }
};

// One re-route and one full run on the world's current fabric, compared.
void compare(const World& w, const std::string& engine, ChainMemory& memory, Expect expect, const Options& options,
             double ebb_floor, Counts& counts, Ratios& ratios)
{
    const auto& registry = default_registry();
    const ChainSpec spec{{engine}, true};
    const Fabric f = w.current();
    const auto lids = w.lids_of(f);
    const bool had = memory.tables && memory.tables->engine == engine;
    auto re = run_chain(registry, spec, f, lids, options, &memory);
    auto full = run_chain(registry, spec, f, lids, options);
    REQUIRE(full.tables);
    REQUIRE(re.tables);
    INFO("re-route: " << re.route_how);
    INFO("gate: " << re.verdict()->reason << " / full run: " << full.verdict()->reason);
    const Verdict& vr = *re.verdict();
    const Verdict& vf = *full.verdict();
    CHECK((vr.passed() || !vf.passed()));
    CHECK(vr.ca_to_ca.undelivered() <= vf.ca_to_ca.undelivered());
    CHECK(vr.other_undelivered() <= vf.other_undelivered());
    CHECK((!vr.ca_credit_loop || vf.ca_credit_loop));
    const double a = ebb(f, lids, *re.tables), b = ebb(f, lids, *full.tables);
    INFO("EBB re-route " << a << ", full run " << b);
    CHECK(a >= ebb_floor * b);
    // Never the default "E has no incremental re-route".
    CHECK(re.route_how.find("no incremental re-route") == std::string::npos);
    if (had) {
        ++counts.steps;
        counts.incremental += re.incremental;
        if (re.incremental && b > 0) {
            ratios.sum += a / b;
            ++ratios.n;
        }
        // The chain runs a re-route whose tables fail the gate again in
        // full (chain.cpp), and says so; minhop has no other reason to.
        const bool retried = re.route_how.find("the incremental re-route failed the gate") != std::string::npos;
        if (expect == Expect::every_step) CHECK((re.incremental || retried));
        if (!re.incremental) CHECK(re.route_how.rfind("full run (", 0) == 0);
        if (re.incremental) CHECK(re.route_how.rfind("incremental (", 0) == 0);
    }
}

// `ebb_floor`: the re-route's EBB over the full run's, at least, at every
// step. 0.98 on fabrics of hundreds of hosts (the long mode, 50 deltas x 5
// seeds, saw 0.989 once at 512 hosts); on 16-64 hosts one route more
// or less on a port moves the EBB by several per cent either way (a kept
// routing is not the one a full run would make): over 5 seeds x 20 deltas
// the ratio's mean was 0.996 (minhop), 1.001 (updn), 1.003 (sssp) and its
// least 0.935, 0.963, 0.944, so there the bound is 0.93 per step and 0.99
// for the mean of a TEST_CASE.
void check_sequence(Ratios& ratios, const std::string& name, Fabric whole, const std::string& engine, Expect expect,
                    std::uint64_t seed, unsigned steps, double ebb_floor, std::uint8_t lmc = 0)
{
    INFO(name << " " << engine << " seed " << seed << " lmc " << int{lmc});
    World w;
    lidassign::BaseLidOptions lo;
    lo.lmc = lmc;
    w.whole_lids = lidassign::assign_base_lids(whole, {}, lo).lids;
    w.whole = std::move(whole);
    std::mt19937_64 rng(seed);
    Options options;
    options.lmc = lmc;
    ChainMemory memory;
    {
        const Fabric f = w.current();
        auto first = run_chain(default_registry(), ChainSpec{{engine}, true}, f, w.lids_of(f), options, &memory);
        REQUIRE(first.tables);
        REQUIRE_FALSE(first.degraded);
    }
    Counts counts;
    for (unsigned step = 0; step < steps; ++step) {
        std::string what;
        if (!random_delta(w, rng, what)) break;
        INFO("step " << step << ": " << what);
        compare(w, engine, memory, expect, options, ebb_floor, counts, ratios);
    }
    // Everything back in one delta: no drift over the whole sequence.
    w.cables_out.clear();
    w.nodes_out.clear();
    {
        INFO("all back");
        compare(w, engine, memory, expect, options, ebb_floor, counts, ratios);
    }
    INFO(counts.incremental << " of " << counts.steps << " re-routes from a verified routing were incremental");
    CHECK(counts.incremental > 0);
}

constexpr double small = 0.93, large = 0.98;

} // namespace

TEST_CASE("re-route: minhop re-chooses only the entries a delta changes", "[reroute][property]")
{
    const unsigned steps = env_or("IBSM_REROUTE_STEPS", 12), seeds = env_or("IBSM_REROUTE_SEEDS", 1);
    Ratios ratios;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        // MinHop passes the gate on fat-trees only (elsewhere credit loops):
        // a re-route starts only from a verified routing.
        check_sequence(ratios, "pgft 4,4,4", topology::generate_pgft({{4, 4, 4}, {1, 4, 2}, {1, 1, 1}}), "minhop",
                       Expect::every_step, seed, steps, small);
        check_sequence(ratios, "pgft 2-level, 2 cables per parent",
                       topology::generate_pgft(topology::PgftParams{{4, 6}, {1, 2}, {1, 2}}), "minhop",
                       Expect::every_step, seed, steps, small);
        check_sequence(ratios, "pgft 2-level 8x8, LMC 1", topology::generate_pgft(topology::PgftParams{{8, 8}, {1, 4}, {1, 1}}),
                       "minhop", Expect::every_step, seed, steps, small, 1);
    }
    // 512 hosts, a few deltas: the 1 % bound.
    check_sequence(ratios, "pgft 8,8,8", topology::generate_pgft({{8, 8, 8}, {1, 8, 4}, {1, 1, 1}}), "minhop",
                   Expect::every_step, 1, steps / 3, large);
    INFO("mean EBB re-route / full run over " << ratios.n << " incremental steps: " << ratios.mean());
    CHECK(ratios.n > 0);
    CHECK(ratios.mean() >= 0.99);
}

TEST_CASE("re-route: updn re-routes the destinations whose trees a delta touched", "[reroute][property]")
{
    const unsigned steps = env_or("IBSM_REROUTE_STEPS", 12), seeds = env_or("IBSM_REROUTE_SEEDS", 1);
    Ratios ratios;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        check_sequence(ratios, "pgft 4,4,4", topology::generate_pgft({{4, 4, 4}, {1, 4, 2}, {1, 1, 1}}), "updn",
                       Expect::or_says_why, seed, steps, small);
        topology::DegradeSpec d;
        d.links = 4;
        d.seed = seed;
        check_sequence(ratios, "pgft degraded",
                       topology::degrade(topology::generate_pgft({{4, 4, 4}, {1, 4, 2}, {1, 1, 1}}), d).fabric,
                       "updn", Expect::or_says_why, seed, steps, small);
        check_sequence(ratios, "torus", topology::generate_torus({3, 3, 2, true}), "updn", Expect::or_says_why, seed, steps, small);
        check_sequence(ratios, "hypercube", topology::generate_hypercube({3, 2}), "updn", Expect::or_says_why, seed, steps, small);
        check_sequence(ratios, "random", topology::generate_random({8, 2, 6, seed}), "updn", Expect::or_says_why, seed,
                       steps, small);
        check_sequence(ratios, "dragonfly+", topology::generate_dragonfly({3, 2, 2, 2, 0}), "updn", Expect::or_says_why,
                       seed, steps, small);
        check_sequence(ratios, "pgft 2-level 8x8, LMC 1", topology::generate_pgft(topology::PgftParams{{8, 8}, {1, 4}, {1, 1}}),
                       "updn", Expect::or_says_why, seed, steps, small, 1);
    }
    check_sequence(ratios, "pgft 8,8,8", topology::generate_pgft({{8, 8, 8}, {1, 8, 4}, {1, 1, 1}}), "updn",
                   Expect::or_says_why, 1, steps / 3, large);
    check_sequence(ratios, "random 32 switches", topology::generate_random({32, 8, 16, 1}), "updn", Expect::or_says_why, 1,
                   steps / 3, large);
    INFO("mean EBB re-route / full run over " << ratios.n << " incremental steps: " << ratios.mean());
    CHECK(ratios.n > 0);
    CHECK(ratios.mean() >= 0.99);
}

TEST_CASE("re-route: sssp re-routes the destinations whose trees a delta touched", "[reroute][property]")
{
    const unsigned steps = env_or("IBSM_REROUTE_STEPS", 12), seeds = env_or("IBSM_REROUTE_SEEDS", 1);
    Ratios ratios;
    // sssp is not deadlock-free: the gate passes it on fat-trees, and a
    // re-route starts only from a verified routing.
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        check_sequence(ratios, "pgft 4,4,4", topology::generate_pgft({{4, 4, 4}, {1, 4, 2}, {1, 1, 1}}), "sssp",
                       Expect::or_says_why, seed, steps, small);
        check_sequence(ratios, "pgft 2-level, 2 cables per parent",
                       topology::generate_pgft(topology::PgftParams{{4, 6}, {1, 2}, {1, 2}}), "sssp",
                       Expect::or_says_why, seed, steps, small);
    }
    check_sequence(ratios, "pgft 8,8,8", topology::generate_pgft({{8, 8, 8}, {1, 8, 4}, {1, 1, 1}}), "sssp",
                   Expect::or_says_why, 1, steps / 3, large);
    INFO("mean EBB re-route / full run over " << ratios.n << " incremental steps: " << ratios.mean());
    CHECK(ratios.n > 0);
    CHECK(ratios.mean() >= 0.99);
}
