// Which per-port series metrics.prom and the HTTP endpoint carry
// (metrics.port_series), and the per-leaf aggregates of host links.
//
// Why: with every counter and rate of every linked port (22 series a port)
// a 27 648-host fabric exports 3.6 million series, 530 MB of text a minute:
// no Prometheus server or textfile collector takes that. Most of it is host
// links' traffic nobody graphs port by port, and error counters that stay 0.
// So the default (`fabric`) keeps what an operator of the fabric looks at:
// the switch-to-switch links' transmit rates (one series a port: the far
// end's receive rate is the same bytes), every error counter once it is not
// 0 (a series appears on the first error; totals never go back), and per
// leaf switch the sums of its host links. docs/scale.md, "Telemetry", gives
// the series count of each choice.
//
// Data structures: the switches of the last generation as a sorted vector
// of node GUIDs (a port is switch-to-switch when both its node and its far
// end are in it; otherwise it is a host port, whose leaf is the switch end);
// the rows themselves (health::PortHealth, worst first) are read only.
//
// Algorithm: one pass over the rows per family, as the exposition format
// keeps a family's samples together; a row's labels are built once, only
// for rows that yield a sample; the leaf sums in one pass before. Pure.
#pragma once

#include "config/config.h"
#include "daemon/publish/status.h"
#include "health/port_health.h"

#include <memory>
#include <string>
#include <vector>

namespace ibsm::daemon {

// What to select with: the choice and the switches of the generation the
// rows belong to (null: none known yet, every port counts as a host port).
struct PortSelection {
    config::PortSeries series = config::PortSeries::all;
    std::shared_ptr<const std::vector<Guid>> switches; // sorted
};

// The sorted switch GUIDs of a fabric.
std::shared_ptr<const std::vector<Guid>> switch_guids(const std::vector<Guid>& unsorted);

// ibsmd_perf_* (always), then the ibsmd_port_* and ibsmd_leaf_* families the
// selection keeps (exposition format text).
std::string port_metrics(const StatusPerf& perf, const std::vector<health::PortHealth>& rows,
                         const PortSelection& sel);

} // namespace ibsm::daemon
