// What the events feed (core/event_feed.h) carries for the SM's own
// happenings, as JSON fields: the events the scheduler takes from its queue
// (traps, PortStateChange, sweep requests), finished sweeps and re-routes,
// and SM state changes. The composition root calls these from the
// observers it already has; the health monitor publishes its own.
//
// Event kinds (the "event" field): "trap", "port-state-change",
// "sweep-requested", "reload", "retry", "sweep" (a finished heavy sweep or
// re-route), "sm-state".
#pragma once

#include "daemon/core/event_feed.h"
#include "daemon/core/events.h"
#include "daemon/core/sweep_outcome.h"

#include <string>

namespace ibsm::daemon::control {

// Events nobody follows are not published (multicast requests, shutdown).
void publish_event(EventFeed& feed, const Event& e);
void publish_outcome(EventFeed& feed, const SweepOutcome& o);
void publish_sm_state(EventFeed& feed, const std::string& from, const std::string& to, const std::string& why);

// "up", "degraded", "down", "standby", "unchanged" or "failed", as state.json's last_sweep.outcome.
std::string outcome_word(const SweepOutcome& o);

} // namespace ibsm::daemon::control
