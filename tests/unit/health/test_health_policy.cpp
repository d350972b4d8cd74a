#include "health/isolation.h"
#include "health/health_policy.h"
#include "config/config.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;
using topology::Fabric;
using topology::NodeType;
using topology::PortRef;

namespace {

PortId pid(std::uint64_t node, std::uint8_t port) { return PortId{Guid(node), PortNum(port)}; }

PortCounters with_delta(Counter c, std::uint64_t d, double interval = 60)
{
    PortCounters pc;
    pc.delta[index(c)] = d;
    pc.total[index(c)] = d;
    pc.interval_s = interval;
    return pc;
}

// Two leaves (L1 0x11, L2 0x12), two spines (S1 0x21, S2 0x22), every leaf
// port 1..2 up to a spine; H1 (0x1) on L1/3 and H2 (0x2) on L2/3, single
// ported; H3 (0x3) dual-homed on L1/4 and L2/4. The SM runs on H1.
struct Tree {
    Fabric f;
    PortRef sm;
    Tree()
    {
        auto l1 = f.add_node(NodeType::switch_node, Guid(0x11), 4, "L1");
        auto l2 = f.add_node(NodeType::switch_node, Guid(0x12), 4, "L2");
        auto s1 = f.add_node(NodeType::switch_node, Guid(0x21), 2, "S1");
        auto s2 = f.add_node(NodeType::switch_node, Guid(0x22), 2, "S2");
        auto h1 = f.add_node(NodeType::ca, Guid(0x1), 1, "H1");
        auto h2 = f.add_node(NodeType::ca, Guid(0x2), 1, "H2");
        auto h3 = f.add_node(NodeType::ca, Guid(0x3), 2, "H3");
        auto at = [](topology::NodeId n, std::uint8_t p) { return PortRef{n, PortNum(p)}; };
        f.connect(at(l1, 1), at(s1, 1));
        f.connect(at(l1, 2), at(s2, 1));
        f.connect(at(l2, 1), at(s1, 2));
        f.connect(at(l2, 2), at(s2, 2));
        f.connect(at(l1, 3), at(h1, 1));
        f.connect(at(l2, 3), at(h2, 1));
        f.connect(at(l1, 4), at(h3, 1));
        f.connect(at(l2, 4), at(h3, 2));
        sm = at(h1, 1);
    }
};

} // namespace

TEST_CASE("threshold per interval: fires at the threshold, not below, not on a first read, not when off")
{
    HealthPolicy p;
    p.thresholds[index(Counter::symbol_errors)] = {10, Action::report};
    p.thresholds[index(Counter::rcv_errors)] = {5, Action::off};
    CounterTable t;
    t[pid(0x11, 1)] = with_delta(Counter::symbol_errors, 10);
    t[pid(0x11, 2)] = with_delta(Counter::symbol_errors, 9);
    t[pid(0x12, 1)] = with_delta(Counter::symbol_errors, 500, 0); // first read: no interval
    t[pid(0x12, 2)] = with_delta(Counter::rcv_errors, 50);        // rule off
    auto f = evaluate(p, Inputs{&t, nullptr, nullptr, nullptr, 0});
    REQUIRE(f.size() == 1);
    CHECK(f[0].port == pid(0x11, 1));
    CHECK(f[0].rule == Rule::threshold);
    CHECK(f[0].counter == Counter::symbol_errors);
    CHECK(f[0].reason == "symbol_errors +10 in 60 s (threshold 10 per interval)");
}

TEST_CASE("flapping: N downs within the window fire, older ones fall out of it")
{
    HealthPolicy p;
    p.flap_downs = 5;
    p.flap_window_s = 60;
    p.flap_action = Action::isolate;
    LinkDownHistory h;
    h[pid(0x11, 1)] = {100, 110, 120, 130, 140};
    h[pid(0x11, 2)] = {10, 110, 120, 130, 140}; // the first is 150 s old
    auto f = evaluate(p, Inputs{nullptr, nullptr, &h, nullptr, 160});
    REQUIRE(f.size() == 1);
    CHECK(f[0].port == pid(0x11, 1));
    CHECK(f[0].action == Action::isolate);
    CHECK(f[0].reason == "5 link-downs within 60 s (threshold 5)");
    // 61 s later the first down of port 1 has left the window too.
    CHECK(evaluate(p, Inputs{nullptr, nullptr, &h, nullptr, 161}).empty());
}

TEST_CASE("unresponsive: K timeouts in the last M sweeps")
{
    HealthPolicy p;
    p.unresponsive_timeouts = 3;
    p.unresponsive_sweeps = 5;
    TimeoutHistory h;
    h[pid(0x11, 1)] = {true, true, false, false, true, false, true}; // last 5: 2 timeouts
    h[pid(0x11, 2)] = {false, true, false, true, true};                // 3 of 5
    auto f = evaluate(p, Inputs{nullptr, nullptr, nullptr, &h, 0});
    REQUIRE(f.size() == 1);
    CHECK(f[0].port == pid(0x11, 2));
    CHECK(f[0].reason == "timeouts in 3 of the last 5 sweeps (threshold 3 of 5)");
}

TEST_CASE("downshift: a downshifted link is reported with the link check's findings")
{
    HealthPolicy p;
    LinkChecks l;
    l[pid(0x11, 1)].downshifted = true;
    l[pid(0x11, 1)].findings = {"width 1x of 4x"};
    l[pid(0x11, 2)].downshifted = false;
    auto f = evaluate(p, Inputs{nullptr, &l, nullptr, nullptr, 0});
    REQUIRE(f.size() == 1);
    CHECK(f[0].reason == "downshifted: width 1x of 4x");
    p.downshift_action = Action::off;
    CHECK(evaluate(p, Inputs{nullptr, &l, nullptr, nullptr, 0}).empty());
}

