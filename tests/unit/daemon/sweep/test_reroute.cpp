// The long-running SM against the in-process fake fabric (fake_fabric.h):
// a re-route of a delta sends what a hand count says and leaves tables the
// analyzer finds complete; traps reach the scheduler, are repressed and
// folded; light sweeps cost one SMP per switch; lost and new nodes are
// handled without a heavy sweep; multicast pushes wait for sweep work.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/core/events.h"
#include "daemon/program/lft_programmer.h"
#include "daemon/sweep/light_sweeper.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"
#include "routing/analysis/analyze.h"

#include <catch2/catch.hpp>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace ibsm;
using test::analyze_read_back;
using test::blocks_changed;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::Tree;
using test::TwoSwitches;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

// The snapshot's NodeIds of the fake's nodes (discovery numbers nodes in
// the order it meets them, not the fake's).
std::vector<NodeId> in_snapshot(const daemon::Bringup& b, const test::FakeFabric& fake, std::vector<NodeId> nodes)
{
    std::vector<NodeId> out;
    for (auto n : nodes) out.push_back(*b.snapshot()->found.fabric.find_node(fake.fabric().node(n).guid));
    return out;
}

} // namespace

// The arithmetic of a re-route after the cable L1[4] - P0[2] is pulled,
// asked for both switches at its ends:
//   refresh, per switch: SwitchInfo Get; PortStateChange is set (the pull
//   set it), so one SwitchInfo Set clears it; PortInfo of every port.
//     P0: 1 + 1 + 5                                                    7
//     L1: its snapshot path (0,1,4,2: L0, P0, then P0's port 2) crosses
//     the pulled cable, so its SwitchInfo Get and 6 PortInfo Gets fail
//     (no retries in this harness)                                     7
//     retried over the path recomputed without that cable: 1 + 1 + 6  8
//   LFT blocks whose content changed (one block per switch: top LID 14) n
//   no VL table, no PortInfo Set, no activation: nothing else changed  0
TEST_CASE("a re-route of a pulled cable sends the hand-counted SMPs and leaves complete tables", "[reroute]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    auto first = loop.run([&] { return b.sweep(); });
    REQUIRE(first.up);
    auto gen1 = b.snapshot();
    REQUIRE(gen1->generation == 1);

    loop.fabric.unlink({t.leaves[1], PortNum(4)});
    loop.fabric.reset_counters();
    daemon::RefreshRequest req;
    req.switches = in_snapshot(b, loop.fabric, {t.spines[0], t.leaves[1]});
    auto o = loop.run([&] { return b.reroute(req); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(o.kind == daemon::SweepKind::reroute);
    CHECK_FALSE(o.needs_heavy);
    CHECK(o.changes.links_down == 1);
    CHECK(o.changes.nodes_lost == 0);
    auto gen2 = b.snapshot();
    CHECK(gen2->generation == 2);
    const auto changed = blocks_changed(*gen1, *gen2);
    CHECK(changed > 0);
    CHECK(o.lft_blocks_sent == changed);
    CHECK(o.smps == 22 + changed);
    CHECK(loop.fabric.counters().total() == 22 + changed);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::vl_arbitration) == 0);
    CHECK(loop.fabric.switch_info(t.spines[0]).port_state_change == false);

    auto rep = analyze_read_back(loop.fabric.read_back());
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::ca_to_switch).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::switch_to_ca).unreachable == 0);

    // Plugged back: the two ports come up in INIT; the re-route arms and
    // activates exactly them and rewrites their VL arbitration tables.
    loop.fabric.relink({t.leaves[1], PortNum(4)});
    loop.fabric.reset_counters();
    auto o3 = loop.run([&] { return b.reroute(req); });
    REQUIRE(o3.up);
    CHECK(o3.changes.links_up == 1);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 4); // 2 ports x (ARMED, ACTIVE)
    CHECK(loop.fabric.port_info({t.leaves[1], PortNum(4)}).port_state == mad::PortState::active);
    CHECK(loop.fabric.port_info({t.spines[0], PortNum(2)}).port_state == mad::PortState::active);

    // Nothing changed since: a re-route sends only the refresh and keeps
    // the generation.
    loop.fabric.reset_counters();
    auto o4 = loop.run([&] { return b.reroute(req); });
    CHECK(o4.unchanged);
    CHECK(o4.generation == 3);
    CHECK(loop.fabric.counters().total() == 2 + 5 + 6); // SwitchInfo Get and PortInfo per port; no bit to clear
}

