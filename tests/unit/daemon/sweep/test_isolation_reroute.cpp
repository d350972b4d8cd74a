// Isolated links against the fake fabric: the re-route that takes a link out
// of the routing sends only the LFT blocks that change and nothing else, no
// route uses the link afterwards (read back from the switches), a heavy
// sweep keeps it out, and lifting the isolation brings the link back.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/events.h"
#include "daemon/program/lft_programmer.h"
#include "daemon/program/port_disabler.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "routing/analysis/analyze.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using test::analyze_read_back;
using test::blocks_changed;
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

TEST_CASE("disable_port: the isolated link's switch port goes DISABLED and down, clear sets Polling and it comes back",
          "[reroute][health]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    settings.disable_isolated_ports = true;
    daemon::Bringup b(loop.transport, settings);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    const auto links = b.snapshot()->found.fabric.link_count();
    const Guid leaf = t.f.node(t.leaves[1]).guid;
    const topology::PortRef at{t.leaves[1], PortNum(4)}; // L1[4] - P0[2]
    const topology::PortRef far = *t.f.remote(at);
    const health::PortId link{leaf, PortNum(4)};
    // The end the Set goes to: the named one, unless the SM reaches L1 over
    // this very link.
    const auto& found = b.snapshot()->found;
    const auto node_in = [&](topology::NodeId n) { return *found.fabric.find_node(t.f.node(n).guid); };
    const bool over = found.path_to(node_in(at.node)) == found.path_to(node_in(far.node)).extended(far.port);
    const topology::PortRef set = over ? far : at;

    b.set_isolated_links({link});
    auto o = loop.run([&] { return b.reroute_isolated(); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(loop.fabric.port_info(set).port_phys_state == daemon::phys_state_disabled);
    CHECK(loop.fabric.port_info(at).port_state == mad::PortState::down);
    CHECK(loop.fabric.port_info(far).port_state == mad::PortState::down);
    CHECK(b.snapshot()->found.fabric.link_count() == links - 1); // seen down, as a pulled cable
    auto rb = loop.fabric.read_back();
    CHECK(routes_over(rb, leaf, PortNum(4)) == 0);
    check_complete(rb);
    // The next re-route does not send it again.
    loop.fabric.reset_counters();
    REQUIRE(loop.run([&] { return b.reroute_isolated(); }).up);
    CHECK(loop.fabric.counters().total() == 0);

    b.set_isolated_links({});
    auto c = loop.run([&] { return b.reroute_isolated(); });
    INFO(c.reason);
    REQUIRE(c.up);
    CHECK(loop.fabric.port_info(set).port_phys_state != daemon::phys_state_disabled);
    CHECK(loop.fabric.port_info(at).port_state == mad::PortState::active);
    CHECK(b.snapshot()->found.fabric.link_count() == links);
    CHECK(routes_over(loop.fabric.read_back(), leaf, PortNum(4)) > 0);
    check_complete(loop.fabric.read_back());
}

TEST_CASE("disable_port: a switch port whose link the SM reaches the switch over is left up, the far end disabled",
          "[health]")
{
    daemon::DiscoveryResult found;
    auto& f = found.fabric;
    const auto sm = f.add_node(topology::NodeType::ca, Guid(0x10), 1, "sm");
    const auto s1 = f.add_node(topology::NodeType::switch_node, Guid(0x20), 4, "s1");
    const auto s2 = f.add_node(topology::NodeType::switch_node, Guid(0x30), 4, "s2");
    const auto h = f.add_node(topology::NodeType::ca, Guid(0x40), 1, "h");
    f.set_port_guid({sm, PortNum(1)}, Guid(0x11));
    f.set_port_guid({h, PortNum(1)}, Guid(0x41));
    f.connect({sm, PortNum(1)}, {s1, PortNum(1)});
    f.connect({s1, PortNum(2)}, {s2, PortNum(2)});
    f.connect({s1, PortNum(3)}, {s2, PortNum(3)});
    f.connect({s2, PortNum(1)}, {h, PortNum(1)});
    found.sm_port = {sm, PortNum(1)};
    found.paths = {DrPath{}, DrPath{}.extended(PortNum(1)), DrPath{}.extended(PortNum(1)).extended(PortNum(2)),
                   DrPath{}.extended(PortNum(1)).extended(PortNum(2)).extended(PortNum(1))};
    for (auto n : {s1, s2})
        for (std::uint8_t p = 0; p <= 4; ++p) {
            mad::PortInfo pi;
            pi.port_state = mad::PortState::active;
            pi.port_phys_state = 5;
            pi.lid = Lid(7);
            found.port_info[{n, PortNum(p)}] = pi;
        }
    const std::map<health::PortId, health::PortId> none;
    // s2 is reached over s1[2]-s2[2]: naming s2 port 2 disables s1 port 2.
    auto plan = daemon::plan_phys_states(found, {health::PortId{Guid(0x30), PortNum(2)}}, {}, none);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].port == topology::PortRef{s1, PortNum(2)});
    CHECK(plan[0].disable);
    CHECK(plan[0].desired.port_phys_state == daemon::phys_state_disabled);
    CHECK(plan[0].desired.port_state == mad::PortState::no_change);
    CHECK(plan[0].desired.lid == Lid(7)); // everything else as read
    // s1[3]-s2[3] is not on a path: the named end.
    plan = daemon::plan_phys_states(found, {health::PortId{Guid(0x30), PortNum(3)}}, {}, none);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].port == topology::PortRef{s2, PortNum(3)});
    // A host link named by its CA end: the switch side.
    plan = daemon::plan_phys_states(found, {health::PortId{Guid(0x40), PortNum(1)}}, {}, none);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].port == topology::PortRef{s2, PortNum(1)});
    // Lifted: only a port that reads Disabled gets Polling; the port
    // disabled for the isolation is found though the link is gone.
    found.port_info[{s1, PortNum(2)}].port_phys_state = daemon::phys_state_disabled;
    f.disconnect({s1, PortNum(2)});
    const std::map<health::PortId, health::PortId> held{
        {health::PortId{Guid(0x30), PortNum(2)}, health::PortId{Guid(0x20), PortNum(2)}}};
    plan = daemon::plan_phys_states(found, {}, {health::PortId{Guid(0x30), PortNum(2)}}, held);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].port == topology::PortRef{s1, PortNum(2)});
    CHECK_FALSE(plan[0].disable);
    CHECK(plan[0].desired.port_phys_state == daemon::phys_state_polling);
    CHECK(daemon::plan_phys_states(found, {}, {health::PortId{Guid(0x30), PortNum(3)}}, none).empty());
}
