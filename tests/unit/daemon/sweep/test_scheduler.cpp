// Unit tests of the long-running SM's pure pieces and its small loop-bound
// ones: reachable_part (what is left after links go down), how events fold
// into work (absorb, refresh_request, gather_until), the events queue, the trap receiver
// (TrapRepress, repeats folded until the SM acts) and the dump writer
// (only changed files, failures never thrown).
#include "../support/fake_loop.h"

#include "daemon/sweep/discovery.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/core/events.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"
#include "lidassign/base_lids.h"
#include "mad/notice.h"
#include "routing/registry.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace ibsm;
using topology::NodeId;
using topology::PortRef;

namespace {

// A 2-level tree (4 leaves of 4 hosts, 2 spines) as discovery would have
// found it from host 0, every port ACTIVE, with LIDs and MinHop tables.
daemon::SubnetSnapshot tree_snapshot()
{
    daemon::SubnetSnapshot s;
    s.found.fabric = topology::generate_pgft(topology::PgftParams{{4, 4}, {1, 2}, {1, 1}, false});
    auto& f = s.found.fabric;
    for (auto id : f.node_ids()) {
        auto& n = f.node(id);
        for (unsigned p = 0; p < n.ports.size(); ++p) {
            PortRef ref{id, PortNum(static_cast<std::uint8_t>(p))};
            const bool used = n.is_switch() ? (p == 0 || n.ports[p].remote) : n.ports[p].remote.has_value();
            if (!used) continue;
            n.ports[p].state = topology::PortState::active;
            n.ports[p].known = true;
            mad::PortInfo pi;
            pi.port_state = mad::PortState::active;
            s.found.port_info[ref] = pi;
        }
    }
    for (auto id : f.node_ids())
        if (!f.node(id).is_switch()) {
            s.found.sm_port = PortRef{id, PortNum(1)};
            break;
        }
    s.found.paths.resize(f.node_count());
    s.found = daemon::reachable_part(s.found, nullptr);
    auto lids = lidassign::assign_base_lids(s.found.fabric, {}, {});
    s.lids.lids = lids.lids;
    auto engine = routing::default_registry().create("minhop");
    auto r = engine->compute(s.found.fabric, s.lids.lids, {});
    s.tables = std::make_shared<routing::RoutingTables>(std::get<routing::RoutingTables>(r));
    s.health = daemon::SubnetHealth::up;
    s.generation = 1;
    return s;
}

// Follows `path` from the SM's node: the node it ends at.
NodeId walk(const daemon::DiscoveryResult& d, const DrPath& path)
{
    NodeId at = d.sm_port.node;
    for (std::size_t i = 0; i < path.hops(); ++i) {
        auto r = d.fabric.remote(PortRef{at, PortNum(path[i])});
        REQUIRE(r);
        at = r->node;
    }
    return at;
}

std::vector<NodeId> switches_of(const topology::Fabric& f)
{
    std::vector<NodeId> out;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch()) out.push_back(id);
    return out;
}

} // namespace

TEST_CASE("reachable_part keeps a connected fabric and gives every node a DR path that leads to it", "[reroute]")
{
    auto s = tree_snapshot();
    const auto& d = s.found;
    std::vector<Guid> lost;
    auto out = daemon::reachable_part(d, &lost);
    CHECK(lost.empty());
    CHECK(out.fabric.node_count() == d.fabric.node_count());
    for (auto id : out.fabric.node_ids()) CHECK(walk(out, out.path_to(id)) == id);
}

