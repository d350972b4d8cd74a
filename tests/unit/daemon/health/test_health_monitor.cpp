// The health monitor over a hand-built snapshot: flapping counted from the
// re-routes' link-downs isolates a switch link (saved, handed to the
// isolation sink, kept across a restart), a host's only link is refused
// with the reason, clear lifts an isolation, a corrupt file is set aside.
#include "../support/temp_dir.h"
#include "daemon/health/health_monitor.h"

#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ibsm;
using daemon::HealthMonitor;
using health::PortId;
using topology::NodeType;
using topology::PortRef;

namespace {

// L1, L2 with two spines S1, S2; H1 (the SM) on L1/3, H2 on L2/3.
daemon::SnapshotPtr snapshot()
{
    auto s = std::make_shared<daemon::SubnetSnapshot>();
    auto& f = s->found.fabric;
    auto l1 = f.add_node(NodeType::switch_node, Guid(0x11), 3, "L1");
    auto l2 = f.add_node(NodeType::switch_node, Guid(0x12), 3, "L2");
    auto s1 = f.add_node(NodeType::switch_node, Guid(0x21), 2, "S1");
    auto s2 = f.add_node(NodeType::switch_node, Guid(0x22), 2, "S2");
    auto h1 = f.add_node(NodeType::ca, Guid(0x1), 1, "H1");
    auto h2 = f.add_node(NodeType::ca, Guid(0x2), 1, "H2");
    f.connect({l1, PortNum(1)}, {s1, PortNum(1)});
    f.connect({l1, PortNum(2)}, {s2, PortNum(1)});
    f.connect({l2, PortNum(1)}, {s1, PortNum(2)});
    f.connect({l2, PortNum(2)}, {s2, PortNum(2)});
    f.connect({l1, PortNum(3)}, {h1, PortNum(1)});
    f.connect({l2, PortNum(3)}, {h2, PortNum(1)});
    s->found.sm_port = PortRef{h1, PortNum(1)};
    s->generation = 1;
    s->health = daemon::SubnetHealth::up;
    return s;
}

daemon::SweepOutcome link_down(std::vector<PortId> ends)
{
    daemon::SweepOutcome o;
    o.kind = daemon::SweepKind::reroute;
    o.up = true;
    o.changes.links_down = 1;
    o.changes.ports_down = std::move(ends);
    return o;
}

health::HealthPolicy flapping_isolates()
{
    health::HealthPolicy p;
    p.flap_downs = 5;
    p.flap_window_s = 30;
    p.flap_action = health::Action::isolate;
    p.isolation_budget = 1; // 4 switch-to-switch links: the default 20 % would allow none
    return p;
}

struct Spy {
    std::vector<std::set<PortId>> isolations;
    std::vector<std::string> events;
    void attach(HealthMonitor& m)
    {
        m.on_isolation_change([this](const std::set<PortId>& s, const std::string&) { isolations.push_back(s); });
        m.on_event([this](std::string_view kind, const nlohmann::json&) { events.emplace_back(kind); });
    }
};

} // namespace

TEST_CASE("monitor: a flapping switch link is isolated once, saved, and still isolated after a restart",
          "[health]")
{
    spdlog::set_level(spdlog::level::off);
    test::TempDir dir;
    double now = 1000;
    auto snap = snapshot();
    const PortId l2_1{Guid(0x12), PortNum(1)}, s1_2{Guid(0x21), PortNum(2)};
    {
        HealthMonitor m(dir.path, flapping_isolates(), [&] { return now; });
        Spy spy;
        spy.attach(m);
        m.load();
        m.on_outcome(daemon::SweepOutcome{}, snap);
        for (int i = 0; i < 4; ++i, now += 5) m.on_outcome(link_down({l2_1, s1_2}), snap);
        CHECK(spy.isolations.empty());
        m.on_outcome(link_down({l2_1, s1_2}), snap);
        REQUIRE(spy.isolations.size() == 1);
        CHECK(spy.isolations[0] == std::set<PortId>{l2_1}); // both ends fired: one isolation
        CHECK(spy.events == std::vector<std::string>{"isolation"});
        auto rows = m.rows();
        REQUIRE_FALSE(rows.empty());
        CHECK(rows[0].id == l2_1);
        CHECK(rows[0].state == health::HealthState::isolated);
        CHECK(rows[0].link_downs_recent == 5);
        CHECK(rows[0].reasons.at(0) == "flapping: 5 link-downs within 30 s (threshold 5)");
        // Still flapping: no second isolation, no second event.
        m.on_outcome(link_down({l2_1, s1_2}), snap);
        CHECK(spy.isolations.size() == 1);
    }
    CHECK(std::filesystem::exists(dir.path / "isolated_links.json"));
    HealthMonitor again(dir.path, health::HealthPolicy{}, [&] { return now; });
    Spy spy;
    spy.attach(again);
    again.load();
    REQUIRE(spy.isolations.size() == 1);
    CHECK(spy.isolations[0] == std::set<PortId>{l2_1});
    again.on_outcome(daemon::SweepOutcome{}, snap);
    // Lifted from the other end of the link.
    auto r = again.clear(s1_2);
    CHECK(r.ok);
    REQUIRE(spy.isolations.size() == 2);
    CHECK(spy.isolations[1].empty());
    CHECK(spy.events == std::vector<std::string>{"isolation_cleared"});
    CHECK_FALSE(again.clear(s1_2).ok);
}

