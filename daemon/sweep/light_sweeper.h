// The light sweep: is anything different out there? (IBA 14.4.2, and what
// OpenSM calls a light sweep.)
//
// Why: a trap can be lost (a switch whose route to the SM just broke cannot
// send one; a link that comes up behind a dead one has nobody to tell), and a
// switch records every port state change in SwitchInfo:PortStateChange until
// the SM clears it. Polling that bit on every switch costs one SMP per switch
// and catches what traps missed; a re-route clears the bits it has read.
//
// Data structures: none kept between runs; a run reads the snapshot's
// switches (LID, DR path) and produces events.
//
// Algorithm: one SwitchInfo Get per switch, LID-routed once LIDs are up (a
// short path through the tables the SM programmed), directed-route when the
// LID route does not answer; a set PortStateChange becomes a
// PortStateChangeEvent for that switch. The SM's own port is read too: if it
// is not ACTIVE, or a switch answers on no route, only a heavy sweep can
// tell what happened.
#pragma once

#include "daemon/core/events.h"
#include "daemon/core/subnet.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <vector>

namespace ibsm::daemon {

struct LightSweepReport {
    std::uint64_t smps = 0;
    double seconds = 0;
    std::vector<Guid> changed;    // switches with PortStateChange set
    std::uint64_t lid_failures = 0; // LID-routed Gets that fell back to DR
    std::vector<std::string> unreachable; // switches that answered neither way
    bool sm_port_active = true;
};

// Runs one light sweep over `snap` and pushes the events it finds. `width`:
// requests in flight.
boost::asio::awaitable<LightSweepReport> light_sweep(mad::Transport& transport, const SubnetSnapshot& snap,
                                                     EventQueue& events, std::size_t width);

} // namespace ibsm::daemon
