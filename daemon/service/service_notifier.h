// The SM's conversation with systemd (sd_notify(3) through libsystemd),
// fed from the published state: the scheduler's outcomes and the signals.
//
// Why: with Type=notify, `systemctl start ibsmd` returns (and units ordered
// after it start) once the SM serves, not when the process exists;
// `systemctl status` shows one line of state without reading logs;
// `systemctl reload` waits until the reloaded configuration has swept; and
// the watchdog restarts an SM whose event loop is stuck (a stuck loop
// answers no SMInfo and no traps: worse than a restart).
//
// Data structures: whether READY=1 was sent, whether a reload waits for
// its sweep, the watchdog period and its timer on the event loop.
//
// Algorithm: READY=1 with the first outcome of any kind — up, degraded,
// standby or not up: from then on the SM answers SMInfo and retries by
// itself, so it is serving — with a STATUS= line saying which. Every later
// outcome sends STATUS= (status_line below). SIGHUP sends RELOADING=1; the
// outcome of the work that absorbed the reload (SweepOutcome::reload) sends
// READY=1 again. WATCHDOG=1 from a timer at half of WATCHDOG_USEC
// (sd_watchdog_enabled), on the same loop as everything else, so a loop
// that stops turning stops the pings. STOPPING=1 when the SM stops.
// Without NOTIFY_SOCKET (not under systemd) every send is a no-op.
#pragma once

#include "daemon/core/sweep_outcome.h"
#include "daemon/core/subnet.h"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace ibsm::daemon {

// One line for STATUS=, e.g. "up, gen 12, 4176 LIDs, ftree, last re-route
// 0.18 s"; figures from the published snapshot `snap` (may be null).
std::string status_line(const SweepOutcome& o, const SubnetSnapshot* snap);

class ServiceNotifier {
public:
    // What sends one notification (newline-separated assignments).
    using Send = std::function<void(const std::string&)>;

    // Under systemd: sd_notify, and the watchdog period from WATCHDOG_USEC.
    explicit ServiceNotifier(boost::asio::any_io_executor ex);
    // Tests: `send` instead of sd_notify; `watchdog` 0 for none.
    ServiceNotifier(boost::asio::any_io_executor ex, Send send, std::chrono::microseconds watchdog);

    // Starts the watchdog pings (when systemd asked for them).
    void start();
    void on_outcome(const SweepOutcome& o, const SnapshotPtr& snap);
    void reloading();
    // Idempotent; cancels the watchdog timer so the loop can end.
    void stopping();

    std::chrono::microseconds watchdog_period() const { return watchdog_ / 2; }

private:
    void arm_watchdog();

    Send send_;
    std::chrono::microseconds watchdog_{0};
    boost::asio::steady_timer timer_;
    bool ready_ = false;
    bool reloading_ = false;
    bool stopped_ = false;
};

} // namespace ibsm::daemon