TEST_CASE("isolation safety: a switch-to-switch link with an alternative may go")
{
    Tree t;
    auto c = check_isolation(t.f, t.sm, {}, pid(0x11, 1));
    CHECK(c.allowed);
    // A dual-homed host may lose one of its links.
    CHECK(check_isolation(t.f, t.sm, {}, pid(0x3, 1)).allowed);
}

TEST_CASE("isolation safety: a host's only link is refused, from either end")
{
    Tree t;
    auto c = check_isolation(t.f, t.sm, {}, pid(0x12, 3));
    CHECK_FALSE(c.allowed);
    CHECK(c.reason == "isolating L2/3 - H2/1 would cut off H2: its only link");
    CHECK_FALSE(check_isolation(t.f, t.sm, {}, pid(0x2, 1)).allowed);
}

TEST_CASE("isolation safety: cutting off a whole leaf is refused")
{
    Tree t;
    // With L2/1 isolated, L2/2 is the leaf's last uplink; H3 still reaches
    // L2 through L2/4, so drop that too first.
    std::set<PortId> isolated{pid(0x12, 1), pid(0x3, 2)};
    auto c = check_isolation(t.f, t.sm, isolated, pid(0x12, 2));
    CHECK_FALSE(c.allowed);
    CHECK(c.reason == "isolating L2/2 - S2/2 would cut off 2 node(s) from the SM (L2, H2) on top of the links "
                      "already isolated");
}

TEST_CASE("decide: two isolations each fine alone, cutting a leaf off together: the second is refused")
{
    Tree t;
    t.f.disconnect(PortRef{t.f.find_node(Guid(0x3)).value(), PortNum(2)}); // H3 single-homed now
    std::vector<Finding> findings{
        {pid(0x12, 1), Rule::flapping, std::nullopt, Action::isolate, "5 link-downs within 60 s (threshold 5)"},
        {pid(0x12, 2), Rule::flapping, std::nullopt, Action::isolate, "6 link-downs within 60 s (threshold 5)"},
    };
    CHECK(check_isolation(t.f, t.sm, {}, pid(0x12, 1)).allowed);
    CHECK(check_isolation(t.f, t.sm, {}, pid(0x12, 2)).allowed);
    auto d = decide(findings, t.f, t.sm, {});
    REQUIRE(d.decisions.size() == 2);
    CHECK(d.decisions[0].state == HealthState::isolated);
    CHECK(d.decisions[1].state == HealthState::isolation_refused);
    CHECK(d.decisions[1].reason ==
          "6 link-downs within 60 s (threshold 5); not isolated: isolating L2/2 - S2/2 would cut off 2 node(s) from "
          "the SM (L2, H2) on top of the links already isolated");
    CHECK(d.isolated == std::set<PortId>{pid(0x12, 1)});
    // The same inputs give the same decisions.
    CHECK(decide(findings, t.f, t.sm, {}).decisions == d.decisions);
}

TEST_CASE("decide: both ends of one flapping link make one isolation; report findings stay reports")
{
    Tree t;
    std::vector<Finding> findings{
        {pid(0x11, 1), Rule::flapping, std::nullopt, Action::isolate, "a"},
        {pid(0x11, 2), Rule::downshift, std::nullopt, Action::report, "b"},
        {pid(0x21, 1), Rule::flapping, std::nullopt, Action::isolate, "c"}, // S1/1, the other end of L1/1
    };
    auto d = decide(findings, t.f, t.sm, {});
    REQUIRE(d.decisions.size() == 2);
    CHECK(d.decisions[0] == Decision{pid(0x11, 1), Rule::flapping, HealthState::isolated, "a", Action::isolate});
    CHECK(d.decisions[1] == Decision{pid(0x11, 2), Rule::downshift, HealthState::reported, "b"});
    CHECK(d.isolated.size() == 1);
}

TEST_CASE("decide: an isolate finding on a link that is down now waits for it to be back")
{
    Tree t;
    const auto h2 = t.f.find_node(Guid(0x2)).value();
    t.f.disconnect(PortRef{h2, PortNum(1)});
    std::vector<Finding> findings{{pid(0x12, 3), Rule::flapping, std::nullopt, Action::isolate, "a"}};
    CHECK(decide(findings, t.f, t.sm, {}).decisions.empty());
    t.f.connect(PortRef{h2, PortNum(1)}, PortRef{t.f.find_node(Guid(0x12)).value(), PortNum(3)});
    auto d = decide(findings, t.f, t.sm, {});
    REQUIRE(d.decisions.size() == 1);
    CHECK(d.decisions[0].state == HealthState::isolation_refused);
    CHECK(d.decisions[0].reason == "a; not isolated: isolating L2/3 - H2/1 would cut off H2: its only link");
}

TEST_CASE("without_isolated disconnects both ends and keeps node ids")
{
    Tree t;
    auto cut = without_isolated(t.f, {pid(0x21, 1)});
    CHECK(cut.node_count() == t.f.node_count());
    CHECK_FALSE(cut.remote(PortRef{cut.find_node(Guid(0x11)).value(), PortNum(1)}));
    CHECK(cut.link_count() == t.f.link_count() - 1);
}

TEST_CASE("actions and rules by name")
{
    CHECK(action_from_name("isolate") == Action::isolate);
    CHECK_FALSE(action_from_name("Isolate"));
    CHECK(rule_name(Rule::flapping) == "flapping");
}

TEST_CASE("the configuration names the error counters as health does, in the same order")
{
    REQUIRE(config::health_counter_keys.size() == error_counter_count);
    for (std::size_t i = 0; i < error_counter_count; ++i)
        CHECK(config::health_counter_keys[i] == counter_name(static_cast<Counter>(i)));
}