TEST_CASE("reachable_part drops what links going down cut off, re-keys the attributes and re-routes paths",
          "[reroute]")
{
    auto s = tree_snapshot();
    auto d = s.found;
    auto& f = d.fabric;
    // The SM's leaf and one spine: cut the SM leaf's uplink to spine 0, so
    // spine 0 is now reached via another leaf; then isolate leaf 3 entirely
    // (its hosts are lost with it).
    const NodeId sm_leaf = f.remote(d.sm_port)->node;
    const auto sws = switches_of(f);
    NodeId far_leaf = sm_leaf;
    for (auto id : sws)
        if (id != sm_leaf && f.node(id).num_ports() && f.node(id).ports[1].remote &&
            !f.node(f.node(id).ports[1].remote->node).is_switch())
            far_leaf = id;
    REQUIRE(far_leaf != sm_leaf);
    std::optional<PortRef> up;
    for (unsigned p = 1; p <= f.node(sm_leaf).num_ports(); ++p) {
        auto r = f.remote(PortRef{sm_leaf, PortNum(static_cast<std::uint8_t>(p))});
        if (r && f.node(r->node).is_switch()) {
            up = PortRef{sm_leaf, PortNum(static_cast<std::uint8_t>(p))};
            break;
        }
    }
    REQUIRE(up);
    f.disconnect(*up);
    std::size_t far_hosts = 0;
    for (unsigned p = 1; p <= f.node(far_leaf).num_ports(); ++p) {
        PortRef ref{far_leaf, PortNum(static_cast<std::uint8_t>(p))};
        auto r = f.remote(ref);
        if (r && !f.node(r->node).is_switch()) ++far_hosts;
        if (r && f.node(r->node).is_switch()) f.disconnect(ref);
    }
    REQUIRE(far_hosts == 4);
    const Guid far_guid = f.node(far_leaf).guid;
    // A node known to want the plain PortInfo Get stays known through the rebuild.
    const Guid sm_leaf_guid = f.node(sm_leaf).guid;
    d.plain_port_info.insert(sm_leaf_guid);

    std::vector<Guid> lost;
    auto out = daemon::reachable_part(d, &lost);
    CHECK(out.plain_port_info.count(sm_leaf_guid) == 1);
    CHECK(lost.size() == 1 + far_hosts);
    CHECK(std::find(lost.begin(), lost.end(), far_guid) != lost.end());
    CHECK(out.fabric.node_count() == f.node_count() - lost.size());
    CHECK_FALSE(out.fabric.find_node(far_guid));
    // Every node left is reached by its path, and the attributes follow
    // the renumbered nodes.
    for (auto id : out.fabric.node_ids()) CHECK(walk(out, out.path_to(id)) == id);
    for (const auto& [ref, pi] : out.port_info) CHECK(ref.node.value < out.fabric.node_count());
    CHECK(out.fabric.node(out.sm_port.node).guid == f.node(d.sm_port.node).guid);
    CHECK(out.fabric.link_count() == f.link_count() - far_hosts);
}

