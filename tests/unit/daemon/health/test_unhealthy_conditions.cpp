// NVIDIA's unhealthy-port conditions on the fake fabric, through the wings
// that see them: a spine leaving and coming back (reboot) and a counter
// reset, a storm of traps 129 from one port (noisy) through the trap
// receiver, Sets answered with a bad status (set_errors) and answers the
// transport drops or discovery cannot decode (illegal), each fed to the
// health monitor as daemon/main.cpp wires it; the isolation budget, no_discover
// and dry_run on the monitor's decisions.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/smp_ops.h"
#include "daemon/health/health_monitor.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/trap_receiver.h"
#include "mad/node_info.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using daemon::HealthMonitor;
using health::PortId;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::Tree;
using topology::PortRef;

namespace {

// A bring-up of the fake Tree (9 hosts, 3 leaves, 2 spines: 6
// switch-to-switch links) with the monitor wired to its events.
struct Rig {
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop{t.f};
    daemon::Bringup bringup{loop.transport, bringup_settings(dir.path)};
    daemon::EventQueue events{loop.io.get_executor()};
    daemon::TrapReceiver traps{loop.transport, events};
    double now = 1000;
    HealthMonitor monitor;
    std::vector<std::pair<std::string, nlohmann::json>> feed;
    std::vector<std::set<PortId>> isolations;
    std::vector<std::set<Guid>> skips;

    explicit Rig(health::HealthPolicy policy) : monitor(dir.path, policy, [this] { return now; })
    {
        monitor.on_event([this](std::string_view kind, const nlohmann::json& j) { feed.emplace_back(kind, j); });
        monitor.on_isolation_change([this](const std::set<PortId>& s, const std::string&) {
            isolations.push_back(s);
            bringup.set_isolated_links(s);
        });
        monitor.on_no_discover_change([this](const std::set<Guid>& s, const std::string&) {
            skips.push_back(s);
            bringup.set_no_discover(s);
        });
        traps.on_notice([this](const mad::Notice& n) { monitor.on_notice(n); });
        loop.transport.set_unsolicited_handler([this](const mad::RawReceive& r) { traps.on_trap(r); });
        loop.transport.set_answer_observer(
            {[this](const mad::SmpRequest& q, const mad::SmpResponse& r) { monitor.on_bad_status(q, r); },
             [this](const mad::SmpRequest& q, const std::string& w) { monitor.on_malformed_answer(q, w); }});
        sweep();
    }
    daemon::SweepOutcome sweep()
    {
        auto o = loop.run([&] { return bringup.sweep(); });
        monitor.on_outcome(o, bringup.snapshot());
        return o;
    }
    std::size_t count(std::string_view kind) const
    {
        return static_cast<std::size_t>(
            std::count_if(feed.begin(), feed.end(), [&](const auto& e) { return e.first == kind; }));
    }
    Guid guid(topology::NodeId n) const { return t.f.node(n).guid; }
    PortId id(topology::NodeId n, unsigned p) const { return {guid(n), PortNum(static_cast<std::uint8_t>(p))}; }
    DrPath path_to(topology::NodeId n) const
    {
        const auto& found = bringup.snapshot()->found;
        return found.path_to(*found.fabric.find_node(guid(n)));
    }
};

health::HealthPolicy quiet_policy()
{
    health::HealthPolicy p;
    for (auto& t : p.thresholds) t.action = health::Action::off;
    p.flap_action = p.unresponsive_action = p.downshift_action = health::Action::off;
    p.reboot.action = p.noisy.action = p.set_errors.action = p.illegal.action = health::Action::off;
    return p;
}

mad::Notice trap_129(Lid lid, PortNum port)
{
    mad::Notice n;
    n.type = mad::notice_type::urgent;
    n.producer_type_or_vendor_id = static_cast<std::uint32_t>(mad::NodeKind::switch_node);
    n.trap_number_or_device_id = mad::trap::local_link_integrity;
    n.details = mad::PortErrorDetails{lid, port};
    return n;
}

} // namespace

