// The rows `ibsm ports` lists, and the JSON of one row, for the control
// socket's `ports` command.
//
// Why here: the health monitor, when it runs, owns the rows and their JSON
// (the composition root hands its functions to the dispatcher instead);
// without it the daemon still knows every linked port of the last
// generation, which is what these give: the fabric's own view, no counters,
// state "ok", never more than the snapshot holds.
//
// Data structures: health::PortHealth rows; the JSON object of one row has
// node_guid, node_desc, port, lid, remote {node_guid, port} or null,
// state, since, reasons, counters {name: {total, delta}} (supported
// counters only; null when never read), rates (null when never read) and
// link (the heavy sweep's check; null when not checked).
#pragma once

#include "daemon/core/subnet.h"
#include "health/port_health.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ibsm::daemon::control {

// Every port with a cable in `snap` (switch ports and CA ports), worst
// first by health::sort_worst_first (with no counters: by PortId).
std::vector<health::PortHealth> linked_port_rows(const SubnetSnapshot& snap);

// One row as `ibsm ports --json` prints it.
nlohmann::json port_row_json(const health::PortHealth& row);

} // namespace ibsm::daemon::control