TEST_CASE("a switch cut off is forgotten, a new CA is discovered, both without a heavy sweep", "[reroute]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(loop.run([&] { return b.sweep(); }).up);

    // A new CA on L0's free port 6.
    const auto h9 = loop.fabric.add_node(NodeType::ca, Guid(0xa00), 1, "H9");
    loop.fabric.link({h9, PortNum(1)}, {t.leaves[0], PortNum(6)});
    daemon::RefreshRequest req;
    req.switches = in_snapshot(b, loop.fabric, {t.leaves[0]});
    auto o = loop.run([&] { return b.reroute(req); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(o.changes.nodes_new == 1);
    auto snap = b.snapshot();
    auto h9_port = snap->found.fabric.find_port(Guid(0xa01));
    REQUIRE(h9_port);
    auto lids = snap->lids.lids.lids_of(*h9_port);
    REQUIRE(lids);
    CHECK(loop.fabric.port_info({h9, PortNum(1)}).lid == lids->base);
    CHECK(loop.fabric.port_info({h9, PortNum(1)}).port_state == mad::PortState::active);
    auto rep = analyze_read_back(loop.fabric.read_back());
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).pairs == 10 * 9);

    // L2 loses both uplinks: it and its three hosts are lost; their LIDs
    // stay reserved.
    const Lid l2_lid = snap->lids.lids.lids_of(PortRef{in_snapshot(b, loop.fabric, {t.leaves[2]})[0], PortNum(0)})->base;
    loop.fabric.unlink({t.leaves[2], PortNum(4)});
    loop.fabric.unlink({t.leaves[2], PortNum(5)});
    req.switches = in_snapshot(b, loop.fabric, {t.spines[0], t.spines[1]});
    auto o2 = loop.run([&] { return b.reroute(req); });
    INFO(o2.reason);
    REQUIRE(o2.up);
    CHECK(o2.changes.links_down == 2);
    CHECK(o2.changes.nodes_lost == 4);
    auto snap2 = b.snapshot();
    CHECK(snap2->found.fabric.node_count() == snap->found.fabric.node_count() - 4);
    CHECK_FALSE(snap2->found.fabric.find_node(Guid(0x20002)));
    // No remaining port took the lost switch's LID.
    CHECK_FALSE(snap2->lids.lids.port_of(l2_lid));
}

// A switch unlinked whole while only some neighbours' traps arrive (the
// others' way back to the SM ran through it): after the refresh of those
// neighbours the snapshot still reaches it over a neighbour not re-read.
// Before anything is programmed the refresh asks that neighbour's port
// facing it (over a path that does not cross it): seen down there too, the
// switch is lost and the re-route goes on with no query sent to it (each
// would wait out a timeout) and no heavy sweep (reroute-events'
// unlink-spine step on ibsim). Seen up, the switch itself is asked; not
// answering (hung), the re-route asks for a heavy sweep and has sent no LFT
// block to a fabric that is not there. Cut only from the re-read
// neighbours, it answers and the re-route goes on.
TEST_CASE("a re-route confirms the far end of links found down before programming", "[reroute]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(loop.run([&] { return b.sweep(); }).up);

    // P0 loses its cables to L0 and L1 only: still there, through L2.
    loop.fabric.unlink({t.spines[0], PortNum(1)});
    loop.fabric.unlink({t.spines[0], PortNum(2)});
    daemon::RefreshRequest req;
    req.switches = in_snapshot(b, loop.fabric, {t.leaves[0], t.leaves[1]});
    loop.fabric.reset_counters();
    auto o = loop.run([&] { return b.reroute(req); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(o.changes.links_down == 2);
    CHECK(o.changes.nodes_lost == 0);
    CHECK(b.snapshot()->found.fabric.find_node(Guid(0x10000)));
    CHECK(loop.fabric.switch_info(t.spines[0]).port_state_change == false);

    // Cabled again (a heavy sweep takes it back), cut from L0 and L1 again,
    // and hung: L2 still sees its link up, P0 answers nothing.
    loop.fabric.relink({t.spines[0], PortNum(1)});
    loop.fabric.relink({t.spines[0], PortNum(2)});
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    REQUIRE(b.snapshot()->found.fabric.node_count() == 14);
    loop.fabric.unlink({t.spines[0], PortNum(1)});
    loop.fabric.unlink({t.spines[0], PortNum(2)});
    loop.fabric.drop_next(Guid(0x10000), 1000);
    loop.fabric.reset_counters();
    auto hung = loop.run([&] { return b.reroute(req); });
    INFO(hung.reason);
    CHECK_FALSE(hung.up);
    CHECK(hung.needs_heavy);
    CHECK(hung.reason.find("refresh queries failed") != std::string::npos);
    CHECK(loop.fabric.counters().dropped_injected > 0);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::linear_forwarding_table) == 0);
    loop.fabric.clear_faults(Guid(0x10000));

    // Cabled again (a heavy sweep takes it back), then unlinked whole, but
    // L2 is not re-read (its trap is lost).
    loop.fabric.relink({t.spines[0], PortNum(1)});
    loop.fabric.relink({t.spines[0], PortNum(2)});
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    REQUIRE(b.snapshot()->found.fabric.node_count() == 14);
    loop.fabric.unlink_node(t.spines[0]);
    loop.fabric.reset_counters();
    req.switches = in_snapshot(b, loop.fabric, {t.leaves[0], t.leaves[1]});
    auto o2 = loop.run([&] { return b.reroute(req); });
    INFO(o2.reason);
    REQUIRE(o2.up);
    CHECK_FALSE(o2.needs_heavy);
    CHECK(o2.changes.links_down == 3);
    CHECK(o2.changes.nodes_lost == 1);
    CHECK_FALSE(b.snapshot()->found.fabric.find_node(Guid(0x10000)));
    // No SwitchInfo to P0: L0's, L1's over its snapshot path through P0
    // (no answer) and L1's again over the path recomputed without it.
    CHECK(loop.fabric.counters().count(mad::Method::get, mad::attr::switch_info) == 3);
    auto rep = analyze_read_back(loop.fabric.read_back());
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
}

