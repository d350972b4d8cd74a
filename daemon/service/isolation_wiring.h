// What takes links out of the routing besides the fabric itself: the health
// monitor's isolations and the operator's drains (docs/design.md, "The path
// of an event"). Both reach the bring-up as one set of isolated links, and
// a change to either is one IsolationEvent for the scheduler; the health
// monitor's unhealthy-node list narrows discovery. Kept here, not in
// main.cpp, because the union is a rule: drained links count as isolated
// everywhere the routing, the drains' cut-off check and the port rows look.
#pragma once

#include "daemon/core/events.h"
#include "daemon/health/health_monitor.h"
#include "daemon/maint/drains.h"
#include "daemon/sweep/bringup.h"

#include <set>
#include <vector>

namespace ibsm::daemon {

// Health isolations and drained links together.
std::set<health::PortId> isolated_links(const HealthMonitor& health, const Drains& drains);

// The port rows `ibsm ports`, the status and report.html show: health's
// rows with drained links marked isolated (reason "drain: …").
std::vector<health::PortHealth> port_rows(const HealthMonitor& health, const Drains& drains);

// Hands the bring-up the isolated links and the nodes not to discover now
// and whenever health or drains change them (each change queues an
// IsolationEvent), and gives the drains what their refusal check reads:
// health's isolations and the settings the bring-up routes with. The four
// objects must outlive the daemon's loop.
void connect_isolations(Bringup& bringup, HealthMonitor& health, Drains& drains, EventQueue& events);

} // namespace ibsm::daemon
