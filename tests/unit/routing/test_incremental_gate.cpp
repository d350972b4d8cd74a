// The incremental gate (routing/incremental_gate.h) against the full gate
// (routing/verify.h): over sequences of table and cable changes on generated
// fabrics, every incremental verdict must equal the full gate's on the same
// fabric and tables, word for word, including verdicts with unreachable
// pairs, forwarding loops and credit loops.
#include "routing/chain.h"
#include "routing/incremental_gate.h"
#include "routing/registry.h"
#include "routing/verify.h"
#include "topology/gen_dragonfly.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <variant>

using namespace ibsm;
using namespace ibsm::routing;
using ibsm::test::simple_lids;

namespace {

RoutingTables route(const std::string& engine, const topology::Fabric& f, const lidassign::LidMap& lids)
{
    auto r = default_registry().create(engine)->compute(f, lids, Options{});
    auto* t = std::get_if<RoutingTables>(&r);
    REQUIRE(t);
    t->engine = engine;
    return std::move(*t);
}

VerifyOptions two_threads()
{
    VerifyOptions o;
    o.threads = 2;
    return o;
}

// Runs the incremental gate on (f, t) and checks it against the full gate.
// Returns how many destinations it traced again.
std::size_t check_step(GateMemory& memory, const topology::Fabric& f, const lidassign::LidMap& lids,
                       const RoutingTables& t, bool expect_incremental = true)
{
    const Verdict full = verify(f, lids, t, two_threads());
    auto inc = verify_incremental(std::make_shared<const topology::Fabric>(f), lids,
                                  std::make_shared<const RoutingTables>(t), two_threads(), memory);
    if (auto* why = std::get_if<std::string>(&inc)) {
        INFO("not incremental: " << *why);
        CHECK_FALSE(expect_incremental);
        CHECK_FALSE(memory.state);
        const Verdict again = verify_and_remember(std::make_shared<const topology::Fabric>(f), lids,
                                                  std::make_shared<const RoutingTables>(t), two_threads(), memory);
        CHECK(first_difference(full, again).empty());
        CHECK(memory.state);
        return 0;
    }
    const auto& r = std::get<IncrementalVerdict>(inc);
    INFO("full: " << full.reason);
    INFO("incremental: " << r.verdict.reason);
    CHECK(first_difference(full, r.verdict).empty());
    CHECK(r.verdict.reason == full.reason);
    CHECK(memory.state);
    return r.retraced;
}

// A cable between two switches, chosen by `pick`.
std::optional<topology::PortRef> switch_link(const topology::Fabric& f, std::size_t pick)
{
    std::vector<topology::PortRef> ends;
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (!n.is_switch()) continue;
        for (std::size_t p = 1; p < n.ports.size(); ++p) {
            const auto r = f.remote({id, PortNum(static_cast<std::uint8_t>(p))});
            if (r && f.node(r->node).is_switch() && id < r->node) ends.push_back({id, PortNum(static_cast<std::uint8_t>(p))});
        }
    }
    if (ends.empty()) return std::nullopt;
    return ends[pick % ends.size()];
}

