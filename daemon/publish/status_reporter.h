// Keeps the running daemon's status (status.h) and hands it to the dump
// writer as state.json, metrics.prom and the tail of summary.txt.
//
// Why: `ibsm status` and a Prometheus node_exporter must see the SM's
// state without reading logs, and must never slow the SM: the status is
// gathered on the loop (counters are loop-thread values, read for free) and
// the files are written on the dump writer's thread.
//
// Data structures: the last outcome's fields, cumulative time per phase
// name, and a ring of the last `max_events` events (scheduler events and
// sweep outcomes as one line each, newest last); the state.json text last
// handed over without its time stamp, to tell whether anything changed.
//
// Algorithm: every sweep outcome publishes at once; between sweeps a timer
// re-reads the counters every `period` and publishes when the status
// differs from the last one handed over (traps and light sweeps count up
// between sweeps); during a sweep that tick writes state.json only, and
// metrics.prom waits for the outcome; the exit publishes state "stopped".
#pragma once

#include "daemon/core/sweep_outcome.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/core/events.h"
#include "daemon/publish/port_series.h"
#include "daemon/publish/status.h"
#include "daemon/core/subnet.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"
#include "mad/transport.h"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>

namespace ibsm::daemon {

// One line for the events list: "trap 128 (link state change) from LID 5".
std::string describe_event(const Event& e);
// One line for a finished piece of work: "heavy sweep: up, generation 3, 1.234 s, 456 SMPs".
std::string describe_outcome(const SweepOutcome& o);

class StatusReporter {
public:
    StatusReporter(boost::asio::any_io_executor ex, const mad::Transport& transport, const SweepScheduler& scheduler,
                   const TrapReceiver* traps, DumpWriter& dumps, std::string sm_port_guid,
                   std::size_t max_events = 20);

    // Loop thread: an event the scheduler takes from the queue.
    void on_event(const Event& e);
    // Loop thread: a finished piece of work and the snapshot then current.
    void on_outcome(const SweepOutcome& o, const SnapshotPtr& snap);
    // Starts / stops the periodic re-publish (loop thread).
    void start(std::chrono::milliseconds period = std::chrono::seconds(5));
    void stop();
    // State "stopped", handed over at once (the exit path).
    void publish_stopped();

    // Where the monitored ports and the counter poller's totals come from
    // (main wires the counter poller; a health monitor may take its place).
    using PortSource = std::function<std::vector<health::PortHealth>()>;
    using PerfSource = std::function<StatusPerf()>;
    void set_port_source(PortSource ports, PerfSource perf)
    {
        ports_ = std::move(ports);
        perf_ = std::move(perf);
    }

    // Where the M_Key counters come from (main: the key book, the trap
    // receiver and the recovery).
    void set_mkey_source(std::function<StatusMkey()> mkey) { mkey_ = std::move(mkey); }
    // Where the drains come from (main: daemon/maint/drains.h).
    void set_drain_source(std::function<std::vector<StatusDrain>()> drains) { drains_ = std::move(drains); }

    // Loop thread: a counter sweep finished; publishes the ports at once.
    void on_port_counters()
    {
        ports_dirty_ = true;
        publish(false);
    }

    // The status as of now (counters read from their owners). Its `ports`
    // are the notable ones only (notable_ports); metrics.prom gets every
    // port.
    DaemonStatus current() const;
    // current() stamped with the time it was read: what the control
    // socket's `status` answers.
    DaemonStatus live() const;
    // The control socket's path, for state.json (`ibsm` finds it there).
    void set_control_socket(std::string path) { status_.control_socket = std::move(path); }
    // The HTTP endpoint's URL, for state.json and `ibsm status`.
    void set_metrics_url(std::string url) { status_.metrics_url = std::move(url); }
    // metrics.port_series (start and SIGHUP): from the next publish and scrape on.
    void set_port_series(config::PortSeries series)
    {
        selection_.series = series;
        ports_dirty_ = true; // publish metrics.prom again with the new choice
        ++ports_version_;
    }

    // Loop thread: the exposition text as of now, to be rendered on another
    // thread (the HTTP endpoint's scrapes): the status, every port row and
    // the selection, all held by value or as immutable shared vectors.
    std::function<std::string()> metrics_renderer() const;

    // state.json and `ibsm status` list at most this many ports: the worst
    // that are not plainly healthy. Every port is in metrics.prom and in
    // `ibsm ports` (the control socket asks the health monitor).
    static constexpr std::size_t state_ports = 100;

    // Status files handed to the writer, and those of them with
    // metrics.prom (tests: none while a sweep runs but the forced ones).
    std::uint64_t published() const { return published_; }
    std::uint64_t metrics_published() const { return metrics_published_; }

private:
    void publish(bool force);
    // The port rows, asked of the port source only after something that can
    // change them (a counter sweep, an outcome, an event): asking builds a
    // row per port, and the periodic publish must stay cheap at 40 000
    // ports. Not while the scheduler is busy: a sweep's outcome rebuilds them.
    // Shared with the writer thread, which formats metrics.prom from it;
    // a new vector replaces it, the old one is never changed.
    std::shared_ptr<const std::vector<health::PortHealth>> port_rows() const;
    void arm();
    void add_event(std::string text);

    const mad::Transport& transport_;
    const SweepScheduler& scheduler_;
    const TrapReceiver* traps_;
    DumpWriter& dumps_;
    std::size_t max_events_;
    DaemonStatus status_; // fields set by outcomes; counters filled in by current()
    std::deque<StatusEvent> events_;
    std::string last_published_;
    boost::asio::steady_timer timer_;
    std::chrono::milliseconds period_{5000};
    bool running_ = false;
    PortSource ports_;
    PerfSource perf_;
    std::function<StatusMkey()> mkey_;
    std::function<std::vector<StatusDrain>()> drains_;
    mutable std::shared_ptr<const std::vector<health::PortHealth>> port_rows_; // worst first
    mutable bool ports_dirty_ = true;
    std::uint64_t ports_published_ = 0; // version of port_rows_ last written
    mutable std::uint64_t ports_version_ = 0;
    std::uint64_t published_ = 0, metrics_published_ = 0;
    PortSelection selection_{config::PortSeries::fabric, nullptr}; // switches: the last snapshot's
};

// The ports worth naming in state.json: isolated, refused or reported,
// downshifted, or with errors counted; worst first, at most `limit`.
std::vector<health::PortHealth> notable_ports(const std::vector<health::PortHealth>& worst_first, std::size_t limit);

} // namespace ibsm::daemon
