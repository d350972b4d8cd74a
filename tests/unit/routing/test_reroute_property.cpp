// Incremental re-route against a full run (issue 36, item 3): on every
// generator, a random sequence of deltas (links down and up, switches gone
// and back, hosts added) is routed through one routing::ChainMemory, as the
// daemon does, and after every delta compared with a fresh chain on the same
// fabric and LIDs:
// - ftree and sftree re-decide only what the delta may change, keeping the
//   parents' D-Mod-K digits where a fresh run may number a smaller tree
//   anew: they must pass the same gate, reach every pair the full run
//   reaches and be within 1 % of its EBB; whenever every cable and switch
//   is back they must be identical to the full run's tables (no drift);
// - every other chain (nue, dfsssp, ...) runs in full and must say so
//   (minhop and updn re-route incrementally: test_reroute_engines.cpp);
//   its tables must pass the gate the full run passes, reach every pair it
//   reaches, and be within 1 % of its EBB.
// Comparing after every delta is what shows drift: a sequence that stays
// identical step by step cannot drift. The LIDs are those of the whole
// fabric, kept by GUID (a switch that comes back gets its LID back, as
// guid2lid gives it).
//
// CI size: small fabrics, 12 deltas each. IBSM_REROUTE_STEPS (the long mode
// of tests/bench/reroute_property.sh: 50) and IBSM_REROUTE_SEEDS raise both.
#include "lidassign/base_lids.h"
#include "reroute_world.h"
#include "routing/analysis/analyze.h"
#include "routing/chain.h"
#include "routing/fattree/dmodk_state.h"
#include "routing/registry.h"
#include "topology/fabric_subset.h"
#include "topology/gen_chain.h"
#include "topology/gen_degrade.h"
#include "topology/gen_dragonfly.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>

using namespace ibsm;
using namespace ibsm::routing;
using topology::Fabric;

using reroute_test::ebb;
using reroute_test::has_host;
using reroute_test::random_delta;
using reroute_test::World;