// A random walk of changes from tables `t0` on `f0`: single LFT entries
// rewritten (some to no_route, some to a wrong port), cables pulled and
// plugged back with the tables kept or re-routed by `engine`.
void random_walk(const topology::Fabric& f0, const std::string& engine, std::uint32_t seed, int steps)
{
    const auto lids = simple_lids(f0);
    topology::Fabric f = f0;
    RoutingTables t = route(engine, f, lids);
    GateMemory memory;
    memory.max_retrace_share = 1; // small fabrics: even a large share is traced incrementally here
    const Verdict first = verify_and_remember(std::make_shared<const topology::Fabric>(f), lids,
                                              std::make_shared<const RoutingTables>(t), two_threads(), memory);
    REQUIRE(memory.state);
    CHECK(first_difference(verify(f, lids, t, two_threads()), first).empty());

    std::mt19937 rng(seed);
    std::vector<std::pair<topology::PortRef, topology::PortRef>> pulled;
    bool saw_failure = false;
    for (int step = 0; step < steps; ++step) {
        INFO("step " << step);
        const unsigned what = rng() % 5;
        bool comparable = true;
        if (what <= 1) {
            // One LFT entry rewritten.
            auto it = t.lfts.begin();
            std::advance(it, static_cast<long>(rng() % t.lfts.size()));
            auto& port = it->second.port;
            const auto lid = 1 + rng() % (port.size() - 1);
            const auto nports = f.node(it->first).ports.size() - 1;
            port[lid] = what == 0 ? no_route : static_cast<std::uint8_t>(1 + rng() % nports);
        } else if (what == 2 || (what == 3 && pulled.empty())) {
            // A cable pulled, the tables kept: routes across it break.
            if (auto p = switch_link(f, rng())) {
                pulled.emplace_back(*p, *f.remote(*p));
                f.disconnect(*p);
            }
        } else if (what == 3) {
            // The last pulled cable plugged back.
            f.connect(pulled.back().first, pulled.back().second);
            pulled.pop_back();
        } else {
            // Re-routed by the engine on the fabric as it is now.
            auto r = default_registry().create(engine)->compute(f, lids, Options{});
            if (auto* nt = std::get_if<RoutingTables>(&r)) {
                // dfsssp may move pairs to other layers: SLs it does not track.
                comparable = nt->sl == t.sl && nt->vls_used == t.vls_used;
                t = std::move(*nt);
                t.engine = engine;
            }
        }
        check_step(memory, f, lids, t, comparable);
        saw_failure = saw_failure || !verify(f, lids, t, two_threads()).passed();
    }
    CHECK(saw_failure); // the walk did reach verdicts with problems
}

} // namespace

TEST_CASE("incremental gate equals the full gate over random changes on generated fabrics")
{
    SECTION("PGFT (3-ary 3-tree), ftree")
    {
        random_walk(topology::generate_pgft(topology::kary_ntree(3, 3)), "ftree", 1, 40);
    }
    SECTION("PGFT, sftree (switch pairs promised)")
    {
        random_walk(topology::generate_pgft(topology::kary_ntree(3, 3)), "sftree", 2, 30);
    }
    SECTION("torus 4x4, updn")
    {
        random_walk(topology::generate_torus({4, 4, 1, true}), "updn", 3, 40);
    }
    SECTION("torus 4x3, dfsssp (several VLs, SLs kept)")
    {
        random_walk(topology::generate_torus({4, 3, 1, true}), "dfsssp", 4, 25);
    }
    SECTION("random, minhop")
    {
        random_walk(topology::generate_random({10, 2, 6, 7}), "minhop", 5, 40);
    }
    SECTION("Dragonfly+, updn")
    {
        random_walk(topology::generate_dragonfly({4, 2, 2, 2, 0}), "updn", 6, 30);
    }
}

TEST_CASE("incremental gate: a credit loop appears and goes, pairs become unreachable and come back")
{
    // A ring of six switches: Up*/Down* is loop-free; sending everything
    // clockwise makes the classic credit loop, which the incremental gate
    // must name exactly as the full gate does, and lose again.
    const auto f = topology::generate_ring({6, 1});
    const auto lids = simple_lids(f);
    const RoutingTables updn = route("updn", f, lids);
    // MinHop's routes (shortest both ways round: a credit loop) under
    // Up*/Down*'s promises, so only the LFTs differ.
    RoutingTables minhop = updn;
    minhop.lfts = route("minhop", f, lids).lfts;
    GateMemory memory;
    memory.max_retrace_share = 1;
    const Verdict first = verify_and_remember(std::make_shared<const topology::Fabric>(f), lids,
                                              std::make_shared<const RoutingTables>(updn), two_threads(), memory);
    REQUIRE(first.passed());
    const Verdict mh = verify(f, lids, minhop, two_threads());
    REQUIRE(mh.ca_credit_loop);
    CHECK(check_step(memory, f, lids, minhop) > 0);
    CHECK(check_step(memory, f, lids, updn) > 0);

    // Every route through one cable dropped: unreachable pairs, then back.
    auto pulled = f;
    const auto p = switch_link(pulled, 0);
    REQUIRE(p);
    pulled.disconnect(*p);
    CHECK_FALSE(verify(pulled, lids, updn, two_threads()).passed());
    const std::size_t retraced = check_step(memory, pulled, lids, updn);
    CHECK(retraced > 0);
    CHECK(check_step(memory, f, lids, updn) == retraced);
    // Nothing changed: nothing traced again.
    CHECK(check_step(memory, f, lids, updn) == 0);
}

