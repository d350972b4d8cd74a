// The unhealthy-node conditions (health/unhealthy.h) and what decide() makes
// of them: a node's isolation over its links, no_discover, the isolation
// budget, dry_run.
#include "health/isolation.h"
#include "health/unhealthy.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;
using topology::Fabric;
using topology::NodeType;
using topology::PortRef;

namespace {

PortId pid(std::uint64_t node, std::uint8_t port) { return PortId{Guid(node), PortNum(port)}; }
PortId node(std::uint64_t guid) { return pid(guid, 0); }

// Leaves L1 (0x11), L2 (0x12), L3 (0x13), spines S1 (0x21), S2 (0x22): each
// leaf's ports 1, 2 to S1, S2 (6 switch-to-switch links); H1 (0x1, the SM)
// on L1/3, H2 (0x2) on L2/3, H3 (0x3) on L3/3.
struct Tree {
    Fabric f;
    PortRef sm;
    Tree()
    {
        auto s1 = f.add_node(NodeType::switch_node, Guid(0x21), 3, "S1");
        auto s2 = f.add_node(NodeType::switch_node, Guid(0x22), 3, "S2");
        for (std::uint8_t i = 1; i <= 3; ++i) {
            auto l = f.add_node(NodeType::switch_node, Guid(0x10 + i), 3, "L" + std::to_string(i));
            auto h = f.add_node(NodeType::ca, Guid(i), 1, "H" + std::to_string(i));
            f.connect({l, PortNum(1)}, {s1, PortNum(i)});
            f.connect({l, PortNum(2)}, {s2, PortNum(i)});
            f.connect({l, PortNum(3)}, {h, PortNum(1)});
        }
        sm = PortRef{f.find_node(Guid(0x1)).value(), PortNum(1)};
    }
};

Finding finding(PortId at, Rule r, Action a) { return Finding{at, r, std::nullopt, a, std::string(rule_name(r))}; }

} // namespace

TEST_CASE("reboot, set_errors and illegal fire at their count within the window; noisy only above it")
{
    HealthPolicy p;
    p.reboot = {3, 100, Action::report};
    p.noisy = {4, 10, Action::isolate};
    p.set_errors = {2, 50, Action::report};
    p.illegal = {1, 50, Action::report};
    EventTimes reboots{{node(0x21), {10, 50, 90}}, {node(0x22), {0, 50, 90}}}; // 0x22: one is 110 s old
    EventTimes traps{{pid(0x12, 3), {101, 102, 103, 104}}, {pid(0x13, 3), {100, 101, 102, 103, 104}}};
    EventTimes sets{{node(0x12), {60, 109}}};
    EventTimes illegal{{node(0x2), {30}}}; // 80 s old: outside the window
    Inputs in;
    in.now = 110;
    in.reboots = &reboots;
    in.traps = &traps;
    in.set_errors = &sets;
    in.illegal = &illegal;
    const auto out = evaluate(p, in);
    REQUIRE(out.size() == 3);
    CHECK(out[0] == Finding{node(0x12), Rule::set_errors, std::nullopt, Action::report,
                            "2 Sets answered with a bad status within 50 s (threshold: 2)"});
    CHECK(out[1] == Finding{pid(0x13, 3), Rule::noisy, std::nullopt, Action::isolate,
                            "5 traps 129/130/131 within 10 s (threshold: more than 4)"});
    CHECK(out[2].port == node(0x21));
    CHECK(out[2].rule == Rule::reboot);
    CHECK(out[2].reason == "3 reboots (left the fabric and came back, or counters reset) within 100 s (threshold: 3)");

    // Off, or a count of 0, never fires.
    p.reboot.action = Action::off;
    p.noisy.count = 0;
    p.set_errors.action = Action::off;
    CHECK(evaluate(p, in).empty());
}

TEST_CASE("prune keeps the window's events and drops emptied keys")
{
    EventTimes t{{node(1), {1, 5, 9}}, {node(2), {1}}};
    prune(t, 10, 5);
    CHECK(t == EventTimes{{node(1), {5, 9}}});
}

TEST_CASE("decide: a node's isolation takes each of its links but the last, a CA's only link is refused")
{
    Tree t;
    auto d = decide({finding(node(0x21), Rule::reboot, Action::isolate)}, t.f, t.sm, {});
    REQUIRE(d.decisions.size() == 3);
    for (std::uint8_t i = 0; i < 3; ++i) {
        CHECK(d.decisions[i].port == pid(0x21, i + 1));
        CHECK(d.decisions[i].rule == Rule::reboot);
    }
    CHECK(d.decisions[0].state == HealthState::isolated);
    CHECK(d.decisions[1].state == HealthState::isolated);
    // With one link left S1 carries no route but to itself; the last would
    // cut it off from the SM.
    CHECK(d.decisions[2].state == HealthState::isolation_refused);
    CHECK(d.decisions[2].reason == "reboot; not isolated: isolating S1/3 - L3/1 would cut off 1 node(s) from the SM "
                                   "(S1) on top of the links already isolated");
    CHECK(d.isolated == std::set<PortId>{pid(0x21, 1), pid(0x21, 2)});

    auto ca = decide({finding(node(0x2), Rule::illegal, Action::isolate)}, t.f, t.sm, {});
    REQUIRE(ca.decisions.size() == 1);
    CHECK(ca.decisions[0].state == HealthState::isolation_refused);
    CHECK(ca.decisions[0].reason == "illegal; not isolated: isolating H2/1 - L2/3 would cut off H2: its only link");
    CHECK(ca.isolated.empty());

    // A node-wide report is one decision on the node.
    auto r = decide({finding(node(0x22), Rule::set_errors, Action::report)}, t.f, t.sm, {});
    REQUIRE(r.decisions.size() == 1);
    CHECK(r.decisions[0] == Decision{node(0x22), Rule::set_errors, HealthState::reported, "set_errors"});
    // A node that is not in the fabric now is decided when it is back.
    CHECK(decide({finding(node(0x99), Rule::reboot, Action::isolate)}, t.f, t.sm, {}).decisions.empty());
}

