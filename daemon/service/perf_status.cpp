#include "daemon/service/perf_status.h"

namespace ibsm::daemon {

StatusPerf perf_status(const PerfPoller& poller)
{
    StatusPerf p;
    p.enabled = poller.settings().enabled;
    p.sweeps = poller.totals().sweeps;
    p.mads = poller.totals().mads;
    p.failures = poller.totals().failures;
    if (const auto& last = poller.last_sweep()) {
        p.last_sweep = last->finished_at;
        p.last_sweep_seconds = last->seconds;
        p.last_sweep_mads = last->mads;
    }
    return p;
}

} // namespace ibsm::daemon