TEST_CASE("events fold into work: traps name switches or ports by LID, unknown LIDs ask for a heavy sweep",
          "[reroute]")
{
    auto s = tree_snapshot();
    const auto& f = s.found.fabric;
    const NodeId leaf = f.remote(s.found.sm_port)->node;
    const Lid leaf_lid = s.lids.lids.lids_of(PortRef{leaf, PortNum(0)})->base;

    daemon::Work w;
    mad::Notice n;
    n.trap_number_or_device_id = mad::trap::link_state_change;
    n.issuer_lid = leaf_lid;
    n.details = mad::LinkStateChangeDetails{leaf_lid};
    daemon::absorb(daemon::TrapEvent{n, leaf_lid}, &s, w);
    daemon::absorb(daemon::TrapEvent{n, leaf_lid}, &s, w); // the other copy
    CHECK_FALSE(w.heavy);
    CHECK(w.events == 2);
    CHECK(w.switches == std::set<Guid>{f.node(leaf).guid});

    // Trap 144 "node description changed" from a CA: its port, the switch
    // at the other end of its cable, and its NodeDescription.
    const Lid sm_lid = s.lids.lids.lids_of(s.found.sm_port)->base;
    mad::Notice c;
    c.trap_number_or_device_id = mad::trap::local_changes;
    c.issuer_lid = sm_lid;
    c.details = mad::LocalChangesDetails{sm_lid, false, 0, mad::trap144::node_description_changed, 0};
    daemon::Work w2;
    daemon::absorb(daemon::TrapEvent{c, sm_lid}, &s, w2);
    CHECK(w2.ports == std::set<Guid>{f.port(s.found.sm_port).guid});
    CHECK(w2.switches == std::set<Guid>{f.node(leaf).guid});
    CHECK(w2.describe == std::set<Guid>{f.node(s.found.sm_port.node).guid});
    auto req = daemon::refresh_request(w2, s);
    CHECK(req.switches == std::vector<NodeId>{leaf});
    CHECK(req.ports == std::vector<PortRef>{s.found.sm_port});
    CHECK_FALSE(w2.heavy);

    // Trap 144 "SM priority changed" (a standby SM that outranks us): only
    // a heavy sweep finds SMs and hands over.
    c.details = mad::LocalChangesDetails{sm_lid, false, 2, mad::trap144::sm_priority_changed, 0};
    daemon::Work w_sm;
    daemon::absorb(daemon::TrapEvent{c, sm_lid}, &s, w_sm);
    CHECK(w_sm.heavy);
    CHECK(w_sm.heavy_reason == "trap 144: SM priority changed at LID " + std::to_string(sm_lid.value()));

    // A LID no port has, trap 145, reload: heavy.
    daemon::Work w3;
    n.issuer_lid = Lid(999);
    n.details = mad::LinkStateChangeDetails{Lid(999)};
    daemon::absorb(daemon::TrapEvent{n, Lid(999)}, &s, w3);
    CHECK(w3.heavy);
    CHECK(w3.heavy_reason.find("LID 999") != std::string::npos);
    daemon::Work w4;
    daemon::absorb(daemon::ReloadEvent{}, &s, w4);
    CHECK(w4.heavy);
    daemon::absorb(daemon::ShutdownEvent{}, &s, w4);
    CHECK(w4.shutdown);

    // A light sweep's PortStateChange names the switch; a GUID that is gone
    // from the fabric is dropped from the request.
    daemon::Work w5;
    daemon::absorb(daemon::PortStateChangeEvent{f.node(leaf).guid}, &s, w5);
    daemon::absorb(daemon::PortStateChangeEvent{Guid(0xdead)}, &s, w5);
    CHECK(w5.switches.size() == 2);
    CHECK(daemon::refresh_request(w5, s).switches == std::vector<NodeId>{leaf});
}

TEST_CASE("a multicast request folds into the work after its sweep part, gathered until its batch is in",
          "[reroute][mcast]")
{
    using namespace std::chrono_literals;
    auto s = tree_snapshot();
    const auto t0 = daemon::Work::Clock::time_point{} + 1h;
    daemon::SchedulerSettings settings;
    settings.debounce = 20ms;
    settings.debounce_max = 1000ms;

    // Alone: a push and nothing else, no sweep event counted, waiting for
    // the latest batch folded in.
    daemon::Work w;
    daemon::absorb(daemon::McastTablesEvent{t0 + 5ms}, &s, w);
    daemon::absorb(daemon::McastTablesEvent{t0 + 3ms}, &s, w);
    CHECK(w.mcast);
    CHECK_FALSE(w.sweeps());
    CHECK(w.events == 0);
    CHECK(w.mcast_not_before == t0 + 5ms);
    CHECK(daemon::gather_until(w, t0, t0, settings) == t0 + 5ms);
    CHECK(daemon::gather_until(w, t0, t0 + 10ms, settings) == t0 + 5ms);

    // With sweep work: the sweep keeps its reason and its debounce (the
    // batch does not hold a sweep back), and the push stays for after it.
    daemon::absorb(daemon::HeavySweepEvent{"light sweep: the SM's own port is not ACTIVE"}, &s, w);
    CHECK(w.heavy);
    CHECK(w.sweeps());
    CHECK(w.mcast);
    CHECK(w.events == 1);
    CHECK(w.heavy_reason == "light sweep: the SM's own port is not ACTIVE");
    CHECK(daemon::gather_until(w, t0, t0 + 1ms, settings) == t0 + 21ms);
    CHECK(daemon::gather_until(w, t0, t0 + 990ms, settings) == t0 + 1000ms);

    // Folded the other way round, the same work.
    daemon::Work v;
    daemon::absorb(daemon::HeavySweepEvent{"light sweep: the SM's own port is not ACTIVE"}, &s, v);
    daemon::absorb(daemon::McastTablesEvent{t0 + 5ms}, &s, v);
    CHECK(v.heavy);
    CHECK(v.mcast);
    CHECK(v.events == 1);
    CHECK(v.heavy_reason == w.heavy_reason);

    // A re-route's switches are sweep work too.
    daemon::Work r;
    daemon::absorb(daemon::McastTablesEvent{t0 + 5ms}, &s, r);
    daemon::absorb(daemon::PortStateChangeEvent{Guid(0xdead)}, &s, r);
    CHECK(r.sweeps());
    CHECK_FALSE(r.heavy);
    CHECK(daemon::gather_until(r, t0, t0, settings) == t0 + 20ms);
}

