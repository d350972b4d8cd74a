// What the events feed (core/event_feed.h) carries for the SM's own
// happenings, as JSON fields: the events the scheduler takes from its queue
// (traps, PortStateChange, sweep requests), finished sweeps and re-routes,
// and SM state changes. The composition root calls these from the
// observers it already has; the health monitor publishes its own.
//
// Event kinds (the "event" field): "trap", "port-state-change",
// "sweep-requested", "reload", "retry", "sweep" (a finished heavy sweep or
// re-route), "sm-state", "mkey-violation" (a Bad M_Key trap: someone sent
// the port a wrong key), "mkey-incident" (a port refused the SM's keys).
#pragma once

#include "daemon/core/event_feed.h"
#include "daemon/core/events.h"
#include "daemon/core/mkey_book.h"
#include "daemon/core/sweep_outcome.h"

#include <string>

namespace ibsm::daemon::control {

// Events nobody follows are not published (multicast requests, shutdown).
void publish_event(EventFeed& feed, const Event& e);
void publish_outcome(EventFeed& feed, const SweepOutcome& o);
// A Bad M_Key trap: the port at `issuer`, and who sent the wrong key
// (`source`, as the trap receiver words it). Never a key.
void publish_mkey_violation(EventFeed& feed, Lid issuer, const mad::BadMkeyDetails& b, const std::string& source);
// A port that refused every key the SM tried, and whether it is waited out.
void publish_mkey_incident(EventFeed& feed, const MkeyIncident& i, bool lease_wait);
void publish_sm_state(EventFeed& feed, const std::string& from, const std::string& to, const std::string& why);

// "up", "degraded", "down", "standby", "unchanged" or "failed", as state.json's last_sweep.outcome.
std::string outcome_word(const SweepOutcome& o);

} // namespace ibsm::daemon::control
