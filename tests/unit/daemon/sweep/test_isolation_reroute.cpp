// Isolated links against the fake fabric: the re-route that takes a link out
// of the routing sends only the LFT blocks that change and nothing else, no
// route uses the link afterwards (read back from the switches), a heavy
// sweep keeps it out, and lifting the isolation brings the link back.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/events.h"
#include "daemon/program/lft_programmer.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "routing/analysis/analyze.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using test::analyze_read_back;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::Tree;

namespace {

// LFT entries of switch `node` that send out of `port`, as the switches hold them.
std::size_t routes_over(const test::FabricReadback& rb, Guid node, PortNum port)
{
    const auto id = rb.fabric.find_node(node);
    REQUIRE(id);
    const auto& lft = rb.tables.lfts.at(*id);
    return static_cast<std::size_t>(std::count(lft.port.begin(), lft.port.end(), port.value()));
}

std::uint64_t blocks_changed(const daemon::SubnetSnapshot& a, const daemon::SubnetSnapshot& b)
{
    std::uint64_t n = 0;
    for (const auto& [id, lft] : b.tables->lfts) {
        const Guid g = b.found.fabric.node(id).guid;
        auto before = daemon::desired_blocks(a.tables->lfts.at(*a.found.fabric.find_node(g)), a.tables->linear_fdb_top);
        auto after = daemon::desired_blocks(lft, b.tables->linear_fdb_top);
        for (std::size_t i = 0; i < after.size(); ++i) n += i >= before.size() || !(before[i] == after[i]);
    }
    return n;
}

void check_complete(const test::FabricReadback& rb)
{
    auto rep = analyze_read_back(rb);
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::ca_to_switch).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::switch_to_ca).unreachable == 0);
}

} // namespace

TEST_CASE("an isolation re-route sends only the changed LFT blocks, no route uses the link, clear brings it back",
          "[reroute][health]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    auto gen1 = b.snapshot();
    const Guid leaf = t.f.node(t.leaves[1]).guid, spine = t.f.node(t.spines[0]).guid;
    const health::PortId link{leaf, PortNum(4)}; // L1[4] - P0[2]
    REQUIRE(routes_over(loop.fabric.read_back(), leaf, PortNum(4)) > 0);
    REQUIRE(routes_over(loop.fabric.read_back(), spine, PortNum(2)) > 0);

    b.set_isolated_links({link});
    loop.fabric.reset_counters();
    auto o = loop.run([&] { return b.reroute_isolated(); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(o.kind == daemon::SweepKind::reroute);
    auto gen2 = b.snapshot();
    CHECK(gen2->generation == 2);
    CHECK(gen2->isolated == std::set<health::PortId>{link});
    CHECK(gen2->found.fabric.link_count() == gen1->found.fabric.link_count()); // physically still there
    const auto changed = blocks_changed(*gen1, *gen2);
    CHECK(changed > 0);
    CHECK(o.lft_blocks_sent == changed);
    CHECK(loop.fabric.counters().total() == changed); // no discovery, no PortInfo, no VL table
    auto rb = loop.fabric.read_back();
    CHECK(routes_over(rb, leaf, PortNum(4)) == 0);
    CHECK(routes_over(rb, spine, PortNum(2)) == 0);
    check_complete(rb);
    CHECK(loop.fabric.port_info({t.leaves[1], PortNum(4)}).port_state == mad::PortState::active);

    // A heavy sweep keeps the isolation: nothing to send.
    auto h = loop.run([&] { return b.sweep(); });
    REQUIRE(h.up);
    CHECK(h.lft_blocks_sent == 0);
    CHECK(b.snapshot()->isolated == std::set<health::PortId>{link});
    CHECK(routes_over(loop.fabric.read_back(), leaf, PortNum(4)) == 0);

    // Cleared: the link carries routes again, and only changed blocks go out.
    auto gen3 = b.snapshot();
    b.set_isolated_links({});
    auto c = loop.run([&] { return b.reroute_isolated(); });
    REQUIRE(c.up);
    CHECK(b.snapshot()->isolated.empty());
    CHECK(c.lft_blocks_sent == blocks_changed(*gen3, *b.snapshot()));
    CHECK(routes_over(loop.fabric.read_back(), leaf, PortNum(4)) > 0);
    check_complete(loop.fabric.read_back());
}

TEST_CASE("an isolation that would cut a host off is suspended by the bring-up, never routed around", "[health]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    b.set_isolated_links({health::PortId{t.f.node(t.leaves[2]).guid, PortNum(1)}}); // H6's only link
    auto o = loop.run([&] { return b.reroute_isolated(); });
    REQUIRE(o.up);
    CHECK(b.snapshot()->isolated.empty());
    check_complete(loop.fabric.read_back());
}

TEST_CASE("absorb: an isolation event is sweep work of its own, not a heavy sweep", "[scheduler][health]")
{
    daemon::Work w;
    daemon::absorb(daemon::IsolationEvent{"flapping"}, nullptr, w);
    CHECK(w.isolation);
    CHECK(w.isolation_reason == "flapping");
    CHECK(w.sweeps());
    CHECK_FALSE(w.heavy);
    CHECK(w.events == 1);
}
