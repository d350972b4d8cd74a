// The counter poller over the fake fabric's PMAs: a counter sweep reads
// every linked port of the snapshot, clears only near-saturated error
// counters, counts resets by others, drops ports gone from the fabric,
// counts ports that do not answer, and a standby SM does not poll.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/health/perf_poller.h"
#include "daemon/sweep/bringup.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::Tree;
using topology::PortRef;

namespace {

struct Gate final : daemon::MastershipGate {
    std::optional<std::string> why;
    boost::asio::awaitable<std::optional<std::string>> after_discovery(const daemon::DiscoveryResult&) override
    {
        co_return why;
    }
    std::optional<std::string> standing_by() const override { return why; }
};

struct Poll {
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop{t.f};
    daemon::Bringup bringup{loop.transport, bringup_settings(dir.path)};
    Gate gate;
    daemon::PerfPoller poller{loop.io.get_executor(), loop.transport, gate, daemon::PerfSettings{}};

    Poll()
    {
        REQUIRE(loop.run([&] { return bringup.sweep(); }).up);
        poller.on_snapshot(bringup.snapshot());
    }
    std::optional<daemon::PerfSweepStats> sweep() { return loop.run([&] { return poller.sweep_once(); }); }
    health::PortId id(topology::NodeId n, unsigned port) const
    {
        return {t.f.node(n).guid, PortNum(static_cast<std::uint8_t>(port))};
    }
};

} // namespace

TEST_CASE("a counter sweep reads every linked port of the snapshot, and only those", "[perf]")
{
    Poll p;
    mad::perf::PortCounters pc;
    pc.symbol_errors = 11;
    pc.xmit_wait = 5;
    p.loop.fabric.set_port_counters({p.t.leaves[1], PortNum(2)}, pc);
    mad::perf::PortCountersExtended ext;
    ext.xmit_data = 1'000'000;
    p.loop.fabric.set_port_counters_extended({p.t.hosts[4], PortNum(1)}, ext);

    std::vector<std::pair<health::CounterTable, daemon::PerfSweepStats>> seen;
    p.poller.on_sweep([&](const health::CounterTable& t, const daemon::PerfSweepStats& s) { seen.emplace_back(t, s); });
    const auto s = p.sweep();
    REQUIRE(s);
    // 9 host cables and 6 leaf-spine cables: 30 linked ports.
    CHECK(s->ports == 30);
    CHECK(s->ports_read == 30);
    CHECK(s->ports_failed == 0);
    CHECK(s->failures == 0);
    // ClassPortInfo once per switch and per host port, then two reads per port.
    CHECK(p.loop.fabric.counters().pma_requests.at(mad::perf::attr::class_port_info) == 5 + 9);
    CHECK(p.loop.fabric.counters().pma_requests.at(mad::perf::attr::port_counters) == 30);
    CHECK(p.loop.fabric.counters().pma_requests.at(mad::perf::attr::port_counters_extended) == 30);
    CHECK(s->mads == 14 + 60);
    REQUIRE(seen.size() == 1);
    const auto& table = seen[0].first;
    REQUIRE(table.size() == 30);
    CHECK_FALSE(table.contains(p.id(p.t.leaves[0], 6))); // unlinked switch port: not polled
    const auto& erring = table.at(p.id(p.t.leaves[1], 2));
    CHECK(erring.total[health::index(health::Counter::symbol_errors)] == 11);
    CHECK(erring.total[health::index(health::Counter::xmit_wait)] == 5);
    CHECK(erring.supported[health::index(health::Counter::xmit_wait)]);
    CHECK(erring.extended);
    CHECK(table.at(p.id(p.t.hosts[4], 1)).total[health::index(health::Counter::xmit_data)] == 1'000'000);

    // The second sweep: ClassPortInfo is cached, deltas appear.
    pc.symbol_errors = 15;
    p.loop.fabric.set_port_counters({p.t.leaves[1], PortNum(2)}, pc);
    REQUIRE(p.sweep());
    CHECK(p.loop.fabric.counters().pma_requests.at(mad::perf::attr::class_port_info) == 14);
    const auto t2 = p.poller.table();
    CHECK(t2.at(p.id(p.t.leaves[1], 2)).delta[health::index(health::Counter::symbol_errors)] == 4);
    CHECK(t2.at(p.id(p.t.leaves[1], 2)).reads == 2);
    CHECK(p.poller.totals().sweeps == 2);

    // Rows carry names and far ends from the snapshot.
    bool found = false;
    for (const auto& row : p.poller.rows()) {
        if (row.id != p.id(p.t.leaves[1], 2)) continue;
        found = true;
        CHECK(row.node_desc == "L1");
        REQUIRE(row.remote);
        CHECK(row.remote->node == p.t.f.node(p.t.hosts[4]).guid);
    }
    CHECK(found);
}

