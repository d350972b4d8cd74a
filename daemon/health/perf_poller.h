// The counter poller: every `interval` a counter sweep reads the
// performance counters of every linked port of the last snapshot's fabric
// (IBA 16.1, class 0x04) and keeps per port 64-bit totals, deltas and rates
// (health/counters.h).
//
// Why a wing of its own: it is I/O on the loop like the sweeps, but it
// never holds them up. Its GMPs ride the transport's low-priority queue
// (mad/transport.h): they go out only while no SMP is queued or in flight,
// at most `window` at a time, so a sweep or re-route starting in the middle
// of a counter sweep waits for nothing but the few PMA answers on the wire.
//
// Data structures: `trackers_` (PortId -> PortTracker: the exported counters
// and the registers' last values), the ClassPortInfo of each node by node
// GUID (asked once per node: which counters it has), cumulative totals for
// the metrics.
//
// Algorithm: a sweep takes the snapshot current when it starts (a new
// generation is picked up by the next sweep), skips entirely while this SM
// stands by (MastershipGate), and runs one job per target (perf_targets.h)
// with a few jobs more than the window: ClassPortInfo if not cached, then
// per port PortCounters, PortCountersExtended where supported, and a
// PortCounters Set clearing the narrow error counters near saturation.
// Ports that are gone from the fabric leave the table; a port that did not
// answer keeps its last counters and counts a failure. Observers get the
// whole table and the sweep's stats; one log line per sweep.
#pragma once

#include "daemon/core/subnet.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/health/perf_targets.h"
#include "health/counters.h"
#include "health/port_health.h"
#include "mad/perf_mgt.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <vector>

namespace ibsm::daemon {

struct PerfSettings {
    bool enabled = true;
    std::chrono::seconds interval{60};
    unsigned window = 4; // PMA requests in flight (the transport's perf_window)
};

struct PerfSweepStats {
    std::uint64_t sweep = 0;      // 1 for the first counter sweep
    std::uint64_t generation = 0; // of the snapshot swept
    std::size_t nodes = 0, ports = 0, ports_read = 0, ports_failed = 0;
    std::uint64_t mads = 0;       // requests completed (retries are the transport's)
    std::uint64_t failures = 0;   // requests that found no answer or a bad status
    std::uint64_t clears = 0;     // ports whose error counters were cleared near saturation
    std::uint64_t resets_seen = 0; // ports whose counters someone else cleared
    double seconds = 0;
    double finished_at = 0;       // Unix seconds
};

// Since the start, for metrics.prom.
struct PerfTotals {
    std::uint64_t sweeps = 0, mads = 0, failures = 0;
};

class PerfPoller {
public:
    using Observer = std::function<void(const health::CounterTable&, const PerfSweepStats&)>;

    PerfPoller(boost::asio::any_io_executor ex, mad::Transport& transport, const MastershipGate& gate,
               PerfSettings settings);

    // Loop thread: the generation the next counter sweep reads.
    void on_snapshot(const SnapshotPtr& snap) { snapshot_ = snap; }
    // A reload: the next interval, window and on/off take effect at once.
    void apply(const PerfSettings& settings);
    void on_sweep(Observer o) { observers_.push_back(std::move(o)); }

    // Sweeps every interval until stop().
    boost::asio::awaitable<void> run();
    void stop();
    // One counter sweep of the current snapshot (nullopt: none to sweep,
    // polling off, or standing by).
    boost::asio::awaitable<std::optional<PerfSweepStats>> sweep_once();

    health::CounterTable table() const;
    // The table as status rows (names and far ends from the snapshot).
    std::vector<health::PortHealth> rows() const;
    const PerfTotals& totals() const { return totals_; }
    const std::optional<PerfSweepStats>& last_sweep() const { return last_; }
    const PerfSettings& settings() const { return settings_; }

private:
    struct SweepState;
    boost::asio::awaitable<void> sweep_node(const PerfNode& target, SweepState& st);
    boost::asio::awaitable<bool> read_port(const PerfNode& target, PortNum port, const mad::perf::ClassPortInfo& cpi,
                                           SweepState& st);
    boost::asio::awaitable<mad::SmpResponse> request(mad::Smp mad, Lid lid, SweepState& st);
    void note_failure(const health::PortId& id, SweepState& st);

    mad::Transport& transport_;
    const MastershipGate& gate_;
    PerfSettings settings_;
    SnapshotPtr snapshot_;
    std::map<health::PortId, health::PortTracker> trackers_;
    std::map<Guid, mad::perf::ClassPortInfo> class_port_info_;
    std::vector<Observer> observers_;
    PerfTotals totals_;
    std::optional<PerfSweepStats> last_;
    boost::asio::steady_timer timer_;
    bool stopped_ = false;
    bool sweeping_ = false;
};

} // namespace ibsm::daemon
