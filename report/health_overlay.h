// Puts the health monitor's rows (`ibsm ports --json`, or the daemon's
// HealthMonitor) on a report Model: per cable its utilisation, error counts,
// downshift and policy state (report/link_health.h).
//
// Why: the route report shows where routes go; this shows how the cables
// under them are doing, on the same drawing, so a hot or sick cable is seen
// where it sits in the fabric.
//
// Algorithm: each row is matched by node GUID and port number to a cabled
// port of the topology (rows elsewhere are counted, not fatal: the file may
// be older or newer than the routing). A cable's direction a->b carries the
// larger of a's transmit and b's receive rate; its capacity is lanes × lane
// data rate of its active width and speed (mad/link_speed.h) as the topology
// records them; utilisation is the busier direction over it. Error counts
// are both ends' error counters summed; the state is the worse end's.
#pragma once

#include "health/port_health.h"
#include "report/model.h"
#include "topology/fabric.h"

#include <string>
#include <vector>

namespace ibsm::report {

// Bytes per second one direction of a link of `width` (one LinkWidth bit)
// at the speed the three PortInfo speed fields name; 0 when either is unknown.
double link_capacity_bytes_per_s(std::uint8_t width, std::uint8_t speed_active, std::uint8_t speed_ext_active,
                                 std::uint8_t speed_ext_active2);

// Sets model.health and each drawn link's health. `fabric` is the one the
// model was built from; `source` names where the rows came from.
void add_health(Model& model, const topology::Fabric& fabric, const std::vector<health::PortHealth>& rows,
                std::string source);

} // namespace ibsm::report
