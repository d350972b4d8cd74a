// The health policy: which rules find a port unhealthy, and what the SM does
// about it (report, or isolate the link).
//
// Why pure: the monitor (daemon/health/health_monitor.h) feeds it what the
// poller, the link checks and the sweeps found, and acts on its decisions;
// the rules themselves are tested without a fabric or a clock, and the same
// inputs always give the same decisions in the same order.
//
// Data structures: HealthPolicy (a threshold per error counter per counter
// interval, flapping N downs in W seconds, unresponsive K timeouts in the
// last M sweeps, downshift, and the unhealthy-node conditions of
// unhealthy.h: reboot, noisy, set_errors, illegal, each with an Action; the
// isolation budget and dry_run); the histories the monitor keeps (link-down
// times, per-sweep timeouts, event times per node or port); a Finding per
// rule that fired on a port (port 0: the whole node), with the numbers in
// its reason.
//
// Algorithm: evaluate() walks the ports of each input in PortId order and
// applies each rule to each; decide() (isolation.h) turns the findings
// into port states, refusing isolations that would cut a node off or
// spend more than the isolation budget.
#pragma once

#include "health/port_health.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::health {

// no_discover: discovery reads the node but does not go beyond it (its
// ports' far ends are reached, if at all, from elsewhere); the node-level
// conditions of unhealthy.h only.
enum class Action : std::uint8_t { off, report, isolate, no_discover };
std::string_view action_name(Action a); // "off", "report", "isolate", "no_discover"
std::optional<Action> action_from_name(std::string_view name);

struct Threshold {
    std::uint64_t per_interval = 0; // fires when a counter interval's delta reaches it; 0: off
    Action action = Action::off;
    bool operator==(const Threshold&) const = default;
};

// `count` events within `window_s` seconds, and what to do then.
struct CountRule {
    unsigned count = 0;
    double window_s = 0;
    Action action = Action::off;
    bool operator==(const CountRule&) const = default;
};

struct HealthPolicy {
    std::array<Threshold, error_counter_count> thresholds{}; // indexed by Counter
    // Flapping: `flap_downs` link-down events within `flap_window_s`.
    unsigned flap_downs = 5;
    double flap_window_s = 60;
    Action flap_action = Action::report;
    // Unresponsive: SMP or PMA timeouts in `unresponsive_timeouts` of the
    // last `unresponsive_sweeps` sweeps.
    unsigned unresponsive_timeouts = 3;
    unsigned unresponsive_sweeps = 5;
    Action unresponsive_action = Action::report;
    // A link trained below what both ends could do (LinkCheck::downshifted).
    Action downshift_action = Action::report;
    // Isolation also sets the switch-side port DISABLED.
    bool disable_port = false;
    // The unhealthy-node conditions (unhealthy.h), NVIDIA's defaults.
    CountRule reboot{10, 900, Action::report};     // node left and came back, or its counters reset
    CountRule noisy{250, 60, Action::report};      // traps 129/130/131 from one port: fires above `count`
    CountRule set_errors{5, 600, Action::off};     // bad-status answers to Sets (UFM: ignore)
    CountRule illegal{1, 600, Action::report};     // answers that do not decode
    // Share of the switch-to-switch links the rules may have isolated at
    // once (drains not counted); an isolation beyond it is only reported.
    double isolation_budget = 0.20;
    // Every rule is evaluated and logged with what it would do; nothing is
    // isolated and discovery is not narrowed.
    bool dry_run = false;
    bool operator==(const HealthPolicy&) const = default;
};

enum class Rule : std::uint8_t {
    threshold,
    flapping,
    unresponsive,
    downshift,
    reboot,
    noisy,
    set_errors,
    illegal,
    operator_command
};
// "threshold", "flapping", "unresponsive", "downshift", "reboot", "noisy",
// "set_errors", "illegal", "operator"
std::string_view rule_name(Rule r);
std::optional<Rule> rule_from_name(std::string_view name);

// Link-down events per port, as seconds on the monitor's clock, oldest first.
using LinkDownHistory = std::map<PortId, std::vector<double>>;
// Per port, one entry per sweep (counter sweep or SM sweep), newest last:
// whether the port's node did not answer in that sweep.
using TimeoutHistory = std::map<PortId, std::vector<bool>>;
// Times (monitor's clock, oldest first) of one kind of event, per node (port
// 0) or per port: reboots, traps 129-131, Set errors, illegal answers.
using EventTimes = std::map<PortId, std::vector<double>>;

struct Inputs {
    const CounterTable* counters = nullptr;
    const LinkChecks* links = nullptr;
    const LinkDownHistory* downs = nullptr;
    const TimeoutHistory* timeouts = nullptr;
    double now = 0; // same clock as `downs` and the event times
    const EventTimes* reboots = nullptr;    // per node
    const EventTimes* traps = nullptr;      // per port: traps 129, 130, 131
    const EventTimes* set_errors = nullptr; // per node
    const EventTimes* illegal = nullptr;    // per node
};

struct Finding {
    PortId port; // port 0: the node as a whole (reboot, set_errors, illegal)
    Rule rule;
    std::optional<Counter> counter; // threshold rule only
    Action action;
    std::string reason; // the rule and its numbers: "symbol_errors +37 in 60 s (threshold 10 per interval)"
    bool operator==(const Finding&) const = default;
};

// Every rule that fires on a port, in (port, rule, counter) order. Rules
// whose action is off, or whose threshold is 0, never fire.
std::vector<Finding> evaluate(const HealthPolicy& policy, const Inputs& in);

// Link-down events of `port` within the flapping window ending at `now`.
unsigned downs_within(const std::vector<double>& times, double now, double window_s);

} // namespace ibsm::health