namespace {

unsigned env_or(const char* name, unsigned fallback)
{
    const char* v = std::getenv(name);
    return v && *v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : fallback;
}

bool same_lfts(const RoutingTables& a, const RoutingTables& b)
{
    if (a.lfts.size() != b.lfts.size()) return false;
    for (const auto& [sw, lft] : a.lfts) {
        auto it = b.lfts.find(sw);
        if (it == b.lfts.end() || it->second.port != lft.port) return false;
    }
    return true;
}

// The confinement of an ftree/sftree re-route (sftree.cpp, "Re-route"):
// the re-route from `memory` to fabric `f` as the chain runs it (the last
// Algorithm 2 entries and credit-loop dependencies kept where the delta
// cannot change them) against the same re-route with those forgotten
// (Algorithm 2 and the safety net whole, on the same D-Mod-K re-route):
// the tables must be identical. Returns whether the confined one kept
// any (so a caller can check the confinement was exercised).
bool check_confined(const std::string& engine_name, const ChainMemory& memory, const Fabric& f,
                    const lidassign::LidMap& lids, const Options& options)
{
    if (!memory.tables || memory.tables->engine != engine_name) return false;
    const auto* st = dynamic_cast<const fattree::DmodkState*>(memory.engine_state.get());
    REQUIRE(st);
    auto forgot = std::make_shared<fattree::DmodkState>(*st);
    forgot->alg2_kept = false;
    forgot->dependencies.clear();
    const auto delta = topology::fabric_delta(*memory.fabric, f);
    const Previous with{*memory.fabric, *memory.lids, *memory.tables, st, delta};
    const Previous without{*memory.fabric, *memory.lids, *memory.tables, forgot.get(), delta};
    const auto engine = default_registry().create(engine_name);
    REQUIRE(engine);
    const auto a = engine->compute_after(f, lids, options, &with);
    const auto b = engine->compute_after(f, lids, options, &without);
    const auto* ta = std::get_if<RoutingTables>(&a.result);
    const auto* tb = std::get_if<RoutingTables>(&b.result);
    REQUIRE((ta != nullptr) == (tb != nullptr));
    if (!ta) return false;
    INFO("confined: " << a.how << "\nwhole: " << b.how);
    CHECK(a.incremental == b.incremental);
    CHECK(ta->lfts.size() == tb->lfts.size());
    bool same = ta->lfts.size() == tb->lfts.size();
    for (const auto& [sw, lft] : ta->lfts) {
        auto it = tb->lfts.find(sw);
        same = same && it != tb->lfts.end() && it->second.port == lft.port;
    }
    CHECK(same);
    CHECK(b.how.find("the others kept") == std::string::npos);
    return a.how.find("the others kept") != std::string::npos;
}

// Runs `steps` random deltas on `whole` through one memory, comparing with a
// full run after each. `exact`: the engine re-routes incrementally and must
// give the full run's tables.
void check_sequence(const std::string& name, Fabric whole, const ChainSpec& spec, bool exact, std::uint64_t seed,
                    unsigned steps)
{
    INFO(name << " " << spec.engines.front() << " seed " << seed);
    World w;
    w.whole_lids = lidassign::assign_base_lids(whole, {}, {}).lids;
    w.whole = std::move(whole);
    std::mt19937_64 rng(seed);
    const auto& registry = default_registry();
    Options options;
    options.max_vls = 4;
    ChainMemory memory;
    {
        const Fabric f = w.current();
        auto first = run_chain(registry, spec, f, w.lids_of(f), options, &memory);
        REQUIRE(first.tables);
        REQUIRE_FALSE(first.degraded);
        CHECK(first.route_how.find("full run (no previous routing)") != std::string::npos);
    }
    unsigned incremental = 0, identical = 0, confined = 0;
    bool fresh_digits = true; // no full run since the first: digits are the whole tree's
    for (unsigned step = 0; step < steps; ++step) {
        std::string what;
        if (!random_delta(w, rng, what)) break;
        INFO("step " << step << ": " << what);
        const Fabric f = w.current();
        const auto lids = w.lids_of(f);
        if (exact) confined += check_confined(spec.engines.front(), memory, f, lids, options);
        auto re = run_chain(registry, spec, f, lids, options, &memory);
        auto full = run_chain(registry, spec, f, lids, options);
        if (!full.tables) {
            // Enough cables out that the fabric is no fat-tree any more
            // (the long mode gets there): the re-route refuses as well.
            CHECK_FALSE(re.tables);
            fresh_digits = false;
            continue;
        }
        REQUIRE(re.tables);
        INFO("re-route: " << re.route_how);
        CHECK(re.engine() == full.engine());
        const Verdict& vr = *re.verdict();
        const Verdict& vf = *full.verdict();
        // Every pair the full run reaches, the re-route reaches; the same gate.
        CHECK(vr.passed() == vf.passed());
        CHECK(re.degraded == full.degraded);
        CHECK(vr.ca_to_ca.undelivered() <= vf.ca_to_ca.undelivered());
        CHECK(vr.other_undelivered() <= vf.other_undelivered());
        CHECK(vr.ca_credit_loop == vf.ca_credit_loop);
        bool switch_out = false;
        for (auto g : w.nodes_out) switch_out |= w.whole.node(*w.whole.find_node(g)).is_switch();
        fresh_digits &= !exact || re.incremental;
        if (exact && fresh_digits && !switch_out && w.cables_out.empty()) {
            // The whole tree again, numbered as the first run numbered it:
            // what the deltas in between did has left no trace.
            CHECK(same_lfts(*re.tables, *full.tables));
            ++identical;
        }
        // With switches or cables out the re-route keeps the parents' digits
        // where a fresh run may number the smaller tree anew: as good by the
        // gate (above) and the EBB.
        const double a = ebb(f, lids, *re.tables), b = ebb(f, lids, *full.tables);
        CHECK(a >= 0.99 * b);
        if (exact)
            incremental += re.incremental;
        else
            // nue and dfsssp run in full; with enough hosts or cables gone
            // a ring or a random fabric can become a tree ftree routes, and
            // from then on ftree re-routes it incrementally (the long mode
            // gets there).
            CHECK_FALSE((re.incremental && re.engine() != "ftree"));
        // A re-route from a verified routing of the same engine says which
        // it ran; the first delta after a failed gate is a full run.
        CHECK((re.route_how.rfind("incremental", 0) == 0 || re.route_how.rfind("full run", 0) == 0));
    }
    // The tree engines did re-route incrementally (a check that cannot pass
    // by always running in full).
    // Everything back in one last delta: the tree engines' tables must be
    // a fresh run's again (no drift over the whole sequence).
    if (exact && fresh_digits) {
        w.cables_out.clear();
        w.nodes_out.clear();
        const Fabric f = w.current();
        const auto lids = w.lids_of(f);
        auto re = run_chain(registry, spec, f, lids, options, &memory);
        auto full = run_chain(registry, spec, f, lids, options);
        REQUIRE(re.tables);
        REQUIRE(full.tables);
        INFO("all back: " << re.route_how);
        if (re.incremental) CHECK(same_lfts(*re.tables, *full.tables));
        identical += re.incremental;
        CHECK(identical > 0);
    }
    if (exact) CHECK(incremental > 0);
}

} // namespace