TEST_CASE("the events queue hands events over in order and times out when there are none", "[events]")
{
    boost::asio::io_context io;
    daemon::EventQueue q(io.get_executor());
    std::vector<int> seen;
    bool timed_out = false;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            auto none = co_await q.pop_until(daemon::EventQueue::Clock::now() + std::chrono::milliseconds(5));
            timed_out = !none;
            for (int i = 0; i < 3; ++i) {
                auto e = co_await q.pop();
                seen.push_back(static_cast<int>(e.index()));
            }
        },
        boost::asio::detached);
    boost::asio::steady_timer later(io, std::chrono::milliseconds(20));
    later.async_wait([&](auto) {
        q.push(daemon::ReloadEvent{});
        q.push(daemon::ShutdownEvent{});
        q.push(daemon::RetryEvent{});
    });
    io.run();
    CHECK(timed_out);
    CHECK(seen == std::vector<int>{3, 5, 4});
}

TEST_CASE("the trap receiver represses every trap and queues one event until the SM acts", "[traps]")
{
    boost::asio::io_context io;
    test::FakePort port(true);
    mad::Transport transport(io, port, {});
    daemon::EventQueue events(io.get_executor());
    daemon::TrapReceiver traps(transport, events);
    transport.set_unsolicited_handler([&](const mad::RawReceive& r) { traps.on_trap(r); });
    transport.start();

    auto trap = [](std::uint64_t tid, std::uint16_t count) {
        mad::Notice n;
        n.type = mad::notice_type::urgent;
        n.producer_type_or_vendor_id = 2;
        n.trap_number_or_device_id = mad::trap::link_state_change;
        n.issuer_lid = Lid(7);
        n.notice_count = count;
        n.details = mad::LinkStateChangeDetails{Lid(7)};
        std::array<std::uint8_t, 64> data{};
        mad::encode(n, std::span<std::uint8_t, 64>(data));
        mad::RawReceive r;
        r.smp = mad::make_lid_request(mad::Method::trap, Lid(1), mad::attr::notice, 0, tid, data);
        r.length = mad::mad_size;
        return r;
    };
    port.inject(trap(100, 0));
    port.inject(trap(101, 1)); // a repeat (NoticeCount differs)
    boost::asio::steady_timer t(io, std::chrono::milliseconds(30));
    t.async_wait([&](auto) {
        traps.acted();
        port.inject(trap(102, 2)); // after the SM acted: news again
        boost::asio::steady_timer* t2 = new boost::asio::steady_timer(io, std::chrono::milliseconds(30));
        t2->async_wait([&, t2](auto) {
            delete t2;
            transport.stop();
        });
    });
    io.run();

    REQUIRE(port.responses.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(port.responses[i].method() == static_cast<std::uint8_t>(mad::Method::trap_repress));
        CHECK(port.responses[i].attr_id() == mad::attr::notice);
        CHECK(port.responses[i].tid() == 100 + i);
    }
    CHECK(events.size() == 2);
    const auto& c = traps.counts().at(mad::trap::link_state_change);
    CHECK(c.received == 3);
    CHECK(c.repeats == 1);
    CHECK(c.repressed == 3);
}

