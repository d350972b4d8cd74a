// report.html for one generation (dump.report): the route-quality report of
// `ibsm report` (report/html.h) drawn from the snapshot the SM programmed.
//
// Why: an operator who turned the report on wants to look at what the SM
// did after every re-route without copying dumps to another machine; the
// file is the same one `ibsm report STATE_DIR` would write from that
// generation's lfts.dump and topology.net, so the two can be compared.
//
// With health rows (the HealthMonitor's, taken on the loop when the
// generation was handed over) the page also draws the link health overlay
// (report/health_overlay.h): utilisation, errors, downshifts, isolations as
// they were at that generation.
//
// Runs on the dump writer's report thread (dump_writer.h), never on the
// loop: at 3 456 hosts the analysis takes about a second. It uses one thread
// so the SM keeps the other cores.
#pragma once

#include "daemon/core/subnet.h"
#include "health/port_health.h"

#include <string>
#include <vector>

namespace ibsm::daemon {

// The report's HTML. Throws (std::exception) when the tables cannot be
// analysed (e.g. two ports with one LID); the caller logs and goes on.
// No overlay when `health` is empty (no monitor, or nothing polled yet).
std::string render_generation_report(const SubnetSnapshot& snap, const std::vector<health::PortHealth>& health = {});

} // namespace ibsm::daemon