TEST_CASE("a light sweep costs one SMP per switch and finds the switches whose ports changed", "[reroute]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    daemon::EventQueue events(loop.io.get_executor());

    loop.fabric.reset_counters();
    auto quiet_sweep = loop.run([&] { return daemon::light_sweep(loop.transport, *b.snapshot(), events, 16); });
    CHECK(quiet_sweep.changed.empty());
    CHECK(quiet_sweep.smps == 5 + 1); // SwitchInfo per switch, the SM's own PortInfo
    CHECK(loop.fabric.counters().lid_routed == 5);
    CHECK(quiet_sweep.lid_failures == 0);
    CHECK(events.size() == 0);

    loop.fabric.unlink({t.leaves[2], PortNum(5)});
    auto after = loop.run([&] { return daemon::light_sweep(loop.transport, *b.snapshot(), events, 16); });
    std::sort(after.changed.begin(), after.changed.end());
    CHECK(after.changed == std::vector<Guid>{Guid(0x10001), Guid(0x20002)});
    CHECK(events.size() == 2);
}

TEST_CASE("the scheduler: traps are repressed, folded into one re-route, and the fabric ends complete", "[reroute]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FakeFabricOptions fo;
    fo.trap_repeat_every = 8; // unanswered traps come back, as from real switches
    test::FabricLoop loop(t.f, fo);
    daemon::EventQueue events(loop.io.get_executor());
    daemon::TrapReceiver traps(loop.transport, events);
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) { traps.on_trap(r); });
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    daemon::SchedulerSettings ss;
    ss.debounce = std::chrono::milliseconds(20);
    ss.light_interval = std::chrono::seconds(0);
    daemon::SweepScheduler scheduler(loop.transport, b, events, &traps, ss);
    std::vector<daemon::SweepOutcome> outcomes;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
        outcomes.push_back(o);
        if (outcomes.size() == 1) {
            // Two cables at once, both ends switches: up to four traps.
            loop.fabric.unlink({t.leaves[1], PortNum(4)});
            loop.fabric.unlink({t.leaves[2], PortNum(5)});
        } else if (loop.fabric.read_back().fabric.link_count() == t.f.link_count() - 2 && !o.unchanged) {
            events.push(daemon::ShutdownEvent{});
        }
    });
    boost::asio::steady_timer guard(loop.io, std::chrono::seconds(10));
    guard.async_wait([&](auto ec) {
        if (!ec) events.push(daemon::ShutdownEvent{});
    });
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        guard.cancel();
        co_return 0;
    });
    REQUIRE(outcomes.size() >= 2);
    CHECK(outcomes[0].kind == daemon::SweepKind::heavy);
    const auto& r = outcomes[1];
    INFO(r.reason);
    CHECK(r.kind == daemon::SweepKind::reroute);
    CHECK(r.up);
    CHECK(r.changes.links_down == 2);
    CHECK(scheduler.stats().heavy_sweeps == 1);
    // Every trap that reached the SM was repressed.
    CHECK(loop.fabric.counters().represses >= 1);
    const auto& c = traps.counts().at(mad::trap::link_state_change);
    CHECK(c.repressed == c.received);
    auto rep = analyze_read_back(loop.fabric.read_back());
    CHECK(rep.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
    CHECK(rep.of(routing::analysis::PairClass::switch_to_ca).unreachable == 0);
}