TEST_CASE("reboot: a spine leaving and coming back twice is isolated link by link up to the budget", "[health]")
{
    auto policy = quiet_policy();
    policy.reboot = {2, 900, health::Action::isolate};
    policy.isolation_budget = 0.2; // 6 switch-to-switch links: 1 may be isolated
    Rig rig(policy);
    const auto spine = rig.t.spines[1];
    for (int i = 0; i < 2; ++i) {
        rig.loop.fabric.unlink_node(spine);
        rig.now += 10;
        REQUIRE(rig.sweep().up);
        REQUIRE_FALSE(rig.bringup.snapshot()->found.fabric.find_node(rig.guid(spine)));
        rig.loop.fabric.relink_node(spine);
        rig.now += 10;
        REQUIRE(rig.sweep().up);
        if (i == 0) CHECK(rig.monitor.isolated().empty()); // one reboot: below the threshold
    }
    // The first of its links goes; the other two would pass the budget:
    // reported, and said so on the feed.
    CHECK(rig.monitor.isolated() == std::set<PortId>{rig.id(spine, 1)});
    CHECK(rig.count("isolation") == 1);
    CHECK(rig.count("isolation_over_budget") == 2);
    REQUIRE_FALSE(rig.isolations.empty());
    CHECK(rig.isolations.back() == rig.monitor.isolated());
    for (const auto& [kind, j] : rig.feed)
        if (kind == "isolation_over_budget") CHECK(j["reason"].get<std::string>().find("isolation budget is spent") !=
                                                   std::string::npos);
    const auto rows = rig.monitor.rows();
    REQUIRE_FALSE(rows.empty());
    CHECK(rows[0].id == rig.id(spine, 1));
    CHECK(rows[0].state == health::HealthState::isolated);
    CHECK(rows[0].reasons[0].rfind("reboot: 2 reboots", 0) == 0);
    // The re-route around it sends nothing towards that spine port.
    auto o = rig.loop.run([&] { return rig.bringup.reroute_isolated(); });
    CHECK(o.up);
    CHECK(rig.bringup.snapshot()->isolated.size() == 1);
}

TEST_CASE("reboot: counters reset by someone else count as one, once per node", "[health]")
{
    auto policy = quiet_policy();
    policy.reboot = {1, 900, health::Action::report};
    Rig rig(policy);
    const auto leaf = rig.t.leaves[0];
    health::CounterTable table;
    health::PortCounters c;
    c.last_read = rig.now;
    table[rig.id(leaf, 1)] = c;
    table[rig.id(leaf, 4)] = c;
    rig.monitor.on_counters(table);
    CHECK(rig.count("health_report") == 0);
    rig.now += 30;
    for (auto& [id, pc] : table) {
        pc.resets_seen = 1; // the switch restarted: every port's counters went back
        pc.last_read = rig.now;
    }
    rig.monitor.on_counters(table);
    REQUIRE(rig.count("health_report") == 1);
    CHECK(rig.feed.back().second["node_guid"] == rig.guid(leaf).str());
    CHECK(rig.feed.back().second["reason"] ==
          "1 reboots (left the fabric and came back, or counters reset) within 900 s (threshold: 1)");
}

TEST_CASE("noisy: a storm of traps 129 from one leaf port isolates that link, fewer traps do not", "[health]")
{
    auto policy = quiet_policy();
    policy.noisy = {5, 60, health::Action::isolate};
    policy.isolation_budget = 0.5;
    Rig rig(policy);
    const auto leaf = rig.t.leaves[2];
    const Lid lid = rig.loop.fabric.port_info({leaf, PortNum(0)}).lid;
    auto raise = [&](unsigned n) {
        for (unsigned i = 0; i < n; ++i) {
            REQUIRE(rig.loop.fabric.raise_trap({leaf, PortNum(0)}, trap_129(lid, PortNum(4))));
            rig.loop.poll();
            rig.now += 0.5;
        }
    };
    raise(5);
    CHECK(rig.traps.counts().at(mad::trap::local_link_integrity).received == 5);
    CHECK(rig.monitor.isolated().empty()); // 5 is not more than 5
    raise(1);
    CHECK(rig.monitor.isolated() == std::set<PortId>{rig.id(leaf, 4)});
    REQUIRE(rig.count("isolation") == 1);
    CHECK(rig.feed.back().second["rule"] == "noisy");
    CHECK(rig.feed.back().second["reason"] == "6 traps 129/130/131 within 60 s (threshold: more than 5)");
    // Out of the window, the storm is forgotten.
    rig.now += 120;
    rig.sweep();
    CHECK(rig.monitor.rows().size() > 0);
}

TEST_CASE("set_errors: Sets a leaf answers with a bad status, counted per node", "[health]")
{
    auto policy = quiet_policy();
    policy.set_errors = {2, 600, health::Action::report};
    Rig rig(policy);
    const auto leaf = rig.t.leaves[1];
    rig.loop.fabric.reject_next(rig.guid(leaf), 2, 0x001c, mad::attr::port_info);
    const daemon::SmpData data{};
    // dr_get/dr_set take the path by reference into their frames: it must outlive the run.
    const DrPath path = rig.path_to(leaf);
    auto set = [&] {
        return rig.loop.run([&] { return daemon::dr_set(rig.loop.transport, path, mad::attr::port_info, 1, data); });
    };
    // A bad-status Get does not count.
    rig.loop.fabric.reject_next(rig.guid(leaf), 1, 0x001c, mad::attr::node_description);
    CHECK(rig.loop.run([&] { return daemon::dr_get(rig.loop.transport, path, mad::attr::node_description, 0); })
              .failure == mad::SmpFailure::bad_status);
    CHECK(set().status == 0x001c);
    CHECK(rig.count("health_report") == 0);
    CHECK(set().status == 0x001c);
    REQUIRE(rig.count("health_report") == 1);
    CHECK(rig.feed.back().second["rule"] == "set_errors");
    CHECK(rig.feed.back().second["node_guid"] == rig.guid(leaf).str());
    CHECK(rig.feed.back().second["node_desc"] == "L1");
}