TEST_CASE("near-saturated error counters are cleared on the port, the total keeps them; resets by others are seen",
          "[perf]")
{
    Poll p;
    const PortRef port{p.t.spines[0], PortNum(1)};
    mad::perf::PortCounters pc;
    pc.link_downed = 250;      // of 255: cleared
    pc.rcv_errors = 100;       // of 65535: kept
    pc.xmit_data = 0xFFFFFFFF; // traffic: never cleared
    p.loop.fabric.set_port_counters(port, pc);
    auto s = p.sweep();
    REQUIRE(s);
    CHECK(s->clears == 1);
    CHECK(p.loop.fabric.counters().pma_clears == 1);
    CHECK(p.loop.fabric.port_counters(port).link_downed == 0);
    CHECK(p.loop.fabric.port_counters(port).rcv_errors == 100);
    CHECK(p.loop.fabric.port_counters(port).xmit_data == 0xFFFFFFFF);

    auto after = p.loop.fabric.port_counters(port);
    after.link_downed = 3;
    after.rcv_errors = 20; // someone else cleared it, then 20 more
    p.loop.fabric.set_port_counters(port, after);
    s = p.sweep();
    REQUIRE(s);
    CHECK(s->resets_seen == 1);
    CHECK(s->clears == 0);
    const auto c = p.poller.table().at(p.id(p.t.spines[0], 1));
    CHECK(c.total[health::index(health::Counter::link_downed)] == 253);
    CHECK(c.total[health::index(health::Counter::rcv_errors)] == 120);
    CHECK(c.resets_seen == 1);
}

TEST_CASE("a standby SM does not poll; polling off does not poll", "[perf]")
{
    Poll p;
    p.gate.why = "standing by for master SM 0x1";
    CHECK_FALSE(p.sweep());
    CHECK(p.loop.fabric.counters().pma_requests.empty());
    p.gate.why.reset();
    p.poller.apply(daemon::PerfSettings{false, std::chrono::seconds(60), 4});
    CHECK_FALSE(p.sweep());
    CHECK(p.loop.fabric.counters().pma_requests.empty());
    p.poller.apply(daemon::PerfSettings{});
    CHECK(p.sweep());
    CHECK_FALSE(p.loop.fabric.counters().pma_requests.empty());
}

TEST_CASE("ports gone from the fabric leave the table; ports that do not answer count failures", "[perf]")
{
    Poll p;
    REQUIRE(p.sweep());
    REQUIRE(p.poller.table().size() == 30);
    // A host cable pulled; the re-route's snapshot is picked up at the next sweep.
    p.loop.fabric.unlink({p.t.hosts[8], PortNum(1)});
    REQUIRE(p.loop.run([&] { return p.bringup.sweep(); }).up);
    p.poller.on_snapshot(p.bringup.snapshot());
    // L0 does not answer its PMA queries this sweep.
    p.loop.fabric.drop_next(p.t.f.node(p.t.leaves[0]).guid, 100);
    const auto s = p.sweep();
    REQUIRE(s);
    CHECK(s->ports == 28);
    CHECK(s->ports_failed == 5); // L0's three hosts and two spines
    const auto table = p.poller.table();
    CHECK(table.size() == 28);
    CHECK_FALSE(table.contains(p.id(p.t.hosts[8], 1)));
    CHECK_FALSE(table.contains(p.id(p.t.leaves[2], 3)));
    const auto& mute = table.at(p.id(p.t.leaves[0], 1));
    CHECK(mute.failures == 1);
    CHECK((mute.failure_history & 1) == 1);
    CHECK(mute.reads == 1); // its counters from the first sweep stay
    CHECK((table.at(p.id(p.t.leaves[1], 1)).failure_history & 1) == 0);
}
