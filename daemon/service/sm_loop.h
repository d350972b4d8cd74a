// The SM's event loop from its first sweep to its exit. --once runs one
// bring-up and takes the exit status from its outcome; the service runs the
// scheduler, with the election polling beside it, until a signal stops it.
//
// Why: the loop ends only when nothing waits on it any more, so whatever
// ends the run (--once's outcome, a stop signal, a failure) stops every wing
// that keeps a timer or a wait on it: the systemd notifier (STOPPING=1), the
// election's polls, the status timer, the signal wait, the transport. After
// the loop the status says "stopped" and the dump files are finished, also
// when the run failed, before the failure goes up to main's one-line error.
#pragma once

#include "daemon/health/perf_poller.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/service/service_notifier.h"
#include "daemon/service/signals.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "mad/transport.h"

#include <boost/asio/io_context.hpp>

namespace ibsm::daemon {

// The wings the loop runs and stops.
struct SmLoop {
    mad::Transport& transport;
    SweepScheduler& scheduler;
    SmElection& election;
    ServiceNotifier& notifier;
    StatusReporter& status;
    SignalHandler& signals;
    DumpWriter& dumps;
    PerfPoller* perf = nullptr; // the counter poller, beside the election
    metrics::MetricsServer* metrics = nullptr; // metrics.listen's endpoint
};

// Runs `io` to the end. Returns --once's exit status (0 up, 2 up but
// degraded, 1 not up), 0 for the service; rethrows what made the run fail.
int run_sm_loop(boost::asio::io_context& io, bool once, const SmLoop& sm);

} // namespace ibsm::daemon
