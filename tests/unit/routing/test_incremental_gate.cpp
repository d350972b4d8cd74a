// The incremental gate (routing/incremental_gate.h) against the full gate
// (routing/verify.h): over sequences of table and cable changes on generated
// fabrics, every incremental verdict must equal the full gate's on the same
// fabric and tables, word for word, including verdicts with unreachable
// pairs, forwarding loops and credit loops.
#include "routing/chain.h"
#include "routing/incremental_gate.h"
#include "routing/registry.h"
#include "routing/verify.h"
#include "topology/fabric_subset.h"
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

namespace {

// `whole` without the nodes `drop` names, its LIDs (those left) and, when
// `keep` is given, those tables carried over to the kept switches by GUID.
struct Smaller {
    topology::Fabric f;
    lidassign::LidMap lids;
    RoutingTables kept;
};
Smaller without(const topology::Fabric& whole, const lidassign::LidMap& whole_lids, const std::vector<bool>& drop,
                const RoutingTables& keep)
{
    Smaller out{topology::without_nodes(whole, drop), {}, keep};
    for (const auto& [ref, pl] : whole_lids.entries())
        if (auto id = out.f.find_node(whole.node(ref.node).guid))
            out.lids.assign(topology::PortRef{*id, ref.port}, pl.base, pl.lmc);
    out.kept.lfts.clear();
    for (const auto& [id, lft] : keep.lfts)
        if (auto nid = out.f.find_node(whole.node(id).guid)) out.kept.lfts.emplace(*nid, lft);
    return out;
}

} // namespace

// A switch or CAs leave (a top switch fails, a host is switched off): the
// remembered graph loses their sources and the turns from them, and only
// the routes that crossed them are traced again; the verdict is the full
// gate's, with the old tables (routes into what left now broken) and with
// the engine's new ones. What the memory cannot make exact without them is
// declined, with the reason.
TEST_CASE("incremental gate: switches and CAs that leave")
{
    const auto whole = topology::generate_pgft(topology::kary_ntree(3, 3));
    const auto whole_lids = simple_lids(whole);
    for (const std::string engine : {"ftree", "sftree"}) {
        INFO(engine);
        const RoutingTables t = route(engine, whole, whole_lids);
        GateMemory memory;
        auto remember = [&] {
            verify_and_remember(std::make_shared<const topology::Fabric>(whole), whole_lids,
                                std::make_shared<const RoutingTables>(t), two_threads(), memory);
            REQUIRE(memory.state);
        };
        std::vector<topology::NodeId> leaves;
        std::vector<std::vector<topology::NodeId>> hosts_of; // per leaf
        for (auto id : whole.node_ids()) {
            const auto& n = whole.node(id);
            if (!n.is_switch()) continue;
            std::vector<topology::NodeId> hosts;
            for (std::size_t p = 1; p < n.ports.size(); ++p)
                if (auto r = n.ports[p].remote; r && !whole.node(r->node).is_switch()) hosts.push_back(r->node);
            if (!hosts.empty()) {
                leaves.push_back(id);
                hosts_of.push_back(hosts);
            }
        }
        REQUIRE(leaves.size() == 9);
        const std::size_t destinations = whole_lids.entries().size();
        auto one_step = [&](const std::vector<bool>& drop, bool expect) {
            const Smaller sm = without(whole, whole_lids, drop, t);
            remember();
            // The old tables on the smaller fabric, then the engine's own.
            const std::size_t kept = check_step(memory, sm.f, sm.lids, sm.kept, expect);
            const RoutingTables re = route(engine, sm.f, sm.lids);
            const std::size_t rerouted = check_step(memory, sm.f, sm.lids, re, expect);
            if (expect) {
                CHECK(kept > 0);
                CHECK(kept < destinations);
                CHECK(rerouted < destinations);
            }
        };
        SECTION("a top switch")
        {
            // Top switches have no CAs; which switches they are, by level.
            std::vector<bool> drop(whole.node_count(), false);
            topology::NodeId top{};
            bool found = false;
            for (auto id : whole.node_ids()) {
                const auto& n = whole.node(id);
                if (!n.is_switch()) continue;
                bool up = false, ca = false;
                for (std::size_t p = 1; p < n.ports.size(); ++p)
                    if (auto r = n.ports[p].remote) (whole.node(r->node).is_switch() ? up : ca) = true;
                if (!ca && up) top = id, found = true;
            }
            REQUIRE(found);
            drop[top.value] = true;
            one_step(drop, true);
        }
        SECTION("a host, then two of a leaf's three")
        {
            std::vector<bool> drop(whole.node_count(), false);
            drop[hosts_of[4][0].value] = true;
            one_step(drop, true);
            drop[hosts_of[4][1].value] = true;
            one_step(drop, true); // the leaf's last CA's own LIDs traced again
        }
        SECTION("what is declined")
        {
            std::vector<bool> drop(whole.node_count(), false);
            for (auto h : hosts_of[2]) drop[h.value] = true;
            remember();
            const Smaller no_cas = without(whole, whole_lids, drop, t);
            auto r = verify_incremental(std::make_shared<const topology::Fabric>(no_cas.f), no_cas.lids,
                                        std::make_shared<const RoutingTables>(no_cas.kept), two_threads(), memory);
            REQUIRE(std::holds_alternative<std::string>(r));
            CHECK(std::get<std::string>(r) == "the last CA of a switch left");
            drop[leaves[2].value] = true;
            remember();
            const Smaller leaf = without(whole, whole_lids, drop, t);
            r = verify_incremental(std::make_shared<const topology::Fabric>(leaf.f), leaf.lids,
                                   std::make_shared<const RoutingTables>(leaf.kept), two_threads(), memory);
            REQUIRE(std::holds_alternative<std::string>(r));
            CHECK(std::get<std::string>(r) == "a CA left with its switch, or had none");
            // Back to the whole fabric after a host left: a LID came back.
            std::vector<bool> host(whole.node_count(), false);
            host[hosts_of[0][0].value] = true;
            remember();
            const Smaller less = without(whole, whole_lids, host, t);
            check_step(memory, less.f, less.lids, less.kept, true);
            check_step(memory, whole, whole_lids, t, false);
        }
    }
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
    // Not declined: the table checks run afresh and the rows are compared.
    CHECK(try_with(f, lids, top).empty());
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