TEST_CASE("re-route: ftree and sftree re-decide a delta exactly as a full run", "[reroute][property]")
{
    const unsigned steps = env_or("IBSM_REROUTE_STEPS", 12), seeds = env_or("IBSM_REROUTE_SEEDS", 1);
    topology::PgftParams tree{{4, 4, 4}, {1, 4, 2}, {1, 1, 1}};
    for (std::uint64_t seed = 1; seed <= seeds; ++seed)
        for (const char* engine : {"ftree", "sftree"}) {
            check_sequence("pgft 4,4,4", topology::generate_pgft(tree), ChainSpec{{engine}, true}, true, seed, steps);
            topology::DegradeSpec d;
            d.links = 4;
            d.seed = seed;
            check_sequence("pgft degraded", topology::degrade(topology::generate_pgft(tree), d).fabric,
                           ChainSpec{{engine}, true}, true, seed, steps);
            check_sequence("pgft 2-level, 2 cables per parent",
                           topology::generate_pgft(topology::PgftParams{{4, 6}, {1, 2}, {1, 2}}),
                           ChainSpec{{engine}, true}, true, seed, steps);
        }
}

TEST_CASE("re-route: other fabrics run the chain in full and say so", "[reroute][property]")
{
    const unsigned steps = env_or("IBSM_REROUTE_STEPS", 12) / 2 + 1, seeds = env_or("IBSM_REROUTE_SEEDS", 1);
    const ChainSpec chain{{"ftree", "nue", "dfsssp"}, false};
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        check_sequence("ring", topology::generate_ring({6, 2}), chain, false, seed, steps);
        check_sequence("torus", topology::generate_torus({3, 3, 2, true}), chain, false, seed, steps);
        check_sequence("torus3d", topology::generate_torus3d({2, 2, 3, 1}), chain, false, seed, steps);
        check_sequence("hypercube", topology::generate_hypercube({3, 2}), chain, false, seed, steps);
        check_sequence("random", topology::generate_random({8, 2, 6, seed}), chain, false, seed, steps);
        topology::ChainParams cp;
        cp.trees = 2;
        cp.spines = 2;
        cp.leaves = 3;
        cp.ports = 8;
        cp.hosts_per_leaf = 2;
        cp.cables = 2;
        cp.seed = seed;
        check_sequence("chain", topology::generate_chain(cp), chain, false, seed, steps);
        check_sequence("dragonfly+", topology::generate_dragonfly({3, 2, 2, 2, 0}), chain, false, seed, steps);
        // updn and minhop re-route incrementally: test_reroute_engines.cpp.
    }
}

// Every switch-to-switch cable of a 3-level PGFT pulled and put back, and
// every top switch gone and back, through one memory: each re-route must
// give the tables of the same re-route with Algorithm 2 and the safety net
// whole (sftree.cpp, "Re-route"; check_confined) and pass the gate. This
// covers the cables whose loss moves the subtree root (everything routed
// again), those that change a row some kept Algorithm 2 path crosses (its
// column routed again), and switches the last tables and dependencies do
// not know (a top back); the confinement must have kept entries somewhere.
TEST_CASE("re-route: Algorithm 2 kept only where the delta cannot change it", "[reroute]")
{
    const Fabric whole = topology::generate_pgft(topology::PgftParams{{4, 4, 4}, {1, 4, 2}, {1, 1, 1}});
    const auto whole_lids = lidassign::assign_base_lids(whole, {}, {}).lids;
    Options options;
    std::vector<topology::PortRef> cables;
    std::vector<topology::NodeId> spines;
    for (const auto& l : whole.links())
        if (whole.node(l.a.node).is_switch() && whole.node(l.b.node).is_switch()) cables.push_back(l.a);
    for (auto id : whole.node_ids())
        if (whole.node(id).is_switch() && !has_host(whole, id)) spines.push_back(id);
    for (const char* engine : {"sftree", "ftree"}) {
        INFO(engine);
        const ChainSpec spec{{engine}, true};
        ChainMemory memory;
        REQUIRE(run_chain(default_registry(), spec, whole, whole_lids, options, &memory).tables);
        unsigned kept = 0, steps = 0;
        auto step = [&](const Fabric& f) {
            lidassign::LidMap lids;
            for (const auto& [ref, pl] : whole_lids.entries())
                if (auto id = f.find_node(whole.node(ref.node).guid))
                    lids.assign(topology::PortRef{*id, ref.port}, pl.base, pl.lmc);
            kept += check_confined(engine, memory, f, lids, options);
            ++steps;
            auto re = run_chain(default_registry(), spec, f, lids, options, &memory);
            REQUIRE(re.tables);
            INFO(re.route_how);
            CHECK(re.incremental);
            CHECK_FALSE(re.degraded);
            CHECK(re.verdict()->passed());
        };
        for (const auto& c : cables) {
            INFO("cable " << whole.node(c.node).description << " port " << c.port.value());
            Fabric cut = whole;
            cut.disconnect(c);
            step(cut);
            step(whole);
        }
        for (auto id : spines) {
            INFO("switch " << whole.node(id).description);
            std::vector<bool> drop(whole.node_count(), false);
            drop[id.value] = true;
            step(topology::without_nodes(whole, drop));
            step(whole);
        }
        CHECK(kept > steps / 4);
    }
}