TEST_CASE("incremental gate declines what it does not track")
{
    const auto f = topology::generate_torus({3, 3, 1, true});
    const auto lids = simple_lids(f);
    const RoutingTables t = route("dfsssp", f, lids);
    GateMemory memory;
    verify_and_remember(std::make_shared<const topology::Fabric>(f), lids, std::make_shared<const RoutingTables>(t),
                        two_threads(), memory);
    REQUIRE(memory.state);
    auto try_with = [&](const topology::Fabric& fx, const lidassign::LidMap& lx, const RoutingTables& tx) {
        auto r = verify_incremental(std::make_shared<const topology::Fabric>(fx), lx,
                                    std::make_shared<const RoutingTables>(tx), two_threads(), memory);
        const std::string why = std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
        // Re-seed for the next attempt.
        verify_and_remember(std::make_shared<const topology::Fabric>(f), lids, std::make_shared<const RoutingTables>(t),
                            two_threads(), memory);
        return why;
    };
    RoutingTables other_sl = t;
    REQUIRE_FALSE(other_sl.sl.empty());
    other_sl.sl.set(0, 1, static_cast<std::uint8_t>(other_sl.sl.get(0, 1) ^ 1));
    CHECK(try_with(f, lids, other_sl) == "the SLs changed");
    RoutingTables top = t;
    top.linear_fdb_top = Lid(static_cast<std::uint16_t>(t.linear_fdb_top.value() + 1));
    CHECK(try_with(f, lids, top) == "LinearFDBTop changed");
    RoutingTables promise = t;
    promise.switch_to_switch = !t.switch_to_switch;
    CHECK(try_with(f, lids, promise) == "the switch-pair promise changed");
    CHECK(try_with(f, simple_lids(f, 1), t) == "the LIDs changed");
    // Every destination re-routed: the full gate is cheaper.
    RoutingTables all = t;
    for (auto& [node, lft] : all.lfts)
        for (std::size_t lid = 1; lid < lft.port.size(); ++lid) lft.port[lid] = no_route;
    CHECK_THAT(try_with(f, lids, all), Catch::Contains("destinations changed"));
    CHECK(try_with(f, lids, t).empty());
}

TEST_CASE("the chain gates incrementally with a memory and says so")
{
    const auto f = topology::generate_pgft(topology::kary_ntree(3, 3));
    const auto lids = simple_lids(f);
    ChainMemory memory;
    memory.gate.cross_check = true;
    const ChainSpec spec{{"ftree"}, true};
    auto first = run_chain(default_registry(), spec, f, lids, Options{}, &memory);
    REQUIRE(first.gate_run());
    CHECK_FALSE(first.gate_run()->incremental);
    CHECK(first.gate_run()->describe() == "full gate (no routing verified before)");
    REQUIRE(memory.gate.state);

    auto pulled = f;
    const auto p = switch_link(pulled, 5);
    REQUIRE(p);
    pulled.disconnect(*p);
    auto second = run_chain(default_registry(), spec, pulled, lids, Options{}, &memory);
    REQUIRE(second.gate_run());
    const GateRun& run = *second.gate_run();
    CHECK(run.incremental);
    CHECK(run.cross_checked);
    CHECK(run.mismatch.empty());
    CHECK(run.retraced > 0);
    CHECK(run.retraced < run.destinations);
    CHECK_THAT(run.describe(), Catch::StartsWith("incremental gate, ") && Catch::EndsWith("re-traced, cross-checked"));
    REQUIRE(second.verdict());
    CHECK(first_difference(verify(pulled, lids, *second.tables), *second.verdict()).empty());

    // Without a memory (ibsm route): the full gate, no gate run described as incremental.
    auto plain = run_chain(default_registry(), spec, pulled, lids, Options{});
    REQUIRE(plain.tables);
    CHECK(plain.gate_runs.size() == 1);
    CHECK_FALSE(plain.gate_runs[0].incremental);
}
