// The unhealthy-node conditions NVIDIA's SM and UFM define, as health
// rules: a node rebooting too often, a port sending too many traps 129/130/
// 131 (noisy), Sets answered with a bad status, answers that do not decode
// (illegal).
//
// Why pure: the daemon wings that see the events (the trap receiver, the
// sweeps' results, the transport's answers) only note their times; whether
// a condition holds is a function of those times, the policy and the clock,
// tested without a fabric.
//
// Data structures: EventTimes (health_policy.h), per node (PortId with port
// 0) or per port (traps), oldest first; CountRule: `count` events within
// `window_s` and an Action.
//
// Algorithm: for each rule that is on, count each key's events within the
// window ending at `now`; reboot, set_errors and illegal fire at `count`,
// noisy above it (NVIDIA: "more than 250 traps"). The finding names the
// node (port 0) or the trap's port; decide() (isolation.h) expands a node's
// isolate into its links and applies no_discover to switches.
#pragma once

#include "health/health_policy.h"

#include <vector>

namespace ibsm::health {

// Appends the findings of reboot, noisy, set_errors and illegal to `out`.
void evaluate_unhealthy(const HealthPolicy& policy, const Inputs& in, std::vector<Finding>& out);

// Drops the times older than `window_s` before `now`, and keys left empty.
void prune(EventTimes& times, double now, double window_s);

} // namespace ibsm::health
