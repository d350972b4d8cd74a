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

// A Bad M_Key trap (256): someone sent an SMP to the port at `issuer`
// with a wrong key. `source`: who, as far as the notice says ("LID 7", or
// a directed route's DrSLID and return path).
struct MkeyViolation {
    Lid issuer;
    mad::BadMkeyDetails details;
    std::string source;
};

// Pure: the offending source of a Bad M_Key notice, for logs and events.
std::string violation_source(const mad::BadMkeyDetails& b);

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
    std::uint64_t mkey_violations() const
    {
        auto it = counts_.find(mad::trap::bad_mkey);
        return it == counts_.end() ? 0 : it->second.received;
    }
    // Every Bad M_Key trap, after its log line (the events feed).
    void on_mkey_violation(std::function<void(const MkeyViolation&)> f) { on_violation_ = std::move(f); }
    // Every notice that decodes, every copy, repeats included (the health
    // policy's noisy rule counts traps 129/130/131 per port).
    void on_notice(std::function<void(const mad::Notice&)> f) { on_notice_ = std::move(f); }

private:
    mad::Transport& transport_;
    EventQueue& events_;
    std::map<std::uint16_t, TrapCounts> counts_;
    std::set<std::string> pending_;
    std::uint64_t total_ = 0;
    std::function<void(const MkeyViolation&)> on_violation_;
    std::function<void(const mad::Notice&)> on_notice_;
};

} // namespace ibsm::daemon