TEST_CASE("the scheduler: a multicast push runs after pending sweep work, after its batch, and is no sweep",
          "[reroute][mcast]")
{
    using Clock = std::chrono::steady_clock;
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::EventQueue events(loop.io.get_executor());
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    daemon::SweepScheduler scheduler(loop.transport, b, events, nullptr, ss);
    std::vector<std::string> order;
    std::vector<Clock::time_point> pushed;
    unsigned observed = 0;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
        order.push_back(o.kind == daemon::SweepKind::heavy ? "heavy sweep" : "re-route");
    });
    scheduler.on_event([&](const daemon::Event&) { ++observed; });
    const auto batch = std::chrono::milliseconds(50);
    Clock::time_point asked;
    scheduler.set_mcast_push([&]() -> boost::asio::awaitable<void> {
        order.push_back("push");
        pushed.push_back(Clock::now());
        if (pushed.size() == 1) {
            // A join during the push asks again, alone this time.
            asked = Clock::now();
            events.push(daemon::McastTablesEvent{asked + batch});
        } else {
            events.push(daemon::ShutdownEvent{});
        }
        co_return;
    });
    // Queued before the scheduler starts: a push, then a sweep request.
    events.push(daemon::McastTablesEvent{Clock::now()});
    events.push(daemon::HeavySweepEvent{"test"});
    boost::asio::steady_timer guard(loop.io, std::chrono::seconds(10));
    guard.async_wait([&](auto ec) {
        if (!ec) events.push(daemon::ShutdownEvent{});
    });
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        guard.cancel();
        co_return 0;
    });
    // The start's sweep, the requested one, then the push; the second push
    // waited for its batch.
    CHECK(order == std::vector<std::string>{"heavy sweep", "heavy sweep", "push", "push"});
    REQUIRE(pushed.size() == 2);
    CHECK(pushed[1] >= asked + batch);
    // Neither counted as a sweep or an event, nor shown among the events.
    CHECK(scheduler.stats().heavy_sweeps == 2);
    CHECK(scheduler.stats().reroutes == 0);
    CHECK(scheduler.stats().events == 1);
    CHECK(observed == 2); // the sweep request and the shutdown
}

TEST_CASE("a corrupt guid2lid is moved aside and the subnet comes up with the LIDs the ports have", "[resilience]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    std::map<Guid, Lid> first_lids;
    {
        daemon::Bringup b(loop.transport, bringup_settings(dir.path));
        REQUIRE(loop.run([&] { return b.sweep(); }).up);
        for (const auto& [ref, l] : b.snapshot()->lids.lids.entries())
            first_lids[b.snapshot()->found.fabric.port(ref).guid] = l.base;
    }
    { std::ofstream(dir.path / "guid2lid") << "0x0002 this is not a LID\n"; }
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    bool moved = false;
    for (const auto& e : std::filesystem::directory_iterator(dir.path))
        moved = moved || e.path().filename().string().rfind("guid2lid.corrupt-", 0) == 0;
    CHECK(moved);
    // Every port kept the LID it had (taken from the ports), and a new
    // guid2lid was written.
    for (const auto& [ref, l] : b.snapshot()->lids.lids.entries())
        CHECK(first_lids.at(b.snapshot()->found.fabric.port(ref).guid) == l.base);
    CHECK(std::filesystem::file_size(dir.path / "guid2lid") > 100);
}

TEST_CASE("a state directory that cannot be written does not keep the subnet down", "[resilience]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    { std::ofstream(dir.path / "file") << "x"; }
    daemon::Bringup b(loop.transport, bringup_settings(dir.path / "file" / "state"));
    auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    // The next re-route still works (and retries the file).
    daemon::RefreshRequest req;
    req.switches = in_snapshot(b, loop.fabric, {t.leaves[0]});
    auto o2 = loop.run([&] { return b.reroute(req); });
    CHECK(o2.up);
}
