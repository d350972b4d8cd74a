// The counter poller's totals as the status reports them (publish/status.h
// knows no poller; main wires this function into the status reporter).
#pragma once

#include "daemon/health/perf_poller.h"
#include "daemon/publish/status.h"

namespace ibsm::daemon {

StatusPerf perf_status(const PerfPoller& poller);

} // namespace ibsm::daemon
