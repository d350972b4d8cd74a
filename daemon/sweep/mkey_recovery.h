// Ports holding an M_Key the SM does not know, waited out and re-keyed.
//
// Why: a port keyed by another SM (or under a lost secret) refuses the SM's
// Sets, and nothing but its lease gets it back (IBA 14.2.4.2): once the
// lease timer a failed check started runs out, its protect bits fall to 0,
// a Get shows its key and the next sweep's Sets carry it (core/mkey_book.h).
//
// Data structures: one timer per port being waited out. Algorithm: the
// first incident of a port logs the wait and arms a timer for the lease
// period (the SM's configured one: the only one it knows) plus a second;
// when it fires, a heavy sweep is asked for; later incidents meanwhile are
// only counted. A lease of 0 never expires: the operator must act.
#pragma once

#include "daemon/core/events.h"
#include "daemon/core/mkey_book.h"

#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

namespace ibsm::daemon {

class MkeyRecovery {
public:
    MkeyRecovery(EventQueue& events, const MkeyBook& book) : events_(events), book_(book) {}

    void on_incident(const MkeyIncident& incident);
    // Makes this the book's incident handler: each incident is handled
    // here first, then `seen` hears of it (the events feed) with whether
    // its port is now waited out.
    using IncidentSeen = std::function<void(const MkeyIncident&, bool lease_wait)>;
    void handle_incidents(MkeyBook& book, IncidentSeen seen);
    std::uint64_t incidents() const { return incidents_; }
    std::size_t waiting() const { return waiting_.size(); }
    bool waiting_for(Guid port) const { return waiting_.count(port) > 0; }

private:
    EventQueue& events_;
    const MkeyBook& book_;
    std::map<Guid, std::unique_ptr<boost::asio::steady_timer>> waiting_;
    std::uint64_t incidents_ = 0;
};

} // namespace ibsm::daemon