TEST_CASE("illegal: a truncated answer and a NodeInfo that does not decode", "[health]")
{
    auto policy = quiet_policy();
    policy.illegal = {1, 600, health::Action::report};
    Rig rig(policy);
    const auto spine = rig.t.spines[0];
    // Cut short on the wire: the transport drops it (and retries).
    rig.loop.fabric.truncate_next(rig.guid(spine), 1, mad::attr::switch_info);
    const DrPath path = rig.path_to(spine);
    rig.loop.run([&] { return daemon::dr_get(rig.loop.transport, path, mad::attr::switch_info, 0); });
    REQUIRE(rig.count("health_report") == 1);
    CHECK(rig.feed.back().second["rule"] == "illegal");
    CHECK(rig.feed.back().second["node_guid"] == rig.guid(spine).str());

    // Discovery reaches the other spine's NodeInfo as zeros: the port that
    // leads to it is named (the node behind it answered).
    const auto other = rig.t.spines[1];
    rig.loop.fabric.garble_next(rig.guid(other), 1, mad::attr::node_info);
    rig.sweep();
    REQUIRE(rig.count("health_report") == 2);
    CHECK(rig.feed.back().second["rule"] == "illegal");
    const auto behind = rig.feed.back().second;
    CHECK(behind["port"].get<unsigned>() == 5); // a leaf's port 5 leads to spine 1
    CHECK(behind["remote_guid"] == rig.guid(other).str());
}

TEST_CASE("no_discover: a rebooting spine is read but not swept past; clear lifts it", "[health]")
{
    auto policy = quiet_policy();
    policy.reboot = {1, 900, health::Action::no_discover};
    Rig rig(policy);
    const auto spine = rig.t.spines[0];
    rig.loop.fabric.unlink_node(spine);
    rig.sweep();
    rig.loop.fabric.relink_node(spine);
    rig.sweep();
    CHECK(rig.monitor.no_discover() == std::set<Guid>{rig.guid(spine)});
    CHECK(rig.count("no_discover") == 1);
    REQUIRE_FALSE(rig.skips.empty());
    // The next heavy sweep finds every node and link, the spine's from the leaves' side.
    REQUIRE(rig.sweep().up);
    const auto& found = rig.bringup.snapshot()->found;
    CHECK(found.fabric.node_count() == rig.t.f.node_count());
    CHECK(found.fabric.link_count() == rig.t.f.link_count());
    // Kept across a restart, lifted by a clear of any of its ports.
    HealthMonitor again(rig.dir.path, policy, [&] { return rig.now; });
    again.load();
    CHECK(again.no_discover() == std::set<Guid>{rig.guid(spine)});
    auto r = rig.monitor.clear(rig.id(spine, 2));
    CHECK(r.ok);
    CHECK(rig.monitor.no_discover().empty());
    CHECK(rig.skips.back().empty());
}

TEST_CASE("dry_run: every rule evaluated and reported with what it would do, nothing done", "[health]")
{
    auto policy = quiet_policy();
    policy.reboot = {1, 900, health::Action::isolate};
    policy.isolation_budget = 1;
    policy.dry_run = true;
    Rig rig(policy);
    const auto spine = rig.t.spines[1];
    rig.loop.fabric.unlink_node(spine);
    rig.sweep();
    rig.loop.fabric.relink_node(spine);
    rig.sweep();
    CHECK(rig.monitor.isolated().empty());
    CHECK(rig.isolations.empty());
    // Three links: two it would isolate, the last would cut the spine off.
    REQUIRE(rig.count("health_dry_run") == 3);
    std::vector<std::string> would;
    for (const auto& [kind, j] : rig.feed)
        if (kind == "health_dry_run") {
            CHECK(j["would"] == "isolate");
            would.push_back(j["refused"].get<bool>() ? "refused" : "isolate");
        }
    CHECK(would == std::vector<std::string>{"isolate", "isolate", "refused"});
    CHECK_FALSE(std::filesystem::exists(rig.dir.path / "isolated_links.json"));
}
