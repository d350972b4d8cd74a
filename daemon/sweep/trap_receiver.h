// Traps reaching the SM: answered, folded and turned into events.
//
// Why: a switch repeats a trap until the SM represses it (IBA 14.2.5.1), and
// one failed cable makes both switches at its ends send one; re-reading the
// fabric per copy would multiply the work. The receiver answers every trap
// with a TrapRepress, hands each distinct one to the events queue once, and
// only counts the copies that arrive before the SM has acted on it.
//
// Data structures: per trap kind (number) counters of received / repressed
// / repeats, and the set of notices (issuer, number, details) already queued
// and not yet acted on; the scheduler calls acted() when it starts the work
// that reads the fabric again, after which the same notice is news again.
#pragma once

#include "daemon/core/events.h"
#include "mad/transport.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace ibsm::daemon {

struct TrapCounts {
    std::uint64_t received = 0;
    std::uint64_t repeats = 0;     // folded into a pending event
    std::uint64_t repressed = 0;   // TrapRepress sent
    std::uint64_t malformed = 0;
};

class TrapReceiver {
public:
    TrapReceiver(mad::Transport& transport, EventQueue& events) : transport_(transport), events_(events) {}

    // A SubnTrap(Notice) from the transport's unsolicited path.
    void on_trap(const mad::RawReceive& r);
    // The scheduler is about to re-read the fabric: pending notices are
    // covered by it.
    void acted() { pending_.clear(); }

    const std::map<std::uint16_t, TrapCounts>& counts() const { return counts_; }
    std::uint64_t total() const { return total_; }

private:
    mad::Transport& transport_;
    EventQueue& events_;
    std::map<std::uint16_t, TrapCounts> counts_;
    std::set<std::string> pending_;
    std::uint64_t total_ = 0;
};

} // namespace ibsm::daemon