TEST_CASE("monitor: a host's only link flapping is refused with the reason, and logged once", "[health]")
{
    spdlog::set_level(spdlog::level::off);
    test::TempDir dir;
    double now = 1000;
    auto snap = snapshot();
    HealthMonitor m(dir.path, flapping_isolates(), [&] { return now; });
    Spy spy;
    spy.attach(m);
    const PortId l2_3{Guid(0x12), PortNum(3)}, h2{Guid(0x2), PortNum(1)};
    m.on_outcome(daemon::SweepOutcome{}, snap);
    for (int i = 0; i < 6; ++i, now += 2) m.on_outcome(link_down({l2_3, h2}), snap);
    CHECK(spy.isolations.empty());
    // Both ends refused, each reported once while the finding holds.
    CHECK(spy.events == std::vector<std::string>{"isolation_refused", "isolation_refused"});
    auto rows = m.rows();
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0].state == health::HealthState::isolation_refused);
    CHECK(rows[0].reasons.at(0).find("would cut off H2: its only link") != std::string::npos);
    // The operator's command is refused the same way; an unknown port is named.
    auto r = m.isolate(h2, "");
    CHECK_FALSE(r.ok);
    CHECK(r.text == "refused: isolating H2/1 - L2/3 would cut off H2: its only link");
    CHECK(m.isolate(PortId{Guid(0x99), PortNum(1)}, "").text == "unknown port: node 0x0000000000000099 port 1");
    CHECK(m.isolate(PortId{Guid(0x11), PortNum(1)}, "bad cable").ok);
    // Once the window has passed the refusal is over.
    now += 100;
    m.on_outcome(daemon::SweepOutcome{}, snap);
    CHECK(m.rows()[1].state == health::HealthState::ok);
}

TEST_CASE("monitor: a corrupt isolation file is moved aside and no link is isolated", "[health]")
{
    spdlog::set_level(spdlog::level::off);
    test::TempDir dir;
    std::ofstream(dir.path / "isolated_links.json") << "{not json";
    HealthMonitor m(dir.path, health::HealthPolicy{});
    Spy spy;
    spy.attach(m);
    m.load();
    CHECK(spy.isolations.empty());
    CHECK(m.isolated().empty());
    CHECK_FALSE(std::filesystem::exists(dir.path / "isolated_links.json"));
    bool aside = false;
    for (const auto& e : std::filesystem::directory_iterator(dir.path))
        aside = aside || e.path().filename().string().rfind("isolated_links.json.corrupt-", 0) == 0;
    CHECK(aside);
}

TEST_CASE("monitor: after the operator's clear, only new evidence isolates again; a lasting downshift is spared",
          "[health]")
{
    spdlog::set_level(spdlog::level::off);
    test::TempDir dir;
    double now = 1000;
    auto snap = snapshot();
    const PortId l2_1{Guid(0x12), PortNum(1)};
    health::HealthPolicy p;
    p.thresholds[health::index(health::Counter::symbol_errors)] = health::Threshold{20, health::Action::isolate};
    p.downshift_action = health::Action::isolate;
    p.isolation_budget = 1;
    HealthMonitor m(dir.path, p, [&] { return now; });
    Spy spy;
    spy.attach(m);
    m.on_outcome(daemon::SweepOutcome{}, snap);

    health::CounterTable table;
    auto& c = table[l2_1];
    c.reads = 2;
    c.interval_s = 60;
    c.total[health::index(health::Counter::symbol_errors)] = 50;
    c.delta[health::index(health::Counter::symbol_errors)] = 50;
    m.on_counters(table);
    REQUIRE(spy.isolations.size() == 1);
    CHECK(spy.isolations[0] == std::set<PortId>{l2_1});

    // The clear's re-route (an outcome) and the same table again: the +50
    // was acted on, so the link stays in the routing.
    REQUIRE(m.clear(l2_1).ok);
    REQUIRE(spy.isolations.size() == 2);
    m.on_outcome(daemon::SweepOutcome{}, snap);
    CHECK(spy.isolations.size() == 2);
    CHECK(m.isolated().empty());
    // A quiet interval, then new errors: isolated again.
    c.delta[health::index(health::Counter::symbol_errors)] = 0;
    m.on_counters(table);
    CHECK(m.isolated().empty());
    c.total[health::index(health::Counter::symbol_errors)] = 80;
    c.delta[health::index(health::Counter::symbol_errors)] = 30;
    m.on_counters(table);
    CHECK(m.isolated() == std::set<PortId>{l2_1});
    REQUIRE(m.clear(l2_1).ok);

    // A downshifted link isolated, then cleared: reported while it lasts.
    auto shifted = std::make_shared<daemon::SubnetSnapshot>(*snap);
    shifted->generation = 2; // the monitor takes link checks from a new generation
    health::LinkCheck lc;
    lc.downshifted = true;
    lc.findings = {"width 1x of 4x"};
    shifted->link_checks[l2_1] = lc;
    c.delta[health::index(health::Counter::symbol_errors)] = 0;
    m.on_counters(table);
    m.on_outcome(daemon::SweepOutcome{}, shifted);
    CHECK(m.isolated() == std::set<PortId>{l2_1});
    REQUIRE(m.clear(l2_1).ok);
    m.on_outcome(daemon::SweepOutcome{}, shifted);
    CHECK(m.isolated().empty());
    auto rows = m.rows();
    REQUIRE_FALSE(rows.empty());
    CHECK(rows[0].id == l2_1);
    CHECK(rows[0].state == health::HealthState::reported);
    // The link trains right again, later wrong again: isolated again.
    auto right = std::make_shared<daemon::SubnetSnapshot>(*snap);
    right->generation = 3;
    m.on_outcome(daemon::SweepOutcome{}, right);
    CHECK(m.isolated().empty());
    auto wrong = std::make_shared<daemon::SubnetSnapshot>(*shifted);
    wrong->generation = 4;
    m.on_outcome(daemon::SweepOutcome{}, wrong);
    CHECK(m.isolated() == std::set<PortId>{l2_1});
}