TEST_CASE("the dump writer writes changed files only and never throws on a bad directory", "[dumps]")
{
    auto dir = std::filesystem::temp_directory_path() / ("ibsmd-dumps-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto snap = std::make_shared<daemon::SubnetSnapshot>(tree_snapshot());
    snap->summary = "summary of generation 1\n";
    auto wait_for = [](const daemon::DumpWriter& w, std::uint64_t files) {
        for (int i = 0; i < 500 && w.written() + w.unchanged() + w.failed() < files; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    {
        daemon::DumpWriter w(dir, config::DumpConfig{});
        w.publish(snap);
        wait_for(w, 3);
        CHECK(w.written() == 3);
        CHECK(std::filesystem::file_size(dir / "lfts.dump") > 0);
        CHECK(std::filesystem::exists(dir / "topology.net"));

        // The next generation with the same tables and fabric: only the
        // summary is rewritten.
        auto next = std::make_shared<daemon::SubnetSnapshot>(*snap);
        next->generation = 2;
        next->summary = "summary of generation 2\n";
        w.publish(next);
        wait_for(w, 6);
        CHECK(w.written() == 4);
        CHECK(w.unchanged() == 2);
        std::ifstream in(dir / "summary.txt");
        std::string line;
        std::getline(in, line);
        CHECK(line == "summary of generation 2");

        // A switch's table changes: lfts.dump is rewritten, topology.net not.
        auto third = std::make_shared<daemon::SubnetSnapshot>(*next);
        third->generation = 3;
        auto tables = std::make_shared<routing::RoutingTables>(*snap->tables);
        tables->lfts.begin()->second.port[1] ^= 1;
        third->tables = tables;
        w.set_config(config::DumpConfig{true, true, false, true});
        w.publish(third);
        wait_for(w, 8);
        CHECK(w.written() == 5);
        CHECK(w.unchanged() == 3);

        // More entries than dump.lfts_max_entries: no lfts.dump, and the older one goes.
        auto fourth = std::make_shared<daemon::SubnetSnapshot>(*third);
        fourth->generation = 4;
        config::DumpConfig limited{true, false, false, false};
        limited.lfts_max_entries = 1;
        w.set_config(limited);
        w.publish(fourth);
        for (int i = 0; i < 500 && std::filesystem::exists(dir / "lfts.dump"); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        CHECK_FALSE(std::filesystem::exists(dir / "lfts.dump"));
        CHECK(w.written() == 5);
    }
    {
        // The "directory" is a file: every dump fails, nothing is thrown.
        std::ofstream(dir / "plain-file") << "x";
        daemon::DumpWriter w(dir / "plain-file", config::DumpConfig{});
        w.publish(snap);
        w.drain();
        CHECK(w.failed() == 3);
        CHECK(w.written() == 0);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a light sweep request asks for a light sweep now, is no sweep work and waits for nothing", "[scheduler]")
{
    daemon::Work w;
    daemon::absorb(daemon::LightSweepEvent{"requested by ibsm resweep"}, nullptr, w);
    CHECK(w.light);
    CHECK_FALSE(w.sweeps());
    CHECK_FALSE(w.heavy);
    CHECK(w.events == 0); // not an event behind a sweep
    const auto now = daemon::Work::Clock::now();
    CHECK(daemon::gather_until(w, now, now, daemon::SchedulerSettings{}) <= now);
    // With a heavy request the heavy sweep covers it; both are recorded.
    daemon::absorb(daemon::HeavySweepEvent{"requested by ibsm resweep --heavy"}, nullptr, w);
    CHECK(w.light);
    CHECK(w.heavy);
    CHECK(w.heavy_reason == "requested by ibsm resweep --heavy");
    CHECK(w.events == 1);
}