TEST_CASE("the isolation budget: past its share of switch-to-switch links a rule only reports, and says so")
{
    Tree t;
    DecideOptions o;
    o.budget = 0.34; // 6 switch-to-switch links: at most 2 isolated
    auto d = decide({finding(pid(0x11, 1), Rule::noisy, Action::isolate),
                     finding(pid(0x12, 2), Rule::noisy, Action::isolate),
                     finding(pid(0x13, 2), Rule::noisy, Action::isolate)},
                    t.f, t.sm, {}, o);
    REQUIRE(d.decisions.size() == 3);
    CHECK(d.decisions[0].state == HealthState::isolated);
    CHECK(d.decisions[1].state == HealthState::isolated);
    CHECK(d.decisions[2].state == HealthState::reported);
    CHECK(d.decisions[2].over_budget);
    CHECK(d.decisions[2].action == Action::isolate);
    CHECK(d.decisions[2].reason == "noisy; reported only: the isolation budget is spent (2 of 6 switch-to-switch "
                                   "links isolated, at most 2 = 34 %, health.isolation_budget_percent)");
    CHECK(d.isolated.size() == 2);
    CHECK(budget_use(t.f, d.isolated, {}, o.budget).isolated == 2);

    // Links isolated for another reason (a drain) are not counted; a
    // host link is not budgeted at all.
    o.budget = 0.2; // at most 1 of 6
    const std::set<PortId> drained{pid(0x21, 1)};
    auto counted = decide({finding(pid(0x22, 3), Rule::noisy, Action::isolate)}, t.f, t.sm, drained, o);
    REQUIRE(counted.decisions.size() == 1);
    CHECK(counted.decisions[0].over_budget);
    o.budget_exempt = drained;
    auto e = decide({finding(pid(0x22, 3), Rule::noisy, Action::isolate)}, t.f, t.sm, drained, o);
    REQUIRE(e.decisions.size() == 1);
    CHECK(e.decisions[0].state == HealthState::isolated);
    o.budget = 0; // nothing may be isolated between switches
    auto z = decide({finding(pid(0x22, 1), Rule::noisy, Action::isolate)}, t.f, t.sm, {}, o);
    REQUIRE(z.decisions.size() == 1);
    CHECK(z.decisions[0].over_budget);
    CHECK(budget_use(t.f, {}, {}, 0.2) == BudgetUse{6, 0, 1});
}

TEST_CASE("no_discover: a spine is not swept past; a leaf whose host would vanish, the SM's node and a CA are not")
{
    Tree t;
    auto d = decide({finding(node(0x21), Rule::reboot, Action::no_discover),
                     finding(node(0x12), Rule::noisy, Action::no_discover),
                     finding(node(0x1), Rule::illegal, Action::no_discover),
                     finding(node(0x3), Rule::illegal, Action::no_discover)},
                    t.f, t.sm, {});
    // Findings come sorted by port from evaluate(); decide keeps their order.
    REQUIRE(d.decisions.size() == 4);
    CHECK(d.decisions[0].state == HealthState::reported);
    CHECK(d.decisions[0].action == Action::no_discover);
    CHECK(d.decisions[1].state == HealthState::isolation_refused);
    CHECK(d.decisions[1].reason == "noisy; still swept past: discovery would no longer reach 1 node(s) (H2) found "
                                   "only beyond L2");
    CHECK(d.decisions[2].state == HealthState::isolation_refused);
    CHECK(d.decisions[2].reason == "illegal; still swept past: it is the SM's own node: discovery starts there");
    CHECK(d.decisions[3].reason == "illegal; no_discover: a CA, discovery never goes beyond one");
    CHECK(d.no_discover == std::set<Guid>{Guid(0x21)});
    CHECK(d.isolated.empty());
    // Not both spines: L2 and L3 are reached only through one of them.
    auto both = check_no_discover(t.f, t.sm, {Guid(0x21)}, Guid(0x22));
    CHECK_FALSE(both.allowed);
}

TEST_CASE("dry_run decides the same way and applies nothing")
{
    Tree t;
    DecideOptions o;
    o.budget = 0.34;
    o.dry_run = true;
    auto d = decide({finding(pid(0x11, 1), Rule::noisy, Action::isolate),
                     finding(pid(0x12, 2), Rule::noisy, Action::isolate),
                     finding(pid(0x13, 2), Rule::noisy, Action::isolate),
                     finding(node(0x22), Rule::reboot, Action::no_discover)},
                    t.f, t.sm, {}, o);
    REQUIRE(d.decisions.size() == 4);
    for (const auto& x : d.decisions) {
        CHECK(x.dry_run);
        CHECK(x.state == HealthState::reported);
    }
    CHECK(d.decisions[0].action == Action::isolate);
    CHECK_FALSE(d.decisions[0].over_budget);
    CHECK(d.decisions[2].over_budget); // the third link would exceed the budget
    CHECK(d.decisions[3].action == Action::no_discover);
    CHECK(d.isolated.empty());
    CHECK(d.no_discover.empty());
}
