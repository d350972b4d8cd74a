// Isolation safety: an isolated link leaves the routing like a pulled cable,
// so isolating one must never cut a node off from the SM.
//
// Why pure: the rules (health_policy.h) and the operator's `isolate` command ask
// the same question over the same fabric; the answer and its reason are a
// value, tested on synthetic fabrics.
//
// Data structures: the fabric as the last sweep found it (topology::Fabric,
// physical links), the SM's port, and the isolated links named by one end
// each (std::set<PortId>: either end names the link).
//
// Algorithm: breadth-first search from the SM's node over every link whose
// ends are not isolated and are not the candidate's; the candidate is
// refused when a node the search reached without it is no longer reached.
// A CA's only link is refused without a search, with that reason. decide()
// checks isolate findings one after another in PortId order, each against
// the isolations already accepted, so two links fine alone but cutting a
// node off together are never both isolated: the second is refused.
// A finding on a whole node (port 0) isolates each of its links in port
// order. The isolation budget counts the switch-to-switch links isolated
// (those of `budget_exempt`, drains, not counted) against the fabric's
// switch-to-switch links; a rule's isolation of one more such link past the
// budget is only reported. no_discover takes a switch into the set
// discovery does not go beyond, unless nodes would be reached only through
// it (the same breadth-first search, the set's switches entered but not
// left). dry_run decides everything the same way and applies nothing.
#pragma once

#include "health/health_policy.h"
#include "health/port_health.h"
#include "topology/fabric.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibsm::health {

// "S1/3" style name of a port: the node description (or GUID) and the port.
std::string port_text(const topology::Fabric& f, topology::PortRef p);

// The fabric port `id` names, when the node and port exist.
std::optional<topology::PortRef> find_port(const topology::Fabric& f, PortId id);
PortId port_id(const topology::Fabric& f, topology::PortRef p);

// Whether `id`'s link is already isolated (either end in `isolated`).
bool link_isolated(const topology::Fabric& f, const std::set<PortId>& isolated, PortId id);

struct IsolationCheck {
    bool allowed = false;
    std::string reason; // why refused ("isolating S1/3 - H7/1 would cut off H7: its only link")
};

// Whether the link at `candidate` may leave the routing on top of `isolated`.
IsolationCheck check_isolation(const topology::Fabric& f, topology::PortRef sm_port,
                               const std::set<PortId>& isolated, PortId candidate);

// `f` with every isolated link disconnected (both ends): the fabric routing
// sees. Node ids and ports stay as they are.
topology::Fabric without_isolated(topology::Fabric f, const std::set<PortId>& isolated);

// What the policy made of one finding.
struct Decision {
    PortId port;
    Rule rule;
    HealthState state;  // reported, isolated (a new isolation) or isolation_refused
    std::string reason; // the finding's, and for a refusal why
    Action action = Action::report; // what was done, or what a dry run would have done
    bool dry_run = false;           // `action` not done: health.dry_run
    bool over_budget = false;       // isolate asked, only reported: the isolation budget is spent
    bool operator==(const Decision&) const = default;
};

struct DecideOptions {
    double budget = 1.0;            // share of switch-to-switch links isolated at once; 1: no cap
    std::set<PortId> budget_exempt; // isolations the budget does not count (drains)
    std::set<Guid> no_discover;     // switches discovery already does not go beyond
    bool dry_run = false;
};

// Switch-to-switch links of `f`, and how many of them `isolated` names
// (either end), leaving out those `exempt` names.
struct BudgetUse {
    std::size_t links = 0;
    std::size_t isolated = 0;
    std::size_t allowed = 0; // isolated links the budget allows: floor(budget x links)
    bool operator==(const BudgetUse&) const = default;
};
BudgetUse budget_use(const topology::Fabric& f, const std::set<PortId>& isolated, const std::set<PortId>& exempt,
                     double budget);

// Whether discovery may stop going beyond switch `node` on top of the
// switches of `no_discover`: refused (with the reason) for the SM's own
// node, a node not in `f`, and when nodes would then be reached only through
// such switches. A CA is allowed (discovery never goes beyond one).
IsolationCheck check_no_discover(const topology::Fabric& f, topology::PortRef sm_port,
                                 const std::set<Guid>& no_discover, Guid node);

// The findings as port states: report findings become `reported`; isolate
// findings become `isolated` (added to the result's isolated set) or
// `isolation_refused`; a finding on a link already isolated stays isolated
// without a new decision; an isolate finding on a port without a link now
// (down, or not in the fabric) waits for the link to be back. Deterministic:
// same inputs, same list.
struct Decisions {
    std::vector<Decision> decisions;
    std::set<PortId> isolated;  // `isolated` plus the new isolations
    std::set<Guid> no_discover; // options.no_discover plus the new ones
};
Decisions decide(const std::vector<Finding>& findings, const topology::Fabric& f, topology::PortRef sm_port,
                 const std::set<PortId>& isolated, const DecideOptions& options = {});

} // namespace ibsm::health
